"""Where a unit is and how it stands: position, body, facing, posture.

Units are inches (see DESIGN §1): x grows east, y grows south, facing in degrees
with 0 = east and 90 = south, normalized to [0, 360). Immutable values: a move, a turn or a
posture change replaces the component.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Posture(StrEnum):
    """Body postures, tallest first."""

    STANDING = "standing"
    CROUCHING = "crouching"
    KNEELING = "kneeling"
    SITTING = "sitting"
    CRAWLING = "crawling"
    PRONE = "prone"


#: Silhouette height per posture, in units of a standing human (DESIGN §3).
POSTURE_HEIGHT: dict[Posture, float] = {
    Posture.STANDING: 1.0,
    Posture.CROUCHING: 0.75,
    Posture.KNEELING: 0.6,
    Posture.SITTING: 0.6,
    Posture.CRAWLING: 0.3,
    Posture.PRONE: 0.25,
}

#: Eye height as a fraction of the posture height (DESIGN §3).
EYE_FRACTION = 0.9

#: Postures that count as "lying down" for rules that care (GURPS retreat by roll, drop).
LYING_DOWN = frozenset({Posture.CRAWLING, Posture.PRONE})


def normalize_degrees(deg: float) -> float:
    """Return ``deg`` folded into [0, 360)."""
    d = float(deg) % 360.0
    return 0.0 if d >= 360.0 else d


@dataclass(frozen=True, slots=True)
class Position:
    """Centre of the unit's base, inches."""

    x: float
    y: float


@dataclass(frozen=True, slots=True)
class Body:
    """Base radius (inches) and size scale (1 = a human)."""

    base: float = 0.5
    size: float = 1.0


@dataclass(frozen=True, slots=True)
class Facing:
    """Facing in degrees, 0 = east, 90 = south."""

    degrees: float = 0.0


@dataclass(frozen=True, slots=True)
class Stance:
    """Current posture."""

    posture: Posture = Posture.STANDING

    @property
    def height(self) -> float:
        return POSTURE_HEIGHT[self.posture]
