"""A ruleset keeps its per-unit bookkeeping in the ``record`` slot of the engine's per-turn state.

``own_record`` makes the ruleset's record on first use and returns the same one after; a fresh
``DefenceState()`` / ``TurnState()`` (what the engine puts on a unit at its turn start) has none,
so the ruleset's once-per-turn limits reset with the turn without the engine knowing them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from components.state import DefenceState, TurnState
from game.ai import get_policy
from game.engine.match import Match
from game.engine.view import MatchView
from game.rules.gurps.state import GurpsDefence, GurpsTurn, defence_record, turn_record
from game.rules.unit_state import own_record
from game.scenario import load_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


@dataclass(slots=True)
class Mine:
    n: int = 0


def test_own_record_is_made_once_per_state() -> None:
    state = DefenceState()
    assert state.record is None
    rec = own_record(state, Mine)
    rec.n += 1
    assert own_record(state, Mine) is rec and state.record is rec
    assert own_record(DefenceState(), Mine).n == 0  # a fresh state: a fresh record
    turn = TurnState()
    assert own_record(turn, Mine) is not rec
    with pytest.raises(TypeError, match="holds a Mine, not a GurpsTurn"):
        own_record(turn, GurpsTurn)


def test_gurps_limits_reset_at_the_units_next_turn() -> None:
    spec = load_scenario(SCENARIOS / "duel.yaml", ruleset="gurps")
    m = Match(spec, ruleset="gurps", seed=5)
    try:
        view, policy = MatchView(m), get_policy("random")
        uid = m.pending.unit
        d = defence_record(m, uid)
        d.retreated, d.blocked = True, True
        d.parries["sword"] = 2
        turn_record(m, uid).maneuver = "all_out_defence"
        starts = len(m.log.of_type("turn_start"))
        while m.outcome is None and not any(e["unit"] == uid for e in m.log.of_type("turn_start")[starts:]):
            m.apply(policy(view, m.pending, m.ai_rng))
        assert m.outcome is None, "the unit never got another turn"
        fresh = defence_record(m, uid)
        assert fresh is not d and fresh == GurpsDefence()
        assert m.pending.unit == uid and m.pending.kind == "turn"
        assert turn_record(m, uid).maneuver == ""  # no maneuver chosen yet this turn
        assert type(m.turn(uid).record) is GurpsTurn
    finally:
        m.close()
