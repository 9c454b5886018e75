"""GURPS rule numbers as options: every numeric option and every switch reaches the rules.

Each numeric option of :class:`~game.rules.gurps.options.GurpsOptions` has a probe in ``PROBES``:
a small situation (FakeBattle, scripted dice) whose observable outcome (a defence score, a move,
a roll's target, a status) is computed under the default options and under one other value, and
must differ. ``test_every_numeric_option_has_a_probe`` fails when an option is added without one;
the switches have the same completeness check. The exact odds (``skirmish odds gurps``) follow
the options too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from components.sight import Arc
from components.spatial import Posture
from game.core.commands import Attack, Maneuver
from game.core.flow import Ask
from game.dice.gurps import p_success
from game.rules.gurps.commands import Interpose
from game.rules.gurps.defence import AttackInfo, DefenceChoice
from game.rules.gurps.odds import gurps_odds
from game.rules.gurps.options import DEFAULTS, GurpsOptions
from game.rules.gurps.reactions import AOD, AttackData, FollowData
from game.rules.gurps.ruleset import GurpsRuleset
from game.rules.gurps.state import memory, update_defence, update_turn
from game.rules.odds import OddsForbidden
from game.rules.options import describe
from tests.rules.fakes import FakeBattle, run_flow
from tests.rules.test_gurps_common import BOW, SWORD, ScriptedDice, chooser, mk, set_hp, set_status

RAPIER = {"name": "rapier", "skill": "Rapier", "damage": "thr+1 imp", "reach": 1}
SHIELDED = {"shield": {"skill": "Shield"}, "extra_skills": {"Shield": 12}}


def battle(
    options: dict[str, Any] | None = None,
    a: Any = None,
    d: Any = None,
    dist: float = 1.0,
    d_facing: float = 180.0,
) -> tuple[GurpsRuleset, FakeBattle]:
    """Attacker ``a`` at the origin, defender ``d`` ``dist`` inches east facing it, under ``options``."""
    rules = GurpsRuleset(options or {})
    b = FakeBattle(rules)
    b.add("a", "red", (0.0, 0.0), a or mk())
    b.add("d", "blue", (dist, 0.0), d or mk(), facing=d_facing)
    b.active = "a"
    return rules, b


def choices(rules: GurpsRuleset, b: FakeBattle, weapon: str = "sword") -> dict[str, DefenceChoice]:
    info = AttackInfo("a", b.stats("a").weapon(weapon), b.sight("a", "d"))
    return {c.label().rsplit(" ", 2)[0]: c for c in rules.defences(b, "d", info)}


def eff(
    label: str, weapon: str = "sword", dist: float = 1.0, setup: Callable[..., Any] | None = None, **kw: Any
):
    """A probe: the score (or score distribution) of the defence ``label`` under the options."""

    def probe(options: dict[str, Any]) -> Any:
        rules, b = battle(options, dist=dist, **kw)
        if setup is not None:
            setup(b)
        c = choices(rules, b, weapon).get(label)
        return None if c is None else c.effs

    return probe


def offered(label: str, setup: Callable[..., Any], weapon: str = "sword", **kw: Any):
    """A probe: whether the defence ``label`` is offered."""

    def probe(options: dict[str, Any]) -> bool:
        rules, b = battle(options, **kw)
        setup(b)
        return label in choices(rules, b, weapon)

    return probe


def thrower(weight: float) -> Any:
    knife = {"name": "knife", "skill": "Knife", "kind": "thrown", "damage": "thr imp", "max_range": 20}
    return mk(weapons=[SWORD, {**knife, "weight": weight}], extra_skills={"Knife": 12})


def script(b: FakeBattle, rolls: list[Any]) -> None:
    b.dice = ScriptedDice(b, rolls)


def wound(inj: int, rolls: list[int], hp: int = 10, what: str = "events") -> Callable[[dict[str, Any]], Any]:
    """A probe: wound the defender (``hp`` HP before) by ``inj``; its checks and status, or shock."""

    def probe(options: dict[str, Any]) -> Any:
        rules, b = battle(options)
        set_hp(b, "d", hp - inj)
        script(b, list(rolls))
        rules._wound_effects(b, "d", inj)
        if what == "shock":
            return memory(b).shock["d"]
        checks = [(e["purpose"], e["eff"]) for e in b.events if e["type"] == "check"]
        return checks, sorted(b.u["d"].health.status)

    return probe


def sacrificial_drop(options: dict[str, Any]) -> Any:
    """Who is hit when a friend's sacrificial dodge-and-drop (Dodge 8 + 3) is made by exactly 3."""
    rules = GurpsRuleset(options)
    b = FakeBattle(rules)
    b.add("a", "red", (0.0, 0.0), mk())
    b.add("d", "blue", (10.0, 0.0), mk(), facing=180.0)
    b.add("f", "blue", (10.0, 1.0), mk(), facing=180.0)
    script(b, [8])
    info = AttackInfo("a", b.stats("a").weapon("bow"), b.sight("a", "f"))
    return rules._resolve_interpose(b, "f", "d", "a", Interpose("f", "d", (9.5, 0.5), drop=True), info, 1)


