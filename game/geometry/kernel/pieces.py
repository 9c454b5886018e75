"""Per-piece geometry of the cover kernels: the broad phase over the obstacle grid, the pair
frame of a convex piece, its entry/exit segments and small numeric helpers (compiled, inlined
into :mod:`game.geometry.kernel.cover`).
"""

from __future__ import annotations

import math

import numpy as np

from game.geometry.envelope import C0, C1, C2, HI, LO, OBS, ZMAX, ZMIN
from game.geometry.jit import (
    helper,
    inline,
)
from game.geometry.kernel.common import (
    _BLOCK_MARGIN,
    _CHI,
    _CLO,
    _CULL_MARGIN,
    _FHI,
    _FLO,
    _FOK,
    _HI,
    _INV_TWO_PI,
    _KEEP,
    _LO,
    _MID,
    _NANG,
    _NLX,
    _NLY,
    _ON_EDGE,
    _PI,
    _SLACK,
    _THRESHOLDS,
    _TWO_PI,
    _X,
    _Y,
)
from game.geometry.model import (
    ANGLE_TOL,
    FRACTION_SNAP,
    FloatArray,
    IntArray,
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
