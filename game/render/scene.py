"""Derived drawing data, computed from the match view only when the match changes.

Contract: a :class:`Scene` wraps one :class:`~game.engine.view.MatchView` (through a
:class:`CachedView`, which caches unit snapshots, enemies and sight facts until the next
event). :meth:`Scene.sync` reads the events logged since the last call
(``view.events(since)``) and bumps :attr:`Scene.version` when there are any; every cached item
(sight fans, silhouettes, arcs, the threat map, the log's sentences) is keyed on that version,
regions on the pending decision, so a frame in which nothing happened recomputes nothing.
:class:`ThreatMap` evaluates the view's :class:`~game.engine.view.Exposure` (the vectorized
geometry query, taken as the table stood) over the centres of the map's cells in chunks, so
the window can spread the work over frames (``advance(budget_s)``) while ``skirmish render``
finishes it at once. The exact reach of a Move option (the view's
:class:`~game.engine.view.Reach`) is computed on request in one background thread, on a
navigation mesh of that thread's own, never touching the match. Everything is read through
the view. Nothing here imports pygame or changes the match.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry.base import BaseGeometry

from components.sight import Arc, SightFacts
from game.core.commands import Decision
from game.engine.view import Exposure, MatchView, UnitView
from game.geometry.model import LEVELS, level_codes
from game.geometry.shapes import SilhouetteParts, arc_wedges, silhouette_parts
from game.render import colors
from game.render.sentences import sentences
from game.render.shapes import Ring, region_rings, thin_lines
from game.rules.sheet import UnitSheet

Point = tuple[float, float]

#: Threat-map cells evaluated in the first chunk; later chunks are sized to the time budget.
FIRST_CHUNK = 32


@dataclass(frozen=True)
class Silhouette:
    """A target as one attacker sees it.

    Attributes:
        attacker: the viewing unit.
        target: the unit seen.
        parts: hidden and exposed parts (frame pictures and map wedges), from
            :func:`game.geometry.shapes.silhouette_parts`.
        hidden_wedge: map rings of the rays that see nothing of the target.
        exposed_wedge: map rings of the rays that see some of it.
        facts: the sight facts of the pair.
    """

    attacker: str
    target: str
    parts: SilhouetteParts
    hidden_wedge: list[tuple[Ring, list[Ring]]]
    exposed_wedge: list[tuple[Ring, list[Ring]]]
    facts: SightFacts


@dataclass(frozen=True)
class RegionShape:
    """A drawable legal region of a pending decision's point option."""

    overlay: str  # "retreat", "dodge" or "move"
    option: int  # index in decision.options
    rings: list[tuple[Ring, list[Ring]]]
    #: A thin region's lines (:func:`~game.render.shapes.thin_lines`), drawn as a band instead of rings.
    lines: list[Ring] | None = None

    @classmethod
    def of(cls, overlay: str, option: int, geom: Any) -> RegionShape:
        """The shape of region ``geom``: its lines if it is thin, else its rings."""
        lines = thin_lines(geom)
        return cls(overlay, option, [] if lines else region_rings(geom), lines)


def region_overlay(decision: Decision, option_index: int) -> str:
    """Which overlay toggle shows a point option's region."""
    opt = decision.options[option_index]
    if opt.point_field == "retreat_to":
        return "retreat"
    if decision.kind == "turn":
        return "move"
    return "dodge"


def cell_centres(width: float, depth: float, cell: float) -> NDArray[np.float64]:
    """Centres of the map's cells, column-major: row ``i * ny + j`` is cell column i, row j."""
    nx, ny = max(1, math.ceil(width / cell)), max(1, math.ceil(depth / cell))
    gx, gy = np.meshgrid((np.arange(nx) + 0.5) * cell, (np.arange(ny) + 0.5) * cell, indexing="ij")
    return np.column_stack([gx.ravel(), gy.ravel()])