def parry_injury(options: dict[str, Any]) -> int:
    """The target of a parrier's injuring roll against a Judo attack."""
    judo = {"name": "judo", "skill": "Judo", "damage": "thr-1 cr", "unarmed": True, "reach": 0}
    rules, b = battle(options, a=mk(weapons=[judo], extra_skills={"Judo": 12}))
    script(b, [18])
    info = AttackInfo("a", b.stats("a").weapon("judo"), b.sight("a", "d"))
    rules._parry_injures(b, "d", info, b.stats("d").weapon("sword"))
    eff: int = next(e["eff"] for e in b.events if e["type"] == "check")
    return eff


def attack_profile(**sight: Any) -> Callable[[dict[str, Any]], Any]:
    def probe(options: dict[str, Any]) -> Any:
        rules, b = battle(options, dist=10.0, a=mk(extra_skills={"Bow": 10}))
        b.set_sight("a", "d", **sight)
        w = b.stats("a").weapon("bow")
        return rules.attack_profile(b, "a", "d", w, b.sight("a", "d"))

    return probe


def move(posture: Posture = Posture.STANDING, hp: int = 10) -> Callable[[dict[str, Any]], float]:
    def probe(options: dict[str, Any]) -> float:
        rules, b = battle(options)
        b.u["d"].posture = posture
        set_hp(b, "d", hp)
        return rules.inches_per_ap(b, "d")

    return probe


def step(options: dict[str, Any]) -> float:
    rules, b = battle(options, d=mk(basic_move=15))
    return rules.step_inches(b, "d")


def used(**changes: Any) -> Callable[[FakeBattle], None]:
    return lambda b: update_defence(b, "d", **changes)


#: numeric option -> (a value other than the default, the probe whose outcome it changes)
PROBES: dict[str, tuple[Any, Callable[[dict[str, Any]], Any]]] = {
    "dodge_base": (5, eff("dodge")),
    "vehicle_skill_divisor": (3, eff("dodge", d=mk(vehicle_skill=14, vehicle_handling=1))),
    "parry_base": (4, eff("parry (sword)")),
    "block_base": (5, eff("block", d=mk(**SHIELDED))),
    "acrobatic_bonus": (4, eff("acrobatic dodge", d=mk(extra_skills={"Acrobatics": 12}))),
    "retreat_dodge": (5, eff("dodge and retreat")),
    "retreat_parry_block": (2, eff("parry (sword) and retreat")),
    "retreat_parry_fencing": (
        1,
        eff("parry (rapier) and retreat", d=mk(weapons=[RAPIER], extra_skills={"Rapier": 12})),
    ),
    "retreats_per_turn": (2, offered("dodge and retreat", used(retreated=True, retreats=1))),
    "drop_dodge": (1, eff("dodge and drop", weapon="bow", dist=10.0)),
    "sacrificial_drop_margin": (4, sacrificial_drop),
    "multiple_parry": (-3, eff("parry (sword)", setup=used(parries={"sword": 1}))),
    "multiple_parry_trained": (
        -3,
        eff("parry (sword)", setup=used(parries={"sword": 1}), d=mk(weapon_master=True)),
    ),
    "multiple_parry_fencing_master": (
        -3,
        eff(
            "parry (rapier)",
            setup=used(parries={"rapier": 1}),
            d=mk(weapons=[RAPIER], extra_skills={"Rapier": 12}, weapon_master=True),
        ),
    ),
    "off_hand_parry": (-1, eff("parry (sword)", d=mk(weapons=[{**SWORD, "off_hand": True}, BOW]))),
    "thrown_parry": (-3, eff("parry (sword)", weapon="knife", a=thrower(2.0))),
    "small_thrown_parry": (-3, eff("parry (sword)", weapon="knife", a=thrower(0.5))),
    "small_thrown_lb": (3.0, eff("parry (sword)", weapon="knife", a=thrower(2.0))),
    "bare_hands_vs_weapon": (-1, eff("parry (bare hands)", d=mk(weapons=[BOW]))),
    "parry_injury_judo_karate": (-2, parry_injury),
    "blocks_per_turn": (2, offered("block", used(blocked=True, blocks=1), d=mk(**SHIELDED))),
    "side_arc_defence": (-1, eff("dodge", d_facing=60.0)),
    "stunned_defence": (-2, eff("dodge", setup=lambda b: set_status(b, "d", "stunned"))),
    "intervening_penalty": (-2, attack_profile(intervening=("x",))),
    "min_attack_skill": (12, attack_profile()),
    "shock_max": (6, wound(8, [3], what="shock")),
    "major_wound_divisor": (4, wound(3, [10])),
    "knockout_margin": (3, wound(6, [13])),
    "death_check_multiples": (0, wound(21, [10, 10])),
    "auto_death_multiple": (3, wound(41, [3, 3, 3, 3, 3])),
    "reeling_divisor": (2, move(hp=4)),
    "step_move_divisor": (5, step),
    "prone_move_yards": (2.0, move(Posture.PRONE)),
}


