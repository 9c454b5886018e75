"""The match engine: decisions, legality, isolation, determinism (issue 2)."""

from __future__ import annotations

import esper
import pytest

from components.identity import Identity
from game.core.commands import Attack, ChangePosture, Defend, EndTurn, Face, Move
from game.core.errors import IllegalCommand
from game.engine.match import Match
from game.tools.session import Session
from tests.engine.conftest import make_spec


def test_first_decision_is_a_turn_with_end_turn(spec):
    m = Match(spec, seed=1)
    d = m.pending
    assert d is not None and d.kind == "turn"
    assert d.unit == m.active
    labels = [o.label for o in d.options]
    assert "end turn" in labels
    assert any(label.startswith("move") for label in labels)
    m.close()


def test_illegal_commands_are_refused_and_change_nothing(spec):
    m = Match(spec, seed=2)
    uid = m.pending.unit
    other = next(u for u in m.units() if u != uid)
    before_log, before_hash = len(m.log), m.state_hash()
    for bad in (
        EndTurn(other),  # not its decision
        Move(uid, (9.5, 2.0)),  # inside the wall
        Move(uid, (float("nan"), 1.0)),
        Move(uid, (19.9, 11.9)),  # too far for its AP
        Attack(uid, "nobody", "gun"),
        ChangePosture(uid, "standing"),  # already standing
        Defend(uid, "dodge"),  # no defence is pending
    ):
        with pytest.raises(IllegalCommand):
            m.apply(bad)
    assert len(m.log) == before_log and m.state_hash() == before_hash
    m.close()


def test_move_spends_ap_and_logs_from_to(spec):
    m = Match(spec, seed=3)
    uid = m.pending.unit
    x, y = m.pos(uid)
    dest = (x + (1.0 if x < 10 else -1.0), y + 1.0)
    m.apply(Move(uid, dest))
    ev = m.log.of_type("move")[-1]
    assert ev["unit"] == uid and ev["from"] == [x, y] and ev["to"] == list(dest) and ev["ap"] == 1
    assert m.ap(uid).current == 1
    m.close()


def test_face_normalizes_and_is_free(spec):
    m = Match(spec, seed=4)
    uid = m.pending.unit
    m.apply(Face(uid, 450.0))
    assert m.facing(uid) == 90.0 and m.ap(uid).current == 2
    m.close()


def test_worlds_are_isolated():
    a, b = Match(make_spec(), seed=5), Match(make_spec(), seed=5)
    assert a.store.name != b.store.name
    ua = a.pending.unit
    x, y = a.pos(ua)
    a.apply(Move(ua, (x + (1.0 if x < 10 else -1.0), y)))
    assert b.pos(ua) == (x, y)  # same unit id, other world, unmoved
    with a.activated():
        n_a = len(esper.get_component(Identity))
    with b.activated():
        n_b = len(esper.get_component(Identity))
    assert n_a == n_b == 4
    a.close()
    b.close()
    assert a.store.name not in esper.list_worlds()


def test_same_seed_same_log_bytes():
    logs = []
    for _ in range(2):
        m = Match(make_spec(), seed=11)
        Session(m).play()
        logs.append(m.log.to_text())
        m.close()
    assert logs[0] == logs[1]
    m = Match(make_spec(), seed=12)
    Session(m).play()
    assert m.log.to_text() != logs[0]
    m.close()


def test_match_runs_to_an_outcome_and_logs_required_events():
    m = Match(make_spec(), seed=21)
    out = Session(m).play()
    assert out is not None and m.outcome is out
    types = {e["type"] for e in m.log}
    assert {"match_start", "round_start", "turn_start", "command", "roll", "match_end"} <= types
    start = m.log.events[0]
    assert start["type"] == "match_start" and start["seed"] == 21 and start["ruleset"] == "test-simple"
    assert {u["id"] for u in start["units"]} == {"red-1", "red-2", "blue-1", "blue-2"}
    with pytest.raises(IllegalCommand):
        m.apply(EndTurn("red-1"))
    m.close()


def test_ledger_every_health_change_has_a_damage_event():
    m = Match(make_spec(), seed=33)
    Session(m).play()
    hp = {u["id"]: u["health"]["hp"] for u in m.log.events[0]["units"]}
    for e in m.log.of_type("damage"):
        assert e["before"]["hp"] == hp[e["unit"]]
        hp[e["unit"]] += e["deltas"]["hp"]
    for uid, value in hp.items():
        assert m.health(uid).tracks["hp"] == value
    m.close()


def test_dead_units_never_act_and_leave_the_order():
    m = Match(make_spec(), seed=44)
    Session(m).play()
    dead_at: dict[str, int] = {}
    for e in m.log:
        if e["type"] == "casualty":
            dead_at[e["unit"]] = e["seq"]
        if e["type"] == "turn_start":
            assert e["unit"] not in dead_at
    m.close()


def test_retreat_point_is_validated():
    for seed in range(60):
        m = Match(make_spec(), seed=seed)
        for _ in range(200):
            d = m.pending
            if d is None or m.outcome is not None:
                break
            if d.kind == "defence":
                retreat = next(o for o in d.options if o.point_field == "retreat_to")
                with pytest.raises(IllegalCommand):
                    m.apply(Defend(d.unit, "dodge", retreat_to=m.pos(retreat.command.unit)))  # not a retreat
                m.close()
                return
            # attack whenever possible, else end the turn
            attack = next((o for o in d.options if isinstance(o.command, Attack)), None)
            m.apply(
                attack.command
                if attack
                else next(o.command for o in d.options if isinstance(o.command, EndTurn))
            )
        m.close()
    pytest.fail("no defence decision came up")
