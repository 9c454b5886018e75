"""Compiled kernels behind :mod:`game.movement.navmesh` (numba ``@njit(cache=True)``, no fastmath).

Contract:
    * Answers are bit-for-bit those of the numpy/GEOS code these kernels replaced:
        - blocker distances, map bounds, the bitangent test and edge lengths repeat the former
          numpy expressions operation for operation (without fastmath LLVM neither reorders nor
          fuses floating-point operations, and numba's ``math.hypot`` is the C library's, like
          numpy's); ``tests/movement/test_kernels.py`` compares them bitwise on random inputs.
        - obstacle verdicts ("is the segment within ``thr`` of the polygon?", :func:`_scan`)
          reject by bounding box and enclosing circle, take a proper crossing as distance 0,
          and otherwise use GEOS's own formulas (``Distance::pointToSegment`` /
          ``segmentToSegment``, even-odd containment). The verdict is GEOS's to give: a kernel
          that finds a distance within ``eps`` of ``thr`` returns :data:`AMBIGUOUS` and the
          caller asks GEOS. Away from that band both computations are far more accurate than
          ``eps``, so they agree.
        - A* and Dijkstra pop the same heap keys as the former ``heapq`` code ((f, g, node) and
          (g, node, parent), compared lexicographically) and relax neighbours in the same order
          (static edges in construction order, then query edges in insertion order), so even
          exact ties resolve the same way.
    * Arrays are C-contiguous float64 (points as (n, 2) rows), int64 or bool; one compiled
      signature per kernel, cached on disk (:mod:`game.core.compiled` chooses where: a user
      cache folder when the package directory is read-only).

Obstacle data (radius independent, built by ``NavMesh``): ``box`` (m, 7) rows (min x, min y,
max x, max y, centre x, centre y, radius of a circle round the centre enclosing the obstacle),
``ptr`` (m + 1) offsets into ``seg`` (S, 4) = every ring edge (x0, y0, x1, y1) of obstacle i in
rows ``ptr[i]:ptr[i + 1]``.

Query parts (a blocker's ring nodes or a path endpoint, see ``NavMesh._attachment``) are passed
packed: ``fdat`` (P, 10) rows (x, y, up_x, up_y, un_x, un_y, then the cone of directions
passing the bitangent test there, see :func:`_pass_arc`) and ``idat`` int64 records
``[p, has_dirs, n_ts, n_own, n_blk, free * p, ts_l * n_ts, ts_j * n_ts, own_a * n_own,
own_b * n_own, blk * n_blk]`` concatenated part after part (see :func:`pack`): the part's
points, whether they are ring nodes (have directions), which are free of the map edge and the
obstacles, its obstacle-clear edges to static nodes (local point, static node) and among its
own points, and (rings) the static edges its blocker cuts.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from game.core import compiled

# The cache folder (a user cache folder for a read-only install) and the first-compile notice,
# before the first kernel below is decorated.
compiled.setup()

CLEAR = 0
HIT = 1
AMBIGUOUS = 2

#: Tolerance of the bitangent test (products of unit-vector cross products, scaled by |d|^2).
TANGENT_EPS = 1e-12

#: Below this threshold the crossing shortcut of _scan is not used (a crossing found
#: in floating point only proves a distance of ~1e-13, not zero).
_CROSS_MIN = 1e-9

# route() / assemble() result codes
FOUND = 0
NO_ROUTE = 1
NEED_GEOS = 2


# Array slicing (a[:m], a[:m] = b) costs numba seconds of compile time per use; these loops
# do the same in milliseconds.


@njit(cache=True)
def _head_i(a: np.ndarray, m: int) -> np.ndarray:
    out = np.empty(m, np.int64)
    for q in range(m):
        out[q] = a[q]
    return out


@njit(cache=True)
def _grow(a: np.ndarray) -> np.ndarray:
    """``a`` in an array twice as long (the tail uninitialised)."""
    out = np.empty(2 * a.shape[0], np.int64)
    for q in range(a.shape[0]):
        out[q] = a[q]
    return out


@njit(cache=True)
def _head_s(a: np.ndarray, m: int) -> np.ndarray:
    out = np.empty(m, np.int8)
    for q in range(m):
        out[q] = a[q]
    return out


# --------------------------------------------------------------------------- GEOS distance formulas


@njit(cache=True)
def _pt_seg(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """GEOS ``Distance::pointToSegment``."""
    if ax == bx and ay == by:
        dx = px - ax
        dy = py - ay
        return math.sqrt(dx * dx + dy * dy)
    len2 = (bx - ax) * (bx - ax) + (by - ay) * (by - ay)
    r = ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / len2
    if r <= 0.0:
        dx = px - ax
        dy = py - ay
        return math.sqrt(dx * dx + dy * dy)
    if r >= 1.0:
        dx = px - bx
        dy = py - by
        return math.sqrt(dx * dx + dy * dy)
    s = ((ay - py) * (bx - ax) - (ax - px) * (by - ay)) / len2
    return abs(s) * math.sqrt(len2)


@njit(cache=True)
def _seg_seg(ax: float, ay: float, bx: float, by: float, cx: float, cy: float, dx: float, dy: float) -> float:
    """GEOS ``Distance::segmentToSegment``."""
    if ax == bx and ay == by:
        return _pt_seg(ax, ay, cx, cy, dx, dy)
    if cx == dx and cy == dy:
        return _pt_seg(dx, dy, ax, ay, bx, by)
    apart = (
        min(ax, bx) > max(cx, dx)
        or max(ax, bx) < min(cx, dx)
        or min(ay, by) > max(cy, dy)
        or max(ay, by) < min(cy, dy)
    )
    if not apart:
        denom = (bx - ax) * (dy - cy) - (by - ay) * (dx - cx)
        if denom == 0.0:
            apart = True
        else:
            r = ((ay - cy) * (dx - cx) - (ax - cx) * (dy - cy)) / denom
            s = ((ay - cy) * (bx - ax) - (ax - cx) * (by - ay)) / denom
            apart = r < 0.0 or r > 1.0 or s < 0.0 or s > 1.0
    if apart:
        return min(
            _pt_seg(ax, ay, cx, cy, dx, dy),
            min(
                _pt_seg(bx, by, cx, cy, dx, dy),
                min(_pt_seg(cx, cy, ax, ay, bx, by), _pt_seg(dx, dy, ax, ay, bx, by)),
            ),
        )
    return 0.0


@njit(cache=True)
def _scan(
    ax: float,
    ay: float,
    bx: float,
    by: float,
    thr: float,
    eps: float,
    box: np.ndarray,
    ptr: np.ndarray,
    seg: np.ndarray,
    first: bool,
) -> tuple[int, int]:
    """Is segment a-b (a point if a == b) within ``thr`` of the obstacles?

    Distances below thr - eps are HIT, above thr + eps CLEAR, in between AMBIGUOUS. With
    ``first`` the lowest-numbered obstacle that is not CLEAR is returned as (index, status);
    otherwise (index, HIT) for the first hit, else (-1, AMBIGUOUS) if any obstacle is
    ambiguous, else (-1, CLEAR). One call per segment with the obstacle loop inside: a numba
    call per obstacle costs more than the test itself.
    """
    low = thr - eps
    lim = thr + eps
    x0 = min(ax, bx) - lim
    x1 = max(ax, bx) + lim
    y0 = min(ay, by) - lim
    y1 = max(ay, by) + lim
    out = CLEAR
    for o in range(box.shape[0]):
        # bounding boxes farther apart than lim (in x or y) cannot be within thr
        if x0 > box[o, 2] or x1 < box[o, 0] or y0 > box[o, 3] or y1 < box[o, 1]:
            continue
        # nor can a segment passing farther than R + lim from the centre of the obstacle's
        # enclosing circle (long sight lines across the map mostly stop here)
        if _pt_seg(box[o, 4], box[o, 5], ax, ay, bx, by) > box[o, 6] + lim:
            continue
        status = CLEAR
        lo, hi = ptr[o], ptr[o + 1]
        if low > _CROSS_MIN:
            # a proper crossing puts the distance at (numerically) zero, far below low: HIT
            # without the square roots of the distance formulas
            for k in range(lo, hi):
                ex0, ey0, ex1, ey1 = seg[k, 0], seg[k, 1], seg[k, 2], seg[k, 3]
                o1 = (bx - ax) * (ey0 - ay) - (by - ay) * (ex0 - ax)
                o2 = (bx - ax) * (ey1 - ay) - (by - ay) * (ex1 - ax)
                if (o1 > 0.0 and o2 < 0.0) or (o1 < 0.0 and o2 > 0.0):
                    o3 = (ex1 - ex0) * (ay - ey0) - (ey1 - ey0) * (ax - ex0)
                    o4 = (ex1 - ex0) * (by - ey0) - (ey1 - ey0) * (bx - ex0)
                    if (o3 > 0.0 and o4 < 0.0) or (o3 < 0.0 and o4 > 0.0):
                        status = HIT
                        break
        if status == CLEAR:
            dmin = math.inf
            for k in range(lo, hi):
                ex0, ey0, ex1, ey1 = seg[k, 0], seg[k, 1], seg[k, 2], seg[k, 3]
                if x0 > max(ex0, ex1) or x1 < min(ex0, ex1) or y0 > max(ey0, ey1) or y1 < min(ey0, ey1):
                    continue  # this edge is farther than lim
                d = _seg_seg(ax, ay, bx, by, ex0, ey0, ex1, ey1)
                if d < low:
                    status = HIT
                    break
                if d < dmin:
                    dmin = d
            if status == CLEAR and dmin <= lim:
                status = AMBIGUOUS
        if status == CLEAR and box[o, 0] <= ax <= box[o, 2] and box[o, 1] <= ay <= box[o, 3]:
            # every edge is farther than thr: the segment lies wholly inside (distance 0) or
            # outside; an even-odd count over all rings decides
            inside = False
            for k in range(lo, hi):
                ex0, ey0, ex1, ey1 = seg[k, 0], seg[k, 1], seg[k, 2], seg[k, 3]
                if (ey0 > ay) != (ey1 > ay) and ax < ex0 + (ay - ey0) * (ex1 - ex0) / (ey1 - ey0):
                    inside = not inside
            if inside:
                if low > 0.0:
                    status = HIT
                elif lim >= 0.0:
                    status = AMBIGUOUS
        if status == HIT or (first and status == AMBIGUOUS):
            return o, status
        if status == AMBIGUOUS:
            out = AMBIGUOUS
    return -1, out


@njit(cache=True)
def segments_status(
    a: np.ndarray, b: np.ndarray, thr: float, eps: float, box: np.ndarray, ptr: np.ndarray, seg: np.ndarray
) -> np.ndarray:
    """(n,) int8 status of segments a[i]-b[i] (points when a is b) against all obstacles."""
    n = a.shape[0]
    out = np.empty(n, np.int8)
    for i in range(n):
        out[i] = _scan(a[i, 0], a[i, 1], b[i, 0], b[i, 1], thr, eps, box, ptr, seg, False)[1]
    return out


@njit(cache=True)
def first_obstacle(
    ax: float,
    ay: float,
    bx: float,
    by: float,
    thr: float,
    eps: float,
    box: np.ndarray,
    ptr: np.ndarray,
    seg: np.ndarray,
) -> tuple[int, int]:
    """(index, status) of the lowest-numbered obstacle not CLEAR of segment a-b, or (-1, CLEAR)."""
    return _scan(ax, ay, bx, by, thr, eps, box, ptr, seg, True)


# --------------------------------------------------------------------------- numpy replicas


@njit(cache=True)
def _psd(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """navmesh.point_segment_distance for one point, operation for operation."""
    abx = bx - ax
    aby = by - ay
    apx = px - ax
    apy = py - ay
    den = abx * abx + aby * aby
    t = (apx * abx + apy * aby) / den if den > 0.0 else 0.0
    if t < 0.0:
        t = 0.0
    elif t > 1.0:
        t = 1.0
    return math.hypot(apx - t * abx, apy - t * aby)


@njit(cache=True)
def point_segment(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """Scalar entry point of :func:`_psd`."""
    return _psd(px, py, ax, ay, bx, by)


@njit(cache=True)
def _in_map(x: float, y: float, r: float, width: float, height: float, touch: float) -> bool:
    lo = r - touch
    return x >= lo and y >= lo and x <= width - lo and y <= height - lo


@njit(cache=True)
def _tangent_ok(
    px: float,
    py: float,
    pdirs: bool,
    pux: float,
    puy: float,
    pnx: float,
    pny: float,
    qx: float,
    qy: float,
    qdirs: bool,
    qux: float,
    quy: float,
    qnx: float,
    qny: float,
) -> bool:
    """May segment p-q lie on a shortest path? (the former numpy ``_tangent_matrix`` for one pair)

    A shortest path only bends at a node round its own corner, so at each end that is a graph
    node (``*dirs``: unit directions u, n to its two ring neighbours) the line must leave both
    neighbours on one side. Free endpoints pass ``pdirs``/``qdirs`` False.
    """
    dx = qx - px
    dy = qy - py
    l2 = dx * dx + dy * dy
    if not l2 > 0.0:
        return False
    tol = -TANGENT_EPS * l2
    if pdirs:
        a = dx * puy - dy * pux
        b = dx * pny - dy * pnx
        if not a * b >= tol:
            return False
    if qdirs:
        a = dx * quy - dy * qux
        b = dx * qny - dy * qnx
        if not a * b >= tol:
            return False
    return True


@njit(cache=True)
def blockers_free(pts: np.ndarray, r: float, bl: np.ndarray, touch: float) -> np.ndarray:
    """(n,) bool: no blocker base overlaps a base of radius r at pts[i] (touching allowed)."""
    n = pts.shape[0]
    out = np.ones(n, np.bool_)
    for i in range(n):
        for k in range(bl.shape[0]):
            if not math.hypot(pts[i, 0] - bl[k, 0], pts[i, 1] - bl[k, 1]) >= bl[k, 2] + r - touch:
                out[i] = False
                break
    return out


@njit(cache=True)
def first_blocker_at(x: float, y: float, r: float, bl: np.ndarray, touch: float) -> int:
    """Index of the first blocker overlapping a base at (x, y), or -1."""
    for k in range(bl.shape[0]):
        if math.hypot(bl[k, 0] - x, bl[k, 1] - y) < bl[k, 2] + r - touch:
            return k
    return -1


@njit(cache=True)
def first_blocker_on(
    ax: float, ay: float, bx: float, by: float, r: float, bl: np.ndarray, touch: float
) -> int:
    """Index of the first blocker the swept base a->b overlaps, or -1."""
    for k in range(bl.shape[0]):
        if _psd(bl[k, 0], bl[k, 1], ax, ay, bx, by) < bl[k, 2] + r - touch:
            return k
    return -1


@njit(cache=True)
def edges_blocked_by(ea: np.ndarray, eb: np.ndarray, x: float, y: float, rr: float) -> np.ndarray:
    """Ids of the edges ea[e]-eb[e] that come closer than ``rr`` to (x, y), ascending."""
    out = np.empty(ea.shape[0], np.int64)
    m = 0
    for e in range(ea.shape[0]):
        if not _psd(x, y, ea[e, 0], ea[e, 1], eb[e, 0], eb[e, 1]) >= rr:
            out[m] = e
            m += 1
    return _head_i(out, m)


@njit(cache=True)
def prelude(
    sx: float,
    sy: float,
    tx: float,
    ty: float,
    r: float,
    width: float,
    height: float,
    touch: float,
    eps: float,
    box: np.ndarray,
    ptr: np.ndarray,
    seg: np.ndarray,
    bl: np.ndarray,
) -> tuple[int, bool]:
    """First steps of NavMesh.path: (code, whether any blocker crosses s-t).

    code 0: start or goal not free; 1: the straight move is clear; 2: search needed;
    3: an obstacle verdict needs GEOS (the caller redoes these steps the slow way).
    """
    k = bl.shape[0]
    thr = r - touch
    amb = False
    for px, py in ((sx, sy), (tx, ty)):
        if not _in_map(px, py, r, width, height, touch):
            return 0, False
        s = _scan(px, py, px, py, thr, eps, box, ptr, seg, False)[1]
        if s == HIT:
            return 0, False
        if s == AMBIGUOUS:
            amb = True
        for j in range(k):
            if not math.hypot(px - bl[j, 0], py - bl[j, 1]) >= bl[j, 2] + r - touch:
                return 0, False
    if amb:
        return 3, False
    s = _scan(sx, sy, tx, ty, thr, eps, box, ptr, seg, False)[1]
    if s == AMBIGUOUS:
        return 3, False
    cross = False
    for j in range(k):
        if _psd(bl[j, 0], bl[j, 1], sx, sy, tx, ty) < bl[j, 2] + r - touch:
            cross = True
            break
    return (1 if s == CLEAR and not cross else 2), cross


# codes of free_code / segment_code
FREE = 0
OUTSIDE = 1
OBSTACLE = 2
UNIT = 3
ASK_GEOS = 4


@njit(cache=True)
def free_code(
    x: float,
    y: float,
    r: float,
    width: float,
    height: float,
    touch: float,
    eps: float,
    box: np.ndarray,
    ptr: np.ndarray,
    seg: np.ndarray,
    bl: np.ndarray,
) -> tuple[int, int]:
    """NavMesh.free_reason as (code, index): FREE, OUTSIDE, OBSTACLE i (lowest index), UNIT k
    (first), or ASK_GEOS when an obstacle verdict is too close to call."""
    if not _in_map(x, y, r, width, height, touch):
        return OUTSIDE, -1
    o, s = _scan(x, y, x, y, r - touch, eps, box, ptr, seg, True)
    if s == HIT:
        return OBSTACLE, o
    if s == AMBIGUOUS:
        return ASK_GEOS, o
    for k in range(bl.shape[0]):
        if math.hypot(bl[k, 0] - x, bl[k, 1] - y) < bl[k, 2] + r - touch:
            return UNIT, k
    return FREE, -1


@njit(cache=True)
def segment_code(
    ax: float,
    ay: float,
    bx: float,
    by: float,
    r: float,
    width: float,
    height: float,
    touch: float,
    eps: float,
    box: np.ndarray,
    ptr: np.ndarray,
    seg: np.ndarray,
    bl: np.ndarray,
) -> tuple[int, int, int]:
    """NavMesh.segment_reason as (stage, code, index): stage 0 the destination, 1 the start,
    2 the way, each with a :func:`free_code` code (ASK_GEOS: redo the whole check slowly)."""
    code, i = free_code(bx, by, r, width, height, touch, eps, box, ptr, seg, bl)
    if code != FREE:
        return 0, code, i
    code, i = free_code(ax, ay, r, width, height, touch, eps, box, ptr, seg, bl)
    if code != FREE:
        return 1, code, i
    o, s = _scan(ax, ay, bx, by, r - touch, eps, box, ptr, seg, True)
    if s == HIT:
        return 2, OBSTACLE, o
    if s == AMBIGUOUS:
        return 2, ASK_GEOS, o
    for k in range(bl.shape[0]):
        if _psd(bl[k, 0], bl[k, 1], ax, ay, bx, by) < bl[k, 2] + r - touch:
            return 2, UNIT, k
    return 2, FREE, -1


@njit(cache=True)
def ring_nodes(x: float, y: float, rr: float, unit: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The former numpy ``_circle_nodes`` for one blocker, operation for operation: the vertices
    (x, y) + rr * unit[i] and the unit directions to each vertex's two neighbours."""
    n = unit.shape[0]
    nodes = np.empty((n, 2))
    for i in range(n):
        nodes[i, 0] = x + rr * unit[i, 0]
        nodes[i, 1] = y + rr * unit[i, 1]
    up = np.empty((n, 2))
    un = np.empty((n, 2))
    for i in range(n):
        for out, j in ((up, (i - 1) % n), (un, (i + 1) % n)):
            vx = nodes[j, 0] - nodes[i, 0]
            vy = nodes[j, 1] - nodes[i, 1]
            h = math.hypot(vx, vy)
            if h == 0.0:
                h = 1.0
            out[i, 0] = vx / h
            out[i, 1] = vy / h
    return nodes, up, un


