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


def mutable_record(battle: Battle, uid: str, which: str, kind: type[R]) -> R:
    """Interim, for rulesets not yet on frozen records: ``uid``'s record of type ``kind`` on its
    ``"turn"`` or ``"defence"`` state, made (and put on the state) if none yet, changed in place
    by the caller. Being replaced by :func:`record_of` with frozen records."""
    state = battle.turn(uid) if which == "turn" else battle.defence(uid)
    record = state.record
    if type(record) is kind:
        return record  # type: ignore[no-any-return]
    if record is not None:
        raise TypeError(f"{type(state).__name__} holds a {type(record).__name__}, not a {kind.__name__}")
    made = kind()
    if which == "turn":
        battle.set_turn(uid, replace(state, record=made))  # type: ignore[arg-type]
    else:
        battle.set_defence(uid, replace(state, record=made))  # type: ignore[arg-type]
    return made
