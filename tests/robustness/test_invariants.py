"""game.tools.invariants: a sound match passes; each kind of corruption is named (issue 8, part 1)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from components.spatial import Position
from game.ai import get_policy
from game.engine.match import Match
from game.engine.view import MatchView
from game.rules import REGISTRY, ruleset_class
from game.rules.limits import Binding, Reaction, defence_event
from game.tools.invariants import LogChecker, check, check_log, summarize
from tests.engine.conftest import make_spec
from tests.engine.simple_rules import SimpleRuleset


def _names(violations: list[str]) -> set[str]:
    return set(summarize(violations))


@pytest.fixture
def match():
    m = Match(make_spec(), seed=5)
    yield m
    m.close()


def test_random_battles_stay_sound_after_every_command():
    policy = get_policy("random")
    for seed in range(4):
        m = Match(make_spec(), seed=seed)
        view = MatchView(m)
        steps = 0
        while m.outcome is None:
            m.apply(policy(view, m.pending, m.ai_rng))
            steps += 1
            assert check(m) == [], f"seed {seed}, command {steps}"
        assert check_log(m.log.events, m.spec) == []
        assert m.log.of_type("damage"), "the battles should have exercised the health ledger"
        m.close()


def test_check_is_repeatable_and_cheap_to_call_twice(match):
    assert check(match) == check(match) == []


def _teleport(m: Match, uid: str, to: tuple[float, float]) -> None:
    """Move a unit behind the engine's back (no event): what a buggy ruleset might do."""
    p = m.store.get(uid, Position)
    m.store.put(uid, replace(p, x=to[0], y=to[1]))


def test_overlapping_bases_and_unlogged_moves_are_reported(match):
    a, b = "red-1", "blue-1"
    bx, by = match.pos(b)
    _teleport(match, a, (bx + 0.3, by))
    got = check(match)
    assert _names(got) >= {"bases-overlap", "position-ledger"}
    overlap = next(v for v in got if v.startswith("[bases-overlap]"))
    assert "red-1" in overlap and "blue-1" in overlap and "0.300000" in overlap


def test_base_inside_a_wall_or_off_the_map_is_reported(match):
    _teleport(match, "red-1", (9.5, 2.0))  # inside the wall of make_spec
    assert "base-in-obstacle" in _names(check(match))
    _teleport(match, "red-1", (0.2, 6.0))  # base radius 0.5 crosses x = 0
    got = check(match)
    assert "base-off-map" in _names(got) and "base-in-obstacle" not in _names(got)


def test_negative_ap_is_reported(match):
    match.store.put("blue-2", replace(match.ap("blue-2"), current=-1))
    got = check(match)
    assert got == ["[ap-negative] blue-2: has -1 AP"]


def test_health_change_without_damage_event_breaks_the_ledger(match):
    h = match.health("red-2")  # behind the engine's back: no damage event
    match.store.put("red-2", replace(h, tracks={**h.tracks, "hp": h.tracks["hp"] - 1}))
    got = check(match)
    assert got == [
        "[health-ledger] red-2: live tracks differ from the damage events (log, live): {'hp': (3, 2)}"
    ]


def test_logged_damage_keeps_the_ledger_balanced(match):
    match.damage("red-2", {"hp": -2}, "blue-1")
    assert check(match) == []


def test_out_of_action_without_casualty_event(match):
    h = match.health("blue-1")  # behind the engine's back: no status/casualty event
    match.store.put("blue-1", replace(h, status=h.status | {"dead"}))
    assert "casualty-ledger" in _names(check(match))


def test_pending_decision_for_a_casualty_is_dead_acting(match):
    uid = match.pending.unit
    match.set_status(uid, "dead", True, "test")  # logged, but its turn decision is still pending
    got = check(match)
    assert any(v.startswith(f"[dead-acts] {uid}") for v in got)


# ---- whole-log checks on forged logs ---------------------------------------------------------


def _log(*events: dict[str, Any], ruleset: str = "test-simple") -> list[dict[str, Any]]:
    start = {
        "seq": 0,
        "round": 0,
        "type": "match_start",
        "ruleset": ruleset,
        "units": [
            {
                "id": "red-1",
                "side": "red",
                "at": [3.0, 3.0],
                "facing": 0.0,
                "posture": "standing",
                "health": {"hp": 3},
            },
            {
                "id": "blue-1",
                "side": "blue",
                "at": [17.0, 3.0],
                "facing": 180.0,
                "posture": "standing",
                "health": {"hp": 3},
            },
        ],
    }
    out = [start]
    for i, e in enumerate(events, start=1):
        out.append({"seq": i, "round": 1, **e})
    return out


