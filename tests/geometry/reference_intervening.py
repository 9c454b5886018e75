"""Brute-force intervening units: every unit tested against every pair, then ranked.

The reference the kernels' broad phases (the unit grid of ``intervening_rows``, the incremental
``intervening_delta``) must reproduce exactly: the exact per-(pair, unit) test
(:func:`game.geometry.kernel.corridor_hits`), ranked nearest the attacker first with equal
distances in row order.
"""

from __future__ import annotations

import numpy as np

from game.geometry import kernel


def intervening_all(
    xy: np.ndarray, base: np.ndarray, a: np.ndarray, t: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """CSR (ptr, rows) of every pair's intervening units, by scanning every unit."""
    n, p = len(base), len(a)
    pa, hu = np.repeat(a, n), np.tile(np.arange(n, dtype=np.int64), p)
    pt = np.repeat(t, n)
    hit = kernel.corridor_hits(xy, base, pa, pt, hu).reshape(p, n)
    ptr = np.zeros(p + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(hit.sum(axis=1))
    k, u = np.nonzero(hit)
    d = np.hypot(xy[u, 0] - xy[a[k], 0], xy[u, 1] - xy[a[k], 1])
    return ptr, u[np.lexsort((u, d, k))].astype(np.int64)
