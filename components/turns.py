"""The battle's clock: rounds, the activation order and the turn in progress.

Both components sit on the battle entity (one per match), not on a unit: they are the
loop state the turns system advances. Unit ids name the units, as in events. Immutable:
the turns system replaces them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Round:
    """The current round (0 before the first), the last round to play, and the units yet to
    act this round, in activation order (a unit taken out of action leaves it)."""

    number: int = 0
    limit: int = 0
    order: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ActiveTurn:
    """Whose turn it is (``None`` between turns), whether that turn is over, and how many
    times the unit has been asked for a turn command (a guard against a controller that
    never ends its turn)."""

    unit: str | None = None
    over: bool = False
    commands: int = 0
