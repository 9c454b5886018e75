"""GURPS bookkeeping as frozen values: a unit's records of one turn and the battle's memory.

:func:`defence_record` is the unit's :class:`GurpsDefence` (what it did to defend since its
last turn began: the once-per-turn limits and the bonuses that carry over);
:func:`turn_record` its :class:`GurpsTurn` (the maneuver it chose and what carries into its
attacks). Both reset when the unit's next turn starts (see :mod:`game.rules.unit_state`).
:func:`memory` is the battle's :class:`GurpsMemory` (``Battle.rules_state``): what must outlive
that reset, the shock and the Aim a unit carries into its next turn.

All three are frozen values registered with :mod:`game.core.codec` (a snapshot writes them);
a change replaces them through the battle (:func:`update_defence`, :func:`update_turn`,
:func:`set_memory`), never in place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from game.core.battle import Battle
from game.core.codec import value
from game.rules.unit_state import record_of, set_defence_record, set_turn_record

_NO_PARRIES: Mapping[str, int] = MappingProxyType({})


def _proxy(obj: Any, name: str) -> None:
    """Make the mapping field ``name`` of a frozen value read-only (a decoded one is a dict)."""
    got = getattr(obj, name)
    if type(got) is not MappingProxyType:
        object.__setattr__(obj, name, MappingProxyType(dict(got)))


@value("gurps.defence")
@dataclass(frozen=True, slots=True)
class GurpsDefence:
    """Defences since the unit's turn began (``parries``: per weapon name)."""

    retreated: bool = False  # retreated (an attempt counts) since its turn began
    interposed: bool = False  # moved to interpose (sacrificial dodge): no retreat before its next turn
    blocked: bool = False  # blocked since its turn began
    acrobatic: bool = False  # one acrobatic dodge per turn
    parries: Mapping[str, int] = field(default_factory=lambda: _NO_PARRIES)
    retreat_bonus_vs: frozenset[str] = frozenset()  # attackers it retreated from
    drop_bonus_vs: frozenset[str] = frozenset()  # attackers it dodged-and-dropped from
    retreats: int = 0  # retreats (attempts) since its turn began: option retreats_per_turn caps them
    blocks: int = 0  # blocks since its turn began: option blocks_per_turn caps them

    @property
    def retreat_count(self) -> int:
        """Retreats since its turn began (``retreated`` alone counts as one)."""
        return max(self.retreats, int(self.retreated))

    @property
    def block_count(self) -> int:
        """Blocks since its turn began (``blocked`` alone counts as one)."""
        return max(self.blocks, int(self.blocked))

    def __post_init__(self) -> None:
        _proxy(self, "parries")
        for name in ("retreat_bonus_vs", "drop_bonus_vs"):
            if type(getattr(self, name)) is not frozenset:
                object.__setattr__(self, name, frozenset(getattr(self, name)))


@value("gurps.turn")
@dataclass(frozen=True, slots=True)
class GurpsTurn:
    """The unit's turn: its maneuver, and what carries into its attacks."""

    maneuver: str = ""  # e.g. attack, move, aim, all_out_defence
    shock: int = 0  # skill penalty from injury taken since its last turn
    aim: tuple[str, str] | None = None  # (target, weapon) of an Aim taken last turn
    step_in: float = 0.0  # inches stepped this turn (a Move maneuver covers the rest of Move)


@value("gurps.memory")
@dataclass(frozen=True, slots=True)
class GurpsMemory:
    """What outlives a unit's turn reset until its next turn starts, by unit: the shock of injury
    taken since (``shock``) and the ``(target, weapon)`` of an Aim maneuver (``aims``)."""

    shock: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    aims: Mapping[str, tuple[str, str]] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        _proxy(self, "shock")
        _proxy(self, "aims")

    def injured(self, uid: str, shock: int) -> GurpsMemory:
        """This memory after ``uid`` took injury: its pending shock is ``shock``, its Aim spoilt."""
        return GurpsMemory({**self.shock, uid: shock}, _without(self.aims, uid))

    def with_aim(self, uid: str, aim: tuple[str, str]) -> GurpsMemory:
        """This memory with ``uid``'s Aim set to ``aim``."""
        return GurpsMemory(self.shock, {**self.aims, uid: aim})

    def without(self, uid: str) -> GurpsMemory:
        """This memory with nothing pending for ``uid`` (its turn took it)."""
        return GurpsMemory(_without(self.shock, uid), _without(self.aims, uid))


_NO_MEMORY = GurpsMemory()


def _without(table: Mapping[str, Any], uid: str) -> dict[str, Any]:
    return {k: v for k, v in table.items() if k != uid}


def defence_record(battle: Battle, uid: str) -> GurpsDefence:
    """``uid``'s :class:`GurpsDefence` (a fresh one if none yet this turn)."""
    return record_of(battle.defence(uid), GurpsDefence)


def turn_record(battle: Battle, uid: str) -> GurpsTurn:
    """``uid``'s :class:`GurpsTurn` (a fresh one if none yet this turn)."""
    return record_of(battle.turn(uid), GurpsTurn)


def update_defence(battle: Battle, uid: str, **changes: Any) -> GurpsDefence:
    """Replace ``uid``'s :class:`GurpsDefence` by one with ``changes``; returns the new record."""
    record = replace(defence_record(battle, uid), **changes)
    set_defence_record(battle, uid, record)
    return record


def update_turn(battle: Battle, uid: str, **changes: Any) -> GurpsTurn:
    """Replace ``uid``'s :class:`GurpsTurn` by one with ``changes``; returns the new record."""
    record = replace(turn_record(battle, uid), **changes)
    set_turn_record(battle, uid, record)
    return record


def memory(battle: Battle) -> GurpsMemory:
    """The battle's :class:`GurpsMemory` (an empty one until first set)."""
    state: GurpsMemory | None = battle.rules_state
    return _NO_MEMORY if state is None else state


def set_memory(battle: Battle, mem: GurpsMemory) -> None:
    """Replace the battle's :class:`GurpsMemory`."""
    battle.set_rules_state(mem)
