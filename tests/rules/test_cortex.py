"""Cortex ruleset (the game.rules.cortex package), held to shared/rules/cortex-actions-defense-damage.txt.

Table-driven checks of every number of the text (cover, visibility, range steps,
movement tiers, action penalty, all-out defence, passing out, dying, seriously
wounded), of every condition that removes an option, worked examples with
scripted dice, Monte Carlo agreement of whole attack flows with the exact odds
(99.9 % bound |p_hat - p| <= 3.29 sqrt(p (1 - p) / n) + 1/n), and the odds CLI.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import replace
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from components.sight import Arc, CoverLevel
from components.spatial import Posture
from game.cli.odds import odds
from game.core.commands import Attack, Decision, Defend, Maneuver
from game.dice.cortex import hit_damage, p_meet_or_beat, step_dice, trait_pool
from game.rules import get_ruleset
from game.rules.cortex.actions import ALL_OUT_DEFENCE_STEPS, EXTRA_ACTION_STEPS, MAX_ACTIONS
from game.rules.cortex.attacks import COVER_DIFFICULTY, RANGE_STEPS, VISIBILITY_DIFFICULTY
from game.rules.cortex.damage import (
    CONSCIOUS_DIFFICULTY,
    CONSCIOUS_STEP,
    DYING_DIFFICULTY,
    DYING_STEP,
    ROUNDS_PER_MINUTE,
    SERIOUS_WOUND_STEPS,
)
from game.rules.cortex.defence import STATIC_DIFFICULTY
from game.rules.cortex.movement import (
    BASE_MOVE_FEET,
    HUSTLE_ACTIONS,
    HUSTLE_FEET,
    RUN_ACTIONS,
    TIER_TOLERANCE,
)
from game.rules.cortex.ruleset import CortexRuleset
from game.rules.cortex.state import track
from game.rules.cortex.stats import TROOPER, CortexStats
from tests.rules.fakes import FakeBattle, ScriptedDice, mc_ok, run_flow

N_MC = 4000


def make(seed: int = 0, ypi: float = 1.0, **options: Any) -> tuple[CortexRuleset, FakeBattle]:
    r = CortexRuleset(options)
    return r, FakeBattle(r, seed=seed, yards_per_inch=ypi)


def script(b: FakeBattle, faces: list[int]) -> None:
    b.dice = ScriptedDice(faces, lambda e: b.emit("roll", **e))


def duel(
    ypi: float = 1.0,
    gap_in: float = 1.0,
    seed: int = 0,
    attacker: Any = None,
    target: Any = None,
    actions: tuple[int | None, int | None] = (1, 1),
    **options: Any,
) -> tuple[CortexRuleset, FakeBattle]:
    """Attacker 'a' at the origin facing east, target 't' east of it facing it, bases 0.5 in;
    each has declared ``actions`` for the round (None: not yet)."""
    r, b = make(seed, ypi, **options)
    b.add("a", "red", (0.0, 0.0), stats=attacker)
    b.add("t", "blue", (gap_in, 0.0), facing=180.0, stats=target)
    for uid, n in zip(("a", "t"), actions, strict=True):
        if n is not None and not r.prospective:
            r.declare(b, uid, n, "turn")
    return r, b


def set_ap(b: FakeBattle, uid: str, current: int) -> None:
    """Give ``uid`` ``current`` AP (components are frozen: the unit gets new ones)."""
    b.u[uid].ap = replace(b.u[uid].ap, current=current)


def heal(b: FakeBattle, uid: str, *tracks: str) -> None:
    """Zero ``uid``'s damage ``tracks`` and clear its status flags."""
    h = b.u[uid].health
    b.u[uid].health = replace(h, tracks={**h.tracks, **dict.fromkeys(tracks, 0)}, status=frozenset())


def option(r: CortexRuleset, b: FakeBattle, weapon: str, target: str = "t") -> Any:
    found = [o for o in r.attack_options(b, "a") if o.command.weapon == weapon and o.command.target == target]
    return found[0] if found else None


def engine_attack(
    r: CortexRuleset, b: FakeBattle, weapon: str, choose: Any, target: str = "t"
) -> list[Decision]:
    """Spend the attack's action as the engine does, then run the flow."""
    b.spend_ap("a", 1, "attack")
    return run_flow(r.attack(b, Attack("a", target, weapon)), choose)


def defend(kind: str) -> Any:
    def choose(d: Decision) -> Any:
        for o in d.options:
            if o.command.kind == kind:
                return o.command
        raise AssertionError(f"no {kind} option in {[o.label for o in d.options]}")

    return choose


# ---- the numbers of the text ---------------------------------------------------------------------


def test_text_numbers() -> None:
    assert STATIC_DIFFICULTY == 3
    assert EXTRA_ACTION_STEPS == -1
    assert ALL_OUT_DEFENCE_STEPS == 2
    assert {k.value: v for k, v in COVER_DIFFICULTY.items()} == {
        "none": 0,
        "light": 4,
        "medium": 8,
        "heavy": 12,
        "near-total": 16,
    }
    assert VISIBILITY_DIFFICULTY == {"clear": 0, "dim": 4, "dark": 8}
    assert RANGE_STEPS == {"point-blank": 1, "short": 0, "medium": -2, "long": -4}
    assert (BASE_MOVE_FEET, HUSTLE_FEET, HUSTLE_ACTIONS, RUN_ACTIONS) == (15, 30, 1, 2)
    assert (CONSCIOUS_DIFFICULTY, CONSCIOUS_STEP, DYING_DIFFICULTY, DYING_STEP) == (7, 4, 3, 4)
    assert SERIOUS_WOUND_STEPS == -2
    assert MAX_ACTIONS == 3
    assert ROUNDS_PER_MINUTE == 20


