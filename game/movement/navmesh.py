"""Free-space queries and exact shortest paths for disc-shaped unit bases.

Contract:
    * The map is [0, width] x [0, height] inches, x east, y south (DESIGN §1). A unit is a disc
      of base radius ``r`` centred on its position. Obstacles are :class:`ObstacleSpec` polygons;
      other units ("blockers") are passed per call as a (k, 3) array of (x, y, radius).
    * A base is *free* at p when it lies inside the map and its distance to every obstacle and
      every blocker is at least the sum of radii minus :data:`TOUCH_TOL`: touching is allowed,
      overlapping is not. Legality is always decided by exact distances to the real obstacle
      polygons (as GEOS decides them) and blocker discs, never by the approximated geometry below.
    * :meth:`NavMesh.path` returns a polyline from start to goal whose every segment, swept by the
      base, is free, or None. It is the exact shortest path for the polygonal inflation used
      here: obstacles are inflated by ``r`` with straight parts exact and corner arcs replaced by
      *circumscribed* polygons (vertices at ``r / cos(step / 2)``), so the inflation contains
      the true Minkowski sum and every path it yields is conservative. Where a path wraps a
      corner or a unit it is at most ~0.3% longer on the wrapped part than the true shortest.
      (An inscribed polygon, as ``shapely.buffer`` makes, would be the opposite: paths hugging it
      would clip corners by up to ``r * (1 - cos(step / 2))``.)
    * The static part (obstacle inflation, its graph nodes and visibility edges) is cached per
      radius; a query only adds the two endpoints and the blockers that actually get in the way
      (lazily: blockers crossed by the current best path are added until the path is clear,
      starting with those crossing the straight line; this yields the shortest path with every
      blocker up to the ring approximation because each round is exact for its subset: ring
      nodes are validated against the active blockers only, and an endpoint touching a unit or
      an obstacle corner, which lies inside the circumscribed ring, gets two tangent points so
      it can leave round the arc both ways; see :meth:`NavMesh._contact`, docs/movement.md).
      A round keeps the previous round's edges between parts both rounds have (dropping those
      whose ends a new blocker covers or whose line it cuts) and tests only the pairs of parts
      that are new: the same graph, edge for edge and in the same order, as building it afresh.
    * The exact checks and the searches run in compiled kernels (:mod:`game.movement._kernels`,
      numba, cached on disk). Their answers are those of the former numpy/GEOS code bit for
      bit, except from or to contact endpoints (shorter or newly found paths): blocker and map
      tests repeat its floating-point operations, A* its heap order, and obstacle verdicts
      whose distance lies within ``_AMBIGUITY`` (1e-10 in) of the threshold are settled by GEOS
      exactly as before. ``tests/movement/reference_navmesh.py`` is that
      former code; ``tests/movement/test_equivalence.py`` compares the two.
    * :meth:`NavMesh.straight_region` and :meth:`NavMesh.reachable` return shapely polygons that
      are *inner* approximations: every point in them passes the exact checks. They are meant
      for drawing and for sampling candidate positions; legality is decided by :meth:`path`,
      :meth:`segment_reason` and :meth:`free_reason`.

Performance (CPU time on the 2-core machine, 48x32 map, 30 obstacles, 10 units;
``benchmarks/paths.py``, ``docs/movement.md``): the static graph for one radius (~770 nodes)
builds in ~40 ms; with it cached a routed path between fresh endpoints costs ~0.12 ms, a repeated
one ~0.06 ms, a clear straight one or a ``free_reason`` ~5 us, rebuilding everything every query
~30 ms. Straight-move regions (shapely) cost ~1-3 ms, ``reachable`` 50-250 ms (drawing only).
"""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray
from shapely.geometry import MultiPolygon, Polygon, box
from shapely.geometry.base import BaseGeometry

from components.terrain import ObstacleSpec
from game.movement import _kernels as _k
from game.movement.path import Path

#: Touching is allowed: bases may come this close to overlapping (inches).
TOUCH_TOL = 1e-9
#: :meth:`NavMesh.segment_codes` verdicts: the slide is clear; GEOS must settle it.
SEGMENT_FREE = _k.FREE
SEGMENT_ASK = _k.ASK_GEOS
#: Corner arcs are split into this many pieces per quarter circle (like shapely's quad_segs).
DEFAULT_QUAD_SEGS = 8
#: Vertices of the (inscribed) polygon standing for a reach disc in regions.
DISC_SEGMENTS = 256

_TURN_EPS = 1e-9  # sin of the smallest turn that makes a ring vertex a graph node
_FACE_EPS = 1e-9  # an edge this close to the viewer still casts a shadow (robust contact)
_ATTACH_CACHE_SIZE = 2048  # cached blocker rings / endpoints (units rarely move between queries)
# A kernel obstacle distance this close to the threshold is left to GEOS. Both compute distances
# to ~1e-14 on maps of hundreds of inches, so outside the band they agree; touching contacts sit
# TOUCH_TOL = 1e-9 away from the threshold, far outside it.
_AMBIGUITY = 1e-10
_NO_BLOCKERS = np.zeros((0, 3))
_NO_CUT = np.zeros(0)
_ZERO_DIR = np.zeros((1, 2))  # ring directions of a path endpoint (it has none)
_NO_OVERRIDES = np.zeros((0, 5))  # no GEOS verdicts asked yet (rows ax, ay, bx, by, clear)
_NO_CROSS = np.zeros((0, 4), np.int64)  # no previous round's cross-part edges to reuse

Point2 = tuple[float, float]
FloatArray = NDArray[np.float64]


def as_blockers(blockers: ArrayLike) -> FloatArray:
    """Return ``blockers`` as a float (k, 3) array of (x, y, radius); empty input gives (0, 3).

    Raises:
        ValueError: if the input is not k rows of three numbers.
    """
    arr = np.asarray(blockers, dtype=float)
    if arr.size == 0:
        return np.zeros((0, 3))
    if arr.ndim == 1 and arr.shape[0] == 3:
        arr = arr.reshape(1, 3)
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise ValueError(f"blockers must be a (k, 3) array of (x, y, radius), got shape {arr.shape}")
    if not (arr.flags.c_contiguous and arr.flags.writeable):
        arr = arr.copy()  # the kernels are compiled for writeable C arrays only
    return arr


def _pt(p: ArrayLike) -> FloatArray:
    arr = np.asarray(p, dtype=float).reshape(-1)
    if arr.shape != (2,):
        raise ValueError(f"a point is (x, y), got {p!r}")
    return arr


def _xy(p: ArrayLike) -> tuple[float, float]:
    """``p`` as two floats; the engine's plain (float, float) tuples skip numpy."""
    if type(p) is tuple and len(p) == 2 and type(p[0]) is float and type(p[1]) is float:
        return p[0], p[1]
    q = _pt(p)
    return float(q[0]), float(q[1])


def _check_radius(radius: float) -> float:
    r = float(radius)
    if not r > 0.0 or not math.isfinite(r):
        raise ValueError(f"base radius must be positive, got {radius!r}")
    return r


def _unit_rows(v: FloatArray) -> FloatArray:
    n = np.hypot(v[:, 0], v[:, 1])
    n[n == 0.0] = 1.0
    return v / n[:, None]


