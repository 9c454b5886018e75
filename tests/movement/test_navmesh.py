"""Free space, straight moves and shortest paths (game.movement.navmesh)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from components.terrain import ObstacleSpec
from game.movement import NavMesh, Path, as_blockers
from game.movement.navmesh import DEFAULT_QUAD_SEGS
from tests.movement.helpers import (
    assert_path_legal,
    free_units,
    l_shape,
    random_free_point,
    random_maps,
    rect,
)

W, H = 30.0, 17.0  # non-square on purpose: swapped axes put points off the map
R = 0.5


@pytest.fixture(scope="module")
def square_mesh() -> NavMesh:
    return NavMesh([rect("hedge-1", 10, 5, 12, 7)], W, H)


# --------------------------------------------------------------------------- free_reason


@pytest.mark.parametrize(
    ("p", "ok"),
    [
        ((0.5, 8.0), True),  # touching the west edge
        ((0.49, 8.0), False),
        ((29.5, 8.0), True),  # x up to the width (30), not the height (17)
        ((29.51, 8.0), False),
        ((15.0, 16.5), True),  # y up to the height
        ((15.0, 16.51), False),
        ((16.6, 16.6), False),
        ((15.0, 0.5), True),
    ],
)
def test_map_edges(square_mesh: NavMesh, p: tuple[float, float], ok: bool) -> None:
    why = square_mesh.free_reason(p, R)
    assert (why is None) == ok
    if not ok:
        assert why == "outside the map"


def test_touching_an_obstacle_is_allowed_overlapping_is_not(square_mesh: NavMesh) -> None:
    assert square_mesh.free_reason((9.5, 6.0), R) is None  # flat face
    corner = np.array([10.0, 5.0]) + R * np.array([-1.0, -1.0]) / math.sqrt(2)
    assert square_mesh.free_reason(corner, R) is None  # exactly touching the corner
    assert square_mesh.free_reason(corner + 1e-6, R) == "overlaps obstacle hedge-1"
    assert square_mesh.free_reason((9.5 + 1e-6, 6.0), R) == "overlaps obstacle hedge-1"
    assert square_mesh.free_reason((11.0, 6.0), R) == "overlaps obstacle hedge-1"  # inside


def test_units_block_with_their_ids(square_mesh: NavMesh) -> None:
    bl = np.array([[5.0, 5.0, 0.5], [5.0, 8.0, 1.0]])
    assert square_mesh.free_reason((6.0, 5.0), R, bl, ["red-1", "red-2"]) is None  # touching
    assert square_mesh.free_reason((5.9, 5.0), R, bl, ["red-1", "red-2"]) == "overlaps unit red-1"
    assert square_mesh.free_reason((5.0, 9.4), R, bl, ["red-1", "red-2"]) == "overlaps unit red-2"
    assert square_mesh.free_reason((5.0, 9.4), R, bl) == "overlaps unit #1"


def test_blockers_are_validated() -> None:
    assert as_blockers(()).shape == (0, 3)
    assert as_blockers([1, 2, 0.5]).shape == (1, 3)
    with pytest.raises(ValueError):
        as_blockers([[1, 2]])
    mesh = NavMesh([], W, H)
    with pytest.raises(ValueError):
        mesh.free_reason((1, 1), 0.0)


# --------------------------------------------------------------------------- segments


def test_segment_reasons(square_mesh: NavMesh) -> None:
    bl = np.array([[20.0, 6.0, 0.5]])
    ids = ["blue-1"]
    assert square_mesh.segment_reason((8, 6), (8, 12), R, bl, ids) is None
    assert square_mesh.segment_reason((8, 6), (14, 6), R, bl, ids) == "the way is blocked by obstacle hedge-1"
    assert square_mesh.segment_reason((16, 6), (24, 6), R, bl, ids) == "the way is blocked by unit blue-1"
    assert square_mesh.segment_reason((16, 6), (20.5, 6), R, bl, ids) == "destination overlaps unit blue-1"
    assert square_mesh.segment_reason((16, 6), (16, 30), R, bl, ids) == "destination outside the map"
    assert square_mesh.segment_reason((11, 6), (16, 6), R, bl, ids) == "start overlaps obstacle hedge-1"
    # sliding along a face while touching it is fine; so is grazing a unit
    assert square_mesh.segment_clear((9.5, 3.0), (9.5, 9.0), R)
    assert square_mesh.segment_clear((19.0, 4.0), (19.0, 8.0), R, bl)
    assert not square_mesh.segment_clear((19.01, 4.0), (19.01, 8.0), R, bl)


# --------------------------------------------------------------------------- hand-made paths


def test_straight_line_when_clear(square_mesh: NavMesh) -> None:
    p = square_mesh.path((2.0, 12.0), (25.0, 15.0), R)
    assert p == Path(points=((2.0, 12.0), (25.0, 15.0)), length=math.dist((2, 12), (25, 15)))
    assert square_mesh.path((3.0, 3.0), (3.0, 3.0), R) == Path(((3.0, 3.0), (3.0, 3.0)), 0.0)


def test_around_a_single_square_has_the_known_length(square_mesh: NavMesh) -> None:
    p = square_mesh.path((8.0, 6.0), (14.0, 6.0), R)
    assert p is not None
    d = math.sqrt(5.0)  # start to the nearest corner (10, 5)
    exact = 2 * math.sqrt(d * d - R * R) + 2.0 + 2 * R * (math.atan(0.5) + math.asin(R / d))
    assert exact - 1e-9 <= p.length <= exact * 1.003
    assert_path_legal(square_mesh, [rect("hedge-1", 10, 5, 12, 7)], p, (8, 6), (14, 6), R, np.zeros((0, 3)))


def test_around_a_unit_has_the_known_length() -> None:
    mesh = NavMesh([], W, H)
    bl = np.array([[8.0, 5.0, 0.5]])
    p = mesh.path((5.0, 5.0), (11.0, 5.0), R, bl)
    assert p is not None
    big = 1.0  # both radii
    exact = 2 * math.sqrt(9.0 - big * big) + big * (math.pi - 2 * math.acos(big / 3.0))
    assert exact - 1e-9 <= p.length <= exact * 1.003
    assert_path_legal(mesh, [], p, (5, 5), (11, 5), R, bl)


def test_around_the_end_of_a_wall_near_the_map_edge() -> None:
    wall = rect("wall", 10, 0, 11, 12)  # closes the north; the way round is 5" from the south edge
    mesh = NavMesh([wall], W, H)
    p = mesh.path((5.0, 5.0), (16.0, 5.0), R)
    assert p is not None
    d = math.hypot(5.0, 7.0)
    exact = 2 * math.sqrt(d * d - R * R) + 1.0 + 2 * R * (math.atan2(7.0, 5.0) + math.asin(R / d))
    assert exact - 1e-9 <= p.length <= exact * 1.003
    assert max(y for _, y in p.points) > 12.0
    assert_path_legal(mesh, [wall], p, (5, 5), (16, 5), R, np.zeros((0, 3)))


def test_gaps_exactly_as_wide_as_the_base_are_passable_narrower_ones_are_not() -> None:
    walls = [rect("n", 10, 0, 11, 8), rect("s", 10, 9.0, 11, H)]  # gap of 1.0 = 2 r
    mesh = NavMesh(walls, W, H)
    p = mesh.path((5.0, 8.5), (16.0, 8.5), R)
    assert p is not None and math.isclose(p.length, 11.0)
    assert mesh.path((5.0, 8.5), (16.0, 8.5), 0.51) is None  # the only way is shut
    assert mesh.path((5.0, 3.0), (16.0, 3.0), 0.51) is None


def test_units_and_walls_can_shut_the_way() -> None:
    wall = rect("wall", 10, 0, 11, 14)
    mesh = NavMesh([wall], W, H)
    assert mesh.path((5, 5), (16, 5), R) is not None
    plug = np.array([[10.5, 15.5, 1.5]])  # fills the 3" gap at the south end
    assert mesh.path((5, 5), (16, 5), R, plug) is None


def test_unfree_endpoints_give_none(square_mesh: NavMesh) -> None:
    assert square_mesh.path((8, 6), (11, 6), R) is None
    assert square_mesh.path((11, 6), (8, 6), R) is None
    assert square_mesh.path((8, 6), (40, 6), R) is None


def test_non_convex_obstacle_pocket() -> None:
    ell = l_shape("ell", 10, 4, 6, 1)  # arms east and south; the pocket opens south-east
    mesh = NavMesh([ell], W, H)
    start, goal = (13.0, 7.0), (8.0, 2.0)  # from inside the pocket to behind the corner
    p = mesh.path(start, goal, R)
    assert p is not None
    assert_path_legal(mesh, [ell], p, start, goal, R, np.zeros((0, 3)))
    assert p.length > math.dist(start, goal) + 1.0


def test_path_from_base_contact_with_wall_and_unit() -> None:
    wall = rect("wall", 10, 2, 11, 12)
    mesh = NavMesh([wall], W, H)
    bl = np.array([[8.5, 7.0, 0.5]])  # enemy in base contact to the west, wall to the east
    start = (9.5, 7.0)
    p = mesh.path(start, (9.5, 14.0), R, bl)
    assert p is not None and math.isclose(p.length, 7.0)  # slides south along the wall
    q = mesh.path(start, (15.0, 7.0), R, bl)
    assert q is not None
    assert_path_legal(mesh, [wall], q, start, (15.0, 7.0), R, bl)


def test_path_from_base_contact_wraps_the_touched_unit() -> None:
    """Regression: a start touching a unit lies inside that unit's circumscribed ring, and the
    former search could only leave round it one way (on an open map: no path at all). The exact
    answer wraps the unit the short way: 117 deg of arc of radius 1, then the tangent sqrt(3)."""
    mesh = NavMesh([], W, H)
    bl = np.array([[20.0, 3.0, 0.5], [10.0, 8.5, 0.5]])  # blocker 0 is far away
    th = math.radians(-3.0)
    start, goal = (10.0 + math.cos(th), 8.5 + math.sin(th)), (8.0, 8.5)
    p = mesh.path(start, goal, R, bl)
    assert p is not None
    assert_path_legal(mesh, [], p, start, goal, R, bl)
    exact = math.radians(117.0) + math.sqrt(3.0)
    assert exact - 1e-9 <= p.length <= exact + 0.005 * math.radians(117.0)  # ring approximation
    # the reverse move (goal in contact) and a wall on the short side change nothing essential
    q = mesh.path(goal, start, R, bl)
    assert q is not None and math.isclose(q.length, p.length, rel_tol=1e-9)


def test_path_from_contact_with_an_obstacle_corner() -> None:
    """Same for a base touching a corner arc: 85 deg of the corner's arc, then down the face."""
    box = rect("box", 10, 6, 12, 8)
    mesh = NavMesh([box], W, H)
    th = math.radians(265.0)
    start, goal = (10.0 + R * math.cos(th), 6.0 + R * math.sin(th)), (9.5, 10.0)
    p = mesh.path(start, goal, R)
    assert p is not None
    assert_path_legal(mesh, [box], p, start, goal, R, np.zeros((0, 3)))
    exact = R * math.radians(85.0) + 4.0
    assert exact - 1e-9 <= p.length <= exact + 0.005 * R * math.radians(85.0)


