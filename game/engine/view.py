"""A read-only view of a match: what AI policies and the renderer may see.

Contract: nothing returned here lets the caller change the match. Units come
as frozen :class:`UnitView` snapshots; sight facts are frozen values. The view
is cheap to make and always reflects the match's current state: a unit's
snapshot is reused until the match counts a change to that unit
(``Match.changes``: every change of what a snapshot holds goes through the
match's methods, which count it). :meth:`MatchView.pos`, :meth:`~MatchView.posture`,
:meth:`~MatchView.base`, :meth:`~MatchView.size`, :meth:`~MatchView.health` and
:meth:`~MatchView.maxima` answer one field of :meth:`MatchView.unit` each, equal to it,
without taking a snapshot (the policies ask for these far more often than for whole units,
and the acting unit changes, spending AP, with every command).

Geometry is asked of the view too; the table itself (the engine's arena and navigation mesh)
never leaves the engine:

- :attr:`MatchView.table` is the unit table the geometry works on, **live and read-only**: its
  arrays (centres, base radii, silhouette heights, one row per unit of the scenario, in action
  or not) are read-only numpy views of the engine's own, so reading them costs no copy and
  always shows the table as it stands; :attr:`UnitTableView.stamp` counts its changes, and the
  table object is the same for every view of one match (a memo key for answers that depend on
  it). Keep values, not arrays, across changes; :meth:`UnitTableView.snapshot` is a frozen copy.
- :meth:`MatchView.cover_at_points` is the exact cover kernel, both ways, between a body placed
  at many points and units of the table (one vectorised call); :meth:`MatchView.exposure_at_points`
  the one way a threat score reads (the units looking at the body), at half the cost.
- :meth:`MatchView.segment_clear` and :meth:`MatchView.path` are a unit's straight slides and
  shortest free paths among the other units in action.
- :meth:`MatchView.exposure` and :meth:`MatchView.reach` are questions taken as the table stands
  when asked and answered later (a threat map in chunks, the exact move reach in a background
  thread): they hold copies, and :class:`Reach` computes on a navigation mesh private to the
  thread that runs it.
- :meth:`MatchView.snap_to_region` (:func:`snap_point`) is the one way a wanted point becomes a
  legal point of a point option (a retreat, a dodge move, a follow, an interposition, ...):
  the nearest point of the option's region, checked by the option's own validator (the
  engine's check of the command). The window snaps a click with it; the AI policies snap
  their wanted points with it.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from shapely.geometry.base import BaseGeometry

from components.sight import SightFacts
from components.spatial import EYE_FRACTION
from components.terrain import ObstacleSpec
from game.core.commands import Decision, Option
from game.geometry import SightIndex, UnitTable
from game.movement import NavMesh
from game.movement.path import Path
from game.movement.regions import ArcRegion, nearest_point
from game.rules.sheet import UnitSheet

if TYPE_CHECKING:
    from game.battlefield.arena import Arena
    from game.engine.match import Match, Outcome

Point = tuple[float, float]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


#: A snapped point is rounded to this many decimals of an inch (as the AI's points and the logs).
SNAP_DECIMALS = 6
#: The search for a legal point near a refused nearest point: distances (inches) along the arc,
#: or toward the unit's centre (a straight move's region holds the segment to its centre).
SNAP_STEPS = tuple(1e-5 * 2.0**k for k in range(15))


def _read_only(a: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """A read-only numpy view of ``a`` (no copy: it shows ``a``'s changes)."""
    v = a.view()
    v.flags.writeable = False
    return v


class UnitTableView:
    """The match's unit table as the geometry sees it, live and read-only (see the module doc).

    Attributes:
        ids: unit ids, row order (every unit of the scenario, in action or not).
        index_of: read-only mapping of unit id to row.
        xy: (n, 2) centres, inches (read-only).
        base: (n,) base radii, inches (read-only).
        height: (n,) silhouette heights = posture height x size (read-only).
    """

    __slots__ = ("__weakref__", "_arena", "base", "height", "ids", "index_of", "xy")

    def __init__(self, arena: Arena) -> None:
        self._arena = arena
        self.ids: tuple[str, ...] = arena.ids
        self.index_of: Mapping[str, int] = MappingProxyType(arena.index_of)
        self.xy: FloatArray = _read_only(arena.xy)
        self.base: FloatArray = _read_only(arena.base)
        self.height: FloatArray = _read_only(arena.height)

    @property
    def stamp(self) -> int:
        """Counts the table's changes (moves, postures, facings, removals): equal stamps, equal table."""
        return self._arena.stamp

    def snapshot(self) -> UnitTable:
        """A frozen copy of the table as it stands (with sizes and facings), for the geometry module."""
        return self._arena.table()


#: The one table view of each match (weakly: it lives as long as its match).
_TABLES: weakref.WeakKeyDictionary[Match, UnitTableView] = weakref.WeakKeyDictionary()


@lru_cache(maxsize=256)
def _pair_index(m: int, k: int) -> tuple[IntArray, IntArray]:
    """For m points x k units in point-major order, the pairs of both directions (each unit
    looking at the body at each point, then the body at each point looking at each unit): each
    pair's source and target column in the table of k units followed by m points."""
    enemy_of = np.tile(np.arange(k, dtype=np.int64), m)
    point_of = np.repeat(np.arange(m, dtype=np.int64), k)
    source = np.concatenate([enemy_of, k + point_of])
    target = np.concatenate([k + point_of, enemy_of])
    for a in (source, target):
        a.setflags(write=False)  # shared between calls
    return source, target


@dataclass(frozen=True, eq=False)
class Exposure:
    """How well a body standing at given points is covered from each of ``enemies``.

    Taken by :meth:`MatchView.exposure`: the table (a frozen snapshot), the body (base, size,
    silhouette height) and the enemies are those of the moment it was asked, so it can be
    evaluated later, in chunks, while the match goes on.
    """

    enemies: tuple[str, ...]
    height: float
    base: float
    size: float
    _index: SightIndex
    _table: UnitTable
    _rows: IntArray

    def at(self, points: FloatArray) -> FloatArray:
        """(m, k) cover fractions at each of the (m, 2) ``points`` from each enemy (1.0: unseen)."""
        return self._index.exposure_at_points(
            self._table, points, self.height, self.base, self.size, self._rows
        )


#: Each thread's own navigation mesh for :class:`Reach`: (obstacles, width, height) and the mesh.
_THREAD_MESH = threading.local()


@dataclass(frozen=True, eq=False)
class Reach:
    """The exact reach of one move: where a free path of at most ``max_len`` from ``start`` ends.

    Taken by :meth:`MatchView.reach` (the other units' bases copied as they stood); calling it
    computes the geodesic reach (:meth:`game.movement.navmesh.NavMesh.reachable`, 50-250 ms, for
    drawing) on a navigation mesh of the calling thread's own, never the match's.
    """

    start: Point
    base: float
    max_len: float
    blockers: FloatArray
    obstacles: tuple[ObstacleSpec, ...]
    width: float
    height: float

    def __call__(self) -> BaseGeometry:
        key = (self.obstacles, self.width, self.height)
        got: tuple[tuple[tuple[ObstacleSpec, ...], float, float], NavMesh] | None = getattr(
            _THREAD_MESH, "mesh", None
        )
        if got is None or got[0] != key:
            got = _THREAD_MESH.mesh = (key, NavMesh(self.obstacles, self.width, self.height))
        return got[1].reachable(self.start, self.base, self.max_len, self.blockers)


@dataclass(frozen=True, slots=True)
class UnitView:
    id: str
    side: str
    pos: tuple[float, float]
    facing: float
    posture: str
    base: float
    size: float
    ap: int
    ap_max: int
    health: tuple[tuple[str, int], ...]
    maxima: tuple[tuple[str, int], ...]
    status: tuple[str, ...]
    alive: bool
    profile: str
    controller: str


class MatchView:
    """Read-only access to one match.

    Args:
        match: the match, or another view of it (a view of the same match).
    """

    def __init__(self, match: Match | MatchView) -> None:
        m = match._m if isinstance(match, MatchView) else match
        self._m: Match = m
        table = _TABLES.get(m)
        if table is None:
            table = _TABLES[m] = UnitTableView(m.arena)
        #: The unit table, live and read-only (see the module doc); one object per match.
        self.table: UnitTableView = table
        # uid -> (the unit's change count when taken, snapshot)
        self._snapshots: dict[str, tuple[int | None, UnitView]] = {}

    @property
    def round(self) -> int:
        return self._m.round

    def fork(self, dice_seed: int, *, synced: bool = False) -> Match:
        """An independent copy of the match to play forward (``Match.clone(dice_seed)``): its dice
        are a fresh stream seeded with ``dice_seed``, so a search through it neither changes this
        match nor reads its coming rolls (``synced``: rolls keyed by what they are, see
        ``Match.clone``)."""
        return self._m.clone(dice_seed, synced=synced)

    @property
    def ai_memory(self) -> Mapping[str, Mapping[str, str]]:
        """The match's AI memory (``Match.ai_memory``), read-only: ``{topic: {unit: value}}``."""
        return self._m.ai_memory

    def remember(self, topic: str, unit: str, value: str) -> None:
        """Write to the match's AI memory (the one thing policies may change): ``unit``'s ``topic``
        is now ``value`` (e.g. its quarry). A save and a clone carry it."""
        self._m.remember(topic, unit, value)

    @property
    def name(self) -> str:
        """The scenario's name."""
        return self._m.spec.name

    @property
    def ruleset(self) -> str:
        return self._m.ruleset_name

    @property
    def width(self) -> float:
        return self._m.spec.width

    @property
    def height(self) -> float:
        return self._m.spec.height

    @property
    def cell(self) -> float:
        return self._m.spec.cell

    @property
    def obstacles(self) -> tuple[ObstacleSpec, ...]:
        return self._m.spec.obstacles

    @property
    def sides(self) -> tuple[str, ...]:
        return self._m.spec.sides

    @property
    def pending(self) -> Decision | None:
        return self._m.pending

    @property
    def active(self) -> str | None:
        return self._m.active

    @property
    def outcome(self) -> Outcome | None:
        return self._m.outcome

    @property
    def yards_per_inch(self) -> float:
        return self._m.yards_per_inch

    def unit(self, uid: str) -> UnitView:
        count = self._m.changes.get(uid)  # None for an unknown unit: _snapshot raises
        got = self._snapshots.get(uid)
        if got is None or got[0] != count or count is None:
            got = self._snapshots[uid] = (count, self._snapshot(uid))
        return got[1]

    def _snapshot(self, uid: str) -> UnitView:
        m = self._m
        h = m.health(uid)
        ap = m.ap(uid)
        body = m.body(uid)
        return UnitView(
            id=uid,
            side=m.side(uid),
            pos=m.pos(uid),
            facing=m.facing(uid),
            posture=str(m.posture(uid)),
            base=body.base,
            size=body.size,
            ap=ap.current,
            ap_max=ap.maximum,
            health=tuple(sorted(h.tracks.items())),
            maxima=tuple(sorted(h.maxima.items())),
            status=tuple(sorted(h.status)),
            alive=not h.out_of_action,
            profile=m.profile(uid),
            controller=m.controllers.get(m.side(uid), "random"),
        )

    def pos(self, uid: str) -> tuple[float, float]:
        """``unit(uid).pos``."""
        return self._m.pos(uid)

    def posture(self, uid: str) -> str:
        """``unit(uid).posture``."""
        return str(self._m.posture(uid))

    def base(self, uid: str) -> float:
        """``unit(uid).base``."""
        return self._m.body(uid).base

    def size(self, uid: str) -> float:
        """``unit(uid).size``."""
        return self._m.body(uid).size

    def health(self, uid: str) -> tuple[tuple[str, int], ...]:
        """``unit(uid).health``."""
        return tuple(sorted(self._m.health(uid).tracks.items()))

    def maxima(self, uid: str) -> tuple[tuple[str, int], ...]:
        """``unit(uid).maxima``."""
        return tuple(sorted(self._m.health(uid).maxima.items()))

    def units(self, alive: bool = True) -> list[UnitView]:
        return [self.unit(u) for u in self._m.units(alive=alive)]

    def enemies(self, uid: str) -> list[str]:
        return self._m.enemies(uid)

    def friends(self, uid: str) -> list[str]:
        return self._m.friends(uid)

    def sight(self, attacker: str, target: str) -> SightFacts:
        return self._m.sight(attacker, target)

    def distance(self, a: str, b: str) -> float:
        return self._m.distance(a, b)

    def action_costs(self, uid: str) -> dict[str, int]:
        """AP costs of ``attack``, ``posture``, ``face``, ``step`` for ``uid`` now (see the ruleset)."""
        return dict(self._m.rules.action_costs(self._m, uid))

    def sheet(self, uid: str) -> UnitSheet:
        """``uid``'s weapons, defences, protection and health left as the ruleset tells a player
        (:meth:`game.rules.base.Ruleset.sheet`)."""
        return self._m.rules.sheet(self._m, uid)

    def reaction_ap(self, uid: str) -> tuple[str, int] | None:
        """(name, AP) of the reaction ``uid`` pays AP for (None: reactions cost no AP)."""
        return self._m.rules.reaction_ap(self._m, uid)

    def move_ap_cost(self, uid: str, length: float) -> int | None:
        """AP a path of ``length`` inches costs ``uid`` now (None: too far this turn)."""
        return self._m.rules.move_ap_cost(self._m, uid, length)

    def path_length(self, uid: str, to: tuple[float, float]) -> float | None:
        return self._m.path_length(uid, to)

    def events(self, since: int = 0) -> list[dict[str, Any]]:
        return self._m.log.events[since:]

    @property
    def event_count(self) -> int:
        """How many events the match has logged (grows with every change of state)."""
        return len(self._m.log)

    # ------------------------------------------------------------------ geometry
    def cover_at_points(
        self, points: FloatArray, base: float, height: float, rows: IntArray
    ) -> tuple[FloatArray, FloatArray]:
        """Exact cover both ways between a body at each of ``points`` and the units at ``rows``.

        One call of the exact cover kernel (no screens) on a table of the k units then the m
        points, for both directions at once.

        Args:
            points: (m, 2) float centres of the body.
            base: its base radius.
            height: its silhouette height (its eyes at ``EYE_FRACTION`` of it).
            rows: (k,) table rows of the units (their centres, bases and heights as they stand).

        Returns:
            ``(exposed, shot)``: fresh (m, k) cover fractions of the body at each point as each
            unit sees it, and of each unit as the body would see it from that point (1.0: no
            sight).
        """
        m, k = len(points), len(rows)
        if m == 0 or k == 0:
            return np.ones((m, k)), np.ones((m, k))
        source, target = _pair_index(m, k)
        frac = self._cover_pairs(points, base, height, rows, source.copy(), target.copy())
        return frac[: m * k].reshape(m, k), frac[m * k :].reshape(m, k)

    def exposure_at_points(
        self, points: FloatArray, base: float, height: float, rows: IntArray
    ) -> FloatArray:
        """The ``exposed`` half of :meth:`cover_at_points` alone (the units looking at the body),
        equal to it bit for bit (see :meth:`shot_from_points`)."""
        m, k = len(points), len(rows)
        if m == 0 or k == 0:
            return np.ones((m, k))
        source, target = _pair_index(m, k)
        return self._cover_pairs(
            points, base, height, rows, source[: m * k].copy(), target[: m * k].copy()
        ).reshape(m, k)

    def shot_from_points(
        self,
        points: FloatArray,
        base: float,
        height: float,
        rows: IntArray,
        at_point: IntArray,
        at_unit: IntArray,
    ) -> FloatArray:
        """Entries ``[at_point, at_unit]`` of the ``shot`` half of :meth:`cover_at_points`: the
        cover of unit ``rows[at_unit[q]]`` as the body at ``points[at_point[q]]`` would see it.

        Equal to it bit for bit, whatever the other pairs asked: the kernel answers each pair
        on its own (its memory of recent blockers only finds a full blocker sooner, and a full
        blocker gives 1.0 either way).
        """
        if len(at_point) == 0:
            return np.ones(0)
        source = np.asarray(at_point, dtype=np.int64) + len(rows)
        target = np.array(at_unit, dtype=np.int64)
        return self._cover_pairs(points, base, height, rows, source, target)

    def _cover_pairs(
        self,
        points: FloatArray,
        base: float,
        height: float,
        rows: IntArray,
        source: IntArray,
        target: IntArray,
    ) -> FloatArray:
        """Cover fractions of the pairs (``source``, ``target``) of the table of the k units at
        ``rows`` followed by the body at each of the m ``points`` (fresh, writeable arrays: the
        kernel gets arrays of its own)."""
        m, k = len(points), len(rows)
        arena = self._m.arena
        xy = np.empty((k + m, 2))
        xy[:k] = arena.xy[rows]
        xy[k:] = points
        radius = np.empty(k + m)
        radius[:k] = arena.base[rows]
        radius[k:] = base
        heights = np.empty(k + m)
        heights[:k] = arena.height[rows]
        heights[k:] = height
        res = arena.sight_index.cover_rows(xy, EYE_FRACTION * heights, radius, heights, source, target)
        return np.asarray(res.fraction, dtype=np.float64)

    def segment_clear(self, uid: str, a: Point, b: Point) -> bool:
        """Whether ``uid``'s base can slide straight from ``a`` to ``b`` past every obstacle and
        every other unit in action (the cheap swept-disc test; no path search)."""
        arena = self._m.arena
        blk, _ = arena.blockers(uid)
        return arena.nav.segment_clear(a, b, float(arena.base[arena.index_of[uid]]), blk)

    def path(self, uid: str, to: Point, ignore: str | None = None) -> Path | None:
        """The shortest free path of ``uid`` from where it stands to ``to`` (points and length),
        or None; the other units in action block it.

        Without ``ignore`` this is the path a move there walks (the engine's, remembered until a
        unit moves). With ``ignore`` that unit does not block (e.g. the enemy a unit closes in
        on): searched afresh, among the same other blockers in the same order.
        """
        arena = self._m.arena
        if ignore is None:
            return arena.path(uid, to)
        i = arena.index_of[uid]
        blk, ids = arena.blockers(uid)
        if ignore in ids:
            j = ids.index(ignore)
            blk = np.concatenate([blk[:j], blk[j + 1 :]])
            ids = ids[:j] + ids[j + 1 :]
        start = (float(arena.xy[i, 0]), float(arena.xy[i, 1]))
        return arena.nav.path(start, (float(to[0]), float(to[1])), float(arena.base[i]), blk, ids)

    def exposure(self, uid: str) -> Exposure:
        """How well a unit like ``uid`` (its base, size and silhouette height now) would be covered
        at given points from each of its enemies in action, as the table stands now."""
        arena = self._m.arena
        table = arena.table()
        enemies = tuple(self.enemies(uid))
        return Exposure(
            enemies,
            float(table.height[table.index(uid)]),
            self.base(uid),
            self.size(uid),
            arena.sight_index,
            table,
            np.array([table.index(e) for e in enemies], dtype=np.int64),
        )

    def reach(self, uid: str, max_len: float) -> Reach:
        """The exact reach of a move of ``uid`` of at most ``max_len``, around obstacles and the
        other units in action as they stand now (see :class:`Reach`: computed when called)."""
        blk, _ = self._m.arena.blockers(uid)
        return Reach(
            self.pos(uid),
            self.base(uid),
            float(max_len),
            np.array(blk, dtype=np.float64),
            self.obstacles,
            self.width,
            self.height,
        )

    # ------------------------------------------------------------------ snapping
    def snap_to_region(self, option: Option, point: Point, within: float = math.inf) -> Point | None:
        """:func:`snap_point` of ``point`` onto ``option``'s region, pulled (if need be) toward the
        centre of the unit the option's command moves."""
        unit = getattr(option.command, "unit", None)
        centre = self.pos(unit) if isinstance(unit, str) and unit in self.table.index_of else None
        return snap_point(option, point, within, centre)


def snap_point(
    option: Option, point: Point, within: float = math.inf, centre: Point | None = None
) -> Point | None:
    """The legal point of ``option``'s region nearest to ``point``, or None.

    ``point`` itself (rounded to :data:`SNAP_DECIMALS`) if the option's validator accepts it;
    else the nearest point of the region (exactly, on a retreat's arcs), if it lies within
    ``within`` inches of ``point`` and the validator accepts it; else, near that one, the first
    point the validator accepts along the arc (both ways) or, in a two-dimensional region, on
    the way to ``centre`` (:data:`SNAP_STEPS`). The validator is the engine's check of the
    command, so the point returned is a legal value of ``option.point_field``.
    """
    p = (round(float(point[0]), SNAP_DECIMALS), round(float(point[1]), SNAP_DECIMALS))
    if _accepts(option, p):
        return p
    lazy = option.lazy_region
    region: Any = lazy.build if lazy is not None and type(lazy.build) is ArcRegion else option.region
    if region is None or region.is_empty:
        return None
    for q in _near_points(region, (float(point[0]), float(point[1])), within, centre):
        r = (round(q[0], SNAP_DECIMALS), round(q[1], SNAP_DECIMALS))
        if _accepts(option, r):
            return r
    return None


def _accepts(option: Option, p: Point) -> bool:
    return option.validate is None or option.validate(p) is None


def _near_points(region: Any, p: Point, within: float, centre: Point | None) -> list[Point]:
    """The nearest point of ``region`` to ``p`` (nothing if farther than ``within``), then the
    points of the fallback search near it (see :meth:`MatchView.snap_to_region`)."""
    if type(region) is ArcRegion:
        got = _nearest_on_arcs(region, p)
        if got is None or math.dist(got[0], p) > within:
            return []
        on, (rho, s, e), ang = got
        cx, cy = region.centre
        out = [on]
        for step in SNAP_STEPS:
            for a in (ang + step / rho, ang - step / rho):
                if s <= a <= e:
                    out.append((cx + rho * math.cos(a), cy + rho * math.sin(a)))
        return out
    q = nearest_point(region, p)
    if q is None or math.dist(q, p) > within:
        return []
    out = [q]
    if centre is not None:
        d = math.dist(q, centre)
        for step in SNAP_STEPS:
            if step < d:
                t = step / d
                out.append((q[0] + (centre[0] - q[0]) * t, q[1] + (centre[1] - q[1]) * t))
    return out


def _nearest_on_arcs(arcs: ArcRegion, p: Point) -> tuple[Point, tuple[float, float, float], float] | None:
    """The point of ``arcs`` nearest to ``p`` (exactly on its circle), its arc and its angle."""
    cx, cy = arcs.centre
    here = math.atan2(p[1] - cy, p[0] - cx)
    best: tuple[float, Point, tuple[float, float, float], float] | None = None
    for rho, s, e in arcs.arcs:
        a = s + (here - s) % (2.0 * math.pi)  # the direction of p, on or after the arc's start
        if a > e:  # outside the arc: the nearer end
            ends = [(s, (cx + rho * math.cos(s), cy + rho * math.sin(s)))]
            ends.append((e, (cx + rho * math.cos(e), cy + rho * math.sin(e))))
            a, q = min(ends, key=lambda t: math.dist(t[1], p))
        else:
            q = (cx + rho * math.cos(a), cy + rho * math.sin(a))
        d = math.dist(q, p)
        if best is None or d < best[0]:
            best = (d, q, (rho, s, e), a)
    return None if best is None else (best[1], best[2], best[3])
