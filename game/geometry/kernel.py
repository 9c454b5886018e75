"""Compiled sight kernels: exact cover, obstacle screens, intervening units, one pair at a time.

Contract:

* The model and every decision are those of the oracle (:mod:`game.geometry.reference`, DESIGN
  §3, ``docs/cover-model.md``): cover fractions agree with it to ~1e-14 and every derived
  field (visible, level, hidden, arc, intervening units in order) is equal.
* :class:`Scene` holds a scenario's static obstacle arrays (convex pieces, edges with outward
  normals, bounding circles, a uniform grid over the pieces); :func:`build_scene` makes it once
  per :class:`game.geometry.fast.SightIndex`.
* Each public kernel has exactly one signature (C-contiguous float64 / int64 / bool arrays;
  read-only arrays are accepted). It is compiled when this module is first imported and cached
  on disk (:mod:`game.geometry.jit`), so later processes only load it. Nothing is compiled
  inside a call. No ``fastmath``: results are bit-for-bit reproducible on one machine.

Per pair (attacker centre ``A``, eye ``e``; target centre ``T`` at distance ``D``, base ``r``,
height ``H``), in the pair's frame ``u`` = bearing − bearing of ``T`` (window ``[−α, α]``):

1. **Broad phase.** The silhouette's rays up to ``D`` lie in the capsule of radius ``r`` around
   ``A→T``. The grid cells meeting it are visited from ``A``'s end; a piece is a candidate if its
   bounding circle meets the window's wedge nearer than ``D``.
2. **Occlusion shortcut.** A candidate taller than the eye and than ``H`` hides at least ``H``
   on every ray it is entered on before ``D``. Those rays form one interval (a convex piece ∩
   the disc of radius ``D`` is convex), so if both window edges enter it before ``D`` (two
   Cyrus–Beck clips) the pair is total and the walk stops. The last blockers found for each
   attacker and each target are tried before the walk.
3. **Narrow phase.** Per candidate edge (Cyrus–Beck slack ``s = c − n·A``): rays enter through
   edges with ``s < 0`` at ``d = s/(n·dir)``, so on the edge's angular span (clipped to the
   window with cross products) ``z = e + (h − e)·D·(n·dir)/s`` is a sinusoid in ``u``; the part
   with ``d < D`` is an ``acos`` interval, needed only where an end of the span is beyond ``D``.
   Obstacles taller than the eye give entry segments (and hide everything if ``A`` stands
   inside), the others exit segments where the exit is within ``D`` and the constant ``h``
   where the piece reaches past ``D``.
4. :func:`game.geometry.envelope.envelope_area` integrates the clamped upper envelope.
5. **Obstacle screen** (hidden rule), where asked: the obstacles within ``r + 0.5`` of ``T`` are
   listed once per target from the grid cells around it; one of size ≥ the target's screens if
   one of its pieces takes part (rays through its interior within ``D`` span > ``ANGLE_TOL``).

Intervening units: the oracle's exact corridor test for every other unit, after a capsule
test, sorted nearest the attacker first (ties by row). Broad phases pick the units to test:
a grid over the units, or per attacker a fan of the units by bearing, ranked once.

The loops work on borrowed views of their arrays (:func:`game.geometry.jit.borrowed`): numba's
atomic reference counting on every call that passes an array cost a quarter of the time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import types
from numpy.typing import NDArray

from game.geometry.envelope import C0, C1, C2, HI, LO, OBS, SEG_COLS, ZMAX, ZMIN, envelope_area
from game.geometry.jit import (
    B1,
    F1,
    F2,
    I1,
    I2,
    OUT_B1,
    OUT_F1,
    OUT_I1,
    OUT_I8,
    borrowed,
    helper,
    inline,
    keep_alive,
    kernel,
)
from game.geometry.model import (
    ANGLE_TOL,
    FRACTION_SNAP,
    FRONT_HALF_ANGLE,
    HEAVY_ABOVE,
    HIDDEN_GAP,
    LIGHT_FROM,
    MEDIUM_ABOVE,
    NEAR_TOTAL_ABOVE,
    SIDE_LIMIT,
    TOUCH_TOL,
    BoolArray,
    FloatArray,
    IntArray,
)

_PI = math.pi
_TWO_PI = 2.0 * math.pi
_INV_TWO_PI = 1.0 / _TWO_PI
_DEG = 180.0 / math.pi  # numpy's degrees() multiplies by this constant
#: |slack| below this (inches) puts the attacker on an edge's line.
_ON_EDGE = 1e-10
#: Relative margin of the occlusion shortcut: a window edge must be inside a blocker by this much.
_BLOCK_MARGIN = 1e-9
#: Relative margin of the conservative broad-phase and capsule tests.
_CULL_MARGIN = 1e-9

#: Mode bits of :func:`cover_pairs`.
SCREENS = 1  # compute obstacle screens (the target sizes are given)
OWNERS = 2  # exact per-obstacle shares (one pair; no shortcuts)

#: Columns of the per-edge scratch rows (_X, _Y: the edge's start vertex in the pair frame).
_X, _Y, _LO, _HI, _MID, _SLACK, _NLX, _NLY, _NANG, _FLO, _FHI, _FOK, _KEEP, _CLO, _CHI = range(15)
_EDGE_COLS = 15

#: Grid cell width, in mean bounding-circle diameters of the pieces.
_GRID_CELL = 1.0
#: Recent blockers remembered per attacker and per target.
_MEMORY = 4
#: Obstacles near a target listed once per target (more: listed per pair).
_NEAR = 8

#: Where :func:`_snap` snaps fractions (as :func:`game.geometry.model.snap_fraction`).
_THRESHOLDS = (0.0, 1.0, LIGHT_FROM, MEDIUM_ABOVE, HEAVY_ABOVE, NEAR_TOTAL_ABOVE)


#: Argument types of the static scene, in :meth:`Scene.args` order.
_SCENE = (F2, I2, F2, F1, I2, I1, F1, I1, I1, I1)


@dataclass(frozen=True)
class Scene:
    """A scenario's static obstacle arrays, packed for the kernels.

    Attributes:
        edge: (V, 6) per edge: start vertex x, y, outward unit normal x, y, ``n·v`` (the
            line's offset) and the normal's angle; a piece's edges are consecutive, edge ``j``
            running from its vertex ``j`` to the next (the interior on its left).
        piece_i: (P, 3) per convex piece: first edge, edge count, obstacle.
        piece_f: (P, 4) per piece: bounding-circle centre x, y, radius, and height.
        obstacle_size: (O,) obstacle sizes (hidden rule).
        obstacle_i: (O, 2) per obstacle: first entry in ``obstacle_pieces``, piece count.
        obstacle_pieces: (P,) pieces grouped by obstacle.
        grid_f: (3,) grid origin x, y and cell size.
        grid_i: (2,) grid columns and rows.
        grid_ptr: (cells + 1,) CSR offsets into ``grid_item`` (cell = column · rows + row).
        grid_item: per cell, the pieces whose polygon meets it.
    """

    edge: FloatArray
    piece_i: IntArray
    piece_f: FloatArray
    obstacle_size: FloatArray
    obstacle_i: IntArray
    obstacle_pieces: IntArray
    grid_f: FloatArray
    grid_i: IntArray
    grid_ptr: IntArray
    grid_item: IntArray

    def args(self) -> tuple[NDArray[Any], ...]:
        """The arrays in kernel-argument order."""
        return (
            self.edge,
            self.piece_i,
            self.piece_f,
            self.obstacle_size,
            self.obstacle_i,
            self.obstacle_pieces,
            self.grid_f,
            self.grid_i,
            self.grid_ptr,
            self.grid_item,
        )


def build_scene(
    rings: Sequence[NDArray[np.float64]], owner: Sequence[int], heights: FloatArray, sizes: FloatArray
) -> Scene:
    """Pack convex pieces (counter-clockwise in a y-down frame: interior on the left).

    Args:
        rings: (k, 2) vertex arrays, one per convex piece, without the closing vertex.
        owner: obstacle of each piece.
        heights: (O,) obstacle heights.
        sizes: (O,) obstacle sizes.
    """
    n_p = len(rings)
    n_o = len(sizes)
    counts = np.array([len(r) for r in rings], dtype=np.int64)
    vstart = (np.cumsum(counts) - counts).astype(np.int64)
    verts = np.concatenate(rings) if n_p else np.zeros((0, 2))
    vx, vy = verts[:, 0], verts[:, 1]
    nxt = np.arange(len(verts), dtype=np.int64) + 1
    if n_p:
        nxt[vstart + counts - 1] = vstart
    ex, ey = vx[nxt] - vx, vy[nxt] - vy
    length = np.sqrt(ex * ex + ey * ey)
    nx, ny = ey / length, -ex / length
    edge = np.column_stack([vx, vy, nx, ny, nx * vx + ny * vy, np.arctan2(ny, nx)]).reshape(-1, 6)
    own = np.asarray(owner, dtype=np.int64).reshape(n_p)
    cx = np.zeros(n_p)
    cy = np.zeros(n_p)
    rad = np.zeros(n_p)
    for k, ring in enumerate(rings):
        lo, hi = ring.min(axis=0), ring.max(axis=0)
        cx[k], cy[k] = 0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])
        rad[k] = float(np.max(np.hypot(ring[:, 0] - cx[k], ring[:, 1] - cy[k])))
    rad = rad * (1.0 + 1e-12) + 1e-12
    piece_f = np.column_stack([cx, cy, rad, np.asarray(heights, dtype=np.float64)[own]]).reshape(n_p, 4)
    by_obstacle = np.argsort(own, kind="stable").astype(np.int64)
    pcount = np.bincount(own, minlength=n_o).astype(np.int64)
    obstacle_i = np.column_stack([np.cumsum(pcount) - pcount, pcount]).reshape(n_o, 2).astype(np.int64)
    grid_f, grid_i, grid_ptr, grid_item = _build_grid(rings, rad)
    return Scene(
        np.ascontiguousarray(edge, dtype=np.float64),
        np.ascontiguousarray(np.column_stack([vstart, counts, own]).reshape(n_p, 3), dtype=np.int64),
        np.ascontiguousarray(piece_f, dtype=np.float64),
        np.ascontiguousarray(sizes, dtype=np.float64),
        np.ascontiguousarray(obstacle_i),
        by_obstacle,
        grid_f,
        grid_i,
        grid_ptr,
        grid_item,
    )


def _build_grid(
    rings: Sequence[NDArray[np.float64]], rad: FloatArray
) -> tuple[FloatArray, IntArray, IntArray, IntArray]:
    """A uniform grid over the pieces: each is filed under every cell its polygon meets.

    Filing the polygon rather than its bounding circle keeps thin walls out of most cells
    around them. Cells are about as wide as a piece's bounding circle (measured best: smaller
    cells cost more cell visits than they save piece tests).
    """
    n_p = len(rings)
    if n_p == 0:
        return (
            np.zeros(3),
            np.zeros(2, dtype=np.int64),
            np.zeros(1, dtype=np.int64),
            np.zeros(0, dtype=np.int64),
        )
    verts = np.concatenate(rings)
    x0, y0 = float(verts[:, 0].min()), float(verts[:, 1].min())
    x1, y1 = float(verts[:, 0].max()), float(verts[:, 1].max())
    cell = max(_GRID_CELL * float(np.mean(2.0 * rad)), 1e-6)
    cell = max(cell, math.sqrt((x1 - x0) * (y1 - y0) / (8.0 * n_p + 16.0)))
    ncx = int((x1 - x0) / cell) + 1
    ncy = int((y1 - y0) / cell) + 1
    cells: list[NDArray[np.int64]] = []
    items: list[NDArray[np.int64]] = []
    for p, ring in enumerate(rings):
        lo, hi = ring.min(axis=0), ring.max(axis=0)
        i0, i1 = (np.floor((np.array([lo[0], hi[0]]) - x0) / cell).astype(np.int64)).clip(0, ncx - 1)
        j0, j1 = (np.floor((np.array([lo[1], hi[1]]) - y0) / cell).astype(np.int64)).clip(0, ncy - 1)
        grid_ii, grid_jj = np.meshgrid(np.arange(i0, i1 + 1), np.arange(j0, j1 + 1), indexing="ij")
        ii, jj = grid_ii.ravel(), grid_jj.ravel()
        # separating axes: a cell is dropped if it lies wholly outside one edge's half-plane
        # (the box axes are covered by the polygon's bounding box)
        e = np.roll(ring, -1, axis=0) - ring
        length = np.hypot(e[:, 0], e[:, 1])
        nx, ny = e[:, 1] / length, -e[:, 0] / length
        off = nx * ring[:, 0] + ny * ring[:, 1]
        bx = x0 + np.where(nx[None, :] >= 0.0, ii[:, None], ii[:, None] + 1) * cell  # corner least along n
        by = y0 + np.where(ny[None, :] >= 0.0, jj[:, None], jj[:, None] + 1) * cell
        apart = nx[None, :] * bx + ny[None, :] * by - off[None, :] > 1e-9 * (1.0 + np.abs(off[None, :]))
        keep = ~apart.any(axis=1)
        cells.append(ii[keep] * ncy + jj[keep])
        items.append(np.full(int(keep.sum()), p, dtype=np.int64))
    cell_of = np.concatenate(cells)
    item = np.concatenate(items)
    order = np.argsort(cell_of, kind="stable")
    ptr = np.zeros(ncx * ncy + 1, dtype=np.int64)
    np.cumsum(np.bincount(cell_of, minlength=ncx * ncy), out=ptr[1:])
    return (
        np.array([x0, y0, cell], dtype=np.float64),
        np.array([ncx, ncy], dtype=np.int64),
        ptr,
        np.ascontiguousarray(item[order]),
    )


# ---------------------------------------------------------------------------- small helpers
@inline
def _rows_in_range(rows: IntArray, n: int) -> bool:
    """All of ``rows`` in [0, n)? (The kernels index without bounds checks: callers must be right.)"""
    ok = True
    for r in rows:
        ok &= 0 <= r < n
    return ok


@helper
def _wrap(a: float) -> float:
    """Fold an angle (radians) into [−π, π] (branches for the usual |a| < 3π: cheaper than rint)."""
    if -_PI <= a <= _PI:
        return a
    if _PI < a < 3.0 * _PI:
        return a - _TWO_PI
    if -3.0 * _PI < a < -_PI:
        return a + _TWO_PI
    return float(a - _TWO_PI * np.rint(a * _INV_TWO_PI))


@helper
def _snap(f: float) -> float:
    """:func:`game.geometry.model.snap_fraction`."""
    f = min(1.0, max(0.0, f))
    for mark in _THRESHOLDS:
        if abs(f - mark) <= FRACTION_SNAP:
            return mark
    return f


@inline
def _capsule_columns(grid_f: FloatArray, grid_i: IntArray, ax: float, bx: float, w: float) -> tuple[int, int]:
    """First and last grid column meeting the capsule of radius ``w`` around A→B (empty: lo > hi)."""
    x0, cell = grid_f[0], grid_f[2]
    lo_x, hi_x = min(ax, bx), max(ax, bx)
    return max(math.floor((lo_x - w - x0) / cell), 0), min(math.floor((hi_x + w - x0) / cell), grid_i[0] - 1)


@inline
def _capsule_rows(
    grid_f: FloatArray, grid_i: IntArray, i: int, ax: float, ay: float, bx: float, by: float, w: float
) -> tuple[int, int]:
    """Rows of grid column ``i`` meeting the capsule of radius ``w`` around A→B (empty: lo > hi).

    Within ``w`` of the segment's y-range over the column widened by ``w``: a superset (the
    grid is only a filter).
    """
    x0, y0, cell = grid_f[0], grid_f[1], grid_f[2]
    lo_x, hi_x = min(ax, bx), max(ax, bx)
    sx0 = max(x0 + i * cell - w, lo_x)
    sx1 = min(x0 + (i + 1) * cell + w, hi_x)
    dx = bx - ax
    if dx != 0.0:
        slope = (by - ay) / dx
        ya, yb = ay + (sx0 - ax) * slope, ay + (sx1 - ax) * slope
        ylo, yhi = min(ya, yb) - w, max(ya, yb) + w
    else:
        ylo, yhi = min(ay, by) - w, max(ay, by) + w
    return max(math.floor((ylo - y0) / cell), 0), min(math.floor((yhi - y0) / cell), grid_i[1] - 1)


@inline
def _candidate(
    piece_f: FloatArray, q: int, ax: float, ay: float, cf: float, sf: float, sa: float, ca: float, dist: float
) -> int:
    """Can rays of the window cross piece ``q`` within ``D``? 0 no, 1 yes, 2 yes and A may be inside.

    Conservative: the piece's bounding circle must come nearer than ``D`` and meet the wedge
    of the window (signed distance to its nearer boundary line ≤ radius).
    """
    pcx, pcy, rho = piece_f[q, 0] - ax, piece_f[q, 1] - ay, piece_f[q, 2]
    dc = math.sqrt(pcx * pcx + pcy * pcy)
    if dc - rho >= dist:
        return 0
    if dc <= rho:
        return 2
    along = pcx * cf + pcy * sf
    perp = abs(pcy * cf - pcx * sf)
    slack = rho * (1.0 + _CULL_MARGIN) + 1e-12
    if along < -slack or perp * ca - along * sa > slack:
        return 0
    return 1


@inline
def _enters_before(
    edge: FloatArray, vs: int, cnt: int, ax: float, ay: float, dx: float, dy: float, dist: float
) -> bool:
    """Does the ray A + t·(dx, dy) pass through the convex piece's interior before ``t = D``?

    Cyrus–Beck clipping of [0, D]; the passage must be longer than a relative margin.
    """
    t_in, t_out = 0.0, dist
    for j in range(vs, vs + cnt):
        s = edge[j, 4] - edge[j, 2] * ax - edge[j, 3] * ay
        nd = edge[j, 2] * dx + edge[j, 3] * dy
        if nd < 0.0:
            t_in = max(t_in, s / nd)
        elif nd > 0.0:
            t_out = min(t_out, s / nd)
        elif s <= 0.0:
            return False
    return t_out - t_in > _BLOCK_MARGIN * dist and t_in < dist * (1.0 - _BLOCK_MARGIN)


@inline
def _span_end(xa: float, ya: float, xb: float, yb: float, wx: float, wy: float) -> bool:
    """Is direction w within the sweep from Pa to Pb (counter-clockwise in the pair frame, < π)?"""
    return xa * wy - ya * wx >= 0.0 and wx * yb - wy * xb >= 0.0


@helper
def _piece_frame(
    edge: FloatArray,
    vs: int,
    cnt: int,
    near: bool,
    ax: float,
    ay: float,
    cf: float,
    sf: float,
    sa: float,
    ca: float,
    al: float,
    phi: float,
    dist: float,
    es: FloatArray,
) -> tuple[float, float, bool]:
    """One piece's edges in the pair's frame (rows of ``es``); returns ``(ip_lo, ip_hi, enclosing)``.

    Per edge: its angular span clipped to the window ``[lo, hi]`` (``_KEEP`` if not empty) and
    ``n·dir`` at both ends. Angles come from vectors: the span's ends are window edges
    (``±α``) unless a vertex lies inside the window (then one ``atan2``), and the ``acos``
    interval "entry within ``D``" is computed only where an end of the span lies beyond ``D``
    (the distance to an edge's line is convex along its span).

    ``[ip_lo, ip_hi]`` is ``I_P``, the rays that enter the piece before ``D`` (empty: lo > hi).
    ``enclosing``: the attacker is inside the piece or on its boundary; ``I_P`` is then the
    window, or for a boundary point the cone of directions pointing into the piece.
    """
    for k in range(cnt):
        px, py = edge[vs + k, 0] - ax, edge[vs + k, 1] - ay
        es[k, _X], es[k, _Y] = px * cf + py * sf, py * cf - px * sf
    ip_lo, ip_hi = 10.0, -10.0
    gmin = math.inf
    for k in range(cnt):
        j = vs + k
        nx, ny = edge[j, 2], edge[j, 3]
        slack = edge[j, 4] - nx * ax - ny * ay
        nlx, nly = nx * cf + ny * sf, ny * cf - nx * sf
        gmin = min(gmin, slack)
        es[k, _SLACK], es[k, _NLX], es[k, _NLY] = slack, nlx, nly
        es[k, _KEEP] = 0.0
        es[k, _FOK] = 0.0
        # the span, swept counter-clockwise from a to b
        k1 = k + 1 if k + 1 < cnt else 0
        x0, y0, x1, y1 = es[k, _X], es[k, _Y], es[k1, _X], es[k1, _Y]
        cross = x0 * y1 - y0 * x1
        if cross > 0.0:
            xa, ya, xb, yb = x0, y0, x1, y1
        elif cross < 0.0:
            xa, ya, xb, yb = x1, y1, x0, y0
        else:
            continue  # the attacker is on the edge's line: the span is a single direction
        # ends of the span inside the window: a window edge, or a vertex inside the window
        if _span_end(xa, ya, xb, yb, ca, -sa):
            lo, c_lo = -al, nlx * ca - nly * sa
        elif xa > 0.0 and abs(ya) * ca <= xa * sa:
            lo, c_lo = math.atan2(ya, xa), (nlx * xa + nly * ya) / math.sqrt(xa * xa + ya * ya)
        else:
            continue
        if _span_end(xa, ya, xb, yb, ca, sa):
            hi, c_hi = al, nlx * ca + nly * sa
        elif xb > 0.0 and abs(yb) * ca <= xb * sa:
            hi, c_hi = math.atan2(yb, xb), (nlx * xb + nly * yb) / math.sqrt(xb * xb + yb * yb)
        else:
            continue
        if not hi > lo:
            continue
        mid = 0.5 * (lo + hi)
        nang = edge[j, 5] - phi
        es[k, _KEEP] = 1.0
        es[k, _LO], es[k, _HI], es[k, _MID], es[k, _NANG] = lo, hi, mid, nang
        es[k, _CLO], es[k, _CHI] = c_lo, c_hi
        if slack < -_ON_EDGE:
            # entry edge: the part of its span where the entry (at d = slack / n·dir) is within D
            if slack > dist * c_lo and slack > dist * c_hi:
                f_lo, f_hi = lo, hi
            else:
                kf = -slack / dist
                if not kf < 1.0:
                    continue
                psi = mid + _wrap(nang + _PI - mid)
                acf = math.acos(max(-1.0, kf))
                f_lo, f_hi = max(lo, psi - acf), min(hi, psi + acf)
            if f_hi > f_lo:
                es[k, _FLO], es[k, _FHI], es[k, _FOK] = f_lo, f_hi, 1.0
                ip_lo, ip_hi = min(ip_lo, f_lo), max(ip_hi, f_hi)
    if not near or gmin < -_ON_EDGE:
        return ip_lo, ip_hi, False
    if gmin > _ON_EDGE:
        return -al, al, True
    # on the boundary (rare): the directions pointing into every edge it lies on
    ref = 0.0
    c_lo, c_hi = -math.inf, math.inf
    first = True
    for k in range(cnt):
        if abs(es[k, _SLACK]) > _ON_EDGE:
            continue
        psi = math.atan2(-es[k, _NLY], -es[k, _NLX])
        if first:
            ref = psi
            first = False
        d = psi - ref
        psi = ref + (d - _TWO_PI * np.rint(d * _INV_TWO_PI))
        c_lo, c_hi = max(c_lo, psi - 0.5 * _PI), min(c_hi, psi + 0.5 * _PI)
    c_mid = 0.5 * (c_lo + c_hi)
    c_mid = c_mid - _TWO_PI * np.rint(c_mid * _INV_TWO_PI)
    c_half = 0.5 * (c_hi - c_lo)
    return max(-al, c_mid - c_half), min(al, c_mid + c_half), True


@inline
def _add(
    seg: FloatArray,
    n: int,
    lo: float,
    hi: float,
    c0: float,
    c1: float,
    c2: float,
    zmin: float,
    zmax: float,
    o: int,
) -> int:
    if hi > lo:
        seg[n, LO], seg[n, HI], seg[n, C0], seg[n, C1], seg[n, C2] = lo, hi, c0, c1, c2
        seg[n, ZMIN], seg[n, ZMAX], seg[n, OBS] = zmin, zmax, o
        return n + 1
    return n


@helper
def _piece_segments(
    es: FloatArray,
    cnt: int,
    ip_lo: float,
    ip_hi: float,
    enclosing: bool,
    h: float,
    eye: float,
    dist: float,
    o: int,
    seg: FloatArray,
    n: int,
) -> int:
    """Append one piece's hidden-height segments (step 3 of the module docstring)."""
    part = ip_hi - ip_lo > ANGLE_TOL
    if h > eye:
        # entry edges; z ≥ h on them since d ≤ D
        for k in range(cnt):
            if es[k, _FOK] != 0.0:
                scale = (h - eye) * dist / es[k, _SLACK]
                n = _add(
                    seg,
                    n,
                    es[k, _FLO],
                    es[k, _FHI],
                    eye,
                    scale * es[k, _NLX],
                    scale * es[k, _NLY],
                    h,
                    math.inf,
                    o,
                )
        if enclosing and part:
            n = _add(seg, n, ip_lo, ip_hi, math.inf, 0.0, 0.0, math.inf, math.inf, o)
        return n
    if not part:
        return n
    # exit edges on the rays entering before D; the constant h where the piece reaches past D
    for k in range(cnt):
        if es[k, _KEEP] == 0.0 or not es[k, _SLACK] > _ON_EDGE:
            continue
        slack = es[k, _SLACK]
        b_lo, b_hi = max(es[k, _LO], ip_lo), min(es[k, _HI], ip_hi)
        if not b_hi > b_lo:
            continue
        scale = (h - eye) * dist / slack
        c1, c2 = scale * es[k, _NLX], scale * es[k, _NLY]
        c_lo, c_hi = es[k, _CLO], es[k, _CHI]
        if slack < dist * c_lo and slack < dist * c_hi:
            # the exit (at d = slack / n·dir) is within D at both ends, so all along the span;
            # z = e + scale·n·dir is highest where n·dir is least: at an end of the span
            n = _add(seg, n, b_lo, b_hi, eye, c1, c2, -math.inf, eye + scale * min(c_lo, c_hi), o)
            continue
        kb = slack / dist
        mid = es[k, _MID]
        psi_b = mid + _wrap(es[k, _NANG] - mid)
        if kb < 1.0:
            acb = math.acos(kb)
            in_lo, in_hi = psi_b - acb, psi_b + acb
        else:
            in_lo = in_hi = math.inf
        n = _add(seg, n, b_lo, min(b_hi, in_lo), h, 0.0, 0.0, h, h, o)
        m_lo, m_hi = max(b_lo, in_lo), min(b_hi, in_hi)
        if m_hi > m_lo:
            # z is highest where the exit is nearest: at an end of the range
            z_top = eye + scale * min(math.cos(m_lo - psi_b), math.cos(m_hi - psi_b))
            n = _add(seg, n, m_lo, m_hi, eye, c1, c2, -math.inf, z_top, o)
        r_lo = max(b_lo, in_hi) if kb < 1.0 else b_hi
        n = _add(seg, n, r_lo, b_hi, h, 0.0, 0.0, h, h, o)
    return n


@inline
def _point_near_piece(edge: FloatArray, vs: int, cnt: int, px: float, py: float, reach: float) -> bool:
    """Is the convex piece within ``reach`` of point P (P inside counts)?"""
    outside = -math.inf
    best = math.inf
    for k in range(cnt):
        j = vs + k
        jn = vs + (k + 1 if k + 1 < cnt else 0)
        outside = max(outside, edge[j, 2] * px + edge[j, 3] * py - edge[j, 4])
        x1, y1 = edge[j, 0], edge[j, 1]
        ex, ey = edge[jn, 0] - x1, edge[jn, 1] - y1
        t = min(1.0, max(0.0, ((px - x1) * ex + (py - y1) * ey) / (ex * ex + ey * ey)))
        qx, qy = px - x1 - t * ex, py - y1 - t * ey
        best = min(best, math.sqrt(qx * qx + qy * qy))
    return outside <= 0.0 or best <= reach


# ---------------------------------------------------------------------------- cover
@inline
def _blocks(
    edge: FloatArray,
    piece_i: IntArray,
    piece_f: FloatArray,
    q: int,
    ax: float,
    ay: float,
    eye: float,
    top: float,
    cf: float,
    sf: float,
    sa: float,
    ca: float,
    dist: float,
) -> bool:
    """Does piece ``q`` alone hide the whole silhouette (step 2 of the module docstring)?

    It must be taller than the eye and the target, the attacker outside its bounding circle,
    and both window edges must pass through it before ``D``.
    """
    h = piece_f[q, 3]
    if not (h > eye and h >= top):
        return False
    pcx, pcy, rho = piece_f[q, 0] - ax, piece_f[q, 1] - ay, piece_f[q, 2]
    # both edge rays cross the piece only if the centre ray does (convexity): a cheap test first
    along = pcx * cf + pcy * sf
    if abs(pcx * sf - pcy * cf) > rho or along < -rho or along - rho >= dist:
        return False
    dc = math.sqrt(pcx * pcx + pcy * pcy)
    if dc <= rho or dc - rho >= dist:
        return False
    vs, cnt = piece_i[q, 0], piece_i[q, 1]
    return _enters_before(
        edge, vs, cnt, ax, ay, ca * cf + sa * sf, ca * sf - sa * cf, dist
    ) and _enters_before(edge, vs, cnt, ax, ay, ca * cf - sa * sf, ca * sf + sa * cf, dist)


@helper
def _remember(memory: IntArray, row: int, q: int) -> None:
    """Put blocker ``q`` first in a row of recent blockers (most recent first)."""
    width = memory.shape[1]
    last = width - 1
    for i in range(width):
        if memory[row, i] == q:
            last = i
            break
    for i in range(last, 0, -1):
        memory[row, i] = memory[row, i - 1]
    memory[row, 0] = q


@helper
def _near_obstacles(
    edge: FloatArray,
    piece_i: IntArray,
    grid_f: FloatArray,
    grid_i: IntArray,
    grid_ptr: IntArray,
    grid_item: IntArray,
    tx: float,
    ty: float,
    reach: float,
    ostamp: IntArray,
    stamp: int,
    out: IntArray,
    row: int,
) -> int:
    """Obstacles with a piece within ``reach`` of (tx, ty), into ``out[row]``; their count (-2: too many).

    ``ostamp`` marks obstacles already listed under ``stamp``.
    """
    x0, y0, cell = grid_f[0], grid_f[1], grid_f[2]
    c0 = max(math.floor((tx - reach - x0) / cell), 0)
    c1 = min(math.floor((tx + reach - x0) / cell), grid_i[0] - 1)
    r0 = max(math.floor((ty - reach - y0) / cell), 0)
    r1 = min(math.floor((ty + reach - y0) / cell), grid_i[1] - 1)
    cap = out.shape[1]
    n = 0
    for i in range(c0, c1 + 1):
        for j in range(r0, r1 + 1):
            c = i * grid_i[1] + j
            for e in range(grid_ptr[c], grid_ptr[c + 1]):
                q = grid_item[e]
                o = piece_i[q, 2]
                if ostamp[o] != stamp and _point_near_piece(
                    edge, piece_i[q, 0], piece_i[q, 1], tx, ty, reach
                ):
                    ostamp[o] = stamp
                    if n == cap:
                        return -2
                    out[row, n] = o
                    n += 1
    return n


@inline
def _screened(
    edge: FloatArray,
    piece_i: IntArray,
    piece_f: FloatArray,
    obstacle_size: FloatArray,
    obstacle_i: IntArray,
    obstacle_pieces: IntArray,
    listed: IntArray,
    row: int,
    n_near: int,
    size: float,
    ax: float,
    ay: float,
    cf: float,
    sf: float,
    sa: float,
    ca: float,
    al: float,
    phi: float,
    dist: float,
    es: FloatArray,
) -> bool:
    """Hidden rule: does one of the obstacles near the target (``listed[row, :n_near]``) of size
    ≥ ``size`` take part in the cover (rays through a piece's interior within ``D`` spanning more
    than ``ANGLE_TOL``)?"""
    for i in range(n_near):
        o = listed[row, i]
        if obstacle_size[o] < size:
            continue
        for pi in range(obstacle_i[o, 0], obstacle_i[o, 0] + obstacle_i[o, 1]):
            q = obstacle_pieces[pi]
            kind = _candidate(piece_f, q, ax, ay, cf, sf, sa, ca, dist)
            if kind == 0:
                continue
            ip_lo, ip_hi, _ = _piece_frame(
                edge, piece_i[q, 0], piece_i[q, 1], kind == 2, ax, ay, cf, sf, sa, ca, al, phi, dist, es
            )
            if ip_hi - ip_lo > ANGLE_TOL:
                return True
    return False


@helper
def _pair_area(
    edge: FloatArray,
    piece_i: IntArray,
    piece_f: FloatArray,
    cand: IntArray,
    cand_near: BoolArray,
    nc: int,
    ax: float,
    ay: float,
    eye: float,
    cf: float,
    sf: float,
    sa: float,
    ca: float,
    al: float,
    phi: float,
    dist: float,
    top: float,
    owners: bool,
    shares: FloatArray,
) -> float:
    """Narrow phase and envelope of one pair over its candidate pieces: the hidden area."""
    need = 1
    max_cnt = 1
    for ci in range(nc):
        cnt = piece_i[cand[ci], 1]
        need += 3 * cnt + 1
        max_cnt = max(max_cnt, cnt)
    es_owner = np.empty((max_cnt, _EDGE_COLS))
    seg_owner = np.empty((need, SEG_COLS))
    es, seg = borrowed(es_owner), borrowed(seg_owner)
    n_seg = int(0)  # noqa: RUF046, UP018 (a literal 0 would have numba compile the callees twice)
    for ci in range(nc):
        q = cand[ci]
        cnt = piece_i[q, 1]
        ip_lo, ip_hi, enclosing = _piece_frame(
            edge, piece_i[q, 0], cnt, cand_near[ci], ax, ay, cf, sf, sa, ca, al, phi, dist, es
        )
        n_seg = _piece_segments(
            es, cnt, ip_lo, ip_hi, enclosing, piece_f[q, 3], eye, dist, piece_i[q, 2], seg, n_seg
        )
    area = 0.0
    if n_seg:
        denom = 2.0 * al * top
        area = envelope_area(seg, n_seg, top, al, owners, shares, 1.0 / denom)
    keep_alive((es_owner, seg_owner))
    return area


@kernel(types.Tuple((OUT_F1, OUT_B1, OUT_F1))(*_SCENE, F2, F1, I1, F2, F1, F1, F1, I1, B1, types.int64))
def cover_pairs(
    edge: FloatArray,
    piece_i: IntArray,
    piece_f: FloatArray,
    obstacle_size: FloatArray,
    obstacle_i: IntArray,
    obstacle_pieces: IntArray,
    grid_f: FloatArray,
    grid_i: IntArray,
    grid_ptr: IntArray,
    grid_item: IntArray,
    src_xy: FloatArray,
    src_eye: FloatArray,
    pair_src: IntArray,
    tgt_xy: FloatArray,
    tgt_r: FloatArray,
    tgt_h: FloatArray,
    tgt_size: FloatArray,
    pair_tgt: IntArray,
    screen_mask: BoolArray,
    mode: int,
) -> tuple[FloatArray, BoolArray, FloatArray]:
    """Exact cover fractions (snapped) and obstacle screens of many pairs.

    Args:
        edge … grid_item: the :class:`Scene` arrays.
        src_xy, src_eye: (s, 2) attacker centres and (s,) eye heights.
        pair_src: (p,) attacker of each pair (a row of ``src_xy``).
        tgt_xy: (m, 2) target centres.
        tgt_r, tgt_h: (m,) target base radii (> 0) and silhouette heights.
        tgt_size: (m,) target sizes (read with :data:`SCREENS`).
        pair_tgt: (p,) target of each pair (a row of ``tgt_xy``).
        screen_mask: (p,) pairs whose screen is wanted even without cover (with
            :data:`SCREENS`; pairs with a fraction ≥ 0.10 are always checked).
        mode: :data:`SCREENS` | :data:`OWNERS` bits.

    Returns:
        ``(fraction, obstacle_screen, shares)``; ``shares`` (with :data:`OWNERS`, for one
        pair) is each obstacle's share of the silhouette, else empty.
    """
    edge, piece_i, piece_f = borrowed(edge), borrowed(piece_i), borrowed(piece_f)
    obstacle_size, obstacle_i = borrowed(obstacle_size), borrowed(obstacle_i)
    obstacle_pieces, grid_f, grid_i = borrowed(obstacle_pieces), borrowed(grid_f), borrowed(grid_i)
    grid_ptr, grid_item = borrowed(grid_ptr), borrowed(grid_item)
    src_xy, src_eye, pair_src = borrowed(src_xy), borrowed(src_eye), borrowed(pair_src)
    tgt_xy, tgt_r, tgt_h = borrowed(tgt_xy), borrowed(tgt_r), borrowed(tgt_h)
    tgt_size, pair_tgt, screen_mask = borrowed(tgt_size), borrowed(pair_tgt), borrowed(screen_mask)
    n_pairs = pair_src.size
    n_p = piece_i.shape[0]
    n_o = obstacle_size.size
    n_src = src_xy.shape[0]
    n_tgt = tgt_xy.shape[0]
    if not (_rows_in_range(pair_src, n_src) and _rows_in_range(pair_tgt, n_tgt)):
        raise IndexError("attacker or target row out of range")
    owners = (mode & OWNERS) != 0
    frac = np.zeros(n_pairs)
    screen = np.zeros(n_pairs, dtype=np.bool_)
    shares = np.zeros(n_o if owners else 0)
    if n_p == 0 or n_pairs == 0:
        return frac, screen, shares
    max_cnt = 1
    for q in range(n_p):
        max_cnt = max(max_cnt, piece_i[q, 1])
    # scratch (the owners stay alive to the end; the loops use borrowed views)
    es_owner = np.empty((max_cnt, _EDGE_COLS))
    cand_owner = np.empty(n_p, dtype=np.int64)
    near_owner = np.empty(n_p, dtype=np.bool_)
    pstamp_owner = np.full(n_p, -1, dtype=np.int64)
    ostamp_owner = np.full(n_o, -1, dtype=np.int64)
    # recent blockers per attacker and per target: a blocker near one end hides many lines
    src_mem_owner = np.full((n_src, _MEMORY), -1, dtype=np.int64)
    tgt_mem_owner = np.full((n_tgt, _MEMORY), -1, dtype=np.int64)
    # obstacles near each target (hidden rule), listed once per target (count -1: not yet,
    # -2: too many for the table, listed per pair)
    near_n_owner = np.full(n_tgt, -1, dtype=np.int64)
    near_obs_owner = np.empty((n_tgt, _NEAR), dtype=np.int64)
    near_tmp_owner = np.empty((1, max(n_o, 1)), dtype=np.int64)
    es, cand, cand_near = borrowed(es_owner), borrowed(cand_owner), borrowed(near_owner)
    pstamp, ostamp = borrowed(pstamp_owner), borrowed(ostamp_owner)
    src_memory, tgt_memory = borrowed(src_mem_owner), borrowed(tgt_mem_owner)
    near_n, near_obs, near_tmp = borrowed(near_n_owner), borrowed(near_obs_owner), borrowed(near_tmp_owner)
    for k in range(n_pairs):
        s, g = pair_src[k], pair_tgt[k]
        ax, ay, eye = src_xy[s, 0], src_xy[s, 1], src_eye[s]
        tx, ty, top = tgt_xy[g, 0], tgt_xy[g, 1], tgt_h[g]
        dxp, dyp = tx - ax, ty - ay
        dist = math.sqrt(dxp * dxp + dyp * dyp)
        if not dist > 0.0:
            continue  # an attacker on the target's centre sees it without cover
        cf, sf = dxp / dist, dyp / dist
        phi = math.atan2(dyp, dxp)
        sa = min(1.0, tgt_r[g] / dist)
        al = math.asin(sa)
        ca = math.sqrt(1.0 - sa * sa)
        f = 0.0
        if top > 0.0:
            blocked = False
            if not owners:
                for i in range(2 * _MEMORY):
                    q = src_memory[s, i] if i < _MEMORY else tgt_memory[g, i - _MEMORY]
                    if q >= 0 and _blocks(edge, piece_i, piece_f, q, ax, ay, eye, top, cf, sf, sa, ca, dist):
                        blocked = True
                        break
            # ---- broad phase along the capsule, from the attacker's end
            nc = int(0)  # noqa: RUF046, UP018 (a literal 0 would have numba compile the callees twice)
            if not blocked:
                # cells column by column from A's end, rows from A's side (nearest first)
                w = tgt_r[g] * (1.0 + _CULL_MARGIN)
                col0, col1 = _capsule_columns(grid_f, grid_i, ax, tx, w)
                n_rows = grid_i[1]
                for step in range(col1 - col0 + 1):
                    col = col0 + step if tx >= ax else col1 - step
                    row0, row1 = _capsule_rows(grid_f, grid_i, col, ax, ay, tx, ty, w)
                    for rstep in range(row1 - row0 + 1):
                        c = col * n_rows + (row0 + rstep if ty >= ay else row1 - rstep)
                        for e in range(grid_ptr[c], grid_ptr[c + 1]):
                            q = grid_item[e]
                            if pstamp[q] == k:
                                continue
                            pstamp[q] = k
                            kind = _candidate(piece_f, q, ax, ay, cf, sf, sa, ca, dist)
                            if kind == 0:
                                continue
                            cand[nc] = q
                            cand_near[nc] = kind == 2
                            nc += 1
                            if not owners and _blocks(
                                edge, piece_i, piece_f, q, ax, ay, eye, top, cf, sf, sa, ca, dist
                            ):
                                blocked = True
                                _remember(src_memory, s, q)
                                _remember(tgt_memory, g, q)
                                break
                        if blocked:
                            break
                    if blocked:
                        break
            if blocked:
                f = 1.0
            elif nc:
                area = _pair_area(
                    edge,
                    piece_i,
                    piece_f,
                    cand,
                    cand_near,
                    nc,
                    ax,
                    ay,
                    eye,
                    cf,
                    sf,
                    sa,
                    ca,
                    al,
                    phi,
                    dist,
                    top,
                    owners,
                    shares,
                )
                f = area / (2.0 * al * top)
        f = _snap(f)
        frac[k] = f
        if (mode & SCREENS) == 0 or not (f >= LIGHT_FROM or screen_mask[k]):
            continue
        # ---- obstacle screen: an obstacle near the target, big enough, taking part
        reach = tgt_r[g] + HIDDEN_GAP + TOUCH_TOL
        if near_n[g] == -1:
            near_n[g] = _near_obstacles(
                edge, piece_i, grid_f, grid_i, grid_ptr, grid_item, tx, ty, reach, ostamp, g, near_obs, g
            )
        if near_n[g] >= 0:
            listed, row, n_near = near_obs, g, near_n[g]
        else:  # more than _NEAR obstacles: list them for this pair
            listed, row = near_tmp, int(0)  # noqa: RUF046, UP018 (not a literal, as above)
            n_near = _near_obstacles(
                edge,
                piece_i,
                grid_f,
                grid_i,
                grid_ptr,
                grid_item,
                tx,
                ty,
                reach,
                ostamp,
                n_tgt + k,
                near_tmp,
                row,
            )
        screen[k] = _screened(
            edge,
            piece_i,
            piece_f,
            obstacle_size,
            obstacle_i,
            obstacle_pieces,
            listed,
            row,
            n_near,
            tgt_size[g],
            ax,
            ay,
            cf,
            sf,
            sa,
            ca,
            al,
            phi,
            dist,
            es,
        )
    keep_alive((es_owner, cand_owner, near_owner, pstamp_owner, ostamp_owner, src_mem_owner, tgt_mem_owner))
    keep_alive((near_n_owner, near_obs_owner, near_tmp_owner))
    return frac, screen, shares


# ---------------------------------------------------------------------------- units
@inline
def _corridor(ax: float, ay: float, tx: float, ty: float, rr: float) -> tuple[float, ...]:
    """What :func:`_corridor_hit` computes from the pair alone (for :func:`_corridor_meets`)."""
    fx, fy = tx - ax, ty - ay
    ll = fx * fx + fy * fy
    d = math.sqrt(ll)
    safe = d if d > 0.0 else 1.0
    inv = 1.0 / safe
    sin_a = min(1.0, rr / safe)
    cos_a = math.sqrt(1.0 - sin_a * sin_a)
    length = math.sqrt(max(d * d - rr * rr, 0.0))
    return fx, fy, ll, d, fx * inv, fy * inv, sin_a, cos_a, length, length * cos_a, length * sin_a


@inline
def _corridor_meets(
    ax: float, ay: float, rr: float, pre: tuple[float, ...], ux: float, uy: float, ru: float
) -> bool:
    """:func:`_corridor_hit` for the pair whose :func:`_corridor` is ``pre``: the same operations
    on the same numbers, so the same answer, with the pair's part done once for all its units."""
    fx, fy, ll, d, vx, vy, sin_a, cos_a, length, qx, qy = pre
    px, py = ux - ax, uy - ay
    lim = (rr + ru) * (1.0 + _CULL_MARGIN) + 1e-12
    cross = fx * py - fy * px
    if cross * cross > lim * lim * ll:
        return False  # farther than rr + ru from the line A→T (most units: no division)
    t = min(1.0, max(0.0, (px * fx + py * fy) / ll)) if ll > 0.0 else 0.0
    gx, gy = px - t * fx, py - t * fy
    if gx * gx + gy * gy > lim * lim:
        return False
    xs = px * vx + py * vy
    ys = abs(py * vx - px * vy)
    d_t = math.sqrt((xs - d) * (xs - d) + ys * ys)
    if d <= rr:
        gap = d_t - rr
    else:
        tt = min(1.0, max(0.0, (xs * qx + ys * qy) / max(qx * qx + qy * qy, 1e-300)))
        sx_, sy_ = xs - tt * qx, ys - tt * qy
        gap = min(math.sqrt(sx_ * sx_ + sy_ * sy_), d_t - rr)
        if ys * cos_a <= xs * sin_a and xs <= length * cos_a:
            gap = 0.0
    if d_t <= rr:
        gap = 0.0
    return gap < ru - TOUCH_TOL


@inline
def _corridor_hit(
    ax: float, ay: float, tx: float, ty: float, rr: float, ux: float, uy: float, ru: float
) -> bool:
    """Does the disc (U, ru) overlap the corridor (hull of A and the disc (T, rr)) with positive area?

    The oracle's exact corridor distance, after a capsule test (the corridor lies within
    ``rr`` of the segment A→T).
    """
    return _corridor_meets(ax, ay, rr, _corridor(ax, ay, tx, ty, rr), ux, uy, ru)


#: Below this many units :func:`intervening_rows` scans every unit (the grid would not pay).
_UNIT_GRID_FROM = 48


@helper
def _window_grid(
    xy: FloatArray, window: FloatArray, use: bool
) -> tuple[FloatArray, IntArray, IntArray, IntArray, IntArray]:
    """A uniform grid over ``window`` (x0, y0, x1, y1) of the units inside it, and the rows outside.

    Like :func:`_unit_grid` (about one unit per cell, each cell's rows ascending), but units
    outside the window (e.g. removed from the table, parked far away; or not finite) do not
    stretch it: they are returned apart, for callers to test always. ``use`` False: an empty
    one-cell grid and every row outside.
    """
    n = xy.shape[0]
    x0, y0 = window[0], window[1]
    w, h = max(window[2] - x0, 1e-6), max(window[3] - y0, 1e-6)
    inside = np.zeros(n, dtype=np.bool_)
    n_in = 0
    if use:
        for u in range(n):
            x, y = xy[u, 0], xy[u, 1]
            if x0 <= x <= x0 + w and y0 <= y <= y0 + h:
                inside[u] = True
                n_in += 1
    cell = max(math.sqrt(w * h / max(n_in, 1)), w / (2.0 * n_in + 4.0), h / (2.0 * n_in + 4.0), 1e-6)
    nx, ny = int(w / cell) + 1, int(h / cell) + 1
    grid_f = np.array([x0, y0, cell])
    grid_i = np.array([nx, ny], dtype=np.int64)
    cell_of = np.empty(n, dtype=np.int64)
    ptr = np.zeros(nx * ny + 1, dtype=np.int64)
    outside = np.empty(n - n_in, dtype=np.int64)
    n_out = 0
    for u in range(n):
        if inside[u]:
            i = min(int((xy[u, 0] - x0) / cell), nx - 1)
            j = min(int((xy[u, 1] - y0) / cell), ny - 1)
            cell_of[u] = i * ny + j
            ptr[cell_of[u] + 1] += 1
        else:
            outside[n_out] = u
            n_out += 1
    for c in range(nx * ny):
        ptr[c + 1] += ptr[c]
    fill = ptr[:-1].copy()
    item = np.empty(n_in, dtype=np.int64)
    for u in range(n):
        if inside[u]:
            item[fill[cell_of[u]]] = u
            fill[cell_of[u]] += 1
    return grid_f, grid_i, ptr, item, outside


#: From this many consecutive pairs of one attacker, :func:`intervening_rows` sorts the units
#: around that attacker once (:func:`_fan`) instead of visiting grid cells pair by pair.
_FAN_FROM = 24
#: Angular buckets of a fan.
_FAN_BUCKETS = 256
#: Angular margin (radians) of a fan's buckets: far above atan2/asin rounding.
_FAN_MARGIN = 1e-7


@helper
def _fan(
    xy: FloatArray,
    base: FloatArray,
    ax: float,
    ay: float,
    reach: float,
    dist: FloatArray,
    bearing: FloatArray,
    fan_ptr: IntArray,
) -> IntArray:
    """The units around attacker A = (``ax``, ``ay``) by direction: a CSR over angular buckets.

    ``dist`` gets each unit's distance from A (the ranking's ``math.hypot``), ``bearing`` its
    bearing (the ``atan2`` that :func:`_fan_bucket` takes of a target). Each unit is
    listed in every bucket of bearings from A within ``asin(reach_u / d)`` of its own bearing
    (``reach_u`` = its base + ``reach``; all buckets if ``d`` ≤ ``reach_u``), nearest first, equal
    distances by row. A unit passing :func:`_corridor_hit`'s capsule test for a target T (base
    ≤ ``reach``) lies within that angle of T's bearing (its projection on A→T is positive and
    its distance from the line below base + target base), so it is listed in T's bucket
    (:func:`_fan_bucket`): the bucket, read in order up to distance ``|AT|`` + both bases, is a
    superset of the pair's intervening units already ranked.
    """
    n = base.size
    nb = _FAN_BUCKETS
    width = _TWO_PI / nb
    for u in range(n):
        dist[u] = math.hypot(xy[u, 0] - ax, xy[u, 1] - ay)
    order = np.argsort(dist[:n], kind="mergesort")  # stable: equal distances stay in row order
    lo_b = np.empty(n, dtype=np.int64)
    hi_b = np.empty(n, dtype=np.int64)
    for c in range(nb + 1):
        fan_ptr[c] = 0
    for u in range(n):
        d = dist[u]
        lim = (base[u] + reach) * (1.0 + 1e-6) + 1e-6
        th = bearing[u] = math.atan2(xy[u, 1] - ay, xy[u, 0] - ax)
        if not d > lim:
            lo_b[u], hi_b[u] = 0, nb - 1
        else:
            half = math.asin(lim / d) + _FAN_MARGIN
            lo = math.floor((th - half + _PI) / width)
            hi = math.floor((th + half + _PI) / width)
            if hi - lo + 1 >= nb:
                lo, hi = 0, nb - 1
            lo_b[u], hi_b[u] = lo, hi
        for b in range(lo_b[u], hi_b[u] + 1):
            fan_ptr[(b % nb) + 1] += 1
    for c in range(nb):
        fan_ptr[c + 1] += fan_ptr[c]
    fill = fan_ptr[:nb].copy()
    item = np.empty(fan_ptr[nb], dtype=np.int64)
    for j in range(n):
        u = order[j]
        for b in range(lo_b[u], hi_b[u] + 1):
            c = b % nb
            item[fill[c]] = u
            fill[c] += 1
    return item


@inline
def _fan_bucket(bearing: float) -> int:
    """The bucket of :func:`_fan` holding a bearing from A (``atan2``, radians)."""
    width = _TWO_PI / _FAN_BUCKETS
    return math.floor((bearing + _PI) / width) % _FAN_BUCKETS


@inline
def _rank(rows: IntArray, dist: FloatArray, lo: int, m: int, u: int, du: float) -> None:
    """Insert row ``u`` at distance ``du`` into the ranked ``rows[lo:lo + m]`` (distances in
    ``dist[lo:lo + m]``): nearest first, equal distances by row, as a full ranking orders them."""
    j = lo + m
    while j > lo and (dist[j - 1] > du or (dist[j - 1] == du and rows[j - 1] > u)):
        dist[j] = dist[j - 1]
        rows[j] = rows[j - 1]
        j -= 1
    dist[j] = du
    rows[j] = u


@kernel(OUT_F1(F2, I1, I1, I1))
def intervening_distances(xy: FloatArray, a: IntArray, ptr: IntArray, rows: IntArray) -> FloatArray:
    """Per entry of the CSR (``ptr``, ``rows``) of pairs with attackers ``a``: the distance of its
    unit from the pair's attacker (the ranking's ``math.hypot``), for :func:`intervening_update`."""
    if not (_rows_in_range(a, xy.shape[0]) and _rows_in_range(rows, xy.shape[0])):
        raise IndexError("attacker or unit row out of range")
    out = np.empty(rows.size)
    for k in range(a.size):
        ax, ay = xy[a[k], 0], xy[a[k], 1]
        for e in range(ptr[k], ptr[k + 1]):
            u = rows[e]
            out[e] = math.hypot(xy[u, 0] - ax, xy[u, 1] - ay)
    return out


@helper
def _compact(
    start: IntArray, count: IntArray, pool: IntArray, pool_dist: FloatArray, cap: int
) -> tuple[IntArray, FloatArray]:
    """A fresh pool of ``cap`` entries holding every pair's list, in pair order (``start`` updated)."""
    new_pool = np.empty(cap, dtype=np.int64)
    new_dist = np.empty(cap)
    end = 0
    for k in range(start.size):
        lo = start[k]
        for e in range(count[k]):
            new_pool[end + e] = pool[lo + e]
            new_dist[end + e] = pool_dist[lo + e]
        start[k] = end
        end += count[k]
    return new_pool, new_dist


@kernel(types.Tuple((OUT_I1, OUT_F1, OUT_B1))(F2, F2, F1, B1, I1, OUT_I1, OUT_I1, OUT_I1, OUT_F1, OUT_I1, F1))
def intervening_update(
    xy: FloatArray,
    old_xy: FloatArray,
    base: FloatArray,
    moved: BoolArray,
    moved_rows: IntArray,
    start: IntArray,
    count: IntArray,
    pool: IntArray,
    pool_dist: FloatArray,
    state: IntArray,
    window: FloatArray,
) -> tuple[IntArray, FloatArray, BoolArray]:
    """The intervening units of every ordered pair (attacker-major, as
    :meth:`game.geometry.cache.SightCache.pair_index` numbers them) after units moved from
    ``old_xy`` to ``xy``, updated in place of those before.

    The lists live in a pool: pair ``k``'s units are ``pool[start[k]:start[k] + count[k]]``,
    ranked, with each one's distance from the attacker at the same places of ``pool_dist``;
    ``state`` is (end of the used pool, entries in lists). A changed pair's new list is written
    at the end of the pool, so a move rewrites only the lists it changes; when the pool is full
    the lists are compacted into a larger one (then returned instead of ``pool``).

    A pair with a moved end (``moved``) has a new corridor: its units are searched afresh, from
    :data:`_UNIT_GRID_FROM` units on only among those a broad phase puts near the corridor's
    capsule (the moved attacker's :func:`_fan` for its own pairs, else a unit grid over
    ``window`` (x0, y0, x1, y1, e.g. the map) plus any unit outside the window). Any other pair
    only retests the moved units (``moved_rows``) at their old and new places (the capsule test
    rejects most of them in a few operations, and the old lists were made by the same test): it
    *changed* if one of them intervenes before or after, and then its list is the old one
    without the moved units (distances kept), with those that intervene now ranked in.

    Returns:
        ``(pool, pool_dist, changed)``: the pool (the same arrays unless compacted) and the
        pairs whose intervening units changed. The lists equal :func:`intervening_rows` on the
        new positions.
    """
    xy, old_xy, base = borrowed(xy), borrowed(old_xy), borrowed(base)
    moved, moved_rows = borrowed(moved), borrowed(moved_rows)
    n = base.size
    n_pairs = n * (n - 1)
    if not _rows_in_range(moved_rows, n):
        raise IndexError("moved row out of range")
    if old_xy.shape[0] != n or xy.shape[0] != n or moved.size != n:
        raise ValueError("positions or moved mask do not match the units")
    if start.size != n_pairs or count.size != n_pairs or pool_dist.size != pool.size or state.size != 2:
        raise ValueError("pool arrays do not match the pairs")
    use_grid = n >= _UNIT_GRID_FROM
    max_base = 0.0
    for u in range(n):
        if not math.isfinite(base[u]):
            use_grid = False
        else:
            max_base = max(max_base, base[u])
    # 1. which pairs change: a moved end (2), a moved unit in the corridor before or now (1);
    # the others (0) keep their list
    status = np.zeros(n_pairs, dtype=np.int8)
    need = 0  # room the new lists may take
    k = 0
    for ak in range(n):
        ax, ay = xy[ak, 0], xy[ak, 1]
        for tk in range(n):
            if tk == ak:
                continue
            if moved[ak] or moved[tk]:
                status[k] = 2
                need += n
                k += 1
                continue
            tx, ty, rr = xy[tk, 0], xy[tk, 1], base[tk]
            fx, fy = tx - ax, ty - ay
            ll = fx * fx + fy * fy
            for j in range(moved_rows.size):
                u = moved_rows[j]
                # the corridor test's first rejection at both places, without branching on each
                lim = (rr + base[u]) * (1.0 + _CULL_MARGIN) + 1e-12
                bound = lim * lim * ll
                c_new = fx * (xy[u, 1] - ay) - fy * (xy[u, 0] - ax)
                c_old = fx * (old_xy[u, 1] - ay) - fy * (old_xy[u, 0] - ax)
                if (c_new * c_new > bound) & (c_old * c_old > bound):
                    continue
                if _corridor_hit(ax, ay, tx, ty, rr, xy[u, 0], xy[u, 1], base[u]) or _corridor_hit(
                    ax, ay, tx, ty, rr, old_xy[u, 0], old_xy[u, 1], base[u]
                ):
                    status[k] = 1
                    need += count[k] + moved_rows.size
                    break
            k += 1
    end, live = state[0], state[1]
    if end + need > pool.size:
        pool, pool_dist = _compact(start, count, pool, pool_dist, 2 * (live + need) + 64)
        end = live
    pool_b, dist_b = borrowed(pool), borrowed(pool_dist)
    # 2. the changed pairs' new lists, at the end of the pool
    grid_f, grid_i, grid_ptr, grid_item, outside = _window_grid(xy, window, use_grid)
    fan_dist = np.empty(max(n, 1))
    fan_bearing = np.empty(max(n, 1))
    fan_ptr = np.zeros(_FAN_BUCKETS + 1, dtype=np.int64)
    fan_item = np.empty(0, dtype=np.int64)
    changed = np.zeros(n_pairs, dtype=np.bool_)
    finite_all = True
    for u in range(n):
        finite_all &= math.isfinite(xy[u, 0]) and math.isfinite(xy[u, 1])
    k = 0
    for ak in range(n):
        ax, ay = xy[ak, 0], xy[ak, 1]
        fan = use_grid and finite_all and moved[ak] and n - 1 >= _FAN_FROM
        if fan:  # a moved attacker: all its pairs are searched afresh, through its fan
            fan_item = _fan(xy, base, ax, ay, max_base, fan_dist, fan_bearing, fan_ptr)
        for tk in range(n):
            if tk == ak:
                continue
            if status[k] == 0:
                k += 1
                continue
            changed[k] = True
            tx, ty, rr = xy[tk, 0], xy[tk, 1], base[tk]
            m = 0
            if status[k] == 2:
                finite = math.isfinite(ax) and math.isfinite(ay) and math.isfinite(tx) and math.isfinite(ty)
                if fan:
                    cut = math.hypot(tx - ax, ty - ay) + (rr + max_base) * (1.0 + 1e-6) + 1e-6
                    c = _fan_bucket(fan_bearing[tk])
                    pre = _corridor(ax, ay, tx, ty, rr)
                    for e in range(fan_ptr[c], fan_ptr[c + 1]):
                        u = fan_item[e]
                        if fan_dist[u] > cut:
                            break
                        if u in (ak, tk):
                            continue
                        if _corridor_meets(ax, ay, rr, pre, xy[u, 0], xy[u, 1], base[u]):
                            pool_b[end + m] = u
                            dist_b[end + m] = fan_dist[u]
                            m += 1
                elif not (use_grid and finite):  # no grid, or no capsule to look up: every unit
                    for u in range(n):
                        if u in (ak, tk):
                            continue
                        if _corridor_hit(ax, ay, tx, ty, rr, xy[u, 0], xy[u, 1], base[u]):
                            _rank(pool_b, dist_b, end, m, u, math.hypot(xy[u, 0] - ax, xy[u, 1] - ay))
                            m += 1
                else:
                    pre = _corridor(ax, ay, tx, ty, rr)
                    for e in range(outside.size):
                        u = outside[e]
                        if u in (ak, tk):
                            continue
                        if _corridor_meets(ax, ay, rr, pre, xy[u, 0], xy[u, 1], base[u]):
                            _rank(pool_b, dist_b, end, m, u, math.hypot(xy[u, 0] - ax, xy[u, 1] - ay))
                            m += 1
                    w = (rr + max_base) * (1.0 + 1e-6) + 1e-6
                    col0, col1 = _capsule_columns(grid_f, grid_i, ax, tx, w)
                    for col in range(col0, col1 + 1):
                        row0, row1 = _capsule_rows(grid_f, grid_i, col, ax, ay, tx, ty, w)
                        for c in range(col * grid_i[1] + row0, col * grid_i[1] + row1 + 1):
                            for e in range(grid_ptr[c], grid_ptr[c + 1]):
                                u = grid_item[e]
                                if (
                                    u != ak
                                    and u != tk
                                    and _corridor_meets(ax, ay, rr, pre, xy[u, 0], xy[u, 1], base[u])
                                ):
                                    du = math.hypot(xy[u, 0] - ax, xy[u, 1] - ay)
                                    _rank(pool_b, dist_b, end, m, u, du)
                                    m += 1
            else:
                for e in range(start[k], start[k] + count[k]):  # still ranked: without the moved
                    u = pool_b[e]
                    if not moved[u]:
                        pool_b[end + m] = u
                        dist_b[end + m] = dist_b[e]
                        m += 1
                for j in range(moved_rows.size):
                    u = moved_rows[j]
                    if _corridor_hit(ax, ay, tx, ty, rr, xy[u, 0], xy[u, 1], base[u]):
                        _rank(pool_b, dist_b, end, m, u, math.hypot(xy[u, 0] - ax, xy[u, 1] - ay))
                        m += 1
            live += m - count[k]
            start[k] = end
            count[k] = m
            end += m
            k += 1
    state[0], state[1] = end, live
    keep_alive((pool, pool_dist))
    return pool, pool_dist, changed


@kernel(types.Tuple((OUT_I1, OUT_I1))(I1, I1, I1))
def pool_csr(start: IntArray, count: IntArray, pool: IntArray) -> tuple[IntArray, IntArray]:
    """The lists of a pool (see :func:`intervening_update`) as a CSR (ptr, rows) in pair order."""
    ptr = np.zeros(start.size + 1, dtype=np.int64)
    for k in range(start.size):
        ptr[k + 1] = ptr[k] + count[k]
    rows = np.empty(ptr[start.size], dtype=np.int64)
    for k in range(start.size):
        if start[k] < 0 or start[k] + count[k] > pool.size:
            raise IndexError("list out of the pool")
        for e in range(count[k]):
            rows[ptr[k] + e] = pool[start[k] + e]
    return ptr, rows


@helper
def _unit_grid(xy: FloatArray) -> tuple[FloatArray, IntArray, IntArray, IntArray]:
    """A uniform grid over the units' centres: (origin x, y, cell), (columns, rows), CSR of rows.

    About one unit per cell on average (at most ``4 n + 16`` cells); each cell lists its units
    in ascending row order. Only a filter: callers test every listed unit exactly.
    """
    n = xy.shape[0]
    x0, y0, x1, y1 = xy[0, 0], xy[0, 1], xy[0, 0], xy[0, 1]
    for u in range(n):
        x0, x1 = min(x0, xy[u, 0]), max(x1, xy[u, 0])
        y0, y1 = min(y0, xy[u, 1]), max(y1, xy[u, 1])
    w, h = max(x1 - x0, 1e-6), max(y1 - y0, 1e-6)
    cell = max(math.sqrt(w * h / n), w / (2.0 * n + 4.0), h / (2.0 * n + 4.0), 1e-6)
    nx, ny = int(w / cell) + 1, int(h / cell) + 1
    grid_f = np.array([x0, y0, cell])
    grid_i = np.array([nx, ny], dtype=np.int64)
    cell_of = np.empty(n, dtype=np.int64)
    ptr = np.zeros(nx * ny + 1, dtype=np.int64)
    for u in range(n):
        i = min(int((xy[u, 0] - x0) / cell), nx - 1)
        j = min(int((xy[u, 1] - y0) / cell), ny - 1)
        cell_of[u] = i * ny + j
        ptr[cell_of[u] + 1] += 1
    for c in range(nx * ny):
        ptr[c + 1] += ptr[c]
    fill = ptr[:-1].copy()
    item = np.empty(n, dtype=np.int64)
    for u in range(n):  # ascending rows: each cell's list stays in row order
        item[fill[cell_of[u]]] = u
        fill[cell_of[u]] += 1
    return grid_f, grid_i, ptr, item


@kernel(types.Tuple((OUT_I1, OUT_I1))(F2, F1, I1, I1))
def intervening_rows(xy: FloatArray, base: FloatArray, a: IntArray, t: IntArray) -> tuple[IntArray, IntArray]:
    """Per pair (``a[k]``, ``t[k]``) the intervening units, nearest the attacker first (ties by row).

    Broad phase: from :data:`_UNIT_GRID_FROM` units on, only the units whose grid cells meet
    the capsule of the pair's sight segment (radius: target base + largest base, plus the
    exact test's margins) are tested; a unit farther from the segment cannot pass
    :func:`_corridor_hit`'s capsule test, so the answer is the full scan's. A run of at least
    :data:`_FAN_FROM` pairs of one attacker (all pairs come attacker by attacker) reads the
    attacker's :func:`_fan` instead: the units in the target's direction, already ranked, so
    each pair costs about its intervening units plus a few, and nothing is sorted per pair.

    Returns:
        ``(ptr, rows)`` in CSR form.
    """
    xy, base, a, t = borrowed(xy), borrowed(base), borrowed(a), borrowed(t)
    n_pairs, n = a.size, base.size
    if not (_rows_in_range(a, n) and _rows_in_range(t, n)):
        raise IndexError("attacker or target row out of range")
    ptr = np.zeros(n_pairs + 1, dtype=np.int64)
    rows = np.empty(max(4 * n_pairs, 16), dtype=np.int64)
    dist_owner = np.empty(max(n, 1))
    dist = borrowed(dist_owner)
    use_grid = n >= _UNIT_GRID_FROM
    max_base = 0.0
    for u in range(n):
        if not (math.isfinite(xy[u, 0]) and math.isfinite(xy[u, 1]) and math.isfinite(base[u])):
            use_grid = False
        else:
            max_base = max(max_base, base[u])
    grid_f, grid_i, grid_ptr, grid_item = _unit_grid(xy if use_grid else xy[:1])
    fan_dist = np.empty(max(n, 1))
    fan_bearing = np.empty(max(n, 1))
    fan_ptr = np.zeros(_FAN_BUCKETS + 1, dtype=np.int64)
    fan_item = np.empty(0, dtype=np.int64)
    fan_of = -1  # the attacker whose fan is built
    fan_end = 0  # the end of its run of pairs
    total = 0
    for k in range(n_pairs):
        ak, tk = a[k], t[k]
        ax, ay, tx, ty, rr = xy[ak, 0], xy[ak, 1], xy[tk, 0], xy[tk, 1], base[tk]
        if total + n > rows.size:
            grown = np.empty(2 * rows.size + n, dtype=np.int64)
            for i in range(total):  # a loop: slice assignment costs seconds of compile time
                grown[i] = rows[i]
            rows = grown
        m = 0
        if use_grid and k >= fan_end:
            fan_end = k + 1
            while fan_end < n_pairs and a[fan_end] == ak:
                fan_end += 1
            if fan_end - k >= _FAN_FROM:
                fan_item = _fan(xy, base, ax, ay, max_base, fan_dist, fan_bearing, fan_ptr)
                fan_of = ak
            else:
                fan_of = -1
        if use_grid and fan_of == ak:
            # the units around the attacker in T's direction, already ranked: no sorting
            cut = math.hypot(tx - ax, ty - ay) + (rr + max_base) * (1.0 + 1e-6) + 1e-6
            c = _fan_bucket(fan_bearing[tk])  # the atan2 of T from A
            pre = _corridor(ax, ay, tx, ty, rr)
            for e in range(fan_ptr[c], fan_ptr[c + 1]):
                u = fan_item[e]
                if fan_dist[u] > cut:
                    break
                if u != ak and u != tk and _corridor_meets(ax, ay, rr, pre, xy[u, 0], xy[u, 1], base[u]):
                    rows[total + m] = u
                    m += 1
        elif use_grid:
            w = (rr + max_base) * (1.0 + 1e-6) + 1e-6
            col0, col1 = _capsule_columns(grid_f, grid_i, ax, tx, w)
            for col in range(col0, col1 + 1):
                row0, row1 = _capsule_rows(grid_f, grid_i, col, ax, ay, tx, ty, w)
                for c in range(col * grid_i[1] + row0, col * grid_i[1] + row1 + 1):
                    for e in range(grid_ptr[c], grid_ptr[c + 1]):
                        u = grid_item[e]
                        if u in (ak, tk):
                            continue
                        if not _corridor_hit(ax, ay, tx, ty, rr, xy[u, 0], xy[u, 1], base[u]):
                            continue
                        du = math.hypot(xy[u, 0] - ax, xy[u, 1] - ay)
                        j = m
                        # cells come in any order: equal distances are ordered by row explicitly
                        while j > 0 and (dist[j - 1] > du or (dist[j - 1] == du and rows[total + j - 1] > u)):
                            dist[j] = dist[j - 1]
                            rows[total + j] = rows[total + j - 1]
                            j -= 1
                        dist[j] = du
                        rows[total + j] = u
                        m += 1
        else:
            for u in range(n):
                if u != ak and u != tk and _corridor_hit(ax, ay, tx, ty, rr, xy[u, 0], xy[u, 1], base[u]):
                    du = math.hypot(xy[u, 0] - ax, xy[u, 1] - ay)
                    j = m
                    while j > 0 and dist[j - 1] > du:  # insertion: equal distances keep row order
                        dist[j] = dist[j - 1]
                        rows[total + j] = rows[total + j - 1]
                        j -= 1
                    dist[j] = du
                    rows[total + j] = u
                    m += 1
        total += m
        ptr[k + 1] = total
    keep_alive((dist_owner,))
    return ptr, rows[:total].copy()


@kernel(OUT_B1(F2, F1, I1, I1, I1))
def corridor_hits(xy: FloatArray, base: FloatArray, pa: IntArray, pt: IntArray, hu: IntArray) -> BoolArray:
    """Per (attacker ``pa[k]``, target ``pt[k]``, unit ``hu[k]``): does the unit intervene?"""
    n = base.size
    if not (_rows_in_range(pa, n) and _rows_in_range(pt, n) and _rows_in_range(hu, n)):
        raise IndexError("unit row out of range")
    out = np.zeros(pa.size, dtype=np.bool_)
    for k in range(pa.size):
        a, t, u = pa[k], pt[k], hu[k]
        if u != a and u != t:
            out[k] = _corridor_hit(
                xy[a, 0], xy[a, 1], xy[t, 0], xy[t, 1], base[t], xy[u, 0], xy[u, 1], base[u]
            )
    return out


# ---------------------------------------------------------------------------- assembly
@inline
def _screens(xy: FloatArray, base: FloatArray, size: FloatArray, u: int, tk: int) -> bool:
    """Is intervening unit ``u`` a screen of target ``tk`` (size ≥ its size, within 0.5 inch)?"""
    gap = math.hypot(xy[u, 0] - xy[tk, 0], xy[u, 1] - xy[tk, 1]) - base[u] - base[tk]
    return size[u] >= size[tk] and gap <= HIDDEN_GAP + TOUCH_TOL


@inline
def _assemble_pair(
    k: int,
    ak: int,
    tk: int,
    lo: int,
    hi: int,
    xy: FloatArray,
    base: FloatArray,
    size: FloatArray,
    facing: FloatArray,
    fraction: FloatArray,
    obstacle_screen: BoolArray,
    rows: IntArray,
    visible: BoolArray,
    level: NDArray[np.int8],
    hidden: BoolArray,
    arc: NDArray[np.int8],
    distance: FloatArray,
    unit_screen: BoolArray,
) -> None:
    """Write pair ``k``'s derived fields (see :func:`assemble`): attacker ``ak``, target ``tk``,
    intervening units ``rows[lo:hi]``."""
    f = fraction[k]
    visible[k] = f < 1.0
    level[k] = (
        (f >= LIGHT_FROM) + (f > MEDIUM_ABOVE) + (f > HEAVY_ABOVE) + (f > NEAR_TOTAL_ABOVE) + (f >= 1.0)
    )
    unit_screen[k] = False
    for e in range(hi - 1, lo - 1, -1):  # nearest the target (likeliest screen) first
        if _screens(xy, base, size, rows[e], tk):
            unit_screen[k] = True
            break
    has_cover = f >= LIGHT_FROM or hi > lo
    hidden[k] = has_cover and (obstacle_screen[k] or unit_screen[k])
    dx, dy = xy[ak, 0] - xy[tk, 0], xy[ak, 1] - xy[tk, 1]
    distance[k] = math.hypot(dx, dy)
    if dx == 0.0 and dy == 0.0:
        arc[k] = 0
    else:
        rel = abs((math.atan2(dy, dx) * _DEG - facing[tk] + 180.0) % 360.0 - 180.0)
        arc[k] = (rel > FRONT_HALF_ANGLE + 1e-9) + (rel > SIDE_LIMIT + 1e-9)


@kernel(types.Tuple((OUT_B1, OUT_I8, OUT_B1, OUT_I8, OUT_F1, OUT_B1))(F2, F1, F1, F1, I1, I1, F1, B1, I1, I1))
def assemble(
    xy: FloatArray,
    base: FloatArray,
    size: FloatArray,
    facing: FloatArray,
    a: IntArray,
    t: IntArray,
    fraction: FloatArray,
    obstacle_screen: BoolArray,
    ptr: IntArray,
    rows: IntArray,
) -> tuple[BoolArray, NDArray[np.int8], BoolArray, NDArray[np.int8], FloatArray, BoolArray]:
    """The derived fields of a batch: visible, level, hidden, arc, distance, unit screen.

    Hidden = has cover (fraction ≥ 0.10 or an intervening unit) and a screen (an obstacle, or
    an intervening unit of size ≥ the target's within 0.5 inch of its base). Arcs and levels
    follow :func:`game.geometry.model.arc_codes` and :func:`~game.geometry.model.level_codes`.
    """
    n_pairs = a.size
    visible = np.empty(n_pairs, dtype=np.bool_)
    level = np.empty(n_pairs, dtype=np.int8)
    hidden = np.empty(n_pairs, dtype=np.bool_)
    arc = np.empty(n_pairs, dtype=np.int8)
    distance = np.empty(n_pairs)
    unit_screen = np.zeros(n_pairs, dtype=np.bool_)
    for k in range(n_pairs):
        _assemble_pair(
            k, a[k], t[k], ptr[k], ptr[k + 1], xy, base, size, facing, fraction, obstacle_screen, rows,
            visible, level, hidden, arc, distance, unit_screen,
        )  # fmt: skip
    return visible, level, hidden, arc, distance, unit_screen


@kernel(
    types.none(
        F2, F1, F1, F1, F1, B1, I1, I1, I1, B1, B1,
        OUT_B1, OUT_I8, OUT_B1, OUT_I8, OUT_F1, OUT_B1,
    )
)  # fmt: skip
def assemble_update(
    xy: FloatArray,
    base: FloatArray,
    size: FloatArray,
    facing: FloatArray,
    fraction: FloatArray,
    obstacle_screen: BoolArray,
    start: IntArray,
    count: IntArray,
    pool: IntArray,
    changed: BoolArray,
    touched: BoolArray,
    visible: BoolArray,
    level: NDArray[np.int8],
    hidden: BoolArray,
    arc: NDArray[np.int8],
    distance: FloatArray,
    unit_screen: BoolArray,
) -> None:
    """:func:`assemble` in place over every ordered pair (attacker-major; intervening units in a
    pool, see :func:`intervening_update`), for the pairs ``changed[k]`` or with an end in
    ``touched``.

    Every other pair's derived fields depend only on what did not change (its ends, its cover
    fraction and screen, its intervening units), so the arrays then equal a full assembly. A
    pair whose intervening units changed but neither end (its fraction, distance and arc stay)
    only has its unit screen and hidden flag redone; if it had no unit screen, only its touched
    units can have become one (the others are where they were, and did not screen).
    """
    n = base.size
    if start.size != n * (n - 1) or count.size != start.size or changed.size != start.size:
        raise ValueError("pool arrays do not match the pairs")
    for k in range(start.size):
        if start[k] < 0 or start[k] + count[k] > pool.size:
            raise IndexError("list out of the pool")
    k = 0
    for ak in range(n):
        for tk in range(n):
            if tk == ak:
                continue
            lo, hi = start[k], start[k] + count[k]
            if touched[ak] or touched[tk]:
                _assemble_pair(
                    k, ak, tk, lo, hi, xy, base, size, facing, fraction, obstacle_screen, pool,
                    visible, level, hidden, arc, distance, unit_screen,
                )  # fmt: skip
            elif changed[k]:
                was = unit_screen[k]
                unit_screen[k] = False
                for e in range(hi - 1, lo - 1, -1):
                    u = pool[e]
                    if (was or touched[u]) and _screens(xy, base, size, u, tk):
                        unit_screen[k] = True
                        break
                has_cover = fraction[k] >= LIGHT_FROM or hi > lo
                hidden[k] = has_cover and (obstacle_screen[k] or unit_screen[k])
            k += 1
