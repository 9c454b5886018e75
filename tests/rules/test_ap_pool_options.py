"""AP-pool rule numbers as options: each numeric option and each switch reaches the rules.

Each numeric option of :class:`~game.rules.ap_pool.options.ApPoolOptions` has a probe in
``PROBES``: a small situation (FakeBattle, scripted dice) whose observable outcome (a cost, a
pool, an odds number, a distance) is computed under the default options and under one other
value (``OTHER``), and must differ. ``test_every_numeric_option_has_a_probe`` fails when an
option is added without one; the switches have the same completeness check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from components.sight import CoverLevel
from components.spatial import Posture
from components.state import ActionPoints
from game.core.commands import Attack, Decision
from game.rules import ruleset_class
from game.rules.ap_pool.odds import answer as odds_answer
from game.rules.ap_pool.options import DEFAULTS, ApPoolOptions
from game.rules.ap_pool.ruleset import ApPoolRuleset
from game.rules.options import check, describe
from tests.rules.fakes import FakeBattle, run_flow
from tests.rules.test_ap_pool import answer, duel, events, faces, mk
from tests.rules.test_gurps_common import ScriptedDice


def dodge_cost(options: dict[str, Any]) -> Any:
    """What a dodge costs: the option's AP, the AP spent, the sheet's and reaction_ap's words."""
    rules, b = duel(d=mk(wounds=10), **options)
    offered = rules.dodge_options(b, "d", "melee", 1)[1]
    b.dice = ScriptedDice(b, [faces(1, 7), faces(1, 5)])
    choose = answer({"defence": "dodge body", "dodge_move": "stay"}, b)
    run_flow(rules.attack(b, Attack("a", "d", "sword")), choose)
    spent = 4 - b.ap("d").current
    return offered.detail["ap"], spent, rules.reaction_ap(b, "d"), rules.sheet(b, "d").defences


def dodged(options: dict[str, Any]) -> tuple[ApPoolRuleset, FakeBattle, list[Decision]]:
    """A sword blow (1 success) met by a successful dodge (1 success of 5 dice)."""
    rules, b = duel(d=mk(wounds=10), **options)
    b.dice = ScriptedDice(b, [faces(1, 7), faces(1, 5)])
    seen = run_flow(rules.attack(b, Attack("a", "d", "sword")), answer({"defence": "dodge body"}, b))
    return rules, b, seen


def dodge_move(options: dict[str, Any]) -> Any:
    """The move a successful dodge offers: the decision's labels, its reach and the region's."""
    rules, b, seen = dodged(options)
    moves = [d for d in seen if d.kind == "dodge_move"]
    if not moves:
        return None
    region = rules.reaction_region(b, "dodge", "d")
    return [o.label for o in moves[0].options], moves[0].options[1].detail, region.max_len


def second_dodge(options: dict[str, Any]) -> Any:
    """Whether a unit that dodged once this turn may dodge again."""
    rules, b, _ = dodged(options)
    return rules.can_dodge(b, "d")


def dodge_odds(options: dict[str, Any]) -> Any:
    """The exact odds of a dodge against 2 successes: the Body option's (3 dice) and the CLI's
    (5 dice)."""
    rules, b = duel(**options)
    body = rules.dodge_options(b, "d", "melee", 2)[1]
    return body.p_success, odds_answer(5, 2, rules.options).data["p_success"]


def costs(options: dict[str, Any]) -> dict[str, int]:
    rules, b = duel(**options)
    return rules.action_costs(b, "a")


def pool(weapon: str, dist: float, posture: Posture = Posture.STANDING, **sight: Any) -> Callable[..., Any]:
    """A probe: the attack's dice and modifiers with ``weapon`` at ``dist`` inches."""

    def probe(options: dict[str, Any]) -> Any:
        rules, b = duel(a=mk(mind=4, shooting=3), dist=dist, **options)
        b.u["d"].posture = posture
        if sight:
            b.set_sight("a", "d", **sight)
        return rules.attack_pool(b, "a", "d", b.stats("a").weapon(weapon))

    return probe