def test_cache_does_not_change_answers() -> None:
    obs = [rect("a", 5, 3, 7, 9), rect("b", 12, 6, 14, 16), l_shape("c", 18, 2, 5, 1)]
    bl = np.array([[9.0, 8.0, 0.5], [16.0, 4.0, 0.7]])
    cached, uncached = NavMesh(obs, W, H), NavMesh(obs, W, H, cache_static=False)
    for goal in [(25.0, 10.0), (20.0, 5.0), (13.0, 2.0)]:
        a = cached.path((2.0, 8.0), goal, R, bl)
        b = uncached.path((2.0, 8.0), goal, R, bl)
        assert a is not None and b is not None
        assert a == b
    assert len(cached.static_nodes(R)) > 0


# --------------------------------------------------------------------------- random maps


def _roadmap_length(mesh: NavMesh, start, goal, r: float, bl, rng: np.random.Generator) -> float:
    """Independent upper bound: Dijkstra over a random roadmap of exactly-checked straight moves."""
    pts = [np.asarray(start, float), np.asarray(goal, float)]
    while len(pts) < 80:
        p = random_free_point(mesh, r, bl, rng)
        if p is None:
            break
        pts.append(p)
    n = len(pts)
    dist = [math.inf] * n
    dist[0] = 0.0
    done = [False] * n
    for _ in range(n):
        u = min((d, i) for i, d in enumerate(dist) if not done[i])[1]
        if dist[u] == math.inf:
            break
        done[u] = True
        for v in range(n):
            if not done[v]:
                w = math.dist(pts[u], pts[v])
                if dist[u] + w < dist[v] and mesh.segment_clear(pts[u], pts[v], r, bl):
                    dist[v] = dist[u] + w
    return dist[1]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_maps(), st.sampled_from([0.25, 0.5, 0.8]), st.integers(0, 2**32 - 1))
