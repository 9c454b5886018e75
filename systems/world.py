"""The esper world of one match, read straight from esper's own storage.

Contract:
- A :class:`World` names one esper world: one entity per unit (scenario order) and one
  battle entity holding the loop state (``components.turns``, ``components.decisions``,
  ``components.changes``, and ``Outcome`` once the match is over). It is the only store of
  that state: nothing keeps a second copy.
- ``units[uid]`` is *esper's own* component table of the unit's entity, and ``battle`` the
  battle entity's: the very dicts ``esper.add_component`` writes into and
  ``esper.remove_component`` pops from. esper 3.9 keeps a world's components in the
  module-level ``esper._entities`` (entity -> {component type: component}), swapped on
  ``switch_world``; we keep references to those per-entity dicts, so reading a component
  needs no world switch (rules and AI read positions ~100k times a battle) and a replaced
  component (a unit's ``TurnState`` at its turn start) is seen at once, with nothing to keep
  in step. ``tests/engine/test_world.py`` fails if esper stores components otherwise.
- Entities are never deleted while the match lives: a unit out of action keeps its entity.
  The battle entity's components are mutated in place, never replaced (``Outcome`` is added
  once, at the end), so a hot reader may keep a reference to one.
- esper's API acts on the *current* world: :meth:`activated` makes this one current;
  :meth:`replace` does so when needed. Statuses change only through the casualty system,
  which calls :meth:`statuses_changed` (the units in action are remembered until then).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import esper

from components.changes import Revisions, TableChanges
from components.spatial import Facing, Position, Stance
from components.state import ActionPoints, Health
from game.core.errors import UnknownName
from game.core.events import round_pos

#: A component table: component type -> the entity's component (esper's own dict).
Table = dict[type, Any]


class World:
    """One match's esper world (see the module docstring)."""

    def __init__(self, name: str) -> None:
        self.name = name
        #: unit id -> entity id, in scenario order
        self.eid: dict[str, int] = {}
        #: unit id -> esper's component table of its entity, in scenario order
        self.units: dict[str, Table] = {}
        self.battle_eid = 0
        #: esper's component table of the battle entity
        self.battle: Table = {}
        self._in_action: list[str] | None = None

    @contextmanager
    def activated(self) -> Iterator[None]:
        """Make this world current (esper's API is module-level) for the block."""
        previous = esper.current_world
        esper.switch_world(self.name)
        try:
            yield
        finally:
            if previous != self.name and previous in esper.list_worlds():
                esper.switch_world(previous)

    def _create(self, components: tuple[Any, ...]) -> tuple[int, Table]:
        with self.activated():
            eid = esper.create_entity(*components)
            return eid, esper._entities[eid]

    def add_unit(self, uid: str, *components: Any) -> None:
        """Create the entity of unit ``uid`` (units are added in scenario order)."""
        self.eid[uid], self.units[uid] = self._create(components)
        self._in_action = None

    def add_battle(self, *components: Any) -> None:
        """Create the battle entity (once)."""
        self.battle_eid, self.battle = self._create(components)

    def unit(self, uid: str) -> Table:
        """The component table of unit ``uid``; ``UnknownName`` if there is none."""
        try:
            return self.units[uid]
        except KeyError:
            raise UnknownName(f"no unit {uid!r}; units are {', '.join(self.units)}") from None

    def replace(self, eid: int, *components: Any) -> None:
        """Add ``components`` to entity ``eid``, replacing those of the same types."""
        if esper.current_world == self.name:
            for c in components:
                esper.add_component(eid, c)
            return
        with self.activated():
            for c in components:
                esper.add_component(eid, c)

    def replace_battle(self, *components: Any) -> None:
        """Replace components of the battle entity."""
        self.replace(self.battle_eid, *components)

    def bump(self, uid: str) -> None:
        """Count a change of what ``uid``'s view snapshot shows (``Revisions``)."""
        self.replace_battle(self.battle[Revisions].bumped(uid))

    def note_table(self, uid: str) -> None:
        """Note that ``uid``'s place, silhouette, facing or presence changed (``TableChanges``)."""
        self.replace_battle(self.battle[TableChanges].noted(uid))

    def in_action(self) -> list[str]:
        """The units in action, in scenario order (callers must not change the list)."""
        got = self._in_action
        if got is None:
            got = self._in_action = [u for u, t in self.units.items() if not t[Health].out_of_action]
        return got

    def statuses_changed(self) -> None:
        """Forget the units in action (a status flag changed)."""
        self._in_action = None

    def state_hash(self) -> str:
        """A short hash of every unit's state that matters for the rest of the match."""
        rows = []
        for uid, t in self.units.items():
            h: Health = t[Health]
            p: Position = t[Position]
            rows.append(
                [
                    uid,
                    round_pos((p.x, p.y)),
                    round(t[Facing].degrees, 6),
                    str(t[Stance].posture),
                    sorted(h.tracks.items()),
                    sorted(h.status),
                    t[ActionPoints].current,
                ]
            )
        blob = json.dumps(rows, separators=(",", ":"), default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def close(self) -> None:
        """Delete the esper world."""
        if self.name in esper.list_worlds():
            if esper.current_world == self.name:
                esper.switch_world("default")
            esper.delete_world(self.name)
