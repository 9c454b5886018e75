"""The table a match is played on: sight facts and free movement, kept current.

Contract: an :class:`Arena` binds the static scenario (map, obstacles) to the
units' live bases. It answers sight/cover questions (through
:mod:`game.geometry`'s cached fast path) and movement questions (through
:mod:`game.movement`'s exact paths and legal regions), treating every other
unit in action as a blocker. Units out of action leave the table: they block
nothing and are never cover units.

Its arrays (``xy``, ``height``, ``facing``, ``base``, ``size``, ``alive``) are a numpy
mirror of the units' components, and one writer keeps them: the sight system
(``systems.sight``) builds the arena from the components and calls ``update``/``remove``
for the units that changed, before anything reads it. Only what a change invalidates is
recomputed; ``stamp`` counts the changes. :meth:`Arena.fork` is an independent copy for a
clone of the match (its arrays and sight cache copied, its memos of frozen answers shared).

The legal regions it makes are values: each validator is a pure function of the table as it
stood when the region was made (the mover's place and base, the other bases, the static map),
never of the live arena, so a decision built from them holds for every clone of the match it
was built in. Paths are memoised by those values in one process-wide cache
(:func:`cached_path`), which the validators, the arena and every clone share. Each region's
validator is a :class:`Memoised` one (every point answered once); its ``legal_many`` judges
many points at once, with the same verdicts (the step region's in bulk).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from components.sight import SightFacts
from components.specs import ScenarioSpec
from components.terrain import ObstacleSpec
from game.core.battle import Region
from game.core.commands import LazyRegion, Point
from game.geometry import SightCache, SightIndex, UnitTable
from game.geometry.discs import ClippedDisc
from game.movement import NavMesh, Path, regions

#: A move region's path may be this much longer than its reach (rounding).
LEGAL_SLACK = 1e-9


@lru_cache(maxsize=16)
def static_geometry(
    obstacles: tuple[ObstacleSpec, ...], width: float, height: float
) -> tuple[SightIndex, NavMesh]:
    """The map's sight index and navigation mesh, built once per map and shared by its matches.

    Both depend only on the obstacles and the map size, and neither is changed by a match
    (the mesh's caches are of static geometry), so a batch of battles on one scenario builds
    them once per process.
    """
    return SightIndex(obstacles, width, height), NavMesh(obstacles, width, height)


#: Shortest paths by (mesh, start, base radius, blockers array, goal): see :func:`cached_path`.
_PATHS: OrderedDict[tuple[int, float, float, float, int, float, float], tuple[Any, Any, Path | None]] = (
    OrderedDict()
)
_PATHS_MAX = 4096


def cached_path(
    nav: NavMesh, start: Point, radius: float, blockers: np.ndarray, ids: tuple[str, ...], to: Point
) -> Path | None:
    """``nav.path(start, to, radius, blockers, ids)``, remembered.

    A path depends only on these values; a blockers array is never changed once made (the arena
    makes a new one when a unit moves), so it is keyed by its identity and kept alive by the
    entry (its id cannot be reused while the entry lives). Least recently used entries go first;
    the answers never depend on what is remembered.
    """
    key = (id(nav), float(start[0]), float(start[1]), float(radius), id(blockers), float(to[0]), float(to[1]))
    got = _PATHS.get(key)
    if got is not None:
        _PATHS.move_to_end(key)
        return got[2]
    path = nav.path(start, (key[5], key[6]), radius, blockers, ids)
    _PATHS[key] = (nav, blockers, path)
    if len(_PATHS) > _PATHS_MAX:
        _PATHS.popitem(last=False)
    return path


@dataclass(frozen=True, eq=False)
class Mover:
    """A unit's base as the table stood when asked: where it is, its radius, the other bases
    in action (blockers) and the map. Its answers are pure (see the module docstring)."""

    nav: NavMesh
    start: Point
    radius: float
    blockers: np.ndarray
    ids: tuple[str, ...]

    def free_reason(self, to: Point) -> str | None:
        return self.nav.free_reason((float(to[0]), float(to[1])), self.radius, self.blockers, self.ids)

    def path(self, to: Point) -> Path | None:
        return cached_path(self.nav, self.start, self.radius, self.blockers, self.ids, to)

    def straight_codes(self, goals: np.ndarray) -> np.ndarray:
        """:meth:`NavMesh.straight_codes` from here: per goal, whether :meth:`path` would be None
        (0), the straight segment (1), or needs asking (2, 3)."""
        return self.nav.straight_codes(self.start, goals, self.radius, self.blockers)


class Memoised:
    """``validate`` (a pure validator) answering each point once; see :func:`memoised`."""

    __slots__ = ("_many", "_memo", "_validate")

    def __init__(
        self,
        validate: Callable[[Any], str | None],
        many: Callable[[list[tuple[float, float]]], list[bool]] | None = None,
    ) -> None:
        self._validate = validate
        self._many = many
        self._memo: dict[tuple[float, float], str | None] = {}

    def __call__(self, p: Any) -> str | None:
        if type(p) is not tuple or len(p) != 2 or type(p[0]) is not float or type(p[1]) is not float:
            return self._validate(p)  # only (float, float) points are remembered
        memo = self._memo
        if p in memo:
            return memo[p]
        if len(memo) >= 4096:
            memo.clear()
        why = memo[p] = self._validate(p)
        return why

    def legal_many(self, points: list[tuple[float, float]]) -> list[bool]:
        """``[self(p) is None for p in points]`` (for finite (x, y) float points), in bulk when
        the validator has a bulk form."""
        if self._many is None:
            return [self(p) is None for p in points]
        return self._many(points)


def memoised(
    validate: Callable[[Any], str | None],
    many: Callable[[list[tuple[float, float]]], list[bool]] | None = None,
) -> Memoised:
    """``validate`` (a pure validator) answering each point once.

    A policy validates the point it picks and the match validates it again on ``apply``; each
    answer may cost a shortest-path search. ``many``, if given, is the validator's bulk form
    (``[validate(p) is None for p in points]``): :meth:`Memoised.legal_many` uses it.
    """
    return Memoised(validate, many)


class Arena:
    """Sight and movement geometry for one match."""

    def __init__(self, spec: ScenarioSpec, units: UnitTable) -> None:
        """``spec`` gives the map; ``units`` every unit as it stands (all in action)."""
        self.spec = spec
        self.ids: tuple[str, ...] = units.ids
        self.index_of = {uid: i for i, uid in enumerate(self.ids)}
        self.xy = units.xy.copy()
        self.base = units.base.copy()
        self.size = units.size.copy()
        self.height = units.height.copy()
        self.facing = units.facing.copy()
        self.alive = np.ones(len(self.ids), dtype=bool)
        self.sight_index, self.nav = static_geometry(spec.obstacles, spec.width, spec.height)
        self.cache = SightCache(self.sight_index, self.table())
        # Every unit's blockers, until a unit changes place (paths are memoised by value:
        # cached_path).
        self._blockers: dict[str | None, tuple[np.ndarray, tuple[str, ...]]] = {}
        # Sight facts by (attacker, target), until the table changes: rulesets and policies ask
        # for the same pairs many times per decision.
        self._facts: dict[tuple[str, str], SightFacts] = {}
        #: Counts changes of the table (moves, postures, turns, removals): validators memoise
        #: their answers per point while it stays the same.
        self.stamp = 0
        # Clipped discs by (centre, base radius, reach): a unit that stays put is offered the
        # same move reach turn after turn (their geometries are immutable: safe to share).
        self._discs: dict[tuple[float, float, float, float], ClippedDisc] = {}

    # ------------------------------------------------------------ state
    def fork(self) -> Arena:
        """An independent copy (for a clone of the match; see the module docstring)."""
        twin = object.__new__(Arena)
        twin.__dict__.update(self.__dict__)
        for name in ("xy", "base", "size", "height", "facing", "alive"):
            setattr(twin, name, getattr(self, name).copy())
        twin.cache = self.cache.fork()
        twin._blockers = self._blockers.copy()  # arrays never changed once made
        twin._facts = self._facts.copy()  # frozen values
        return twin

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
        """Unit ``uid`` now stands at ``pos`` with this silhouette height and facing."""
        i = self.index_of[uid]
        if self.xy[i, 0] != pos[0] or self.xy[i, 1] != pos[1]:
            self._blockers.clear()
        self.stamp += 1
        self._facts.clear()
        self.xy[i] = pos
        self.height[i] = height
        self.facing[i] = facing
        self.cache.move_unit(i, (float(pos[0]), float(pos[1])), float(height), float(facing))

    def remove(self, uid: str) -> None:
        """Take a unit off the table (out of action), for good.

        Its row moves far off the map so it can never be a cover unit nor make anyone
        hidden; nobody asks for sight to or from it any more.
        """
        i = self.index_of[uid]
        self.alive[i] = False
        self._blockers.clear()
        self.stamp += 1
        self._facts.clear()
        self.cache.move_unit(i, (-1.0e4 - 10.0 * i, -1.0e4), 0.0, float(self.facing[i]))

    def refresh(self) -> None:
        """Recompute whatever the last changes made stale."""
        self.cache.refresh()

    # ------------------------------------------------------------ sight
    def sight(self, attacker: str, target: str) -> SightFacts:
        key = (attacker, target)
        got = self._facts.get(key)
        if got is None:
            got = self._facts[key] = self.cache.facts(self.index_of[attacker], self.index_of[target])
        return got

    # --------------------------------------------------------- movement
    def blockers(self, uid: str | None) -> tuple[np.ndarray, tuple[str, ...]]:
        """Bases of every other unit in action: an (k, 3) array of x, y, r and their ids.

        Memoised until a unit moves or leaves the table; callers must not change the array.
        """
        got = self._blockers.get(uid)
        if got is None:
            keep = self.alive.copy()
            if uid is not None:
                keep[self.index_of[uid]] = False
            rows = np.flatnonzero(keep)
            arr = np.empty((len(rows), 3))  # the column_stack of xy and base, without its checks
            arr[:, :2] = self.xy[rows]
            arr[:, 2] = self.base[rows]
            ids = self.ids
            got = self._blockers[uid] = (arr, tuple([ids[j] for j in rows.tolist()]))
        return got

    def _me(self, uid: str) -> tuple[Point, float]:
        i = self.index_of[uid]
        return (float(self.xy[i, 0]), float(self.xy[i, 1])), float(self.base[i])

    def mover(self, uid: str) -> Mover:
        """``uid``'s base as the table stands now (pure answers: see :class:`Mover`)."""
        start, r = self._me(uid)
        blk, ids = self.blockers(uid)
        return Mover(self.nav, start, r, blk, ids)

    def path(self, uid: str, to: Point) -> Path | None:
        start, r = self._me(uid)
        blk, ids = self.blockers(uid)
        return cached_path(self.nav, start, r, blk, ids, to)

    def free_reason(self, uid: str, to: Point) -> str | None:
        _, r = self._me(uid)
        blk, ids = self.blockers(uid)
        return self.nav.free_reason((float(to[0]), float(to[1])), r, blk, ids)

    def move_region(self, uid: str, max_len: float, lazy: bool = False) -> Region:
        """Where a move of at most ``max_len`` may end.

        The geometry is only the disc of radius ``max_len`` clipped to the map (cheap: it is
        built for every turn decision, and serves for sampling and for drawing the reach); the
        validator is exact: a free shortest path no longer than ``max_len``. The window draws the
        exact geodesic reach with ``nav.reachable`` when it needs it. With ``lazy`` the geometry
        is a :class:`~game.core.commands.LazyRegion` (for an option's ``region``).
        """
        mover = self.mover(uid)
        geom = self._disc(mover.start, mover.radius, max_len, lazy)

        def validate(p: Any) -> str | None:
            why = mover.free_reason(p)
            if why:
                return why
            path = mover.path(p)
            if path is None:
                return "no free path there"
            if path.length > max_len + LEGAL_SLACK:
                return f"path of {path.length:.2f} in is longer than {max_len:.2f} in"
            return None

        return Region(geom, memoised(validate))

    def step_region(self, uid: str, max_len: float, lazy: bool = False) -> Region:
        """Where a step may end: like :meth:`move_region`, the geometry is the cheap clipped disc
        (a step is offered on every GURPS turn decision), the validator the exact straight-move
        check (:func:`game.movement.regions.is_legal_step`)."""
        start, r = self._me(uid)
        blk, ids = self.blockers(uid)
        return Region(
            self._disc(start, r, max_len, lazy),
            memoised(
                lambda p: regions.is_legal_step(self.nav, p, start, r, max_len, blk, ids),
                lambda ps: regions.legal_steps(self.nav, ps, start, r, max_len, blk, ids),
            ),
        )

    def _disc(self, centre: Point, radius: float, max_len: float, lazy: bool) -> Any:
        disc = self.clipped_disc(centre, radius, max_len)
        return LazyRegion(disc) if lazy else disc()

    def clipped_disc(self, centre: Point, radius: float, max_len: float) -> ClippedDisc:
        """The map (shrunk by ``radius``) ∩ the disc of ``max_len`` about ``centre``
        (see :class:`ClippedDisc`)."""
        key = (float(centre[0]), float(centre[1]), float(radius), float(max_len))
        got = self._discs.get(key)
        if got is None:
            if len(self._discs) >= 512:
                self._discs.clear()
            w, h = self.spec.width, self.spec.height
            box = (radius, radius, w - radius, h - radius)
            got = self._discs[key] = ClippedDisc(box, (key[0], key[1]), key[3])
        return got

    def retreat_region(self, uid: str, attacker_pos: Point, min_len: float, max_len: float) -> Region:
        """Where a retreat may end: the exact arcs of :func:`game.movement.regions.retreat_arcs`
        (the region's geometry is a :class:`~game.core.commands.LazyRegion` of the
        :class:`~game.movement.regions.ArcRegion`: policies sample it by angle), checked by
        :func:`~game.movement.regions.is_legal_retreat` (a point near the band counts as the point
        :func:`~game.movement.regions.snap_retreat` puts on it; move the unit there)."""
        start, r = self._me(uid)
        blk, ids = self.blockers(uid)
        arcs = regions.retreat_arcs(self.nav, start, attacker_pos, r, min_len, max_len, blk)
        return Region(
            LazyRegion(arcs),
            memoised(
                lambda p: regions.is_legal_retreat(
                    self.nav, p, start, attacker_pos, r, min_len, max_len, blk, ids
                )
            ),
        )

    def dodge_region(self, uid: str, max_len: float) -> Region:
        start, r = self._me(uid)
        blk, ids = self.blockers(uid)
        geom = regions.dodge_disc(self.nav, start, r, max_len, blk)
        return Region(
            geom,
            memoised(lambda p: regions.is_legal_dodge_move(self.nav, p, start, r, max_len, blk, ids)),
        )

    def interpose_region(self, uid: str, friend_pos: Point, attacker_pos: Point, step_len: float) -> Region:
        start, r = self._me(uid)
        blk, ids = self.blockers(uid)
        geom = regions.interpose_points(self.nav, friend_pos, attacker_pos, start, r, step_len, blk)
        return Region(
            geom,
            memoised(
                lambda p: regions.is_legal_interpose(
                    self.nav, p, friend_pos, attacker_pos, start, r, step_len, blk, ids
                )
            ),
        )
