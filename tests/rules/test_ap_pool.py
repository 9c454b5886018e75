"""AP-pool ruleset against shared/rules/ap-dodge-reaction.txt and its documented frame.

From the text: a dodge costs 2 AP, needs 2 AP left, may come after the unit's
activation, once per turn (an activation: docs/rulesets/ap-pool.md P18; option
``dodge_once_per_round`` keeps the old per-round reading), a failed dodge leaves
the damage as normal (P10; option ``failed_dodge_reduces_damage``), three
combinations (Body+Acrobatics, Mind+Perception, Spirit+Willpower) plus the
melee or ranged specialization, 5-6 succeed, meet or beat wins, a successful
dodge allows a 2" move; both worked examples. The attack frame (pools, cover and
range dice, damage, 4 AP) is the ruleset's documented choice. Monte Carlo runs
use seeded generators and the 99.9% bound.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest

from components.sight import CoverLevel
from components.spatial import Posture
from components.state import ActionPoints
from game.core.commands import Attack, Decision
from game.dice.pools import p_at_least, p_at_least_exact
from game.rules.ap_pool.ruleset import (
    ApPoolRuleset,
    ApPoolStats,
    hurt_odds,
)
from tests.rules.fakes import FakeBattle, run_flow
from tests.rules.fakes import mc_bound as bound
from tests.rules.test_gurps_common import PROFILES_PATH, ScriptedDice, first_valid_point

SWORD = {"name": "sword", "kind": "melee", "damage": 2, "reach": 1.0}
BOW = {"name": "bow", "kind": "ranged", "damage": 2, "short": 12.0, "long": 24.0}


def mk(**kw: Any) -> ApPoolStats:
    base: dict[str, Any] = {
        "body": 3,
        "mind": 2,
        "spirit": 2,
        "fighting": 2,
        "shooting": 2,
        "weapons": [SWORD, BOW],
    }
    base.update(kw)
    return ApPoolStats.model_validate(base)


def duel(
    a: ApPoolStats | None = None,
    d: ApPoolStats | None = None,
    dist: float = 1.0,
    seed: int = 0,
    **options: Any,
) -> tuple[ApPoolRuleset, FakeBattle]:
    rules = ApPoolRuleset(options)
    b = FakeBattle(rules, seed=seed)
    b.add("a", "red", (0.0, 0.0), a or mk())
    b.add("d", "blue", (dist, 0.0), d or mk(), facing=180.0)
    b.active = "a"
    return rules, b


def faces(successes: int, dice: int) -> list[int]:
    return [6] * successes + [2] * (dice - successes)


def answer(kind_labels: dict[str, str], b: FakeBattle):  # type: ignore[no-untyped-def]
    def choose(d: Decision) -> Any:
        want = kind_labels.get(d.kind, "")
        opt = next((o for o in d.options if o.label.startswith(want)), d.options[0])
        if opt.point_field is None:
            return opt.command
        p = first_valid_point(opt, b.pos(d.unit))
        assert p is not None
        return opt.with_point(p)

    return choose


def events(b: FakeBattle, kind: str) -> list[dict[str, Any]]:
    return [e for e in b.events if e["type"] == kind]


def test_worked_example_dice_counts() -> None:
    # Body 4 + Acrobatics 3 + Unarmed Combat (melee) 1 = 8; Mind 5 + Perception 2 + Ranged Combat 1 = 8.
    s = mk(body=4, acrobatics=3, melee_spec=1, mind=5, perception=2, ranged_spec=1)
    assert s.dodge_dice("body", "melee") == 8
    assert s.dodge_dice("mind", "ranged") == 8
    assert s.dodge_dice("spirit", "thrown") == 2 + 0 + 1


def test_profiles_validate() -> None:
    from ruamel.yaml import YAML

    data = YAML(typ="safe").load(PROFILES_PATH.read_text())
    stats = {k: ApPoolStats.model_validate(v["ap-pool"]) for k, v in data.items()}
    assert stats["swashbuckler"].dodge_dice("body", "melee") == 8
    for s in stats.values():
        kinds = {w.kind for w in s.weapons}
        assert "melee" in kinds and kinds & {"ranged", "thrown"}


@pytest.mark.parametrize(("successes", "dice"), [(4, 8), (3, 8), (1, 3), (5, 4)])
def test_dodge_options_exact(successes: int, dice: int) -> None:
    rules, b = duel(d=mk(body=dice - 1, acrobatics=0, melee_spec=1))
    opts = rules.dodge_options(b, "d", "melee", successes)
    assert opts[0].label == "no dodge" and len(opts) == 4
    body = next(o for o in opts if getattr(o.command, "combo", None) == "body")
    assert body.p_success == float(p_at_least_exact(dice, successes))
    assert {o.command.combo for o in opts[1:]} == {"body", "mind", "spirit"}


@pytest.mark.parametrize(
    ("ap", "dodged_round", "allowed"),
    [(4, None, True), (2, None, True), (1, None, False), (0, None, False), (4, 1, False), (4, 0, True)],
)
def test_when_a_unit_can_dodge(ap: int, dodged_round: int | None, allowed: bool) -> None:
    rules, b = duel()
    b.u["d"].ap = ActionPoints(ap, b.u["d"].ap.maximum)
    if dodged_round is not None:
        b.set_rules_state({"d": (dodged_round, "a")})
    assert (rules.can_dodge(b, "d") is None) is allowed
    assert (len(rules.dodge_options(b, "d", "melee", 2)) > 1) is allowed


def test_dodge_after_activation_in_the_same_round() -> None:
    # The engine refreshes AP per round: a unit that has acted keeps whatever AP it saved.
    rules, b = duel()
    b.u["d"].ap = ActionPoints(2, b.u["d"].ap.maximum)
    assert rules.can_dodge(b, "d") is None


def test_worked_example_melee() -> None:
    # 9-dice attack with 4 successes; 8-dice Body+Acrobatics+Unarmed dodge with 5: the dodge succeeds.
    rules, b = duel(a=mk(body=4, fighting=4, melee_spec=1), d=mk(body=4, acrobatics=3, melee_spec=1))
    b.dice = ScriptedDice(b, [faces(4, 9), faces(5, 8)])
    seen = run_flow(
        rules.attack(b, Attack("a", "d", "sword")),
        answer({"defence": "dodge body", "dodge_move": "dodge move"}, b),
    )
    assert [d.kind for d in seen] == ["defence", "dodge_move"]
    body = next(o for o in seen[0].options if getattr(o.command, "combo", None) == "body")
    assert body.p_success == pytest.approx(1697 / 6561)
    ev = events(b, "defence")[0]
    assert (ev["dice"], ev["successes"], ev["vs"], ev["success"]) == (8, 5, 4, True)
    assert b.ap("d").current == 4 - rules.options.dodge_ap
    assert math.dist(b.pos("d"), (1.0, 0.0)) <= 2.0 + 1e-9 and b.pos("d") != (1.0, 0.0)
    assert not events(b, "damage")


def test_worked_example_ranged() -> None:
    # 7-dice ranged attack, 3 successes; 8-dice Mind 5 + Perception 2 + Ranged Combat 1, 4 successes.
    rules, b = duel(a=mk(mind=4, shooting=3), d=mk(mind=5, perception=2, ranged_spec=1), dist=6.0)
    b.dice = ScriptedDice(b, [faces(3, 7), faces(4, 8)])
    seen = run_flow(
        rules.attack(b, Attack("a", "d", "bow")), answer({"defence": "dodge mind", "dodge_move": "stay"}, b)
    )
    mind = next(o for o in seen[0].options if getattr(o.command, "combo", None) == "mind")
    assert mind.p_success == float(Fraction(3489, 6561))
    assert events(b, "defence")[0]["success"] and b.pos("d") == (6.0, 0.0)


def test_tie_goes_to_the_dodge_and_failure_costs_ap() -> None:
    rules, b = duel()
    b.dice = ScriptedDice(b, [faces(2, 7), faces(2, 5)])
    run_flow(
        rules.attack(b, Attack("a", "d", "sword")), answer({"defence": "dodge body", "dodge_move": "stay"}, b)
    )
    assert events(b, "defence")[0]["success"]
    rules, b = duel(d=mk(armour=0, wounds=10))
    b.dice = ScriptedDice(b, [faces(3, 7), faces(1, 5)])
    run_flow(rules.attack(b, Attack("a", "d", "sword")), answer({"defence": "dodge body"}, b))
    assert b.ap("d").current == 2
    # P10: the failed dodge changes nothing: weapon 2 + (3 successes - 1) - armour 0 = 4 wounds.
    assert events(b, "damage")[0]["deltas"] == {"wounds": 4}


def test_failed_dodge_reduces_damage_option() -> None:
    rules, b = duel(d=mk(armour=0, wounds=10), failed_dodge_reduces_damage=True)
    b.dice = ScriptedDice(b, [faces(3, 7), faces(1, 5)])
    run_flow(rules.attack(b, Attack("a", "d", "sword")), answer({"defence": "dodge body"}, b))
    # The old variant: weapon 2 + (net 3 - 1 - 1) - armour 0 = 3 wounds.
    assert events(b, "damage")[0]["deltas"] == {"wounds": 3}


def test_once_per_turn() -> None:
    # P18: one dodge per turn (the attacking unit's activation), however many attacks it makes.
    rules, b = duel(d=mk(wounds=10))
    b.add("c", "red", (0.0, 1.0), mk())
    b.dice = ScriptedDice(b, [faces(1, 7), faces(0, 5), faces(1, 7), faces(1, 7), faces(1, 5)])
    run_flow(rules.attack(b, Attack("a", "d", "sword")), answer({"defence": "dodge body"}, b))
    seen = run_flow(rules.attack(b, Attack("a", "d", "sword")), answer({"defence": "no dodge"}, b))
    assert seen == []  # no second dodge this turn: no prompt at all
    assert "already dodged this turn" in str(rules.can_dodge(b, "d"))
    b.active = "c"  # another enemy's turn in the same round: a dodge again, AP permitting
    assert rules.can_dodge(b, "d") is None
    seen = run_flow(rules.attack(b, Attack("c", "d", "sword")), answer({"defence": "dodge body"}, b))
    assert [d.kind for d in seen][:1] == ["defence"] and b.ap("d").current == 0


def test_once_per_round_option() -> None:
    rules, b = duel(d=mk(wounds=10), dodge_once_per_round=True)
    b.add("c", "red", (0.0, 1.0), mk())
    b.dice = ScriptedDice(b, [faces(1, 7), faces(0, 5)])
    run_flow(rules.attack(b, Attack("a", "d", "sword")), answer({"defence": "dodge body"}, b))
    b.active = "c"
    assert "already dodged this round" in str(rules.can_dodge(b, "d"))
    b.round += 1
    assert rules.can_dodge(b, "d") is None


@pytest.mark.parametrize(
    ("damage", "armour", "att", "dodge", "wounds"),
    [(2, 1, 1, None, 1), (2, 1, 3, None, 3), (1, 2, 1, None, 0), (2, 0, 4, 2, 5), (3, 3, 2, None, 1)],
)
def test_damage(damage: int, armour: int, att: int, dodge: int | None, wounds: int) -> None:
    w = {"name": "w", "kind": "melee", "damage": damage}
    rules, b = duel(a=mk(weapons=[w], body=5), d=mk(armour=armour))
    script: list[Any] = [faces(att, 7)]
    if dodge is not None:
        script.append(faces(dodge, 5))
    b.dice = ScriptedDice(b, script)
    run_flow(
        rules.attack(b, Attack("a", "d", "w")),
        answer({"defence": "dodge body" if dodge is not None else "no dodge"}, b),
    )
    got = events(b, "damage")
    assert (got[0]["deltas"]["wounds"] if got else 0) == wounds


def test_wound_track_takes_unit_out() -> None:
    rules, b = duel(d=mk(wounds=2, armour=0))
    b.dice = ScriptedDice(b, [faces(2, 7)])
    run_flow(rules.attack(b, Attack("a", "d", "sword")), answer({"defence": "no dodge"}, b))
    assert "out" in b.u["d"].health.status


def _opt(rules: ApPoolRuleset, b: FakeBattle, weapon: str):  # type: ignore[no-untyped-def]
    return next((o for o in rules.attack_options(b, "a") if o.command.weapon == weapon), None)


def test_attack_pools_and_modifiers() -> None:
    rules, b = duel(a=mk(melee_spec=1, ranged_spec=2), dist=1.0)
    assert _opt(rules, b, "sword").detail["dice"] == 3 + 2 + 1  # Body + Fighting + melee spec
    assert _opt(rules, b, "sword").p_success == pytest.approx(1 - (2 / 3) ** 6)
    b.u["d"].posture = Posture.PRONE
    assert _opt(rules, b, "sword").detail["dice"] == 7  # +1 against a downed target
    rules, b = duel(a=mk(ranged_spec=2), dist=10.0)
    assert _opt(rules, b, "bow").detail["dice"] == 2 + 2 + 2  # Mind + Shooting + ranged spec
    b.u["d"].posture = Posture.PRONE
    assert _opt(rules, b, "bow").detail["dice"] == 5
    b.u["d"].posture = Posture.STANDING
    b.set_sight("a", "d", cover=CoverLevel.HEAVY, intervening=("x",))
    assert _opt(rules, b, "bow").detail["dice"] == 6 - 3 - 1
    rules, b = duel(a=mk(ranged_spec=2), dist=20.0)
    assert _opt(rules, b, "bow").detail["dice"] == 6 - 2  # long range band
    rules, b = duel(dist=25.0)
    assert _opt(rules, b, "bow") is None  # beyond long range


@pytest.mark.parametrize(
    ("dist", "reach", "ok"),
    [(1.0, 0.0, True), (1.9, 1.0, True), (2.1, 1.0, False), (2.4, 1.5, True)],
)
def test_melee_reach_edge_to_edge(dist: float, reach: float, ok: bool) -> None:
    rules, b = duel(a=mk(weapons=[{**SWORD, "reach": reach}]), dist=dist)
    assert (_opt(rules, b, "sword") is not None) is ok


def test_no_attack_without_dice_or_sight() -> None:
    rules, b = duel(a=mk(mind=1, shooting=0), dist=10.0)
    b.set_sight("a", "d", cover=CoverLevel.LIGHT)
    assert _opt(rules, b, "bow") is None  # 1 die - 1 for cover
    b.set_sight("a", "d", cover=CoverLevel.TOTAL, visible=False)
    assert _opt(rules, b, "sword") is None
    b.u["a"].ap = ActionPoints(1, b.u["a"].ap.maximum)
    assert rules.attack_options(b, "a") == []


def test_hurt_odds_exact_small_case() -> None:
    # 1 attack die vs 1 dodge die, damage 1, armour 0: hurt only on a hit the dodge misses.
    p_hurt, expected = hurt_odds(1, 1, 1, 0)
    assert p_hurt == pytest.approx((1 / 3) * (2 / 3))
    assert expected == pytest.approx(1.0)
    p_hurt, _ = hurt_odds(2, 0, 0, 0)  # damage 0: only a second success wounds
    assert p_hurt == pytest.approx(1 / 9)


def test_hurt_odds_failed_dodge_as_normal_against_enumeration() -> None:
    # Enumerate every attack and dodge face: the dodge wins on meet-or-beat, else damage as normal.
    import itertools

    for pool, dodge, damage, armour, reduces in [
        (3, 2, 0, 0, False),
        (3, 2, 0, 0, True),
        (2, 3, 1, 1, False),
    ]:
        want = Fraction(0)
        for att in itertools.product(range(1, 7), repeat=pool):
            a = sum(f >= 5 for f in att)
            if a == 0:
                continue
            for dfc in itertools.product(range(1, 7), repeat=dodge):
                d = sum(f >= 5 for f in dfc)
                if d >= a:
                    continue
                net = a - d if reduces else a
                if damage + net - 1 - armour > 0:
                    want += Fraction(1, 6 ** (pool + dodge))
        assert hurt_odds(pool, dodge, damage, armour, reduces)[0] == pytest.approx(float(want), abs=1e-12)


def test_turn_economy() -> None:
    rules, b = duel(d=mk(move=4.0))
    assert rules.setup_unit(mk()).ap_max == 4
    assert rules.action_costs(b, "a") == {"attack": 2, "posture": 1, "face": 0}
    assert rules.inches_per_ap(b, "d") == 4.0
    b.u["d"].posture = Posture.PRONE
    assert rules.inches_per_ap(b, "d") == 2.0
    assert rules.move_ap_cost(b, "a", 7.5) == 2
    assert rules.move_ap_cost(b, "a", 17.0) is None  # 5 AP with 4
    assert rules.start_turn(b, "a")


def test_initiative_by_successes() -> None:
    rules = ApPoolRuleset()
    b = FakeBattle(rules)
    b.add("x", "red", (0, 0), mk(mind=2, perception=1))
    b.add("y", "blue", (3, 0), mk(mind=2, perception=1))
    b.add("z", "blue", (6, 0), mk(mind=3, perception=1))
    b.dice = ScriptedDice(b, [faces(1, 3), faces(2, 3), faces(1, 4)])
    assert rules.initiative(b, ["x", "y", "z"]) == ["y", "z", "x"]  # ties: more dice first


def test_monte_carlo_attack_odds() -> None:
    rules, b = duel(a=mk(body=4, fighting=3, melee_spec=1), d=mk(body=3, acrobatics=2, armour=1), seed=17)
    opt = _opt(rules, b, "sword")
    n = 4000
    hit = hurt = 0
    choose = answer({"defence": "dodge body", "dodge_move": "stay"}, b)
    fresh = b.u["d"].health  # frozen: restored whole before each attack
    for i in range(n):
        b.round = i + 1
        b.u["d"].ap = ActionPoints(4, b.u["d"].ap.maximum)
        b.u["d"].health = fresh
        start = len(b.events)
        run_flow(rules.attack(b, Attack("a", "d", "sword")), choose)
        new = b.events[start:]
        hit += any(e["type"] == "attack" and e["hit"] for e in new)
        hurt += any(e["type"] == "damage" for e in new)
    assert abs(hit / n - opt.p_success) <= bound(opt.p_success, n)
    assert abs(hurt / n - opt.detail["p_hurt"]) <= bound(opt.detail["p_hurt"], n)
    assert opt.detail["target_dodge_dice"] == 5 and p_at_least(5, 1) > 0
