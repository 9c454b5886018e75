"""AFF ruleset (game.rules.aff.ruleset), held to shared/rules/aff-dodge-protection.md.

Table-driven checks of who may dodge (standard rules and Ubiquitous Dodging),
the bonuses (Swashbuckler +1, shield), the per-round armour-or-dodge choice,
the opposed melee and roll-under missile frame, worked examples with scripted
dice, Monte Carlo agreement of whole attack flows with the exact odds (99.9 %
bound |p_hat - p| <= 3.29 sqrt(p (1 - p) / n) + 1/n), and the odds CLI. The
Dodge table itself is checked row by row in test_dice_steps_tracks_aims.py.
"""

from __future__ import annotations

import json
from dataclasses import replace
from types import MappingProxyType
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from components.sight import CoverLevel
from game.cli.odds import odds
from game.core.codec import decode, encode
from game.core.commands import Attack, Decision
from game.dice.aff import DODGE_TRACK, NO_PROTECTION, expected_damage, p_no_damage, p_opposed, p_roll_under
from game.rules import get_ruleset
from game.rules.aff.ruleset import (
    COVER_STEPS,
    AffRuleset,
    AffState,
    AffStats,
    protections,
)
from tests.rules.fakes import FakeBattle, ScriptedDice, mc_ok, run_flow

N_MC = 4000
SWORD = (2, 3, 3, 3, 4, 4, 5)
LEATHER = (0, 0, 0, 1, 1, 1, 2)


def stats(**kw: Any) -> AffStats:
    base: dict[str, Any] = {
        "skill": 8,
        "stamina": 12,
        "special_skills": {"sword": 2, "dodge": 3, "bow": 1},
        "weapons": [
            {"name": "sword", "kind": "melee", "skill": "sword", "track": list(SWORD)},
            {
                "name": "bow",
                "kind": "missile",
                "skill": "bow",
                "track": [1, 2, 3, 3, 3, 4, 5],
                "ranges": [10, 30, 60],
            },
        ],
    }
    base.update(kw)
    return AffStats.model_validate(base)


def duel(
    gap_in: float = 1.5,
    attacker: AffStats | None = None,
    target: AffStats | None = None,
    seed: int = 0,
    **opts: Any,
) -> tuple[AffRuleset, FakeBattle]:
    # The melee stance (the Defensive choice) is tested in test_aff_options.py; here it is off
    # unless asked for, so these flows show the protection decisions alone.
    opts.setdefault("defensive", False)
    r = AffRuleset(opts)
    b = FakeBattle(r, seed=seed)
    b.add("a", "red", (0.0, 0.0), stats=attacker or stats())
    b.add("t", "blue", (gap_in, 0.0), facing=180.0, stats=target or stats())
    return r, b


def script(b: FakeBattle, faces: list[int]) -> None:
    b.dice = ScriptedDice(faces, lambda e: b.emit("roll", **e))


def protect(kind: str, stance: str = "normal") -> Any:
    """Answer protection decisions with ``kind`` and a melee defender's stance with ``stance``."""

    def choose(d: Decision) -> Any:
        if {o.command.kind for o in d.options} == {"normal", "defensive"}:
            kind_ = stance
            return next(o.command for o in d.options if o.command.kind == kind_)
        for o in d.options:
            if o.command.kind == kind:
                return o.command
        raise AssertionError(f"no {kind} in {[o.label for o in d.options]}")

    return choose


def option(r: AffRuleset, b: FakeBattle, weapon: str) -> Any:
    return next((o for o in r.attack_options(b, "a") if o.command.weapon == weapon), None)


# ---- who may dodge -------------------------------------------------------------------------------

ARMOUR = {"name": "leather", "track": list(LEATHER)}

