"""Defence dice in play: AI battles on the shipped firing line use Block, cover rolls and the
dodge-reroll choice (D8, D12-D15).

Both built-in policies play both sides on fixed seeds. Each mechanic must occur and be legal:
a Block memory blocks hits that target it (and a concussive or control hit still replaces
it), a Block(N) memory blocks for at most N-1 other memories a round, armour blocks only its
aimline; units keep their dodge dice on some moves by their own choice (the kept faces are
the ones rolled before); one cover roll per cover unit a round, again only after it moved or
was damaged.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from tests.rules import in_play

SEEDS = (1, 2)


@pytest.fixture(scope="module")
def battles() -> tuple[list[list[dict[str, Any]]], dict[str, Any]]:
    spec = in_play.spec("firing-line", "defence-dice")
    logs = [
        in_play.play("firing-line", "defence-dice", seed, pols)
        for seed in SEEDS
        for pols in (("cautious", "aggressive"), ("aggressive", "cautious"))
    ]
    return logs, in_play.stats(spec, "defence-dice")


def test_blocks_occur_and_are_legal(battles: Any) -> None:
    logs, stats = battles
    kinds: Counter[str] = Counter()
    for log in logs:
        weapon_of: dict[str, Any] = {}
        others: Counter[tuple[str, str, int]] = Counter()
        for i, e in enumerate(log):
            if e["type"] == "attack":
                weapon = stats[e["attacker"]].weapon(e["weapon"])
                weapon_of = {"piercing": weapon.concussive or weapon.control}
            if e["type"] != "block":
                continue
            kinds[e["kind"]] += 1
            memories = {m.name: m for m in stats[e["unit"]].memories}
            blocker = memories[e["memory"]]
            assert e["still_hits"] == weapon_of["piercing"], e
            if e["kind"] == "armour":
                assert e["aim"] in blocker.aims
            elif e["kind"] == "itself":
                assert blocker.block >= 1 and e["target"] == e["memory"]
            else:
                assert blocker.block >= 2 and not e["still_hits"]
                others[(e["unit"], e["memory"], e["round"])] += 1
                assert others[(e["unit"], e["memory"], e["round"])] <= blocker.block - 1
            if e["kind"] != "armour":  # a hit that still hits replaces the targeted memory at once
                nxt = log[i + 1]
                replaced = (
                    nxt["type"] == "damage" and nxt["unit"] == e["unit"] and nxt["memory"] == e["target"]
                )
                assert replaced == e["still_hits"], (e, nxt)
    assert {"armour", "itself", "another"} <= set(kinds), kinds


def test_units_keep_or_reroll_their_dodge_dice_by_choice(battles: Any) -> None:
    logs, _ = battles
    kept = choices = 0
    for log in logs:
        faces: dict[str, list[int]] = {}
        for e in log:
            if e["type"] == "defence_dice" and e["kind"] == "dodge":
                faces[e["unit"]] = e["faces"]
            elif e["type"] == "dodge_kept":
                assert e["faces"] == faces[e["unit"]]
                kept += 1
            elif e["type"] == "reroll_choice":
                choices += 1
    assert kept > 0 and choices > 0


def test_one_cover_roll_per_cover_unit_a_round(battles: Any) -> None:
    logs, _ = battles
    rolls = 0
    for log in logs:
        fresh: dict[str, bool] = {}  # cover unit -> may roll again (no roll yet this round, or moved/damaged)
        for e in log:
            if e["type"] == "round_start":
                fresh = {}
            elif e["type"] in ("move", "damage"):
                fresh[e["unit"]] = True
            elif e["type"] == "defence_dice" and e["kind"] == "cover":
                assert fresh.get(e["unit"], True), f"a second cover roll of {e['unit']} in round {e['round']}"
                fresh[e["unit"]] = False
                rolls += 1
    assert rolls > 10
