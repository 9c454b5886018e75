"""SightSystem: sight and cover, and the one writer of the numpy mirror of the units.

Contract:
- It builds the match's :class:`~game.battlefield.arena.Arena` (sight facts, cover units,
  paths and legal regions over numpy arrays of every unit's place, silhouette, facing and
  presence) from the units' components, and keeps it derived from them: the systems that
  change a place, a posture, a facing or a presence (movement, posture, casualties) only
  note the unit in the battle's :class:`~components.changes.TableChanges`; :meth:`sync`
  copies those units' components into the arena, in the order they changed, and nothing
  else writes it. A unit out of action leaves the table for good.
- Every reader of the arena gets it through :meth:`table`, which syncs first: the cost is
  one check when nothing changed, else one ``Arena.update`` per changed unit.
- As an esper processor it syncs and brings the all-pairs sight facts up to date after
  each step, so the AI, the rulesets and the renderer read fresh facts without recomputing
  all pairs per query.
"""

from __future__ import annotations

from typing import Any

import esper
import numpy as np

from components.changes import TableChanges
from components.spatial import POSTURE_HEIGHT, Body, Facing, Position, Stance
from components.specs import ScenarioSpec
from components.state import Health
from game.battlefield.arena import Arena
from game.geometry import UnitTable
from systems.world import Table, World


def _height(t: Table) -> float:
    """The silhouette height of a unit: its posture's height times its size."""
    return POSTURE_HEIGHT[t[Stance].posture] * t[Body].size


class SightSystem(esper.Processor):
    """Owns the arena (see the module docstring)."""

    def __init__(self, world: World, spec: ScenarioSpec) -> None:
        self._world = world
        units = world.units.values()
        table = UnitTable(
            ids=tuple(world.units),
            xy=np.array([(t[Position].x, t[Position].y) for t in units], dtype=float).reshape(-1, 2),
            base=np.array([t[Body].base for t in units], dtype=float),
            height=np.array([_height(t) for t in units], dtype=float),
            size=np.array([t[Body].size for t in units], dtype=float),
            facing=np.array([t[Facing].degrees for t in units], dtype=float),
        )
        self._arena = Arena(spec, table)
        self._battle = world.battle

    def table(self) -> Arena:
        """The arena, synced with the components."""
        if self._battle[TableChanges].units:
            self.sync()
        return self._arena

    def sync(self) -> None:
        """Copy the components of the units that changed into the arena."""
        changed = self._battle[TableChanges].units
        if not changed:
            return
        arena, units = self._arena, self._world.units
        for uid in changed:
            if not arena.alive[arena.index_of[uid]]:
                continue  # off the table for good
            t = units[uid]
            p: Position = t[Position]
            arena.update(uid, (p.x, p.y), _height(t), t[Facing].degrees)
            if t[Health].out_of_action:
                arena.remove(uid)
        self._world.replace_battle(TableChanges())

    def process(self, *_: Any) -> None:
        self.sync()
        self._arena.refresh()
