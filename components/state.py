"""Mutable per-match state of a unit: action points, health, defence, turn.

Rulesets own the meaning of the numbers in ``Health``; the engine only checks
the ledger (every change is explained by a ``damage`` event).
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
class DefenseState:
    """Once-per-turn reaction bookkeeping, reset at the start of the unit's own turn.

    ``parries`` counts parries per weapon name this turn; ``extra`` holds
    ruleset-specific flags (e.g. AFF armour-or-dodge choice, defence-dice aims).
    """

    retreated: bool = False
    dodged: bool = False
    dropped: bool = False
    blocked: bool = False
    acrobatic: bool = False
    parries: dict[str, int] = field(default_factory=dict)
    retreat_bonus_vs: set[str] = field(default_factory=set)  # attackers it retreated from
    drop_bonus_vs: set[str] = field(default_factory=set)  # attackers it dodged-and-dropped from
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class TurnState:
    """What the unit did on its current/last turn."""

    moved: float = 0.0  # inches moved this turn
    sprinted: bool = False  # moved faster than Basic Move (GURPS)
    attacked_with: set[str] = field(default_factory=set)
    actions: int = 0  # actions taken (Cortex multi-action penalty)
    stepped: bool = False
    maneuver: str = ""  # GURPS maneuver chosen this turn (e.g. all_out_defence)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class RuleStats:
    """The unit's validated stat block for the match's ruleset (a ruleset Stats model)."""

    profile: str
    stats: Any
