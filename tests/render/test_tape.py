"""The measuring tape (L, then drag): distance in inches and yards, move legality from the
unit's own Move validator, cover from the enemies that see the end; drawn on the map."""

from __future__ import annotations

from game.engine.match import Match
from game.engine.view import MatchView
from game.render.script import ScriptRunner, parse_script
from game.render.tape import tape_lines
from tests.render.helpers import duel_spec


def test_tape_lines_from_a_unit():
    m = Match(duel_spec(), seed=3)
    v = MatchView(m)
    d = m.pending
    assert d.unit == "red-1"
    lines = tape_lines(v, v.pos("red-1"), (6.0, 5.0), "red-1", "red-1", d)
    assert lines[0] == f"2.00 in ({2.0 * v.yards_per_inch:.1f} yd)"
    assert lines[1] == "red-1 may move there (path 2.00 in)"
    assert lines[2] == "a red-1 there is seen by:" and any(s.startswith("  blue-1: ") for s in lines[3:])
    assert all(s.endswith(" cover)") for s in lines[3:])
    far = tape_lines(v, v.pos("red-1"), (23.0, 13.0), "red-1", "red-1", d)
    assert far[1].startswith("red-1 may not move there: ")
    # behind the wall (8..9 x 0.5..3.5, height 2) nobody sees a point hugging it
    hidden = tape_lines(v, (4.0, 1.0), (8.6, 0.2), None, "red-1", d)
    assert hidden[0].endswith("yd)") and hidden[1].startswith("a red-1 there is seen by")
    m.close()


def test_tape_by_script_is_drawn_and_commands_nothing(pg, tmp_path):
    from game.render.window import App

    app = App(Match(duel_spec(), seed=3), {"red": "human", "blue": "human"}, screen=pg.Surface((1100, 700)))
    runner = ScriptRunner(app, tmp_path)
    runner.run(parse_script("shot before\nkey l\ndrag red-1 6 5\nshot tape\n", "t"))
    assert app.match.commands == []  # the drag measured, it did not move
    start, end, unit = app.ui.tape
    assert unit == "red-1" and start == (4.0, 5.0) and abs(end[0] - 6.0) < 0.05
    assert runner.saved[0].read_bytes() != runner.saved[1].read_bytes()
    runner.run(parse_script("key l\nclick 6 5\n", "t"))  # tape away: a click moves again
    assert app.ui.tape is None and len(app.match.commands) == 1
    app.close()