def test_registry_and_profiles_parse() -> None:
    from ruamel.yaml import YAML

    r = get_ruleset("cortex", {"visibility": "dim"})
    assert isinstance(r, CortexRuleset) and r.visibility == "dim"
    with pytest.raises(ValidationError):
        CortexRuleset({"visibility": "foggy"})
    with pytest.raises(ValidationError):
        CortexRuleset({"colour": 1})
    with open("scenarios/profiles.yaml") as fh:
        profiles = YAML(typ="safe").load(fh)
    for name, blocks in profiles.items():
        s = CortexRuleset.parse_stats(blocks["cortex"])
        kinds = {w.kind for w in s.weapons}  # type: ignore[attr-defined]
        assert "melee" in kinds and kinds & {"ranged", "thrown"}, name


@pytest.mark.parametrize(
    ("vit", "will", "lp"), [("d6", "d6", 12), ("d8", "d6", 14), ("d12+d2", "d4", 18), ("d2", "d2", 4)]
)
def test_life_points_are_vitality_plus_willpower_maxima(vit: str, will: str, lp: int) -> None:
    s = CortexRuleset.default_stats().model_copy(update={"vitality": vit, "willpower": will})
    assert s.life_points == lp  # type: ignore[attr-defined]
    setup = CortexRuleset().setup_unit(s)
    assert setup.ap_max == MAX_ACTIONS
    assert setup.health.maxima["wounds"] == lp and setup.health.tracks == {"stun": 0, "wounds": 0, "shock": 0}


@pytest.mark.parametrize(
    "bad",
    [
        {"agility": "d7"},
        {"agility": "d0"},
        {"skills": {"guns": "d5"}},
        {"skills": {"a/b/c": "d4"}},
        {"armour": -1},
        {"weapons": []},
        {
            "weapons": [
                {
                    "name": "bow",
                    "kind": "ranged",
                    "skill": "ranged_weapons",
                    "damage": "d6",
                    "damage_type": "W",
                }
            ]
        },
        {"weapons": [{"name": "x", "kind": "melee", "skill": "m", "damage": "d6", "damage_type": "Q"}]},
        {"weapons": [{"name": "x", "kind": "melee", "skill": "m", "damage": "6", "damage_type": "W"}]},
        {"colour": "red"},
    ],
)
def test_stats_validation(bad: dict[str, Any]) -> None:
    block = CortexRuleset.default_stats().model_dump()
    block.update(bad)
    with pytest.raises(ValidationError):
        CortexRuleset.parse_stats(block)


def test_skill_uses_specialty_or_general() -> None:
    s: CortexStats = CortexRuleset.default_stats().model_copy(
        update={"skills": {"athletics": "d6", "athletics/dodge": "d10", "melee_weapons/swords": "d8"}}
    )
    assert s.skill("athletics/dodge") == 5
    assert s.skill("athletics/running") == 3  # falls back to the general skill
    assert s.skill("melee_weapons/axes") == 0  # unskilled
    assert s.block_skill() == 4  # the short sword's specialty


# ---- attack options: cover, visibility, range, reach ---------------------------------------------


@pytest.mark.parametrize("level", [c for c in CoverLevel if c != CoverLevel.TOTAL])
def test_cover_adds_difficulty(level: CoverLevel) -> None:
    r, b = duel(gap_in=10.0)
    b.set_sight("a", "t", cover=level)
    o = option(r, b, "crossbow")
    assert o.detail["difficulty_bonus"] == COVER_DIFFICULTY[level]
    pool = trait_pool(4, 2, 0)  # Agility d8 + Ranged Weapons d4, short range
    assert o.p_success == pytest.approx(p_meet_or_beat(pool, step_dice(4), COVER_DIFFICULTY[level]))
    assert any(m.source == f"cover: {level.value}" for m in o.modifiers) == bool(COVER_DIFFICULTY[level])


def test_total_cover_or_no_sight_forbids_attack() -> None:
    r, b = duel(gap_in=10.0)
    b.set_sight("a", "t", cover=CoverLevel.TOTAL, visible=False)
    assert r.attack_options(b, "a") == []
    with pytest.raises(ValueError, match="line of sight"):
        next(r.attack(b, Attack("a", "t", "crossbow")))


@pytest.mark.parametrize(("vis", "bonus"), [("clear", 0), ("dim", 4), ("dark", 8)])
def test_poor_visibility_adds_difficulty(vis: str, bonus: int) -> None:
    r, b = duel(gap_in=10.0, visibility=vis)
    o = option(r, b, "crossbow")
    assert o.detail["difficulty_bonus"] == bonus
    assert o.p_success == pytest.approx(p_meet_or_beat(trait_pool(4, 2), step_dice(4), bonus))


RANGE_CASES = [
    # (yards per inch, centre distance in inches, band or None): crossbow increment 20 yd.
    (1.0, 2.5, "point-blank"),
    (1.0, 3.0, "point-blank"),
    (1.0, 3.5, "short"),
    (1.0, 20.0, "short"),
    (1.0, 20.5, "medium"),
    (1.0, 40.0, "medium"),
    (1.0, 41.0, "long"),
    (1.0, 80.0, "long"),
    (1.0, 80.5, None),
    (2.0, 10.0, "short"),
    (2.0, 11.0, "medium"),
    (2.0, 40.5, None),
]


@pytest.mark.parametrize(("ypi", "dist", "band"), RANGE_CASES)
def test_range_bands_and_steps(ypi: float, dist: float, band: str | None) -> None:
    r, b = duel(ypi=ypi, gap_in=dist)
    o = option(r, b, "crossbow")
    if band is None:
        assert o is None
        return
    steps = RANGE_STEPS[band]
    assert o.detail["attack_dice"] == "+".join(f"d{s}" for s in trait_pool(4, 2, steps))
    assert [m.value for m in o.modifiers if m.source.startswith("range")] == ([steps] if steps else [])


