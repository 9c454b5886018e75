"""AFF rule numbers as options: each numeric option reaches the rules.

Each numeric option of :class:`~game.rules.aff.options.AffOptions` has a probe in ``PROBES``: a
small situation (FakeBattle) whose observable outcome (a protection roll's bonus, an attack's
target number or combat total, a cost, a distance, the AP a unit starts with, the exact odds) is
computed under the default options and under one other value (``OTHER``), and must differ.
``test_every_numeric_option_has_a_probe`` fails when an option is added without one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from components.sight import CoverLevel
from game.core.commands import Attack
from game.dice.aff import p_opposed
from game.rules.aff.odds import answer as odds_answer
from game.rules.aff.options import DEFAULTS, AffOptions
from game.rules.aff.ruleset import AffRuleset, MeleeData
from game.rules.options import check, describe
from tests.rules import in_play
from tests.rules.fakes import run_flow
from tests.rules.test_aff import ARMOUR, duel, option, protect, script, stats


def protection_bonus(kind: str, **kw: Any) -> Callable[[dict[str, Any]], Any]:
    """A probe: the roll bonus of ``kind`` protection, the AI's price of a hit, and the CLI odds."""

    def probe(options: dict[str, Any]) -> Any:
        r, b = duel(target=stats(**kw), **options)
        choice = next(c for c in r.protection_choices(b, "t") if c.kind == kind)
        hit = option(r, b, "sword").detail["expected_damage"]
        cli = odds_answer(
            "2,3,3,3,4,4,5",
            kw.get("special_skills", {}).get("dodge", 0),
            "swashbuckler" in kw.get("talents", []),
            bool(options.get("ubiquitous")),
            ",".join(str(v) for v in ARMOUR["track"]) if kind == "armour" else None,
            "armour training" in kw.get("talents", []),
            False,
            1,
            kind,
            None,
            None,
            None,
            r.options,
        ).data["roll_bonus"]
        return choice.bonus, hit, cli

    return probe


def missile(gap_in: float, **sight: Any) -> Callable[[dict[str, Any]], Any]:
    """A probe: the bow's hit chance (roll-under target) at ``gap_in`` inches."""

    def probe(options: dict[str, Any]) -> Any:
        r, b = duel(gap_in=gap_in, **options)
        if sight:
            b.set_sight("a", "t", **sight)
        return r.missile_target(b, "a", b.stats("a").weapon("bow"), b.sight("a", "t"))[0]

    return probe


def rear(options: dict[str, Any]) -> int:
    r, b = duel(**options)
    b.u["t"].facing = 0.0  # its back to the attacker
    return r.melee_scores(b, "a", "t", b.stats("a").weapon("sword"), b.sight("a", "t"))[2]


def defensive_total(options: dict[str, Any]) -> Any:
    """The defender's total fighting defensively, and its stance options' chances."""
    r, b = duel(**options)
    total = r.melee_scores(b, "a", "t", b.stats("a").weapon("sword"), b.sight("a", "t"), True)[2]
    return total, [o.p_success for o in r.stance_options(b, MeleeData("a", "t", "sword"))]


def costs(options: dict[str, Any]) -> dict[str, int]:
    r, b = duel(**options)
    return r.action_costs(b, "a")


def move(options: dict[str, Any]) -> float:
    r, b = duel(**options)
    return r.inches_per_ap(b, "a")


def start_ap(options: dict[str, Any]) -> int:
    return AffRuleset(options).setup_unit(stats()).ap_max


PROBES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "swashbuckler_dodge_bonus": protection_bonus(
        "dodge", talents=["swashbuckler"], special_skills={"dodge": 3, "sword": 2}
    ),
    "armour_training_bonus": protection_bonus("armour", talents=["armour training"], armour=ARMOUR),
    "ap_per_round": start_ap,
    "move_yards_per_ap": move,
    "attack_ap": costs,
    "posture_ap": costs,
    "face_ap": costs,
    "medium_range_penalty": missile(20.0),
    "long_range_penalty": missile(40.0),
    "cover_penalty_step": missile(5.0, cover=CoverLevel.HEAVY),
    "rear_defence_penalty": rear,
    "defensive_bonus": defensive_total,
}
#: A non-default value of each numeric option, for its probe (with the switches it needs).
OTHER: dict[str, Any] = {
    "swashbuckler_dodge_bonus": 3,
    "armour_training_bonus": 2,
    "ap_per_round": 3,
    "move_yards_per_ap": 6.0,
    "attack_ap": 2,
    "posture_ap": 2,
    "face_ap": 1,
    "medium_range_penalty": 3,
    "long_range_penalty": 4,
    "cover_penalty_step": 2,
    "rear_defence_penalty": 4,
    "defensive_bonus": 3,
}
#: Switches a probe needs to see its option (Swashbuckler's bonus is a Ubiquitous Dodging rule).
WITH: dict[str, dict[str, Any]] = {"swashbuckler_dodge_bonus": {"ubiquitous": True}}


def numeric() -> set[str]:
    return {o["name"] for o in describe(AffOptions) if o["type"] in ("int", "float")}


def test_every_numeric_option_has_a_probe() -> None:
    assert set(PROBES) == numeric() == set(OTHER)


