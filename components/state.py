"""Per-match state of a unit: action points, health, defence, turn.

Rulesets own the meaning of the numbers in ``Health`` and of the ``record`` a ruleset keeps
on ``DefenceState`` and ``TurnState``; the engine only checks the health ledger (every
change is explained by a ``damage`` event). All of them are immutable values: a change
replaces the component (``Battle.set_turn``, ``Battle.set_defence``; AP and health only
through the systems that own them), and a ruleset's record is a frozen value too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

_EMPTY: Mapping[str, int] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class ActionPoints:
    current: int
    maximum: int


#: Status flags that take a unit out of action.
OUT_OF_ACTION = frozenset({"dead", "unconscious", "out"})


@dataclass(frozen=True, slots=True)
class Health:
    """Ruleset-specific damage tracks, e.g. ``{"hp": 11}`` or ``{"stun": 0, "wounds": 0}``.

    ``maxima`` holds each track's reference value (HP, life points, ...).
    ``status`` holds flags such as ``stunned``, ``unconscious``, ``dead``.
    The mappings are read-only (made from copies of what is given).
    """

    tracks: Mapping[str, int] = field(default_factory=lambda: _EMPTY)
    maxima: Mapping[str, int] = field(default_factory=lambda: _EMPTY)
    status: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if type(self.tracks) is not MappingProxyType:
            object.__setattr__(self, "tracks", MappingProxyType(dict(self.tracks)))
        if type(self.maxima) is not MappingProxyType:
            object.__setattr__(self, "maxima", MappingProxyType(dict(self.maxima)))
        if type(self.status) is not frozenset:
            object.__setattr__(self, "status", frozenset(self.status))

    @property
    def out_of_action(self) -> bool:
        return not self.status.isdisjoint(OUT_OF_ACTION)

    def plus(self, deltas: Mapping[str, int]) -> Health:
        """This health with ``deltas`` added to its tracks."""
        tracks = dict(self.tracks)
        for k, v in deltas.items():
            tracks[k] = tracks.get(k, 0) + int(v)
        return Health(MappingProxyType(tracks), self.maxima, self.status)

    def flagged(self, flag: str, on: bool) -> Health:
        """This health with status ``flag`` set (``on``) or cleared."""
        status = self.status | {flag} if on else self.status - {flag}
        return Health(self.tracks, self.maxima, status)


@dataclass(frozen=True, slots=True)
class DefenceState:
    """A unit's reaction bookkeeping for one turn: the engine puts a fresh ``DefenceState()`` on
    the unit at the start of the unit's own turn.

    ``record`` is the match's ruleset's own frozen record (its type belongs to the ruleset,
    e.g. the GURPS retreats and parries of this turn), ``None`` until the ruleset first sets
    one. The engine never reads it.
    """

    record: Any = None


@dataclass(frozen=True, slots=True)
class TurnState:
    """What the unit did on its current/last turn: the engine puts a fresh ``TurnState()`` on
    the unit at the start of its turn.

    ``record`` is the ruleset's own frozen record of the turn (as :attr:`DefenceState.record`).
    """

    moved: float = 0.0  # inches moved this turn
    attacked_with: frozenset[str] = field(default_factory=frozenset)
    stepped: bool = False
    record: Any = None


@dataclass(frozen=True, slots=True)
class RuleStats:
    """The unit's validated stat block for the match's ruleset (a ruleset Stats model)."""

    profile: str
    stats: Any