DODGE_CASES = [
    # (ubiquitous, talents, dodge skill, armour, shield, dodge allowed?, dodge roll bonus or reason)
    (False, [], 3, None, False, False, "needs the Swashbuckler talent"),
    (False, ["swashbuckler"], 0, None, False, False, "no Dodge special skill"),
    (False, ["swashbuckler"], 3, ARMOUR, False, False, "wearing armour"),
    (False, ["swashbuckler"], 3, ARMOUR, True, False, "wearing armour"),
    (False, ["swashbuckler"], 3, None, True, True, 0),  # carrying a shield: allowed, no benefit
    (False, ["swashbuckler"], 3, None, False, True, 0),
    (False, ["swashbuckler"], 9, None, False, True, 0),
    (True, [], 3, None, False, True, 0),  # any Dodge skill may dodge
    (True, [], 0, None, False, False, "no Dodge special skill"),
    (True, ["swashbuckler"], 3, None, False, True, 1),  # Swashbuckler: +1
    (True, [], 3, None, True, True, 1),  # the shield stacks with dodge
    (True, ["swashbuckler"], 3, ARMOUR, True, True, 2),  # armour worn: still a choice per round
]


@pytest.mark.parametrize(("ubi", "talents", "skill", "armour", "shield", "ok", "detail"), DODGE_CASES)
def test_who_may_dodge(
    ubi: bool, talents: list[str], skill: int, armour: Any, shield: bool, ok: bool, detail: Any
) -> None:
    s = stats(talents=talents, special_skills={"sword": 2, "dodge": skill}, armour=armour, shield=shield)
    choices, forbidden = protections(s, ubi)
    dodge = [c for c in choices if c.kind == "dodge"]
    assert bool(dodge) == ok
    if ok:
        assert dodge[0].bonus == detail
        assert dodge[0].track == DODGE_TRACK[min(skill, 6)]
    else:
        assert detail in forbidden["dodge"]
    # A1/A19: worn armour and an allowed dodge always protect; "none" only with nothing at hand.
    kinds = [c.kind for c in choices]
    assert ("none" in kinds) == (kinds == ["none"])
    assert ("none" in forbidden) == ("none" not in kinds)


@pytest.mark.parametrize(
    ("armour", "shield", "skill", "talents", "ubi", "kinds"),
    [
        (ARMOUR, False, 0, [], False, ["armour"]),  # worn armour: no "none"
        (ARMOUR, True, 3, ["swashbuckler"], False, ["armour"]),
        (ARMOUR, False, 3, [], True, ["armour", "dodge"]),  # the round's choice, never "none"
        (None, False, 0, [], False, ["none"]),  # nothing at hand
        (None, False, 3, ["swashbuckler"], False, ["dodge"]),
        (None, True, 3, ["swashbuckler"], False, ["armour", "dodge"]),  # use the shield, or dodge
    ],
)
def test_worn_armour_always_protects(
    armour: Any, shield: bool, skill: int, talents: list[str], ubi: bool, kinds: list[str]
) -> None:
    s = stats(armour=armour, shield=shield, talents=talents, special_skills={"sword": 2, "dodge": skill})
    assert [c.kind for c in protections(s, ubi)[0]] == kinds
    assert [c.kind for c in protections(s, ubi, optional=True)[0]] == [
        "none",
        *[k for k in kinds if k != "none"],
    ]


def test_a_single_protection_is_the_only_option() -> None:
    r, b = duel(target=stats(armour=ARMOUR, special_skills={"sword": 2}))
    script(b, [6, 6, 1, 1, 3, 4])  # attacker wins; sword 3 -> 3; leather 4 -> 1
    seen = run_flow(r.attack(b, Attack("a", "t", "sword")), protect("armour"))
    assert [[o.command.kind for o in d.options] for d in seen] == [["armour"]]
    ev = next(e for e in b.events if e["type"] == "defence" and e["kind"] == "armour")
    assert ev["protection"] == 1 and b.u["t"].health.tracks["stamina"] == 12 - 2


