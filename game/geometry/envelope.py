"""Exact area under the clamped upper envelope of one pair's sinusoid segments (compiled).

Contract: :func:`envelope_area` gets one pair's segments as rows of a ``(cap, 8)`` array,
``(lo, hi, c0, c1, c2, zmin, zmax, obstacle)``, meaning "on ``[lo, hi]`` the hidden height is
at least ``c0 + c1·cos u + c2·sin u``" (``c0 = +inf``: everything is hidden there; ``zmin`` /
``zmax`` bound the segment's height on its range), and returns
``∫ clamp(max over covering segments, 0, H) du`` over the window ``[−α, α]``, in closed form.

Method (the oracle's, ``game/geometry/reference.py``): every segment is cut where it crosses 0
or ``H``, every two overlapping segments where they cross (two sinusoids of the same period
cross at most twice, at ``acos`` angles). Between consecutive cuts one segment is highest
everywhere; it is found at the midpoint and integrated as ``c0·Δu + c1·Δsin u − c2·Δcos u``.
Cuts that cannot happen are skipped: a segment whose bounds exclude a level never crosses it,
and two segments whose bounds do not overlap never cross each other.

A segment that is at least ``H`` everywhere (``zmin ≥ H``) is *saturated*: it counts as the
constant ``H``, and a window covered by saturated segments alone is full at once. With
``owners`` (the per-obstacle shares of :meth:`game.geometry.fast.SightIndex.contributions`)
every segment keeps its own height instead, so the obstacle credited with an interval is the
highest one on it, as in the oracle.

These are numba functions without a signature of their own: they are compiled into the
kernels of :mod:`game.geometry.kernel` that call them.
"""

from __future__ import annotations

import math

import numpy as np

from game.geometry.jit import borrowed, helper, inline, keep_alive
from game.geometry.model import FloatArray, IntArray

_PI = math.pi
_TWO_PI = 2.0 * math.pi

#: Columns of a segment row.
LO, HI, C0, C1, C2, ZMIN, ZMAX, OBS = range(8)
#: Width of a segment row.
SEG_COLS = 8
#: Columns of the working copy: the segment's first seven, then 1.0 if it is a constant.
_CONST = 7


@inline
def _wrap_pm(a: float) -> float:
    """Fold into [−π, π) (the oracle's convention for root angles)."""
    return (a + _PI) % _TWO_PI - _PI


@inline
def _roots(c0: float, c1: float, c2: float, lo: float, hi: float, out: FloatArray, n: int) -> int:
    """Append the roots of c0 + c1·cos u + c2·sin u = 0 strictly inside (lo, hi) to ``out``.

    Intervals are narrower than π, so the representative of each root nearest the interval's
    middle is the only one that can fall inside it. Returns the new count (at most n + 2).
    """
    amp = math.hypot(c1, c2)
    if not amp > 0.0:
        return n
    x = -c0 / amp
    if not abs(x) <= 1.0:
        return n
    mu = math.atan2(c2, c1)
    delta = math.acos(x)
    m = 0.5 * (lo + hi)
    r1 = m + _wrap_pm(mu - delta - m)
    if lo < r1 < hi:
        out[n] = r1
        n += 1
    r2 = m + _wrap_pm(mu + delta - m)
    if lo < r2 < hi:
        out[n] = r2
        n += 1
    return n


@inline
def sort_prefix(a: FloatArray, n: int) -> None:
    """Sort ``a[:n]`` in place (insertion sort, Shell gaps above a few dozen elements).

    Hand-written rather than ``np.sort``: the inputs are short and numba's generic sorts take
    seconds to compile.
    """
    gap = 1
    while gap < n // 3:
        gap = 3 * gap + 1
    while gap >= 1:
        for i in range(gap, n):
            v = a[i]
            j = i
            while j >= gap and a[j - gap] > v:
                a[j] = a[j - gap]
                j -= gap
            a[j] = v
        gap //= 3


@helper
def envelope_area(
    seg: FloatArray, n: int, top: float, alpha: float, owners: bool, shares: FloatArray, share_scale: float
) -> float:
    """∫ clamp(max of the segments, 0, top) du over the window, exactly.

    Args:
        seg: segment rows (see the module docstring); the first ``n`` are used.
        n: number of segments.
        top: the target's height ``H`` (> 0).
        alpha: the window's half-angle ``α``.
        owners: credit each interval to the obstacle that is highest there (no shortcuts).
        shares: with ``owners``, ``shares[obstacle] += area · share_scale`` per interval.
        share_scale: factor applied to areas added to ``shares``.

    Returns:
        The hidden area (angle × height).
    """
    work_owner = np.empty((max(n, 1), 8))
    iwork_owner = np.empty((max(n, 1), 2), dtype=np.int64)
    work, iwork = borrowed(work_owner), borrowed(iwork_owner)
    m = _sorted_copy(seg, n, top, owners, work, iwork)
    if m == 0:
        area = 0.0
    elif not owners and _saturated(work, m, top, alpha):
        area = 2.0 * alpha * top
    else:
        # cuts: two ends per segment, two per level, two per overlapping pair (counted first)
        n_cross = 0
        for i in range(m):
            for j in range(i + 1, m):
                if not work[j, LO] < work[i, HI]:
                    break
                n_cross += 1
        cuts_owner = np.empty(6 * m + 2 * n_cross)
        area = _sweep(work, iwork, m, top, owners, shares, share_scale, borrowed(cuts_owner))
        keep_alive((cuts_owner,))
    keep_alive((work_owner, iwork_owner))
    return area