REACH_CASES = [
    # (yards per inch, centre distance in, in reach): bases 0.5 in each, reach 1 yd edge to edge.
    (1.0, 1.0, True),
    (1.0, 2.0, True),
    (1.0, 2.05, False),
    (2.0, 1.5, True),
    (2.0, 1.6, False),
]


@pytest.mark.parametrize(("ypi", "dist", "ok"), REACH_CASES)
def test_melee_reach_edge_to_edge(ypi: float, dist: float, ok: bool) -> None:
    r, b = duel(ypi=ypi, gap_in=dist)
    assert (option(r, b, "short sword") is not None) == ok


# ---- defences ------------------------------------------------------------------------------------


def kinds(r: CortexRuleset, b: FakeBattle, weapon: str) -> list[tuple[str, int | None]]:
    s = b.sight("a", "t")
    w = b.stats("a").weapon(weapon)
    _, _, const, mods = r.attack_setup(b, "a", "t", w, s, 0)
    return [(d.kind, d.fixed) for d in r.defences(b, "t", "a", w, s, const, mods)]


DEFENCE_CASES = [
    # (target facing, posture, AP left, weapon, expected defences)
    (180.0, Posture.STANDING, 3, "short sword", [("none", None), ("dodge", None), ("block", None)]),
    (180.0, Posture.STANDING, 3, "crossbow", [("none", None), ("dodge", None)]),  # no block vs missiles
    (0.0, Posture.STANDING, 3, "short sword", [("none", 3)]),  # rear arc: unseen, Difficulty 3
    (180.0, Posture.PRONE, 3, "short sword", [("none", 3), ("dodge", None), ("block", None)]),  # not moving
    (180.0, Posture.SITTING, 3, "short sword", [("none", 3), ("dodge", None), ("block", None)]),
    (180.0, Posture.STANDING, 0, "short sword", [("none", None)]),  # no action left
]


@pytest.mark.parametrize(("facing", "posture", "ap", "weapon", "expect"), DEFENCE_CASES)
def test_defence_availability(
    facing: float, posture: Posture, ap: int, weapon: str, expect: list[Any]
) -> None:
    r, b = duel(gap_in=1.5)
    b.u["t"].facing = facing
    b.u["t"].posture = posture
    set_ap(b, "t", ap)
    assert kinds(r, b, weapon) == expect


def test_rear_arc_from_the_sight_facts() -> None:
    r, b = duel(gap_in=1.5)
    b.set_sight("a", "t", arc=Arc.REAR)  # FakeBattle recomputes the arc from facing: turn the target away
    b.u["t"].facing = 0.0
    assert kinds(r, b, "short sword") == [("none", 3)]


def test_lying_target_counts_as_light_cover_against_missiles_only() -> None:
    r, b = duel(gap_in=10.0)
    b.u["t"].posture = Posture.PRONE
    o = option(r, b, "crossbow")
    assert o.detail["difficulty_bonus"] == 4
    assert any(m.source == "cover: lying down" for m in o.modifiers)
    # Not moving around: the static Difficulty 3, +4.
    assert o.p_success == pytest.approx(p_meet_or_beat(trait_pool(4, 2), (), 3 + 4))
    r, b = duel(gap_in=1.5)
    b.u["t"].posture = Posture.PRONE
    assert option(r, b, "short sword").detail["difficulty_bonus"] == 0


def test_active_defence_costs_an_action_and_carries_the_penalty() -> None:
    r, b = duel(gap_in=1.5, actions=(1, 2))  # t declared two actions this round: -1 step on each
    decisions = engine_attack(r, b, "short sword", defend("dodge"))
    dodge = next(o for o in decisions[0].options if o.command.kind == "dodge")
    assert dodge.label == "dodge (d8+d2)"  # Agility d8 + Athletics d4 at -1 step
    assert [(m.source, m.value) for m in dodge.modifiers] == [("multiple actions", -1)]
    assert dodge.detail["ap"] == 1
    # the harm expected with the dodge and with the innate defence (which costs nothing)
    assert set(dodge.detail["expected_harm"]) == {"stun", "wounds"}
    assert sum(dodge.detail["expected_harm"].values()) < sum(dodge.detail["expected_harm_without"].values())
    assert b.u["t"].ap.current == 1


def declaring(actions: int, kind: str) -> Any:
    """Answer an undeclared defender's first decision with ``declare:N``, then defend with ``kind``."""

    def choose(d: Decision) -> Any:
        for o in d.options:
            if isinstance(o.command, Maneuver) and o.command.name == f"declare:{actions}":
                return o.command
        return defend(kind)(d)

    return choose