def numeric_options() -> set[str]:
    return {o["name"] for o in describe(GurpsOptions) if o["type"] in ("int", "float")}


def test_every_numeric_option_has_a_probe() -> None:
    assert set(PROBES) == numeric_options()


def test_at_least_twenty_numeric_options_each_described_and_sourced() -> None:
    opts = [o for o in describe(GurpsOptions) if o["type"] in ("int", "float")]
    assert len(opts) >= 20
    for o in opts:
        assert o["description"] and o["source"].startswith("gurps-active-defense.txt"), o
        assert o["min"] is not None and o["max"] is not None, o
        assert o["min"] <= o["default"] <= o["max"], o


@pytest.mark.parametrize("name", sorted(PROBES))
def test_a_numeric_option_reaches_the_rules(name: str) -> None:
    value, probe = PROBES[name]
    assert value != getattr(DEFAULTS, name)
    GurpsOptions.model_validate({name: value})  # in range
    assert probe({}) != probe({name: value}), f"option {name}={value} changed nothing"


def test_probes_see_the_texts_numbers_by_default() -> None:
    # A few anchors, so that a probe measuring nothing cannot pass by luck.
    assert eff("dodge")({}) == ((1.0, 8),)
    assert eff("dodge", d=mk(vehicle_skill=14, vehicle_handling=1))({}) == ((1.0, 8),)  # the text's biker
    assert eff("dodge and retreat")({}) == ((1.0, 11),)
    assert eff("dodge and drop", weapon="bow", dist=10.0)({}) == ((1.0, 11),)
    assert sacrificial_drop({}) == ("f", 0) and sacrificial_drop({"sacrificial_drop_margin": 4}) == ("f", 1)
    assert parry_injury({}) == 8
    assert step({}) == 1.5 and step({"step_move_divisor": 5}) == 3.0
    assert wound(8, [3], what="shock")({}) == 4


# ---- switches --------------------------------------------------------------------------------


def _no_retreat(o: dict[str, Any]) -> bool:
    return any(c.retreat for c in choices(*battle(o)).values())


def _drop(o: dict[str, Any]) -> bool:
    rules, b = battle(o, dist=10.0)
    return any(c.drop for c in choices(rules, b, "bow").values())


def _aod(o: dict[str, Any]) -> bool:
    rules, b = battle(o)
    return any(opt.command == Maneuver("a", AOD) for opt in rules.maneuver_options(b, "a"))


def _acrobatic(o: dict[str, Any]) -> bool:
    rules, b = battle(o, d=mk(extra_skills={"Acrobatics": 12}))
    return any(c.acrobatic for c in choices(rules, b).values())


def _sacrificial(o: dict[str, Any]) -> bool:
    rules = GurpsRuleset(o)
    b = FakeBattle(rules)
    b.add("a", "red", (0.0, 0.0), mk())
    b.add("d", "blue", (1.0, 0.0), mk(), facing=180.0)
    b.add("f", "blue", (1.0, 1.0), mk(), facing=180.0)
    b.active = "a"
    a = AttackData("a", "d", "sword", b.sight("a", "d"), 10, 12, 1)
    return isinstance(rules._sacrificial(b, a), Ask)


def _vehicular(o: dict[str, Any]) -> bool:
    return eff("dodge", d=mk(vehicle_skill=20, vehicle_handling=1))(o) == ((1.0, 11),)


def _parry_injures(o: dict[str, Any]) -> bool:
    fist = {"name": "fist", "skill": "Brawling", "damage": "thr-1 cr", "unarmed": True, "reach": 0}
    rules, b = battle(o, a=mk(weapons=[fist], extra_skills={"Brawling": 12}))
    script(b, [10, 5, 12, 4, 10, 10])  # hit; parry made; (injuring roll made; damage; HT)
    run_flow(rules.attack(b, Attack("a", "d", "fist")), chooser({"defence": "parry (sword)"}, b))
    return any("parry injures" in e.get("purpose", "") for e in b.events)


def _follow(o: dict[str, Any]) -> bool:
    rules, b = battle(o)
    update_turn(b, "a", maneuver="attack")
    return isinstance(rules._follow(b, FollowData("a", "d"), None), Ask)