# --------------------------------------------------------------------------- static graph


@njit(cache=True)
def points_status(
    pts: np.ndarray,
    r: float,
    width: float,
    height: float,
    touch: float,
    eps: float,
    box: np.ndarray,
    ptr: np.ndarray,
    seg: np.ndarray,
) -> np.ndarray:
    """(n,) int8: HIT outside the map or overlapping an obstacle, CLEAR free, AMBIGUOUS ask GEOS
    (blockers are not considered)."""
    n = pts.shape[0]
    out = np.empty(n, np.int8)
    thr = r - touch
    for i in range(n):
        x, y = pts[i, 0], pts[i, 1]
        if not _in_map(x, y, r, width, height, touch):
            out[i] = HIT
        else:
            out[i] = _scan(x, y, x, y, thr, eps, box, ptr, seg, False)[1]
    return out


@njit(cache=True)
def static_pairs(nodes: np.ndarray, up: np.ndarray, un: np.ndarray) -> np.ndarray:
    """(n, n) mask of node pairs i < j passing the bitangent test: the static edge candidates
    (``np.nonzero`` lists them row-major, as the former chunked numpy code did)."""
    n = nodes.shape[0]
    mask = np.zeros((n, n), np.bool_)
    for i in range(n):
        for j in range(i + 1, n):
            mask[i, j] = _tangent_ok(
                nodes[i, 0], nodes[i, 1], True, up[i, 0], up[i, 1], un[i, 0], un[i, 1],
                nodes[j, 0], nodes[j, 1], True, up[j, 0], up[j, 1], un[j, 0], un[j, 1],
            )  # fmt: skip
    return mask