def test_an_undeclared_defender_declares_with_its_active_defence() -> None:
    # C3: the first action of the round fixes the penalty of all of them: an undeclared unit
    # answers an attack with its innate defence or by declaring 1 to 3 actions (declare:N), and
    # then dodges or blocks at that penalty.
    r, b = duel(gap_in=1.5, actions=(1, None))
    script(b, [4, 4, 1, 1, 2])  # attack 8; t declares 2: dodge d8+d2 rolls 1 + 1 = 2 (a hit)
    decisions = engine_attack(r, b, "short sword", declaring(2, "dodge"))
    first = [
        (type(o.command).__name__, o.command.name if isinstance(o.command, Maneuver) else o.command.kind)
        for o in decisions[0].options
    ]
    assert first == [
        ("Defend", "none"),
        ("Maneuver", "declare:1"),
        ("Maneuver", "declare:2"),
        ("Maneuver", "declare:3"),
    ]
    opts = {o.command.name if isinstance(o.command, Maneuver) else "none": o for o in decisions[0].options}
    assert (
        opts["declare:1"].label
        == "declare 1 action to dodge or block (best: block (d8+d6, declaring 1 action))"
    )
    # Each declaration's odds are those of its best active defence against the known total 8.
    for n, pool in ((1, (8, 6)), (2, (8, 4)), (3, (8, 2))):
        assert opts[f"declare:{n}"].p_success == pytest.approx(p_meet_or_beat(pool, (), 9))
    plain = {k: v for k, v in opts["declare:3"].detail.items() if not k.startswith("expected_harm")}
    assert plain == {"ap": 1, "forfeits": 0, "declare_actions": 3}
    plain = {k: v for k, v in opts["declare:1"].detail.items() if not k.startswith("expected_harm")}
    assert plain == {"ap": 3, "forfeits": 2, "declare_actions": 1}  # its turn is to come
    # ... and the harm expected with its best active defence, and with the innate defence
    assert opts["declare:1"].detail["expected_harm_without"] == opts["none"].detail["expected_harm"]
    second = [(o.command.kind, o.label) for o in decisions[1].options]
    assert second == [
        ("none", "innate defence (Agility d8)"),
        ("dodge", "dodge (d8+d2)"),
        ("block", "block (d8+d4)"),
    ]
    declared = [e for e in b.events if e["type"] == "actions_declared"]
    assert [(e["unit"], e["actions"], e["steps"], e["reason"]) for e in declared] == [
        ("a", 1, 0, "turn"),
        ("t", 2, -1, "defence"),
    ]
    assert r.declared(b, "t") == 2 and b.u["t"].ap.current == 1  # 3 - 1 forfeited - 1 dodge
    defence = next(e for e in b.events if e["type"] == "defence")
    assert (defence["kind"], defence["dice"], defence["success"]) == ("dodge", "d8+d2", False)
    assert [m["value"] for m in defence["modifiers"] if m["source"] == "multiple actions"] == [-1]
    # Once its own turn is past, declaring forfeits none of its turn's actions.
    r2, b2 = duel(gap_in=1.5, actions=(1, None))
    b2.set_rules_state(track(b2).put("turn_round", "t", b2.round))
    script(b2, [1, 1, 8])  # attack 2, innate 8: a miss
    decisions = run_flow(_attack_flow(r2, b2), defend("none"))
    assert all(o.detail.get("forfeits", 0) == 0 for o in decisions[0].options)


def _attack_flow(r: CortexRuleset, b: FakeBattle) -> Any:
    b.spend_ap("a", 1, "attack")
    return r.attack(b, Attack("a", "t", "short sword"))


def test_defence_option_odds_given_the_known_attack_total() -> None:
    r, b = duel(gap_in=1.5)
    decisions = engine_attack(r, b, "short sword", defend("dodge"))
    total = next(e["roll"] for e in b.events if e["type"] == "attack")
    for o in decisions[0].options:
        pool = {"none": (8,), "dodge": (8, 4), "block": (8, 6)}[o.command.kind]
        # The defence succeeds when its roll beats the attack total (ties go to the attacker).
        assert o.p_success == pytest.approx(p_meet_or_beat(pool, (), total + 1))


def test_all_out_defence() -> None:
    r, b = duel(gap_in=1.5, actions=(1, None))
    names = [o.command.name for o in r.maneuver_options(b, "t")]
    assert names == ["declare:1", "declare:2", "declare:3", "all_out_defence"]
    run_flow(r.maneuver(b, Maneuver("t", "all_out_defence")), lambda d: None)
    assert r.declared(b, "t") == 0  # all-out defence is the round's declaration
    assert b.u["t"].ap.current == 0  # the whole turn
    assert "all_out_defence" not in [o.command.name for o in r.maneuver_options(b, "t")]
    decisions = engine_attack(r, b, "short sword", defend("block"))
    labels = {o.command.kind: o.label for o in decisions[0].options}
    assert (
        labels["dodge"] == "dodge (d8+d8)" and labels["block"] == "block (d8+d10)"
    )  # +2 steps, no action penalty
    assert b.u["t"].ap.current == 0  # free while in all-out defence
    with pytest.raises(ValueError):
        next(r.maneuver(b, Maneuver("t", "all_out_defence")))


# ---- actions, movement, initiative ---------------------------------------------------------------


def test_declared_actions_all_carry_the_penalty() -> None:
    # C2/C3: one action is free of penalty; each extra one is -1 step on every action of the turn.
    r, b = duel(gap_in=1.5, actions=(None, 1))
    opts = {o.command.name: o for o in r.maneuver_options(b, "a")}
    assert [o.detail["steps"] for o in opts.values() if "declare_actions" in o.detail] == [0, -1, -2]
    previews = [o.detail["attacks"][0].detail["attack_dice"] for o in opts.values() if "attacks" in o.detail]
    assert previews == ["d8+d6", "d8+d4", "d8+d2"]
    assert r.attack_options(b, "a") == [] and r.action_costs(b, "a") == {"face": 0}
    run_flow(r.maneuver(b, Maneuver("a", "declare:3")), lambda d: None)
    assert r.maneuver_options(b, "a") == []  # declared: no second declaration this round
    dice = []
    for _ in range(3):
        o = option(r, b, "short sword")
        dice.append(o.detail["attack_dice"])
        assert o == next(p for p in opts["declare:3"].detail["attacks"] if p.command == o.command)
        engine_attack(r, b, "short sword", defend("none"))
        heal(b, "t", "stun", "wounds")
    assert dice == ["d8+d2"] * 3  # every action at -2 steps
    attacks = [e for e in b.events if e["type"] == "attack"]
    assert [e["dice"] for e in attacks] == dice
    assert [m["value"] for m in attacks[0]["modifiers"] if m["source"] == "multiple actions"] == [-2]
    b.round += 1  # a new round: undeclared again (the engine refills the AP)
    set_ap(b, "a", MAX_ACTIONS)
    assert r.declared(b, "a") is None and len(r.maneuver_options(b, "a")) == 4


