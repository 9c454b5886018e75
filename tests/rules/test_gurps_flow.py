"""GURPS attack flow, reactions, wounds and the turn economy, driven through FakeBattle.

Procedures of shared/rules/gurps-active-defense.txt: the defence comes after
the attack roll; Sacrificial Dodge is announced before the target defends
(success: the friend takes the hit; dodge-and-drop by 3+: nobody is hit; the
friend cannot retreat afterwards); retreat moves the defender and may be
followed with the attacker's unused step; dodge-and-drop leaves the defender
prone; All-Out Defence allows a second, different defence; parrying an unarmed
attack with a weapon may injure the attacker (-4 against Judo/Karate). Wounds
and the turn economy follow the standard GURPS rules documented in
docs/rulesets/gurps.md. Rolls are scripted (ScriptedDice) so every branch is
deterministic; one Monte Carlo run checks a mixed-odds defence.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from components.spatial import Posture
from components.state import ActionPoints, DefenceState, TurnState
from game.core.codec import decode, encode
from game.core.commands import Attack, Decision, Maneuver
from game.core.flow import Frame, advance
from game.dice.gurps import p_acrobatic_dodge, p_success
from game.rules.gurps.ruleset import GurpsRuleset
from game.rules.gurps.state import defence_record, turn_record, update_turn
from tests.rules.fakes import FakeBattle, run_flow
from tests.rules.fakes import mc_bound as bound
from tests.rules.test_gurps_common import (
    SWORD,
    ScriptedDice,
    chooser,
    duel,
    heal,
    mk,
    profiles,
    set_hp,
)


def script(b: FakeBattle, rolls: list[Any]) -> ScriptedDice:
    d = ScriptedDice(b, rolls)
    b.dice = d
    return d


def events(b: FakeBattle, kind: str) -> list[dict[str, Any]]:
    return [e for e in b.events if e["type"] == kind]


def attack(
    rules: GurpsRuleset, b: FakeBattle, weapon: str, answers: dict[str, str], target: str = "d"
) -> list[Decision]:
    return run_flow(rules.attack(b, Attack("a", target, weapon)), chooser(answers, b))


def test_retreat_moves_and_attacker_follows() -> None:
    rules, b = duel()
    dice = script(b, [10, 5])  # attack 10 vs 12: hit; dodge 5 vs 8+3: made
    seen = attack(rules, b, "sword", {"defence": "dodge and retreat", "follow": "follow"})
    assert [d.kind for d in seen] == ["defence", "follow"]
    assert b.pos("d") != (1.0, 0.0) and defence_record(b, "d").retreated
    assert "a" in defence_record(b, "d").retreat_bonus_vs
    assert events(b, "defence")[-1]["eff"] == 11
    assert b.turn("a").stepped and events(b, "step")
    assert not dice.script and not events(b, "damage")


def test_no_follow_after_the_step_is_used() -> None:
    rules, b = duel()
    b.u["a"].turn = replace(b.u["a"].turn, stepped=True)
    script(b, [10, 5])
    seen = attack(rules, b, "sword", {"defence": "dodge and retreat"})
    assert [d.kind for d in seen] == ["defence"]


def test_dodge_and_drop_leaves_the_defender_prone() -> None:
    rules, b = duel(dist=10.0)
    script(b, [8, 11])  # bow at 10 yd: skill 8; dodge 8 + 3 = 11
    attack(rules, b, "bow", {"defence": "dodge and drop"})
    ev = events(b, "defence")[-1]
    assert ev["eff"] == 11 and ev["success"] and ev["drop"]
    d = b.u["d"]
    assert d.posture == Posture.PRONE and "a" in defence_record(b, "d").drop_bonus_vs
    assert events(b, "drop_prone")
    # The new posture counts against this attack's damage only through its sight facts, read when
    # it began (the roll was made standing); a later attack sees the defender prone.
    assert all("target" not in m["source"] for m in events(b, "attack")[-1]["modifiers"])
    got = rules.attack_profile(b, "a", "d", b.stats("a").weapon("bow"), b.sight("a", "d"))
    assert not isinstance(got, str) and any(m.source == "target prone" for m in got[1])


def test_critical_hit_allows_no_defence() -> None:
    rules, b = duel()
    script(b, [3, 3, 10])  # critical; damage 1d+1 = 4 cut -> 6 injury (major wound); HT 10 made
    seen = attack(rules, b, "sword", {})
    assert seen == []
    assert events(b, "defence")[-1]["reason"] == "critical hit: no defence"
    assert b.u["d"].health.tracks["hp"] == 10 - 6


def test_all_out_defence_second_parry_with_the_same_weapon() -> None:
    # The text: a second defence if the first fails; the same weapon again is a further parry (-4).
    seen2: list[Decision] = []
    rules, b = duel(d=mk(weapons=[SWORD]))
    update_turn(b, "d", maneuver="all_out_defence")
    script(b, [10, 15, 5])  # hit; parry fails; parry again made

    def answer(d: Decision) -> Any:
        seen2.append(d)
        want = "parry (sword) 9" if len(seen2) == 1 else "parry (sword) 5"
        return next(o.command for o in d.options if o.label.startswith(want))

    run_flow(rules.attack(b, Attack("a", "d", "sword")), answer)
    assert [e["kind"] for e in events(b, "defence")] == ["parry", "parry"]
    assert events(b, "defence")[-1]["eff"] == 5 and not events(b, "damage")
    # Option double_defence_different: the second must be another defence.
    _, b = duel(d=mk(weapons=[SWORD]))
    rules = b.ruleset = GurpsRuleset({"double_defence_different": True})
    update_turn(b, "d", maneuver="all_out_defence")
    script(b, [10, 15, 1])  # hit; parry fails; no second defence; 1d+1 = 2 cut -> 3 injury
    seen = attack(rules, b, "sword", {"defence": "parry (sword)"})
    assert len(seen) == 2 and not any(o.label.startswith("parry (sword)") for o in seen[1].options)


def test_all_out_defence_second_different_defence() -> None:
    seen2: list[Decision] = []
    rules, b = duel()
    update_turn(b, "d", maneuver="all_out_defence")
    script(b, [10, 15, 5])  # hit; dodge fails; parry made

    def answer(d: Decision) -> Any:
        seen2.append(d)
        want = "dodge 8" if len(seen2) == 1 else "parry (sword) 9"
        return next(o.command for o in d.options if o.label.startswith(want))

    run_flow(rules.attack(b, Attack("a", "d", "sword")), answer)
    assert len(seen2) == 2
    assert not any(o.label.startswith("dodge") for o in seen2[1].options)
    assert [e["kind"] for e in events(b, "defence")] == ["dodge", "parry"]
    assert not events(b, "damage")


def _trio(
    d_pos: tuple[float, float] = (1.0, 0.0), f_pos: tuple[float, float] = (1.0, 1.0)
) -> tuple[GurpsRuleset, FakeBattle]:
    rules = GurpsRuleset()
    b = FakeBattle(rules)
    b.add("a", "red", (0.0, 0.0), mk())
    b.add("d", "blue", d_pos, mk(), facing=180.0)
    b.add("f", "blue", f_pos, mk(), facing=180.0)
    b.active = "a"
    return rules, b


def test_sacrificial_dodge_takes_the_hit() -> None:
    rules, b = _trio()
    script(b, [10, 8, 3, 10])  # hit; friend's Dodge 8 made; damage 1d+1 = 4 cut -> 6; major-wound HT
    seen = attack(rules, b, "sword", {"interpose": "sacrificial dodge"})
    assert [d.kind for d in seen] == ["interpose"]
    assert b.u["f"].health.tracks["hp"] == 4 and b.u["d"].health.tracks["hp"] == 10
    assert defence_record(b, "f").interposed
    assert events(b, "interpose")
    # Having moved, the friend cannot retreat before its next turn.
    from game.rules.gurps.defence import AttackInfo, retreat_block_reason

    info = AttackInfo("a", b.stats("a").weapon("sword"), b.sight("a", "f"))
    assert retreat_block_reason(b, "f", info) == "moved to interpose (sacrificial dodge) this turn"


def test_failed_sacrificial_dodge_target_still_defends() -> None:
    rules, b = _trio()
    script(b, [10, 12, 5])  # hit; friend fails; target's dodge made
    seen = attack(rules, b, "sword", {"interpose": "sacrificial dodge", "defence": "dodge 8"})
    assert [d.kind for d in seen] == ["interpose", "defence"]
    assert not events(b, "damage")


@pytest.mark.parametrize(("roll", "friend_hit"), [(8, False), (10, True)])
def test_sacrificial_dodge_and_drop(roll: int, friend_hit: bool) -> None:
    # Ranged: friend's Dodge 8 + 3 = 11; made by 3+ (roll 8): nobody is hit; else the friend is.
    rules, b = _trio(d_pos=(10.0, 0.0), f_pos=(10.0, 1.0))
    script(b, [8, roll, 3, 10])
    attack(rules, b, "bow", {"interpose": "sacrificial dodge and drop"})
    assert b.u["f"].posture == Posture.PRONE and b.u["d"].posture == Posture.PRONE
    assert (b.u["f"].health.tracks["hp"] < 10) is friend_hit
    assert b.u["d"].health.tracks["hp"] == 10


def test_acrobatic_sacrificial_dodge_rolls_acrobatics_first() -> None:
    # Text: a sacrificial dodge uses "the ordinary rules for a dodge" (not a retreat): an
    # Acrobatic Dodge may go with it, once per turn.
    rules = GurpsRuleset()
    b = FakeBattle(rules)
    b.add("a", "red", (0.0, 0.0), mk())
    b.add("d", "blue", (1.0, 0.0), mk(), facing=180.0)
    b.add("f", "blue", (1.0, 1.0), mk(extra_skills={"Acrobatics": 12}), facing=180.0)
    b.active = "a"
    script(b, [10, 9, 10, 3, 10])  # hit; Acrobatics 9 made (+2); Dodge 10 vs 8 + 2 made; damage; HT
    seen = attack(rules, b, "sword", {"interpose": "acrobatic sacrificial dodge 8"})
    opt = next(o for o in seen[0].options if o.label.startswith("acrobatic sacrificial dodge 8"))
    assert opt.p_success == pytest.approx(p_acrobatic_dodge(8, 12), abs=1e-15)
    check = events(b, "check")[0]
    assert check["unit"] == "f" and check["purpose"].startswith("Acrobatics roll") and check["success"]
    ev = events(b, "defence")[-1]
    assert ev["kind"] == "sacrificial dodge" and ev["acrobatic"] and ev["eff"] == 10 and ev["success"]
    assert ev["p_success"] == opt.p_success
    assert defence_record(b, "f").acrobatic and b.u["f"].health.tracks["hp"] < 10  # it took the hit
    assert b.events.index(check) < b.events.index(ev)


def test_interpose_options_give_the_exact_harm_odds() -> None:
    rules, b = _trio()
    set_hp(b, "d", 4)
    script(b, [10, 12, 5])  # hit; friend's sacrificial dodge fails; target dodges
    seen = attack(rules, b, "sword", {"interpose": "sacrificial dodge", "defence": "dodge 8"})
    detail = next(o for o in seen[0].options if o.label.startswith("sacrificial dodge")).detail
    # sw+1 cut at ST 10: 1d+1, DR 0, x1.5: injury 3 (roll 1), 4 (2), 6 (3), 7 (4), 9 (5), 10 (6)
    assert detail["p_down_friend"] == pytest.approx(5 / 6)  # the 4-HP target: a 2 or more
    assert detail["p_down_self"] == pytest.approx(1 / 6)  # the 10-HP friend: only a 6
    best = max(p_success(8), p_success(8 + 3))  # the target's Dodge 8, or with a retreat
    assert detail["p_friend_defends"] == pytest.approx(best)


def test_drop_interpose_needs_friend_within_a_step() -> None:
    rules, b = _trio(d_pos=(10.0, 0.0), f_pos=(5.0, 0.8))  # by the line of fire, far from the target
    script(b, [8, 1])  # hit; no defence; damage 1d-1 -> 1 imp -> 2
    seen = attack(rules, b, "bow", {"interpose": "do not", "defence": "no defence"})
    assert seen[0].kind == "interpose"
    assert not any("drop" in o.label for o in seen[0].options)


def test_parry_may_injure_an_unarmed_attacker() -> None:
    fist = {"name": "fist", "skill": "Brawling", "damage": "thr-1 cr", "unarmed": True, "reach": 0}
    rules, b = duel(a=mk(weapons=[fist], extra_skills={"Brawling": 12}))
    script(b, [10, 5, 12, 4, 10])  # hit; parry; Broadsword-12 made; damage 1d+1 = 5 cut -> 7; HT
    attack(rules, b, "fist", {"defence": "parry (sword)"})
    assert b.u["a"].health.tracks["hp"] == 10 - 7


def test_parry_injury_roll_is_minus_4_against_judo() -> None:
    throw = {"name": "judo", "skill": "Judo", "damage": "thr-1 cr", "unarmed": True, "reach": 0}
    rules, b = duel(a=mk(weapons=[throw], extra_skills={"Judo": 12}))
    script(b, [10, 5, 9])  # the injuring roll 9 fails against 12 - 4
    attack(rules, b, "judo", {"defence": "parry (sword)"})
    check = [e for e in events(b, "check") if "parry injures" in e["purpose"]]
    assert check[0]["eff"] == 8 and not check[0]["success"]
    assert b.u["a"].health.tracks["hp"] == 10


def test_block_and_parry_bookkeeping() -> None:
    shield = mk(shield={"skill": "Shield"}, extra_skills={"Shield": 12})
    rules, b = duel(d=shield)
    script(b, [10, 5, 10, 5])
    attack(rules, b, "sword", {"defence": "block 9"})
    assert defence_record(b, "d").blocked
    attack(rules, b, "sword", {"defence": "parry (sword) 9"})
    assert defence_record(b, "d").parries == {"sword": 1}


def test_acrobatic_dodge_flow() -> None:
    rules, b = duel(d=mk(extra_skills={"Acrobatics": 12}))
    script(b, [10, 15, 6])  # hit; Acrobatics fails (-2); dodge 6 vs 8 - 2: made
    attack(rules, b, "sword", {"defence": "acrobatic dodge 8"})
    ev = events(b, "defence")[-1]
    assert ev["eff"] == 6 and ev["success"] and defence_record(b, "d").acrobatic


def test_failed_retreat_from_the_ground() -> None:
    rules, b = duel()
    rules = b.ruleset = GurpsRuleset({"ground_retreat_roll": True})  # the option: roll to retreat
    b.u["d"].posture = Posture.PRONE
    script(b, [10, 14, 5])  # hit; DX 10 roll to retreat fails; dodge 5 vs 5 made
    attack(rules, b, "sword", {"defence": "dodge and retreat"})
    d = b.u["d"]
    assert (
        d.pos == (1.0, 0.0)
        and defence_record(b, "d").retreated
        and "a" not in defence_record(b, "d").retreat_bonus_vs
    )
    assert events(b, "defence")[-1]["eff"] == 5


def test_rapid_fire_dodge_removes_one_plus_margin() -> None:
    smg = {
        "name": "smg",
        "skill": "Bow",
        "kind": "missile",
        "damage": "1d pi",
        "max_range": 100,
        "rof": 5,
        "recoil": 1,
        "projectile": "bullet",
    }
    rules, b = duel(a=mk(weapons=[smg], extra_skills={"Bow": 13}), dist=2.0)
    # Skill 13 + 1 (RoF 5); roll 10: margin 4 -> 5 hits (max RoF). Dodge 8 roll 7: margin 1 -> 2 avoided.
    script(b, [10, 7, 2, 2, 2])
    attack(rules, b, "smg", {"defence": "dodge 8"})
    assert events(b, "attack")[0]["hits"] == 5
    assert events(b, "defence")[-1]["hits_stopped"] == 2
    assert len(events(b, "damage")) == 3


# ---- wounds -------------------------------------------------------------------------------


def test_shock_applies_to_next_turn_attacks() -> None:
    rules, b = duel()
    script(b, [10, 2])  # hit; no defence; damage 1d+1 = 3 cut -> 4
    attack(rules, b, "sword", {"defence": "no defence"})
    assert b.u["d"].health.tracks["hp"] == 6
    b.u["d"].turn = TurnState()
    assert rules.start_turn(b, "d")
    assert turn_record(b, "d").shock == 4
    b.active = "d"
    opts = {o.command.weapon: o for o in rules.attack_options(b, "d") if o.command.target == "a"}
    assert opts["sword"].detail["eff"] == 12 - 4


def test_major_wound_stuns_and_knocks_down() -> None:
    rules, b = duel()
    script(b, [15])  # HT roll 15 vs 10: failed by 5 -> knocked out
    set_hp(b, "d", 4)
    rules._wound_effects(b, "d", 6)
    assert "unconscious" in b.u["d"].health.status
    rules, b = duel()
    script(b, [12])  # failed by 2: stunned and knocked down
    set_hp(b, "d", 4)
    rules._wound_effects(b, "d", 6)
    assert "stunned" in b.u["d"].health.status and b.u["d"].posture == Posture.PRONE
    script(b, [10])  # the stun: the turn is lost, a HT roll recovers
    b.u["d"].turn = TurnState()
    assert not rules.start_turn(b, "d")
    assert "stunned" not in b.u["d"].health.status


@pytest.mark.parametrize(
    ("hp_after", "inj", "rolls", "dead"),
    [
        (-10, 11, [10], False),  # crossed -1xHP: HT roll made
        (-10, 11, [11], True),  # failed
        (-25, 6, [11], True),  # crossed -2xHP
        (-9, 3, [], False),  # no multiple crossed, no major wound
        (-50, 60, [], True),  # -5xHP: dead
    ],
)
def test_death_checks(hp_after: int, inj: int, rolls: list[int], dead: bool) -> None:
    rules, b = duel()
    script(b, [*rolls, 3])  # a trailing roll for the major-wound check if reached
    set_hp(b, "d", hp_after)
    rules._wound_effects(b, "d", inj)
    assert ("dead" in b.u["d"].health.status) is dead


@pytest.mark.parametrize(
    ("hp", "roll", "eff", "awake"),
    [(0, 10, 10, True), (-5, 10, 10, True), (-10, 10, 9, False), (-20, 8, 8, True)],
)
def test_consciousness_roll_at_zero_hp(hp: int, roll: int, eff: int, awake: bool) -> None:
    rules, b = duel()
    script(b, [roll])
    set_hp(b, "d", hp)
    assert rules.start_turn(b, "d") is awake
    assert events(b, "check")[-1]["eff"] == eff
    assert ("unconscious" in b.u["d"].health.status) is (not awake)


def test_injury_spoils_aim() -> None:
    rules, b = duel(dist=10.0)
    run_flow(rules.maneuver(b, Maneuver("a", "aim:bow:d")), lambda d: None)
    script(b, [10])
    rules._wound_effects(b, "a", 1)
    b.u["a"].turn = TurnState()
    rules.start_turn(b, "a")
    assert turn_record(b, "a").aim is None


# ---- turn economy --------------------------------------------------------------------------


def test_action_costs() -> None:
    rules, b = duel()
    assert rules.action_costs(b, "a") == {"attack": 1, "step": 0, "posture": 1, "face": 0}
    b.u["a"].turn = replace(b.u["a"].turn, stepped=True)
    assert rules.action_costs(b, "a") == {"attack": 1, "face": 0}  # no posture change after a step
    b.u["a"].turn = TurnState()
    update_turn(b, "a", maneuver="attack")
    b.u["a"].ap = ActionPoints(0, 1)
    assert rules.action_costs(b, "a") == {"attack": 1, "step": 0, "face": 0}  # the attack's free step
    b.u["a"].turn = TurnState()
    update_turn(b, "a", maneuver="move")
    assert rules.action_costs(b, "a") == {"attack": 1}


@pytest.mark.parametrize(
    ("posture", "hp", "ypi", "inches"),
    [
        (Posture.STANDING, 11, 1.0, 4.0),  # trooper: Move 5, encumbrance 1 -> 4
        (Posture.CROUCHING, 11, 1.0, 4 * 2 / 3),
        (Posture.KNEELING, 11, 1.0, 4 / 3),
        (Posture.CRAWLING, 11, 1.0, 4 / 3),
        (Posture.SITTING, 11, 1.0, 0.0),
        (Posture.PRONE, 11, 1.0, 1.0),
        (Posture.STANDING, 3, 1.0, 2.0),  # below 1/3 HP: Move halved
        (Posture.STANDING, 11, 2.0, 2.0),  # 4 yards at 2 yards per inch
    ],
)
def test_move_allowance(posture: Posture, hp: int, ypi: float, inches: float) -> None:
    rules, b = duel(a=profiles()["trooper"], ypi=ypi)
    b.u["a"].posture = posture
    set_hp(b, "a", hp)
    assert rules.inches_per_ap(b, "a") == pytest.approx(inches)


def test_move_cost_and_step_budget() -> None:
    rules, b = duel(a=profiles()["trooper"])
    assert rules.move_ap_cost(b, "a", 4.0) == 1
    assert rules.move_ap_cost(b, "a", 4.1) is None
    rules.on_moved(b, "a", "step", 1.0)
    assert rules.move_ap_cost(b, "a", 3.5) is None and rules.move_ap_cost(b, "a", 3.0) == 1
    rules.on_moved(b, "a", "move", 3.0)
    assert turn_record(b, "a").maneuver == "move"


@pytest.mark.parametrize(
    ("frm", "to", "ok"),
    [
        (Posture.PRONE, Posture.STANDING, False),
        (Posture.CRAWLING, Posture.CROUCHING, False),
        (Posture.PRONE, Posture.KNEELING, True),
        (Posture.STANDING, Posture.PRONE, True),
        (Posture.KNEELING, Posture.STANDING, True),
        (Posture.STANDING, Posture.STANDING, False),
    ],
)
def test_posture_changes(frm: Posture, to: Posture, ok: bool) -> None:
    rules, b = duel()
    b.u["a"].posture = frm
    assert rules.posture_allowed(b, "a", to) is ok


def test_initiative_by_basic_speed_then_dx() -> None:
    rules = GurpsRuleset()
    b = FakeBattle(rules, seed=3)
    b.add("slow", "red", (0, 0), mk(dx=10, ht=10))
    b.add("fast", "red", (2, 0), mk(dx=12, ht=12))
    b.add("deft", "blue", (4, 0), mk(dx=11, ht=9, basic_speed=6.0))
    b.add("tie1", "blue", (6, 0), mk())
    order = rules.initiative(b, b.units())
    assert order[:2] == ["fast", "deft"] and set(order[2:]) == {"slow", "tie1"}
    assert len([e for e in b.events if e["type"] == "roll"]) == 2  # only the tie rolled


def test_setup_and_all_out_defence_maneuver() -> None:
    rules, b = duel()
    setup = rules.setup_unit(profiles()["heavy"])
    assert setup.ap_max == 1 and setup.health.tracks == {"hp": 13}
    opts = {o.command.name for o in rules.maneuver_options(b, "a")}
    assert "all_out_defence" in opts and "aim:bow:d" in opts
    run_flow(rules.maneuver(b, Maneuver("a", "all_out_defence")), lambda d: None)
    assert b.ap("a").current == 0 and turn_record(b, "a").maneuver == "all_out_defence"
    assert rules.maneuver_options(b, "a") == [] and rules.attack_options(b, "a") == []
    with pytest.raises(ValueError):
        run_flow(rules.maneuver(b, Maneuver("a", "dance")), lambda d: None)


def test_monte_carlo_mixed_defence_odds() -> None:
    # Lying down with Acrobatics, under the ground_retreat_roll option: an acrobatic dodge with a
    # retreat needs two rolls before the Dodge.
    _, b = duel(d=mk(dx=11, extra_skills={"Acrobatics": 12}), seed=99)
    rules = b.ruleset = GurpsRuleset({"ground_retreat_roll": True})
    want = "acrobatic dodge and retreat (roll)"
    n = 2000
    made = 0
    p = None
    for _ in range(n):
        u = b.u["d"]
        u.pos, u.posture, u.defence = (1.0, 0.0), Posture.PRONE, DefenceState()
        heal(b, "d")
        b.u["a"].turn = TurnState(stepped=True)
        start = len(b.events)
        seen = run_flow(rules.attack(b, Attack("a", "d", "sword")), chooser({"defence": want}, b))
        if seen:
            opt = next(o for o in seen[0].options if o.label.startswith(want))
            p = opt.p_success
            made += next(e for e in b.events[start:] if e["type"] == "defence")["success"]
    assert p is not None
    trials = sum(1 for e in b.events if e["type"] == "attack" and e["hit"] and e["result"] == "success")
    assert abs(made / trials - p) <= bound(p, trials)


def test_no_interpose_from_far_or_unaware_friends() -> None:
    rules, b = _trio(f_pos=(5.0, 5.0))  # more than a step from the line of fire
    script(b, [10, 5])
    seen = attack(rules, b, "sword", {"defence": "dodge 8"})
    assert [d.kind for d in seen] == ["defence"]
    rules, b = _trio()
    b.u["f"].facing = 45.0  # the attacker is in the friend's rear arc: unaware
    script(b, [10, 5])
    seen = attack(rules, b, "sword", {"defence": "dodge 8"})
    assert [d.kind for d in seen] == ["defence"]


# ---- the flow as data ----------------------------------------------------------------------


def _roundtrip(v: Any) -> Any:
    return decode(json.loads(json.dumps(encode(v))))


def _options(d: Decision) -> list[tuple[Any, ...]]:
    return [(o.command, o.label, o.p_success, o.modifiers, o.point_field, o.detail) for o in d.options]


def drive(rules: GurpsRuleset, b: FakeBattle, frame: Frame, choose: Any) -> list[Decision]:
    """Run a flow as the engine does, checking at every decision that what a snapshot writes of it
    (the frames, the decision's arguments, the records) reads back equal, and that the decision
    built again from the read-back arguments (as after a restore) is the one asked."""
    frames: tuple[Frame, ...] = (frame,)
    answer: Any = None
    seen: list[Decision] = []
    while True:
        frames, asking = advance(rules, b, frames, answer)
        if asking is None:
            return seen
        assert _roundtrip(frames) == frames
        for uid in b.units(alive=False):
            for record in (b.turn(uid).record, b.defence(uid).record):
                assert _roundtrip(record) == record
        assert _roundtrip(b.rules_state) == b.rules_state
        decision = rules.ask(b, asking.builder, _roundtrip(asking.args))
        if asking.decision is not None:
            assert _options(decision) == _options(asking.decision)
            assert (decision.unit, decision.kind, decision.context) == (
                asking.decision.unit,
                asking.decision.kind,
                asking.decision.context,
            )
        seen.append(decision)
        answer = choose(decision)


def test_each_friend_in_turn_may_interpose() -> None:
    # Two friends beside the target, the same distance from it: asked in scenario order; the first
    # declines, the second takes the hit (the steps carry the friends and which one is asked).
    rules, b = _trio()
    b.add("g", "blue", (1.0, -1.0), mk(), facing=180.0)
    script(b, [10, 8, 3, 10])  # hit; g's Dodge 8 made; damage 1d+1 = 4 cut -> 6; major-wound HT

    def choose(d: Decision) -> Any:
        want = "do not" if d.unit == "f" else "sacrificial dodge"
        return chooser({"interpose": want}, b)(d)

    seen = drive(rules, b, Frame("attack", Attack("a", "d", "sword")), choose)
    assert [(d.kind, d.unit) for d in seen] == [("interpose", "f"), ("interpose", "g")]
    assert b.u["g"].health.tracks["hp"] == 4 and b.u["d"].health.tracks["hp"] == 10
    assert b.u["f"].pos == (1.0, 1.0) and defence_record(b, "g").interposed


@pytest.mark.parametrize(
    ("rolls", "answers", "kinds"),
    [
        ([10, 5], {"defence": "dodge and retreat", "follow": "follow"}, ["defence", "follow"]),
        ([10, 15, 5], {"defence": "parry (sword)"}, ["defence", "defence"]),
        ([10, 15, 1], {"defence": "dodge 8"}, ["defence", "defence"]),
        ([10, 1], {"interpose": "do not", "defence": "no defence"}, ["interpose", "defence"]),
    ],
)
def test_the_flow_is_data_at_every_decision(
    rolls: list[int], answers: dict[str, str], kinds: list[str]
) -> None:
    # Under All-Out Defence: a retreat and the attacker's follow-up step; a second parry with the
    # same weapon; another defence after a dodge (here none: the dodge may not be tried again);
    # a sacrificial dodge declined. Rolls: attack 10 hits; 15 fails a defence, 5 makes one;
    # damage 1 (1d+1 = 2 cut: 3 HP, no major wound).
    rules, b = _trio() if "interpose" in answers else duel()
    update_turn(b, "d", maneuver="all_out_defence")
    dice = script(b, rolls)
    seen = drive(rules, b, Frame("attack", Attack("a", "d", "sword")), chooser(answers, b))
    assert [d.kind for d in seen] == kinds
    stages = [d.context["stage"] for d in seen if d.kind == "defence"]
    assert stages == list(range(1, len(stages) + 1))
    assert not dice.script
