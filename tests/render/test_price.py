"""What a choice costs, told the same way under every ruleset (game.render.price), and the window
keys and panel that show it: stable numbers, Ctrl + weapon attacks, the one reason an attack is
refused, exact move previews, hints that clear, the attacker during a reaction, the summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from game.core.commands import Attack, EndTurn, Move, Option
from game.engine.match import Match
from game.engine.view import MatchView
from game.render.price import attack_price, defence_price, harm_text, reaction_note, why_no_attack
from game.rules.sheet import HarmLeft, UnitSheet
from game.scenario import load_scenario

REPO = Path(__file__).resolve().parents[2]


def duel(ruleset: str, seed: int = 1) -> Match:
    return Match(
        load_scenario(REPO / "tests" / "fixtures" / "scenarios" / "duel-classic.yaml", ruleset), seed=seed
    )


# ---------------------------------------------------------------------------- pure


def test_an_attack_row_leads_with_the_chance_to_hurt_and_the_harm_then_the_hit_chance() -> None:
    opt = Option(
        Attack("a", "b", "rapier"),
        "rapier -> b",
        p_success=0.704,
        detail={"p_hurt": 0.106, "expected_harm": {"hp": 0.4}},
    )
    assert attack_price(opt) == "10.6% to hurt, 0.4 HP expected (hit 70.4%)"
    none = Option(
        Attack("a", "b", "knife"), "knife", 0.5, detail={"p_hurt": 0.0, "expected_harm": {"hp": 0.0}}
    )
    assert attack_price(none) == "0.0% to hurt, no harm expected (hit 50.0%)"
    assert harm_text({"stun": 1.2, "wounds": 1.0}) == "1.2 stun and 1 wound"
    assert harm_text({"memories": 1}) == "1 memory"


def test_a_defence_row_shows_its_odds_the_harm_with_and_without_it_and_what_is_left() -> None:
    sheet = UnitSheet(harm=(HarmLeft("wounds", 4, 4),))
    dodge = Option(
        EndTurn("x"),
        "dodge",
        p_success=0.429,
        detail={"expected_harm": {"wounds": 2.855}, "expected_harm_without": {"wounds": 5}},
    )
    text = defence_price(dodge, sheet)
    assert text is not None
    parts = text.split(" · ")
    assert parts[0] == "42.9% to stop it"
    assert parts[1] == "2.85 wounds expected (5 wounds without)"
    assert parts[2] == "if it fails: 5 wounds"  # the harm comes only when the defence fails
    assert parts[3] == "enough to put it out of action" and parts[4] == "4 of 4 wounds left"
    plain = Option(
        EndTurn("x"),
        "no dodge",
        0.0,
        detail={"expected_harm": {"wounds": 2}, "expected_harm_without": {"wounds": 2}},
    )
    assert defence_price(plain, sheet) == "2 wounds expected · 4 of 4 wounds left"
    assert defence_price(Option(EndTurn("x"), "stay"), sheet) is None  # not about a hit


# ---------------------------------------------------------------------------- the one reason


def test_why_no_attack_names_the_one_reason_that_applies() -> None:
    m = duel("ap-pool")
    v = MatchView(m)
    d = m.pending
    assert d.unit == "vasco"
    # the knife reaches 8 in, centre to centre; hendrik stands 8.06 in away; the rapier is melee
    assert why_no_attack(v, d, "vasco", "hendrik").startswith(
        "out of range by 0.06 in: throwing knife reaches 8.00 in"
    )
    assert why_no_attack(v, d, "hendrik", "vasco") == "hendrik attacks only on its own turn"
    m.apply(Move("vasco", (5.0, 0.9)))  # 5.6 in: two of its four AP
    m.apply(Move("vasco", (5.0, 1.5)))  # one more
    d = m.pending
    assert m.ap("vasco").current == 1
    assert why_no_attack(v, d, "vasco", "hendrik") == "1 AP short: an attack costs 2 AP, vasco has 1"
    m.close()


def test_why_no_attack_after_the_one_attack_a_turn_and_without_sight() -> None:
    m = duel("aff")
    v = MatchView(m)
    d = m.pending
    shot = next(o for o in d.options if isinstance(o.command, Attack) and o.command.weapon == "crossbow")
    while m.pending.unit == d.unit and m.pending.kind == "turn" and m.outcome is None:
        if not m.turn(d.unit).attacked_with:
            m.apply(shot.command)
            while m.pending.kind != "turn":  # the defender's protection
                m.apply(m.pending.options[0].command)
            break
    d = m.pending
    if d.unit == "vasco" and d.kind == "turn":
        assert why_no_attack(v, d, "vasco", "hendrik") == "no attack now: one attack a turn: it has attacked"
    m.close()
    m = Match(load_scenario(REPO / "scenarios" / "skirmish-5v5.yaml", "ap-pool"), seed=1)
    v = MatchView(m)
    d = m.pending
    hidden = [e for e in v.enemies(d.unit) if not v.sight(d.unit, e).visible]
    assert hidden, "the 5v5 map hides some enemy from the first unit"
    assert why_no_attack(v, d, d.unit, hidden[0]) == f"no line of sight to {hidden[0]}"
    m.close()


def test_the_ap_left_for_a_reaction_is_said_where_reactions_cost_ap() -> None:
    m = duel("ap-pool")
    v = MatchView(m)
    assert reaction_note(v, "vasco", 1) == "leaves 1 AP: too few for a dodge (2 AP)"
    assert reaction_note(v, "vasco", 2) == "leaves 2 AP: enough for a dodge (2 AP)"
    m.close()
    m = duel("gurps")
    assert reaction_note(MatchView(m), "vasco", 0) is None  # GURPS defences cost no AP
    m.close()


# ---------------------------------------------------------------------------- the window


@pytest.fixture
def app(pg):
    from game.render.window import App

    a = App(duel("ap-pool"), {"red": "human", "blue": "human"}, screen=pg.Surface((1280, 800)))
    a.tick()
    yield a
    a.close()


def _screen(app, p):
    x, y = app.renderer.camera.world_to_screen(*p)
    return (round(x), round(y))


def _hover(app, pg, p):
    app.tick([pg.event.Event(pg.MOUSEMOTION, pos=_screen(app, p), rel=(0, 0), buttons=(0, 0, 0))])


def _key(pg, k, mod=0):
    return pg.event.Event(pg.KEYDOWN, key=k, mod=mod, unicode="", scancode=0)


def test_a_move_costs_what_its_preview_said_to_the_hundredth(app, pg) -> None:
    for target in ((9.37, 7.12), (10.55, 6.21), (11.13, 7.94)):
        _hover(app, pg, target)
        pv = app.ui.preview
        assert pv is not None and pv.reason is None
        assert pv.label.startswith(f"{pv.length:.2f} in, {pv.ap} AP; leaves ")
        n = len(app.match.log.events)
        app.tick([pg.event.Event(pg.MOUSEBUTTONDOWN, pos=_screen(app, target), button=1)])
        moved = [e for e in app.match.log.events[n:] if e["type"] == "move"]
        assert moved and moved[0]["ap"] == pv.ap and moved[0]["length"] == pytest.approx(pv.length, abs=1e-6)
        assert tuple(moved[0]["to"]) == pv.to  # the point the preview priced is the point moved to
        if app.match.pending.unit != "vasco" or app.match.ap("vasco").current < 2:
            break


def test_numbers_never_depend_on_the_cursor_and_ctrl_attacks_with_a_weapon(app, pg) -> None:
    from game.render.ui import menu_rows

    d = app.match.pending
    before = menu_rows(d, app.ui)
    _hover(app, pg, app.match.pos("hendrik"))
    assert app.ui.target == "hendrik" and menu_rows(d, app.ui) == before
    app.apply(Move("vasco", (6.0, 6.5)))  # closer: the throwing knife reaches now
    app.tick()
    _hover(app, pg, app.match.pos("hendrik"))
    n = len(app.match.commands)
    app.tick([_key(pg, pg.K_2, pg.KMOD_CTRL)])  # weapon 2 of vasco's sheet: the throwing knife
    assert len(app.match.commands) == n + 1
    assert app.match.commands[-1]["type"] == "Attack" and app.match.commands[-1]["weapon"] == "throwing knife"


def test_a_hint_clears_when_its_decision_passes_and_a_notice_stays_a_while(app, pg) -> None:
    app.ui.say("choose one of the options first")
    app.tick([_key(pg, pg.K_RETURN)])  # vasco ends its turn: the decision changes
    assert app.ui.message == ""
    app.ui.say("saved to x", ttl=3)
    app.tick([_key(pg, pg.K_RETURN)])
    assert app.ui.message == "saved to x"
    app.tick()
    app.tick()
    assert app.ui.message == ""


def test_the_log_keeps_its_place_and_a_reaction_shows_the_attacker(pg) -> None:
    from game.render.window import App

    a = App(duel("ap-pool", seed=3), {"red": "aggressive", "blue": "human"}, screen=pg.Surface((1280, 800)))
    a.tick()
    top = a.renderer.panel_log_top
    assert top > 0
    # hendrik's first turn: hovering vasco fills the panel; the log stays where it is
    _hover(a, pg, a.match.pos("vasco"))
    assert a.renderer.panel_log_top == top
    a.tick([_key(pg, pg.K_RETURN)])
    for _ in range(20):
        a.tick()
        if a.match.pending.kind == "defence":
            break
    d = a.match.pending
    assert d.kind == "defence" and d.unit == "hendrik"
    a.ui.hover_unit = None
    assert a.renderer.panel.shown_unit(a.view, a.ui, a.humans, "hendrik") == "vasco"  # the attacker
    assert a.renderer.panel_log_top == top
    a.close()


def test_the_summary_opens_at_the_end_and_o_toggles_it(pg) -> None:
    from game.render.window import App

    a = App(
        duel("ap-pool", seed=3), {"red": "aggressive", "blue": "aggressive"}, screen=pg.Surface((1100, 700))
    )
    for _ in range(400):
        a.tick()
        if a.match.outcome is not None:
            break
    a.tick()
    assert a.match.outcome is not None and a.ui.show_summary
    a.tick([_key(pg, pg.K_o)])
    assert not a.ui.show_summary
    a.tick([_key(pg, pg.K_o)])
    assert a.ui.show_summary
    a.tick([_key(pg, pg.K_ESCAPE)])
    assert not a.ui.show_summary
    a.close()
