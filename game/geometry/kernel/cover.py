"""Exact cover of attacker/target pairs (:func:`cover_pairs`): occlusion shortcut, narrow phase
and the upper-envelope integral, with obstacle screens where asked (steps 1-5 of
:mod:`game.geometry.kernel`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import types

from game.geometry.envelope import SEG_COLS, envelope_area
from game.geometry.jit import (
    B1,
    F1,
    F2,
    I1,
    OUT_B1,
    OUT_F1,
    borrowed,
    helper,
    inline,
    keep_alive,
    kernel,
)
from game.geometry.kernel.common import _CULL_MARGIN, _EDGE_COLS, _MEMORY, _NEAR, _OBSTACLES, OWNERS, SCREENS
from game.geometry.kernel.pieces import (
    _candidate,
    _capsule_columns,
    _capsule_rows,
    _enters_before,
    _piece_frame,
    _piece_segments,
    _point_near_piece,
    _rows_in_range,
    _snap,
)
from game.geometry.model import (
    ANGLE_TOL,
    HIDDEN_GAP,
    LIGHT_FROM,
    TOUCH_TOL,
    BoolArray,
    FloatArray,
    IntArray,
)


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


@kernel(types.Tuple((OUT_F1, OUT_B1, OUT_F1))(*_OBSTACLES, F2, F1, I1, F2, F1, F1, F1, I1, B1, types.int64))
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
        edge … grid_item: the :class:`ObstacleGrid` arrays.
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