def point_segment_distance(p: FloatArray, a: FloatArray, b: FloatArray) -> FloatArray:
    """Distances from points ``p`` to segments ``a``-``b``; all (..., 2), broadcast together."""
    if p.shape == a.shape == b.shape == (2,):  # one point: the compiled replica, same bits
        return np.asarray(_k.point_segment(p[0], p[1], a[0], a[1], b[0], b[1]))
    ab = b - a
    ap = p - a
    den = np.einsum("...i,...i->...", ab, ab)
    t = np.where(den > 0.0, np.einsum("...i,...i->...", ap, ab) / np.where(den > 0.0, den, 1.0), 0.0)
    t = np.clip(t, 0.0, 1.0)
    d = ap - t[..., None] * ab
    return np.asarray(np.hypot(d[..., 0], d[..., 1]))


def _arc_vertices(
    centre: FloatArray, a0: float, span: float, r: float, max_step: float, splits: Sequence[float] = ()
) -> list[Point2]:
    """Vertices of a polygon circumscribing the arc of radius ``r`` from angle ``a0`` over ``span``.

    The arc's end tangent points are not included; each interior angle in ``splits`` (offsets in
    (0, span)) becomes an extra tangent point so a viewer touching the arc there lies on the
    polygon rather than inside it.
    """
    cuts = [0.0, *sorted(s for s in splits if 0.0 < s < span), span]
    out: list[Point2] = []
    cx, cy = float(centre[0]), float(centre[1])
    for k in range(len(cuts) - 1):
        lo, hi = cuts[k], cuts[k + 1]
        if k > 0:
            out.append((cx + r * math.cos(a0 + lo), cy + r * math.sin(a0 + lo)))
        n = max(1, math.ceil((hi - lo) / max_step - 1e-9))
        step = (hi - lo) / n
        rr = r / math.cos(step / 2.0)  # chords then touch the true arc: clearance exactly r
        for i in range(n):
            ang = a0 + lo + (i + 0.5) * step
            out.append((cx + rr * math.cos(ang), cy + rr * math.sin(ang)))
    return out


def circle_vertices(centre: ArrayLike, radius: float, segments: int, phase: float = 0.0) -> FloatArray:
    """Vertices of a regular polygon circumscribing a circle, an edge midpoint at ``phase``."""
    c = _pt(centre)
    step = 2.0 * math.pi / segments
    ang = phase + (np.arange(segments) + 0.5) * step
    rr = radius / math.cos(step / 2.0)
    return np.column_stack([c[0] + rr * np.cos(ang), c[1] + rr * np.sin(ang)])


def circle_polygon(centre: ArrayLike, radius: float, segments: int, phase: float = 0.0) -> Polygon:
    """Regular polygon circumscribing a circle, with an edge midpoint (tangent point) at ``phase``."""
    return Polygon(circle_vertices(centre, radius, segments, phase))


def disc_polygon(centre: ArrayLike, radius: float, segments: int = DISC_SEGMENTS) -> Polygon:
    """Regular polygon inscribed in a circle (every point is within ``radius`` of the centre)."""
    c = _pt(centre)
    ang = np.arange(segments) * (2.0 * math.pi / segments)
    return Polygon(np.column_stack([c[0] + radius * np.cos(ang), c[1] + radius * np.sin(ang)]))


def sector_polygon(centre: ArrayLike, radius: float, start: float, width: float) -> Polygon:
    """Inscribed polygon of the circular sector from angle ``start`` over signed ``width``."""
    c = _pt(centre)
    n = max(2, math.ceil(abs(width) / (2.0 * math.pi / DISC_SEGMENTS)))
    ang = start + width * np.arange(n + 1) / n
    arc = np.column_stack([c[0] + radius * np.cos(ang), c[1] + radius * np.sin(ang)])
    return Polygon(np.vstack([c, arc]))


def polygonal(geom: BaseGeometry) -> Polygon | MultiPolygon:
    """The polygonal part of ``geom`` as a Polygon or MultiPolygon (an empty Polygon if none)."""
    if isinstance(geom, Polygon | MultiPolygon):
        return geom
    parts = [g for g in shapely.get_parts(geom) if isinstance(g, Polygon) and not g.is_empty]
    if not parts:
        return Polygon()
    return parts[0] if len(parts) == 1 else MultiPolygon(parts)


def _rings(geom: BaseGeometry) -> list[FloatArray]:
    """Rings of the polygonal parts, oriented so the polygon's material is on the left."""
    out: list[FloatArray] = []
    for part in shapely.get_parts(shapely.orient_polygons(geom)):
        if not isinstance(part, Polygon) or part.is_empty:
            continue
        for ring in (part.exterior, *part.interiors):
            v = np.asarray(ring.coords, dtype=float)[:-1]
            if len(v) < 3:
                continue
            keep = np.hypot(*(v - np.roll(v, 1, axis=0)).T) > 1e-12
            v = v[keep]
            if len(v) >= 3:
                out.append(v)
    return out


def _inflate(geom: BaseGeometry, r: float, max_step: float, focus: FloatArray | None = None) -> BaseGeometry:
    """Minkowski sum of a polygonal obstacle and a disc of radius ``r``, arcs circumscribed.

    Built as the union of the polygon, an exact r-wide rectangle outside each edge and a
    circumscribed fan at each convex vertex, which handles non-convex polygons and holes without
    special cases. ``focus`` (a point touching an arc) adds a tangent point facing it.
    """
    pieces: list[BaseGeometry] = [geom]
    rmax = r / math.cos(max_step / 2.0)
    for v in _rings(geom):
        d = np.roll(v, -1, axis=0) - v  # edge i runs v[i] -> v[i+1]
        dn = _unit_rows(d)
        nout = np.column_stack([dn[:, 1], -dn[:, 0]])  # material on the left => outward is right
        a = v
        b = np.roll(v, -1, axis=0)
        quads = np.stack([a, b, b + r * nout, a + r * nout], axis=1)
        pieces.extend(shapely.polygons(quads))
        for i in range(len(v)):
            dp, dc = dn[i - 1], dn[i]
            cross = dp[0] * dc[1] - dp[1] * dc[0]
            if cross <= 1e-12:
                continue  # reflex or straight vertex: the offset edges meet, no arc
            span = math.atan2(cross, float(dp @ dc))
            a0 = math.atan2(nout[i - 1][1], nout[i - 1][0])
            splits: list[float] = []
            if focus is not None:
                rel = focus - v[i]
                dist = math.hypot(rel[0], rel[1])
                if dist <= rmax + 1e-9:
                    off = (math.atan2(rel[1], rel[0]) - a0) % (2.0 * math.pi)
                    if 0.0 < off < span:
                        splits.append(off)
            fan = [
                (float(v[i][0]), float(v[i][1])),
                (float(v[i][0] + r * nout[i - 1][0]), float(v[i][1] + r * nout[i - 1][1])),
                *_arc_vertices(v[i], a0, span, r, max_step, splits),
                (float(v[i][0] + r * nout[i][0]), float(v[i][1] + r * nout[i][1])),
            ]
            pieces.append(Polygon(fan))
    return shapely.union_all(pieces)


def _is_convex(geom: BaseGeometry) -> bool:
    return (
        isinstance(geom, Polygon) and not geom.interiors and geom.convex_hull.area <= geom.area * (1 + 1e-12)
    )