def test_at_least_ten_numeric_options_each_described_sourced_and_ranged() -> None:
    assert len(numeric()) >= 10
    for o in describe(AffOptions):
        assert o["description"] and o["source"].startswith("aff-dodge-protection.md"), o
        if o["name"] in numeric():
            assert o["min"] is not None and o["max"] is not None and o["unit"], o
    assert AffRuleset().options == DEFAULTS


@pytest.mark.parametrize("name", sorted(PROBES))
def test_a_numeric_option_reaches_the_rules(name: str) -> None:
    base = WITH.get(name, {})
    assert PROBES[name](base) == PROBES[name]({**base, name: getattr(DEFAULTS, name)})
    assert PROBES[name](base) != PROBES[name]({**base, name: OTHER[name]})


def test_probes_see_the_texts_numbers_by_default() -> None:
    assert PROBES["swashbuckler_dodge_bonus"]({"ubiquitous": True})[0::2] == (1, 1)
    assert PROBES["armour_training_bonus"]({})[0::2] == (1, 1)
    assert start_ap({}) == 2 and costs({}) == {"attack": 1, "posture": 1, "face": 0}
    assert move({}) == 5.0  # 5 yards a AP at 1 yard an inch
    assert missile(5.0)({}) == 8 + 1
    assert missile(20.0)({}) == 9 - 1 and missile(40.0)({}) == 9 - 2
    assert missile(5.0, cover=CoverLevel.HEAVY)({}) == 9 - 3
    assert rear({}) == 8 + 2 - 2


def test_out_of_range_values_are_refused_naming_the_option() -> None:
    for bad in ({"ap_per_round": 0}, {"move_yards_per_ap": 0}, {"attack_ap": "two"}, {"parry": 1}):
        with pytest.raises(ValueError, match="aff"):
            check("aff", AffOptions, bad)


# ---- rules round 3: the "Defensive" choice of a melee defence ------------------------------------


def test_a_melee_defender_chooses_its_stance_and_defensive_adds_two() -> None:
    r, b = duel(defensive=True)
    stance = r.stance_options(b, MeleeData("a", "t", "sword"))
    assert [o.command.kind for o in stance] == ["normal", "defensive"]
    assert "fight defensively (+2, deals no damage)" in stance[1].label
    # a: 2d6 + 8 + 2 against t: 2d6 + 8 + 2 (+2 defensively); not hit = a tie or a defender's win.
    _, tie, lose = p_opposed(10, 10)
    _, tie2, lose2 = p_opposed(10, 12)
    assert stance[0].p_success == pytest.approx(tie + lose) and stance[1].p_success == pytest.approx(
        tie2 + lose2
    )
    # Fighting normally keeps the strike-back; defensively it is what the stance gives up.
    assert stance[0].detail["p_strike_back"] == pytest.approx(lose) and stance[0].detail["forfeits"] == 0
    assert stance[1].detail["p_strike_back"] == 0 and stance[1].detail["forfeits"] == pytest.approx(lose)
    # The decision in the flow: the defender is asked before the dice, as a defence decision.
    script(b, [1, 1, 6, 6])  # a: 2 + 10 = 12; t: 12 + 10 (+2) wins
    seen = run_flow(r.attack(b, Attack("a", "t", "sword")), protect("armour", stance="defensive"))
    assert [(d.kind, d.unit) for d in seen] == [("defence", "t")]
    ev = next(e for e in b.events if e["type"] == "defence" and e["kind"] == "melee")
    assert (
        ev["total"] == 12 + 12
        and {"source": "defensive", "value": 2, "applies_to": "combat total"} in (ev["modifiers"])
    )
    assert ev["success"] and not ev["riposte"]  # a defensive win deals no damage
    assert b.u["a"].health.tracks["stamina"] == 12


def test_fighting_normally_still_strikes_back() -> None:
    r, b = duel(defensive=True)
    script(b, [1, 1, 6, 6, 4])  # t wins normally: its riposte hits (sword track 2,3,3,3,4,4,5)
    seen = run_flow(r.attack(b, Attack("a", "t", "sword")), protect("none", stance="normal"))
    assert [d.kind for d in seen][:1] == ["defence"]
    ev = next(e for e in b.events if e["type"] == "defence" and e["kind"] == "melee")
    assert ev["riposte"] and "defensive" not in [m["source"] for m in ev["modifiers"]]


def test_the_defensive_switch_off_asks_nothing() -> None:
    r, b = duel(defensive=False)
    script(b, [4, 4, 5, 3])  # a tie: nobody harmed
    assert run_flow(r.attack(b, Attack("a", "t", "sword")), protect("none")) == []
    assert "defensively" not in r.sheet(b, "t").defences[0]
    r, b = duel(defensive=True)
    assert "or defensively: +2" in r.sheet(b, "t").defences[0]


def test_the_ai_answers_the_stance_decision() -> None:
    # The built-in policies meet the new decision in real battles and answer it with one of its
    # options (a defence decision: scored by p_success, less the strike-back it forfeits).
    answered: Counter[str] = Counter()

    def watch(match: Any, view: Any, decision: Any, cmd: Any) -> None:
        kinds = [getattr(o.command, "kind", None) for o in decision.options]
        if decision.kind == "defence" and kinds == ["normal", "defensive"]:
            assert cmd in [o.command for o in decision.options]
            answered[cmd.kind] += 1

    # The duel is fought with missiles; the 5v5 comes to blows.
    in_play.play("skirmish-5v5", "aff", 1, ("cautious", "aggressive"), watch)
    assert sum(answered.values()) > 0, answered
