"""Cortex in play: AI battles on the shipped street scenario declare their actions (C2/C3).

Both built-in policies play both sides on fixed seeds. The mechanic must occur (units declare
one, two and three actions, on their turns and with active defences) and be legal: one
declaration a unit a round, no action before it, no more actions than declared, and every
attack and active defence of the round at the declared penalty (-1 step per extra action).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from tests.rules.in_play import play

SEEDS = (1, 2)


@pytest.fixture(scope="module")
def logs() -> list[list[dict[str, Any]]]:
    return [
        play("street", "cortex", seed, pols)
        for seed in SEEDS
        for pols in (("cautious", "aggressive"), ("aggressive", "cautious"))
    ]


def _penalty(e: dict[str, Any]) -> int:
    return int(sum(m["value"] for m in e.get("modifiers", []) if m["source"] == "multiple actions"))


def test_units_declare_their_actions(logs: list[list[dict[str, Any]]]) -> None:
    declared = Counter(
        (e["actions"], e["reason"]) for log in logs for e in log if e["type"] == "actions_declared"
    )
    assert {n for n, _ in declared} == {1, 2, 3}, declared
    assert {r for _, r in declared} == {"turn", "defence"}, declared


def test_declarations_are_legal_and_carry_the_penalty(logs: list[list[dict[str, Any]]]) -> None:
    checked = 0
    for log in logs:
        declared: dict[tuple[str, int], int] = {}
        spent: Counter[tuple[str, int]] = Counter()
        for e in log:
            key = (e.get("attacker") if e["type"] == "attack" else e.get("unit"), e["round"])
            if e["type"] == "actions_declared":
                assert key not in declared, f"two declarations: {key}"
                assert e["steps"] == -(e["actions"] - 1)
                declared[key] = e["actions"]
            elif e["type"] == "ap" and not str(e["reason"]).startswith("declared"):
                if str(e["reason"]) == "all-out defence":
                    continue
                assert key in declared, f"an action before the declaration: {e}"
                spent[key] += e["spent"]
                assert spent[key] <= declared[key], f"more actions than declared: {key}"
            elif e["type"] == "attack":
                assert key in declared, f"an attack before the declaration: {e}"
                assert _penalty(e) == -(declared[key] - 1), e
                checked += 1
            elif e["type"] == "defence" and e["kind"] in ("dodge", "block") and key in declared:
                assert _penalty(e) == -(declared[key] - 1), e
                checked += 1
    assert checked > 100