def _convex_shadows(hulls: list[FloatArray], pos: FloatArray, reach: float) -> list[BaseGeometry]:
    """Each convex polygon (vertex array) plus everything hidden behind it as seen from ``pos``,
    out to beyond ``reach``: the convex hull of its vertices and far points on its two
    silhouette rays and their bisector (the bisector keeps the far cap outside the reach disc).
    A viewer touching the polygon gets the half-plane (face) or corner cone behind the contact.
    """
    chunks, owner = [], []
    for k, v in enumerate(hulls):
        rel = v - pos
        dist = np.hypot(rel[:, 0], rel[:, 1])
        rel = rel[dist > 1e-9]  # a viewer on a vertex looks along its two edges
        c = rel.mean(axis=0)
        ang = np.arctan2(rel[:, 1] * c[0] - rel[:, 0] * c[1], rel @ c)  # signed, from the mean ray
        u1, u2 = rel[np.argmin(ang)], rel[np.argmax(ang)]
        u1, u2 = u1 / math.hypot(u1[0], u1[1]), u2 / math.hypot(u2[0], u2[1])
        um = u1 + u2
        lm = math.hypot(um[0], um[1])
        if lm > 1e-6:
            um = um / lm
        else:  # viewer on a flat face: silhouette rays opposite, the cap is straight behind
            um = np.array([-u1[1], u1[0]])
            um = um if um @ c > 0 else -um
        far = 2.0 * max(reach, float(dist.max())) + 1.0
        chunks.append(np.vstack([v, pos + far * u1, pos + far * um, pos + far * u2]))
        owner.append(np.full(len(v) + 3, k))
    if not chunks:
        return []
    multi = shapely.multipoints(np.vstack(chunks), indices=np.concatenate(owner))
    return list(shapely.convex_hull(multi))


