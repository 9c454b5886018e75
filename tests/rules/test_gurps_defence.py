"""GURPS active defence scores and the conditions that forbid them.

Cites shared/rules/gurps-active-defense.txt for every number: Dodge = Basic
Speed + 3 - encumbrance (+ Enhanced Dodge), Vehicular Dodge, Parry = 3 + half
skill + weapon bonus, Block = 3 + half Shield skill, retreat +3/+1/+3 fencing,
dodge-and-drop +3, Acrobatic Dodge +2/-2, multiple parries -4/-2/-1, off hand
-2, thrown -1/-2, bare hands -3, no defence when unaware, unconscious or
immobilized. Posture (B551), side arc -2, stun -4 and shield DB are the standard
GURPS numbers the ruleset documents.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from components.sight import Arc
from components.spatial import Posture
from game.dice.gurps import p_success
from game.rules.gurps.defence import (
    BARE_HANDS,
    best_stages,
    defence_choices,
    landing_pmf,
    no_defence_reason,
    reach_limit_yards,
    retreat_block_reason,
)
from game.rules.gurps.ruleset import GurpsRuleset
from game.rules.gurps.state import update_defence
from game.rules.gurps.stats import GurpsStats
from tests.rules.test_gurps_common import (
    BOW,
    SWORD,
    attack_info,
    choices_by_label,
    duel,
    mk,
    profiles,
    set_hp,
    set_status,
)


@pytest.mark.parametrize(
    ("profile", "dodge", "parries", "block"),
    [
        # Dodge = floor(Basic Speed) + 3 - encumbrance (+ Enhanced Dodge); Parry = 3 + skill/2 + bonus.
        ("trooper", 7, {"broadsword": 9}, None),  # Speed 5.5, enc 1; Broadsword-12
        ("recruit", 7, {"shortsword": 8}, None),  # Speed 5, enc 1; Shortsword-10
        ("veteran", 8, {"broadsword": 10}, None),  # Speed 6.25, enc 1; Broadsword-15
        ("swashbuckler", 10, {"rapier": 10}, None),  # Speed 6.25 + Enhanced Dodge 1; Rapier-15
        ("heavy", 6, {"axe": 9}, 9),  # Speed 5.75, enc 2; Axe/Mace-13; Shield-13
        ("marksman", 8, {"knife": 7}, None),  # Speed 5.5; Knife-10 with parry -1
    ],
)
def test_archetype_scores(profile: str, dodge: int, parries: dict[str, int], block: int | None) -> None:
    s = profiles()[profile]
    assert s.dodge == dodge
    for name, parry in parries.items():
        w = s.weapon(name)
        assert 3 + s.skills[w.skill] // 2 + (w.parry or 0) == parry
    assert s.block_score() == block


def test_vehicular_dodge_text_example() -> None:
    # Driving (Motorcycle)-14 on a Handling +1 motorcycle: Dodge 8 (text).
    s = mk(vehicle_skill=14, vehicle_handling=1)
    assert s.dodge == 8
    assert mk(vehicle_skill=14, vehicle_handling=1, enhanced_dodge=1).dodge == 8  # ED is the operator's
    assert mk(vehicle_skill=9, vehicle_handling=-2).dodge == 2


@pytest.mark.parametrize(
    ("dx", "ht", "enc", "ed", "dodge"),
    [(10, 10, 0, 0, 8), (12, 11, 0, 0, 8), (12, 12, 0, 0, 9), (12, 12, 3, 0, 6), (12, 12, 3, 2, 8)],
)
def test_dodge_formula(dx: int, ht: int, enc: int, ed: int, dodge: int) -> None:
    assert mk(dx=dx, ht=ht, encumbrance=enc, enhanced_dodge=ed).dodge == dodge


def _dodge(b, uid="d", attacker="a", weapon="sword") -> int:  # type: ignore[no-untyped-def]
    return choices_by_label(b, uid, attack_info(b, attacker, uid, weapon))["dodge"].eff


@pytest.mark.parametrize(
    ("posture", "mod"),
    [
        (Posture.STANDING, 0),
        (Posture.CROUCHING, 0),
        (Posture.KNEELING, -2),
        (Posture.SITTING, -2),
        (Posture.CRAWLING, -3),
        (Posture.PRONE, -3),
    ],
)
def test_posture_defence_modifier(posture: Posture, mod: int) -> None:
    _, b = duel()
    b.u["d"].posture = posture
    assert _dodge(b) == 8 + mod


def test_side_arc_stun_and_shield_db() -> None:
    shield = mk(shield={"name": "shield", "skill": "Shield", "db": 2}, extra_skills={"Shield": 12})
    _, b = duel(d=shield)
    assert _dodge(b) == 8 + 2  # DB from the front
    b.u["d"].facing = 60.0  # attacker now 120 degrees off its facing: side arc
    assert b.sight("a", "d").arc == Arc.SIDE
    assert _dodge(b) == 8 - 2  # side arc -2, no DB
    set_status(b, "d", "stunned")
    assert _dodge(b) == 8 - 2 - 4


def test_dodge_halved_below_a_third_of_hp() -> None:
    _, b = duel()
    set_hp(b, "d", 3)  # 3 * 3 < 10
    assert _dodge(b) == 4
    set_hp(b, "d", 4)
    assert _dodge(b) == 8


@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        ("rear", "unaware (attacked from the rear arc)"),
        ("blind", "unaware (cannot see the attacker)"),
        ("unconscious", "unconscious"),
        ("immobilized", "immobilized"),
    ],
)
def test_no_active_defence(setup: str, reason: str) -> None:
    _, b = duel()
    if setup == "rear":
        b.u["d"].facing = 0.0
    elif setup == "blind":
        b.set_sight("d", "a", visible=False)
    else:
        set_status(b, "d", setup)
    info = attack_info(b, "a", "d", "sword")
    assert no_defence_reason(b, "d", info) == reason
    assert defence_choices(b, "d", info) == []


def test_retreat_bonuses() -> None:
    boxer = mk(
        extra_skills={"Boxing": 12, "Rapier": 12},
        weapons=[{"name": "rapier", "skill": "Rapier", "damage": "thr+1 imp"}],
    )
    _, b = duel(d=boxer)
    c = choices_by_label(b, "d", attack_info(b, "a", "d", "sword"))
    assert c["dodge and retreat"].eff == c["dodge"].eff + 3
    assert c["parry (rapier) and retreat"].eff == c["parry (rapier)"].eff + 3  # fencing weapon
    assert c[f"parry ({BARE_HANDS}) and retreat"].eff == c[f"parry ({BARE_HANDS})"].eff + 3  # Boxing
    _, b = duel(d=mk(shield={"skill": "Shield"}, extra_skills={"Shield": 12}, weapons=[SWORD]))
    c = choices_by_label(b, "d", attack_info(b, "a", "d", "sword"))
    assert c["parry (sword) and retreat"].eff == c["parry (sword)"].eff + 1
    assert c["block and retreat"].eff == c["block"].eff + 1


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ("ranged", "retreat only against melee attacks"),
        ("retreated", "already retreated this turn"),
        ("interposed", "moved to interpose (sacrificial dodge) this turn"),
        ("sitting", "cannot retreat while sitting"),
        ("kneeling", "cannot retreat while kneeling"),
        ("stunned", "cannot retreat while stunned"),
    ],
)
def test_retreat_forbidden(change: str, reason: str) -> None:
    _, b = duel()
    weapon = "bow" if change == "ranged" else "sword"
    u = b.u["d"]
    if change == "retreated":
        update_defence(b, "d", retreated=True)
    elif change == "interposed":
        update_defence(b, "d", interposed=True)
    elif change in ("sitting", "kneeling"):
        u.posture = Posture(change)
    elif change == "stunned":
        set_status(b, "d", "stunned")
    info = attack_info(b, "a", "d", weapon)
    assert retreat_block_reason(b, "d", info) == reason
    assert not any(c.retreat for c in defence_choices(b, "d", info))


def test_retreat_while_lying_down_is_by_rolling_over() -> None:
    # The text: lying down, a defender retreats by rolling over on the ground, no dice. The prone
    # -3 applies, the retreat's +3 too.
    _, b = duel(d=mk(dx=11, extra_skills={"Acrobatics": 13}))
    b.u["d"].posture = Posture.PRONE
    c = choices_by_label(b, "d", attack_info(b, "a", "d", "sword"))
    assert "dodge and retreat (roll)" not in c
    assert c["dodge and retreat"].retreat_roll is None
    assert c["dodge and retreat"].eff == 8 - 3 + 3  # Dodge 8, prone -3, retreat +3


def test_ground_retreat_roll_option() -> None:
    # Option ground_retreat_roll: a roll against the better of DX and Acrobatics first;
    # failure: no bonus, no move.
    _, b = duel(d=mk(dx=11, extra_skills={"Acrobatics": 13}))
    b.u["d"].posture = Posture.PRONE
    info = attack_info(b, "a", "d", "sword")
    c = {x.label().rsplit(" ", 2)[0]: x for x in defence_choices(b, "d", info, ground_roll=True)}
    c = c["dodge and retreat (roll)"]
    assert c.retreat_roll == 13
    eff = 8 - 3  # Dodge 8, prone -3
    expected = p_success(13) * p_success(eff + 3) + (1 - p_success(13)) * p_success(eff)
    assert c.p_success == pytest.approx(expected, abs=1e-15)
    rules = GurpsRuleset({"ground_retreat_roll": True})
    assert any(x.retreat_roll == 13 for x in rules.defences(b, "d", info))
    assert not any(x.retreat_roll for x in GurpsRuleset().defences(b, "d", info))


def test_acrobatic_dodge() -> None:
    _, b = duel(d=mk(extra_skills={"Acrobatics": 12}))
    c = choices_by_label(b, "d", attack_info(b, "a", "d", "sword"))
    acro = c["acrobatic dodge"]
    exact = Fraction(160, 216) * Fraction(p_success(10)).limit_denominator(216) + Fraction(
        56, 216
    ) * Fraction(p_success(6)).limit_denominator(216)
    assert acro.p_success == pytest.approx(float(exact), abs=1e-15)
    assert "acrobatic dodge and retreat" in c  # may combine with a retreat (text)
    update_defence(b, "d", acrobatic=True)  # once per turn
    assert "acrobatic dodge" not in choices_by_label(b, "d", attack_info(b, "a", "d", "sword"))
    _, b = duel()  # no Acrobatics skill: no acrobatic dodge
    assert not any(c.acrobatic for c in defence_choices(b, "d", attack_info(b, "a", "d", "sword")))


def test_dodge_and_drop_only_against_ranged() -> None:
    _, b = duel(dist=10.0)
    ranged = choices_by_label(b, "d", attack_info(b, "a", "d", "bow"))
    assert ranged["dodge and drop"].eff == ranged["dodge"].eff + 3
    melee_b = duel()[1]
    assert not any(c.drop for c in defence_choices(melee_b, "d", attack_info(melee_b, "a", "d", "sword")))
    b.u["d"].posture = Posture.PRONE  # already down: nothing to drop to
    assert not any(c.drop for c in defence_choices(b, "d", attack_info(b, "a", "d", "bow")))


def test_earlier_retreat_and_drop_carry_over() -> None:
    # Text: the retreating bonus applies "on all active defense rolls against all of his attacks
    # until your next turn"; a dodge and drop "applies to all of your defenses against one foe".
    _, b = duel()
    update_defence(b, "d", retreat_bonus_vs=frozenset({"a"}))
    c = choices_by_label(b, "d", attack_info(b, "a", "d", "sword"))
    assert c["dodge"].eff == 8 + 3 and c["parry (sword)"].eff == 9 + 1
    _, b = duel(dist=10.0)
    update_defence(b, "d", retreat_bonus_vs=frozenset({"a"}))
    assert choices_by_label(b, "d", attack_info(b, "a", "d", "bow"))["dodge"].eff == 8 + 3  # all his attacks
    _, b = duel(dist=10.0)
    update_defence(b, "d", drop_bonus_vs=frozenset({"a"}))
    assert choices_by_label(b, "d", attack_info(b, "a", "d", "bow"))["dodge"].eff == 8 + 3


@pytest.mark.parametrize(
    ("fencing", "master", "parries", "mod"),
    [
        (False, False, 1, -4),
        (False, False, 2, -8),
        (True, False, 1, -2),
        (False, True, 1, -2),
        (True, True, 1, -1),
        (True, True, 3, -3),
    ],
)
def test_multiple_parries(fencing: bool, master: bool, parries: int, mod: int) -> None:
    skill = "Rapier" if fencing else "Broadsword"
    d = mk(
        trained_by_a_master=master,
        extra_skills={"Rapier": 12},
        weapons=[{"name": "blade", "skill": skill, "damage": "thr imp"}],
    )
    _, b = duel(d=d)
    update_defence(b, "d", parries={"blade": parries})
    assert choices_by_label(b, "d", attack_info(b, "a", "d", "sword"))["parry (blade)"].eff == 9 + mod


def test_off_hand_and_ambidexterity() -> None:
    off = {**SWORD, "name": "left", "off_hand": True}
    _, b = duel(d=mk(weapons=[SWORD, off]))
    c = choices_by_label(b, "d", attack_info(b, "a", "d", "sword"))
    assert c["parry (left)"].eff == c["parry (sword)"].eff - 2
    _, b = duel(d=mk(weapons=[SWORD, off], ambidexterity=True))
    c = choices_by_label(b, "d", attack_info(b, "a", "d", "sword"))
    assert c["parry (left)"].eff == c["parry (sword)"].eff


@pytest.mark.parametrize(("weight", "mod"), [(2.0, -1), (1.0, -2), (0.5, -2)])
def test_parry_thrown_weapons(weight: float, mod: int) -> None:
    knife = {
        "name": "knife",
        "skill": "Bow",
        "kind": "thrown",
        "damage": "thr imp",
        "max_range": 15,
        "weight": weight,
    }
    _, b = duel(a=mk(weapons=[SWORD, knife]), dist=5.0)
    c = choices_by_label(b, "d", attack_info(b, "a", "d", "knife"))
    assert c["parry (sword)"].eff == 9 + mod


def test_parry_missile_only_within_reach() -> None:
    _, b = duel(dist=1.0)
    assert "parry (sword)" in choices_by_label(b, "d", attack_info(b, "a", "d", "bow"))
    _, b = duel(dist=3.0)
    assert not any(c.kind == "parry" for c in defence_choices(b, "d", attack_info(b, "a", "d", "bow")))
    assert reach_limit_yards(1) == 0.5 and reach_limit_yards(0) == 0.5 and reach_limit_yards(2) == 1.5


def test_unbalanced_weapon_cannot_parry_after_attacking() -> None:
    axe = {"name": "axe", "skill": "Broadsword", "damage": "sw+2 cut", "unbalanced": True}
    _, b = duel(d=mk(weapons=[axe, SWORD]))
    info = attack_info(b, "a", "d", "sword")
    assert "parry (axe)" in choices_by_label(b, "d", info)
    b.u["d"].turn = replace(b.u["d"].turn, attacked_with=frozenset({"axe"}))
    c = choices_by_label(b, "d", info)
    assert "parry (axe)" not in c and "parry (sword)" in c  # the other hand still parries
    # A balanced weapon still parries after attacking.
    b.u["d"].turn = replace(b.u["d"].turn, attacked_with=frozenset({"sword"}))
    assert "parry (sword)" in choices_by_label(b, "d", info)


def test_weapon_parry_bonus() -> None:
    # The text: long, well-balanced weapons get +1 or +2 to parry.
    staff = {"name": "staff", "skill": "Broadsword", "damage": "sw+2 cr", "reach": 2, "parry": 2, "hands": 2}
    _, b = duel(d=mk(weapons=[staff]))
    assert choices_by_label(b, "d", attack_info(b, "a", "d", "sword"))["parry (staff)"].eff == 3 + 6 + 2


def test_weapon_that_cannot_parry() -> None:
    _, b = duel()
    assert not any(c.weapon == "bow" for c in defence_choices(b, "d", attack_info(b, "a", "d", "sword")))


@pytest.mark.parametrize(
    ("attack", "skills", "expected"),
    [
        # Bare hands: Parry 3 + DX/2 (or Brawling etc. if higher), -3 vs weapons unless thrust/Judo/Karate.
        ("swing", {}, 3 + 5 - 3),
        ("thrust", {}, 3 + 5),
        ("swing", {"Judo": 12}, 3 + 6),
        ("swing", {"Brawling": 14}, 3 + 7 - 3),
        ("punch", {}, 3 + 5),
    ],
)
def test_bare_handed_parry(attack: str, skills: dict[str, int], expected: int) -> None:
    weapons: dict[str, dict[str, Any]] = {
        "swing": SWORD,
        "thrust": {"name": "spear", "skill": "Broadsword", "damage": "thr+2 imp"},
        "punch": {"name": "fist", "skill": "Broadsword", "damage": "thr-1 cr", "unarmed": True, "reach": 0},
    }
    w = weapons[attack]
    _, b = duel(a=mk(weapons=[w]), d=mk(weapons=[BOW], extra_skills=skills))
    c = choices_by_label(b, "d", attack_info(b, "a", "d", w["name"]))
    assert c[f"parry ({BARE_HANDS})"].eff == expected


def test_wrestling_parries_only_with_both_hands_free() -> None:
    # The text: Sumo Wrestling and Wrestling parry too, with both hands.
    assert ("Wrestling", 3 + 7) in mk(weapons=[BOW], extra_skills={"Wrestling": 14}).bare_hand_parry()
    assert ("Sumo Wrestling", 3 + 6) in mk(
        weapons=[BOW], extra_skills={"Sumo Wrestling": 12}
    ).bare_hand_parry()
    one_hand = mk(extra_skills={"Wrestling": 14})  # the sword fills a hand
    assert all(skill != "Wrestling" for skill, _ in one_hand.bare_hand_parry())
    _, b = duel(d=mk(weapons=[BOW], extra_skills={"Wrestling": 14}))
    c = choices_by_label(b, "d", attack_info(b, "a", "d", "sword"))
    assert c[f"parry ({BARE_HANDS})"].parry_skill == "Wrestling"
    assert c[f"parry ({BARE_HANDS})"].eff == 3 + 7 - 3  # -3 against a weapon, as for any but Judo/Karate


def test_no_free_hand_no_bare_handed_parry() -> None:
    heavy = profiles()["heavy"]
    assert not heavy.has_free_hand
    _, b = duel(d=heavy)
    assert not any(c.weapon == BARE_HANDS for c in defence_choices(b, "d", attack_info(b, "a", "d", "sword")))


@pytest.mark.parametrize(
    ("kind", "projectile", "allowed"),
    [
        ("melee", None, True),
        ("thrown", None, True),
        ("missile", "muscle", True),
        ("missile", "bullet", False),
        ("missile", "beam", False),
    ],
)
def test_block_against(kind: str, projectile: str | None, allowed: bool) -> None:
    w: dict[str, object] = {"name": "w", "skill": "Bow", "kind": kind, "damage": "1d pi"}
    if kind != "melee":
        w["max_range"] = 100
    if projectile:
        w["projectile"] = projectile
    shield = mk(shield={"skill": "Shield", "db": 1}, extra_skills={"Shield": 12}, weapons=[SWORD])
    _, b = duel(a=mk(weapons=[w]), d=shield, dist=5.0 if kind != "melee" else 1.0)
    c = choices_by_label(b, "d", attack_info(b, "a", "d", "w"))
    assert ("block" in c) is allowed
    if allowed:
        assert c["block"].eff == 3 + 12 // 2 + 1


def test_block_once_per_turn() -> None:
    _, b = duel(d=mk(shield={"skill": "Shield"}, extra_skills={"Shield": 12}))
    update_defence(b, "d", blocked=True)
    assert not any(c.kind == "block" for c in defence_choices(b, "d", attack_info(b, "a", "d", "sword")))


def test_all_out_defence_second_defence() -> None:
    # The text: a second defence if the first fails; one Dodge roll per attack; a parry with the
    # same weapon again takes the multiple-parry penalty.
    _, b = duel()
    info = attack_info(b, "a", "d", "sword")
    rest = defence_choices(b, "d", info, exclude=frozenset({("dodge", None)}))
    assert rest and all(c.kind != "dodge" for c in rest)
    parry = next(c for c in defence_choices(b, "d", info, allow_retreat=False) if c.kind == "parry")
    stages = best_stages([parry], double=True)
    assert [s.key for s in stages] == [("parry", "sword"), ("parry", "sword")]
    assert stages[1].eff == parry.eff - 4
    assert best_stages([parry], double=True, different=True) == [parry]  # option double_defence_different
    dodge = next(c for c in defence_choices(b, "d", info, allow_retreat=False) if c.kind == "dodge")
    assert best_stages([dodge], double=True) == [dodge]
    stages = best_stages(defence_choices(b, "d", info), double=True, different=True)
    assert len(stages) == 2 and stages[0].key != stages[1].key


def test_landing_pmf_double_defence_exact() -> None:
    _, b = duel()
    info = attack_info(b, "a", "d", "sword")
    stages = best_stages(defence_choices(b, "d", info, allow_retreat=False), double=True)
    p1, p2 = stages[0].p_success, stages[1].p_success
    assert landing_pmf(1, stages)[1] == pytest.approx((1 - p1) * (1 - p2), abs=1e-15)


def test_stats_validation() -> None:
    with pytest.raises(ValueError, match="not in skills"):
        GurpsStats.model_validate({"weapons": [SWORD]})
    with pytest.raises(ValueError, match="unique"):
        mk(weapons=[SWORD, SWORD])
    with pytest.raises(ValueError, match="max_range"):
        mk(weapons=[{**BOW, "max_range": None}])
    with pytest.raises(ValueError, match="damage"):
        mk(weapons=[{**SWORD, "damage": "lots"}])
    with pytest.raises(ValueError, match="Extra inputs"):
        mk(charisma=3)


def test_fast_built_choices_equal_dataclass_construction() -> None:
    # _build skips the frozen dataclass's __init__: every field, its order and the variants must
    # still match what DefenceChoice(...) and dataclasses.replace give.
    from dataclasses import FrozenInstanceError, fields, replace

    from game.core.commands import Modifier
    from game.rules.gurps.defence import DefenceChoice, _choice, _make

    mods = [Modifier("Dodge", 8, "defence"), Modifier("side arc", -2, "defence")]
    plain = _choice("parry", "sword", mods, parry_skill="Brawling")
    ref = DefenceChoice("parry", "sword", 6, tuple(mods), parry_skill="Brawling")
    assert plain == ref and list(vars(plain)) == [f.name for f in fields(DefenceChoice)]
    extra = (Modifier("retreat", 3, "defence"),)
    variant = _make(plain, retreat=True, retreat_roll=12, retreat_bonus=3, extra=extra, add=3)
    assert variant == replace(
        ref, eff=9, modifiers=ref.modifiers + extra, retreat=True, retreat_roll=12, retreat_bonus=3
    )
    assert list(vars(variant)) == list(vars(ref)) and plain.retreat is False
    with pytest.raises(FrozenInstanceError):
        variant.eff = 1  # type: ignore[misc]
    with pytest.raises(AssertionError):
        _make(plain, no_such_field=True)


def test_derived_scores_match_the_stat_block() -> None:
    # derived() memoises a block's scores by identity: it must give what the block's own methods
    # give, for every profile and for an equal but distinct block.
    from game.rules.gurps.stats import derived

    blocks = [*profiles().values(), mk(extra_skills={"Acrobatics": 14, "Judo": 13}), mk(vehicle_skill=14)]
    for s in [*blocks, blocks[0].model_copy()]:
        for _ in range(2):  # the second read comes from the memo
            dv = derived(s)
            assert dv.dodge == s.dodge and dv.encumbered_move == s.encumbered_move
            assert dv.has_free_hand == s.has_free_hand and dv.block == s.block_score()
            assert dv.bare_hand_parry == tuple(s.bare_hand_parry())
            assert dv.ground_retreat_skill == s.ground_retreat_skill()
    assert derived(mk(extra_skills={"Acrobatics": 14})).ground_retreat_skill == 14


def test_memoised_bare_hand_parry_follows_the_situation() -> None:
    # defence_choices memoises which bare-handed skill wins per block and situation. Whatever the
    # memo already holds, every situation must get the choices a cold memo would give.
    import game.rules.gurps.defence as gd

    spear = {"name": "spear", "skill": "Broadsword", "damage": "thr+2 imp"}
    fist = {"name": "fist", "skill": "Broadsword", "damage": "thr-1 cr", "unarmed": True, "reach": 0}
    knife = {"name": "knife", "skill": "Broadsword", "kind": "thrown", "damage": "thr imp", "max_range": 10}
    # Retreating from the ground is a DX-8 roll: lying down, Brawling's +1 beats Boxing's +3. The
    # shield's DB (front only) makes crawling in front and standing in the side arc both -2.
    defender = mk(
        dx=8,
        weapons=[BOW],
        shield={"db": 1},
        extra_skills={"Brawling": 14, "Judo": 12, "Boxing": 13, "Shield": 10},
    )
    _, b = duel(a=mk(weapons=[SWORD, spear, fist, knife]), d=defender)
    situations = [
        (weapon, arc, allow, posture, used, carried)
        for weapon in ("sword", "spear", "fist", "knife")
        for arc in (Arc.FRONT, Arc.SIDE)
        for allow in (True, False)
        for posture in (Posture.STANDING, Posture.CRAWLING, Posture.PRONE, Posture.KNEELING)
        for used in (0, 1, 3)
        for carried in (False, True)
    ]

    def bare(situation: tuple[str, Arc, bool, Posture, int, bool]) -> list[Any]:
        weapon, arc, allow, posture, used, carried = situation
        b.u["d"].facing = 180.0 if arc == Arc.FRONT else 60.0  # the attacker is due west
        b.u["d"].posture = posture
        carry = frozenset({"a"} if carried else ())
        update_defence(b, "d", parries={BARE_HANDS: used}, retreat_bonus_vs=carry)
        info = attack_info(b, "a", "d", weapon)
        return [c for c in defence_choices(b, "d", info, allow_retreat=allow) if c.weapon == BARE_HANDS]

    cold = {}
    for s in situations:
        gd._BARE_HAND_BEST._memo.clear()
        cold[s] = bare(s)
    assert {c[0].parry_skill for c in cold.values()} == {"DX", "Brawling", "Judo", "Boxing"}
    for s in reversed(situations):
        assert bare(s) == cold[s], s