def test_optional_protection_option_offers_none() -> None:
    r, b = duel(target=stats(armour=ARMOUR, special_skills={"sword": 2}), optional_protection=True)
    script(b, [6, 6, 1, 1, 3])
    seen = run_flow(r.attack(b, Attack("a", "t", "sword")), protect("none"))
    assert [o.command.kind for o in seen[0].options] == ["none", "armour"]
    assert b.u["t"].health.tracks["stamina"] == 12 - 3


ARMOUR_CASES = [
    # (armour, shield, talents, armour allowed?, armour roll bonus)
    (ARMOUR, False, [], True, 0),
    (ARMOUR, True, [], True, 1),
    (ARMOUR, True, ["armour training"], True, 2),
    (None, True, [], True, 1),  # a shield alone: the bonus on an all-zero track
    (None, False, [], False, None),
]


@pytest.mark.parametrize(("armour", "shield", "talents", "ok", "bonus"), ARMOUR_CASES)
def test_armour_choice(armour: Any, shield: bool, talents: list[str], ok: bool, bonus: int | None) -> None:
    s = stats(armour=armour, shield=shield, talents=talents)
    choices, forbidden = protections(s, False)
    arm = [c for c in choices if c.kind == "armour"]
    assert bool(arm) == ok
    if ok:
        assert arm[0].bonus == bonus
        assert arm[0].track == (LEATHER if armour else NO_PROTECTION)
    else:
        assert "armour" in forbidden


def test_ubiquitous_choice_binds_for_the_round() -> None:
    # the old reading (option first_hit): the first protection rolled binds the round; the
    # default, a decision at the round's start, is tested in test_aff_round_choice.py
    s = stats(armour=ARMOUR, talents=["swashbuckler"])
    r, b = duel(target=s, ubiquitous=True, ubiquitous_dodging_choice="first_hit")
    assert [c.kind for c in r.protection_choices(b, "t")] == ["armour", "dodge"]
    script(b, [6, 6, 1, 1, 3, 2])  # attacker 12+10 beats 2+10; sword 3 -> 3; dodge d6 2 +1 -> 0
    run_flow(r.attack(b, Attack("a", "t", "sword")), protect("dodge"))
    assert [c.kind for c in r.protection_choices(b, "t")] == ["dodge"]
    assert protections(s, True, "dodge")[1]["armour"] == "chose dodge this round"
    b.round += 1
    assert [c.kind for c in r.protection_choices(b, "t")] == ["armour", "dodge"]


def test_the_round_binding_is_a_frozen_value_of_the_match() -> None:
    # issue 25: the ruleset keeps nothing itself; the binding is the match's rules state, a frozen
    # value a snapshot writes and reads back exactly (a mapping that cannot be changed in place).
    r, b = duel(
        target=stats(armour=ARMOUR, talents=["swashbuckler"]),
        ubiquitous=True,
        ubiquitous_dodging_choice="first_hit",
    )
    script(b, [6, 6, 1, 1, 3, 2])
    run_flow(r.attack(b, Attack("a", "t", "sword")), protect("dodge"))
    state = b.rules_state
    assert isinstance(state, AffState) and state.locks == {"t": (b.round, "dodge")}
    back = decode(json.loads(json.dumps(encode(state))))
    assert back == state and type(back.locks) is MappingProxyType
    with pytest.raises(TypeError):
        back.locks["t"] = (b.round, "armour")  # type: ignore[index]


def test_a_hit_waiting_for_its_protection_resumes_from_its_written_frames() -> None:
    # The flow in progress is data: written down at the decision and read back, it asks the same
    # decision and ends the same way (the worked example of the single protection above).
    r, b = duel(target=stats(armour=ARMOUR, special_skills={"sword": 2}))
    script(b, [6, 6, 1, 1, 3, 4])
    run: Any = r.attack(b, Attack("a", "t", "sword"))
    decision = next(run)
    run.frames = decode(json.loads(json.dumps(encode(run.frames))))
    asked = r.ask(b, "defence", run.frames[-1].data)
    assert [(o.command, o.label) for o in asked.options] == [(o.command, o.label) for o in decision.options]
    assert asked.unit == decision.unit and asked.context == decision.context
    with pytest.raises(StopIteration):
        run.send(protect("armour")(decision))
    assert b.u["t"].health.tracks["stamina"] == 12 - 2