def test_move_through_a_wall_is_reported():
    spec = make_spec(1)
    through = {
        "type": "move",
        "unit": "red-1",
        "from": [3.0, 3.0],
        "to": [12.0, 3.0],
        "path": [[3.0, 3.0], [12.0, 3.0]],
    }
    got = check_log(_log(through), spec)
    assert _names(got) == {"move-crosses-obstacle"}
    assert "wall" in got[0] and "red-1" in got[0]
    # Skirting the wall, base edge just touching its corner, is fine.
    around = {
        "type": "move",
        "unit": "red-1",
        "from": [3.0, 3.0],
        "to": [12.0, 3.0],
        "path": [[3.0, 3.0], [3.0, 4.5], [12.0, 4.5], [12.0, 3.0]],  # y = 4.5: 0.5 in off the wall's top
    }
    assert check_log(_log(around), spec) == []


def test_move_path_must_start_where_the_unit_is():
    jump = {
        "type": "step",
        "unit": "red-1",
        "from": [5.0, 5.0],
        "to": [5.5, 5.0],
        "path": [[5.0, 5.0], [5.5, 5.0]],
    }
    assert _names(check_log(_log(jump))) == {"move-path"}


def test_damage_event_with_wrong_before_or_after():
    bad_before = {
        "type": "damage",
        "unit": "blue-1",
        "deltas": {"hp": -1},
        "before": {"hp": 2},
        "after": {"hp": 1},
    }
    assert _names(check_log(_log(bad_before))) == {"health-ledger"}
    bad_after = {
        "type": "damage",
        "unit": "blue-1",
        "deltas": {"hp": -1},
        "before": {"hp": 3},
        "after": {"hp": 1},
    }
    assert _names(check_log(_log(bad_after))) == {"health-ledger"}
    good = {"type": "damage", "unit": "blue-1", "deltas": {"hp": -1}, "before": {"hp": 3}, "after": {"hp": 2}}
    assert check_log(_log(good)) == []


@pytest.mark.parametrize(
    "late",
    [
        {"type": "turn_start", "unit": "blue-1"},
        {
            "type": "command",
            "unit": "blue-1",
            "decision": "turn",
            "command": {"type": "EndTurn", "unit": "blue-1"},
        },
        {"type": "attack", "attacker": "blue-1", "target": "red-1"},
        {
            "type": "move",
            "unit": "blue-1",
            "from": [17.0, 3.0],
            "to": [16.0, 3.0],
            "path": [[17.0, 3.0], [16.0, 3.0]],
        },
    ],
    ids=["turn_start", "command", "attack", "move"],
)
def test_casualties_never_act_again(late):
    dead = {"type": "casualty", "unit": "blue-1", "reason": "shot"}
    got = check_log(_log(dead, late))
    assert _names(got) == {"dead-acts"}
    assert "blue-1" in got[0] and "casualty event 1" in got[0]
    # Being attacked (as the target) after death is not acting.
    assert check_log(_log(dead, {"type": "attack", "attacker": "red-1", "target": "blue-1"})) == []


def test_posture_and_facing_events_must_chain():
    assert _names(
        check_log(_log({"type": "posture", "unit": "red-1", "from": "prone", "to": "kneeling", "at": [3, 3]}))
    ) == {"posture-ledger"}
    assert _names(check_log(_log({"type": "facing", "unit": "red-1", "from": 90.0, "to": 180.0}))) == {
        "facing-ledger"
    }
    assert check_log(_log({"type": "facing", "unit": "red-1", "from": 0.0, "to": 180.0})) == []


def test_gurps_retreat_only_once_between_own_turns():
    assert [r.name for r in ruleset_class("gurps").reaction_limits] == ["retreat", "block", "acrobatic dodge"]
    retreat = {"type": "defence", "unit": "red-1", "kind": "dodge", "retreat": True, "success": True}
    twice = check_log(_log(retreat, retreat, ruleset="gurps"))
    assert _names(twice) == {"reaction-twice"} and "retreat again in one turn" in twice[0]
    own_turn = {"type": "turn_start", "unit": "red-1"}
    assert check_log(_log(retreat, own_turn, retreat, ruleset="gurps")) == []
    # Another unit's turn does not reset red-1's window.
    other = {"type": "turn_start", "unit": "blue-1"}
    assert _names(check_log(_log(retreat, other, retreat, ruleset="gurps"))) == {"reaction-twice"}
    # A sacrificial dodge uses the retreat up; dodging without retreat twice is fine.
    sacrificial = {"type": "defence", "unit": "red-1", "kind": "sacrificial dodge", "success": True}
    after = check_log(_log(sacrificial, retreat, ruleset="gurps"))
    assert _names(after) == {"reaction-twice"} and "sacrificial dodge at event 1" in after[0]
    plain = {"type": "defence", "unit": "red-1", "kind": "dodge", "retreat": False}
    assert check_log(_log(plain, plain, sacrificial, sacrificial, ruleset="gurps")) == []


