"""AP-pool rule numbers as options: each numeric option and each switch reaches the rules.

Each numeric option of :class:`~game.rules.ap_pool.options.ApPoolOptions` has a probe in
``PROBES``: a small situation (FakeBattle, scripted dice) whose observable outcome (a cost, a
pool, an odds number, a distance) is computed under the default options and under one other
value, and must differ. ``test_every_numeric_option_has_a_probe`` fails when an option is added
without one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from components.state import ActionPoints
from game.core.commands import Attack
from game.rules.ap_pool.options import DEFAULTS, ApPoolOptions
from game.rules.ap_pool.ruleset import ApPoolRuleset
from game.rules.options import describe
from tests.rules.fakes import run_flow
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


PROBES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "dodge_ap": dodge_cost,
}
#: A non-default value of each numeric option, for its probe.
OTHER: dict[str, Any] = {
    "dodge_ap": 3,
}


def numeric() -> set[str]:
    return {o["name"] for o in describe(ApPoolOptions) if o["type"] in ("int", "float")}


def test_every_numeric_option_has_a_probe() -> None:
    assert set(PROBES) == numeric() == set(OTHER)


@pytest.mark.parametrize("name", sorted(PROBES))
def test_a_numeric_option_reaches_the_rules(name: str) -> None:
    assert PROBES[name]({}) == PROBES[name]({name: getattr(DEFAULTS, name)})
    assert PROBES[name]({}) != PROBES[name]({name: OTHER[name]})


def test_dodge_ap_prices_the_dodge_and_gates_it() -> None:
    assert dodge_cost({})[:3] == (2, 2, ("dodge", 2))
    cost, spent, reaction, sheet = dodge_cost({"dodge_ap": 3})
    assert (cost, spent, reaction) == (3, 3, ("dodge", 3)) and "dodge (3 AP" in sheet[0]
    rules, b = duel(dodge_ap=3)
    b.u["d"].ap = ActionPoints(2, 4)
    assert rules.can_dodge(b, "d") == "needs 3 AP, has 2"
    assert len(rules.dodge_options(b, "d", "melee", 1)) == 1  # no dodge offered
    rules, b = duel(dodge_ap=0)
    b.u["d"].ap = ActionPoints(0, 4)
    assert rules.can_dodge(b, "d") is None


def test_every_option_is_described_and_sourced() -> None:
    for o in describe(ApPoolOptions):
        assert o["description"] and o["source"].startswith("ap-dodge-reaction.txt"), o
    assert ApPoolRuleset().options == DEFAULTS
