"""The window answers AFF's round-start armour-or-dodge decision (Ubiquitous Dodging) like any
other reaction: its options are the panel's rows, a number key or a click chooses."""

from __future__ import annotations

from game.core.commands import Defend
from game.engine.match import Match
from game.scenario import load_scenario
from tests.render.test_input import click, feed, key


def _app(pg):
    from game.render.window import App

    spec = load_scenario("scenarios/duel.yaml", ruleset="aff")
    match = Match(spec, ruleset="aff", seed=1, options={"ubiquitous": True})
    app = App(match, {"red": "human", "blue": "human"}, screen=pg.Surface((1180, 720)))
    app.tick()
    return app, match


def test_a_key_answers_the_round_choice(pg):
    app, match = _app(pg)
    try:
        d = match.pending
        assert d.kind == "protection" and d.unit == "hendrik"
        cmds = feed(app, [key(pg, pg.K_2)])
        assert cmds == [Defend("hendrik", "dodge")]
        assert app.apply(cmds[0])
        assert match.pending.kind == "turn"
        assert [c.kind for c in match.rules.protection_choices(match, "hendrik")] == ["dodge"]
    finally:
        match.close()


def test_a_click_on_a_row_answers_the_round_choice(pg):
    app, match = _app(pg)
    try:
        row = next(b for b in app.renderer.panel.buttons if b.action == ("option", 0))
        assert feed(app, click(pg, row.rect.center)) == [Defend("hendrik", "armour")]
    finally:
        match.close()