def test_prospective_penalty_option() -> None:
    # The old variant: no declaration, each action at -1 step per action already taken.
    r, b = duel(gap_in=1.5, prospective_penalty=True)
    assert r.maneuver_options(b, "a")[0].command.name == "all_out_defence"
    dice = []
    for _ in range(3):
        dice.append(option(r, b, "short sword").detail["attack_dice"])
        engine_attack(r, b, "short sword", defend("none"))
        heal(b, "t", "stun", "wounds")
    assert dice == ["d8+d6", "d8+d4", "d8+d2"]  # 0, -1, -2 steps
    attacks = [e for e in b.events if e["type"] == "attack"]
    assert [e["dice"] for e in attacks] == dice


def test_declaration_odds_match_enumeration() -> None:
    # Every attack option carries the exact odds of its declared penalty (checked by enumeration).
    import itertools

    for n in (1, 2, 3):
        r, b = duel(gap_in=1.5, actions=(n, 1))
        o = option(r, b, "short sword")
        pool = trait_pool(4, 3, -(n - 1))  # Agility d8 + Melee Weapons d6 at -(n - 1) steps
        hits = sum(
            1
            for att in itertools.product(*[range(1, d + 1) for d in pool])
            for dfc in range(1, 9)  # the innate defence: Agility d8
            if sum(att) >= dfc
        )
        assert o.p_success == pytest.approx(hits / (math.prod(pool) * 8), abs=1e-12)


@pytest.mark.parametrize(
    ("ypi", "moves", "cost"),
    [
        (1.0, [4.9], 0),
        (1.0, [5.0], 0),
        (1.0, [5.1], 1),
        (1.0, [10.0], 1),
        (1.0, [10.1], None),
        (1.0, [3.0, 2.5], 1),  # 15 ft free, then the rest of the turn is a hustle
        (1.0, [6.0, 4.0], 0),  # the hustle is paid already
        (1.0, [6.0, 4.5], None),
        (2.0, [2.5], 0),  # 15 ft = 5 yd = 2.5 in at 2 yd/in
        (2.0, [2.6], 1),
        (2.0, [5.1], None),
        (1.0, [5.0 + 7e-7], 0),  # within TIER_TOLERANCE of the free 15 ft: still free
        (1.0, [2.5, 2.5000007], 0),
        (1.0, [5.0 + 2e-6], 1),  # beyond it: a hustle
        (1.0, [10.0 + 7e-7], 1),
        (3.0, [5.0 / 3.0 + 7e-7], 0),
    ],
)
def test_movement_tiers(ypi: float, moves: list[float], cost: int | None) -> None:
    r, b = make(ypi=ypi)
    b.add("a", "red", (0.0, 0.0))
    r.declare(b, "a", 3, "turn")
    x = 0.0
    for step in moves[:-1]:
        c = r.move_ap_cost(b, "a", step)
        assert c is not None
        x += step
        b.move_unit("a", (x, 0.0), "move", ap=c)
    assert r.move_ap_cost(b, "a", moves[-1]) == cost


def test_tier_tolerance_is_a_micro_inch() -> None:
    assert TIER_TOLERANCE == 1e-6  # points are rounded to 6 decimals: up to ~7e-7 in of path


def test_an_undeclared_unit_walks_its_free_15_ft_only() -> None:
    # C4: base speed is no action; anything faster needs actions, which need a declaration.
    r, b = make()
    b.add("a", "red", (0.0, 0.0))
    assert r.inches_per_ap(b, "a") * b.u["a"].ap.current == pytest.approx(5.0)
    assert r.move_ap_cost(b, "a", 5.0) == 0 and r.move_ap_cost(b, "a", 5.1) is None
    b.move_unit("a", (3.0, 0.0), "move")
    r.declare(b, "a", 1, "turn")
    assert r.move_ap_cost(b, "a", 2.1) == 1  # the hustle, now payable


def test_movement_region_matches_the_allowance() -> None:
    r, b = make()
    b.add("a", "red", (0.0, 0.0))
    r.declare(b, "a", 3, "turn")
    assert r.inches_per_ap(b, "a") * b.u["a"].ap.current == pytest.approx(10.0)  # hustle: 30 ft
    script(b, [6])  # the run roll at -2 steps: Agility d8 alone
    assert r.start_turn(b, "a")
    assert r.inches_per_ap(b, "a") * b.u["a"].ap.current == pytest.approx(12.0)  # run: 36 ft
    set_ap(b, "a", 1)
    assert r.inches_per_ap(b, "a") * 1 == pytest.approx(10.0)  # one action: a hustle at most
    set_ap(b, "a", 0)
    assert r.inches_per_ap(b, "a") == 0.0


@pytest.mark.parametrize(
    ("ap", "moves", "cost"),
    [
        (3, [12.0], 2),
        (3, [12.1], None),
        (3, [6.0, 6.0], 1),  # hustle paid, the run costs the difference
        (3, [4.0, 2.0, 6.0], 1),
        (1, [11.0], None),  # a run needs two actions
        (2, [11.0], 2),
    ],
)
def test_run_tier(ap: int, moves: list[float], cost: int | None) -> None:
    r, b = make()
    b.add("a", "red", (0.0, 0.0))
    r.declare(b, "a", 3, "turn")
    script(b, [6])  # Agility d8 + Athletics d4 (no Running specialty) at -2 steps: d8; 30 + 6 = 36 ft = 12 yd
    assert r.start_turn(b, "a")
    assert b.u["a"].turn.record.run_feet == 36
    set_ap(b, "a", ap)
    x = 0.0
    for step in moves[:-1]:
        c = r.move_ap_cost(b, "a", step)
        assert c is not None
        x += step
        b.move_unit("a", (x, 0.0), "move", ap=c)
    assert r.move_ap_cost(b, "a", moves[-1]) == cost