@helper
def _sorted_copy(seg: FloatArray, n: int, top: float, owners: bool, work: FloatArray, iwork: IntArray) -> int:
    """Copy the segments that can hide something into ``work``, sorted by lo; returns their count.

    ``iwork[:, 0]`` gets each one's obstacle. Without ``owners``, saturated segments become the
    constant ``H``.
    """
    m = 0
    for k in range(n):
        lo, hi = seg[k, LO], seg[k, HI]
        if not (hi > lo and seg[k, ZMAX] > 0.0):
            continue
        c0, c1, c2, zmin, zmax = seg[k, C0], seg[k, C1], seg[k, C2], seg[k, ZMIN], seg[k, ZMAX]
        if zmin >= top and not owners:
            c0, c1, c2, zmin, zmax = top, 0.0, 0.0, top, top
        i = m
        while i > 0 and work[i - 1, LO] > lo:  # insertion: few segments per pair
            for col in range(8):
                work[i, col] = work[i - 1, col]
            iwork[i, 0] = iwork[i - 1, 0]
            i -= 1
        work[i, LO], work[i, HI], work[i, C0], work[i, C1], work[i, C2] = lo, hi, c0, c1, c2
        work[i, ZMIN], work[i, ZMAX] = zmin, zmax
        work[i, _CONST] = 1.0 if (c1 == 0.0 and c2 == 0.0) else 0.0
        iwork[i, 0] = int(seg[k, OBS])
        m += 1
    return m


@inline
def _saturated(work: FloatArray, m: int, top: float, alpha: float) -> bool:
    """Do the saturated segments alone cover the window (everything hidden)?"""
    reach = -alpha
    for i in range(m):
        if work[i, ZMIN] >= top:
            if work[i, LO] > reach:
                return False
            reach = max(reach, work[i, HI])
    return reach >= alpha


@helper
def _sweep(
    work: FloatArray,
    iwork: IntArray,
    m: int,
    top: float,
    owners: bool,
    shares: FloatArray,
    share_scale: float,
    cuts: FloatArray,
) -> float:
    """Cut the sorted segments (ends, levels 0 and H, crossings) and integrate interval by interval."""
    nc = int(0)  # noqa: RUF046, UP018 (a literal 0 would have numba compile the callees twice)
    for i in range(m):
        cuts[nc] = work[i, LO]
        cuts[nc + 1] = work[i, HI]
        nc += 2
    for i in range(m):
        if work[i, _CONST] == 0.0:
            for level in (0.0, top):
                if work[i, ZMIN] < level < work[i, ZMAX]:  # else it cannot cross the level
                    nc = _roots(
                        work[i, C0] - level, work[i, C1], work[i, C2], work[i, LO], work[i, HI], cuts, nc
                    )
    for i in range(m):
        for j in range(i + 1, m):
            if not work[j, LO] < work[i, HI]:
                break  # sorted by lo: no later segment overlaps i
            if work[i, _CONST] != 0.0 and work[j, _CONST] != 0.0:
                continue  # constants never cross
            if work[i, ZMAX] <= work[j, ZMIN] or work[j, ZMAX] <= work[i, ZMIN]:
                continue  # one is above the other on their whole ranges
            if not owners and (work[i, ZMIN] >= top or work[j, ZMIN] >= top):
                continue  # the constant H only crosses the other at H (cut above)
            if math.isinf(work[i, C0] + work[j, C0]):
                continue  # +inf hides everything
            nc = _roots(
                work[i, C0] - work[j, C0],
                work[i, C1] - work[j, C1],
                work[i, C2] - work[j, C2],
                max(work[i, LO], work[j, LO]),
                min(work[i, HI], work[j, HI]),
                cuts,
                nc,
            )
    sort_prefix(cuts, nc)

    # sweep the elementary intervals, keeping the segments that cover them in iwork[:, 1]
    n_act = 0
    nxt = 0
    area = 0.0
    cos_a, sin_a = math.cos(cuts[0]), math.sin(cuts[0])
    for c in range(nc - 1):
        a, b = cuts[c], cuts[c + 1]
        if not b > a:
            continue
        cos_b, sin_b = math.cos(b), math.sin(b)
        while nxt < m and work[nxt, LO] <= a:
            iwork[n_act, 1] = nxt
            n_act += 1
            nxt += 1
        keep = 0
        for t in range(n_act):
            if work[iwork[t, 1], HI] > a:
                iwork[keep, 1] = iwork[t, 1]
                keep += 1
        n_act = keep
        # direction of the midpoint from the sum of the end directions (no trig)
        mx, my = cos_a + cos_b, sin_a + sin_b
        norm = math.hypot(mx, my)
        if not norm > 0.0:
            norm = 1.0
        cm, sm = mx / norm, my / norm
        best = -math.inf
        win = -1
        for t in range(n_act):
            i = iwork[t, 1]
            if work[i, HI] < b:
                continue
            z = math.inf if math.isinf(work[i, C0]) else work[i, C0] + work[i, C1] * cm + work[i, C2] * sm
            if z > best:
                best, win = z, i
        if win >= 0 and best > 0.0:
            if best >= top:
                piece = top * (b - a)
            else:
                piece = (
                    work[win, C0] * (b - a)
                    + work[win, C1] * (sin_b - sin_a)
                    - work[win, C2] * (cos_b - cos_a)
                )
                piece = max(piece, 0.0)
            area += piece
            if owners:
                shares[iwork[win, 0]] += piece * share_scale
        cos_a, sin_a = cos_b, sin_b
    return area
