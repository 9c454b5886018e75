"""A ruleset's own per-unit state, kept in the engine's per-turn components.

Contract: the engine puts a fresh :class:`~components.state.DefenceState` and
:class:`~components.state.TurnState` on a unit at the start of the unit's own turn; each
has a ``record`` slot the engine never reads. A ruleset keeps its bookkeeping there as a
frozen dataclass of its own: :func:`record_of` reads it (a fresh default record if the slot
is empty, as at a turn start), :func:`set_turn_record` / :func:`set_defence_record` replace it
through the battle. One ruleset plays a match, so a slot only ever holds that ruleset's
record type.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeVar

from components.state import DefenceState, TurnState
from game.core.battle import Battle

R = TypeVar("R")


def record_of(state: DefenceState | TurnState, kind: type[R]) -> R:
    """The ruleset record of type ``kind`` on ``state``, or a fresh ``kind()`` if none yet."""
    record = state.record
    if type(record) is kind:  # the usual case first: rulesets read their records all the time
        return record  # type: ignore[no-any-return]
    if record is not None:
        raise TypeError(f"{type(state).__name__} holds a {type(record).__name__}, not a {kind.__name__}")
    return kind()


def set_turn_record(battle: Battle, uid: str, record: Any) -> None:
    """Replace ``uid``'s turn record (its ``TurnState`` otherwise unchanged)."""
    battle.set_turn(uid, replace(battle.turn(uid), record=record))


def set_defence_record(battle: Battle, uid: str, record: Any) -> None:
    """Replace ``uid``'s defence record (its ``DefenceState`` otherwise unchanged)."""
    battle.set_defence(uid, replace(battle.defence(uid), record=record))
