"""How the built-in AIs weigh the GURPS defence options (game.ai.reactions), on a real match.

Each option is scored by its expected value: the exact ``p_success`` times what a stopped hit is
worth, less its costs. A retreat and an Acrobatic Dodge can each be used once until the unit's
next turn: using one now gives up its gain for a later attack. A dodge-and-drop leaves the unit
prone. A sacrificial dodge takes the hit for a friend: worth it for a friend worse off (or less
able to defend) than the interposer.
"""

from __future__ import annotations

import numpy as np
import pytest

from components.specs import ScenarioSpec, UnitSpec
from game.ai.reactions import (
    LATER_HIT,
    MELEE_THREAT,
    interpose_harm,
    later_attack_odds,
    react,
    spent_bonus_cost,
    stakes,
)
from game.core.commands import Decision, Defend, Option
from game.engine.match import Match
from game.engine.view import MatchView
from game.rules.gurps.commands import GurpsDefend, Interpose


def _match(extra_enemies: int = 0) -> Match:
    units = [
        UnitSpec("red-1", "red", (5.0, 7.0), facing=0.0),
        UnitSpec("red-2", "red", (5.0, 9.0), facing=0.0),
        UnitSpec("blue-1", "blue", (6.0, 7.0), facing=180.0),
    ]
    units += [
        UnitSpec(f"blue-{k + 2}", "blue", (5.0 + 2.0 * k, 4.5), facing=90.0) for k in range(extra_enemies)
    ]
    spec = ScenarioSpec(
        name="ai reactions",
        ruleset="gurps",
        width=20.0,
        height=14.0,
        obstacles=(),
        units=tuple(units),
        sides=("red", "blue"),
        round_limit=10,
        sha256="0" * 64,
    )
    return Match(spec, ruleset="gurps", seed=1)


def test_later_attack_odds_count_the_other_enemies() -> None:
    m = _match(extra_enemies=2)  # blue-2 at 2.5" from red-1 (melee threat), blue-3 farther
    try:
        view = MatchView(m)
        q_melee, q_any = later_attack_odds(view, "red-1", "blue-1")
        near = sum(
            1
            for e in ("blue-2", "blue-3")
            if np.hypot(*np.subtract(m.pos(e), m.pos("red-1"))) <= MELEE_THREAT
        )
        assert q_melee == pytest.approx(1 - (1 - LATER_HIT) ** near)
        assert q_any == pytest.approx(1 - (1 - LATER_HIT) ** 2)
        assert later_attack_odds(view, "red-1", None)[1] == pytest.approx(1 - (1 - LATER_HIT) ** 3)
    finally:
        m.close()


def test_a_once_per_turn_bonus_costs_its_gain_times_the_chance_of_a_later_attack() -> None:
    plain = Option(Defend("red-1", "dodge"), "dodge", 0.5)
    retreat = Option(Defend("red-1", "dodge"), "dodge and retreat", 0.74, point_field="retreat_to")
    acro = Option(GurpsDefend("red-1", "dodge", acrobatic=True), "acrobatic dodge", 0.6)
    acro_retreat = Option(
        GurpsDefend("red-1", "dodge", acrobatic=True),
        "acrobatic dodge and retreat",
        0.84,
        point_field="retreat_to",
    )
    opts = (plain, retreat, acro, acro_retreat)
    assert spent_bonus_cost(opts, plain, 0.5, 0.5, 0.75) == 0.0
    assert spent_bonus_cost(opts, retreat, 0.5, 0.5, 0.75) == pytest.approx(0.5 * 0.24 * 0.5)
    assert spent_bonus_cost(opts, acro, 0.5, 0.5, 0.75) == pytest.approx(0.75 * 0.1 * 0.5)
    # both bonuses: each against the same defence without it
    assert spent_bonus_cost(opts, acro_retreat, 1.0, 0.5, 0.75) == pytest.approx(0.5 * 0.24 + 0.75 * 0.10)
    # a bonus that adds nothing (a score already at the 16 ceiling) costs nothing but is not taken
    assert (
        spent_bonus_cost(opts, Option(Defend("red-1", "dodge"), "x", 0.5, point_field="retreat_to"), 1, 1, 1)
        == 0
    )


def test_the_defender_keeps_an_acrobatic_dodge_that_gains_little() -> None:
    m = _match(extra_enemies=3)
    try:
        view = MatchView(m)
        d = lambda *o: Decision("red-1", "defence", tuple(o), {"attacker": "blue-1"})  # noqa: E731
        plain = Option(Defend("red-1", "dodge"), "dodge", 0.5)
        small = Option(GurpsDefend("red-1", "dodge", acrobatic=True), "acrobatic dodge", 0.5 + 1e-3)
        assert react(view, d(plain, small), np.random.default_rng(0)) == small.command  # gain > its price
        worse = Option(GurpsDefend("red-1", "dodge", acrobatic=True), "acrobatic dodge", 0.45)
        assert react(view, d(plain, worse), np.random.default_rng(0)) == plain.command
    finally:
        m.close()


def _interpose_option(p: float, p_friend: float, down_self: float = 0.0, down_friend: float = 0.0) -> Option:
    return Option(
        Interpose("red-1", "red-2", None),
        "sacrificial dodge",
        p,
        point_field="to",
        detail={"p_friend_defends": p_friend, "p_down_self": down_self, "p_down_friend": down_friend},
    )


def test_a_sacrificial_dodge_is_worth_it_for_a_friend_worse_off() -> None:
    m = _match()
    try:
        view = MatchView(m)
        # both fresh, the friend defends as well as anyone: taking its hit gains nothing
        harm, harm_none = interpose_harm(view, "red-1", "red-2", _interpose_option(0.5, 0.5), 0.0)
        assert harm >= harm_none
        # the friend is nearly down and defends badly: take the hit
        m.damage("red-2", {"hp": -9}, None)
        view = MatchView(m)
        opt = _interpose_option(0.5, 0.2, down_self=0.0, down_friend=0.9)
        harm, harm_none = interpose_harm(view, "red-1", "red-2", opt, 0.0)
        assert harm < harm_none
        s_me, s_f = stakes(view, "red-1"), stakes(view, "red-2")
        assert harm_none == pytest.approx(0.8 * (s_f + 0.9))
        assert harm == pytest.approx(0.5 * s_me + 0.5 * 0.8 * (s_f + 0.9))
    finally:
        m.close()