def test_random_paths_never_cross_anything(m, r: float, seed: int) -> None:
    obstacles, width, height, blockers = m
    mesh = NavMesh(obstacles, width, height)
    bl = free_units(mesh, blockers)
    rng = np.random.default_rng(seed)
    for _ in range(4):
        s, g = random_free_point(mesh, r, bl, rng), random_free_point(mesh, r, bl, rng)
        if s is None or g is None:
            continue
        p = mesh.path(s, g, r, bl)
        if p is not None:
            assert_path_legal(mesh, obstacles, p, s, g, r, bl)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_maps(max_obstacles=4, max_units=3), st.integers(0, 2**32 - 1))
def test_random_paths_are_no_longer_than_a_roadmap_path(m, seed: int) -> None:
    obstacles, width, height, blockers = m
    mesh = NavMesh(obstacles, width, height)
    bl = free_units(mesh, blockers)
    rng = np.random.default_rng(seed)
    s, g = random_free_point(mesh, R, bl, rng), random_free_point(mesh, R, bl, rng)
    if s is None or g is None:
        return
    upper = _roadmap_length(mesh, s, g, R, bl, rng)
    p = mesh.path(s, g, R, bl)
    if upper < math.inf:
        assert p is not None, "a roadmap found a way the navmesh missed"
        assert p.length <= upper * 1.004 + 1e-9


