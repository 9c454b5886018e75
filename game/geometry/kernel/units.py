"""Intervening units: the exact corridor test with its broad phases (a grid over the units, or a
fan per attacker by bearing), incremental updates and CSR pools (:mod:`game.geometry.kernel`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import types

from game.geometry.jit import (
    B1,
    F1,
    F2,
    I1,
    OUT_B1,
    OUT_F1,
    OUT_I1,
    borrowed,
    helper,
    inline,
    keep_alive,
    kernel,
)
from game.geometry.kernel.common import _CULL_MARGIN, _PI, _TWO_PI
from game.geometry.kernel.pieces import _capsule_columns, _capsule_rows, _rows_in_range
from game.geometry.model import (
    TOUCH_TOL,
    BoolArray,
    FloatArray,
    IntArray,
)


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
