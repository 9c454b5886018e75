"""Readable text: no panel line, tooltip or log sentence shows Python notation, over whole
battles of every ruleset; options past the tenth get keys (Shift+digit)."""

from __future__ import annotations

import re

import pytest

from game.render import words
from game.render.inspect import context_line, option_lines, target_lines
from game.render.panel import key_label
from game.render.sentences import sentence
from game.render.ui import row_key
from game.rules import RULESET_NAMES
from game.tools.session import Session, Setup
from tests.render.conftest import REPO

#: Python notation a player must never see: keyword reprs, list/tuple/dict literals, booleans
#: and None as words, snake_case identifiers.
REPR = re.compile(r"=\(|=\[|\[\d|\{'|\{|\}|\bTrue\b|\bFalse\b|\bNone\b|\b[a-z]+_[a-z_]+\b")
RULESETS = RULESET_NAMES  # the registry: a new ruleset is tested here at once


def _texts(ruleset: str, scenario: str, seed: int):
    """Every log sentence, reaction context, option line and target line of one AI battle."""
    s = Session.start(REPO / "scenarios" / scenario, Setup(ruleset=ruleset, seed=seed), players="aggressive")
    out = []
    try:
        v = s.view
        for _ in range(600):
            if s.match.outcome is not None:
                break
            d = s.match.pending
            if d is not None:
                if d.kind != "turn":
                    out.append(("context", context_line(d)))
                for o in d.options:
                    out += [("option", line) for line in option_lines(o)]
                if d.kind == "turn":
                    for e in v.enemies(d.unit)[:2]:
                        out += [("target", line) for line in target_lines(v, d, d.unit, e)]
            s.step()
        out += [(f"log {e['type']}", t) for e in s.match.log.events if (t := sentence(e))]
    finally:
        s.close()
    return out


@pytest.mark.parametrize("ruleset", RULESETS)
def test_no_repr_in_any_line_of_whole_battles(ruleset):
    texts = _texts(ruleset, "duel.yaml", 1) + _texts(ruleset, "skirmish-5v5.yaml", 2)
    assert len(texts) > 100
    bad = [(where, t) for where, t in texts if REPR.search(t)]
    assert not bad, bad[:5]


def test_the_old_reprs_read_as_words():
    e = {
        "seq": 1,
        "round": 1,
        "type": "defence_dice",
        "unit": "vasco",
        "kind": "dodge",
        "faces": (1, 1),
        "reason": "encounter start",
    }
    assert sentence(e) == "vasco keeps dodge dice 1, 1 (encounter start)."
    assert words.phrase("weapon_track", [1, 2, 3, 3, 3, 4, 5]) == "weapon track 1, 2, 3, 3, 3, 4, 5"
    assert words.phrase("hit", True) == "hit yes"
    assert words.phrase("p_hurt", 0.0719) == "chance to hurt 7.2%"
    assert words.value({"a_b": None}) == "a b none"
    g = sentence(
        {"seq": 1, "round": 1, "type": "new_thing", "unit": "x", "still_hits": False, "at": [1.5, 2.0]}
    )
    assert g == "x: new thing (still hits no; at (1.5, 2))." and not REPR.search(g)


def test_options_past_the_tenth_get_shift_keys():
    assert [key_label(r) for r in (0, 8, 9, 10, 19, 20)] == ["1", "9", "0", "Shift+1", "Shift+0", ""]
    assert row_key(10) == (1, True) and row_key(9) == (0, False) and row_key(20) is None


def test_shift_digit_chooses_the_eleventh_option(pg):
    from game.engine.match import Match
    from game.render.script import ScriptRunner, parse_script
    from game.render.ui import menu_rows
    from game.render.window import App
    from game.scenario import load_scenario

    # firing-line under GURPS: a crossbowman may aim at each enemy in sight, so a turn numbers
    # more than ten maneuvers and postures
    match = Match(load_scenario(REPO / "scenarios" / "firing-line.yaml", "gurps"), seed=9)
    app = App(match, {s: "human" for s in match.spec.sides}, screen=pg.Surface((1100, 700)))
    from game.core.commands import EndTurn

    for _ in range(30):  # end turns until a turn numbers more than ten options
        d = match.pending
        rows = menu_rows(d, app.ui)
        if len(rows) > 10:
            break
        match.apply(EndTurn(d.unit))
    app.tick()
    assert len(rows) > 10
    chosen = d.options[rows[10]].command
    before = len(match.commands)
    ScriptRunner(app).run(parse_script("key shift+1\n", "t"))
    if d.options[rows[10]].point_field is None:
        assert len(match.commands) == before + 1
        assert match.commands[-1]["type"] == type(chosen).__name__
    else:
        assert app.ui.armed == rows[10]
    app.close()


def test_short_labels_and_one_cover_scale():
    from components.sight import CoverLevel
    from game.render import colors
    from game.render.units import short_label

    assert [short_label(u) for u in ("red-m2", "blue-3", "vasco", "a-")] == ["rm2", "b3", "vasc", "a-"]
    # the sight fans and the threat map share one scale: red in the open, green near-total
    assert colors.THREAT_COLORS is colors.COVER_COLORS
    assert colors.COVER_COLORS[CoverLevel.NONE][0] > colors.COVER_COLORS[CoverLevel.NONE][1]
    assert colors.COVER_COLORS[CoverLevel.NEAR_TOTAL][1] > colors.COVER_COLORS[CoverLevel.NEAR_TOTAL][0]
    # the dodge disc is no arc shade and no cover colour
    dodge = colors.REGION_DODGE[:3]
    assert (
        dodge not in [c[:3] for c in colors.ARC_COLORS.values()] and dodge not in colors.COVER_COLORS.values()
    )
    assert all(c[0] == c[1] or abs(c[0] - c[1]) < 15 for c in colors.ARC_COLORS.values())  # greys
