"""Edge cases of the compiled kernels (game.geometry.kernel), each checked against the oracle.

The kernels take shortcuts the oracle does not: a grid broad phase, a "one piece hides the
whole window" test, blockers remembered between pairs, vectors instead of angles for the
spans, a per-target list of screening obstacles. These tests aim at the cases where such a
shortcut could be wrong.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from components.terrain import ObstacleSpec
from game.geometry import SightIndex, UnitTable, kernel, sight_reference
from game.geometry.reference import sight_profile
from tests.geometry.reference_intervening import intervening_all
from tests.geometry.scenes import HIGH, LOW, MAP_H, MAP_W, box, poly, random_scene, table
from tests.geometry.test_properties import assert_same_facts

#: The attacker at (2, 6), the target 10 inches east (see test_cases.py).
LINE = (("a", (2.0, 6.0), "standing"), ("t", (12.0, 6.0), "standing", 180.0))
ALPHA = math.asin(0.05)


def same_as_oracle(obstacles: list[ObstacleSpec], units: UnitTable) -> None:
    """Every ordered pair through all_pairs and through one-pair queries equals the oracle."""
    index = SightIndex(obstacles, MAP_W, MAP_H)
    batch = index.all_pairs(units)
    for k in range(len(batch)):
        a, t = int(batch.attackers[k]), int(batch.targets[k])
        ref = sight_reference(obstacles, units, a, t)
        assert_same_facts(batch.facts(k), ref)
        assert_same_facts(index.facts(units, a, t), ref)


# ------------------------------------------------------------------ sizes
def test_zero_pairs_and_zero_points() -> None:
    units = table(*LINE)
    index = SightIndex([box("wall", 6, 3, 6.5, 9)], MAP_W, MAP_H)
    empty = np.zeros(0, dtype=np.int64)
    batch = index.query(units, empty, empty)
    assert len(batch) == 0 and batch.all_facts() == [] and list(batch.intervening_ptr) == [0]
    assert index.cover_at_points(units, 0, np.zeros((0, 2)), 1.0, 0.5).shape == (0,)
    assert index.exposure_at_points(units, np.zeros((0, 2)), 1.0, 0.5, 1.0, np.array([0, 1])).shape == (0, 2)
    assert index.exposure_at_points(units, np.ones((3, 2)), 1.0, 0.5, 1.0, empty).shape == (3, 0)
    assert len(index.all_pairs(table(LINE[0]))) == 0
    assert len(index.all_pairs(UnitTable.build([]))) == 0


def test_rows_out_of_range_are_refused() -> None:
    # the kernels do not check indices: the wrappers must
    units = table(*LINE)
    index = SightIndex([box("wall", 6, 3, 6.5, 9)], MAP_W, MAP_H)
    with pytest.raises(IndexError):
        index.query(units, np.array([0]), np.array([2]))
    with pytest.raises(IndexError):
        index.cover(units, np.array([-1]), np.array([1]))
    with pytest.raises(IndexError):
        index.cover_at_points(units, 5, np.ones((2, 2)), 1.0, 0.5)
    with pytest.raises(IndexError):
        index.cover_kernel(units.xy, units.eye, np.array([2]), np.ones(1), np.ones(1), np.ones(1), np.ones(1))
    with pytest.raises(IndexError):
        SightIndex.corridor_hits(units, np.array([0]), np.array([1]), np.array([3]))


def test_one_pair_equals_the_same_pair_among_all() -> None:
    obstacles, units = random_scene(7, 25, 6)
    index = SightIndex(obstacles, MAP_W, MAP_H)
    batch = index.all_pairs(units)
    for k in range(len(batch)):
        one = index.facts(units, int(batch.attackers[k]), int(batch.targets[k]))
        assert one.cover_fraction == pytest.approx(batch.cover_fraction[k], abs=1e-12)
        assert (one.cover, one.visible, one.hidden, one.intervening, one.arc, one.distance) == (
            batch.facts(k).cover,
            batch.facts(k).visible,
            batch.facts(k).hidden,
            batch.facts(k).intervening,
            batch.facts(k).arc,
            batch.facts(k).distance,
        )


def test_no_obstacles_and_no_candidate_pieces() -> None:
    units = table(*LINE, ("m", (7.0, 6.0), "standing"))  # a cover unit, too far to screen
    assert SightIndex([], MAP_W, MAP_H).facts(units, 0, 1).cover_fraction == 0.0
    # obstacles, but none near the sight line: the broad phase finds no candidate
    far = [box("n", 20, 1, 22, 2), box("s", 3, 10.5, 5, 11.5), poly("tri", [(25, 8), (28, 8), (26, 11)])]
    f = SightIndex(far, MAP_W, MAP_H).facts(units, 0, 1)
    assert f.cover_fraction == 0.0 and f.visible and f.intervening == ("m",) and not f.hidden
    same_as_oracle(far, units)


# ------------------------------------------------------------------ degenerate windows
def test_degenerate_windows() -> None:
    wall = box("wall", 4, 3, 4.5, 9, LOW)
    units = table(
        ("a", (2.0, 6.0), "standing"),
        ("same", (2.0, 6.0), "prone"),  # on the attacker's centre: D = 0
        ("overlap", (2.3, 6.1), "standing"),  # the attacker stands on its base: α = π/2
        ("flat", (9.0, 6.0), 0.0),  # zero height (as a removed unit): fraction 0
        ("far", (28.0, 6.0), "kneeling"),
    )
    index = SightIndex([wall], MAP_W, MAP_H)
    assert index.facts(units, 0, 1).cover_fraction == 0.0
    assert index.facts(units, 0, 1).visible
    assert index.facts(units, 0, 3).cover_fraction == 0.0
    same_as_oracle([wall], units)


def test_zero_height_target_with_a_cover_unit_can_still_be_hidden() -> None:
    # no fraction (nothing to hide), but an intervening unit gives cover and the wall next to
    # the target takes part in the cover: the oracle calls it hidden, so must the kernel
    units = table(*LINE[:1], ("t", (12.0, 6.0), 0.0), ("m", (8.0, 6.0), "standing"))
    wall = box("wall", 11.0, 3, 11.3, 6.2)
    f = SightIndex([wall], MAP_W, MAP_H).facts(units, 0, 1)
    ref = sight_reference([wall], units, 0, 1)
    assert f.cover_fraction == ref.cover_fraction == 0.0
    assert f.hidden == ref.hidden
    assert ref.hidden


# ------------------------------------------------------------------ attacker inside a piece
@pytest.mark.parametrize("height", [HIGH, LOW, 0.95])
@pytest.mark.parametrize(
    "at",
    [
        (5.0, 6.0),  # inside
        (4.0, 6.0),  # on an edge (west side of the box)
        (4.0, 5.0),  # on a corner
        (6.0, 6.5),  # on the edge facing the target
    ],
)
def test_attacker_inside_or_on_a_piece(height: float, at: tuple[float, float]) -> None:
    woods = box("woods", 4, 5, 6, 7, height)
    ruin = poly("ruin", [(4, 5), (7, 5), (7, 5.6), (4.6, 5.6), (4.6, 8), (4, 8)], height)  # concave
    for obstacle in (woods, ruin):
        units = table(("a", at, "standing"), ("t", (12.0, 6.0), "standing"), ("w", (0.5, 6.0), "kneeling"))
        same_as_oracle([obstacle], units)


# ------------------------------------------------------------------ grazing and exact ties
def test_a_tall_piece_grazing_a_window_edge_does_not_block_the_whole_window() -> None:
    # A triangle with one edge exactly along the window's northern boundary ray: the rays inside
    # the window pass through it, the boundary ray only runs along its edge.
    d = (math.cos(ALPHA), -math.sin(ALPHA))  # direction of the boundary ray at u = −α (north)
    p0 = (2.0 + 3.0 * d[0], 6.0 + 3.0 * d[1])
    p1 = (2.0 + 6.0 * d[0], 6.0 + 6.0 * d[1])
    wedge = poly("wedge", [p0, p1, (p1[0], 9.0)])
    units = table(*LINE)
    same_as_oracle([wedge], units)
    # a corner exactly on the boundary ray, the rest outside the window: no cover at all
    corner = poly("corner", [p0, (p0[0] - 1.0, 3.0), (p0[0] + 1.0, 3.0)])
    assert SightIndex([corner], MAP_W, MAP_H).facts(units, 0, 1).cover_fraction == 0.0
    same_as_oracle([corner], units)


def test_a_blocker_ending_exactly_at_the_target_distance() -> None:
    # the wall's far side is on the circle of radius D only at the centre line
    units = table(*LINE)
    walls = [box("wall", 11.5, 2, 12.0, 10), box("thin", 11.9, 5.0, 12.0, 7.0, LOW)]
    same_as_oracle(walls, units)


def test_remembered_blockers_are_rechecked_for_every_pair() -> None:
    # One wall hides the prone targets from the attacker but not the standing one behind a
    # gap in the wall, nor anything from a taller eye: remembered blockers must not leak.
    wall = box("wall", 6, 1, 6.4, 11, 0.4)
    posts = [box(f"p{i}", 8.0, 1.0 + i, 8.3, 1.3 + i) for i in range(0, 10, 2)]
    units = table(
        ("a", (2.0, 6.0), "kneeling"),
        ("b", (2.5, 2.0), "standing"),
        ("c", (12.0, 6.0), "prone"),
        ("d", (12.0, 3.0), "standing"),
        ("e", (12.0, 9.0), "prone"),
        ("f", (14.0, 1.0), "crawling"),
    )
    same_as_oracle([wall, *posts], units)


# ------------------------------------------------------------------ hidden rule
def test_many_obstacles_near_the_target_screen_like_the_oracle() -> None:
    # more small obstacles within reach of the target than the kernel lists per target
    ring = [
        box(
            f"r{i}",
            12.0 + 0.8 * math.cos(i),
            6.0 + 0.8 * math.sin(i),
            12.1 + 0.8 * math.cos(i),
            6.1 + 0.8 * math.sin(i),
            LOW,
            0.5 if i % 3 else 1.0,
        )
        for i in range(12)
    ]
    units = table(*LINE, ("m", (9.0, 6.1), "kneeling"), ("n", (14.0, 8.0), "standing"))
    same_as_oracle([*ring, box("north", 6, 2, 6.5, 5.95)], units)


# ------------------------------------------------------------------ larger random tables
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_fast_equals_reference_with_many_units_and_obstacles(seed: int) -> None:
    """More units and obstacles than the property tests: memories, grid cells, screen lists."""
    obstacles, units = random_scene(seed, 30, 7)
    same_as_oracle(obstacles, units)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12))
def test_contributions_equal_the_oracles(seed: int, n_obstacles: int) -> None:
    obstacles, units = random_scene(seed, n_obstacles, 2)
    index = SightIndex(obstacles, MAP_W, MAP_H)
    prof = sight_profile(
        obstacles,
        tuple(units.xy[0]),
        float(units.eye[0]),
        tuple(units.xy[1]),
        float(units.base[1]),
        float(units.height[1]),
    )
    want = {obstacles[i].id: s for i, s in prof.contributions().items() if s > 1e-12}
    got = {k: s for k, s in index.contributions(units, 0, 1).items() if s > 1e-12}
    assert set(got) == set(want)
    for key, share in want.items():
        assert got[key] == pytest.approx(share, abs=1e-9)


# ------------------------------------------------------------------ compilation
def test_every_kernel_has_one_signature_and_accepts_read_only_arrays() -> None:
    units = table(*LINE)  # UnitTable arrays are read-only
    index = SightIndex([box("wall", 6, 3, 6.5, 9)], MAP_W, MAP_H)
    index.all_pairs(units)
    SightIndex.corridor_hits(units, np.array([0]), np.array([1]), np.array([0]))
    for fn in (
        kernel.cover_pairs,
        kernel.intervening_rows,
        kernel.intervening_update,
        kernel.intervening_distances,
        kernel.pool_csr,
        kernel.assemble_update,
        kernel.corridor_hits,
        kernel.assemble,
    ):
        assert len(fn.signatures) == 1, fn.__name__


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(48, 160), st.booleans())
def test_intervening_grid_broad_phase_equals_scanning_every_unit(seed: int, n: int, far: bool) -> None:
    """From 48 units intervening_rows filters by a unit grid: same rows, same order, ties included."""
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0.0, 30.0, (n, 2))
    xy[: n // 4] = np.round(xy[: n // 4])  # equal distances (ties are ordered by row)
    xy[n // 4 : n // 4 + 3] = xy[0]  # coincident units
    if far:  # a removed unit parked far away stretches the grid
        xy[-1] = (-1.0e4, -1.0e4)
    base = rng.choice([0.5, 0.5, 0.75, 1.0], n)
    a, t = np.nonzero(~np.eye(n, dtype=bool))
    a, t = a.astype(np.int64), t.astype(np.int64)
    ptr, rows = kernel.intervening_rows(xy, base, a, t)
    want_ptr, want_rows = intervening_all(xy, base, a, t)
    np.testing.assert_array_equal(ptr, want_ptr)
    np.testing.assert_array_equal(rows, want_rows)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([60, 120]))
def test_intervening_fan_equals_scanning_every_unit(seed: int, n: int) -> None:
    """The per-attacker fan (units by bearing, ranked once): a lattice puts targets exactly west
    of attackers (bearing +pi, the buckets' seam), in line with one another (many ties), units
    touching the attacker (every bucket) and pairs of one attacker in runs of every length."""
    rng = np.random.default_rng(seed)
    side = math.isqrt(n) + 1
    cells = rng.permutation(side * side)[:n]
    xy = np.column_stack([cells % side, cells // side]).astype(np.float64) * rng.choice([0.8, 1.0, 1.7])
    xy[: n // 6] += rng.uniform(-0.6, 0.6, (n // 6, 2))
    xy[n // 6] = xy[n // 6 + 1] + (0.3, 0.0)  # within a base of another unit
    base = rng.choice([0.5, 0.5, 0.75, 1.0], n)
    a, t = np.nonzero(~np.eye(n, dtype=bool))
    keep = rng.random(len(a)) < 0.7  # runs of one attacker cut to random lengths
    a, t = a[keep].astype(np.int64), t[keep].astype(np.int64)
    ptr, rows = kernel.intervening_rows(xy, base, a, t)
    want_ptr, want_rows = intervening_all(xy, base, a, t)
    np.testing.assert_array_equal(ptr, want_ptr)
    np.testing.assert_array_equal(rows, want_rows)
