"""Frozen reference: ``game/movement/navmesh.py`` as it was before the numba kernels (ae4cb93).

The kernels promise answers identical to this numpy/GEOS implementation (same paths, lengths,
verdicts and reasons); ``test_equivalence.py`` holds them to it on random maps. Do not edit
except to follow a deliberate change of answers.
"""

# ruff: noqa
# mypy: ignore-errors

from __future__ import annotations

import heapq
import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely
from numpy.typing import ArrayLike, NDArray
from shapely.geometry import MultiPolygon, Polygon, box
from shapely.geometry.base import BaseGeometry

from components.terrain import ObstacleSpec

#: Touching is allowed: bases may come this close to overlapping (inches).
TOUCH_TOL = 1e-9
#: Corner arcs are split into this many pieces per quarter circle (like shapely's quad_segs).
DEFAULT_QUAD_SEGS = 8
#: Vertices of the (inscribed) polygon standing for a reach disc in regions.
DISC_SEGMENTS = 256

_TANGENT_EPS = 1e-12  # tolerance of the "line touches the node's corner" test (unit vectors)
_TURN_EPS = 1e-9  # sin of the smallest turn that makes a ring vertex a graph node
_FACE_EPS = 1e-9  # an edge this close to the viewer still casts a shadow (robust contact)
_PAIR_CHUNK = 400_000  # node pairs tested per numpy batch while building the static graph
_ATTACH_CACHE_SIZE = 2048  # cached blocker rings / endpoints (units rarely move between queries)

Point2 = tuple[float, float]
FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Path:
    """A legal polyline move.

    Attributes:
        points: Vertices from start to goal (at least two; equal when start == goal).
        length: Euclidean length of the polyline, inches.
    """

    points: tuple[Point2, ...]
    length: float


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
    return arr


def _pt(p: ArrayLike) -> FloatArray:
    arr = np.asarray(p, dtype=float).reshape(-1)
    if arr.shape != (2,):
        raise ValueError(f"a point is (x, y), got {p!r}")
    return arr


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
    ab = b - a
    ap = p - a
    den = np.einsum("...i,...i->...", ab, ab)
    t = np.where(den > 0.0, np.einsum("...i,...i->...", ap, ab) / np.where(den > 0.0, den, 1.0), 0.0)
    t = np.clip(t, 0.0, 1.0)
    d = ap - t[..., None] * ab
    return np.asarray(np.hypot(d[..., 0], d[..., 1]))


def _tangent_matrix(
    p: FloatArray,
    p_dirs: tuple[FloatArray, FloatArray] | None,
    q: FloatArray,
    q_dirs: tuple[FloatArray, FloatArray] | None,
) -> NDArray[np.bool_]:
    """(len p, len q) mask of segments p[i]-q[j] that may lie on a shortest path.

    A shortest path only bends at a node round its own corner, so a segment is kept only if, at
    each end that is a graph node (``*_dirs`` = unit directions to the node's two ring
    neighbours), its line leaves both neighbours on one side. Free endpoints pass ``None``.
    """
    dx = q[None, :, 0] - p[:, None, 0]
    dy = q[None, :, 1] - p[:, None, 1]
    l2 = dx * dx + dy * dy
    tol = -_TANGENT_EPS * l2
    ok = l2 > 0.0
    for dirs, side in ((p_dirs, 0), (q_dirs, 1)):
        if dirs is None:
            continue
        up, un = (d[:, None, :] if side == 0 else d[None, :, :] for d in dirs)
        a = dx * up[..., 1] - dy * up[..., 0]
        b = dx * un[..., 1] - dy * un[..., 0]
        ok &= a * b >= tol
    return np.asarray(ok)


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