class ThreatMap:
    """How many enemies see each cell centre, and the cover it has from the most exposing one.

    Args:
        exposure: the unit (its base, size and height) and its living enemies, as the table
            stood when it was taken (:meth:`~game.engine.view.MatchView.exposure`).
        width: map width, inches.
        depth: map height, inches.
        cell: cell size, inches (one sample per cell, at its centre).
        free: which cell centres a base of this radius can stand on (from :meth:`Scene.free_cells`);
            the others are skipped.
    """

    def __init__(
        self,
        exposure: Exposure,
        width: float,
        depth: float,
        cell: float,
        free: NDArray[np.bool_],
    ) -> None:
        self.exposure = exposure
        self.enemies_of: str | None = None
        self.cell = cell
        self.nx, self.ny = max(1, math.ceil(width / cell)), max(1, math.ceil(depth / cell))
        self.points = cell_centres(width, depth, cell)
        self.todo = np.flatnonzero(free)
        self.count = np.zeros(len(self.points), dtype=np.int16)
        self.best = np.ones(len(self.points), dtype=np.float64)
        self.known = np.zeros(len(self.points), dtype=bool)
        self.done = 0
        self._chunk = FIRST_CHUNK
        self.seconds = 0.0

    @property
    def finished(self) -> bool:
        return self.done >= len(self.todo)

    def advance(self, budget_s: float | None = None) -> bool:
        """Evaluate more cells (all of them if ``budget_s`` is None); True when finished."""
        start = time.perf_counter()
        while not self.finished:
            if budget_s is not None and time.perf_counter() - start >= budget_s:
                break
            t0 = time.perf_counter()
            rows = self.todo[self.done : self.done + self._chunk]
            self._evaluate(rows)
            self.done += len(rows)
            spent = time.perf_counter() - t0
            if budget_s is not None and spent > 0:
                # aim each chunk at about half the budget
                self._chunk = int(max(16, min(4096, len(rows) * (0.5 * budget_s) / spent)))
            elif budget_s is None:
                self._chunk = 4096
        self.seconds += time.perf_counter() - start
        return self.finished

    def _evaluate(self, rows: NDArray[np.int64]) -> None:
        if len(self.exposure.enemies) == 0:
            self.known[rows] = True
            return
        frac = self.exposure.at(self.points[rows])
        seen = frac < 1.0
        self.count[rows] = seen.sum(axis=1)
        self.best[rows] = np.where(seen, frac, 1.0).min(axis=1)
        self.known[rows] = True

    def rgba(self) -> NDArray[np.uint8]:
        """An (nx, ny, 4) image: colour = cover from the most exposing enemy (red = in the open,
        :data:`~game.render.colors.THREAT_COLORS`), opacity = how many enemies see the point."""
        img = np.zeros((len(self.points), 4), dtype=np.uint8)
        lit = self.known & (self.count > 0)
        codes = level_codes(self.best[lit])
        palette = np.array([colors.THREAT_COLORS[level] for level in LEVELS], dtype=np.uint8)
        img[lit, :3] = palette[codes]
        extra = colors.THREAT_ALPHA_EACH * (self.count[lit].astype(np.int32) - 1)
        img[lit, 3] = np.minimum(colors.THREAT_ALPHA_MAX, colors.THREAT_ALPHA_FIRST + extra).astype(np.uint8)
        return img.reshape(self.nx, self.ny, 4)

    def at(self, p: Point) -> tuple[int, float] | None:
        """(enemies seeing, best cover fraction) of the cell containing ``p``; None if not computed."""
        i, j = int(p[0] // self.cell), int(p[1] // self.cell)
        if not (0 <= i < self.nx and 0 <= j < self.ny):
            return None
        k = i * self.ny + j
        if not self.known[k]:
            return None
        return int(self.count[k]), float(self.best[k])


class CachedView(MatchView):
    """A :class:`~game.engine.view.MatchView` whose unit snapshots, enemy lists and sight facts are cached
    until the match logs its next event (a view call costs tens of microseconds per unit; a frame
    asks for every unit several times). Everything else is the plain view's.

    Args:
        view: a view of the match to show.
    """

    def __init__(self, view: MatchView) -> None:
        super().__init__(view)
        self._plain = MatchView(view)  # the uncached answers (its methods do not come back here)
        self._seen = 0
        self.version = 0
        self._units: dict[str, UnitView] | None = None
        self._enemies: dict[str, list[str]] = {}
        self._sight: dict[tuple[str, str], SightFacts] = {}
        self._sheets: dict[str, UnitSheet] = {}

    def _check(self) -> None:
        n = len(self._plain.events(self._seen))
        if n:
            self._seen += n
            self.version += 1
            self._units = None
            self._enemies.clear()
            self._sight.clear()
            self._sheets.clear()

    def _all(self) -> dict[str, UnitView]:
        self._check()
        if self._units is None:
            self._units = {u.id: u for u in self._plain.units(alive=False)}
        return self._units

    def unit(self, uid: str) -> UnitView:
        """The unit's snapshot (:class:`~game.engine.view.UnitView`)."""
        return self._all()[uid]

    def units(self, alive: bool = True) -> list[UnitView]:
        """Unit snapshots in scenario order (only those in action if ``alive``)."""
        return [u for u in self._all().values() if u.alive or not alive]

    def enemies(self, uid: str) -> list[str]:
        """Living enemies of ``uid``."""
        self._check()
        got = self._enemies.get(uid)
        if got is None:
            got = self._enemies[uid] = list(self._plain.enemies(uid))
        return got

    def sight(self, attacker: str, target: str) -> SightFacts:
        """Sight facts from ``attacker`` to ``target``."""
        self._check()
        key = (attacker, target)
        got = self._sight.get(key)
        if got is None:
            got = self._sight[key] = self._plain.sight(attacker, target)
        return got

    def sheet(self, uid: str) -> UnitSheet:
        """The unit's sheet (weapons, defences, health left), until the next event."""
        self._check()
        got = self._sheets.get(uid)
        if got is None:
            got = self._sheets[uid] = self._plain.sheet(uid)
        return got


class Scene:
    """Caches of what the overlays draw, invalidated when the match logs anything.

    Args:
        view: a :class:`CachedView` (a plain :class:`~game.engine.view.MatchView` is wrapped in one).
    """

    def __init__(self, view: MatchView) -> None:
        self.view = view if isinstance(view, CachedView) else CachedView(view)
        self.version = 0
        self._seen = 0
        self.sentences: list[str] = []
        self.start: dict[str, Any] = {}
        self.initial_health: dict[str, dict[str, int]] = {}
        self._fans: dict[tuple[int, str], list[tuple[SightFacts, Point, float]]] = {}
        self._silhouettes: dict[tuple[int, str, str], Silhouette | None] = {}
        self._arcs: dict[tuple[int, str, float], list[tuple[Arc, list[tuple[Ring, list[Ring]]]]]] = {}
        self._regions: tuple[Decision | None, list[RegionShape]] = (None, [])
        self.regions_version = 0
        self._reach_job: tuple[Decision, int, Future[BaseGeometry], list[bool]] | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._threat: tuple[tuple[int, str], ThreatMap] | None = None
        self._free: dict[float, NDArray[np.bool_]] = {}
        self.sync()

    # ------------------------------------------------------------------ events
    def sync(self) -> bool:
        """Take in newly logged events; True if the match changed since the last call."""
        new = self.view.events(self._seen)
        if not new:
            return False
        if self._seen == 0 and new[0].get("type") == "match_start":
            self.start = new[0]
            self.initial_health = {u["id"]: dict(u.get("health", {})) for u in new[0].get("units", [])}
        self._seen += len(new)
        self.sentences.extend(sentences(new, self.start.get("ruleset")))
        self.version += 1
        self._fans.clear()
        self._silhouettes.clear()
        self._arcs.clear()
        return True

    # ------------------------------------------------------------------ sight
    def fans(self, uid: str) -> list[tuple[SightFacts, Point, float]]:
        """Sight facts from ``uid`` to every living enemy, with each enemy's centre and base."""
        key = (self.version, uid)
        got = self._fans.get(key)
        if got is None:
            got = []
            for e in self.view.enemies(uid):
                u = self.view.unit(e)
                got.append((self.view.sight(uid, e), u.pos, u.base))
            self._fans[key] = got
        return got

    def silhouette(self, attacker: str, target: str) -> Silhouette | None:
        """The hidden/exposed picture of ``target`` seen by ``attacker`` (None if they coincide)."""
        key = (self.version, attacker, target)
        if key in self._silhouettes:
            return self._silhouettes[key]
        table = self.view.table.snapshot()
        a, t = table.index(attacker), table.index(target)
        out: Silhouette | None = None
        if a != t:
            parts = silhouette_parts(self.view.obstacles, table, a, t)
            out = Silhouette(
                attacker,
                target,
                parts,
                region_rings(parts.hidden_wedge),
                region_rings(parts.exposed_wedge),
                self.view.sight(attacker, target),
            )
        self._silhouettes[key] = out
        return out

    def arcs(self, uid: str, radius: float) -> list[tuple[Arc, list[tuple[Ring, list[Ring]]]]]:
        """Front / side / rear sectors around ``uid`` (:func:`game.geometry.shapes.arc_wedges`)."""
        key = (self.version, uid, radius)
        got = self._arcs.get(key)
        if got is None:
            u = self.view.unit(uid)
            got = [(arc, region_rings(geom)) for arc, geom in arc_wedges(u.pos, u.facing, radius).items()]
            self._arcs[key] = got
        return got

    # ------------------------------------------------------------------ regions
    def regions(self, decision: Decision | None, exact_reach: bool = False) -> list[RegionShape]:
        """Drawable regions of the decision's point options (cached per decision).

        A turn's Move option carries only the cheap disc of its reach (the engine builds it for
        every decision); with ``exact_reach`` the geodesic reach (:class:`~game.engine.view.Reach`: where a
        free path of the allowed length ends) is computed in a background thread and replaces
        the disc when it is ready (:attr:`regions_version` changes then).
        """
        if decision is None:
            return []
        if self._regions[0] is not decision:
            shapes = []
            for i, o in enumerate(decision.options):
                if o.point_field is not None and o.region is not None:
                    shapes.append(RegionShape.of(region_overlay(decision, i), i, o.region))
            self._regions = (decision, shapes)
            if self._reach_job is not None:
                self._reach_job[2].cancel()  # a stale reach still queued is not computed
            self._reach_job = None
            self.regions_version += 1
        if exact_reach and self._reach_job is None:
            self._reach_job = self._submit_reach(decision)
        job = self._reach_job
        if job is not None and job[0] is decision and job[2].done() and not job[3]:
            self._take_reach(job)
        return self._regions[1]

    def _submit_reach(
        self, decision: Decision
    ) -> tuple[Decision, int, Future[BaseGeometry], list[bool]] | None:
        idx = next((i for i, o in enumerate(decision.options) if type(o.command).__name__ == "Move"), None)
        if idx is None or "max_len" not in decision.options[idx].detail:
            return None
        reach = self.view.reach(decision.unit, float(decision.options[idx].detail["max_len"]))
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="skirmish-reach")
        return (decision, idx, self._pool.submit(reach), [False])

    def _take_reach(self, job: tuple[Decision, int, Future[BaseGeometry], list[bool]]) -> None:
        job[3][0] = True
        decision, idx, future, _ = job
        try:
            geom = future.result()
        except (ValueError, shapely.errors.GEOSException):
            return  # a drawing aid: the disc stays if the geometry fails on a degenerate case
        shapes = [
            RegionShape.of(s.overlay, s.option, geom) if s.option == idx else s for s in self._regions[1]
        ]
        self._regions = (decision, shapes)
        self.regions_version += 1

    def finish_regions(self, decision: Decision | None) -> None:
        """Wait for the exact reach of ``decision`` (pictures are drawn complete)."""
        job = self._reach_job
        if job is not None and job[0] is decision and not job[3][0]:
            wait([job[2]])
            self._take_reach(job)

    def close(self) -> None:
        """Stop the background worker (pending reach computations are dropped)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    # ------------------------------------------------------------------ threat
    def free_cells(self, base: float) -> NDArray[np.bool_]:
        """Cell centres where a base of radius ``base`` clears every obstacle and the table edge
        (static: computed once per radius)."""
        got = self._free.get(base)
        if got is None:
            v = self.view
            pts = cell_centres(v.width, v.height, v.cell)
            got = (pts[:, 0] <= v.width - base) & (pts[:, 1] <= v.height - base)
            got &= (pts[:, 0] >= base) & (pts[:, 1] >= base)
            polys = [shapely.Polygon(o.polygon) for o in v.obstacles]
            if polys:
                union = shapely.union_all(polys)
                shapely.prepare(union)
                got &= ~shapely.dwithin(union, shapely.points(pts), base - 1e-9)
            self._free[base] = got
        return got

    def threat(self, uid: str) -> ThreatMap:
        """The threat map for a unit like ``uid`` (its posture and base) against its living enemies."""
        key = (self.version, uid)
        if self._threat is not None and self._threat[0] == key:
            return self._threat[1]
        base = self.view.unit(uid).base
        tm = ThreatMap(
            self.view.exposure(uid),
            self.view.width,
            self.view.height,
            self.view.cell,
            self.free_cells(base),
        )
        tm.enemies_of = uid
        self._threat = (key, tm)
        return tm
