"""SightCache stays equal to recomputing every pair from scratch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.geometry import SightBatch, SightCache, SightIndex
from tests.geometry.scenes import MAP_H, MAP_W, random_scene


def assert_same_batch(got: SightBatch, want: SightBatch) -> None:
    """Equal facts; fractions to 1e-12 (pairs batched differently are summed in another order)."""
    np.testing.assert_allclose(got.cover_fraction, want.cover_fraction, atol=1e-12)
    for k in range(len(want)):
        g, w = got.facts(k), want.facts(k)
        assert (g.attacker, g.target, g.visible, g.cover, g.intervening, g.hidden, g.arc, g.distance) == (
            w.attacker,
            w.target,
            w.visible,
            w.cover,
            w.intervening,
            w.hidden,
            w.arc,
            w.distance,
        )


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 15), st.integers(1, 8))
def test_cache_equals_recomputing_after_random_moves(seed: int, n_obstacles: int, n_moves: int) -> None:
    obstacles, units = random_scene(seed, n_obstacles, 6)
    index = SightIndex(obstacles, MAP_W, MAP_H)
    cache = SightCache(index, units)
    rng = np.random.default_rng(seed ^ 0x5EED)
    for step in range(n_moves):
        i = int(rng.integers(0, len(units)))
        kind = rng.integers(0, 3)
        xy = (float(rng.uniform(0, MAP_W)), float(rng.uniform(0, MAP_H))) if kind == 0 else None
        height = float(rng.choice([1.0, 0.6, 0.25])) if kind == 1 else None
        facing = float(rng.uniform(0, 360)) if kind == 2 or step % 3 == 0 else None
        cache.move_unit(i, xy, height, facing)
        units = units.with_unit(i, xy=xy, height=height, facing=facing)
        if rng.random() < 0.5:  # sometimes several moves before the next question
            assert_same_batch(cache.batch, index.all_pairs(units))
    assert_same_batch(cache.batch, index.all_pairs(units))


def test_cache_questions() -> None:
    obstacles, units = random_scene(5, 8, 5)
    index = SightIndex(obstacles, MAP_W, MAP_H)
    cache = SightCache(index, units)
    assert cache.facts(1, 3).cover_fraction == pytest.approx(
        index.facts(units, 1, 3).cover_fraction, abs=1e-12
    )
    vis = cache.visible_matrix()
    assert not vis.diagonal().any()
    enemies = np.array([False, True, True, False, True])
    seen = cache.visible_enemies(0, enemies)
    assert list(seen) == [t for t in (1, 2, 4) if vis[0, t]]
    frac = cache.fraction_matrix()
    assert frac[1, 3] == cache.facts(1, 3).cover_fraction
    with pytest.raises(ValueError):
        cache.facts(2, 2)
    cache.set_units(units.with_unit(0, xy=(1.0, 1.0)))
    assert_same_batch(cache.batch, index.all_pairs(cache.units))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12))
def test_incremental_refresh_equals_full_assembly_in_a_crowd(seed: int, n_moves: int) -> None:
    """Many units, moves into each other's sight lines: every array equals a fresh batch."""
    obstacles, units = random_scene(seed, 4, 24)
    index = SightIndex(obstacles, MAP_W, MAP_H)
    cache = SightCache(index, units)
    rng = np.random.default_rng(seed ^ 0xC20D)
    for _ in range(n_moves):
        i = int(rng.integers(0, len(units)))
        j = int(rng.integers(0, len(units)))
        # half the moves land next to another unit's centre, so into sight lines through it
        near = units.xy[j] + rng.normal(0.0, 0.8, 2)
        far = rng.uniform((0, 0), (MAP_W, MAP_H))
        xy = tuple(float(v) for v in (near if rng.random() < 0.5 else far))
        facing = float(rng.uniform(0, 360)) if rng.random() < 0.5 else None
        cache.move_unit(i, (xy[0], xy[1]), None, facing)
        units = units.with_unit(i, xy=(xy[0], xy[1]), facing=facing)
        got, want = cache.batch, index.all_pairs(units)
        for name in ("intervening_ptr", "intervening_idx", "visible", "level", "hidden", "arc"):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)
        for name in ("distance", "unit_screen"):  # obstacle_screen: the cache computes all
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)
        np.testing.assert_allclose(got.cover_fraction, want.cover_fraction, atol=1e-12)
    assert [f.intervening for f in cache.batch.all_facts()] == [
        cache.batch.facts(k).intervening for k in range(len(cache.batch))
    ]


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_remembered_facts_follow_every_change(seed: int) -> None:
    """Facts asked for before a change are remembered only while no change reaches their pair."""
    obstacles, units = random_scene(seed, 8, 7)
    index = SightIndex(obstacles, MAP_W, MAP_H)
    cache = SightCache(index, units)
    rng = np.random.default_rng(seed)
    n = len(units)
    for _ in range(8):
        for a in range(n):  # ask about every pair, then change one unit
            for t in range(n):
                if a != t:
                    cache.facts(a, t)
        i = int(rng.integers(0, n))
        kind = rng.integers(0, 3)
        xy = (float(rng.uniform(0, MAP_W)), float(rng.uniform(0, MAP_H))) if kind == 0 else None
        height = float(rng.choice([1.0, 0.6, 0.25])) if kind == 1 else None
        facing = float(rng.uniform(0, 360)) if kind == 2 else None
        cache.move_unit(i, xy, height, facing)
        units = units.with_unit(i, xy=xy, height=height, facing=facing)
        want = index.all_pairs(units)
        for k in range(len(want)):
            a, t = int(want.attackers[k]), int(want.targets[k])
            g, w = cache.facts(a, t), want.facts(k)
            assert (g.visible, g.cover, g.intervening, g.hidden, g.arc, g.distance) == (
                w.visible,
                w.cover,
                w.intervening,
                w.hidden,
                w.arc,
                w.distance,
            )
