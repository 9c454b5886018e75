"""The table a match is played on: sight facts and free movement, kept current.

Contract: an :class:`Arena` binds the static scenario (map, obstacles) to the
units' live bases. It answers sight/cover questions (through
:mod:`game.geometry`'s cached fast path) and movement questions (through
:mod:`game.movement`'s exact paths and legal regions), treating every other
unit in action as a blocker. Units out of action leave the table: they block
nothing and are never cover units. ``update`` after any move, posture or
facing change keeps both current; only what the change invalidates is
recomputed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from components.sight import SightFacts
from components.spatial import POSTURE_HEIGHT, Posture, normalize_degrees
from components.specs import ScenarioSpec
from game.commands import Point
from game.geometry import SightCache, SightIndex, UnitTable
from game.movement import NavMesh, Path, regions
from game.rules.base import Region


class Arena:
    """Sight and movement geometry for one match."""

    def __init__(self, spec: ScenarioSpec) -> None:
        self.spec = spec
        self.ids: tuple[str, ...] = tuple(u.id for u in spec.units)
        self.index_of = {uid: i for i, uid in enumerate(self.ids)}
        n = len(self.ids)
        self.xy = np.array([u.at for u in spec.units], dtype=float).reshape(n, 2)
        self.base = np.array([u.base for u in spec.units], dtype=float)
        self.size = np.array([u.size for u in spec.units], dtype=float)
        self.height = np.array([POSTURE_HEIGHT[Posture(u.posture)] * u.size for u in spec.units], dtype=float)
        self.facing = np.array([normalize_degrees(u.facing) for u in spec.units], dtype=float)
        self.alive = np.ones(n, dtype=bool)
        self.sight_index = SightIndex(spec.obstacles, spec.width, spec.height)
        self.cache = SightCache(self.sight_index, self.table())
        self.nav = NavMesh(spec.obstacles, spec.width, spec.height)

    # ------------------------------------------------------------ state
    def table(self) -> UnitTable:
        """The units as the geometry module sees them (all units, alive or not)."""
        return UnitTable(
            ids=self.ids,
            xy=self.xy.copy(),
            base=self.base.copy(),
            height=self.height.copy(),
            size=self.size.copy(),
            facing=self.facing.copy(),
        )

    def update(self, uid: str, pos: Point, height: float, facing: float) -> None:
        i = self.index_of[uid]
        self.xy[i] = pos
        self.height[i] = height
        self.facing[i] = facing
        self.cache.move_unit(i, (float(pos[0]), float(pos[1])), float(height), float(facing))

    def remove(self, uid: str) -> None:
        """Take a unit off the table (out of action)."""
        self.alive[self.index_of[uid]] = False

    def refresh(self) -> None:
        """Recompute whatever the last changes made stale."""
        self.cache.refresh()

    # ------------------------------------------------------------ sight
    def sight(self, attacker: str, target: str) -> SightFacts:
        facts = self.cache.facts(self.index_of[attacker], self.index_of[target])
        if all(self.alive[self.index_of[u]] for u in facts.intervening):
            return facts
        from dataclasses import replace

        kept = tuple(u for u in facts.intervening if self.alive[self.index_of[u]])
        return replace(facts, intervening=kept)

    # --------------------------------------------------------- movement
    def blockers(self, uid: str | None) -> tuple[np.ndarray, tuple[str, ...]]:
        """Bases of every other unit in action: an (k, 3) array of x, y, r and their ids."""
        keep = self.alive.copy()
        if uid is not None:
            keep[self.index_of[uid]] = False
        arr = np.column_stack([self.xy[keep], self.base[keep]]) if keep.any() else np.empty((0, 3))
        ids = tuple(u for u, k in zip(self.ids, keep, strict=True) if k)
        return arr, ids

    def _me(self, uid: str) -> tuple[Point, float]:
        i = self.index_of[uid]
        return (float(self.xy[i, 0]), float(self.xy[i, 1])), float(self.base[i])

    def path(self, uid: str, to: Point) -> Path | None:
        start, r = self._me(uid)
        blk, ids = self.blockers(uid)
        return self.nav.path(start, (float(to[0]), float(to[1])), r, blk, ids)

    def free_reason(self, uid: str, to: Point) -> str | None:
        _, r = self._me(uid)
        blk, ids = self.blockers(uid)
        return self.nav.free_reason((float(to[0]), float(to[1])), r, blk, ids)

    def move_region(self, uid: str, max_len: float) -> Region:
        start, r = self._me(uid)
        blk, ids = self.blockers(uid)
        geom = regions.dodge_disc(start, r, max_len, blk, self.nav)

        def validate(p: Any) -> str | None:
            why = self.free_reason(uid, p)
            if why:
                return why
            path = self.path(uid, p)
            if path is None:
                return "no free path there"
            if path.length > max_len + 1e-9:
                return f"path of {path.length:.2f} in is longer than {max_len:.2f} in"
            return None

        return Region(geom, validate)

    def step_region(self, uid: str, max_len: float) -> Region:
        start, r = self._me(uid)
        blk, ids = self.blockers(uid)
        geom = regions.step_region(start, r, max_len, blk, self.nav)

        def validate(p: Any) -> str | None:
            if math.dist(p, start) > max_len + 1e-9:
                return f"a step is at most {max_len:.2f} in"
            why = self.free_reason(uid, p)
            if why:
                return why
            blk2, _ = self.blockers(uid)
            return None if self.nav.segment_clear(start, p, r, blk2) else "the way is blocked"

        return Region(geom, validate)

    def retreat_region(self, uid: str, attacker_pos: Point, min_len: float, max_len: float) -> Region:
        start, r = self._me(uid)
        blk, ids = self.blockers(uid)
        geom = regions.retreat_region(start, attacker_pos, r, min_len, max_len, blk, self.nav)

        def validate(p: Any) -> str | None:
            blk2, ids2 = self.blockers(uid)
            return regions.is_legal_retreat(p, start, attacker_pos, r, min_len, max_len, blk2, self.nav, ids2)

        return Region(geom, validate)

    def dodge_region(self, uid: str, max_len: float) -> Region:
        start, r = self._me(uid)
        blk, ids = self.blockers(uid)
        geom = regions.dodge_disc(start, r, max_len, blk, self.nav)

        def validate(p: Any) -> str | None:
            blk2, ids2 = self.blockers(uid)
            return regions.is_legal_dodge_move(p, start, r, max_len, blk2, self.nav, ids2)

        return Region(geom, validate)

    def interpose_region(self, uid: str, friend_pos: Point, attacker_pos: Point, step_len: float) -> Region:
        start, r = self._me(uid)
        blk, ids = self.blockers(uid)
        geom = regions.interpose_points(friend_pos, attacker_pos, start, r, step_len, blk, self.nav)

        def validate(p: Any) -> str | None:
            blk2, ids2 = self.blockers(uid)
            return regions.is_legal_interpose(p, friend_pos, attacker_pos, start, r, step_len, blk2, self.nav, ids2)

        return Region(geom, validate)
