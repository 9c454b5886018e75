"""Undo (Backspace): the player's last command is taken back while no die has been rolled
since; the rebuilt match logs exactly what the original logged before that command."""

from __future__ import annotations

import pytest

from game.engine.match import Match
from game.render.script import ScriptRunner, parse_script
from tests.render.helpers import duel_spec


@pytest.fixture
def app(pg):
    from game.render.window import App

    a = App(Match(duel_spec(), seed=3), {"red": "human", "blue": "human"}, screen=pg.Surface((1100, 700)))
    yield a
    a.close()


def test_undo_a_move_restores_the_match(app):
    run = ScriptRunner(app).run
    before = list(app.match.log.events)
    run(parse_script("click 6 5\n", "t"))
    assert app.match.pos("red-1") != (4.0, 5.0) and len(app.match.commands) == 1
    run(parse_script("key backspace\n", "t"))
    assert app.match.pos("red-1") == (4.0, 5.0) and app.match.commands == []
    assert app.match.log.events == before
    assert "took back" in app.ui.message
    # nothing left to undo
    run(parse_script("key backspace\n", "t"))
    assert app.ui.message_error and "nothing to undo" in app.ui.message


def test_no_undo_after_a_die_roll(app):
    run = ScriptRunner(app).run
    run(parse_script("click blue-1\n", "t"))  # red-1 shoots blue-1: dice are rolled
    assert any(e["type"] == "roll" for e in app.match.log.events)
    n = len(app.match.commands)
    run(parse_script("key backspace\n", "t"))
    assert len(app.match.commands) == n and app.ui.message_error and "cannot undo" in app.ui.message


def test_undo_takes_back_only_the_last_of_several(app):
    run = ScriptRunner(app).run
    run(parse_script("click 5 5\n", "t"))
    first = list(app.match.log.events)
    pos = app.match.pos("red-1")
    run(parse_script("click 6 5\nkey backspace\n", "t"))
    assert app.match.pos("red-1") == pos and app.match.log.events == first
