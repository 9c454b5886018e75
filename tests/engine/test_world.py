"""The World reads esper's own storage: these tests fail if esper stops storing components as
esper 3.9 does (one dict per entity, written in place by ``add_component``)."""

from __future__ import annotations

import esper

from components.decisions import PendingDecision
from components.identity import Controller
from components.spatial import Position
from components.state import DefenceState, TurnState
from components.turns import ActiveTurn, Round
from game.core.commands import EndTurn
from game.engine.match import Match


def test_esper_is_a_version_whose_storage_the_world_relies_on():
    major, minor = (int(v) for v in esper.__version__.split(".")[:2])
    assert major == 3 and minor >= 9


def test_a_unit_table_is_the_dict_esper_writes_components_into(spec):
    m = Match(spec, seed=1)
    uid = m.units()[0]
    eid = m.world.eid[uid]
    with m.activated():
        assert esper.component_for_entity(eid, Position) is m.world.units[uid][Position]
        fresh = TurnState(moved=3.0)
        esper.add_component(eid, fresh)  # replaced through esper's API ...
        assert m.turn(uid) is fresh  # ... and the match reads the new one, with nothing to sync
        esper.remove_component(eid, Controller)
        assert Controller not in m.world.units[uid]
        esper.add_component(eid, Controller("cautious"))
    assert m.controller(uid) == "cautious"
    m.close()


def test_the_loop_state_is_the_battle_entity_in_esper(spec):
    m = Match(spec, seed=2)
    with m.activated():
        ((eid, pending),) = esper.get_component(PendingDecision)
        ((_, turn),) = esper.get_component(ActiveTurn)
        ((_, rnd),) = esper.get_component(Round)
    assert eid == m.world.battle_eid
    assert pending.decision is m.pending and turn.unit == m.active == m.pending.unit
    assert rnd.number == m.round == 1 and rnd.limit == m.round_limit
    m.close()


def test_a_turn_start_replaces_the_turn_components_in_esper(spec):
    m = Match(spec, seed=3)
    first = m.pending.unit
    old_turn, old_defence = m.turn(first), m.defence(first)
    while True:  # every unit ends its turn until ``first`` acts again
        m.apply(EndTurn(m.pending.unit))
        if m.active == first:
            break
    eid = m.world.eid[first]
    with m.activated():
        assert esper.component_for_entity(eid, TurnState) is m.turn(first) is not old_turn
        assert esper.component_for_entity(eid, DefenceState) is m.defence(first) is not old_defence
    m.close()