def test_standard_rules_do_not_bind() -> None:
    s = stats(talents=["swashbuckler"], shield=True)
    r, b = duel(target=s)
    script(b, [6, 6, 1, 1, 3, 2])
    run_flow(r.attack(b, Attack("a", "t", "sword")), protect("dodge"))
    assert [c.kind for c in r.protection_choices(b, "t")] == ["armour", "dodge"]


# ---- melee ---------------------------------------------------------------------------------------


def test_melee_attacker_wins_worked_example() -> None:
    target = stats(armour=ARMOUR, talents=["swashbuckler"])
    r, b = duel(target=target, ubiquitous=True)  # armour or dodge: a decision
    # a: 5+4+8+2 = 19, t: 3+3+8+2 = 16 -> hit; sword rolls 6 -> 4; leather rolls 4 -> 1: 3 STAMINA.
    script(b, [5, 4, 3, 3, 6, 4])
    decisions = run_flow(r.attack(b, Attack("a", "t", "sword")), protect("armour"))
    assert decisions[0].kind == "defence" and decisions[0].unit == "t"
    opts = {o.command.kind: o for o in decisions[0].options}
    assert opts["armour"].p_success == pytest.approx(p_no_damage(SWORD, LEATHER))
    assert opts["armour"].detail["expected_damage"] == pytest.approx(expected_damage(SWORD, LEATHER))
    assert b.u["t"].health.tracks["stamina"] == 12 - 3


def test_melee_tie_harms_nobody() -> None:
    r, b = duel()
    script(b, [4, 4, 5, 3])
    assert run_flow(r.attack(b, Attack("a", "t", "sword")), protect("none")) == []
    assert not any(e["type"] == "damage" for e in b.events)


@pytest.mark.parametrize(
    ("facing", "riposte", "struck_back"),
    [(180.0, True, True), (180.0, False, False), (0.0, True, False)],  # facing 0: attacked from the rear
)
def test_defender_win_strikes_back(facing: float, riposte: bool, struck_back: bool) -> None:
    r, b = duel(riposte=riposte)
    b.u["t"].facing = facing
    script(b, [1, 1, 6, 6, 5, 1])  # 2+10 vs 12+10 (or 12+8 from the rear): defender wins
    decisions = run_flow(r.attack(b, Attack("a", "t", "sword")), protect("none"))
    assert [d.unit for d in decisions] == (["a"] if struck_back else [])  # the attacker protects itself
    struck = [e for e in b.events if e["type"] == "damage" and e["unit"] == "a"]
    assert bool(struck) == struck_back
    if struck_back:
        assert b.u["a"].health.tracks["stamina"] == 12 - 4  # sword rolls 5 -> 4
    defence = next(e for e in b.events if e["type"] == "defence")
    rear = [m for m in defence["modifiers"] if m["source"] == "attacked from the rear"]
    assert [m["value"] for m in rear] == ([-2] if facing == 0.0 else [])


def test_no_riposte_without_reach() -> None:
    spear = stats(
        weapons=[{"name": "spear", "kind": "melee", "skill": "sword", "track": [1] * 7, "reach": 2}]
    )
    r, b = duel(gap_in=3.0, attacker=spear)  # gap 2 yd: the spear reaches, the defender's sword does not
    script(b, [1, 1, 6, 6])
    assert run_flow(r.attack(b, Attack("a", "t", "spear")), protect("none")) == []