def _circle_nodes(blockers: FloatArray, r: float, segments: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Graph nodes round each blocker: the vertices of a circumscribed polygon of radius br + r."""
    if len(blockers) == 0:
        z = np.zeros((0, 2))
        return z, z, z
    step = 2.0 * math.pi / segments
    ang = (np.arange(segments) + 0.5) * step
    unit = np.column_stack([np.cos(ang), np.sin(ang)])
    rr = (blockers[:, 2] + r) / math.cos(step / 2.0)
    nodes = (blockers[:, None, :2] + rr[:, None, None] * unit[None, :, :]).reshape(-1, 2)
    ring = nodes.reshape(len(blockers), segments, 2)
    up = _unit_rows((np.roll(ring, 1, axis=1) - ring).reshape(-1, 2))
    un = _unit_rows((np.roll(ring, -1, axis=1) - ring).reshape(-1, 2))
    return nodes, up, un


@dataclass(slots=True)
class _Graph:
    """Visibility edges among the static nodes of one radius (obstacles only)."""

    ea: FloatArray  # (E, 2) edge start points
    eb: FloatArray  # (E, 2) edge end points
    adj: list[list[tuple[int, float, int]]]  # node -> [(neighbour, length, edge id)]


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
    """Extra graph points of one query piece and their obstacle-clear edges (local indices)."""

    pts: FloatArray
    dirs: tuple[FloatArray, FloatArray] | None
    free: NDArray[np.bool_]  # inside the map and clear of obstacles
    to_static: tuple[NDArray[np.int_], NDArray[np.int_], FloatArray]  # (local, static node, length)
    own: tuple[NDArray[np.int_], NDArray[np.int_], FloatArray]  # (local, local, length)


@dataclass(slots=True)
class _QueryGraph:
    coords: FloatArray
    up: FloatArray  # unit directions to each node's ring neighbours (zero for endpoints)
    un: FloatArray
    n_static: int
    static_adj: list[list[tuple[int, float, int]]]
    blocked: set[int]
    extra: dict[int, list[tuple[int, float]]] = field(default_factory=dict)


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
        self._tree = shapely.STRtree(list(self.obstacle_geoms))
        # one prepared collection answers bulk "is this segment within r?" fastest (GEOS
        # indexed facet distance); the tree names the culprit for reasons and tests points
        self._all = shapely.GeometryCollection(list(self.obstacle_geoms))
        shapely.prepare(self._all)
        self._static_cache: dict[float, _Static] = {}
        self._attach_cache: OrderedDict[tuple[float, bytes], _Attachment] = OrderedDict()

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
        keep = self._points_free(nodes, r, np.zeros((0, 3)))
        st = _Static(
            r=r,
            inflated=inflated,
            inflated_tree=shapely.STRtree(inflated),
            hulls=[shapely.get_coordinates(g.exterior)[:-1] if _is_convex(g) else None for g in inflated],
            nodes=nodes[keep],
            up=up[keep],
            un=un[keep],
        )
        if self.cache_static:
            self._static_cache[r] = st
        return st

    def _graph(self, st: _Static) -> _Graph:
        if st.graph is not None:
            return st.graph
        nodes, n = st.nodes, len(st.nodes)
        dirs = (st.up, st.un)
        cand_i, cand_j = [np.zeros(0, int)], [np.zeros(0, int)]
        rows = max(1, _PAIR_CHUNK // max(n, 1))
        for i0 in range(0, n, rows):
            blk = slice(i0, min(n, i0 + rows))
            ok = _tangent_matrix(nodes[blk], (st.up[blk], st.un[blk]), nodes, dirs)
            ii, jj = np.nonzero(ok)
            ii = ii + i0
            keep = jj > ii
            cand_i.append(ii[keep])
            cand_j.append(jj[keep])
        ci, cj = np.concatenate(cand_i), np.concatenate(cand_j)
        clear = self._segments_clear_of_obstacles(nodes[ci], nodes[cj], st.r)
        ci, cj = ci[clear], cj[clear]
        ea, eb = nodes[ci], nodes[cj]
        w = np.hypot(*(eb - ea).T)
        adj: list[list[tuple[int, float, int]]] = [[] for _ in range(n)]
        for e, (i, j, length) in enumerate(zip(ci.tolist(), cj.tolist(), w.tolist())):
            adj[i].append((j, length, e))
            adj[j].append((i, length, e))
        st.graph = _Graph(ea=ea, eb=eb, adj=adj)
        return st.graph

    def _attachment(
        self, st: _Static, pts: FloatArray, dirs: tuple[FloatArray, FloatArray] | None
    ) -> _Attachment:
        """Edges from extra points (a blocker's ring nodes or a path endpoint) to the static nodes
        and among themselves that clear the obstacles; cached per radius and position."""
        key = (st.r, pts.tobytes())
        hit = self._attach_cache.get(key)
        if hit is not None:
            self._attach_cache.move_to_end(key)
            return hit
        free = self._points_free(pts, st.r, np.zeros((0, 3)))
        ok = _tangent_matrix(pts, dirs, st.nodes, (st.up, st.un)) & free[:, None]
        li, sj = np.nonzero(ok)
        clear = self._segments_clear_of_obstacles(pts[li], st.nodes[sj], st.r)
        li, sj = li[clear], sj[clear]
        own = _tangent_matrix(pts, dirs, pts, dirs) & free[:, None] & free[None, :]
        ai, aj = np.nonzero(np.triu(own, 1))
        clear = self._segments_clear_of_obstacles(pts[ai], pts[aj], st.r)
        att = _Attachment(
            pts=pts,
            dirs=dirs,
            free=free,
            to_static=(li, sj, np.hypot(*(st.nodes[sj] - pts[li]).T)),
            own=(ai[clear], aj[clear], np.hypot(*(pts[aj[clear]] - pts[ai[clear]]).T)),
        )
        if self.cache_attachments:
            self._attach_cache[key] = att
            while len(self._attach_cache) > _ATTACH_CACHE_SIZE:
                self._attach_cache.popitem(last=False)
        return att

    def static_nodes(self, radius: float) -> FloatArray:
        """Graph nodes of the obstacle inflation for ``radius`` (for debugging and drawing)."""
        return self._static(_check_radius(radius)).nodes.copy()

    def clear_cache(self) -> None:
        """Forget the cached static geometry and attachments."""
        self._static_cache.clear()
        self._attach_cache.clear()

    # ----------------------------------------------------------------- exact checks

    def _in_map(self, pts: FloatArray, r: float) -> NDArray[np.bool_]:
        lo = r - TOUCH_TOL
        return np.asarray(
            (pts[:, 0] >= lo)
            & (pts[:, 1] >= lo)
            & (pts[:, 0] <= self.width - lo)
            & (pts[:, 1] <= self.height - lo)
        )

    def _points_free(self, pts: FloatArray, r: float, blockers: FloatArray) -> NDArray[np.bool_]:
        ok = self._in_map(pts, r) if len(pts) else np.zeros(0, bool)
        if len(pts) and len(self.obstacle_geoms):
            hits = self._tree.query(shapely.points(pts), predicate="dwithin", distance=r - TOUCH_TOL)
            ok[hits[0]] = False
        if len(pts) and len(blockers):
            d = np.hypot(pts[:, None, 0] - blockers[None, :, 0], pts[:, None, 1] - blockers[None, :, 1])
            ok &= np.all(d >= blockers[None, :, 2] + r - TOUCH_TOL, axis=1)
        return ok

    def _segments_clear_of_obstacles(self, a: FloatArray, b: FloatArray, r: float) -> NDArray[np.bool_]:
        if len(a) == 0 or not self.obstacle_geoms:
            return np.ones(len(a), bool)
        lines = shapely.linestrings(np.stack([a, b], axis=1))
        return np.asarray(~shapely.dwithin(lines, self._all, r - TOUCH_TOL))

    @staticmethod
    def _segments_clear_of_blockers(
        a: FloatArray, b: FloatArray, r: float, blockers: FloatArray
    ) -> NDArray[np.bool_]:
        if len(a) == 0 or len(blockers) == 0:
            return np.ones(len(a), bool)
        d = point_segment_distance(blockers[None, :, :2], a[:, None, :], b[:, None, :])
        return np.asarray(np.all(d >= blockers[None, :, 2] + r - TOUCH_TOL, axis=1))

    @staticmethod
    def _blocker_name(k: int, blocker_ids: Sequence[str]) -> str:
        return str(blocker_ids[k]) if k < len(blocker_ids) else f"#{k}"

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
        q = _pt(p)
        bl = as_blockers(blockers)
        if not self._in_map(q[None, :], r)[0]:
            return "outside the map"
        if self.obstacle_geoms:
            hits = self._tree.query(shapely.points(q), predicate="dwithin", distance=r - TOUCH_TOL)
            if len(hits):
                return f"overlaps obstacle {self.obstacle_ids[int(min(hits))]}"
        if len(bl):
            d = np.hypot(bl[:, 0] - q[0], bl[:, 1] - q[1])
            bad = np.nonzero(d < bl[:, 2] + r - TOUCH_TOL)[0]
            if len(bad):
                return f"overlaps unit {self._blocker_name(int(bad[0]), blocker_ids)}"
        return None

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
        r = _check_radius(radius)
        pa, pb = _pt(a), _pt(b)
        bl = as_blockers(blockers)
        why = self.free_reason(pb, r, bl, blocker_ids)
        if why is not None:
            return f"destination {why}"
        why = self.free_reason(pa, r, bl, blocker_ids)
        if why is not None:
            return f"start {why}"
        if self.obstacle_geoms:
            line = shapely.linestrings(np.stack([pa, pb]))
            hits = self._tree.query(line, predicate="dwithin", distance=r - TOUCH_TOL)
            if len(hits):
                return f"the way is blocked by obstacle {self.obstacle_ids[int(min(hits))]}"
        if len(bl):
            d = point_segment_distance(bl[:, :2], pa[None, :], pb[None, :])
            bad = np.nonzero(d < bl[:, 2] + r - TOUCH_TOL)[0]
            if len(bad):
                return f"the way is blocked by unit {self._blocker_name(int(bad[0]), blocker_ids)}"
        return None

    def segment_clear(self, a: ArrayLike, b: ArrayLike, radius: float, blockers: ArrayLike = ()) -> bool:
        """True if a base of ``radius`` can slide straight from ``a`` to ``b`` (see segment_reason)."""
        return self.segment_reason(a, b, radius, blockers) is None

    # ----------------------------------------------------------------- shortest paths

    def _query_graph(
        self, st: _Static, r: float, blockers: FloatArray, active: Sequence[int], endpoints: FloatArray
    ) -> _QueryGraph:
        """Static graph + ring nodes of the ``active`` blockers + ``endpoints`` (appended last)."""
        g = self._graph(st)
        act = blockers[list(active)] if len(active) else np.zeros((0, 3))
        parts: list[_Attachment] = []
        for b in act:
            ring, up, un = _circle_nodes(b[None, :], r, self._circle_segments)
            parts.append(self._attachment(st, ring, (up, un)))
        parts.extend(self._attachment(st, e[None, :], None) for e in endpoints)
        n = len(st.nodes)
        offsets = np.cumsum([n] + [len(p.pts) for p in parts])
        coords = np.vstack([st.nodes, *(p.pts for p in parts)])
        valid = [p.free & self._points_free(p.pts, r, blockers) for p in parts]
        blocked: set[int] = set()
        if len(act) and len(g.ea):
            blocked = set(np.nonzero(~self._segments_clear_of_blockers(g.ea, g.eb, r, act))[0].tolist())
        ei: list[NDArray[np.int_]] = []
        ej: list[NDArray[np.int_]] = []
        for k, p in enumerate(parts):
            li, sj, _ = p.to_static
            ei.append(offsets[k] + li)
            ej.append(sj)
            ai, aj, _ = p.own
            ei.append(offsets[k] + ai)
            ej.append(offsets[k] + aj)
        fi: list[NDArray[np.int_]] = []  # pairs across parts still need the obstacle check
        fj: list[NDArray[np.int_]] = []
        for k1 in range(len(parts)):
            for k2 in range(k1 + 1, len(parts)):
                p1, p2 = parts[k1], parts[k2]
                ok = (
                    _tangent_matrix(p1.pts, p1.dirs, p2.pts, p2.dirs)
                    & valid[k1][:, None]
                    & valid[k2][None, :]
                )
                ii, jj = np.nonzero(ok)
                fi.append(offsets[k1] + ii)
                fj.append(offsets[k2] + jj)
        extra: dict[int, list[tuple[int, float]]] = {}
        all_valid = np.concatenate([np.ones(n, bool), *valid])
        ci = np.concatenate([np.zeros(0, int), *ei])
        cj = np.concatenate([np.zeros(0, int), *ej])
        keep = all_valid[ci] & all_valid[cj]
        ci, cj = ci[keep], cj[keep]
        if fi:
            xi, xj = np.concatenate(fi), np.concatenate(fj)
            clear = self._segments_clear_of_obstacles(coords[xi], coords[xj], r)
            ci, cj = np.concatenate([ci, xi[clear]]), np.concatenate([cj, xj[clear]])
        ok = self._segments_clear_of_blockers(coords[ci], coords[cj], r, act)
        ci, cj = ci[ok], cj[ok]
        w = np.hypot(*(coords[cj] - coords[ci]).T)
        for i, j, length in zip(ci.tolist(), cj.tolist(), w.tolist()):
            extra.setdefault(i, []).append((j, length))
            extra.setdefault(j, []).append((i, length))
        zero = np.zeros((len(coords) - n, 2))
        up = np.vstack([st.up, *(p.dirs[0] if p.dirs else zero[: len(p.pts)] for p in parts)])
        un = np.vstack([st.un, *(p.dirs[1] if p.dirs else zero[: len(p.pts)] for p in parts)])
        return _QueryGraph(
            coords=coords, up=up, un=un, n_static=n, static_adj=g.adj, blocked=blocked, extra=extra
        )

    @staticmethod
    def _neighbours(qg: _QueryGraph, u: int) -> list[tuple[int, float]]:
        out: list[tuple[int, float]] = []
        if u < qg.n_static:
            blocked = qg.blocked
            out.extend((v, w) for v, w, e in qg.static_adj[u] if e not in blocked)
        out.extend(qg.extra.get(u, ()))
        return out

    def _astar(self, qg: _QueryGraph, src: int, dst: int) -> list[int] | None:
        h = np.hypot(*(qg.coords - qg.coords[dst]).T).tolist()
        dist: dict[int, float] = {src: 0.0}
        prev: dict[int, int] = {}
        heap = [(h[src], 0.0, src)]
        done: set[int] = set()
        while heap:
            _, d, u = heapq.heappop(heap)
            if u in done:
                continue
            if u == dst:
                out = [u]
                while out[-1] != src:
                    out.append(prev[out[-1]])
                return out[::-1]
            done.add(u)
            for v, w in self._neighbours(qg, u):
                nd = d + w
                if nd < dist.get(v, math.inf):
                    dist[v] = nd
                    prev[v] = u
                    heapq.heappush(heap, (nd + h[v], nd, v))
        return None

    def _dijkstra(self, qg: _QueryGraph, src: int, bound: float) -> dict[int, tuple[float, int]]:
        """Shortest distances below ``bound`` from ``src``: node -> (distance, parent)."""
        dist: dict[int, float] = {src: 0.0}
        heap = [(0.0, src, src)]
        done: dict[int, tuple[float, int]] = {}
        while heap:
            d, u, parent = heapq.heappop(heap)
            if u in done:
                continue
            done[u] = (d, parent)
            for v, w in self._neighbours(qg, u):
                nd = d + w
                if nd < bound and nd < dist.get(v, math.inf):
                    dist[v] = nd
                    heapq.heappush(heap, (nd, v, u))
        return done

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
        s, t = _pt(start), _pt(goal)
        bl = as_blockers(blockers)
        if not self._points_free(np.vstack([s, t]), r, bl).all():
            return None
        clear = self._segments_clear_of_obstacles(s[None], t[None], r)[0]
        if clear and not (len(bl) and self._blocking(s[None], t[None], r, bl).any()):
            return Path(
                points=((float(s[0]), float(s[1])), (float(t[0]), float(t[1]))), length=math.dist(s, t)
            )
        st = self._static(r)
        active = set(np.nonzero(self._blocking(s[None], t[None], r, bl))[0].tolist()) if len(bl) else set()
        ends = np.vstack([s, t])
        while True:
            qg = self._query_graph(st, r, bl, sorted(active), ends)
            src = len(qg.coords) - 2
            route = self._astar(qg, src, src + 1)
            if route is None:
                return None
            pts = qg.coords[route]
            if len(bl):
                hit = np.any(self._blocking(pts[:-1], pts[1:], r, bl), axis=0)
                new = set(np.nonzero(hit)[0].tolist()) - active
                if new:
                    active |= new
                    continue
            seg = np.hypot(*np.diff(pts, axis=0).T)
            return Path(points=tuple((float(x), float(y)) for x, y in pts), length=float(seg.sum()))

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
        ``max_length``, of the points visible from v within ``max_length - L_v``. An inner
        approximation for drawing; legality of a particular goal is decided by :meth:`path`.

        A shortest path only bends at v round v's own corner, so from each node only the thin
        sector between the incoming direction and v's corner can add points (everything else is
        reached more cheaply without bending at v); computing just that sector makes this
        several times faster than full visibility discs.
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
        stars = []
        for v, (d, parent) in sorted(self._dijkstra(qg, src, length).items()):
            sector = None if v == src else self._bend_sector(qg, parent, v)
            if v == src or sector is not None:
                stars.append(self._star(st, qg.coords[v], length - d, bl, sector, known_free=True))
        return polygonal(shapely.union_all([g for g in stars if not g.is_empty]))

    @staticmethod
    def _bend_sector(qg: _QueryGraph, parent: int, v: int) -> tuple[float, float] | None:
        """(start angle, signed width) of the directions in which a path arriving at node ``v``
        from ``parent`` can leave by bending round v's corner, or None if there are none."""
        d = qg.coords[v] - qg.coords[parent]
        if math.hypot(d[0], d[1]) < 1e-12:
            return None
        best = None
        for e in (qg.up[v], qg.un[v]):
            ang = math.atan2(d[0] * e[1] - d[1] * e[0], d[0] * e[0] + d[1] * e[1])
            if abs(ang) > 1e-12 and (best is None or abs(ang) < abs(best)):
                best = ang
        if best is None:
            return None
        return math.atan2(d[1], d[0]), best

    def __repr__(self) -> str:
        return f"NavMesh({len(self.obstacle_ids)} obstacles, {self.width:g}x{self.height:g})"