def test_run_roll_carries_action_penalties() -> None:
    r, b = make()
    b.add("a", "red", (0.0, 0.0))
    r.declare(b, "a", 2, "defence")  # declared by a reaction earlier this round: -1 step
    script(b, [4, 1])  # Agility d8 + Athletics d4 at -1 step: d8 + d2
    r.start_turn(b, "a")
    rolls = [e for e in b.events if e["type"] == "roll" and e["purpose"] == "run distance"]
    assert [e["dice"] for e in rolls] == ["1d8", "1d2"]


def test_run_roll_comes_with_the_declaration_in_the_units_turn() -> None:
    r, b = make()
    b.add("a", "red", (0.0, 0.0))
    b.active = "a"
    assert r.start_turn(b, "a")
    assert b.u["a"].turn.record is None  # undeclared: no run to price yet
    script(b, [4])
    r.declare(b, "a", 1, "turn")  # one action: no run possible, no roll
    assert b.u["a"].turn.record is None
    r2, b2 = make()
    b2.add("a", "red", (0.0, 0.0))
    b2.active = "a"
    r2.start_turn(b2, "a")
    script(b2, [3, 1, 1])  # -2 steps: Agility d8 + Athletics d4 -> d6
    r2.declare(b2, "a", 3, "turn")
    assert b2.u["a"].turn.record.run_feet == 33


def test_initiative_highest_first_ties_by_agility_then_roll_off() -> None:
    r, b = make()
    quick = CortexRuleset.default_stats().model_copy(update={"agility": "d10", "alertness": "d4"})
    b.add("x", "red", (0, 0))  # d8 + d6
    b.add("y", "blue", (5, 0), stats=quick)  # d10 + d4
    b.add("z", "blue", (9, 0))  # d8 + d6
    # x: 3+3=6, y: 2+4=6, z: 5+5=10 -> z first; x and y tie on 6, y has the higher Agility.
    script(b, [3, 3, 2, 4, 5, 5])
    assert r.initiative(b, ["x", "y", "z"]) == ["z", "y", "x"]
    # x and z tie on roll and dice: a roll-off (x 2+1, z 6+6) decides.
    script(b, [4, 4, 1, 1, 4, 4, 2, 1, 6, 6])
    assert r.initiative(b, ["x", "y", "z"]) == ["z", "x", "y"]


# ---- damage and its effects ----------------------------------------------------------------------


def test_damage_worked_example() -> None:
    r, b = duel(gap_in=1.5)
    # Attack d8+d6 rolls 6+5 = 11; innate Agility d8 rolls 4: margin 7 -> 4 stun, 3 wounds;
    # short sword d4 (W) rolls 3 -> wounds 6; armour 2 -> 4 wounds.
    script(b, [6, 5, 4, 3])
    engine_attack(r, b, "short sword", defend("none"))
    dmg = [e for e in b.events if e["type"] == "damage"]
    assert dmg[0]["deltas"] == {"stun": 4, "wounds": 4}
    assert b.u["t"].health.tracks == {"stun": 4, "wounds": 4, "shock": 0}
    assert "seriously_wounded" not in b.u["t"].health.status  # 4 < 12 / 2


def test_miss_on_a_higher_difficulty_and_hit_on_a_tie() -> None:
    r, b = duel(gap_in=1.5)
    script(b, [3, 3, 7])  # 6 vs innate 7: miss
    engine_attack(r, b, "short sword", defend("none"))
    assert not any(e["type"] == "damage" for e in b.events)
    script(b, [3, 4, 7, 1])  # 7 vs 7: hits, margin 0, weapon 1 - armour 2 -> nothing gets through
    set_ap(b, "a", 1)  # another turn's action
    engine_attack(r, b, "short sword", defend("none"))
    assert [e["deltas"] for e in b.events if e["type"] == "damage"] == [{"stun": 0, "wounds": 0}]


def test_seriously_wounded_penalty() -> None:
    r, b = duel(gap_in=1.5)
    before = option(r, b, "short sword").detail["attack_dice"]
    b.damage("a", {"wounds": 6}, source=None)  # half of 12 life points
    r._after_damage(b, "a")
    assert "seriously_wounded" in b.u["a"].health.status
    o = option(r, b, "short sword")
    assert (before, o.detail["attack_dice"]) == ("d8+d6", "d8+d2")
    assert ("seriously wounded", SERIOUS_WOUND_STEPS) in [(m.source, m.value) for m in o.modifiers]


def test_passing_out_rolls_at_7_then_plus_4_each_turn_it_acts() -> None:
    # C19: over life points: roll at once, then again each turn the unit takes any action.
    r, b = duel(gap_in=1.5)
    t = b.u["t"]
    script(b, [6, 1])  # Vitality d6 + Willpower d6 = 7 vs 7: stays up
    b.damage("t", {"stun": 8, "wounds": 5}, source="a")  # 13 > 12 life points
    r._after_damage(b, "t")
    assert "reeling" in t.health.status and not t.health.out_of_action
    b.round = 2
    set_ap(b, "t", MAX_ACTIONS)
    assert r.start_turn(b, "t")  # a turn start is no action: no roll
    assert len([e for e in b.events if e["type"] == "check"]) == 1
    script(b, [6, 5])  # declaring its actions: 11 vs 11
    assert r.declare(b, "t", 1, "turn")
    b.round = 3
    set_ap(b, "t", MAX_ACTIONS)
    script(b, [6, 6])  # 12 vs 15
    assert not r.declare(b, "t", 2, "turn")
    assert "unconscious" in t.health.status
    checks = [(e["roll"], e["difficulty"]) for e in b.events if e["type"] == "check"]
    assert checks == [(7, 7), (11, 11), (12, 15)]