# --------------------------------------------------------------------------- reachable


def test_reachable_in_the_open_is_a_disc() -> None:
    mesh = NavMesh([], W, H)
    reg = mesh.reachable((15.0, 8.0), R, 4.0)
    assert math.isclose(reg.area, math.pi * 16.0, rel_tol=1e-3)
    assert reg.area <= math.pi * 16.0


def test_reachable_goes_round_a_wall_by_path_length() -> None:
    wall = rect("wall", 10, 0, 11, 12)
    mesh = NavMesh([wall], W, H)
    goal = (13.0, 10.0)
    p = mesh.path((8.0, 10.0), goal, R)
    assert p is not None and p.length > 5.0
    assert mesh.reachable((8.0, 10.0), R, p.length + 0.01).contains(shapely_point(goal))
    assert not mesh.reachable((8.0, 10.0), R, p.length - 0.05).intersects(shapely_point(goal))


def shapely_point(p):
    from shapely.geometry import Point

    return Point(p)


def _grazes(a, b, obstacles, bl) -> bool:
    """Whether the leg a-b clears a unit's or a corner's circle by less than the gap between that
    circle and the circumscribed polygon ``reachable`` cuts shadows with: the polygon may then
    hide everything beyond (a known sliver of the inner approximation; ``path`` decides such
    goals exactly). Seen by hypothesis: a leg 0.004" clear of a unit, region 0.034" short."""
    gap = 1.0 / math.cos(math.pi / (4 * DEFAULT_QUAD_SEGS)) - 1.0
    circles = [(x, y, r + R) for x, y, r in np.asarray(bl, dtype=float).reshape(-1, 3)]
    circles += [(x, y, R) for o in obstacles for x, y in o.polygon]
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ab = b - a
    for x, y, rho in circles:
        c = np.array([x, y])
        t = 0.0 if not ab.any() else float(np.clip(np.dot(c - a, ab) / np.dot(ab, ab), 0.0, 1.0))
        if np.hypot(*(a + t * ab - c)) - rho < rho * gap + 1e-9:
            return True
    return False


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(
    m=(
        [ObstacleSpec("o0", ((1.0, 1.0), (3.0, 1.0), (3.0, 3.0), (1.0, 3.0)), 2.0)],
        19.0,
        12.0,
        np.array([[13.0, 3.0, 0.625]]),
    ),
    length=6.0,
    seed=121,
)
@given(random_maps(max_obstacles=5, max_units=3), st.floats(2.0, 8.0), st.integers(0, 2**32 - 1))
def test_reachable_agrees_with_path(m, length: float, seed: int) -> None:
    obstacles, width, height, blockers = m
    mesh = NavMesh(obstacles, width, height)
    bl = free_units(mesh, blockers)
    rng = np.random.default_rng(seed)
    s = random_free_point(mesh, R, bl, rng)
    if s is None:
        return
    reg = mesh.reachable(s, R, length, bl)
    # every path of length <= L ends in the region, up to the slivers the inner approximation
    # leaves at corners: units and corners are 4 * DEFAULT_QUAD_SEGS-gons, whose arcs differ from
    # the circle's by up to 1/cos(pi/32) - 1 = 0.48 % (a hypothesis example: 7.2e-3 at L = 2)
    tol = length * (1.0 / math.cos(math.pi / (4 * DEFAULT_QUAD_SEGS)) - 1.0) + 1e-3
    for _ in range(6):
        g = s + rng.uniform(-length, length, 2)
        if mesh.free_reason(g, R, bl) is not None:
            continue
        p = mesh.path(s, g, R, bl)
        if p is not None and p.length <= length and not _grazes(p.points[-2], g, obstacles, bl):
            assert reg.distance(shapely_point(g)) <= tol
    # and every point of the region is reachable within L
    from game.movement import sample_points

    for q in sample_points(reg, 6, rng):
        p = mesh.path(s, q, R, bl)
        assert p is not None, f"{q} is drawn reachable but has no path"
        assert p.length <= length + 1e-6


def test_free_space_excludes_obstacles_units_and_edges(square_mesh: NavMesh) -> None:
    bl = np.array([[20.0, 8.0, 0.5]])
    fs = square_mesh.free_space(R, bl)
    assert fs.bounds[0] >= R - 1e-9 and fs.bounds[2] <= W - R + 1e-9 and fs.bounds[3] <= H - R + 1e-9
    from game.movement import sample_points

    for q in sample_points(fs, 300, np.random.default_rng(3)):
        assert square_mesh.free_reason(q, R, bl) is None


def test_obstacle_spec_with_bad_polygon_is_repaired() -> None:
    bowtie = ObstacleSpec("bow", ((5, 5), (8, 8), (8, 5), (5, 8)), 1.0)
    mesh = NavMesh([bowtie], W, H)
    assert mesh.free_reason((6.5, 6.0), R) == "overlaps obstacle bow"
    p = mesh.path((3.0, 6.5), (10.0, 6.5), R)
    assert p is not None and p.length > 7.0