def test_melee_odds_in_options() -> None:
    r, b = duel(target=stats(skill=9, special_skills={"sword": 3}, armour=ARMOUR))
    o = option(r, b, "sword")
    assert o.p_success == pytest.approx(p_opposed(10, 12)[0])
    assert o.detail["p_hurt"] == pytest.approx(o.p_success * (1 - p_no_damage(SWORD, LEATHER)))
    assert o.detail["best_protection"] == "armour"


def test_one_attack_a_turn_and_turn_economy() -> None:
    r, b = duel()
    assert r.options.ap_per_round == 2 and r.action_costs(b, "a") == {"attack": 1, "posture": 1, "face": 0}
    assert r.inches_per_ap(b, "a") == 5.0
    assert r.attack_options(b, "a")
    b.u["a"].turn = replace(b.u["a"].turn, attacked_with=frozenset({"sword"}))
    assert r.attack_options(b, "a") == []


# ---- missiles ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dist", "band"),
    [(5.0, "short"), (10.0, "short"), (10.5, "medium"), (30.0, "medium"), (45.0, "long"), (61.0, None)],
)
def test_missile_range_bands(dist: float, band: str | None) -> None:
    r, b = duel(gap_in=dist)
    o = option(r, b, "bow")
    if band is None:
        assert o is None
        return
    tn = 8 + 1 + {"short": 0, "medium": -1, "long": -2}[band]
    assert o.p_success == pytest.approx(p_roll_under(tn))


@pytest.mark.parametrize("level", [c for c in CoverLevel if c != CoverLevel.TOTAL])
def test_missile_cover(level: CoverLevel) -> None:
    r, b = duel(gap_in=5.0)
    b.set_sight("a", "t", cover=level)
    assert option(r, b, "bow").p_success == pytest.approx(p_roll_under(9 - COVER_STEPS[level]))


def test_no_attack_without_line_of_sight() -> None:
    r, b = duel(gap_in=5.0)
    b.set_sight("a", "t", visible=False, cover=CoverLevel.TOTAL)
    assert r.attack_options(b, "a") == []


def test_missile_double_one_always_hits_and_stamina_zero_is_out() -> None:
    weak = stats(skill=1, special_skills={"bow": 0})
    r, b = duel(gap_in=45.0, attacker=weak, target=stats(stamina=3))
    script(b, [1, 1, 6, 1])  # 2 always hits (target 1 - 2 = -1); bow rolls 6 -> 4 > 3 STAMINA
    run_flow(r.attack(b, Attack("a", "t", "bow")), protect("none"))
    assert b.u["t"].health.tracks["stamina"] == -1 and "out" in b.u["t"].health.status


def test_initiative() -> None:
    r, b = duel()
    b.add("c", "blue", (5.0, 5.0), stats=stats(skill=10))
    script(b, [3, 3, 2, 2, 1, 1])  # a 14, t 12, c 12: c wins the tie on SKILL
    assert r.initiative(b, ["a", "t", "c"]) == ["a", "c", "t"]
    script(b, [1, 1, 1, 1, 4, 4, 2, 5])  # a 10, t 10 tie: roll-off 2 vs 5; c 18
    assert r.initiative(b, ["a", "t", "c"]) == ["c", "t", "a"]


# ---- Monte Carlo ---------------------------------------------------------------------------------


def test_melee_flow_monte_carlo() -> None:
    target = stats(skill=7, special_skills={"sword": 2, "dodge": 4}, talents=["swashbuckler"])
    r, b = duel(target=target, seed=77, riposte=False)
    o = option(r, b, "sword")
    hits = hurts = 0
    calib = succ = 0.0
    for _ in range(N_MC):
        b.events.clear()
        run_flow(r.attack(b, Attack("a", "t", "sword")), protect("dodge"))
        dodge = [e for e in b.events if e["type"] == "defence" and e["kind"] == "dodge"]
        if dodge:  # a hit: the one protection at hand (dodge) is rolled
            hits += 1
            calib += dodge[0]["p_success"]
            succ += dodge[0]["success"]
        hurts += any(e["type"] == "damage" for e in b.events)
        b.u["t"].health = replace(b.u["t"].health, tracks={"stamina": 12})
    assert mc_ok(hits / N_MC, o.p_success, N_MC)
    assert mc_ok(hurts / N_MC, o.detail["p_hurt"], N_MC)
    assert mc_ok(succ / hits, calib / hits, hits)


