"""SightSystem: sight and cover, and the one writer of the numpy mirror of the units.

Contract:
- :meth:`SightSystem.build` makes a match's :class:`~game.battlefield.arena.Arena` (sight facts,
  cover units, paths and legal regions over numpy arrays of every unit's place, silhouette,
  facing and presence) from the units' components. The arena is derived from them: the systems
  that change a place, a posture, a facing or a presence (movement, posture, casualties) only
  note the unit in the battle's :class:`~components.changes.TableChanges`; :meth:`sync` copies
  those units' components into the arena, in the order they changed, and nothing else writes
  it. A unit out of action leaves the table for good.
- Every reader of the arena gets it through :meth:`table`, which syncs first: the cost is
  one check when nothing changed, else one ``Arena.update`` per changed unit.
- As an esper processor it syncs and brings the all-pairs sight facts up to date after
  each step, so the AI, the rulesets and the renderer read fresh facts without recomputing
  all pairs per query.
"""

from __future__ import annotations

import esper
import numpy as np

from components.changes import TableChanges
from components.spatial import POSTURE_HEIGHT, Body, Facing, Position, Stance
from components.specs import ScenarioSpec
from components.state import Health
from game.battlefield.arena import Arena
from game.geometry import UnitTable
from systems.host import Host
from systems.store import Store


def height_of(store: Store, uid: str) -> float:
    """The silhouette height of a unit: its posture's height times its size."""
    return POSTURE_HEIGHT[store.get(uid, Stance).posture] * store.body[uid].size


class SightSystem(esper.Processor):
    """Keeps each match's arena (see the module docstring)."""

    @staticmethod
    def build(spec: ScenarioSpec, store: Store) -> Arena:
        """The arena of the units as they stand in ``store``."""
        ids = tuple(store.units())
        positions = [store.get(u, Position) for u in ids]
        table = UnitTable(
            ids=ids,
            xy=np.array([(p.x, p.y) for p in positions], dtype=float).reshape(-1, 2),
            base=np.array([store.get(u, Body).base for u in ids], dtype=float),
            height=np.array([height_of(store, u) for u in ids], dtype=float),
            size=np.array([store.get(u, Body).size for u in ids], dtype=float),
            facing=np.array([store.get(u, Facing).degrees for u in ids], dtype=float),
        )
        arena = Arena(spec, table)
        for u in ids:
            if store.get(u, Health).out_of_action:
                arena.remove(u)
        return arena

    def table(self, host: Host) -> Arena:
        """The arena, synced with the components."""
        if host.store.table_dirty:
            self.sync(host)
        return host.mirror

    def sync(self, host: Host) -> None:
        """Copy the components of the units that changed into the arena."""
        store = host.store
        changed = store.battle(TableChanges).units
        if not changed:
            return
        arena = host.mirror
        for uid in changed:
            if not arena.alive[arena.index_of[uid]]:
                continue  # off the table for good
            p = store.get(uid, Position)
            arena.update(uid, (p.x, p.y), height_of(store, uid), store.get(uid, Facing).degrees)
            if store.get(uid, Health).out_of_action:
                arena.remove(uid)
        store.table_synced()

    def process(self, host: Host) -> None:  # type: ignore[override]
        self.sync(host)
        host.mirror.refresh()
