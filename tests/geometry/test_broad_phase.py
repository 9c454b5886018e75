"""The intervening-unit broad phases give exactly the brute-force answers.

``intervening_update`` (what a move changes, found by retesting the moved units at their old
and new places; a moved attacker's fan or a unit grid over the map for the movers' own pairs,
units parked off the map tested apart; the lists and their distances in a pool that fills up
and is compacted) and the :class:`SightCache` built on it, on
crowds large enough for the grid, against scanning every unit for every pair.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from game.geometry import SightCache, SightIndex, kernel
from tests.geometry.reference_intervening import intervening_all
from tests.geometry.scenes import MAP_H, MAP_W, random_scene
from tests.geometry.test_cache import assert_same_batch

WINDOW = np.array([0.0, 0.0, 30.0, 20.0])


def crowd(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    xy = rng.uniform(0.0, 30.0, (n, 2)) * np.array([1.0, 20.0 / 30.0])
    xy[: n // 5] = np.round(xy[: n // 5])  # equal distances: ties are ordered by row
    xy[n // 5 : n // 5 + 2] = xy[0]  # coincident units
    base = rng.choice([0.5, 0.5, 0.75, 1.0, 1.25], n)
    return xy, base


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([12, 50, 90]), st.integers(1, 3))
def test_intervening_update_equals_the_brute_force(seed: int, n: int, movers: int) -> None:
    rng = np.random.default_rng(seed)
    xy, base = crowd(rng, n)
    a, t = np.nonzero(~np.eye(n, dtype=bool))
    a, t = a.astype(np.int64), t.astype(np.int64)
    ptr, rows = intervening_all(xy, base, a, t)
    pool, pool_dist = rows.copy(), kernel.intervening_distances(xy, a, ptr, rows)
    start, count = ptr[:-1].copy(), np.diff(ptr)
    state = np.array([len(rows), len(rows)], dtype=np.int64)
    for _ in range(6):  # enough moves to fill the pool and compact it
        old_xy = xy.copy()
        moved_rows = np.unique(rng.integers(0, n, movers)).astype(np.int64)
        for i in moved_rows:
            kind = rng.random()
            if kind < 0.15:
                xy[i] = (-1.0e4 - 10.0 * i, -1.0e4)  # taken off the table: outside the grid
            elif kind < 0.3:
                xy[i] = xy[int(rng.integers(0, n))]  # onto another unit
            elif kind < 0.4:
                xy[i] = (35.0, -3.0)  # just off the map: outside the grid's window
            else:
                xy[i] = xy[i] + rng.normal(0.0, 2.0, 2)
        moved = np.zeros(n, dtype=bool)
        moved[moved_rows] = True
        want_ptr, want_rows = intervening_all(xy, base, a, t)
        before = [list(pool[start[k] : start[k] + count[k]]) for k in range(len(a))]
        pool, pool_dist, changed = kernel.intervening_update(
            xy, old_xy, base, moved, moved_rows, start, count, pool, pool_dist, state, WINDOW
        )
        got_ptr, got_rows = kernel.pool_csr(start, count, pool)
        np.testing.assert_array_equal(got_ptr, want_ptr)
        np.testing.assert_array_equal(got_rows, want_rows)
        got_dist = np.concatenate([pool_dist[start[k] : start[k] + count[k]] for k in range(len(a))])
        np.testing.assert_array_equal(got_dist, kernel.intervening_distances(xy, a, want_ptr, want_rows))
        assert state[1] == len(want_rows) and state[0] <= len(pool)
        for k in np.flatnonzero(~changed):  # an unchanged pair kept its list
            assert before[k] == list(want_rows[want_ptr[k] : want_ptr[k + 1]])


@settings(max_examples=4, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_crowded_cache_equals_recomputing(seed: int) -> None:
    """60 units (the grid's size), moves and removals, against all pairs from scratch."""
    obstacles, units = random_scene(seed, 10, 60)
    index = SightIndex(obstacles, MAP_W, MAP_H)
    cache = SightCache(index, units)
    rng = np.random.default_rng(seed)
    for step in range(6):
        i = int(rng.integers(0, len(units)))
        if step == 3:
            xy = (-1.0e4 - 10.0 * i, -1.0e4)
        else:
            xy = (float(rng.uniform(0, MAP_W)), float(rng.uniform(0, MAP_H)))
        cache.move_unit(i, xy)
        units = units.with_unit(i, xy=xy)
        if step % 2:
            assert_same_batch(cache.batch, index.all_pairs(units))
    assert_same_batch(cache.batch, index.all_pairs(units))
