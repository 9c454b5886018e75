"""AP pool in play: AI battles on the shipped 5v5 scenario dodge, and dodge moves go into cover.

Both built-in policies play both sides on fixed seeds. Dodges must occur and be legal (2 AP,
once per turn: the log is checked with the match invariants), a failed dodge leaves the
damage as normal (P10), and the 2" moves after successful dodges must occur, stay within 2"
and leave the unit less exposed to the enemies that can see it (P11, P14, P16): the exact cover
of the unit against every enemy, before and after, from the cover kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from game.ai import tactics as t
from game.rules.ap_pool.commands import DodgeMove
from tests.rules.in_play import play

SEEDS = (1, 2)


def _threat(view: Any, uid: str, at: tuple[float, float]) -> float:
    unit = t.me(view, uid)
    _, rows = t.enemy_rows(view, uid)
    pts = np.array([at])
    exposed, _ = t.cover_matrix(view, unit, pts, rows)
    return float(t.threat(exposed, t.distance_weights(pts, view, rows))[0])


@pytest.fixture(scope="module")
def battles() -> tuple[list[list[dict[str, Any]]], list[tuple[float, float]]]:
    moves: list[tuple[float, float]] = []

    def watch(match: Any, view: Any, decision: Any, cmd: Any) -> None:
        if decision.kind == "dodge_move" and isinstance(cmd, DodgeMove) and cmd.to is not None:
            here = view.pos(cmd.unit)
            moves.append((_threat(view, cmd.unit, here), _threat(view, cmd.unit, cmd.to)))

    logs = [
        play("skirmish-5v5", "ap-pool", seed, pols, watch)
        for seed in SEEDS
        for pols in (("cautious", "aggressive"), ("aggressive", "cautious"))
    ]
    return logs, moves


def test_dodge_moves_go_into_cover(battles: Any) -> None:
    logs, moves = battles
    assert len(moves) >= 5
    for before, after in moves:
        assert after < before - 0.04, (before, after)  # at least MOVE_GAIN less exposed
    lengths = [e["length"] for log in logs for e in log if e["type"] == "dodge_move"]
    assert len(lengths) == len(moves) and max(lengths) <= 2.0 + 1e-6


def test_failed_dodges_leave_the_damage_as_normal(battles: Any) -> None:
    logs, _ = battles
    failed = 0
    for log in logs:
        last_attack: dict[str, Any] = {}
        failed_on: set[int] = set()
        for e in log:
            if e["type"] == "attack":
                last_attack[e["target"]] = e
            elif e["type"] == "defence" and e["kind"] == "dodge" and not e["success"]:
                failed_on.add(last_attack[e["unit"]]["seq"])
            elif e["type"] == "damage" and last_attack.get(e["unit"], {}).get("seq") in failed_on:
                assert e["extra_successes"] == last_attack[e["unit"]]["successes"] - 1, e
                failed += 1
    assert failed >= 3
