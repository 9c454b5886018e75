"""A ruleset's own per-unit state, kept in the engine's per-turn components.

Contract: the engine puts a fresh :class:`~components.state.DefenceState` and
:class:`~components.state.TurnState` on a unit at the start of the unit's own turn; each
has a ``record`` slot the engine never reads. A ruleset keeps its bookkeeping there as a
dataclass of its own, made on first use by :func:`own_record`, so it resets with the turn
and needs nothing from the engine. One ruleset plays a match, so a slot only ever holds
that ruleset's record type.
"""

from __future__ import annotations

from typing import TypeVar

from components.state import DefenceState, TurnState

R = TypeVar("R")


def own_record(state: DefenceState | TurnState, kind: type[R]) -> R:
    """The ruleset record of type ``kind`` on ``state``, made with ``kind()`` if none yet."""
    record = state.record
    if type(record) is kind:  # the usual case first: rulesets read their records all the time
        return record  # type: ignore[no-any-return]
    if record is not None:
        raise TypeError(f"{type(state).__name__} holds a {type(record).__name__}, not a {kind.__name__}")
    record = state.record = kind()
    return record
