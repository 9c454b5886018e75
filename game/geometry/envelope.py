"""Exact area under a clamped upper envelope of sinusoid segments, for many pairs at once.

Contract: given, per pair, segments ``(lo, hi, c0, c1, c2)`` meaning "on ``[lo, hi]`` the
hidden height is at least ``c0 + c1·cos u + c2·sin u``", :func:`envelope_area` returns
``∫ clamp(max over covering segments, 0, H) du`` for every pair, exactly (closed form).

Method: every segment is cut where it crosses 0 or ``H``, and every two overlapping segments
of a pair are cut where they cross (two sinusoids of the same period cross at most twice).
Between consecutive cuts the envelope is a single segment clamped one way, found by
evaluating at the midpoint, and integrated as ``c0·Δu + c1·Δsin − c2·Δcos``.

Pruning (does not change the result): a segment known to be at least ``H`` everywhere
("saturated", e.g. a high wall in front of the eye) hides its whole range; a pair whose
window is covered by the union of its saturated segments is fully hidden without further
work, and a non-saturated segment lying inside that union is dropped.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from game.geometry.model import BoolArray, FloatArray, IntArray

_PI = math.pi
_TWO_PI = 2.0 * math.pi
#: Pair offset in sort keys: pair · 8 + u separates pairs since |u| ≤ π/2.
_KEY_STRIDE = 8.0


def wrap(a: FloatArray) -> FloatArray:
    """Fold angles (radians) into [−π, π)."""
    return np.asarray((a + _PI) % _TWO_PI - _PI, dtype=np.float64)


def take(idx: IntArray, *arrays: NDArray[Any]) -> list[Any]:
    """``[a[idx] for a in arrays]`` (typed loosely: the arrays have different dtypes)."""
    return [a[idx] for a in arrays]


def expand(counts: IntArray) -> tuple[IntArray, IntArray]:
    """For CSR counts: (owner of each expanded row, rank of the row within its owner)."""
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    starts = np.cumsum(counts) - counts
    rank = np.arange(total, dtype=np.int64) - np.repeat(starts, counts)
    return owner, rank


def _roots(
    c0: FloatArray, c1: FloatArray, c2: FloatArray, lo: FloatArray, hi: FloatArray
) -> tuple[IntArray, FloatArray]:
    """Roots of c0 + c1·cos u + c2·sin u = 0 strictly inside (lo, hi): (input index, angle).

    Intervals are narrower than π, so the representative of each root nearest the interval's
    middle is the only one that can fall inside it.
    """
    amp = np.hypot(c1, c2)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = -c0 / amp
    idx = np.flatnonzero((amp > 0.0) & (np.abs(x) <= 1.0))
    if len(idx) == 0:
        return idx, np.zeros(0)
    mu = np.arctan2(c2[idx], c1[idx])
    delta = np.arccos(x[idx])
    m = 0.5 * (lo[idx] + hi[idx])
    r1 = m + wrap(mu - delta - m)
    r2 = m + wrap(mu + delta - m)
    allr = np.concatenate([r1, r2])
    alli = np.concatenate([idx, idx])
    inside = (allr > lo[alli]) & (allr < hi[alli])
    return alli[inside], allr[inside]


def _saturated_runs(pair: IntArray, lo: FloatArray, hi: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Disjoint union of intervals per pair, as sorted key ranges (pair·8 + lo, pair·8 + hi)."""
    klo = pair * _KEY_STRIDE + lo
    order = np.argsort(klo, kind="stable")
    klo = klo[order]
    khi = (pair * _KEY_STRIDE + hi)[order]
    reach = np.maximum.accumulate(khi)
    start = np.ones(len(klo), dtype=bool)
    start[1:] = klo[1:] > reach[:-1]
    first = np.flatnonzero(start)
    last = np.append(first[1:], len(klo)) - 1
    return klo[first], reach[last]


