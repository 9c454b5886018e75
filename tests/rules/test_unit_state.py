"""A ruleset keeps its per-unit bookkeeping in the ``record`` slot of the engine's per-turn state.

``record_of`` reads the ruleset's frozen record (a fresh default while the slot is empty, and
reading puts nothing there); ``set_turn_record`` / ``set_defence_record`` replace it through the
battle. A fresh ``DefenceState()`` / ``TurnState()`` (what the engine puts on a unit at its turn
start) has none, so the ruleset's once-per-turn limits reset with the turn without the engine
knowing them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from components.state import DefenceState, TurnState
from game.ai import get_policy
from game.engine.match import Match
from game.engine.view import MatchView
from game.rules.gurps.state import (
    GurpsDefence,
    GurpsTurn,
    defence_record,
    turn_record,
    update_defence,
    update_turn,
)
from game.rules.unit_state import record_of, set_defence_record, set_turn_record
from game.scenario import load_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


@dataclass(frozen=True, slots=True)
class Mine:
    n: int = 0


def test_record_of_reads_the_record_or_a_fresh_default() -> None:
    state = DefenceState()
    assert state.record is None
    assert record_of(state, Mine) == Mine() and state.record is None  # reading makes nothing
    rec = Mine(1)
    state = replace(state, record=rec)
    assert record_of(state, Mine) is rec
    assert record_of(DefenceState(), Mine).n == 0  # a fresh state: a fresh record
    turn = TurnState(record=rec)
    with pytest.raises(TypeError, match="holds a Mine, not a GurpsTurn"):
        record_of(turn, GurpsTurn)


def test_records_are_replaced_through_the_battle() -> None:
    spec = load_scenario(SCENARIOS / "duel.yaml", ruleset="gurps")
    m = Match(spec, ruleset="gurps", seed=5)
    try:
        uid = m.pending.unit
        turn, defence = GurpsTurn(maneuver="aim"), GurpsDefence(blocked=True)
        set_turn_record(m, uid, turn)
        set_defence_record(m, uid, defence)
        assert m.turn(uid).record is turn and m.defence(uid).record is defence
        assert m.turn(uid).stepped is False and m.turn(uid).attacked_with == frozenset()  # the rest kept
    finally:
        m.close()


def test_gurps_limits_reset_at_the_units_next_turn() -> None:
    spec = load_scenario(SCENARIOS / "duel.yaml", ruleset="gurps")
    m = Match(spec, ruleset="gurps", seed=5)
    try:
        view, policy = MatchView(m), get_policy("random")
        uid = m.pending.unit
        d = update_defence(m, uid, retreated=True, blocked=True, parries={"sword": 2})
        update_turn(m, uid, maneuver="all_out_defence")
        assert defence_record(m, uid) is d and turn_record(m, uid).maneuver == "all_out_defence"
        starts = len(m.log.of_type("turn_start"))
        while m.outcome is None and not any(e["unit"] == uid for e in m.log.of_type("turn_start")[starts:]):
            m.apply(policy(view, m.pending, m.ai_rng))
        assert m.outcome is None, "the unit never got another turn"
        fresh = defence_record(m, uid)
        assert fresh is not d and fresh == GurpsDefence()
        assert m.pending.unit == uid and m.pending.kind == "turn"
        assert turn_record(m, uid).maneuver == ""  # no maneuver chosen yet this turn
        assert m.turn(uid).record is None or type(m.turn(uid).record) is GurpsTurn
    finally:
        m.close()
