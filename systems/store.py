"""The store of a match: one esper world holding every piece of the match's state.

Contract:
- A :class:`Store` names one esper world with one entity per unit (scenario order) and one
  battle entity (the loop state, the flow in progress, the ruleset's and the AI's memory, the
  random streams, the event log). Every component is an immutable value (``components``):
  a change replaces it (:meth:`Store.put`, :meth:`Store.put_battle`). Nothing outside the
  world holds match state: the arena, sight facts, paths and the pending decision's regions
  are derived from it.
- Reads and writes go through esper's API (``component_for_entity``, ``add_component``,
  ``has_component``) with the store's world made current first (esper's API acts on the
  current world; a check of one global when it already is).
- :meth:`Store.fork` makes an independent copy: a new world whose entities hold the *same*
  component objects (immutable, so shared) in tables of their own, and the processors of this
  one (they keep no match state); the battle entity's ``Randomness`` and ``Journal``, the only
  components holding an object that changes as it is used, are forked (``fork()``). esper has
  no copy of a world, and building one through ``create_entity`` costs ~70 µs for a 5v5 (a
  quarter of a command): :func:`_fork_world` writes the new world's context directly, the one
  place that knows esper 3.9's layout of a world (``tests/engine/test_store.py`` pins it).
- A store's world is deleted when the store is closed or garbage-collected.
- Fast reads, designed in: a unit's ``Identity``, ``Body`` and ``RuleStats`` never change in a
  match; beside the components (which esper queries find as usual) the store keeps them in
  plain tables, ``side``, ``body`` and ``rules_stats``, filled when the unit is made and shared
  by forks. ``table_dirty`` says whether ``TableChanges`` names any unit (a flag beside the
  component, so the sight system's check before every arena read costs no esper call).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
from collections.abc import Iterator
from typing import Any, TypeVar

import esper

from components.battle import Journal, Randomness
from components.changes import Revisions, TableChanges
from components.identity import Identity
from components.spatial import Body, Facing, Position, Stance
from components.state import ActionPoints, Health, RuleStats
from game.core.errors import UnknownName
from game.core.events import round_pos

C = TypeVar("C")

_names = itertools.count()

#: Battle-entity components holding an object a fork must copy, not share.
FORKED = (Randomness, Journal)


def _delete_world(name: str) -> None:
    if name in esper.list_worlds():
        if esper.current_world == name:
            esper.switch_world("default")
        esper.delete_world(name)


class Store:
    """One match's esper world (see the module docstring)."""

    __slots__ = ("_in_action", "battle_eid", "body", "eid", "name", "rules_stats", "side", "table_dirty")

    def __init__(self, name: str | None = None) -> None:
        self.name = name or f"skirmish-match-{next(_names)}"
        #: unit id -> entity id, in scenario order (fixed once built; forks share it)
        self.eid: dict[str, int] = {}
        self.battle_eid = 0
        #: unit id -> side, base and size, validated stat block (fixed; see the module docstring)
        self.side: dict[str, str] = {}
        self.body: dict[str, Body] = {}
        self.rules_stats: dict[str, RuleStats] = {}
        self.table_dirty = False
        self._in_action: list[str] | None = None

    # ------------------------------------------------------------ building
    def activate(self) -> None:
        """Make this store's world esper's current one."""
        if esper.current_world != self.name:
            esper.switch_world(self.name)

    def add_unit(self, uid: str, *components: Any) -> None:
        """Create the entity of unit ``uid`` (units are added in scenario order)."""
        self.activate()
        self.eid[uid] = esper.create_entity(*components)
        for c in components:
            kind = type(c)
            if kind is Identity:
                self.side[uid] = c.side
            elif kind is Body:
                self.body[uid] = c
            elif kind is RuleStats:
                self.rules_stats[uid] = c
        self._in_action = None

    def add_battle(self, *components: Any) -> None:
        """Create the battle entity (once)."""
        self.activate()
        self.battle_eid = esper.create_entity(*components)

    def add_processor(self, processor: esper.Processor, priority: int) -> None:
        self.activate()
        esper.add_processor(processor, priority=priority)

    def process(self, host: Any) -> None:
        """Run the world's processors once (``esper.process(host)``)."""
        if esper.current_world != self.name:
            esper.switch_world(self.name)
        esper.process(host)

    # ------------------------------------------------------------ reading
    def get(self, uid: str, kind: type[C]) -> C:
        """Unit ``uid``'s component of type ``kind`` (``UnknownName`` for an unknown unit)."""
        if esper.current_world != self.name:
            esper.switch_world(self.name)
        try:
            eid = self.eid[uid]
        except KeyError:
            raise UnknownName(f"no unit {uid!r}; units are {', '.join(self.eid)}") from None
        return esper.component_for_entity(eid, kind)

    def battle(self, kind: type[C]) -> C:
        """The battle entity's component of type ``kind``."""
        if esper.current_world != self.name:
            esper.switch_world(self.name)
        return esper.component_for_entity(self.battle_eid, kind)

    def has_battle(self, kind: type[Any]) -> bool:
        if esper.current_world != self.name:
            esper.switch_world(self.name)
        return esper.has_component(self.battle_eid, kind)

    def units(self) -> Iterator[str]:
        return iter(self.eid)

    # ------------------------------------------------------------ writing
    def put(self, uid: str, *components: Any) -> None:
        """Replace components of unit ``uid`` (by type)."""
        if esper.current_world != self.name:
            esper.switch_world(self.name)
        eid = self.eid[uid]
        for c in components:
            esper.add_component(eid, c)

    def put_battle(self, *components: Any) -> None:
        """Replace components of the battle entity (by type)."""
        if esper.current_world != self.name:
            esper.switch_world(self.name)
        eid = self.battle_eid
        for c in components:
            esper.add_component(eid, c)

    def bump(self, uid: str) -> None:
        """Count a change of what ``uid``'s view snapshot shows (``Revisions``)."""
        self.put_battle(self.battle(Revisions).bumped(uid))

    def note_table(self, uid: str) -> None:
        """Note that ``uid``'s place, silhouette, facing or presence changed (``TableChanges``):
        the sight system copies it into the arena before the arena is next read."""
        self.put_battle(self.battle(TableChanges).noted(uid))
        self.table_dirty = True

    def table_synced(self) -> None:
        """The sight system copied every noted unit into the arena."""
        self.put_battle(TableChanges())
        self.table_dirty = False

    # ------------------------------------------------------------ derived
    def in_action(self) -> list[str]:
        """The units in action, in scenario order (callers must not change the list)."""
        got = self._in_action
        if got is None:
            got = self._in_action = [u for u in self.eid if not self.get(u, Health).out_of_action]
        return got

    def statuses_changed(self) -> None:
        """Forget the units in action (a status flag changed)."""
        self._in_action = None

    def state_hash(self) -> str:
        """A short hash of every unit's state that matters for the rest of the match."""
        rows = []
        for uid in self.eid:
            h: Health = self.get(uid, Health)
            p: Position = self.get(uid, Position)
            rows.append(
                [
                    uid,
                    round_pos((p.x, p.y)),
                    round(self.get(uid, Facing).degrees, 6),
                    str(self.get(uid, Stance).posture),
                    sorted(h.tracks.items()),
                    sorted(h.status),
                    self.get(uid, ActionPoints).current,
                ]
            )
        blob = json.dumps(rows, separators=(",", ":"), default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    # ------------------------------------------------------------ copies
    def fork(self) -> Store:
        """An independent copy of this store (see the module docstring)."""
        twin = Store()
        twin.eid = self.eid
        twin.battle_eid = self.battle_eid
        twin.side, twin.body, twin.rules_stats = self.side, self.body, self.rules_stats
        twin.table_dirty = self.table_dirty
        twin._in_action = self._in_action
        _fork_world(self.name, twin.name, self.battle_eid)
        return twin

    def close(self) -> None:
        """Delete the esper world (a finished match need not be kept in memory)."""
        _delete_world(self.name)

    def __del__(self) -> None:
        # Stores hold no reference back to anything that holds them: they die by reference
        # counting, and their world with them (a search makes and drops many clones).
        with contextlib.suppress(Exception):  # (at interpreter shutdown)
            _delete_world(self.name)


def _fork_world(source: str, target: str, battle_eid: int) -> None:
    """Write esper's context of a world ``target`` equal to ``source`` (see the module docstring).

    esper 3.9 keeps a world as the tuple ``(entity counter, {component type: entities},
    {entity: {component type: component}}, dead entities, two query caches, processors,
    processors by type, cache-dirty flag, process times, event handlers)`` in
    ``esper._context_map``; the current world's live objects are the same dicts (esper mutates
    them in place and swaps the tuple on ``switch_world``).
    """
    ctx = esper._context_map[source]
    components, entities = ctx[1], ctx[2]
    new_entities = {eid: table.copy() for eid, table in entities.items()}
    battle = new_entities[battle_eid]
    for kind in FORKED:
        got = battle.get(kind)
        if got is not None:
            battle[kind] = _forked(got)
    esper._context_map[target] = (
        itertools.count(max(entities, default=0) + 1),  # no entity is made after the build
        {kind: eids.copy() for kind, eids in components.items()},
        new_entities,
        set(),
        {},
        {},
        ctx[6],  # the processors: shared, they keep no match state
        ctx[7],
        True,
        {},
        {},
    )


def _forked(component: Any) -> Any:
    if type(component) is Randomness:
        return Randomness(component.dice.fork(), component.ai.fork())
    if type(component) is Journal:
        return Journal(component.log.fork())
    raise TypeError(component)  # pragma: no cover - FORKED lists the two