def envelope_area(
    seg_pair: IntArray,
    seg_obs: IntArray,
    lo: FloatArray,
    hi: FloatArray,
    c0: FloatArray,
    c1: FloatArray,
    c2: FloatArray,
    zmin: FloatArray,
    zmax: FloatArray,
    top_by_pair: FloatArray,
    alpha_by_pair: FloatArray,
    contributions: bool = False,
) -> tuple[FloatArray, IntArray, IntArray, FloatArray]:
    """∫ clamp(max of the segments, 0, H) du per pair, exactly.

    Args:
        seg_pair: pair of each segment.
        seg_obs: obstacle of each segment (for contributions).
        lo: start angle of each segment (within the pair's window ``[−α, α]``).
        hi: end angle (> lo).
        c0: constant term (``inf``: hides everything).
        c1: cosine coefficient.
        c2: sine coefficient.
        zmin: a lower bound of the segment's height on its range (for saturation).
        zmax: an upper bound of the segment's height on its range (≤ 0: dropped).
        top_by_pair: (n_pairs,) target heights ``H``.
        alpha_by_pair: (n_pairs,) window half-angles ``α``.
        contributions: also return per (pair, obstacle) areas (disables pruning by pairs).

    Returns:
        (area per pair, contribution pair, contribution obstacle, contribution area).
    """
    n_pairs = len(top_by_pair)
    empty_i = np.zeros(0, dtype=np.int64)
    top = top_by_pair[seg_pair]
    keep = zmax > 0.0
    sat = zmin >= top
    per_pair = np.zeros(n_pairs)

    if not contributions and sat.any():
        s_idx = np.flatnonzero(sat & keep)
        run_lo, run_hi = _saturated_runs(seg_pair[s_idx], lo[s_idx], hi[s_idx])
        run_pair = np.floor((run_lo + _PI) / _KEY_STRIDE).astype(np.int64)
        al = alpha_by_pair[run_pair]
        base = run_pair * _KEY_STRIDE
        whole = (run_lo <= base - al) & (run_hi >= base + al)
        blocked = np.zeros(n_pairs, dtype=bool)
        blocked[run_pair[whole]] = True
        per_pair[blocked] = 2.0 * alpha_by_pair[blocked] * top_by_pair[blocked]
        keep &= ~blocked[seg_pair]
        # a non-saturated segment inside a saturated run changes nothing
        cand = np.flatnonzero(keep & ~sat)
        if len(cand) and len(run_lo):
            k_lo = seg_pair[cand] * _KEY_STRIDE + lo[cand]
            k_hi = seg_pair[cand] * _KEY_STRIDE + hi[cand]
            r = np.searchsorted(run_lo, k_lo, side="right") - 1
            rr = np.maximum(r, 0)
            inside = (r >= 0) & (run_hi[rr] >= k_hi)
            keep[cand[inside]] = False

    idx = np.flatnonzero(keep)
    if len(idx) == 0:
        return per_pair, empty_i, empty_i, np.zeros(0)
    seg_pair, seg_obs, lo, hi, c0, c1, c2, top, sat = take(
        idx, seg_pair, seg_obs, lo, hi, c0, c1, c2, top, sat
    )
    # saturated segments are the constant H
    c0 = np.where(sat, top, c0)
    c1 = np.where(sat, 0.0, c1)
    c2 = np.where(sat, 0.0, c2)
    const = (c1 == 0.0) & (c2 == 0.0)
    n_seg = len(seg_pair)

    key = seg_pair * _KEY_STRIDE + lo
    order = np.argsort(key, kind="stable")
    seg_pair, seg_obs, lo, hi, c0, c1, c2, const, top, sat, key = take(
        order, seg_pair, seg_obs, lo, hi, c0, c1, c2, const, top, sat, key
    )

    bp_u = [lo, hi]
    bp_pair = [seg_pair, seg_pair]
    var = np.flatnonzero(~const)
    if len(var):
        for level in (np.zeros(len(var)), top[var]):
            ri, ru = _roots(c0[var] - level, c1[var], c2[var], lo[var], hi[var])
            bp_pair.append(seg_pair[var][ri])
            bp_u.append(ru)
    # crossings of overlapping segments of the same pair (sorted by lo: j > i overlaps i iff lo_j < hi_i)
    n_over = np.searchsorted(key, seg_pair * _KEY_STRIDE + hi, side="left") - np.arange(n_seg) - 1
    n_over = np.maximum(n_over, 0)
    if n_over.any():
        i_idx, rank = expand(n_over)
        j_idx = i_idx + 1 + rank
        useful = ~(sat[i_idx] | sat[j_idx]) & ~(const[i_idx] & const[j_idx])
        i_idx, j_idx = i_idx[useful], j_idx[useful]
        if len(i_idx):
            o_lo = np.maximum(lo[i_idx], lo[j_idx])
            o_hi = np.minimum(hi[i_idx], hi[j_idx])
            ri, ru = _roots(c0[i_idx] - c0[j_idx], c1[i_idx] - c1[j_idx], c2[i_idx] - c2[j_idx], o_lo, o_hi)
            bp_pair.append(seg_pair[i_idx][ri])
            bp_u.append(ru)
    all_pair = np.concatenate(bp_pair)
    all_u = np.concatenate(bp_u)
    border = np.argsort(all_pair * _KEY_STRIDE + all_u, kind="stable")
    inv = np.empty_like(border)
    inv[border] = np.arange(len(border))
    s_pair = all_pair[border]
    s_u = all_u[border]
    n_iv = len(s_u)
    # elementary interval i lies between sorted cuts i and i + 1; segment k covers [pos(lo_k), pos(hi_k))
    pos_lo = inv[:n_seg]
    r_seg, r_rank = expand(inv[n_seg : 2 * n_seg] - pos_lo)
    r_iv = pos_lo[r_seg] + r_rank
    a_u = s_u[:-1]
    b_u = s_u[1:]
    cos_u = np.cos(s_u)
    sin_u = np.sin(s_u)
    # direction of each interval's midpoint from the sum of its end directions (no trig)
    mx = cos_u[:-1] + cos_u[1:]
    my = sin_u[:-1] + sin_u[1:]
    norm = np.hypot(mx, my)
    norm = np.where(norm > 0.0, norm, 1.0)
    cm, sm = mx / norm, my / norm
    riv = r_iv
    with np.errstate(invalid="ignore"):
        z = c0[r_seg] + c1[r_seg] * cm[riv] + c2[r_seg] * sm[riv]
    z = np.where(np.isnan(z), np.inf, z)
    best = np.full(n_iv - 1 if n_iv else 0, -np.inf)
    np.maximum.at(best, riv, z)
    win = np.flatnonzero(z == best[riv])
    winner = np.full(len(best), -1, dtype=np.int64)
    winner[riv[win]] = r_seg[win]
    iv = np.flatnonzero((winner >= 0) & (best > 0.0) & (b_u > a_u))
    w = winner[iv]
    zb = best[iv]
    tp = top[w]
    a, b = a_u[iv], b_u[iv]
    finite_c0 = np.where(np.isinf(c0[w]), 0.0, c0[w])
    area = np.where(
        zb >= tp,
        tp * (b - a),
        finite_c0 * (b - a) + c1[w] * (sin_u[iv + 1] - sin_u[iv]) - c2[w] * (cos_u[iv + 1] - cos_u[iv]),
    )
    area = np.maximum(area, 0.0)
    per_pair += np.bincount(s_pair[iv], weights=area, minlength=n_pairs)
    if not contributions:
        return per_pair, empty_i, empty_i, np.zeros(0)
    n_obs = int(seg_obs.max()) + 1
    ck = s_pair[iv] * n_obs + seg_obs[w]
    uk, inv_k = np.unique(ck, return_inverse=True)
    sums = np.asarray(np.bincount(inv_k, weights=area), dtype=np.float64)
    return per_pair, np.asarray(uk // n_obs, dtype=np.int64), np.asarray(uk % n_obs, dtype=np.int64), sums


def any_by_group(flags: BoolArray, group: IntArray, n_groups: int) -> BoolArray:
    """Per group: is any flag set."""
    out = np.zeros(n_groups, dtype=bool)
    out[group[flags]] = True
    return out
