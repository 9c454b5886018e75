"""Static terrain: obstacles as polygons with a height (DESIGN §2-3)."""

from __future__ import annotations

from dataclasses import dataclass

#: Named obstacle heights, in units of a standing human's height.
HEIGHT_NAMES: dict[str, float] = {"low": 0.5, "high": 2.0}


@dataclass(frozen=True, slots=True)
class ObstacleSpec:
    """One obstacle: a simple polygon (x, y inches), a height and a size.

    ``size`` is compared with a unit's size for the defence-dice "hidden" rule.
    """

    id: str
    polygon: tuple[tuple[float, float], ...]
    height: float
    size: float = 1.0
