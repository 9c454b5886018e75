"""AFF in play: AI battles on the shipped duel; worn armour always protects (A3, A19).

Both built-in policies play both sides on fixed seeds, under the standard rules and under
Ubiquitous Dodging. An armoured unit is never offered "no protection" and never rolls none;
armour rolls and dodge rolls both occur; under Ubiquitous Dodging a unit keeps one of armour
or dodge for a round (the log is checked with the match invariants).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from game.core.commands import Defend
from tests.rules import in_play

SEEDS = (1, 2, 3)


def _armoured() -> set[str]:
    spec = in_play.spec("duel", "aff")
    return {uid for uid, s in in_play.stats(spec, "aff").items() if s.armour is not None}


@pytest.mark.parametrize("ubiquitous", [False, True])
def test_armoured_units_use_their_armour(ubiquitous: bool) -> None:
    armoured = _armoured()
    assert armoured
    offered: Counter[str] = Counter()

    def watch(match: Any, view: Any, decision: Any, cmd: Any) -> None:
        if decision.kind in ("defence", "protection") and decision.unit in armoured:
            kinds = [o.command.kind for o in decision.options if isinstance(o.command, Defend)]
            assert "none" not in kinds, kinds
            offered.update(kinds)

    rolled: Counter[tuple[bool, str]] = Counter()
    for seed in SEEDS:
        for pols in (("cautious", "aggressive"), ("aggressive", "cautious")):
            log = in_play.play("duel", "aff", seed, pols, watch, {"ubiquitous": ubiquitous})
            for e in log:
                if e["type"] == "defence" and e["kind"] in ("armour", "dodge", "none"):
                    rolled[(e["unit"] in armoured, e["kind"])] += 1
    assert (True, "none") not in rolled, rolled
    assert rolled[(True, "armour")] > 0 and rolled[(False, "dodge")] > 0, rolled
    if ubiquitous:
        # the armoured veteran has a Dodge skill: a real choice (at the start of each round)
        assert offered["dodge"] > 0