@njit(cache=True)
def csr(
    n: int, ci: np.ndarray, cj: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Adjacency of undirected edges (ci[e], cj[e], w[e]): (ptr, neighbour, length, edge id).

    Each node's neighbours come in edge order, as ``list.append`` over the edges produced them.
    """
    m = ci.shape[0]
    deg = np.zeros(n + 1, np.int64)
    for e in range(m):
        deg[ci[e] + 1] += 1
        deg[cj[e] + 1] += 1
    for i in range(n):
        deg[i + 1] += deg[i]
    fill = np.empty(n, np.int64)
    for i in range(n):
        fill[i] = deg[i]
    nbr = np.empty(2 * m, np.int64)
    wt = np.empty(2 * m, np.float64)
    eid = np.empty(2 * m, np.int64)
    for e in range(m):
        i, j = ci[e], cj[e]
        nbr[fill[i]] = j
        wt[fill[i]] = w[e]
        eid[fill[i]] = e
        fill[i] += 1
        nbr[fill[j]] = i
        wt[fill[j]] = w[e]
        eid[fill[j]] = e
        fill[j] += 1
    return deg, nbr, wt, eid


@njit(cache=True)
def attach(
    pts: np.ndarray,
    up: np.ndarray,
    un: np.ndarray,
    has_dirs: bool,
    free: np.ndarray,
    nodes: np.ndarray,
    nup: np.ndarray,
    nun: np.ndarray,
    thr: float,
    eps: float,
    box: np.ndarray,
    ptr: np.ndarray,
    seg: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Candidate edges of extra points: (li, sj, status) to the static nodes (row-major over
    (point, node)) and (ai, aj, status) among themselves (i < j, row-major); candidates pass the
    bitangent test and start at a free point, status is the obstacle check."""
    m = pts.shape[0]
    n = nodes.shape[0]
    li = np.empty(m * n, np.int64)
    sj = np.empty(m * n, np.int64)
    s1 = np.empty(m * n, np.int8)
    k = 0
    for i in range(m):
        if not free[i]:
            continue
        for j in range(n):
            if _tangent_ok(
                pts[i, 0], pts[i, 1], has_dirs, up[i, 0], up[i, 1], un[i, 0], un[i, 1],
                nodes[j, 0], nodes[j, 1], True, nup[j, 0], nup[j, 1], nun[j, 0], nun[j, 1],
            ):  # fmt: skip
                li[k] = i
                sj[k] = j
                s1[k] = _scan(pts[i, 0], pts[i, 1], nodes[j, 0], nodes[j, 1], thr, eps, box, ptr, seg, False)[
                    1
                ]
                k += 1
    ai = np.empty(m * m, np.int64)
    aj = np.empty(m * m, np.int64)
    s2 = np.empty(m * m, np.int8)
    q = 0
    for i in range(m):
        for j in range(i + 1, m):
            if free[i] and free[j] and _tangent_ok(
                pts[i, 0], pts[i, 1], has_dirs, up[i, 0], up[i, 1], un[i, 0], un[i, 1],
                pts[j, 0], pts[j, 1], has_dirs, up[j, 0], up[j, 1], un[j, 0], un[j, 1],
            ):  # fmt: skip
                ai[q] = i
                aj[q] = j
                s2[q] = _scan(pts[i, 0], pts[i, 1], pts[j, 0], pts[j, 1], thr, eps, box, ptr, seg, False)[1]
                q += 1
    return _head_i(li, k), _head_i(sj, k), _head_s(s1, k), _head_i(ai, q), _head_i(aj, q), _head_s(s2, q)


@njit(cache=True)
def pack(
    pts: np.ndarray,
    up: np.ndarray,
    un: np.ndarray,
    has_dirs: bool,
    free: np.ndarray,
    li: np.ndarray,
    sj: np.ndarray,
    ai: np.ndarray,
    aj: np.ndarray,
    blk: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(fdat, idat) of one query part (layout in the module docstring)."""
    p = pts.shape[0]
    fdat = np.empty((p, 10))
    for i in range(p):
        fdat[i, 0] = pts[i, 0]
        fdat[i, 1] = pts[i, 1]
        fdat[i, 2] = up[i, 0]
        fdat[i, 3] = up[i, 1]
        fdat[i, 4] = un[i, 0]
        fdat[i, 5] = un[i, 1]
        cone = _pass_arc(has_dirs, up[i, 0], up[i, 1], un[i, 0], un[i, 1])
        fdat[i, 6], fdat[i, 7], fdat[i, 8], fdat[i, 9] = cone
    nts, nown, nblk = li.shape[0], ai.shape[0], blk.shape[0]
    idat = np.empty(5 + p + 2 * nts + 2 * nown + nblk, np.int64)
    idat[0] = p
    idat[1] = 1 if has_dirs else 0
    idat[2] = nts
    idat[3] = nown
    idat[4] = nblk
    q = 5
    for i in range(p):
        idat[q + i] = 1 if free[i] else 0
    q += p
    for e in range(nts):
        idat[q + e] = li[e]
        idat[q + nts + e] = sj[e]
    q += 2 * nts
    for e in range(nown):
        idat[q + e] = ai[e]
        idat[q + nown + e] = aj[e]
    q += 2 * nown
    for e in range(nblk):
        idat[q + e] = blk[e]
    return fdat, idat


@njit(cache=True)
def attach_packed(
    pts: np.ndarray,
    up: np.ndarray,
    un: np.ndarray,
    has_dirs: bool,
    nodes: np.ndarray,
    nup: np.ndarray,
    nun: np.ndarray,
    r: float,
    width: float,
    height: float,
    touch: float,
    eps: float,
    box: np.ndarray,
    ptr: np.ndarray,
    seg: np.ndarray,
    ea: np.ndarray,
    eb: np.ndarray,
    blocker: np.ndarray,
) -> tuple[bool, np.ndarray, np.ndarray]:
    """One query part in one call: free points (map and obstacles), :func:`attach`, the static
    edges that ``blocker`` (x, y, br + r - touch; empty for an endpoint) cuts, :func:`pack`.

    Returns (ok, fdat, idat); ok False means some obstacle verdict needs GEOS (the caller then
    builds the part step by step).
    """
    empty_f = np.empty((0, 10))
    empty_i = np.empty(0, np.int64)
    status = points_status(pts, r, width, height, touch, eps, box, ptr, seg)
    free = np.empty(pts.shape[0], np.bool_)
    for i in range(pts.shape[0]):
        if status[i] == AMBIGUOUS:
            return False, empty_f, empty_i
        free[i] = status[i] == CLEAR
    li, sj, s1, ai, aj, s2 = attach(
        pts, up, un, has_dirs, free, nodes, nup, nun, r - touch, eps, box, ptr, seg
    )
    k = 0
    for e in range(s1.shape[0]):
        if s1[e] == AMBIGUOUS:
            return False, empty_f, empty_i
        if s1[e] == CLEAR:
            li[k] = li[e]
            sj[k] = sj[e]
            k += 1
    q = 0
    for e in range(s2.shape[0]):
        if s2[e] == AMBIGUOUS:
            return False, empty_f, empty_i
        if s2[e] == CLEAR:
            ai[q] = ai[e]
            aj[q] = aj[e]
            q += 1
    if blocker.shape[0] == 3:
        blk = edges_blocked_by(ea, eb, blocker[0], blocker[1], blocker[2])
    else:
        blk = empty_i
    fdat, idat = pack(
        pts, up, un, has_dirs, free, _head_i(li, k), _head_i(sj, k), _head_i(ai, q), _head_i(aj, q), blk
    )
    return True, fdat, idat


# --------------------------------------------------------------------------- per-query graph


@njit(cache=True)
def _lookup(ov: np.ndarray, ax: float, ay: float, bx: float, by: float) -> int:
    """Resolved verdict of an ambiguous segment: 1 clear, 0 blocked, -1 unknown."""
    for i in range(ov.shape[0]):
        if ov[i, 0] == ax and ov[i, 1] == ay and ov[i, 2] == bx and ov[i, 3] == by:
            return 1 if ov[i, 4] > 0.0 else 0
    return -1


# A bitangent pair needs, at each end that is a ring node, a direction inside that node's
# passing orientations, towards somewhere in the other part. These filters (exact: margins far
# above the bitangent tolerance and rounding) skip most cross-part pairs without testing them.
_ARC_MARGIN = 1e-6


@njit(cache=True)
def _pass_arc(
    has_dirs: bool, ux: float, uy: float, nx: float, ny: float
) -> tuple[float, float, float, float]:
    """The orientations passing :func:`_tangent_ok` at a node with neighbour directions u, n:
    a double cone, as (cos c, sin c, cos h, sin h) of its axis c and half-width h; h = pi / 2
    means every orientation (no directions, or a degenerate corner)."""
    if not has_dirs:
        return 1.0, 0.0, 0.0, 1.0
    lu = math.hypot(ux, uy)
    ln = math.hypot(nx, ny)
    if not (0.5 <= lu <= 2.0 and 0.5 <= ln <= 2.0):
        return 1.0, 0.0, 0.0, 1.0
    ou = math.atan2(uy, ux) % math.pi
    g = (math.atan2(ny, nx) - ou) % math.pi  # the arc from u's line counter-clockwise to n's
    if g < 1e-3 or g > math.pi - 1e-3:
        return 1.0, 0.0, 0.0, 1.0
    c = ou + 0.5 * g
    dx, dy = math.cos(c), math.sin(c)
    if (dx * uy - dy * ux) * (dx * ny - dy * nx) > 0.0:
        h = 0.5 * g  # that arc passes
    else:
        c += 0.5 * math.pi  # the other one does
        h = 0.5 * (math.pi - g)
    return math.cos(c), math.sin(c), math.cos(h), math.sin(h)


@njit(cache=True, inline="always")
def _faces(
    cx_: float, cy_: float, ch: float, sh: float, px: float, py: float, cx: float, cy: float, rad: float
) -> bool:
    """Might a segment from (px, py), whose passing cone is (cx_, cy_, ch, sh) (see
    :func:`_pass_arc`), to a point of the disc (cx, cy, rad) pass the bitangent test at (px, py)?
    False only when surely not: the disc is then farther than ``rad`` from the cone, i.e.
    D sin(delta - h) > rad, with delta the angle (at most pi / 2) from the cone's axis to the
    disc's centre at distance D (inside the cone the left side is negative)."""
    dx, dy = cx - px, cy - py
    cross = abs(dx * cy_ - dy * cx_)
    dot = abs(dx * cx_ + dy * cy_)
    return cross * ch - dot * sh <= rad + _ARC_MARGIN * (1.0 + abs(dx) + abs(dy))


@njit(cache=True, inline="always")
def _near_segment(bx: float, by: float, lim: float, ax: float, ay: float, cx: float, cy: float) -> bool:
    """Is (bx, by) within the box of segment a-c grown by ``lim`` (a superset of distance < lim)?"""
    return not (
        bx < min(ax, cx) - lim or bx > max(ax, cx) + lim or by < min(ay, cy) - lim or by > max(ay, cy) + lim
    )


@njit(cache=True)
def assemble(
    nodes: np.ndarray,
    n_edges: int,
    fdat: np.ndarray,
    idat: np.ndarray,
    n_parts: int,
    bl: np.ndarray,
    act: np.ndarray,
    r: float,
    touch: float,
    eps: float,
    box: np.ndarray,
    ptr: np.ndarray,
    seg: np.ndarray,
    ov: np.ndarray,
    omap: np.ndarray,
    old: np.ndarray,
    n_old: int,
    old_act: np.ndarray,
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The query graph of NavMesh._query_graph: static nodes, then the parts' points in order.

    Returns (code, coords, blocked static edges (bool), extra adjacency ptr, neighbours, lengths,
    unresolved (k, 4) segments, cross-part edges). code NEED_GEOS: some cross-part segments need
    GEOS verdicts (``ov`` rows (ax, ay, bx, by, clear) carry the ones already asked), the rest is
    then invalid.

    Reuse of a previous graph (the lazy rounds of one search): ``omap[k]`` is part k's index
    among the ``n_old`` parts of that graph (-1: not in it), ``old`` its kept cross-part edges
    as rows (part k1, part k2, local point in k1, local point in k2) in the order they were made
    (the returned ``cross`` has this layout), ``old_act`` its active blockers. Between two old
    parts the edges are then those old edges whose ends are still valid and which clear the
    blockers activated since, in the same order: the same edges a fresh test would give, since
    active blockers only grow (a point valid now was valid then) and an edge's tests depend on
    its two ends only. Pass ``omap`` all -1 (and empty ``old``) to build from scratch.
    """
    n = nodes.shape[0]
    P = fdat.shape[0]
    N = n + P
    coords = np.empty((N, 2))
    for i in range(n):
        coords[i, 0] = nodes[i, 0]
        coords[i, 1] = nodes[i, 1]
    for i in range(P):
        coords[n + i, 0] = fdat[i, 0]
        coords[n + i, 1] = fdat[i, 1]
    thr = r - touch
    # parse the part records
    p_off = np.empty(n_parts + 1, np.int64)  # first local point of each part
    p_rec = np.empty(n_parts, np.int64)  # start of each record in idat
    p_off[0] = 0
    pos = 0
    for k in range(n_parts):
        p_rec[k] = pos
        p = idat[pos]
        p_off[k + 1] = p_off[k] + p
        pos += 5 + p + 2 * idat[pos + 2] + 2 * idat[pos + 3] + idat[pos + 4]
    # valid: free of obstacles (cached) and of the *active* blockers. Checking the inactive ones
    # too (as the former code did) breaks the lazy rounds: a node the shortest route needs could
    # vanish because of a unit not in the graph, and a longer route clear of it be returned.
    # Each part's bounding disc (centre, radius): a blocker clear of it by a margin cannot
    # overlap any of its points, and a point's bitangent edges to the part must face it.
    disc = np.empty((n_parts, 3))
    for k in range(n_parts):
        lo, hi = n + p_off[k], n + p_off[k + 1]
        cx = cy = 0.0
        for i in range(lo, hi):
            cx += coords[i, 0]
            cy += coords[i, 1]
        cx /= max(hi - lo, 1)
        cy /= max(hi - lo, 1)
        rad = 0.0
        for i in range(lo, hi):
            rad = max(rad, math.hypot(coords[i, 0] - cx, coords[i, 1] - cy))
        disc[k, 0], disc[k, 1], disc[k, 2] = cx, cy, rad * (1.0 + 1e-9) + 1e-9
    n_act = 0
    act_rows = np.empty(bl.shape[0], np.int64)
    for b in range(bl.shape[0]):
        if act[b]:
            act_rows[n_act] = b
            n_act += 1
    valid = np.ones(N, np.bool_)
    # per part, the active blockers that may reach its disc (CSR): the only ones its own edges
    # (inside the disc) can meet
    near_ptr = np.zeros(n_parts + 1, np.int64)
    near = np.empty(n_parts * n_act, np.int64)
    for k in range(n_parts):
        rec = p_rec[k]
        p = idat[rec]
        for i in range(p):
            valid[n + p_off[k] + i] = idat[rec + 5 + i] != 0
        near_ptr[k + 1] = near_ptr[k]
        for e in range(n_act):
            b = act_rows[e]
            lim = bl[b, 2] + r - touch
            if math.hypot(disc[k, 0] - bl[b, 0], disc[k, 1] - bl[b, 1]) - disc[k, 2] > lim + 1e-9:
                continue  # the whole part is clear of this blocker
            near[near_ptr[k + 1]] = b
            near_ptr[k + 1] += 1
            for i in range(p):
                g = n + p_off[k] + i
                if valid[g] and not math.hypot(coords[g, 0] - bl[b, 0], coords[g, 1] - bl[b, 1]) >= lim:
                    valid[g] = False
    blocked = np.zeros(n_edges, np.bool_)
    # room for every part's edges; cross-part edges (few pass the bitangent test) grow it
    cap = 2 * P + 64
    for k in range(n_parts):
        rec = p_rec[k]
        cap += idat[rec + 2] + idat[rec + 3]
    ci = np.empty(cap, np.int64)
    cj = np.empty(cap, np.int64)
    # per edge: its part (an edge among the part's own points and the part's edges to static
    # nodes), -1 a fresh cross-part edge, -2 one reused (already checked against the blockers);
    # pk1 / pk2 a cross-part edge's parts
    own = np.full(cap, -1, np.int64)
    pk1 = np.empty(cap, np.int64)
    pk2 = np.empty(cap, np.int64)
    m = 0
    for k in range(n_parts):
        rec = p_rec[k]
        p, nts, nown, nblk = idat[rec], idat[rec + 2], idat[rec + 3], idat[rec + 4]
        base = n + p_off[k]
        q = rec + 5 + p
        for e in range(nts):
            gi = base + idat[q + e]
            gj = idat[q + nts + e]
            if valid[gi] and valid[gj]:
                ci[m] = gi
                cj[m] = gj
                m += 1
        q += 2 * nts
        for e in range(nown):
            gi = base + idat[q + e]
            gj = base + idat[q + nown + e]
            if valid[gi] and valid[gj]:
                ci[m] = gi
                cj[m] = gj
                own[m] = k
                m += 1
        q += 2 * nown
        for e in range(nblk):
            blocked[idat[q + e]] = True
    # pairs across parts: bitangent, both valid, then the obstacle check
    m0 = m  # the cross-part edges start here
    amb_i = np.empty(16, np.int64)  # cross pairs the obstacle check could not call
    amb_j = np.empty(16, np.int64)
    n_amb = 0
    cand = np.empty(P, np.int64)
    # the old graph's cross edges by pair of old parts (CSR; they were made pair after pair),
    # and the blockers active now but not then
    optr = np.zeros(n_old * n_old + 1, np.int64)
    for q in range(old.shape[0]):
        optr[old[q, 0] * n_old + old[q, 1] + 1] += 1
    for q in range(n_old * n_old):
        optr[q + 1] += optr[q]
    fresh = np.empty(n_act, np.int64)
    n_fresh = 0
    for e in range(n_act):
        if not old_act[act_rows[e]]:
            fresh[n_fresh] = act_rows[e]
            n_fresh += 1
    for k1 in range(n_parts):
        d1 = idat[p_rec[k1] + 1] != 0
        for k2 in range(k1 + 1, n_parts):
            d2 = idat[p_rec[k2] + 1] != 0
            o1, o2 = omap[k1], omap[k2]
            if 0 <= o1 < o2:
                base1, base2 = n + p_off[k1], n + p_off[k2]
                for q in range(optr[o1 * n_old + o2], optr[o1 * n_old + o2 + 1]):
                    i, j = base1 + old[q, 2], base2 + old[q, 3]
                    if not (valid[i] and valid[j]):
                        continue
                    ax, ay, cx, cy = coords[i, 0], coords[i, 1], coords[j, 0], coords[j, 1]
                    clear = True
                    for e in range(n_fresh):
                        b = fresh[e]
                        lim = bl[b, 2] + r - touch
                        if (
                            _near_segment(bl[b, 0], bl[b, 1], lim * (1.0 + 1e-12) + 1e-9, ax, ay, cx, cy)
                            and not _psd(bl[b, 0], bl[b, 1], ax, ay, cx, cy) >= lim
                        ):
                            clear = False
                            break
                    if clear:
                        if m == ci.shape[0]:
                            ci, cj, own, pk1, pk2 = _grow(ci), _grow(cj), _grow(own), _grow(pk1), _grow(pk2)
                        ci[m], cj[m], own[m], pk1[m], pk2[m] = i, j, -2, k1, k2
                        m += 1
                continue
            # the points of part k2 that may start a bitangent towards part k1, ascending
            n_cand = 0
            for j in range(n + p_off[k2], n + p_off[k2 + 1]):
                f = j - n
                if valid[j] and _faces(
                    fdat[f, 6],
                    fdat[f, 7],
                    fdat[f, 8],
                    fdat[f, 9],
                    coords[j, 0],
                    coords[j, 1],
                    disc[k1, 0],
                    disc[k1, 1],
                    disc[k1, 2],
                ):
                    cand[n_cand] = j
                    n_cand += 1
            if n_cand == 0:
                continue
            for i in range(n + p_off[k1], n + p_off[k1 + 1]):
                fi = i - n
                if not valid[i] or not _faces(
                    fdat[fi, 6],
                    fdat[fi, 7],
                    fdat[fi, 8],
                    fdat[fi, 9],
                    coords[i, 0],
                    coords[i, 1],
                    disc[k2, 0],
                    disc[k2, 1],
                    disc[k2, 2],
                ):
                    continue
                for c in range(n_cand):
                    j = cand[c]
                    fj = j - n
                    if not _tangent_ok(
                        coords[i, 0], coords[i, 1], d1, fdat[fi, 2], fdat[fi, 3], fdat[fi, 4], fdat[fi, 5],
                        coords[j, 0], coords[j, 1], d2, fdat[fj, 2], fdat[fj, 3], fdat[fj, 4], fdat[fj, 5],
                    ):  # fmt: skip
                        continue
                    s = _scan(
                        coords[i, 0], coords[i, 1], coords[j, 0], coords[j, 1], thr, eps, box, ptr, seg, False
                    )[1]
                    if s == AMBIGUOUS:
                        v = _lookup(ov, coords[i, 0], coords[i, 1], coords[j, 0], coords[j, 1])
                        if v < 0:
                            if n_amb == amb_i.shape[0]:
                                amb_i, amb_j = _grow(amb_i), _grow(amb_j)
                            amb_i[n_amb] = i
                            amb_j[n_amb] = j
                            n_amb += 1
                            continue
                        s = CLEAR if v == 1 else HIT
                    if s == CLEAR:
                        if m == ci.shape[0]:
                            ci, cj, own, pk1, pk2 = _grow(ci), _grow(cj), _grow(own), _grow(pk1), _grow(pk2)
                        ci[m], cj[m], own[m], pk1[m], pk2[m] = i, j, -1, k1, k2
                        m += 1
    ex_ptr = np.zeros(N + 1, np.int64)
    amb = np.empty((n_amb, 4))
    for q in range(n_amb):
        amb[q, 0] = coords[amb_i[q], 0]
        amb[q, 1] = coords[amb_i[q], 1]
        amb[q, 2] = coords[amb_j[q], 0]
        amb[q, 3] = coords[amb_j[q], 1]
    if n_amb:
        no_cross = np.empty((0, 4), np.int64)
        return NEED_GEOS, coords, blocked, ex_ptr, np.empty(0, np.int64), np.empty(0), amb, no_cross
    # every query edge must also clear the active blockers
    keep = np.ones(m, np.bool_)
    for e in range(m):
        i, j = ci[e], cj[e]
        ax, ay, cx, cy = coords[i, 0], coords[i, 1], coords[j, 0], coords[j, 1]
        k = own[e]
        if k == -2:
            continue  # reused: checked above
        if k >= 0:
            lo, hi, rows = near_ptr[k], near_ptr[k + 1], near
        else:
            lo, hi, rows = 0, n_act, act_rows
        for q in range(lo, hi):
            b = rows[q]
            lim = bl[b, 2] + r - touch
            if (
                _near_segment(bl[b, 0], bl[b, 1], lim * (1.0 + 1e-12) + 1e-9, ax, ay, cx, cy)
                and not _psd(bl[b, 0], bl[b, 1], ax, ay, cx, cy) >= lim
            ):
                keep[e] = False
                break
    for e in range(m):
        if keep[e]:
            ex_ptr[ci[e] + 1] += 1
            ex_ptr[cj[e] + 1] += 1
    for i in range(N):
        ex_ptr[i + 1] += ex_ptr[i]
    fill = np.empty(N, np.int64)
    for i in range(N):
        fill[i] = ex_ptr[i]
    ex_nbr = np.empty(ex_ptr[N], np.int64)
    ex_w = np.empty(ex_ptr[N])
    for e in range(m):
        if keep[e]:
            i, j = ci[e], cj[e]
            w = math.hypot(coords[j, 0] - coords[i, 0], coords[j, 1] - coords[i, 1])
            ex_nbr[fill[i]] = j
            ex_w[fill[i]] = w
            fill[i] += 1
            ex_nbr[fill[j]] = i
            ex_w[fill[j]] = w
            fill[j] += 1
    n_cross = 0
    for e in range(m0, m):
        if keep[e]:
            n_cross += 1
    cross = np.empty((n_cross, 4), np.int64)
    q = 0
    for e in range(m0, m):
        if keep[e]:
            k1, k2 = pk1[e], pk2[e]
            cross[q, 0], cross[q, 1] = k1, k2
            cross[q, 2], cross[q, 3] = ci[e] - n - p_off[k1], cj[e] - n - p_off[k2]
            q += 1
    return FOUND, coords, blocked, ex_ptr, ex_nbr, ex_w, amb, cross


# --------------------------------------------------------------------------- searches


@njit(cache=True)
def _less(a0: float, a1: float, a2: int, b0: float, b1: float, b2: int) -> bool:
    return a0 < b0 or (a0 == b0 and (a1 < b1 or (a1 == b1 and a2 < b2)))


@njit(cache=True)
def _heap_pop(k0: np.ndarray, k1: np.ndarray, k2: np.ndarray, size: int) -> int:
    """Remove the root of the binary heap of lexicographic keys (k0, k1, k2); the new size.

    The caller reads the root before popping. Same sift as ``heapq``, so ties break the same way.
    """
    size -= 1
    if size:  # move the last entry to the root and sift it down
        l0, l1, l2 = k0[size], k1[size], k2[size]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= size:
                break
            if c + 1 < size and _less(k0[c + 1], k1[c + 1], k2[c + 1], k0[c], k1[c], k2[c]):
                c += 1
            if _less(k0[c], k1[c], k2[c], l0, l1, l2):
                k0[i], k1[i], k2[i] = k0[c], k1[c], k2[c]
                i = c
            else:
                break
        k0[i], k1[i], k2[i] = l0, l1, l2
    return size


@njit(cache=True)
def _heap_push(
    k0: np.ndarray, k1: np.ndarray, k2: np.ndarray, size: int, a0: float, a1: float, a2: int
) -> int:
    """Add the key (a0, a1, a2) to the heap (sift up); the new size."""
    i = size
    while i > 0:
        p = (i - 1) // 2
        if _less(a0, a1, a2, k0[p], k1[p], k2[p]):
            k0[i], k1[i], k2[i] = k0[p], k1[p], k2[p]
            i = p
        else:
            break
    k0[i], k1[i], k2[i] = a0, a1, a2
    return size + 1


@njit(cache=True)
def astar(
    coords: np.ndarray,
    n_static: int,
    adj_ptr: np.ndarray,
    adj_nbr: np.ndarray,
    adj_w: np.ndarray,
    adj_eid: np.ndarray,
    blocked: np.ndarray,
    ex_ptr: np.ndarray,
    ex_nbr: np.ndarray,
    ex_w: np.ndarray,
    src: int,
    dst: int,
) -> np.ndarray:
    """A* with the Euclidean heuristic; node indices src..dst, or an empty array if unreachable.

    The heap holds (f, g, node) keys ordered lexicographically, like the tuples the former
    ``heapq`` version pushed; stale entries are skipped when popped.
    """
    N = coords.shape[0]
    gx, gy = coords[dst, 0], coords[dst, 1]
    dist = np.full(N, np.inf)
    prev = np.full(N, -1, np.int64)
    done = np.zeros(N, np.bool_)
    # one push per relaxed directed edge at most (a node relaxes its edges once), plus src
    cap = adj_nbr.shape[0] + ex_nbr.shape[0] + 1
    hf = np.empty(cap)
    hg = np.empty(cap)
    hn = np.empty(cap, np.int64)
    dist[src] = 0.0
    size = _heap_push(hf, hg, hn, 0, math.hypot(coords[src, 0] - gx, coords[src, 1] - gy), 0.0, src)
    while size:
        d, u = hg[0], hn[0]
        size = _heap_pop(hf, hg, hn, size)
        if done[u]:
            continue
        if u == dst:
            k = 1
            v = u
            while v != src:
                v = prev[v]
                k += 1
            out = np.empty(k, np.int64)
            v = u
            for i in range(k - 1, -1, -1):
                out[i] = v
                v = prev[v]
            return out
        done[u] = True
        for pass_ in range(2):
            if pass_ == 0:
                if u >= n_static:
                    continue
                lo, hi = adj_ptr[u], adj_ptr[u + 1]
            else:
                lo, hi = ex_ptr[u], ex_ptr[u + 1]
            for q in range(lo, hi):
                if pass_ == 0:
                    if blocked[adj_eid[q]]:
                        continue
                    v = adj_nbr[q]
                    nd = d + adj_w[q]
                else:
                    v = ex_nbr[q]
                    nd = d + ex_w[q]
                if nd < dist[v]:
                    dist[v] = nd
                    prev[v] = u
                    nf = nd + math.hypot(coords[v, 0] - gx, coords[v, 1] - gy)
                    size = _heap_push(hf, hg, hn, size, nf, nd, v)
    return np.empty(0, np.int64)


@njit(cache=True)
def dijkstra(
    N: int,
    n_static: int,
    adj_ptr: np.ndarray,
    adj_nbr: np.ndarray,
    adj_w: np.ndarray,
    adj_eid: np.ndarray,
    blocked: np.ndarray,
    ex_ptr: np.ndarray,
    ex_nbr: np.ndarray,
    ex_w: np.ndarray,
    src: int,
    bound: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shortest distances below ``bound`` from ``src``: (settled mask, distance, parent).

    Heap keys (g, node, parent) as in the former ``heapq`` version (the node id is stored as a
    float key: ids are far below 2**53, so the order is the same).
    """
    dist = np.full(N, np.inf)
    done = np.zeros(N, np.bool_)
    dd = np.zeros(N)
    par = np.full(N, -1, np.int64)
    cap = adj_nbr.shape[0] + ex_nbr.shape[0] + 1  # as in astar
    hg = np.empty(cap)
    hn = np.empty(cap)
    hp = np.empty(cap, np.int64)
    dist[src] = 0.0
    size = _heap_push(hg, hn, hp, 0, 0.0, float(src), src)
    while size:
        d, u, parent = hg[0], int(hn[0]), hp[0]
        size = _heap_pop(hg, hn, hp, size)
        if done[u]:
            continue
        done[u] = True
        dd[u] = d
        par[u] = parent
        for pass_ in range(2):
            if pass_ == 0:
                if u >= n_static:
                    continue
                lo, hi = adj_ptr[u], adj_ptr[u + 1]
            else:
                lo, hi = ex_ptr[u], ex_ptr[u + 1]
            for q in range(lo, hi):
                if pass_ == 0:
                    if blocked[adj_eid[q]]:
                        continue
                    v = adj_nbr[q]
                    nd = d + adj_w[q]
                else:
                    v = ex_nbr[q]
                    nd = d + ex_w[q]
                if nd < bound and nd < dist[v]:
                    dist[v] = nd
                    size = _heap_push(hg, hn, hp, size, nd, float(v), u)
    return done, dd, par


@njit(cache=True)
def route(
    nodes: np.ndarray,
    adj_ptr: np.ndarray,
    adj_nbr: np.ndarray,
    adj_w: np.ndarray,
    adj_eid: np.ndarray,
    fdat: np.ndarray,
    idat: np.ndarray,
    n_parts: int,
    bl: np.ndarray,
    act: np.ndarray,
    r: float,
    touch: float,
    eps: float,
    box: np.ndarray,
    ptr: np.ndarray,
    seg: np.ndarray,
    ov: np.ndarray,
    omap: np.ndarray,
    old: np.ndarray,
    n_old: int,
    old_act: np.ndarray,
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One round of NavMesh.path's lazy-blocker loop: assemble the query graph (the last two
    parts are start and goal; the previous round's graph reused as :func:`assemble` says), run
    A*, and list the blockers the route crosses that are not yet active.

    Returns (code, route points (k, 2), their k - 1 segment lengths, new blocker indices,
    unresolved segments, the graph's cross-part edges for the next round): FOUND with the route
    (new blockers non-empty: add them and go again), NO_ROUTE, or NEED_GEOS.
    """
    code, coords, blocked, ex_ptr, ex_nbr, ex_w, amb, cross = assemble(
        nodes, adj_eid.shape[0] // 2, fdat, idat, n_parts, bl, act, r, touch, eps, box, ptr, seg, ov,
        omap, old, n_old, old_act,
    )  # fmt: skip
    no_int = np.empty(0, np.int64)
    if code == NEED_GEOS:
        return NEED_GEOS, np.empty((0, 2)), np.empty(0), no_int, amb, cross
    N = coords.shape[0]
    path = astar(
        coords, nodes.shape[0], adj_ptr, adj_nbr, adj_w, adj_eid, blocked, ex_ptr, ex_nbr, ex_w, N - 2, N - 1
    )
    if path.shape[0] == 0:
        return NO_ROUTE, np.empty((0, 2)), np.empty(0), no_int, amb, cross
    pts = np.empty((path.shape[0], 2))
    for i in range(path.shape[0]):
        pts[i, 0] = coords[path[i], 0]
        pts[i, 1] = coords[path[i], 1]
    # segment lengths as np.hypot(*np.diff(pts, axis=0).T) gives them
    lengths = np.empty(path.shape[0] - 1)
    for i in range(path.shape[0] - 1):
        lengths[i] = math.hypot(pts[i + 1, 0] - pts[i, 0], pts[i + 1, 1] - pts[i, 1])
    new = np.empty(bl.shape[0], np.int64)
    m = 0
    for b in range(bl.shape[0]):
        if act[b]:
            continue
        for i in range(pts.shape[0] - 1):
            if (
                _psd(bl[b, 0], bl[b, 1], pts[i, 0], pts[i, 1], pts[i + 1, 0], pts[i + 1, 1])
                < bl[b, 2] + r - touch
            ):
                new[m] = b
                m += 1
                break
    return FOUND, pts, lengths, _head_i(new, m), amb, cross