def test_passing_out_on_an_active_defence_leaves_no_defence() -> None:
    r, b = duel(gap_in=1.5, actions=(1, None))
    t = b.u["t"]
    t.health = t.health.flagged("reeling", True)
    b.set_rules_state(track(b).put("conscious_rolls", "t", 1))  # rolled once to stay up already
    # Attack 4 + 4 = 8; the dodge declares an action: 2 + 2 = 4 vs 11, passed out; Difficulty 3 hits.
    script(b, [4, 4, 2, 2, 1])
    engine_attack(r, b, "short sword", declaring(1, "dodge"))
    defence = next(e for e in b.events if e["type"] == "defence")
    assert (defence["kind"], defence["roll"], defence["success"]) == ("none", 3, False)
    assert "unconscious" in t.health.status


def test_prospective_option_rolls_consciousness_at_each_turn() -> None:
    r, b = duel(gap_in=1.5, prospective_penalty=True)
    script(b, [6, 1])
    b.damage("t", {"stun": 8, "wounds": 5}, source="a")
    r._after_damage(b, "t")
    script(b, [6, 5, 1, 1])  # 11 vs 11, then the turn's run roll
    assert r.start_turn(b, "t")
    script(b, [6, 6])  # 12 vs 15
    assert not r.start_turn(b, "t")
    checks = [(e["roll"], e["difficulty"]) for e in b.events if e["type"] == "check"]
    assert checks == [(7, 7), (11, 11), (12, 15)]


def test_shock_while_unconscious() -> None:
    r, b = duel(gap_in=1.5)
    b.u["t"].health = b.u["t"].health.flagged("unconscious", True)
    script(b, [2])  # weapon d4
    r._damage(b, "t", "a", b.stats("a").weapon("short sword"), 3)
    assert b.u["t"].health.tracks["shock"] == 2 and b.u["t"].health.tracks["stun"] == 0


def test_dying_rolls_at_3_then_every_minute_plus_4() -> None:
    r, b = duel(gap_in=1.5)
    t = b.u["t"]
    script(b, [2, 1])  # 3 vs 3: alive
    b.damage("t", {"wounds": 12}, source="a")
    r._after_damage(b, "t")
    assert {"dying", "out"} <= t.health.status and "dead" not in t.health.status
    for rnd in range(2, 2 + ROUNDS_PER_MINUTE - 1):
        b.round = rnd
        r.start_round(b)  # no roll before a minute passes
    script(b, [3, 3])  # 6 vs 7
    b.round = 1 + ROUNDS_PER_MINUTE
    r.start_round(b)
    assert "dead" in t.health.status
    assert [(e["roll"], e["difficulty"]) for e in b.events if e["type"] == "check"] == [(3, 3), (6, 7)]


def test_dying_roll_failure_kills_at_once() -> None:
    r, b = duel(gap_in=1.5)
    script(b, [1, 1])
    b.damage("t", {"wounds": 15}, source="a")
    r._after_damage(b, "t")
    assert "dead" in b.u["t"].health.status


# ---- pitch black ---------------------------------------------------------------------------------


def test_pitch_black_lowest_innate_roll_takes_the_hit() -> None:
    r, b = make(visibility="pitch_black")
    b.add("a", "red", (0.0, 0.0))
    b.add("t", "blue", (10.0, 0.0), facing=180.0)
    b.add("f", "red", (11.5, 0.0))  # a friend of the attacker right behind the target
    b.add("far", "blue", (30.0, 0.0))
    r.declare(b, "a", 1, "turn")
    assert r.potential_targets(b, "a", "t", b.stats("a").weapon("crossbow")) == ["t", "f"]
    # Attack d8+d4 (short range) = 3+1 = 4; t rolls 5, f rolls 2: f takes the hit (4 >= 2).
    script(b, [3, 1, 5, 2, 6])
    b.spend_ap("a", 1, "attack")
    assert run_flow(r.attack(b, Attack("a", "t", "crossbow")), lambda d: None) == []  # nobody can react
    dmg = [e for e in b.events if e["type"] == "damage"]
    assert [d["unit"] for d in dmg] == ["f"]


def test_pitch_black_odds_monte_carlo() -> None:
    r, b = make(seed=11, visibility="pitch_black")
    b.add("a", "red", (0.0, 0.0))
    b.add("t", "blue", (10.0, 0.0), facing=180.0)
    b.add("u", "blue", (11.2, 0.5))
    r.declare(b, "a", 1, "turn")
    o = option(r, b, "crossbow")
    hits = hurt_t = 0
    for _ in range(N_MC):
        b.events.clear()
        set_ap(b, "a", 3)
        run_flow(r.attack(b, Attack("a", "t", "crossbow")), lambda d: None)
        dmg = [e for e in b.events if e["type"] == "damage"]
        hits += bool(dmg)
        hurt_t += any(e["unit"] == "t" and (e["deltas"]["stun"] + e["deltas"]["wounds"]) > 0 for e in dmg)
        for u in ("t", "u"):
            heal(b, u, "stun", "wounds", "shock")
    assert mc_ok(hits / N_MC, o.p_success, N_MC)
    assert mc_ok(hurt_t / N_MC, o.detail["p_hurt"], N_MC)