def test_missile_flow_monte_carlo_with_ubiquitous_dodge_and_shield() -> None:
    target = stats(special_skills={"dodge": 2}, shield=True, armour=ARMOUR)
    r, b = duel(gap_in=20.0, target=target, seed=5, ubiquitous=True)
    o = option(r, b, "bow")
    hurts = 0
    for _ in range(N_MC):
        b.events.clear()
        b.round += 1  # a fresh armour-or-dodge choice each time
        run_flow(r.attack(b, Attack("a", "t", "bow")), protect(o.detail["best_protection"]))
        hurts += any(e["type"] == "damage" for e in b.events)
        b.u["t"].health = replace(b.u["t"].health, tracks={"stamina": 12})
    assert mc_ok(hurts / N_MC, o.detail["p_hurt"], N_MC)


# ---- stats and options ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        {"skill": 0},
        {"special_skills": {"dodge": -1}},
        {"weapons": [{"name": "x", "kind": "melee", "skill": "s", "track": [1, 2, 3]}]},
        {"weapons": [{"name": "x", "kind": "missile", "skill": "s", "track": [1] * 7}]},
        {
            "weapons": [
                {"name": "x", "kind": "missile", "skill": "s", "track": [1] * 7, "ranges": [30, 10, 60]}
            ]
        },
        {"armour": {"name": "x", "track": [0, 0, 0, 0, 0, 0, -1]}},
        {"luck": 9},
    ],
)
def test_stats_validation(bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        stats(**bad)


def test_registry_options_and_profiles() -> None:
    from ruamel.yaml import YAML

    assert get_ruleset("aff", {"ubiquitous": True}).ubiquitous  # type: ignore[attr-defined]
    with pytest.raises(ValidationError):
        AffRuleset({"ubiquitous": "maybe"})
    with open("scenarios/profiles.yaml") as fh:
        profiles = YAML(typ="safe").load(fh)
    for name, blocks in profiles.items():
        s = AffRuleset.parse_stats(blocks["aff"])
        kinds = {w.kind for w in s.weapons}  # type: ignore[attr-defined]
        assert "melee" in kinds and kinds & {"missile", "thrown"}, name
    swash = AffRuleset.parse_stats(profiles["swashbuckler"]["aff"])
    assert [c.kind for c in protections(swash, False)[0]] == ["dodge"]  # type: ignore[arg-type]


# ---- odds CLI ------------------------------------------------------------------------------------


def run_cli(*args: str) -> Any:
    return CliRunner().invoke(odds, ["aff", *args])


def test_cli_json() -> None:
    res = run_cli(
        "--dodge-skill", "3", "--weapon-track", "2,3,3,3,4,4,5", "--swashbuckler", "--ubiquitous", "--json"
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["p_no_damage"] == pytest.approx(p_no_damage(SWORD, DODGE_TRACK[3], 0, 1))
    assert out["expected_damage"] == pytest.approx(expected_damage(SWORD, DODGE_TRACK[3], 0, 1))
    res = run_cli("--dodge-skill", "3", "--weapon-track", "2,3,3,3,4,4,5", "--swashbuckler", "--json")
    assert json.loads(res.output)["p_no_damage"] == pytest.approx(1 / 36)
    res = run_cli("--weapon-track", "2,3,3,3,4,4,5", "--armour-track", "0,0,0,1,1,1,2", "--shield", "--json")
    out = json.loads(res.output)
    assert out["protection"] == "armour" and out["roll_bonus"] == 1
    res = run_cli(
        "--weapon-track",
        "2,3,3,3,4,4,5",
        "--dodge-skill",
        "1",
        "--ubiquitous",
        "--attack-score",
        "10",
        "--defence-score",
        "9",
        "--json",
    )
    out = json.loads(res.output)
    assert out["p_hit"] == pytest.approx(p_opposed(10, 9)[0])
    assert out["p_hurt"] == pytest.approx(out["p_hit"] * (1 - out["p_no_damage"]))


def test_cli_readable() -> None:
    res = run_cli(
        "--dodge-skill", "6", "--weapon-track", "2,3,3,3,4,4,5", "--swashbuckler", "--missile-target", "9"
    )
    assert res.exit_code == 0 and "P(no damage)" in res.output and "P(hit)" in res.output


@pytest.mark.parametrize(
    "args",
    [
        ["--dodge-skill", "3", "--weapon-track", "2,3,3,3,4,4,5"],  # standard rules: no Swashbuckler
        [
            "--dodge-skill",
            "3",
            "--weapon-track",
            "2,3,3,3,4,4,5",
            "--swashbuckler",
            "--armour-track",
            "0,0,0,1,1,1,2",
        ],
        ["--weapon-track", "2,3,3,3,4,4,5", "--protection", "dodge", "--ubiquitous"],  # no Dodge skill
        ["--weapon-track", "2,3,3,3,4,4,5", "--protection", "armour"],  # nothing to wear
        ["--weapon-track", "2,3,3"],
        ["--weapon-track", "2,3,3,3,4,4,5", "--attack-score", "9"],
        [
            "--weapon-track",
            "2,3,3,3,4,4,5",
            "--attack-score",
            "9",
            "--defence-score",
            "9",
            "--missile-target",
            "9",
        ],
        ["--dodge-skill", "-1", "--weapon-track", "2,3,3,3,4,4,5"],
    ],
)
def test_cli_forbidden_exit_2(args: list[str]) -> None:
    assert run_cli(*args).exit_code == 2


def test_memoised_2d6_odds_equal_fresh_computation() -> None:
    # p_opposed and p_roll_under are memoised: a cached answer is the same float as a fresh one.
    from game.dice.aff import p_opposed, p_roll_under

    for a, d in [(9, 8), (7, 12), (12, 3)]:
        first = p_opposed(a, d)
        assert p_opposed.__wrapped__(a, d) == first and p_opposed(a, d) is first
    for tn in range(0, 14):
        assert p_roll_under.__wrapped__(tn) == p_roll_under(tn) == p_roll_under(tn)


def test_protection_memo_follows_the_round_lock_and_the_stat_block() -> None:
    # protection_choices and best_protection are memoised per stat block (by identity) and
    # per Ubiquitous Dodging lock: a lock taken, a new round, or another block must all show.
    import game.rules.aff.ruleset as aff_module

    s = stats(armour=ARMOUR, talents=["swashbuckler"])
    r, b = duel(target=s, ubiquitous=True)
    sword = b.stats("a").weapons[0]
    assert r.best_protection(b, "t", sword).kind == "dodge"
    b.set_rules_state(AffState(MappingProxyType({"t": (b.round, "armour")})))
    assert r.best_protection(b, "t", sword).kind == "armour"
    assert [c.kind for c in r.protection_choices(b, "t")] == ["armour"]
    b.round += 1
    assert r.best_protection(b, "t", sword).kind == "dodge"
    # an equal but distinct block gets its own entries; the returned list is the caller's to keep
    twin = s.model_copy()
    assert twin is not s and aff_module._BY_STATS.get(twin, ("x",), lambda: 1) == 1
    assert aff_module._BY_STATS.get(s, ("x",), lambda: 2) == 2
    assert aff_module._BY_STATS.get(s, ("x",), lambda: 3) == 2
    mine = r.protection_choices(b, "t")
    mine.clear()
    assert len(r.protection_choices(b, "t")) == 2
