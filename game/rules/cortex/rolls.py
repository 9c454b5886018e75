"""Rolling a Cortex pool through the match's dice.

Contract: a pool (``game.dice.cortex.Pool``: the sides of each die) is rolled one die at a time,
in pool order, through ``battle.dice`` (one seeded stream per match), so the event log shows
every die with its purpose and unit; :func:`roll_total` is the sum, the roll that meets a
Difficulty or sets one (shared/rules/cortex-actions-defense-damage.txt: "Attack roll -
Difficulty", "make an unskilled Agility roll as the Difficulty").
"""

from __future__ import annotations

from game.core.battle import Battle
from game.dice.cortex import Pool


def roll_faces(battle: Battle, pool: Pool, purpose: str, uid: str | None) -> list[int]:
    """The faces of each die of ``pool``, in order."""
    faces: list[int] = []
    for sides in pool:
        faces.extend(battle.dice.roll(1, sides, purpose, uid))
    return faces


def roll_total(battle: Battle, pool: Pool, purpose: str, uid: str | None) -> int:
    """The total of ``pool`` rolled for ``purpose``."""
    return sum(roll_faces(battle, pool, purpose, uid))
