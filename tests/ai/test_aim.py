"""Setting up a better attack (GURPS Aim) and the odds the policies read from a maneuver option."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from components.specs import ScenarioSpec, UnitSpec
from game.ai import tactics as t
from game.ai.aggressive import aggressive_policy
from game.ai.cautious import cautious_policy
from game.core.commands import Attack, Decision, EndTurn, Maneuver, Option
from game.engine.match import Match
from game.engine.view import MatchView

POLICIES = [aggressive_policy, cautious_policy]


def _pending(m: Match) -> Decision:
    d = m.pending
    assert d is not None
    return d


def _duel(distance: float) -> Match:
    """Two GURPS troopers (bow skill 12, Acc 2) in the open, ``distance`` inches (= yards) apart."""
    spec = ScenarioSpec(
        name="aim test",
        ruleset="gurps",
        width=60.0,
        height=16.0,
        obstacles=(),
        units=(
            UnitSpec("red-1", "red", (4.0, 8.0)),
            UnitSpec("blue-1", "blue", (4.0 + distance, 8.0), facing=180.0),
        ),
        sides=("red", "blue"),
        round_limit=10,
        sha256="0" * 64,
    )
    m = Match(spec, seed=1)
    for _ in range(10):
        d = _pending(m)
        if d.kind == "turn" and d.unit == "red-1":
            return m
        m.apply(EndTurn(d.unit))
    raise AssertionError("red-1 never got a turn")


@pytest.mark.parametrize("policy", POLICIES)
def test_aims_when_the_snap_shot_is_much_worse(policy: Any) -> None:
    m = _duel(25.0)  # bow at 25 yd: skill 5 now, 7 aimed
    try:
        view = MatchView(m)
        d = _pending(m)
        snap = t.best_attack(view, d)
        assert snap is not None and snap.detail["eff"] == 5
        aim = next(o for o in d.options if o.command == Maneuver("red-1", "aim:bow:blue-1"))
        value = t.next_turn_value(view, d, aim)
        assert value is not None and value > t.SETUP_GAIN * t.attack_value(view, snap)
        cmd = policy(view, d, np.random.default_rng(0))
        assert cmd == aim.command
        m.apply(cmd)  # legal
        # Next turn the aimed shot is the one taken (aiming again promises nothing more).
        for _ in range(10):
            d = _pending(m)
            if (
                d.kind == "turn"
                and d.unit == "red-1"
                and any(isinstance(o.command, Attack) for o in d.options)
            ):
                break
            m.apply(EndTurn(d.unit) if d.kind == "turn" else policy(view, d, np.random.default_rng(0)))
        aimed = t.best_attack(view, d)
        assert aimed is not None and aimed.detail["eff"] == 7
        assert policy(view, d, np.random.default_rng(0)) == Attack("red-1", "blue-1", "bow")
    finally:
        m.close()


@pytest.mark.parametrize("policy", POLICIES)
def test_shoots_now_when_aiming_gains_too_little(policy: Any) -> None:
    m = _duel(10.0)  # skill 8 now, 10 aimed: less than SETUP_GAIN times better
    try:
        view = MatchView(m)
        d = _pending(m)
        assert t.setup_beats_attack(view, d, t.best_attack(view, d)) is None
        assert policy(view, d, np.random.default_rng(0)) == Attack("red-1", "blue-1", "bow")
    finally:
        m.close()


def test_eff_next_turn_is_read_only_on_a_confirmed_3d6_scale() -> None:
    u = "red-1"
    detail = {"p_hurt": 0.02, "expected_damage": 3.0, "eff": 5}
    aim = Option(Maneuver(u, "aim:bow:blue-1"), "aim", detail={"eff_next_turn": 9})
    snap = Option(Attack(u, "blue-1", "bow"), "a", t.roll_under_3d6(5), detail=detail)
    odd = Option(Attack(u, "blue-1", "bow"), "a", 0.5, detail=detail)  # not a 3d6 roll-under
    promised = t.next_turn_attack(Decision(u, "turn", (snap, aim)), aim)
    assert promised is not None
    assert promised.detail["p_hurt"] == pytest.approx(0.02 * t.roll_under_3d6(9) / t.roll_under_3d6(5))
    assert t.next_turn_attack(Decision(u, "turn", (odd, aim)), aim) is None
    # An explicit next-turn chance to hurt is taken as given.
    told = Option(Maneuver(u, "aim:bow:blue-1"), "aim", detail={"p_hurt_next_turn": 0.3})
    got = t.next_turn_attack(Decision(u, "turn", (odd, told)), told)
    assert got is not None and got.detail["p_hurt"] == 0.3