def kneeling_move(options: dict[str, Any]) -> float:
    rules, b = duel(**options)
    b.u["a"].posture = Posture.KNEELING
    return rules.inches_per_ap(b, "a")


PROBES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "dodge_ap": dodge_cost,
    "dodge_move_inches": dodge_move,
    "dodges_per_turn": second_dodge,
    "success_face": dodge_odds,
    "attack_ap": costs,
    "posture_ap": costs,
    "face_ap": costs,
    "long_range_dice": pool("bow", 18.0),
    "intervening_dice": pool("bow", 6.0, intervening=("x", "y")),
    "cover_dice_step": pool("bow", 6.0, cover=CoverLevel.MEDIUM),
    "low_target_dice": pool("bow", 6.0, Posture.PRONE),
    "downed_target_dice": pool("sword", 1.0, Posture.SITTING),
    "low_posture_move": kneeling_move,
}
#: A non-default value of each numeric option, for its probe.
OTHER: dict[str, Any] = {
    "dodge_ap": 3,
    "dodge_move_inches": 3.5,
    "dodges_per_turn": 2,
    "success_face": 4,
    "attack_ap": 1,
    "posture_ap": 2,
    "face_ap": 1,
    "long_range_dice": 1,
    "intervening_dice": 0,
    "cover_dice_step": 2,
    "low_target_dice": 2,
    "downed_target_dice": 0,
    "low_posture_move": 0.75,
}


def numeric() -> set[str]:
    return {o["name"] for o in describe(ApPoolOptions) if o["type"] in ("int", "float")}


def switches() -> set[str]:
    return {o["name"] for o in describe(ApPoolOptions) if o["type"] == "bool"}


def test_every_numeric_option_has_a_probe() -> None:
    assert set(PROBES) == numeric() == set(OTHER)


def test_at_least_ten_numeric_options_each_described_sourced_and_ranged() -> None:
    assert len(numeric()) >= 10
    for o in describe(ApPoolOptions):
        assert o["description"] and o["source"].startswith("ap-dodge-reaction.txt"), o
        if o["name"] in numeric():
            assert o["min"] is not None and o["max"] is not None and o["unit"], o
    assert ApPoolRuleset().options == DEFAULTS


@pytest.mark.parametrize("name", sorted(PROBES))
def test_a_numeric_option_reaches_the_rules(name: str) -> None:
    assert PROBES[name]({}) == PROBES[name]({name: getattr(DEFAULTS, name)})
    assert PROBES[name]({}) != PROBES[name]({name: OTHER[name]})


def test_probes_see_the_texts_numbers_by_default() -> None:
    assert dodge_cost({})[:3] == (2, 2, ("dodge", 2))
    labels, detail, reach = dodge_move({})
    assert labels == ["stay", 'dodge move (up to 2")'] and detail == {"max_len": 2.0} and reach == 2.0
    assert second_dodge({}) == "already dodged this turn"
    # Body 3 dodging 2 successes: 7/27; the CLI's 5 dice: 1 - P(0) - P(1).
    five = 1 - (2 / 3) ** 5 - 5 * (1 / 3) * (2 / 3) ** 4
    assert dodge_odds({}) == (pytest.approx(7 / 27), pytest.approx(five))
    assert costs({}) == {"attack": 2, "posture": 1, "face": 0}
    assert pool("bow", 18.0)({})[0] == 4 + 3 - 2
    assert pool("bow", 6.0, intervening=("x", "y"))({})[0] == 7 - 2
    assert pool("bow", 6.0, cover=CoverLevel.MEDIUM)({})[0] == 7 - 2
    assert pool("bow", 6.0, Posture.PRONE)({})[0] == 7 - 1
    assert pool("sword", 1.0, Posture.SITTING)({})[0] == 3 + 2 + 1
    assert kneeling_move({}) == 2.0


