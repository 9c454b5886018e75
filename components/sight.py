"""What one unit sees of another: the answer of the cover model (DESIGN §3)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class CoverLevel(StrEnum):
    NONE = "none"
    LIGHT = "light"
    MEDIUM = "medium"
    HEAVY = "heavy"
    NEAR_TOTAL = "near-total"
    TOTAL = "total"


class Arc(StrEnum):
    FRONT = "front"
    SIDE = "side"
    REAR = "rear"


@dataclass(frozen=True, slots=True)
class SightFacts:
    """Line of sight and cover from one unit (attacker) to another (target)."""

    attacker: str
    target: str
    visible: bool
    cover_fraction: float
    cover: CoverLevel
    intervening: tuple[str, ...]
    hidden: bool
    arc: Arc
    distance: float
