"""How a match ended: added to the battle entity when it ends, never changed after."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Outcome:
    """``winner`` is a side, or ``None`` for a draw."""

    winner: str | None
    reason: str  # "last side standing", "round limit", "no units left"
    rounds: int
