"""The built-in policies on small hand-made situations (engine test ruleset, exact geometry)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from components.specs import ScenarioSpec, UnitSpec
from components.terrain import ObstacleSpec
from game.ai import get_policy
from game.ai import tactics as t
from game.ai.aggressive import aggressive_policy
from game.ai.cautious import cautious_policy, score_points
from game.ai.reactions import react
from game.core.commands import Attack, Decision, Defend, EndTurn, Move, Option
from game.engine.match import Match
from game.engine.view import MatchView
from game.rules.ap_pool.commands import DodgeMove, PoolDodge
from game.rules.gurps.commands import GurpsDefend
from tests.engine.conftest import make_spec


def _spec(units, obstacles=(), width=24.0, height=16.0) -> ScenarioSpec:
    return ScenarioSpec(
        name="ai test",
        ruleset="test-simple",
        width=width,
        height=height,
        obstacles=tuple(obstacles),
        units=tuple(units),
        sides=("red", "blue"),
        round_limit=10,
        sha256="0" * 64,
        # The engine test ruleset's trooper with a short gun: the tests decide who is in range.
        profiles={"trooper": {"test-simple": {"hp": 3, "ap": 2, "range": 6.0}}},
    )


def _at_turn_of(match: Match, uid: str) -> None:
    """End turns until ``uid`` has the turn decision."""
    for _ in range(50):
        d = match.pending
        if d is not None and d.kind == "turn" and d.unit == uid:
            return
        match.apply(EndTurn(d.unit))
    raise AssertionError(f"{uid} never got a turn")


@pytest.fixture
def match():
    m = Match(make_spec(), seed=1)
    yield m
    m.close()


def test_registered_names_resolve():
    assert get_policy("aggressive") is aggressive_policy
    assert get_policy("cautious") is cautious_policy


def test_condition_reads_both_kinds_of_track(match):
    view = MatchView(match)
    assert t.condition(view, "blue-1") == 1.0
    match.damage("blue-1", {"hp": -2}, None)
    assert t.condition(view, "blue-1") == pytest.approx(1 / 3) and t.remaining(view, "blue-1") == 1.0


def test_aggressive_goes_for_the_finishing_blow(match):
    view = MatchView(match)
    match.damage("blue-2", {"hp": -2}, None)  # one hp left
    uid = "red-1"
    d = Decision(
        uid,
        "turn",
        (
            Option(Attack(uid, "blue-1", "gun"), "a", 0.9, detail={"p_hurt": 0.5, "expected_damage": 1.0}),
            Option(Attack(uid, "blue-2", "gun"), "b", 0.6, detail={"p_hurt": 0.3, "expected_damage": 1.0}),
            Option(EndTurn(uid), "end"),
        ),
    )
    assert aggressive_policy(view, d, np.random.default_rng(0)) == Attack(uid, "blue-2", "gun")
    # Without the wound the likelier hit wins.
    match.damage("blue-2", {"hp": 2}, None)
    assert aggressive_policy(view, d, np.random.default_rng(0)) == Attack(uid, "blue-1", "gun")


def test_aggressive_closes_in_along_a_legal_path():
    wall = ObstacleSpec("wall", ((10.0, 2.0), (11.0, 2.0), (11.0, 14.0), (10.0, 14.0)), 2.0)
    units = [UnitSpec("red-1", "red", (4.0, 8.0)), UnitSpec("blue-1", "blue", (18.0, 8.0), facing=180.0)]
    m = Match(_spec(units, [wall]), seed=2)
    try:
        _at_turn_of(m, "red-1")
        view = MatchView(m)
        d = m.pending
        assert not t.attacks(d)  # behind a high wall and out of range
        cmd = aggressive_policy(view, d, m.ai_rng)
        assert isinstance(cmd, Move)
        before = m.distance("red-1", "blue-1")
        m.apply(cmd)  # legal, or this raises
        assert m.distance("red-1", "blue-1") < before - 1.0
        # It heads for an end of the wall (the shortest way round), not into the wall.
        assert abs(cmd.to[1] - 8.0) > 1.5
    finally:
        m.close()


def test_cautious_leaves_the_open_for_cover():
    wall = ObstacleSpec("wall", ((10.0, 5.0), (11.0, 5.0), (11.0, 13.0), (10.0, 13.0)), 2.0)
    units = [UnitSpec("red-1", "red", (7.0, 1.5)), UnitSpec("blue-1", "blue", (20.0, 8.0), facing=180.0)]
    m = Match(_spec(units, [wall]), seed=3)
    try:
        _at_turn_of(m, "red-1")
        view = MatchView(m)
        unit = t.me(view, "red-1")
        _, rows = t.enemy_rows(view, "red-1")
        here = np.array([unit.xy])
        exposed_before, _ = t.cover_matrix(view, unit, here, rows)
        assert exposed_before[0, 0] < 0.1  # in plain sight
        d = m.pending
        assert not t.attacks(d)  # 14.5 inches: out of the test ruleset's range
        cmd = cautious_policy(view, d, np.random.default_rng(5))
        assert isinstance(cmd, Move)
        exposed_after, _ = t.cover_matrix(view, unit, np.array([cmd.to]), rows)
        assert exposed_after[0, 0] > exposed_before[0, 0] + 0.4
        s = score_points(view, "red-1", np.array([unit.xy, cmd.to]), 8.0)
        assert s.score[1] > s.score[0]
        m.apply(cmd)
    finally:
        m.close()


def test_cover_matrix_agrees_with_the_match_sight(match):
    view = MatchView(match)
    uid = "red-1"
    unit = t.me(view, uid)
    ids, rows = t.enemy_rows(view, uid)
    exposed, shot = t.cover_matrix(view, unit, np.array([unit.xy]), rows)
    for j, e in enumerate(ids):
        assert exposed[0, j] == pytest.approx(match.sight(e, uid).cover_fraction, abs=1e-9)
        assert shot[0, j] == pytest.approx(match.sight(uid, e).cover_fraction, abs=1e-9)


def test_defence_takes_the_best_odds_net_of_costs(match):
    view = MatchView(match)
    uid = "red-1"

    def decision(*opts):
        return Decision(uid, "defence", tuple(opts), {"attacker": "blue-1"})

    none = Option(Defend(uid, "none"), "none", 0.0)
    dodge = Option(Defend(uid, "dodge"), "dodge", 0.5)
    parry = Option(Defend(uid, "parry", "sword"), "parry", 0.8)
    rng = np.random.default_rng(0)
    assert react(view, decision(none, dodge, parry), rng) == parry.command
    costly = Option(PoolDodge(uid, "dodge", combo="body"), "dodge 2 AP", 0.5, detail={"ap": 2})
    cheap = Option(PoolDodge(uid, "dodge", combo="mind"), "dodge", 0.45)
    assert react(view, decision(none, costly, cheap), rng) == cheap.command
    # A drop is worth its price only when it buys a lot more.
    drop_small = Option(GurpsDefend(uid, "dodge", drop=True), "drop", 0.55)
    assert react(view, decision(none, dodge, drop_small), rng) == dodge.command
    drop_big = Option(GurpsDefend(uid, "dodge", drop=True), "drop", 0.98)
    match.damage(uid, {"hp": -2}, None)  # near death: stopping the hit matters more
    assert react(view, decision(none, dodge, drop_big), rng) == drop_big.command


def test_dodge_move_seeks_cover_and_stays_when_nothing_is_better():
    wall = ObstacleSpec("wall", ((10.0, 4.0), (11.0, 4.0), (11.0, 12.0), (10.0, 12.0)), 2.0)
    units = [UnitSpec("red-1", "red", (9.0, 3.0)), UnitSpec("blue-1", "blue", (20.0, 8.0), facing=180.0)]
    m = Match(_spec(units, [wall]), seed=3)
    try:
        view = MatchView(m)
        region = m.dodge_region("red-1", 2.0)
        d = Decision(
            "red-1",
            "dodge_move",
            (
                Option(DodgeMove("red-1", None), "stay"),
                Option(
                    DodgeMove("red-1", None),
                    "move",
                    point_field="to",
                    region=region.geometry,
                    validate=region.validate,
                ),
            ),
        )
        cmd = react(view, d, np.random.default_rng(1))
        assert isinstance(cmd, DodgeMove) and cmd.to is not None
        assert region.validate(cmd.to) is None
        unit = t.me(view, "red-1")
        _, rows = t.enemy_rows(view, "red-1")
        exposed, _ = t.cover_matrix(view, unit, np.array([unit.xy, cmd.to]), rows)
        assert exposed[1, 0] > exposed[0, 0] + 0.5  # behind the wall
        assert cmd.to == t.rounded(cmd.to)  # rounded, so the log replays it exactly
    finally:
        m.close()
    # In the middle of an open field there is nowhere better: stay.
    units = [UnitSpec("red-1", "red", (5.0, 8.0)), UnitSpec("blue-1", "blue", (20.0, 8.0), facing=180.0)]
    m = Match(_spec(units), seed=3)
    try:
        view = MatchView(m)
        region = m.dodge_region("red-1", 2.0)
        d = Decision(
            "red-1",
            "dodge_move",
            (
                Option(DodgeMove("red-1", None), "stay"),
                Option(
                    DodgeMove("red-1", None),
                    "move",
                    point_field="to",
                    region=region.geometry,
                    validate=region.validate,
                ),
            ),
        )
        assert react(view, d, np.random.default_rng(1)) == DodgeMove("red-1", None)
    finally:
        m.close()


@pytest.mark.parametrize("name", ["aggressive", "cautious"])
def test_same_rng_same_choices(name):
    policy = get_policy(name)
    picks = []
    for _ in range(2):
        m = Match(make_spec(), seed=8)
        view = MatchView(m)
        rng = np.random.default_rng(123)
        seq = []
        for _ in range(12):
            if m.outcome is not None:
                break
            cmd = policy(view, m.pending, rng)
            seq.append(cmd)
            m.apply(cmd)
        picks.append(seq)
        m.close()
    assert picks[0] == picks[1]
    assert all(math.isfinite(c.to[0]) for c in picks[0] if isinstance(c, Move))
