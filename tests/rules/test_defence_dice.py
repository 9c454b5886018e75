"""Defence-dice ruleset (game.rules.defence_dice), held to shared/rules/defence-dice-and-cover-units.txt.

Covers the text's example (dodge dice showing 10 and 6), when defence dice are
rolled and rerolled (the mover's choice), cover rolls (one a round per cover
unit, rerolled when it moves or is damaged), hits diverted to cover units,
hidden units, Block(N) and Armour(a-b) memories (and the armour overlap error),
memories as the health track, Monte Carlo agreement of whole attacks with the exact odds (99.9 % bound
|p_hat - p| <= 3.29 sqrt(p (1 - p) / n) + 1/n), and the odds CLI.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from types import MappingProxyType
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from components.sight import CoverLevel
from components.state import Health
from game.cli.odds import odds
from game.core.codec import decode, encode
from game.core.commands import Attack, Decision, Maneuver
from game.dice.aims import land_odds
from game.rules import get_ruleset
from game.rules.defence_dice.commands import MemoryBlock
from game.rules.defence_dice.ruleset import (
    FIGHT_OR_FLIGHT,
    HIDDEN_ATTACK_DICE,
    HIDDEN_INFO_MODIFIER,
    MAX_AP,
    MEMORIES,
    DDState,
    DDStats,
    DefenceDiceRuleset,
)
from tests.rules.fakes import FakeBattle, ScriptedDice, mc_ok, run_flow

N_MC = 4000


def stats(**kw: Any) -> DDStats:
    base: dict[str, Any] = {
        "vitality": 2,
        "insight": 2,
        "resolve": 2,
        "memories": [{"name": "one"}, {"name": "two"}, {"name": "three"}],
        "weapons": [
            {"name": "sword", "kind": "melee", "dice": 2},
            {"name": "bow", "kind": "ranged", "dice": 1, "range": 40},
            {"name": "maul", "kind": "melee", "dice": 2, "concussive": True},
        ],
    }
    base.update(kw)
    return DDStats.model_validate(base)


def make(seed: int = 0, **opts: Any) -> tuple[DefenceDiceRuleset, FakeBattle]:
    r = DefenceDiceRuleset(opts)
    return r, FakeBattle(r, seed=seed)


def script(b: FakeBattle, faces: list[int]) -> None:
    b.dice = ScriptedDice(faces, lambda e: b.emit("roll", **e))


def attack(r: DefenceDiceRuleset, b: FakeBattle, target: str, weapon: str, attacker: str = "a") -> None:
    assert run_flow(r.attack(b, Attack(attacker, target, weapon)), lambda d: None) == []  # no reactions


def option(r: DefenceDiceRuleset, b: FakeBattle, target: str, weapon: str) -> Any:
    return next(
        o for o in r.attack_options(b, "a") if o.command.target == target and o.command.weapon == weapon
    )


# ---- the text's example and dodge dice -----------------------------------------------------------


def test_text_example_dodge_dice_10_and_6() -> None:
    r, b = make()
    b.add("a", "red", (0.0, 0.0), stats=stats())
    b.add("t", "blue", (1.5, 0.0), stats=stats(vitality=2))
    script(b, [1, 2, 10, 6])  # encounter start: a's two dodge dice 1 and 2, t's 10 and 6
    r.start_round(b)
    assert r.state(b).dodge["t"] == (10, 6)
    o = option(r, b, "t", "sword")
    assert o.p_success == pytest.approx(1 - 0.2**2)  # 2 attack dice, each lands on 8 faces of 10
    script(b, [10, 6])  # both attack dice on the dodged aims
    attack(r, b, "t", "sword")
    assert not any(e["type"] == "damage" for e in b.events)
    script(b, [10, 5, 1])  # the 5 lands; the hit targets memory 1 of 3 ("one")
    attack(r, b, "t", "sword")
    assert [e["memory"] for e in b.events if e["type"] == "damage"] == ["one"]
    target = [e for e in b.events if e["type"] == "roll" and e["purpose"] == "target memory"]
    assert [e["dice"] for e in target] == ["1d3"]


def test_dodge_dice_rolled_at_encounter_start_and_rerolled_by_the_movers_choice() -> None:
    r, b = make(seed=3)
    b.add("a", "red", (0.0, 0.0), stats=stats(vitality=3))
    b.add("t", "blue", (5.0, 0.0), stats=stats(vitality=1))
    assert r.state(b).dodge == {}
    # Before the encounter starts the odds average over the unrolled dodge dice.
    assert option(r, b, "t", "bow").p_success == pytest.approx(land_odds(10, 1, frozenset(), 1).p_land)
    r.start_round(b)
    first = dict(r.state(b).dodge)
    assert len(first["a"]) == 3 and len(first["t"]) == 1
    b.round = 2
    r.start_round(b)
    assert r.state(b).dodge == first  # not rerolled each round
    rolls = len([e for e in b.events if e["type"] == "defence_dice"])
    b.move_unit("t", (6.0, 0.0), "move")  # the standing choice starts at "reroll"
    assert len([e for e in b.events if e["type"] == "defence_dice"]) == rolls + 1
    assert [e["reason"] for e in b.events if e["type"] == "defence_dice"][-1] == "move"
    # D12 "may": the mover keeps its dice if it chooses so (a free maneuver, a standing choice).
    [keep] = r.maneuver_options(b, "t")
    assert keep.command == Maneuver("t", "dodge_reroll:off") and keep.detail["ap"] == 0
    run_flow(r.maneuver(b, keep.command), lambda d: None)
    assert [e for e in b.events if e["type"] == "reroll_choice"][-1]["reroll"] is False
    faces = r.state(b).dodge["t"]
    b.move_unit("t", (7.0, 0.0), "move")
    assert r.state(b).dodge["t"] == faces
    assert b.events[-1]["type"] == "dodge_kept" and b.events[-1]["faces"] == list(faces)
    [again] = r.maneuver_options(b, "t")
    assert again.command.name == "dodge_reroll:on"
    with pytest.raises(ValueError, match="cannot"):
        next(r.maneuver(b, Maneuver("t", "dodge_reroll:off")))
    run_flow(r.maneuver(b, again.command), lambda d: None)
    b.move_unit("t", (8.0, 0.0), "move")
    assert b.events[-1]["type"] == "defence_dice" and b.events[-1]["kind"] == "dodge"


def test_always_reroll_dodge_option() -> None:
    r, b = make(always_reroll_dodge=True)
    b.add("t", "blue", (5.0, 0.0), stats=stats(vitality=2))
    r.start_round(b)
    assert r.maneuver_options(b, "t") == []
    b.move_unit("t", (6.0, 0.0), "move")
    assert b.events[-1]["type"] == "defence_dice" and b.events[-1]["reason"] == "move"


def test_reroll_value_is_the_exact_expected_number_of_defended_aims() -> None:
    import itertools

    r, b = make()
    b.add(
        "t",
        "blue",
        (5.0, 0.0),
        stats=stats(vitality=3, memories=[{"name": "x"}, {"name": "p", "armour": "9-10"}]),
    )
    # The state is a frozen value: a test replaces it too. 9 is armoured already: one useful aim.
    b.set_rules_state(replace(r.state(b), dodge={"t": (9, 4, 4)}))
    now, expected = r.reroll_value(b, "t")
    faces = range(1, 11)
    exact = sum(len(set(roll) - {9, 10}) for roll in itertools.product(faces, repeat=3)) / 1000
    assert now == 1 and expected == pytest.approx(exact)
    [opt] = r.maneuver_options(b, "t")
    assert opt.detail["value_gain"] == pytest.approx(now - expected)  # keeping loses: a reroll is better


# ---- cover ---------------------------------------------------------------------------------------


def cover_scene(**opts: Any) -> tuple[DefenceDiceRuleset, FakeBattle]:
    r, b = make(**opts)
    b.add("a", "red", (0.0, 0.0), stats=stats(vitality=0))
    b.add("c", "blue", (5.0, 0.0), stats=stats(vitality=0))  # the cover unit
    b.add("t", "blue", (10.0, 0.0), stats=stats(vitality=0))
    b.add("a2", "red", (0.0, 3.0), stats=stats(vitality=0))  # a second attacker
    b.add("t2", "blue", (10.0, 3.0), stats=stats(vitality=0))  # a second target behind c
    for x, y in (("a", "t"), ("t", "a"), ("a2", "t2"), ("a", "t2")):
        b.set_sight(x, y, intervening=("c",), cover=CoverLevel.LIGHT)
    r.start_round(b)  # no dodge dice to roll (Vitality 0)
    return r, b


def test_hit_on_a_cover_aim_hits_the_cover_unit() -> None:
    r, b = cover_scene()
    o = option(r, b, "t", "bow")
    assert o.p_success == pytest.approx(0.9)  # one unrolled cover die takes one aim of ten
    assert o.detail["cover_units"] == ["c"]
    script(b, [4, 4, 2])  # attack die 4; cover die 4; the hit targets c's memory 2 of 3
    attack(r, b, "t", "bow")
    dmg = [e for e in b.events if e["type"] == "damage"]
    assert [(d["unit"], d["memory"]) for d in dmg] == [("c", "two")]


def test_one_cover_roll_a_round_for_every_attack_it_covers() -> None:
    # D8: the same cover unit on several attacks of a round keeps its roll, whoever attacks whom.
    r, b = cover_scene()
    script(b, [3, 9, 1])  # attack 3, cover roll 9: t is hit (memory 1)
    attack(r, b, "t", "bow")
    assert r.state(b).cover == {("c", None): (9,)}
    assert option(r, b, "t2", "bow").p_success == pytest.approx(0.9)  # known for every pair now
    script(b, [9, 1])  # a attacks t2: no new cover roll, the kept 9 sends the hit to c
    attack(r, b, "t2", "bow")
    assert [e["unit"] for e in b.events if e["type"] == "damage"] == ["t", "c"]
    assert len([e for e in b.events if e["type"] == "defence_dice" and e["kind"] == "cover"]) == 1
    assert r.state(b).cover == {}  # c was damaged: its cover roll goes, the next attack rolls anew
    script(b, [2, 5, 1])
    attack(r, b, "t2", "bow", attacker="a2")
    assert r.state(b).cover == {("c", None): (5,)}
    b.move_unit("c", (5.0, 0.2), "move")
    assert r.state(b).cover == {}  # c moved: rerolled when next needed
    script(b, [1, 7, 2])
    attack(r, b, "t", "bow")
    assert r.state(b).cover == {("c", None): (7,)}
    b.round = 2
    r.start_round(b)
    assert r.state(b).cover == {}  # a new round, new cover rolls


def test_cover_roll_per_pair_option() -> None:
    r, b = cover_scene(cover_roll_per_pair=True)
    script(b, [3, 9, 1, 3, 2, 1])  # a->t: cover 9; a->t2: a new cover roll (2) for that pair
    attack(r, b, "t", "bow")
    attack(r, b, "t2", "bow")
    assert r.state(b).cover == {("c", frozenset({"a", "t"})): (9,), ("c", frozenset({"a", "t2"})): (2,)}


def test_cover_roll_applies_to_both_directions() -> None:
    r, b = cover_scene()
    script(b, [3, 6, 1])
    attack(r, b, "t", "bow")
    script(b, [6, 1])  # t shoots back at a: the same kept cover roll (6) sends it into c
    attack(r, b, "a", "bow", attacker="t")
    assert [e["unit"] for e in b.events if e["type"] == "damage"] == ["t", "c"]


def test_big_cover_units_roll_more_dice() -> None:
    r, b = cover_scene()
    b.u["c"].body = replace(b.u["c"].body, size=2.0)
    assert r.cover_dice(b, "c") == 2
    assert option(r, b, "t", "bow").p_success == pytest.approx(land_odds(10, 1, frozenset(), 2).p_land)


def test_cover_beats_dodge_and_cover_unit_dodge_dice_do_not_apply() -> None:
    r, b = make()
    b.add("a", "red", (0.0, 0.0), stats=stats(vitality=0))
    b.add("c", "blue", (5.0, 0.0), stats=stats(vitality=1))
    b.add("t", "blue", (10.0, 0.0), stats=stats(vitality=1))
    b.set_sight("a", "t", intervening=("c",))
    script(b, [4, 4])  # c's dodge 4, t's dodge 4
    r.start_round(b)
    script(b, [4, 4, 3])  # attack 4, cover roll 4: the cover unit takes it despite its own dodge 4
    attack(r, b, "t", "bow")
    assert [e["unit"] for e in b.events if e["type"] == "damage"] == ["c"]


# ---- hidden --------------------------------------------------------------------------------------


def test_hidden_attacker_gets_an_extra_die() -> None:
    r, b = cover_scene()
    b.set_sight("t", "a", hidden=True)  # a is hidden from t
    o = option(r, b, "t", "bow")
    assert [(m.source, m.value) for m in o.modifiers] == [("bow", 1), ("hidden", HIDDEN_ATTACK_DICE)]
    assert o.p_success == pytest.approx(land_odds(10, 2, frozenset(), 1).p_land)


def hidden_trio(**options: Any) -> tuple[DefenceDiceRuleset, FakeBattle]:
    """a and t, t hiding from a; x, a friend of a, sees everyone plainly."""
    r, b = make(**options)
    b.add("a", "red", (0.0, 0.0), stats=stats(insight=3, resolve=3))
    b.add("t", "blue", (5.0, 0.0), stats=stats(insight=3, resolve=2))
    b.add("x", "red", (0.0, 9.0), stats=stats(insight=3, resolve=2))
    b.set_sight("a", "t", hidden=True)  # t hides from a: both a and t check at -1 about each other
    return r, b


def test_hidden_costs_insight_and_resolve_on_checks_about_the_other_unit_only() -> None:
    r, b = hidden_trio()
    assert r.info_scores(b, "a", "t")[:2] == (3 + HIDDEN_INFO_MODIFIER, 3 + HIDDEN_INFO_MODIFIER)
    assert r.info_scores(b, "t", "a")[:2] == (2, 1)
    assert r.info_scores(b, "x", "t")[:2] == (3, 2)  # x is not party to the hiding
    # Initiative is no check about another unit: no -1. Rolls 5, 5, 5: a 8 (Resolve 3), t and x 8
    # (Resolve 2) tie: roll-off 4 (t) and 6 (x).
    script(b, [5, 5, 5, 4, 6])
    assert r.initiative(b, ["a", "t", "x"]) == ["a", "x", "t"]


def test_old_reading_hidden_costs_insight_and_resolve_on_initiative() -> None:
    r, b = hidden_trio(hidden_initiative_penalty=True)
    # Rolls 5, 5, 5: a 7 (Resolve 2), t 7 (Resolve 1), x 8.
    script(b, [5, 5, 5])
    assert r.initiative(b, ["a", "t", "x"]) == ["x", "a", "t"]


# ---- memories, blocks, armour --------------------------------------------------------------------


BLOCKY = [
    {"name": "one"},
    {"name": "two"},
    {"name": "three"},
    {"name": "shield", "block": 2},
    {"name": "plate", "armour": "8-9"},
]


def blocky_scene(memories: list[dict[str, Any]] = BLOCKY) -> tuple[DefenceDiceRuleset, FakeBattle]:
    r, b = make()
    b.add("a", "red", (0.0, 0.0), stats=stats(vitality=0))
    b.add("t", "blue", (1.5, 0.0), stats=stats(vitality=0, memories=memories))
    r.start_round(b)
    return r, b


def blocking(kind: str = "block") -> Any:
    """Answer every block decision: block (with the first Block memory offered) or take the hit."""

    def choose(d: Decision) -> Any:
        assert d.kind == "defence" and d.unit == "t"
        return next(o.command for o in d.options if (o.command.memory is not None) == (kind == "block"))

    return choose


def test_armour_blocks_its_aimline() -> None:
    r, b = blocky_scene()
    script(b, [8, 9])
    attack(r, b, "t", "sword")
    assert [(e["memory"], e["kind"]) for e in b.events if e["type"] == "block"] == [("plate", "armour")] * 2
    assert not any(e["type"] == "damage" for e in b.events)
    assert r.block_charges(b, "t") == 1  # armour uses no block for others


def test_a_block_memory_is_immune_when_a_hit_targets_it() -> None:
    # D13: hits target ordinary and Block memories alike (4 here); a Block memory blocks for itself.
    r, b = blocky_scene()
    script(b, [1, 2, 4, 4])  # two hits, both target memory 4 of 4: the shield
    attack(r, b, "t", "sword")
    blocks = [(e["memory"], e["kind"], e["target"]) for e in b.events if e["type"] == "block"]
    assert blocks == [("shield", "itself", "shield")] * 2
    assert not any(e["type"] == "damage" for e in b.events)
    assert r.block_charges(b, "t") == 1  # blocking for itself is unlimited and costs nothing


def test_block_2_blocks_for_one_other_memory_a_round() -> None:
    # D15: Block(2) blocks for itself and one other memory; the defender decides (a defence decision).
    r, b = blocky_scene()
    script(b, [1, 2, 1, 2])  # two hits: on "one", then on "two"
    seen = run_flow(r.attack(b, Attack("a", "t", "sword")), blocking())
    assert len(seen) == 1  # the second hit finds no block for others left: no decision
    opts = {o.command.memory: o for o in seen[0].options}
    assert set(opts) == {None, "shield"} and opts["shield"].command == MemoryBlock("t", "shield")
    assert opts["shield"].p_success == 1.0 and opts[None].p_success == 0.0
    assert [(e["memory"], e["kind"], e["target"]) for e in b.events if e["type"] == "block"] == [
        ("shield", "another", "one")
    ]
    assert [e["memory"] for e in b.events if e["type"] == "damage"] == ["two"]
    assert r.block_charges(b, "t") == 0
    b.round = 2
    r.start_round(b)
    assert r.block_charges(b, "t") == 1


def test_a_block_decision_resumes_from_its_written_frames() -> None:
    # The flow in progress is data: written down at the block decision and read back, it asks the
    # same decision and plays on as test_block_2_blocks_for_one_other_memory_a_round does.
    r, b = blocky_scene()
    script(b, [1, 2, 1, 2])
    run: Any = r.attack(b, Attack("a", "t", "sword"))
    decision = next(run)
    run.frames = decode(json.loads(json.dumps(encode(run.frames))))
    asked = r.ask(b, "block", run.frames[-1].data)
    assert [(o.command, o.label) for o in asked.options] == [(o.command, o.label) for o in decision.options]
    assert asked.unit == decision.unit and asked.context == decision.context
    with pytest.raises(StopIteration):
        run.send(blocking()(decision))  # the second hit finds no block for others left: no decision
    assert [(e["memory"], e["target"]) for e in b.events if e["type"] == "block"] == [("shield", "one")]
    assert [e["memory"] for e in b.events if e["type"] == "damage"] == ["two"]
    assert r.state(b).block_used == {("t", "shield"): 1}
    assert decode(json.loads(json.dumps(encode(r.state(b))))) == r.state(b)


def test_the_battle_state_is_a_frozen_value_of_the_match() -> None:
    # issue 25: dodge faces, cover rolls, lost memories, block uses and reroll choices are one
    # frozen value in the match, which a snapshot writes and reads back exactly.
    r, b = make(cover_roll_per_pair=True)
    b.add("a", "red", (0.0, 0.0), stats=stats(vitality=0))
    b.add("c", "blue", (5.0, 0.0), stats=stats(vitality=0))
    b.add("t", "blue", (10.0, 0.0), stats=stats(vitality=1))
    b.set_sight("a", "t", intervening=("c",))
    script(b, [7, 3, 9, 1])  # t's dodge die 7; a -> t: attack 3, cover roll 9 for the pair, t loses "one"
    r.start_round(b)
    attack(r, b, "t", "bow")
    run_flow(r.maneuver(b, Maneuver("t", "dodge_reroll:off")), lambda d: None)
    state = b.rules_state
    assert isinstance(state, DDState) and state is r.state(b)
    assert state.dodge == {"a": (), "c": (), "t": (7,)} and state.reroll == {"t": False}
    assert state.cover == {("c", frozenset({"a", "t"})): (9,)} and state.lost == {"t": frozenset({"one"})}
    back = decode(json.loads(json.dumps(encode(state))))
    assert back == state
    for got in (back.dodge, back.cover, back.lost, back.block_used, back.reroll):
        assert type(got) is MappingProxyType
    with pytest.raises(TypeError):
        back.lost["t"] = frozenset()  # type: ignore[index]


def test_declining_the_block_keeps_it_for_later() -> None:
    r, b = blocky_scene()
    script(b, [1, 5, 1, 1])  # "one" is replaced: the second hit's 1 of 3 is "two"
    seen = run_flow(r.attack(b, Attack("a", "t", "sword")), blocking("none"))
    assert len(seen) == 2 and [e["memory"] for e in b.events if e["type"] == "damage"] == ["one", "two"]
    assert r.block_charges(b, "t") == 1


def test_block_1_blocks_only_for_itself() -> None:
    r, b = blocky_scene([{"name": "one"}, {"name": "two"}, {"name": "guard", "block": 1}])
    assert r.block_charges(b, "t") == 0
    script(b, [1, 5, 1, 2])  # the first hit targets "one": no block offered; the second (2 of 2) the guard
    attack(r, b, "t", "sword")
    assert [e["memory"] for e in b.events if e["type"] == "damage"] == ["one"]
    assert [(e["memory"], e["kind"]) for e in b.events if e["type"] == "block"] == [("guard", "itself")]


def test_concussive_blocked_hit_still_hits() -> None:
    # D14: armour and blocks still block, but the hit lands: the targeted memory is replaced,
    # a Block memory included; no block for another memory is offered (it would change nothing).
    r, b = blocky_scene()
    script(b, [8, 1, 4, 1])  # the 8 is armoured, then targets the shield; the 1 targets "one"
    attack(r, b, "t", "maul")
    blocks = [(e["memory"], e["kind"], e["still_hits"]) for e in b.events if e["type"] == "block"]
    assert blocks == [("plate", "armour", True), ("shield", "itself", True)]
    dmg = [(e["memory"], e["blocked_by"], e["deltas"]) for e in b.events if e["type"] == "damage"]
    assert dmg == [
        ("shield", "shield", {FIGHT_OR_FLIGHT: 1}),
        ("one", None, {MEMORIES: -1, FIGHT_OR_FLIGHT: 1}),
    ]
    assert b.u["t"].health.tracks == {MEMORIES: 2, FIGHT_OR_FLIGHT: 2}
    assert r.block_charges(b, "t") == 0  # the shield is gone, and its block for others with it


def test_all_memories_replaced_is_out() -> None:
    r, b = blocky_scene()
    script(b, [1, 2, 1, 1, 3, 2, 1, 1])
    for _ in range(2):
        run_flow(r.attack(b, Attack("a", "t", "sword")), blocking("none"))
    assert "out" in b.u["t"].health.status
    assert b.u["t"].health.tracks[MEMORIES] == 0
    assert "t" not in b.enemies("a")


@pytest.mark.parametrize(
    ("memories", "message"),
    [
        ([{"name": "a"}, {"name": "b", "armour": "8-9"}, {"name": "c", "armour": "9-10"}], "aimline 9"),
        ([{"name": "a"}, {"name": "b", "armour": "1-3"}, {"name": "c", "armour": "2"}], "aimline 2"),
        ([{"name": "a"}, {"name": "b", "armour": "11-13"}], "largest aim die"),
        ([{"name": "a"}, {"name": "b", "armour": "9-8"}], "1 <= a <= b"),
        ([{"name": "a"}, {"name": "b", "armour": "8-9", "block": 1}], "both"),
        ([{"name": "b", "block": 1}], "ordinary memory"),
        ([{"name": "a"}, {"name": "a"}], "unique"),
        ([], "at least 1"),
    ],
)
def test_memory_validation(memories: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        stats(memories=memories)


def test_weapon_and_option_validation() -> None:
    with pytest.raises(ValidationError):
        stats(weapons=[{"name": "bow", "kind": "ranged", "dice": 1}])
    with pytest.raises(ValidationError):
        stats(weapons=[{"name": "x", "kind": "melee", "dice": 0}])
    with pytest.raises(ValidationError):
        stats(vitality=-1)
    with pytest.raises(ValidationError):
        DefenceDiceRuleset({"cover_dice": 2})


def test_registry_turn_economy_and_profiles() -> None:
    from ruamel.yaml import YAML

    r = get_ruleset("defence-dice")
    assert isinstance(r, DefenceDiceRuleset)
    b = FakeBattle(r)
    b.add("a", "red", (0.0, 0.0))
    assert MAX_AP == 2 and b.u["a"].ap.maximum == 2
    assert r.action_costs(b, "a") == {"attack": 1, "posture": 1, "face": 0}
    with open("scenarios/profiles.yaml") as fh:
        profiles = YAML(typ="safe").load(fh)
    for name, blocks in profiles.items():
        s = DefenceDiceRuleset.parse_stats(blocks["defence-dice"])
        kinds = {w.kind for w in s.weapons}  # type: ignore[attr-defined]
        assert "melee" in kinds and kinds & {"ranged", "thrown"}, name


def test_reach_and_range() -> None:
    r, b = make()
    b.add("a", "red", (0.0, 0.0), stats=stats())
    b.add("near", "blue", (2.0, 0.0), stats=stats())
    b.add("far", "blue", (40.5, 0.0), stats=stats())
    got = {(o.command.target, o.command.weapon) for o in r.attack_options(b, "a")}
    assert got == {("near", "sword"), ("near", "bow"), ("near", "maul")}
    b.set_sight("a", "near", visible=False, cover=CoverLevel.TOTAL)
    assert r.attack_options(b, "a") == []  # no line of sight
    with pytest.raises(ValueError, match="line of sight"):
        next(r.attack(b, Attack("a", "near", "sword")))
    b.set_sight("a", "near")
    b.u["a"].turn = replace(b.u["a"].turn, attacked_with=frozenset({"sword"}))
    assert r.attack_options(b, "a") == []  # one attack a turn


# ---- Monte Carlo ---------------------------------------------------------------------------------


@pytest.mark.parametrize("weapon", ["volley", "crush"])
def test_attack_monte_carlo_matches_exact_odds(weapon: str) -> None:
    r, b = make(seed=4242)
    b.add("a", "red", (0.0, 0.0), stats=stats(vitality=0))
    b.add("c", "blue", (5.0, 0.0), stats=stats(vitality=0))
    b.add("t", "blue", (10.0, 0.0), stats=stats(vitality=0, memories=BLOCKY))
    b.set_sight("a", "t", intervening=("c",))
    b.set_rules_state(replace(r.state(b), dodge={"t": (2, 5), "a": (), "c": ()}))  # t's dodge dice rolled
    w = stats(
        weapons=[
            {"name": "volley", "kind": "ranged", "dice": 4, "range": 40},
            {"name": "crush", "kind": "ranged", "dice": 4, "range": 40, "concussive": True},
        ]
    )
    b.u["a"].stats = w
    o = option(r, b, "t", weapon)
    piercing = weapon == "crush"
    # 3 ordinary memories, the Block(2) shield (a target, immune), one block for another memory.
    expected = land_odds(10, 4, frozenset({2, 5}), 1, frozenset({8, 9}), 1, 3, piercing, 1)
    assert o.p_success == pytest.approx(expected.p_land)
    assert o.detail["p_hurt"] == pytest.approx(expected.p_hurt)
    lands = hurts = 0
    lost_total = 0
    for _ in range(N_MC):
        b.events.clear()
        b.set_rules_state(replace(r.state(b), cover={}, block_used={}, lost={}))
        health = b.u["t"].health
        b.u["t"].health = Health({**health.tracks, MEMORIES: 3, FIGHT_OR_FLIGHT: 0}, health.maxima)
        run_flow(r.attack(b, Attack("a", "t", weapon)), blocking())
        d = next(e for e in b.events if e["type"] == "defence")
        landed = any(x["result"] == "hit" for x in d["outcome"])
        lost = sum(1 for e in b.events if e["type"] == "damage" and e["unit"] == "t")
        lands += landed
        hurts += lost > 0
        lost_total += lost
    assert mc_ok(lands / N_MC, o.p_success, N_MC)
    assert mc_ok(hurts / N_MC, o.detail["p_hurt"], N_MC)
    # Mean memories lost per landed attack: within a generous 4-sigma bound of the exact mean (sd <= 3).
    assert abs(lost_total / max(lands, 1) - o.detail["expected_damage"]) <= 4 * 3 / math.sqrt(lands)


def test_memory_damage_matches_enumeration() -> None:
    # Every target draw of every hit enumerated: Block memories immune, blocks for others used first.
    import itertools
    from fractions import Fraction

    from game.dice.aims import memory_damage

    def brute(hits: int, o: int, bm: int, c: int, piercing: bool) -> list[Fraction]:
        out = [Fraction(0)] * (hits + 1)

        def go(h: int, o: int, bm: int, c: int, lost: int, p: Fraction) -> None:
            if h == 0 or o == 0:
                out[lost] += p
                return
            n = o + bm
            for i in range(n):
                q = p / n
                if i >= o:  # a Block memory
                    go(h - 1, o, bm - 1, c, lost + 1, q) if piercing else go(h - 1, o, bm, c, lost, q)
                elif piercing:
                    go(h - 1, o - 1, bm, c, lost + 1, q)
                elif c:
                    go(h - 1, o, bm, c - 1, lost, q)
                else:
                    go(h - 1, o - 1, bm, c, lost + 1, q)

        go(hits, o, bm, c, 0, Fraction(1))
        return out

    for hits, o, bm, c, piercing in itertools.product(range(4), (1, 3), (0, 2), (0, 1), (False, True)):
        got = memory_damage(hits, o, bm, c, piercing)
        assert got.tolist() == pytest.approx([float(x) for x in brute(hits, o, bm, c, piercing)], abs=1e-12)


# ---- odds CLI ------------------------------------------------------------------------------------


def run_cli(*args: str) -> Any:
    return CliRunner().invoke(odds, ["defence-dice", *args])


def test_cli_json_text_example() -> None:
    res = run_cli("--aim-die", "10", "--defended", "6,10", "--attack-dice", "2", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["p_success"] == pytest.approx(0.96)
    assert out["p_per_die"] == pytest.approx(0.8)
    res = run_cli(
        "--aim-die",
        "12",
        "--defended",
        "1",
        "--unrolled",
        "2",
        "--attack-dice",
        "3",
        "--hidden",
        "--armour",
        "8-9",
        "--blocks",
        "1",
        "--memories",
        "2",
        "--block-memories",
        "1",
        "--json",
    )
    out = json.loads(res.output)
    exp = land_odds(12, 4, frozenset({1}), 2, frozenset({8, 9}), 1, 2, False, 1)
    assert out["p_success"] == pytest.approx(exp.p_land)
    assert out["expected_damage"] == pytest.approx(exp.expected_damage)
    res = run_cli("--attack-dice", "2", "--concussive", "--armour", "1-10", "--json")
    assert json.loads(res.output)["p_hurt"] == pytest.approx(1.0)


def test_cli_readable() -> None:
    res = run_cli("--defended", "6,10", "--attack-dice", "2")
    assert res.exit_code == 0 and "P(at least one lands) = 0.960000" in res.output


@pytest.mark.parametrize(
    "args",
    [
        ["--defended", "6,11", "--attack-dice", "2"],
        ["--defended", "x", "--attack-dice", "2"],
        ["--attack-dice", "0"],
        ["--defended", "1"],
        ["--aim-die", "8", "--attack-dice", "1"],
        ["--attack-dice", "1", "--armour", "8-9", "--armour", "9-10"],
        ["--attack-dice", "1", "--armour", "9-11"],
        ["--attack-dice", "1", "--armour", "nine"],
    ],
)
def test_cli_errors_exit_2(args: list[str]) -> None:
    assert run_cli(*args).exit_code == 2