def test_gurps_block_and_acrobatic_dodge_once_per_turn():
    block = {"type": "defence", "unit": "blue-1", "kind": "block", "retreat": False}
    assert _names(check_log(_log(block, block, ruleset="gurps"))) == {"reaction-twice"}
    acro = {"type": "defence", "unit": "blue-1", "kind": "dodge", "acrobatic": True}
    assert _names(check_log(_log(acro, acro, ruleset="gurps"))) == {"reaction-twice"}
    assert check_log(_log(acro, block, ruleset="gurps")) == []


def test_aff_armour_or_dodge_binds_for_the_round_under_ubiquitous_dodging():
    armour = {"type": "defence", "unit": "red-1", "kind": "armour"}
    dodge = {"type": "defence", "unit": "red-1", "kind": "dodge"}
    events = _log(armour, dodge, ruleset="aff")
    events[0]["options"] = {"ubiquitous": True, "riposte": False}
    got = check_log(events)
    assert _names(got) == {"choice-binding"} and "chose dodge after armour" in got[0]
    events.insert(2, {"seq": 9, "round": 2, "type": "round_start"})
    assert check_log(events) == []
    standard = _log(armour, dodge, ruleset="aff")
    standard[0]["options"] = {"ubiquitous": False}
    assert check_log(standard) == []


def test_ap_pool_dodge_once_per_turn():
    dodge = {"type": "defence", "unit": "blue-1", "kind": "dodge", "success": False}
    assert _names(check_log(_log(dodge, dodge, ruleset="ap-pool"))) == {"reaction-twice"}
    new_round = {"type": "round_start", "order": ["red-1", "blue-1"]}
    assert check_log(_log(dodge, new_round, dodge, ruleset="ap-pool")) == []
    # Another unit's turn is another window (the text's "turn": one activation).
    other = {"type": "turn_start", "unit": "red-1"}
    assert check_log(_log(dodge, other, dodge, ruleset="ap-pool")) == []
    per_round = _log(dodge, other, dodge, ruleset="ap-pool")
    per_round[0]["options"] = {"dodge_once_per_round": True}
    assert _names(check_log(per_round)) == {"reaction-twice"}
    # The same events are no violation under a ruleset without the limit.
    assert check_log(_log(dodge, dodge, ruleset="cortex")) == []


class _Limited(SimpleRuleset):
    """A ruleset declaring its own limits: one parry a turn, one stance a round (when enabled)."""

    name = "test-limited"
    reaction_limits = (Reaction("parry", defence_event("parry")),)
    choice_bindings = (
        Binding("stance", lambda e: e.get("stance"), "round", lambda options: bool(options.get("stances"))),
    )


def test_the_ruleset_declares_its_limits_and_the_checker_asks_it(monkeypatch: pytest.MonkeyPatch):
    parry = {"type": "defence", "unit": "red-1", "kind": "parry"}
    stance = [{"type": "defence", "unit": "red-1", "kind": "dodge", "stance": s} for s in ("low", "high")]
    # by class (as check() passes match.rules) and by the name in match_start (as check_log reads)
    checker = LogChecker(None, _Limited)
    checker.feed(_log(parry, parry, ruleset="test-limited"))
    assert checker.ruleset == "test-limited" and _names(checker.violations) == {"reaction-twice"}
    assert check_log(_log(parry, parry, ruleset="test-limited")) == []  # not registered: no limits
    monkeypatch.setitem(REGISTRY, "test-limited", f"{__name__}:_Limited")
    assert _names(check_log(_log(parry, parry, ruleset="test-limited"))) == {"reaction-twice"}
    events = _log(*stance, ruleset="test-limited")
    assert check_log(events) == []  # the binding is off without the option
    events[0]["options"] = {"stances": True}
    assert _names(check_log(events)) == {"choice-binding"}


def test_cortex_actions_declared_once_a_round():
    declared = {"type": "actions_declared", "unit": "red-1", "actions": 2}
    assert _names(check_log(_log(declared, declared, ruleset="cortex"))) == {"reaction-twice"}
    new_round = {"type": "round_start", "order": ["red-1", "blue-1"]}
    assert check_log(_log(declared, new_round, declared, ruleset="cortex")) == []


def test_negative_ap_in_the_log():
    assert _names(
        check_log(_log({"type": "ap", "unit": "red-1", "spent": 3, "left": -1, "reason": "move"}))
    ) == {"ap-negative"}


def test_summarize_counts_by_name():
    assert summarize(["[a] x: 1", "[b] y: 2", "[a] z: 3", "junk"]) == {"?": 1, "a": 2, "b": 1}