def _ring_nodes(geom: BaseGeometry) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Convex corners of an inflated obstacle (the only places a shortest path can bend).

    Returns:
        (nodes, up, un): positions and unit directions to each node's two ring neighbours.
    """
    nodes, ups, uns = [], [], []
    for v in _rings(geom):
        p = np.roll(v, 1, axis=0)
        n = np.roll(v, -1, axis=0)
        e1 = v - p
        e2 = n - v
        l1 = np.hypot(e1[:, 0], e1[:, 1])
        l2 = np.hypot(e2[:, 0], e2[:, 1])
        sin_turn = (e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]) / (l1 * l2)
        convex = sin_turn > _TURN_EPS
        nodes.append(v[convex])
        ups.append(_unit_rows(p[convex] - v[convex]))
        uns.append(_unit_rows(n[convex] - v[convex]))
    if not nodes:
        z = np.zeros((0, 2))
        return z, z, z
    return np.vstack(nodes), np.vstack(ups), np.vstack(uns)


@dataclass(slots=True)
class _Graph:
    """Visibility edges among the static nodes of one radius (obstacles only), as adjacency
    arrays: node u's neighbours are ``nbr[ptr[u]:ptr[u + 1]]`` (lengths ``w``, edge ids ``eid``)
    in edge order."""

    ea: FloatArray  # (E, 2) edge start points
    eb: FloatArray  # (E, 2) edge end points
    ptr: NDArray[np.int64]
    nbr: NDArray[np.int64]
    w: FloatArray
    eid: NDArray[np.int64]


@dataclass(slots=True)
class _Static:
    """Everything about one base radius that does not depend on the blockers."""

    r: float
    inflated: list[BaseGeometry]
    inflated_tree: shapely.STRtree
    hulls: list[FloatArray | None]  # vertices of the convex inflations (None: not convex)
    nodes: FloatArray
    up: FloatArray
    un: FloatArray
    graph: _Graph | None = None


@dataclass(slots=True)
class _Attachment:
    """One query part (a blocker's ring nodes or a path endpoint) with its obstacle-clear edges
    to the static nodes and among its own points, packed for the kernels (``_kernels`` module
    docstring): ``fdat`` (p, 10) points, ring directions and bitangent cones, ``idat`` the int64 record."""

    fdat: FloatArray
    idat: NDArray[np.int64]


@dataclass(slots=True)
class _QueryGraph:
    """Static graph + query parts: node coordinates and ring directions (zero for endpoints),
    static edges minus ``blocked``, plus query edges ``ex_nbr[ex_ptr[u]:ex_ptr[u + 1]]``."""

    coords: FloatArray
    up: FloatArray
    un: FloatArray
    n_static: int
    graph: _Graph
    blocked: NDArray[np.bool_]
    ex_ptr: NDArray[np.int64]
    ex_nbr: NDArray[np.int64]
    ex_w: FloatArray


def _obstacle_arrays(geoms: Sequence[BaseGeometry]) -> tuple[FloatArray, NDArray[np.int64], FloatArray]:
    """Bounding boxes and enclosing circles, edge offsets and ring edges of the obstacles, in
    the layout of the kernels (``_kernels`` module docstring)."""
    boxes = np.zeros((len(geoms), 7))
    ptr = np.zeros(len(geoms) + 1, np.int64)
    segs: list[FloatArray] = [np.zeros((0, 4))]
    for i, g in enumerate(geoms):
        x0, y0, x1, y1 = g.bounds
        cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
        v = shapely.get_coordinates(g)
        boxes[i] = (x0, y0, x1, y1, cx, cy, float(np.hypot(v[:, 0] - cx, v[:, 1] - cy).max()))
        n = 0
        for part in shapely.get_parts(g):
            for ring in (part.exterior, *part.interiors):
                c = shapely.get_coordinates(ring)
                segs.append(np.hstack([c[:-1], c[1:]]))
                n += len(c) - 1
        ptr[i + 1] = ptr[i] + n
    return boxes, ptr, np.ascontiguousarray(np.vstack(segs))


class NavMesh:
    """Movement geometry of one map: free space, straight moves, shortest paths, reach.

    Args:
        obstacles: The map's obstacles (any simple polygons; invalid ones are repaired).
        width: Map width in inches (x from 0 east to ``width``).
        height: Map height in inches (y from 0 south to ``height``).
        quad_segs: Corner arcs are approximated by this many pieces per quarter circle.
        cache_static: Keep the obstacle-only geometry and visibility graph per radius (turn off
            only to measure what the cache saves; off also disables ``cache_attachments``).
        cache_attachments: Also keep, per radius and position, the obstacle-clear edges from
            blocker rings and path endpoints to the static graph (LRU of 2048), so units that
            have not moved cost only their blocker checks in the next query.
    """

    def __init__(
        self,
        obstacles: Sequence[ObstacleSpec],
        width: float,
        height: float,
        *,
        quad_segs: int = DEFAULT_QUAD_SEGS,
        cache_static: bool = True,
        cache_attachments: bool = True,
    ) -> None:
        if not (width > 0 and height > 0):
            raise ValueError(f"map size must be positive, got {width} x {height}")
        if quad_segs < 1:
            raise ValueError("quad_segs must be at least 1")
        self.width = float(width)
        self.height = float(height)
        self.quad_segs = int(quad_segs)
        self.cache_static = cache_static
        self.cache_attachments = cache_static and cache_attachments
        self._max_step = math.pi / (2.0 * self.quad_segs)
        self._circle_segments = 4 * self.quad_segs
        self.obstacle_ids: tuple[str, ...] = tuple(o.id for o in obstacles)
        self.obstacle_geoms: tuple[BaseGeometry, ...] = tuple(self._exact(o) for o in obstacles)
        # the kernels test these arrays; GEOS (below) only settles verdicts the kernels flag as
        # too close to call, and names obstacles for reasons in that case
        self._box, self._ptr, self._seg = _obstacle_arrays(self.obstacle_geoms)
        self._tree = shapely.STRtree(list(self.obstacle_geoms))
        self._all = shapely.GeometryCollection(list(self.obstacle_geoms))
        shapely.prepare(self._all)
        # unit vectors to the vertices of blocker rings (circumscribed polygons, see _ring)
        step = 2.0 * math.pi / self._circle_segments
        ang = (np.arange(self._circle_segments) + 0.5) * step
        self._unit = np.column_stack([np.cos(ang), np.sin(ang)])
        # obstacle vertices (a path endpoint touching a corner arc gets tangent points there)
        corners = [shapely.get_coordinates(g) for g in self.obstacle_geoms]
        self._corners = np.unique(np.vstack(corners), axis=0) if corners else np.zeros((0, 2))
        self._static_cache: dict[float, _Static] = {}
        self._attach_cache: OrderedDict[tuple[float, ...], _Attachment] = OrderedDict()

    @staticmethod
    def _exact(spec: ObstacleSpec) -> BaseGeometry:
        geom: BaseGeometry = Polygon(spec.polygon)
        if not geom.is_valid:
            geom = shapely.make_valid(geom)
        poly = polygonal(geom)
        if poly.is_empty:  # a zero-area "polygon": keep it as a hair-thin wall
            poly = polygonal(geom.buffer(1e-6))
        return poly

    # ----------------------------------------------------------------- static geometry cache

    def _static(self, r: float) -> _Static:
        st = self._static_cache.get(r)
        if st is not None:
            return st
        inflated = [_inflate(g, r, self._max_step) for g in self.obstacle_geoms]
        parts = [_ring_nodes(g) for g in inflated]
        if parts:
            nodes = np.vstack([p[0] for p in parts])
            up = np.vstack([p[1] for p in parts])
            un = np.vstack([p[2] for p in parts])
        else:
            nodes = up = un = np.zeros((0, 2))
        keep = self._points_free(nodes, r, _NO_BLOCKERS)
        st = _Static(
            r=r,
            inflated=inflated,
            inflated_tree=shapely.STRtree(inflated),
            hulls=[shapely.get_coordinates(g.exterior)[:-1] if _is_convex(g) else None for g in inflated],
            nodes=np.ascontiguousarray(nodes[keep]),
            up=np.ascontiguousarray(up[keep]),
            un=np.ascontiguousarray(un[keep]),
        )
        if self.cache_static:
            self._static_cache[r] = st
        return st

    def _graph(self, st: _Static) -> _Graph:
        if st.graph is not None:
            return st.graph
        nodes = st.nodes
        ci, cj = np.nonzero(_k.static_pairs(nodes, st.up, st.un))  # bitangent pairs i < j, row-major
        clear = self._segments_clear_of_obstacles(nodes[ci], nodes[cj], st.r)
        ci, cj = ci[clear], cj[clear]
        ea, eb = nodes[ci], nodes[cj]
        w = np.hypot(*(eb - ea).T)
        ptr, nbr, wt, eid = _k.csr(len(nodes), ci, cj, w)
        st.graph = _Graph(ea=ea, eb=eb, ptr=ptr, nbr=nbr, w=wt, eid=eid)
        return st.graph

    def _attachment(
        self,
        st: _Static,
        pts: FloatArray,
        dirs: tuple[FloatArray, FloatArray] | None,
        blocker: FloatArray | None = None,
    ) -> _Attachment:
        """Edges from extra points (a blocker's ring nodes or a path endpoint) to the static nodes
        and among themselves that clear the obstacles, and for a ring the static edges its
        blocker cuts."""
        r = st.r
        up, un = dirs if dirs is not None else (_ZERO_DIR, _ZERO_DIR)
        g = self._graph(st)
        # blocker: (x, y, br + r - TOUCH_TOL), the static edges closer than that are cut
        cut = _NO_CUT if blocker is None else np.array([blocker[0], blocker[1], blocker[2] + r - TOUCH_TOL])
        ok, fdat, idat = _k.attach_packed(
            pts, up, un, dirs is not None, st.nodes, st.up, st.un, r, self.width, self.height,
            TOUCH_TOL, _AMBIGUITY, self._box, self._ptr, self._seg, g.ea, g.eb, cut,
        )  # fmt: skip
        if not ok:  # some obstacle verdict needs GEOS: the same steps one by one
            free = self._points_free(pts, r, _NO_BLOCKERS)
            li, sj, s1, ai, aj, s2 = _k.attach(
                pts, up, un, dirs is not None, free, st.nodes, st.up, st.un,
                r - TOUCH_TOL, _AMBIGUITY, self._box, self._ptr, self._seg,
            )  # fmt: skip
            clear = self._settle(s1, pts[li], st.nodes[sj], r)
            li, sj = li[clear], sj[clear]
            clear = self._settle(s2, pts[ai], pts[aj], r)
            ai, aj = ai[clear], aj[clear]
            blk = np.zeros(0, np.int64) if blocker is None else _k.edges_blocked_by(g.ea, g.eb, *cut)
            fdat, idat = _k.pack(pts, up, un, dirs is not None, free, li, sj, ai, aj, blk)
        return _Attachment(fdat=fdat, idat=idat)

    def _cached(self, key: tuple[float, ...]) -> _Attachment | None:
        hit = self._attach_cache.get(key)
        if hit is not None:
            self._attach_cache.move_to_end(key)
        return hit

    def _keep(self, key: tuple[float, ...], att: _Attachment) -> _Attachment:
        if self.cache_attachments:
            self._attach_cache[key] = att
            while len(self._attach_cache) > _ATTACH_CACHE_SIZE:
                self._attach_cache.popitem(last=False)
        return att

    def _endpoint(self, st: _Static, x: float, y: float) -> _Attachment:
        """Attachment of a path endpoint, cached by radius and position."""
        key = (st.r, x, y)
        return self._cached(key) or self._keep(key, self._attachment(st, np.array([[x, y]]), None))

    def _ring(self, st: _Static, b: FloatArray) -> _Attachment:
        """Attachment of a blocker's ring nodes, cached by radius, position and base radius."""
        key = (st.r, float(b[0]), float(b[1]), float(b[2]))
        hit = self._cached(key)
        if hit is not None:
            return hit
        # the circumscribed polygon of radius br + r (vertices at rr), as shapes elsewhere
        rr = (key[3] + st.r) / math.cos(math.pi / self._circle_segments)
        ring, up, un = _k.ring_nodes(key[1], key[2], rr, self._unit)
        return self._keep(key, self._attachment(st, ring, (up, un), b))

    def _near_corners(self, st: _Static, ends: FloatArray) -> list[list[tuple[float, float, float, float]]]:
        """Per endpoint, the obstacle corners whose circumscribed arc may hold it, as candidate
        arcs (centre, circumscribed ring radius, half-step) for :meth:`_contact`; they do not
        depend on the blockers, so a search finds them once for all its rounds."""
        d_corner = self._max_step / 2.0
        ring_corner = st.r / math.cos(d_corner)
        corner_arcs: list[list[tuple[float, float, float, float]]] = [[] for _ in range(len(ends))]
        if len(self._corners):
            # one distance matrix for all the endpoints
            near = (
                np.hypot(self._corners[:, 0] - ends[:, :1], self._corners[:, 1] - ends[:, 1:2])
                <= ring_corner + 1e-9
            )
            which, corner = np.nonzero(near)
            for i, (x, y) in zip(which.tolist(), self._corners[corner].tolist(), strict=True):
                corner_arcs[i].append((x, y, ring_corner, d_corner))
        return corner_arcs

    def _contact(
        self,
        st: _Static,
        blockers: FloatArray,
        active: Sequence[int],
        ends: FloatArray,
        corner_arcs: list[list[tuple[float, float, float, float]]],
    ) -> list[_Attachment]:
        """Tangent points for path endpoints inside the slack of a circumscribed arc (or none).

        An endpoint touching a unit (or an obstacle corner) lies on the true circle of radius
        R = br + r, i.e. *inside* the circumscribed ring, whose vertices sit every 2δ at R/cos δ.
        A straight segment from it clears the disc only towards vertices within δ of its own
        angle, so it could leave round the arc one way only, and shortest paths that wrap the
        arc the other way were missed (longer routes, or None for reachable goals). The two
        points at R/cos δ and angle ±δ from the endpoint are what the ring would have had if it
        had been rotated to put an edge midpoint there: the endpoint reaches both along its
        tangent line, and each reaches the next ring vertex without entering the disc. They are
        ordinary extra nodes (every edge is checked exactly), added for active blockers and
        obstacle vertices whose circumscribed arc's slack contains an endpoint.
        ``corner_arcs`` are the endpoints' candidate corners (:meth:`_near_corners`).
        """
        r = st.r
        pts: list[tuple[float, float]] = []
        d_unit = math.pi / self._circle_segments
        # Candidate arcs as Python numbers, converted once for all endpoints: (centre, circumscribed
        # ring radius, half-step). Every active blocker is a candidate of every endpoint, obstacle
        # corners only near it.
        cos_unit = math.cos(d_unit)
        rows = blockers[list(active)].tolist() if active else []
        blocker_arcs = [(x, y, (br + r) / cos_unit, d_unit) for x, y, br in rows]
        ends_xy = ends.tolist()
        for (ex, ey), near_corners in zip(ends_xy, corner_arcs, strict=True):
            for cx, cy, ring, d in blocker_arcs + near_corners:
                if math.hypot(ex - cx, ey - cy) > ring + 1e-9:
                    continue
                th = math.atan2(ey - cy, ex - cx)
                pts.extend(
                    (cx + ring * math.cos(th + sg * d), cy + ring * math.sin(th + sg * d))
                    for sg in (-1.0, 1.0)
                )
        if not pts:
            return []
        key = (st.r, -1.0, float(len(pts)), *itertools.chain.from_iterable(pts))
        return [self._cached(key) or self._keep(key, self._attachment(st, np.array(pts), None))]

    def static_nodes(self, radius: float) -> FloatArray:
        """Graph nodes of the obstacle inflation for ``radius`` (for debugging and drawing)."""
        return self._static(_check_radius(radius)).nodes.copy()

    # ----------------------------------------------------------------- exact checks

    def _points_free(self, pts: FloatArray, r: float, blockers: FloatArray) -> NDArray[np.bool_]:
        """(n,) bool: a base of radius r at each point is inside the map and overlaps nothing."""
        if len(pts) == 0:
            return np.zeros(0, bool)
        pts = np.ascontiguousarray(pts, dtype=float)
        status = _k.points_status(
            pts, r, self.width, self.height, TOUCH_TOL, _AMBIGUITY, self._box, self._ptr, self._seg
        )
        amb = np.nonzero(status == _k.AMBIGUOUS)[0]
        if len(amb):  # GEOS decides, as it always did
            hits = self._tree.query(shapely.points(pts[amb]), predicate="dwithin", distance=r - TOUCH_TOL)
            status[amb] = _k.CLEAR
            status[amb[hits[0]]] = _k.HIT
        ok = status == _k.CLEAR
        if len(blockers):
            ok &= _k.blockers_free(pts, r, blockers, TOUCH_TOL)
        return ok

    def _segments_clear_of_obstacles(self, a: FloatArray, b: FloatArray, r: float) -> NDArray[np.bool_]:
        """(n,) bool: a base of radius r sliding a[i] -> b[i] overlaps no obstacle."""
        if len(a) == 0 or not self.obstacle_geoms:
            return np.ones(len(a), bool)
        a = np.ascontiguousarray(a, dtype=float)
        b = np.ascontiguousarray(b, dtype=float)
        status = _k.segments_status(a, b, r - TOUCH_TOL, _AMBIGUITY, self._box, self._ptr, self._seg)
        return self._settle(status, a, b, r)

    def _settle(self, status: NDArray[np.int8], a: FloatArray, b: FloatArray, r: float) -> NDArray[np.bool_]:
        """Kernel statuses of segments a-b as "clear" verdicts, asking GEOS where they are ambiguous."""
        clear = status == _k.CLEAR
        amb = np.nonzero(status == _k.AMBIGUOUS)[0]
        if len(amb):
            lines = shapely.linestrings(np.stack([a[amb], b[amb]], axis=1))
            clear[amb] = ~shapely.dwithin(lines, self._all, r - TOUCH_TOL)
        return clear

    def _first_obstacle(self, pa: FloatArray, pb: FloatArray, r: float) -> int:
        """Lowest index of an obstacle within r of segment pa-pb (a point if equal), or -1."""
        if not self.obstacle_geoms:
            return -1
        thr = r - TOUCH_TOL
        i, status = _k.first_obstacle(
            pa[0], pa[1], pb[0], pb[1], thr, _AMBIGUITY, self._box, self._ptr, self._seg
        )
        if status == _k.AMBIGUOUS:
            same = pa[0] == pb[0] and pa[1] == pb[1]
            geom = shapely.points(pa) if same else shapely.linestrings(np.stack([pa, pb]))
            hits = self._tree.query(geom, predicate="dwithin", distance=thr)
            i = int(min(hits)) if len(hits) else -1
        return int(i)

    @staticmethod
    def _blocker_name(k: int, blocker_ids: Sequence[str]) -> str:
        return str(blocker_ids[k]) if k < len(blocker_ids) else f"#{k}"

    def _free_why(self, q: FloatArray, r: float, bl: FloatArray, blocker_ids: Sequence[str]) -> str | None:
        """free_reason, step by step with GEOS settling close calls (the kernels' fallback)."""
        lo = r - TOUCH_TOL
        if not (q[0] >= lo and q[1] >= lo and q[0] <= self.width - lo and q[1] <= self.height - lo):
            return "outside the map"
        i = self._first_obstacle(q, q, r)
        if i >= 0:
            return f"overlaps obstacle {self.obstacle_ids[i]}"
        if len(bl):
            k = _k.first_blocker_at(q[0], q[1], r, bl, TOUCH_TOL)
            if k >= 0:
                return f"overlaps unit {self._blocker_name(k, blocker_ids)}"
        return None

    def _why(self, code: int, i: int, blocker_ids: Sequence[str]) -> str | None:
        if code == _k.FREE:
            return None
        if code == _k.OUTSIDE:
            return "outside the map"
        if code == _k.OBSTACLE:
            return f"overlaps obstacle {self.obstacle_ids[i]}"
        return f"overlaps unit {self._blocker_name(i, blocker_ids)}"

    def free_reason(
        self, p: ArrayLike, radius: float, blockers: ArrayLike = (), blocker_ids: Sequence[str] = ()
    ) -> str | None:
        """Why a base of ``radius`` centred at ``p`` may not stand there, or None if it may.

        Args:
            p: Centre (x, y), inches.
            radius: Base radius, inches.
            blockers: Other units' bases, (k, 3) rows of (x, y, radius).
            blocker_ids: Optional ids of the blockers, used in the reason.

        Returns:
            None when the base lies inside the map and overlaps no obstacle and no blocker
            (touching within :data:`TOUCH_TOL` allowed); otherwise e.g. ``"outside the map"``,
            ``"overlaps obstacle hedge-1"`` or ``"overlaps unit red-2"``.
        """
        r = _check_radius(radius)
        x, y = _xy(p)
        bl = as_blockers(blockers)
        code, i = _k.free_code(
            x, y, r, self.width, self.height, TOUCH_TOL, _AMBIGUITY, self._box, self._ptr, self._seg, bl
        )
        if code == _k.ASK_GEOS:
            return self._free_why(np.array([x, y]), r, bl, blocker_ids)
        return self._why(code, i, blocker_ids)

    def segment_reason(
        self,
        a: ArrayLike,
        b: ArrayLike,
        radius: float,
        blockers: ArrayLike = (),
        blocker_ids: Sequence[str] = (),
    ) -> str | None:
        """Why a base may not slide straight from ``a`` to ``b``, or None if it may.

        The whole swept disc is checked: both ends inside the map and, along the way, no overlap
        with any obstacle or blocker (touching allowed).

        Returns:
            None, or a reason such as ``"destination overlaps obstacle wall-2"``,
            ``"start overlaps unit blue-1"`` or ``"the way is blocked by obstacle wall-2"``.
        """
        stage, code, i, geos = self._segment_code(a, b, radius, blockers)
        if geos is not None:
            return self._segment_why(*geos, blocker_ids)
        why = self._why(code, i, blocker_ids)
        if why is None:
            return None
        if stage == 0:
            return f"destination {why}"
        if stage == 1:
            return f"start {why}"
        return f"the way is blocked by {why.removeprefix('overlaps ')}"

    def _segment_why(
        self, pa: FloatArray, pb: FloatArray, r: float, bl: FloatArray, blocker_ids: Sequence[str]
    ) -> str | None:
        """segment_reason, step by step with GEOS settling close calls (the kernels' fallback)."""
        why = self._free_why(pb, r, bl, blocker_ids)
        if why is not None:
            return f"destination {why}"
        why = self._free_why(pa, r, bl, blocker_ids)
        if why is not None:
            return f"start {why}"
        i = self._first_obstacle(pa, pb, r)
        if i >= 0:
            return f"the way is blocked by obstacle {self.obstacle_ids[i]}"
        if len(bl):
            k = _k.first_blocker_on(pa[0], pa[1], pb[0], pb[1], r, bl, TOUCH_TOL)
            if k >= 0:
                return f"the way is blocked by unit {self._blocker_name(k, blocker_ids)}"
        return None

    def segment_clear(self, a: ArrayLike, b: ArrayLike, radius: float, blockers: ArrayLike = ()) -> bool:
        """True if a base of ``radius`` can slide straight from ``a`` to ``b`` (see segment_reason).

        The same verdict as ``segment_reason(...) is None`` without wording a refusal: a policy
        tries dozens of candidate points per decision and most are refused.
        """
        _, code, _, geos = self._segment_code(a, b, radius, blockers)
        if geos is not None:
            return self._segment_why(*geos, ()) is None
        return bool(code == _k.FREE)

    def _segment_code(
        self, a: ArrayLike, b: ArrayLike, radius: float, blockers: ArrayLike
    ) -> tuple[int, int, int, tuple[FloatArray, FloatArray, float, FloatArray] | None]:
        """The kernel's (stage, code, index) for sliding from ``a`` to ``b``, and, when it leaves
        the call to GEOS, the arguments of :meth:`_segment_why` before the blocker ids."""
        r = _check_radius(radius)
        ax, ay = _xy(a)
        bx, by = _xy(b)
        bl = as_blockers(blockers)
        stage, code, i = _k.segment_code(
            ax, ay, bx, by, r, self.width, self.height,
            TOUCH_TOL, _AMBIGUITY, self._box, self._ptr, self._seg, bl,
        )  # fmt: skip
        geos = (np.array([ax, ay]), np.array([bx, by]), r, bl) if code == _k.ASK_GEOS else None
        return int(stage), int(code), int(i), geos

    # ----------------------------------------------------------------- shortest paths

    def _parts(
        self, st: _Static, blockers: FloatArray, active: Sequence[int], endpoints: FloatArray
    ) -> tuple[list[_Attachment], NDArray[np.bool_]]:
        """Ring attachments of the ``active`` blockers (ascending), the endpoints' contact tangent
        points (:meth:`_contact`), then the endpoints', and the active mask."""
        parts = [self._ring(st, blockers[k]) for k in active]
        parts.extend(self._contact(st, blockers, active, endpoints, self._near_corners(st, endpoints)))
        parts.extend(self._endpoint(st, float(e[0]), float(e[1])) for e in endpoints)
        act = np.zeros(len(blockers), bool)
        act[list(active)] = True
        return parts, act

    def _ask_geos(self, segs: FloatArray, r: float) -> FloatArray:
        """Rows (ax, ay, bx, by, clear) for segments the kernels could not call."""
        clear = self._settle(np.full(len(segs), _k.AMBIGUOUS, np.int8), segs[:, :2], segs[:, 2:], r)
        return np.column_stack([segs, clear.astype(float)])

    def _query_graph(
        self, st: _Static, r: float, blockers: FloatArray, active: Sequence[int], endpoints: FloatArray
    ) -> _QueryGraph:
        """Static graph + ring nodes of the ``active`` blockers + ``endpoints`` (appended last)."""
        g = self._graph(st)
        parts, act = self._parts(st, blockers, sorted(active), endpoints)
        fdat = np.vstack([p.fdat for p in parts]) if parts else np.zeros((0, 10))
        idat = np.concatenate([p.idat for p in parts]) if parts else np.zeros(0, np.int64)
        ov = np.zeros((0, 5))
        fresh = np.full(len(parts), -1, np.int64)  # nothing to reuse
        while True:
            code, coords, blocked, ex_ptr, ex_nbr, ex_w, amb, _ = _k.assemble(
                st.nodes, len(g.ea), fdat, idat, len(parts), blockers, act,
                r, TOUCH_TOL, _AMBIGUITY, self._box, self._ptr, self._seg, ov,
                fresh, _NO_CROSS, 0, act,
            )  # fmt: skip
            if code != _k.NEED_GEOS:
                break
            ov = np.vstack([ov, self._ask_geos(amb, r)])
        return _QueryGraph(
            coords=coords,
            up=np.vstack([st.up, fdat[:, 2:4]]),
            un=np.vstack([st.un, fdat[:, 4:6]]),
            n_static=len(st.nodes),
            graph=g,
            blocked=blocked,
            ex_ptr=ex_ptr,
            ex_nbr=ex_nbr,
            ex_w=ex_w,
        )

    def _astar(self, qg: _QueryGraph, src: int, dst: int) -> list[int] | None:
        g = qg.graph
        route = _k.astar(
            qg.coords,
            qg.n_static,
            g.ptr,
            g.nbr,
            g.w,
            g.eid,
            qg.blocked,
            qg.ex_ptr,
            qg.ex_nbr,
            qg.ex_w,
            src,
            dst,
        )
        return route.tolist() if len(route) else None

    def _dijkstra(self, qg: _QueryGraph, src: int, bound: float) -> dict[int, tuple[float, int]]:
        """Shortest distances below ``bound`` from ``src``: node -> (distance, parent)."""
        g = qg.graph
        done, dist, parent = _k.dijkstra(
            len(qg.coords), qg.n_static, g.ptr, g.nbr, g.w, g.eid,
            qg.blocked, qg.ex_ptr, qg.ex_nbr, qg.ex_w, src, bound,
        )  # fmt: skip
        return {v: (float(dist[v]), int(parent[v])) for v in np.nonzero(done)[0].tolist()}

    def path(
        self,
        start: ArrayLike,
        goal: ArrayLike,
        radius: float,
        blockers: ArrayLike = (),
        blocker_ids: Sequence[str] = (),
    ) -> Path | None:
        """Shortest legal move of a base of ``radius`` from ``start`` to ``goal``.

        Args:
            start: Current centre (x, y); must be free (see :meth:`free_reason`).
            goal: Wanted centre (x, y).
            radius: Base radius of the moving unit.
            blockers: Other units' bases, (k, 3) rows of (x, y, radius); exclude the mover.
            blocker_ids: Unused for the search; accepted so callers can pass ids uniformly.

        Returns:
            The shortest path found, or None if the start or goal is not free or the goal
            cannot be reached. Every segment of a returned path passes :meth:`segment_clear`.
        """
        del blocker_ids  # ids only matter for reasons; kept for a uniform call shape
        r = _check_radius(radius)
        sx, sy = _xy(start)
        tx, ty = _xy(goal)
        bl = as_blockers(blockers)
        code, cross = _k.prelude(
            sx,
            sy,
            tx,
            ty,
            r,
            self.width,
            self.height,
            TOUCH_TOL,
            _AMBIGUITY,
            self._box,
            self._ptr,
            self._seg,
            bl,
        )
        if code == 3:  # an obstacle verdict GEOS must settle: the general checks
            s, t = np.array([sx, sy]), np.array([tx, ty])
            if not self._points_free(np.vstack([s, t]), r, bl).all():
                return None
            clear = self._segments_clear_of_obstacles(s[None], t[None], r)[0]
            cross = bool(len(bl) and self._blocking(s[None], t[None], r, bl).any())
            code = 1 if clear and not cross else 2
        if code == 0:
            return None
        if code == 1:
            return Path(points=((sx, sy), (tx, ty)), length=math.dist((sx, sy), (tx, ty)))
        st = self._static(r)
        g = st.graph or self._graph(st)
        ends = [self._endpoint(st, sx, sy), self._endpoint(st, tx, ty)]
        pair = np.array([[sx, sy], [tx, ty]])
        # first round: the blockers that cross the straight line (the former code took the row
        # index of the (1, k) mask, i.e. blocker 0; harmless now that rounds are exact)
        active = np.nonzero(self._blocking(pair[:1], pair[1:], r, bl)[0])[0].tolist() if cross else []
        act = np.zeros(len(bl), bool)
        ov = _NO_OVERRIDES
        # the previous round's parts, active blockers and cross-part edges (reused, _k.assemble)
        old_parts: list[_Attachment] = []
        old_act = act.copy()
        old_cross = _NO_CROSS
        corners = self._near_corners(st, pair)
        while True:
            parts = [self._ring(st, bl[k]) for k in active]
            parts += self._contact(st, bl, active, pair, corners) + ends
            if active:
                act[active] = True
            where = {id(p): i for i, p in enumerate(old_parts)}
            omap = np.array([where.get(id(p), -1) for p in parts], np.int64)
            code, pts, lengths, new, amb, edges = _k.route(
                st.nodes, g.ptr, g.nbr, g.w, g.eid,
                np.concatenate([p.fdat for p in parts]), np.concatenate([p.idat for p in parts]), len(parts),
                bl, act, r, TOUCH_TOL, _AMBIGUITY, self._box, self._ptr, self._seg, ov,
                omap, old_cross, len(old_parts), old_act,
            )  # fmt: skip
            if code == _k.NEED_GEOS:
                ov = np.vstack([ov, self._ask_geos(amb, r)])
                continue
            if code == _k.NO_ROUTE:
                return None
            if len(new):
                # the route crosses blockers left out so far: add them and search again
                active = sorted(set(active) | set(new.tolist()))
                old_parts, old_act, old_cross = parts, act.copy(), edges
                continue
            return Path(points=tuple(map(tuple, pts.tolist())), length=float(lengths.sum()))

    def segment_codes(
        self, a: ArrayLike, goals: Sequence[tuple[float, float]], radius: float, blockers: ArrayLike = ()
    ) -> list[int]:
        """:meth:`segment_reason`'s kernel verdict for sliding from ``a`` to each goal:
        :data:`SEGMENT_FREE` (the reason is None), :data:`SEGMENT_ASK` (ask
        :meth:`segment_reason`: GEOS settles a close call), anything else a refusal. The same
        kernel call as ``segment_reason``, without wording a reason per goal."""
        r = _check_radius(radius)
        ax, ay = _xy(a)
        bl = as_blockers(blockers)
        w, h, box, ptr, seg = self.width, self.height, self._box, self._ptr, self._seg
        code_of = _k.segment_code
        return [
            int(code_of(ax, ay, float(bx), float(by), r, w, h, TOUCH_TOL, _AMBIGUITY, box, ptr, seg, bl)[1])
            for bx, by in goals
        ]

    def straight_codes(
        self, start: ArrayLike, goals: FloatArray, radius: float, blockers: ArrayLike = ()
    ) -> NDArray[np.int8]:
        """The first verdict of :meth:`path` for each goal (an (n, 2) array), without searching.

        Per goal: 0 when the start or the goal is not free (``path`` returns None), 1 when the
        straight move is clear (``path`` returns the straight segment, of length
        ``math.dist(start, goal)``), 2 when a search is needed, 3 when an obstacle verdict is
        left to GEOS (ask ``path``). The same kernel and floating-point operations as ``path``,
        so the verdicts are its own: many candidate points are judged without a search each.
        """
        r = _check_radius(radius)
        sx, sy = _xy(start)
        bl = as_blockers(blockers)
        w, h, box, ptr, seg = self.width, self.height, self._box, self._ptr, self._seg
        prelude = _k.prelude
        out = np.empty(len(goals), np.int8)
        for i, (tx, ty) in enumerate(np.asarray(goals, dtype=np.float64).tolist()):
            out[i] = prelude(sx, sy, tx, ty, r, w, h, TOUCH_TOL, _AMBIGUITY, box, ptr, seg, bl)[0]
        return out

    @staticmethod
    def _blocking(a: FloatArray, b: FloatArray, r: float, blockers: FloatArray) -> NDArray[np.bool_]:
        """(segments, blockers) mask: which blockers each segment a->b overlaps."""
        d = point_segment_distance(blockers[None, :, :2], a[:, None, :], b[:, None, :])
        return np.asarray(d < blockers[None, :, 2] + r - TOUCH_TOL)

    # ----------------------------------------------------------------- regions

    def free_space(self, radius: float, blockers: ArrayLike = ()) -> Polygon | MultiPolygon:
        """Where a base of ``radius`` may stand: an inner approximation (for drawing/sampling)."""
        r = _check_radius(radius)
        bl = as_blockers(blockers)
        st = self._static(r)
        area = box(r, r, self.width - r, self.height - r) if 2 * r <= min(self.width, self.height) else None
        if area is None:
            return Polygon()
        cuts = list(st.inflated)
        cuts.extend(circle_polygon(b[:2], b[2] + r, self._circle_segments) for b in bl)
        return polygonal(area.difference(shapely.union_all(cuts)) if cuts else area)

    def _cut_pieces(
        self,
        st: _Static,
        pos: FloatArray,
        reach: float,
        blockers: FloatArray,
        within: BaseGeometry | None = None,
    ) -> list[BaseGeometry]:
        """What a straight move from ``pos`` cannot reach: every inflated obstacle and blocker
        within ``reach`` together with the shadow it casts as seen from ``pos``.

        A cutter that ``pos`` touches is rebuilt so that ``pos`` lies on its boundary instead of
        inside its circumscribed slack (obstacles get a tangent point facing ``pos``; blocker
        polygons are rotated to put an edge midpoint there). ``within`` (a sector) narrows the
        obstacles considered to those meeting it.
        """
        hulls: list[FloatArray] = []  # convex cutters, as vertex arrays
        others: list[BaseGeometry] = []  # non-convex cutters
        if st.inflated:
            if within is None:
                idx = st.inflated_tree.query(shapely.points(pos), predicate="dwithin", distance=reach)
            else:
                idx = st.inflated_tree.query(within, predicate="intersects")
            idx = np.sort(idx)
            inside = shapely.contains_xy(np.asarray(st.inflated, dtype=object)[idx], pos[0], pos[1])
            for i, slack in zip(idx.tolist(), np.atleast_1d(inside).tolist()):
                poly = _inflate(self.obstacle_geoms[i], st.r, self._max_step, focus=pos) if slack else None
                if poly is None and st.hulls[i] is not None:
                    hulls.append(st.hulls[i])
                elif poly is not None and _is_convex(poly):
                    hulls.append(shapely.get_coordinates(poly.exterior)[:-1])
                else:
                    others.append(st.inflated[i] if poly is None else poly)
        if len(blockers):
            rr = blockers[:, 2] + st.r
            gap = np.hypot(blockers[:, 0] - pos[0], blockers[:, 1] - pos[1])
            for b in blockers[gap < rr / math.cos(math.pi / self._circle_segments) + reach]:
                phase = math.atan2(pos[1] - b[1], pos[0] - b[0])
                hulls.append(circle_vertices(b[:2], b[2] + st.r, self._circle_segments, phase))
        pieces = _convex_shadows(hulls, pos, reach)
        for poly in others:
            pieces.append(poly)
            pieces.extend(self._shadows([poly], pos, reach))
        return pieces

    @staticmethod
    def _shadows(polys: list[BaseGeometry], pos: FloatArray, reach: float) -> list[BaseGeometry]:
        """Quads of the region hidden behind each edge that faces ``pos`` (out to ``reach``)."""
        quads: list[BaseGeometry] = []
        for poly in polys:
            for v in _rings(poly):
                a, b = v, np.roll(v, -1, axis=0)
                e = b - a
                le = np.hypot(e[:, 0], e[:, 1])
                rel = pos - a
                cross = e[:, 0] * rel[:, 1] - e[:, 1] * rel[:, 0]
                # material is on the left; pos on the right (or on the line) sees the edge
                da = np.hypot(*(a - pos).T)
                db = np.hypot(*(b - pos).T)
                at = np.nonzero(da <= 1e-9)[0]
                if len(at):
                    # viewer on a vertex: it sees into the material through the vertex itself,
                    # so the interior angle there (from the next edge CCW to the previous one)
                    # is hidden too
                    i = int(at[0])
                    tn = math.atan2(*(v[(i + 1) % len(v)] - v[i])[::-1])
                    tp = math.atan2(*(v[i - 1] - v[i])[::-1])
                    span = (tp - tn) % (2.0 * math.pi)
                    far = 2.0 * reach + 1.0
                    k = max(2, math.ceil(span / (math.pi / 3.0)))
                    angs = tn + span * np.arange(k + 1) / k
                    rays = np.column_stack([np.cos(angs), np.sin(angs)])
                    quads.append(Polygon([tuple(pos), *map(tuple, pos + far * rays)]))
                sel = (cross < _FACE_EPS * le) & (da > 1e-9) & (db > 1e-9)
                if not sel.any():
                    continue
                a, b, da, db, e, le = a[sel], b[sel], da[sel], db[sel], e[sel], le[sel]
                ua = (a - pos) / da[:, None]
                ub = (b - pos) / db[:, None]
                um = ua + ub
                lm = np.hypot(um[:, 0], um[:, 1])
                behind = np.column_stack([-e[:, 1], e[:, 0]]) / le[:, None]  # into the material
                um = np.where((lm > 1e-6)[:, None], um / np.where(lm > 1e-6, lm, 1.0)[:, None], behind)
                far = 2.0 * np.maximum(reach, np.maximum(da, db))[:, None] + 1.0
                q = np.stack([a, b, pos + far * ub, pos + far * um, pos + far * ua], axis=1)
                for quad in shapely.polygons(q):
                    if not quad.is_valid:  # degenerate (viewer in line with the edge)
                        quad = polygonal(shapely.make_valid(quad))
                    if not quad.is_empty:
                        quads.append(quad)
        return quads

    def straight_region(
        self, pos: ArrayLike, radius: float, max_len: float, blockers: ArrayLike = ()
    ) -> Polygon | MultiPolygon:
        """Points a base can reach from ``pos`` in one straight move of at most ``max_len``.

        Every point of the result is free and joined to ``pos`` by a clear straight segment
        (checked against the circumscribed inflation, so the exact checks agree); it is empty
        when ``pos`` itself is not free.
        """
        r = _check_radius(radius)
        return self._star(self._static(r), _pt(pos), float(max_len), as_blockers(blockers))

    def _star(
        self,
        st: _Static,
        pos: FloatArray,
        reach: float,
        blockers: FloatArray,
        sector: tuple[float, float] | None = None,
        known_free: bool = False,
    ) -> Polygon | MultiPolygon:
        r = st.r
        if reach <= 0.0 or not (known_free or self._points_free(pos[None], r, blockers)[0]):
            return Polygon()
        shape = disc_polygon(pos, reach) if sector is None else sector_polygon(pos, reach, *sector)
        area = shape.intersection(box(r, r, self.width - r, self.height - r))
        pieces = self._cut_pieces(st, pos, reach, blockers, None if sector is None else shape)
        if not pieces:
            return polygonal(area)
        return polygonal(area.difference(shapely.union_all(pieces)))

    def reachable(
        self, start: ArrayLike, radius: float, max_length: float, blockers: ArrayLike = ()
    ) -> Polygon | MultiPolygon:
        """Points reachable from ``start`` by a legal path of length at most ``max_length``.

        The geodesic disc: the union, over graph nodes v whose shortest-path distance L_v is below
        ``max_length``, of the points visible from v within ``max_length - L_v`` (each a full
        star, :meth:`_star`). A goal is legal exactly when :meth:`path` finds a path of length at
        most ``max_length``, i.e. when it is visible from some node v within ``max_length - L_v``:
        this union is that set, up to the chords of the polygonal discs (an inner band of
        ``max_length * (1 - cos(pi / DISC_SEGMENTS))`` at the rim). Restricting each node to the
        sector a path can bend into there (as this did before) left holes of legal points
        between the sectors of neighbouring nodes round a unit's base (issue 19: 240 holes in
        red-m2's reach on firing-line), so every node contributes its whole star.
        """
        r = _check_radius(radius)
        s = _pt(start)
        bl = as_blockers(blockers)
        length = float(max_length)
        if length <= 0.0 or not self._points_free(s[None], r, bl)[0]:
            return Polygon()
        st = self._static(r)
        qg = self._query_graph(st, r, bl, range(len(bl)), s[None])
        src = len(qg.coords) - 1
        stars = [
            self._star(st, qg.coords[v], length - d, bl, None, known_free=True)
            for v, (d, _parent) in sorted(self._dijkstra(qg, src, length).items())
        ]
        return polygonal(shapely.union_all([g for g in stars if not g.is_empty]))

    def __repr__(self) -> str:
        return f"NavMesh({len(self.obstacle_ids)} obstacles, {self.width:g}x{self.height:g})"