# ---- Monte Carlo of whole flows ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "cover"), [("none", CoverLevel.NONE), ("dodge", CoverLevel.LIGHT), ("block", CoverLevel.NONE)]
)
def test_flow_monte_carlo_matches_exact_odds(kind: str, cover: CoverLevel) -> None:
    r, b = duel(gap_in=1.5, seed=2024)
    b.set_sight("a", "t", cover=cover)
    o = option(r, b, "short sword")
    w = b.stats("a").weapon("short sword")
    pool = trait_pool(4, 3)
    dpool = {"none": (8,), "dodge": (8, 4), "block": (8, 6)}[kind]
    bonus = COVER_DIFFICULTY[cover]
    p_hit, p_hurt, _, _ = hit_damage(pool, dpool, bonus, w.damage_dice, "W", 2)
    if kind == "none":
        assert o.p_success == pytest.approx(p_hit)
    hits = hurts = 0
    calib = succ = 0.0
    for _ in range(N_MC):
        b.events.clear()
        set_ap(b, "a", 3)
        set_ap(b, "t", 3)
        decisions = engine_attack(r, b, "short sword", defend(kind))
        calib += next(opt.p_success or 0.0 for opt in decisions[0].options if opt.command.kind == kind)
        dmg = [e for e in b.events if e["type"] == "damage"]
        hits += bool(dmg)
        hurts += bool(dmg) and sum(dmg[0]["deltas"].values()) > 0
        succ += next(e for e in b.events if e["type"] == "defence")["success"]
        heal(b, "t", "stun", "wounds", "shock")
    assert mc_ok(hits / N_MC, p_hit, N_MC)
    assert mc_ok(hurts / N_MC, p_hurt, N_MC)
    # Each defence option's p_success (given the rolled attack) is calibrated on average.
    assert abs(succ - calib) / N_MC <= 3.29 * math.sqrt(0.25 / N_MC) + 1 / N_MC


def test_best_defence_detail() -> None:
    r, b = duel(gap_in=1.5)
    o = option(r, b, "short sword")
    w = b.stats("a").weapon("short sword")
    pool = trait_pool(4, 3)
    best = min(hit_damage(pool, d, 0, w.damage_dice, "W", 2)[1] for d in [(8,), (8, 4), (8, 6)])
    assert o.detail["p_hurt"] == pytest.approx(best)


def test_attack_options_are_fast() -> None:
    r, b = duel(gap_in=1.5)
    for i in range(5):
        b.add(f"e{i}", "blue", (2.0 + i, 0.5 * i), facing=180.0)
    n = len(r.attack_options(b, "a"))
    t0 = time.perf_counter()
    for _ in range(20):
        r.attack_options(b, "a")
    per_query = (time.perf_counter() - t0) / 20 / n
    assert per_query <= 1e-3


# ---- odds CLI ------------------------------------------------------------------------------------


def run_cli(*args: str) -> Any:
    return CliRunner().invoke(odds, ["cortex", *args])


def test_cli_json() -> None:
    res = run_cli("--attack", "d8+d6", "--difficulty", "7", "--json")
    assert res.exit_code == 0
    out = json.loads(res.output)
    assert out["p_success"] == pytest.approx(33 / 48)
    res = run_cli(
        "--attack", "d8+d6", "--defence", "d8", "--cover", "light", "--weapon", "d6", "--type", "B", "--json"
    )
    out = json.loads(res.output)
    assert out["p_success"] == pytest.approx(p_meet_or_beat((8, 6), (8,), 4))
    assert out["p_hurt"] == pytest.approx(hit_damage((8, 6), (8,), 4, (6,), "B", 0)[1])
    res = run_cli(
        "--attribute",
        "d8",
        "--skill",
        "d6",
        "--steps",
        "-1",
        "--range",
        "medium",
        "--difficulty",
        "3",
        "--json",
    )
    assert json.loads(res.output)["attack"] == "d8"


def test_cli_readable() -> None:
    res = run_cli("--attack", "d8+d6", "--difficulty", "7", "--visibility", "dim", "--weapon", "d4")
    assert res.exit_code == 0 and "P(hit)" in res.output and "+4" in res.output


@pytest.mark.parametrize(
    "args",
    [
        ["--attack", "d8+d6"],
        ["--attack", "d8", "--difficulty", "3", "--defence", "d6"],
        ["--attack", "d8", "--attribute", "d6", "--difficulty", "3"],
        ["--attack", "d8+q", "--difficulty", "3"],
        ["--attribute", "d7", "--difficulty", "3"],
        ["--attack", "d8", "--steps", "-1", "--difficulty", "3"],
        ["--attribute", "d2", "--steps", "-3", "--difficulty", "3"],
        ["--attack", "d8", "--difficulty", "3", "--cover", "total"],
    ],
)
def test_cli_errors_exit_2(args: list[str]) -> None:
    assert run_cli(*args).exit_code == 2


def test_defend_command_values() -> None:
    assert Defend("t", "dodge").kind == "dodge"


def test_trait_steps_are_memoised_per_stat_block() -> None:
    # attr() and skill() are memoised by block identity: each block, even an equal copy or one
    # differing only in a skill die, must answer from its own dice, first read and memo hit alike.
    base = {
        "agility": "d8",
        "strength": "d6",
        "vitality": "d6",
        "alertness": "d6",
        "intelligence": "d6",
        "willpower": "d6",
        "weapons": [w.model_dump() for w in TROOPER.weapons],
    }
    a = CortexStats.model_validate({**base, "skills": {"athletics": "d6", "athletics/dodge": "d10"}})
    b = CortexStats.model_validate({**base, "agility": "d4", "skills": {"athletics": "d8"}})
    twin = a.model_copy()
    for _ in range(2):
        assert (a.attr("agility"), a.skill("athletics/dodge"), a.skill("athletics/running")) == (4, 5, 3)
        assert (b.attr("agility"), b.skill("athletics/dodge"), b.skill("athletics/running")) == (2, 4, 4)
        assert (twin.attr("agility"), twin.skill("athletics/dodge"), twin.skill("guns")) == (4, 5, 0)