def _ground_roll(o: dict[str, Any]) -> bool:
    rules, b = battle(o)
    b.u["d"].posture = Posture.PRONE
    return any(c.retreat_roll is not None for c in choices(rules, b).values())


def _double_different(o: dict[str, Any]) -> bool:
    """Whether All-Out Defence may parry twice with the same weapon (a fencer whose Dodge is poor)."""
    rules, b = battle(o, d=mk(weapons=[SWORD], encumbrance=4, extra_skills={"Broadsword": 18}))
    update_turn(b, "d", maneuver=AOD)
    info = AttackInfo("a", b.stats("a").weapon("sword"), b.sight("a", "d"))
    stages = rules.best_defences(b, "d", info)
    return len(stages) == 2 and stages[0].key == stages[1].key


#: switch -> probe: True when the mechanic (or reading) is at work.
SWITCHES: dict[str, Callable[[dict[str, Any]], bool]] = {
    "retreat": _no_retreat,
    "dodge_and_drop": _drop,
    "all_out_defence": _aod,
    "acrobatic_dodge": _acrobatic,
    "sacrificial_dodge": _sacrificial,
    "vehicular_dodge": _vehicular,
    "parry_injures_unarmed": _parry_injures,
    "follow_retreat": _follow,
    "ground_retreat_roll": _ground_roll,
    "double_defence_different": lambda o: not _double_different(o),
}


def test_every_switch_has_a_probe() -> None:
    assert set(SWITCHES) == {o["name"] for o in describe(GurpsOptions) if o["type"] == "bool"}


@pytest.mark.parametrize("name", sorted(SWITCHES))
def test_a_switch_turns_its_mechanic_on_and_off(name: str) -> None:
    default = getattr(DEFAULTS, name)
    assert SWITCHES[name]({}) is default
    assert SWITCHES[name]({name: not default}) is (not default)


def test_all_out_defence_switched_off_is_refused() -> None:
    rules, b = battle({"all_out_defence": False})
    with pytest.raises(ValueError, match="all_out_defence"):
        rules._maneuver(b, Maneuver("a", AOD), None)


def test_more_retreats_per_turn_lift_the_logged_limit() -> None:
    limits = {r.name: r for r in GurpsRuleset.reaction_limits}
    assert limits["retreat"].applies({}) and not limits["retreat"].applies({"retreats_per_turn": 2})
    assert limits["block"].applies({"blocks_per_turn": 1}) and not limits["block"].applies(
        {"blocks_per_turn": 3}
    )


def test_second_retreat_is_counted_against_the_cap() -> None:
    rules, b = battle({"retreats_per_turn": 2})
    update_defence(b, "d", retreated=True, retreats=2)
    assert not any(c.retreat for c in choices(rules, b).values())


# ---- the exact odds follow the options ---------------------------------------------------------


def test_odds_follow_the_options() -> None:
    base = gurps_odds(8, "dodge", retreat=True)
    assert base.eff == 11 and float(base.p) == pytest.approx(p_success(11))
    opts = GurpsOptions(retreat_dodge=1, drop_dodge=5, retreat_parry_fencing=2, acrobatic_bonus=4)
    assert gurps_odds(8, "dodge", retreat=True, options=opts).eff == 9
    assert gurps_odds(8, "dodge", drop=True, ranged=True, options=opts).eff == 13
    assert gurps_odds(8, "parry", retreat=True, fencing=True, options=opts).eff == 10
    acro = gurps_odds(8, "dodge", acrobatic=12, options=opts)
    pa = p_success(12)
    assert float(acro.p) == pytest.approx(pa * p_success(12) + (1 - pa) * p_success(4))
    for off, kw in (
        ("retreat", {"retreat": True}),
        ("dodge_and_drop", {"drop": True, "ranged": True}),
        ("acrobatic_dodge", {"acrobatic": 12}),
    ):
        with pytest.raises(OddsForbidden, match=off):
            gurps_odds(8, "dodge", options=GurpsOptions.model_validate({off: False}), **kw)


def test_out_of_range_values_are_refused_naming_the_option() -> None:
    from game.rules.options import check

    with pytest.raises(ValueError, match="retreat_dodge"):
        check("gurps", GurpsOptions, {"retreat_dodge": -1})
    with pytest.raises(ValueError, match="step_move_divisor"):
        check("gurps", GurpsOptions, {"step_move_divisor": 0})


def test_changed_options_change_the_ais_prices() -> None:
    # The AI prices a defence from the option's p_success: a bigger retreat bonus raises it.
    rules, b = battle({"retreat_dodge": 6})
    c = choices(rules, b)["dodge and retreat"]
    assert c.p_success == pytest.approx(p_success(14))
    assert replace(c).eff == 14
    sight_side = battle(d_facing=60.0)[1].sight("a", "d")
    assert sight_side.arc == Arc.SIDE
