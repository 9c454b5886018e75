"""Mutable per-match state of a unit: action points, health, defence, turn.

Rulesets own the meaning of the numbers in ``Health`` and of the ``record`` a ruleset keeps
on ``DefenceState`` and ``TurnState``; the engine only checks the health ledger (every
change is explained by a ``damage`` event).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class ActionPoints:
    current: int
    maximum: int


#: Status flags that take a unit out of action.
OUT_OF_ACTION = frozenset({"dead", "unconscious", "out"})


@dataclass(slots=True)
class Health:
    """Ruleset-specific damage tracks, e.g. ``{"hp": 11}`` or ``{"stun": 0, "wounds": 0}``.

    ``maxima`` holds each track's reference value (HP, life points, ...).
    ``status`` holds flags such as ``stunned``, ``unconscious``, ``dead``.
    """

    tracks: dict[str, int] = field(default_factory=dict)
    maxima: dict[str, int] = field(default_factory=dict)
    status: set[str] = field(default_factory=set)

    @property
    def out_of_action(self) -> bool:
        return not self.status.isdisjoint(OUT_OF_ACTION)


@dataclass(slots=True)
class DefenceState:
    """A unit's reaction bookkeeping for one turn: the engine puts a fresh ``DefenceState()`` on
    the unit at the start of the unit's own turn.

    ``record`` is the match's ruleset's own record (its type belongs to the ruleset, e.g. the
    GURPS retreats and parries of this turn), made by the ruleset when it first needs it;
    ``None`` until then. The engine never reads it.
    """

    record: Any = None


@dataclass(slots=True)
class TurnState:
    """What the unit did on its current/last turn: the engine puts a fresh ``TurnState()`` on
    the unit at the start of its turn.

    ``record`` is the ruleset's own record of the turn (as :attr:`DefenceState.record`).
    """

    moved: float = 0.0  # inches moved this turn
    attacked_with: set[str] = field(default_factory=set)
    stepped: bool = False
    record: Any = None


@dataclass(slots=True)
class RuleStats:
    """The unit's validated stat block for the match's ruleset (a ruleset Stats model)."""

    profile: str
    stats: Any