def test_dodge_ap_prices_the_dodge_and_gates_it() -> None:
    cost, spent, reaction, sheet = dodge_cost({"dodge_ap": 3})
    assert (cost, spent, reaction) == (3, 3, ("dodge", 3)) and "dodge (3 AP" in sheet[0]
    rules, b = duel(dodge_ap=3)
    b.u["d"].ap = ActionPoints(2, 4)
    assert rules.can_dodge(b, "d") == "needs 3 AP, has 2"
    assert len(rules.dodge_options(b, "d", "melee", 1)) == 1  # only "no dodge"
    rules, b = duel(dodge_ap=0)
    b.u["d"].ap = ActionPoints(0, 4)
    assert rules.can_dodge(b, "d") is None


def test_dodges_per_turn_counts_and_zero_forbids() -> None:
    rules, b, _ = dodged({"dodges_per_turn": 2})
    assert rules.can_dodge(b, "d") is None and rules.dodges_made(b, "d") == 1
    b.dice = ScriptedDice(b, [faces(1, 7), faces(0, 5)])
    run_flow(rules.attack(b, Attack("a", "d", "sword")), answer({"defence": "dodge body"}, b))
    assert rules.dodges_made(b, "d") == 2
    b.u["d"].ap = ActionPoints(4, 4)
    assert rules.can_dodge(b, "d") == "already dodged this turn (2 times)"
    b.active = "x"  # another unit's turn: the count starts again
    assert rules.can_dodge(b, "d") is None
    rules, b = duel(dodges_per_turn=0)
    assert "no dodges" in str(rules.can_dodge(b, "d"))
    # The log's once-a-turn limit is in force only when the option keeps the text's one.
    limits = ruleset_class("ap-pool").reaction_limits
    assert [r.window for r in limits if r.applies({})] == ["activation"]
    assert [r.window for r in limits if r.applies({"dodges_per_turn": 2})] == []


def test_dodge_move_switch() -> None:
    assert dodge_move({"dodge_move": False}) is None
    rules, b, seen = dodged({"dodge_move": False})
    assert [d.kind for d in seen] == ["defence"] and events(b, "defence")[0]["success"]
    assert "no move after" in rules.sheet(b, "d").defences[0]


def test_every_switch_has_a_probe() -> None:
    # dodge_move: test_dodge_move_switch; the two readings: tests/rules/test_ap_pool.py
    # (test_failed_dodge_reduces_damage_option, test_once_per_round_option).
    assert switches() == {"dodge_move", "failed_dodge_reduces_damage", "dodge_once_per_round"}


def test_success_face_counts_every_roll() -> None:
    rules, b = duel(d=mk(wounds=10), success_face=4)
    b.dice = ScriptedDice(b, [[4, 4, 1, 1, 1, 1, 1], [4, 1, 1, 1, 1]])
    run_flow(rules.attack(b, Attack("a", "d", "sword")), answer({"defence": "no dodge"}, b))
    assert events(b, "attack")[0]["successes"] == 2
    assert odds_answer(8, 4, rules.options).lines[0].startswith("dodge pool: 8 dice (4-6 succeed)")


def test_out_of_range_values_are_refused_naming_the_option() -> None:
    for bad in ({"dodge_ap": -1}, {"success_face": 7}, {"dodge_move_inches": -0.5}, {"dodge_aps": 2}):
        with pytest.raises(ValueError, match="ap-pool"):
            check("ap-pool", ApPoolOptions, bad)


def test_changed_costs_change_the_ais_prices() -> None:
    # The AI prices a dodge from its option's detail["ap"] and an attack from action_costs.
    rules, b = duel(dodge_ap=4, attack_ap=3)
    assert all(o.detail["ap"] == 4 for o in rules.dodge_options(b, "d", "melee", 1)[1:])
    b.u["a"].ap = ActionPoints(2, 4)
    assert rules.attack_options(b, "a") == []
