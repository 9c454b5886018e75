"""The kernel-backed NavMesh gives exactly the answers of the former numpy/GEOS one.

``reference_navmesh`` is a frozen copy of the pre-kernel module. Paths must be equal point for
point with bit-identical lengths, verdicts and reasons string for string, regions equal as
geometries, on random maps (including contacts with obstacles, units and the map edge) and
when every close call is handed to GEOS.
"""

from __future__ import annotations

import math
import multiprocessing

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from components.terrain import ObstacleSpec
from game.movement import NavMesh, Path, regions
from game.movement import navmesh as navmesh_module
from tests.movement import reference_navmesh as ref
from tests.movement.helpers import assert_path_legal, free_units, l_shape, random_maps, rect, rotated_rect

W, H = 30.0, 17.0


def same_path(a: Path | None, b: ref.Path | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a.points == b.points and a.length == b.length


# Intended divergence (docs/movement.md, "Contact starts"): an endpoint touching a unit or an
# obstacle corner lies inside that arc's circumscribed ring, where the former code could leave
# round the arc one way only (and the first lazy round held blocker 0, not the crossing
# blockers). It returned longer paths, or None for reachable goals. There the new path must be
# legal (independent shapely check) and never longer than the former one.
SLACK = 1.0 / math.cos(math.pi / 32) + 1e-9  # circumscribed vertex radius / true radius (quad_segs 8)


def in_arc_slack(obstacles, p, r: float, bl: np.ndarray) -> bool:
    corners = [c for o in obstacles for c in o.polygon]
    if any(math.dist(p, c) <= r * SLACK for c in corners):
        return True
    return any(math.dist(p, (x, y)) <= (br + r) * SLACK for x, y, br in bl)


def same_or_larger_reach(obstacles, s, bl: np.ndarray, old_region, new_region) -> bool:
    """``reachable`` covers everything the former one drew: the former drew only the sector a
    path bends into at each node, which left holes of legal points between neighbouring nodes'
    sectors (issue 19); now each node draws its whole star, a superset of its sector up to the
    chords of the polygonal discs (seen: 8e-5 of 26 in^2 not redrawn)."""
    if shapely.to_wkb(old_region) == shapely.to_wkb(new_region):
        return True
    lost = old_region.difference(new_region).area
    return lost <= 1e-4 * max(old_region.area, 1.0)


def same_or_better(obstacles, width, height, s, t, r, bl, p_new: Path | None, p_old) -> bool:
    """Identical to the former path, or (endpoint in an arc's slack) legal and not longer."""
    if same_path(p_new, p_old):
        return True
    if not (in_arc_slack(obstacles, s, r, bl) or in_arc_slack(obstacles, t, r, bl)):
        return False
    if p_new is None:
        return False
    assert_path_legal(NavMesh(obstacles, width, height), obstacles, p_new, s, t, r, bl)
    return p_old is None or p_new.length <= p_old.length + 1e-9


def battle_map(rng: np.random.Generator, width: float = 48.0, height: float = 32.0, n: int = 30):
    """Rotated rectangles, triangles and Ls like benchmarks/paths.py, plus units that touch
    obstacles or each other now and then."""
    obstacles = []
    for k in range(n):
        cx, cy = rng.uniform(3, width - 3), rng.uniform(3, height - 3)
        kind = k % 4
        if kind == 0:
            obstacles.append(
                rotated_rect(f"o{k}", cx, cy, rng.uniform(0.3, 3), rng.uniform(0.3, 1), rng.uniform(0, 3))
            )
        elif kind == 1:
            hw, hh = rng.uniform(0.2, 3), rng.uniform(0.2, 2)
            obstacles.append(rect(f"o{k}", cx - hw, cy - hh, cx + hw, cy + hh))
        elif kind == 2:
            rs, a0 = rng.uniform(0.6, 2.2, 3), rng.uniform(0, 2 * math.pi)
            pts = tuple(
                (cx + q * math.cos(a0 + i * 2.1), cy + q * math.sin(a0 + i * 2.1)) for i, q in enumerate(rs)
            )
            obstacles.append(ObstacleSpec(f"o{k}", pts, 1.0))
        else:
            obstacles.append(l_shape(f"o{k}", cx - 1.5, cy - 1.5, rng.uniform(1.5, 4), rng.uniform(0.3, 1)))
    return obstacles


def place_units(mesh: ref.NavMesh, rng: np.random.Generator, n: int) -> np.ndarray:
    units: list[list[float]] = []
    for _ in range(30 * n):
        if len(units) >= n:
            break
        br = float(rng.choice([0.3, 0.5, 0.8]))
        if units and rng.random() < 0.3:  # base contact with an earlier unit
            x, y, r0 = units[int(rng.integers(len(units)))]
            ang = rng.uniform(0, 2 * math.pi)
            p = np.array([x, y]) + (r0 + br) * np.array([math.cos(ang), math.sin(ang)])
        else:
            p = rng.uniform([0, 0], [mesh.width, mesh.height])
        if mesh.free_reason(p, br, np.array(units).reshape(-1, 3)) is None:
            units.append([float(p[0]), float(p[1]), br])
    return np.array(units).reshape(-1, 3)


def query_points(mesh: ref.NavMesh, bl: np.ndarray, r: float, rng: np.random.Generator, n: int):
    """Random points, points touching units, obstacle faces and corners, the map edge."""
    pts = []
    polys = [shapely.get_coordinates(g) for g in mesh.obstacle_geoms]
    for i in range(n):
        kind = i % 5
        if kind == 1 and len(bl):
            x, y, br = bl[int(rng.integers(len(bl)))]
            ang = rng.uniform(0, 2 * math.pi)
            pts.append(np.array([x, y]) + (br + r) * np.array([math.cos(ang), math.sin(ang)]))
        elif kind == 2 and polys:
            v = polys[int(rng.integers(len(polys)))]
            j = int(rng.integers(len(v) - 1))
            e = v[j + 1] - v[j]
            if math.hypot(*e) < 1e-9:
                continue
            normal = np.array([e[1], -e[0]]) / math.hypot(*e)
            sign = 1.0 if rng.random() < 0.5 else -1.0
            pts.append(v[j] + rng.uniform(0, 1) * e + sign * r * normal)  # on the offset line
        elif kind == 3 and polys:
            v = polys[int(rng.integers(len(polys)))]
            ang = rng.uniform(0, 2 * math.pi)
            pts.append(v[int(rng.integers(len(v)))] + r * np.array([math.cos(ang), math.sin(ang)]))  # corner
        elif kind == 4:
            side = int(rng.integers(4))
            x, y = rng.uniform(r, mesh.width - r), rng.uniform(r, mesh.height - r)
            x = r if side == 0 else mesh.width - r if side == 1 else x
            y = r if side == 2 else mesh.height - r if side == 3 else y
            pts.append(np.array([x, y]))
        else:
            pts.append(rng.uniform([0, 0], [mesh.width, mesh.height]))
    return pts


def assert_same_answers(obstacles, width, height, bl, rng, r_choices=(0.5,), queries=40) -> int:
    old, new = ref.NavMesh(obstacles, width, height), NavMesh(obstacles, width, height)
    ids = [f"u{k}" for k in range(len(bl))]
    found = 0
    for r in r_choices:
        pts = query_points(old, bl, r, rng, queries)
        for i in range(len(pts)):
            s, t = pts[i], pts[(i * 7 + 3) % len(pts)]
            if i % 11 == 0:
                t = s.copy()
            p_old, p_new = old.path(s, t, r, bl), new.path(s, t, r, bl)
            assert same_or_better(obstacles, width, height, s, t, r, bl, p_new, p_old), (
                s,
                t,
                r,
                p_old,
                p_new,
            )
            found += p_new is not None
            assert new.free_reason(s, r, bl, ids) == old.free_reason(s, r, bl, ids)
            assert new.segment_reason(s, t, r, bl, ids) == old.segment_reason(s, t, r, bl, ids)
            assert new.segment_clear(s, t, r, bl) == old.segment_clear(s, t, r, bl)
            if i % 4 == 0 and len(bl) and math.dist(s, t) > 1e-9:
                att = bl[0, :2]
                for fn, args in (
                    (regions.is_legal_step, (t, s, r, 3.0, bl, ids)),
                    (regions.is_legal_dodge_move, (t, s, r, 2.0, bl, ids)),
                    (regions.is_legal_retreat, (t, s, att, r, 1.0, 3.0, bl, ids)),
                    (regions.is_legal_interpose, (t, att, bl[-1, :2], s, r, 3.0, bl, ids)),
                ):
                    try:
                        want = fn(old, *args)
                    except ValueError:
                        continue
                    assert fn(new, *args) == want
    return found


@pytest.mark.parametrize("seed", range(6))
def test_battle_maps_give_identical_answers(seed: int) -> None:
    rng = np.random.default_rng(seed)
    obstacles = battle_map(rng, n=int(rng.integers(0, 31)))
    bl = place_units(ref.NavMesh(obstacles, 48.0, 32.0), rng, int(rng.integers(0, 11)))
    assert assert_same_answers(obstacles, 48.0, 32.0, bl, rng, (0.5, 0.25), queries=40) > 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_maps(), st.sampled_from([0.25, 0.5, 0.8]), st.integers(0, 2**32 - 1))
def test_random_maps_give_identical_answers(m, r: float, seed: int) -> None:
    obstacles, width, height, blockers = m
    bl = free_units(NavMesh(obstacles, width, height), blockers)
    assert_same_answers(obstacles, width, height, bl, np.random.default_rng(seed), (r,), queries=15)


def test_every_close_call_handed_to_geos_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a huge ambiguity band the kernels defer most obstacle verdicts to GEOS, which runs
    every fallback path (points, segments, attachments, route overrides, reasons)."""
    monkeypatch.setattr(navmesh_module, "_AMBIGUITY", 2.0)
    rng = np.random.default_rng(99)
    obstacles = battle_map(rng, 36.0, 24.0, n=14)
    bl = place_units(ref.NavMesh(obstacles, 36.0, 24.0), rng, 6)
    assert assert_same_answers(obstacles, 36.0, 24.0, bl, rng, (0.5,), queries=30) > 0
    old, new = ref.NavMesh(obstacles, 36.0, 24.0), NavMesh(obstacles, 36.0, 24.0)
    s = next(p for p in query_points(old, bl, 0.5, rng, 50) if old.free_reason(p, 0.5, bl) is None)
    a, b = old.reachable(s, 0.5, 5.0, bl), new.reachable(s, 0.5, 5.0, bl)
    assert same_or_larger_reach(obstacles, s, bl, a, b)


def test_reachable_and_regions_are_identical_geometries() -> None:
    rng = np.random.default_rng(5)
    obstacles = battle_map(rng, 36.0, 24.0, n=12)
    bl = place_units(ref.NavMesh(obstacles, 36.0, 24.0), rng, 5)
    old, new = ref.NavMesh(obstacles, 36.0, 24.0), NavMesh(obstacles, 36.0, 24.0)
    done = 0
    for s in query_points(old, bl, 0.5, rng, 12):
        if old.free_reason(s, 0.5, bl) is not None:
            continue
        done += 1
        for length in (2.0, 6.0):
            a, b = old.reachable(s, 0.5, length, bl), new.reachable(s, 0.5, length, bl)
            assert same_or_larger_reach(obstacles, s, bl, a, b)
        assert shapely.to_wkb(new.straight_region(s, 0.5, 3.0, bl)) == shapely.to_wkb(
            old.straight_region(s, 0.5, 3.0, bl)
        )
        att = bl[0, :2] if len(bl) else np.array([0.0, 0.0])
        if math.dist(att, s) > 1e-9:
            a = regions.retreat_region(new, s, att, 0.5, 1.0, 1.0, bl)
            b = regions.retreat_region(old, s, att, 0.5, 1.0, 1.0, bl)
            assert shapely.to_wkb(a) == shapely.to_wkb(b)
    assert done >= 3


# --------------------------------------------------------------------------- edge cases


OBS = [rect("hedge-1", 10, 5, 12, 7), rect("wall", 20, 0, 21, 12), l_shape("ell", 3, 10, 5, 1)]


@pytest.fixture(scope="module")
def meshes() -> tuple[NavMesh, ref.NavMesh]:
    return NavMesh(OBS, W, H), ref.NavMesh(OBS, W, H)


CORNER = (10.0 - 0.5 / math.sqrt(2), 5.0 - 0.5 / math.sqrt(2))  # base touching hedge-1's corner
CASES = [
    ((9.5, 6.0), (14.0, 6.0)),  # start touching a face, goal behind the obstacle
    ((2.0, 6.0), (9.5, 6.0)),  # goal touching a face
    (CORNER, (14.0, 8.0)),  # start touching a corner
    ((15.0, 3.0), CORNER),  # goal touching a corner
    ((9.5 + 1e-6, 6.0), (14.0, 6.0)),  # start just overlapping
    ((3.0, 3.0), (3.0, 3.0)),  # start == goal, free
    ((11.0, 6.0), (11.0, 6.0)),  # start == goal inside an obstacle
    ((0.5, 8.0), (29.5, 8.0)),  # both on the map edge (touching)
    ((0.5, 0.5), (29.5, 16.5)),  # map corners
    ((0.49, 8.0), (5.0, 8.0)),  # start off the map
    ((5.0, 8.0), (15.0, 16.51)),  # goal off the map (y beyond the height, not the width)
    ((19.5, 3.0), (21.5, 3.0)),  # sliding along the wall's faces
    ((4.5, 12.0), (9.0, 16.0)),  # out of the L's pocket
]


@pytest.mark.parametrize(("s", "t"), CASES)
@pytest.mark.parametrize("with_units", [False, True])
def test_edge_cases_match_the_reference(meshes, s, t, with_units: bool) -> None:
    new, old = meshes
    bl = np.array([[16.0, 6.0, 0.5], [14.0, 6.0 + 1.0, 0.5], [25.0, 14.0, 0.8]]) if with_units else ()
    ids = ["red-1", "red-2", "blue-1"]
    assert same_or_better(
        OBS, W, H, s, t, 0.5, np.reshape(bl, (-1, 3)), new.path(s, t, 0.5, bl), old.path(s, t, 0.5, bl)
    )
    assert new.free_reason(s, 0.5, bl, ids) == old.free_reason(s, 0.5, bl, ids)
    assert new.free_reason(t, 0.5, bl, ids) == old.free_reason(t, 0.5, bl, ids)
    assert new.segment_reason(s, t, 0.5, bl, ids) == old.segment_reason(s, t, 0.5, bl, ids)


def test_unreachable_goal_and_start_touching_a_unit(meshes) -> None:
    new, old = meshes
    # a ring of units round the goal: it is free but unreachable
    ring = np.array(
        [[25.0 + 1.4 * math.cos(a), 14.0 + 1.4 * math.sin(a), 0.5] for a in np.arange(8) * math.pi / 4]
    )
    assert new.path((5.0, 3.0), (25.0, 14.0), 0.5, ring) is None
    assert old.path((5.0, 3.0), (25.0, 14.0), 0.5, ring) is None
    # the wall plus a unit plugging the gap at its south end
    plug = np.array([[20.5, 14.5, 2.0]])
    assert new.path((15.0, 5.0), (25.0, 5.0), 0.5, plug) is None
    # starting in base contact with a unit that stands in the way: the one place the answers
    # may differ on purpose (legal and never longer; see same_or_better)
    bl = np.array([[3.0, 3.0, 0.5], [15.5, 9.0, 0.5], [16.5, 9.0, 0.5]])
    for goal in [(18.0, 9.0), (17.5, 14.0), (25.0, 9.0)]:
        p_new, p_old = new.path((14.5, 9.0), goal, 0.5, bl), old.path((14.5, 9.0), goal, 0.5, bl)
        assert same_or_better(OBS, W, H, (14.5, 9.0), goal, 0.5, bl, p_new, p_old)


def test_contact_start_diverges_from_the_reference_on_purpose() -> None:
    """The former code could not leave round a touched unit the far way (the start lies inside
    its circumscribed ring): on an open map it only found a path via blocker 0's ring, 23.8"
    instead of the 3.78" that wrap the unit (117 deg of arc, test_navmesh checks the length)."""
    bl = np.array([[20.0, 3.0, 0.5], [10.0, 8.5, 0.5]])  # blocker 0 far away, the touched unit
    th = math.radians(-3.0)
    start, goal = (10.0 + math.cos(th), 8.5 + math.sin(th)), (8.0, 8.5)
    p_old = ref.NavMesh([], W, H).path(start, goal, 0.5, bl)
    # the former answer: a legal 23.8" detour round blocker 0's ring (the only other nodes), the
    # "intended" first round (crossing blockers only) would find nothing
    assert p_old is not None and math.isclose(p_old.length, 23.800475663162477, rel_tol=1e-9)
    p = NavMesh([], W, H).path(start, goal, 0.5, bl)
    assert p is not None and p.length < 3.79 and same_or_better([], W, H, start, goal, 0.5, bl, p, p_old)


def test_blockers_in_any_array_form(meshes) -> None:
    new, old = meshes
    rows = [[16.0, 6.0, 0.5], [14.0, 7.0, 0.5]]
    want = old.path((8.0, 6.0), (18.0, 6.0), 0.5, np.array(rows))
    big = np.zeros((2, 5))
    big[:, :3] = rows
    frozen = np.array(rows)
    frozen.flags.writeable = False
    for bl in (rows, tuple(map(tuple, rows)), big[:, :3], frozen, np.asfortranarray(rows)):
        assert same_path(new.path((8.0, 6.0), (18.0, 6.0), 0.5, bl), want)
        assert new.free_reason((16.5, 6.0), 0.5, bl) == "overlaps unit #0"


def test_empty_map_and_no_units() -> None:
    new, old = NavMesh([], W, H), ref.NavMesh([], W, H)
    for s, t in [((1.0, 1.0), (29.0, 16.0)), ((0.4, 1.0), (5.0, 5.0))]:
        assert same_path(new.path(s, t, 0.5), old.path(s, t, 0.5))
        bl = np.array([[15.0, 8.5, 1.0]])
        assert same_path(new.path(s, t, 0.5, bl), old.path(s, t, 0.5, bl))


def test_uncached_mesh_gives_the_same_answers() -> None:
    rng = np.random.default_rng(3)
    obstacles = battle_map(rng, 36.0, 24.0, n=10)
    bl = place_units(ref.NavMesh(obstacles, 36.0, 24.0), rng, 4)
    a = NavMesh(obstacles, 36.0, 24.0)
    b = NavMesh(obstacles, 36.0, 24.0, cache_static=False)
    c = NavMesh(obstacles, 36.0, 24.0, cache_attachments=False)
    for s in query_points(ref.NavMesh(obstacles, 36.0, 24.0), bl, 0.5, rng, 8):
        t = rng.uniform([0, 0], [36.0, 24.0])
        p = a.path(s, t, 0.5, bl)
        assert same_path(p, b.path(s, t, 0.5, bl)) and same_path(p, c.path(s, t, 0.5, bl))


def _worker_paths(seed: int) -> list[tuple[tuple[tuple[float, float], ...], float] | None]:
    rng = np.random.default_rng(seed)
    obstacles = battle_map(rng, 36.0, 24.0, n=10)
    mesh = NavMesh(obstacles, 36.0, 24.0)
    out = []
    for _ in range(10):
        s, t = rng.uniform([0, 0], [36.0, 24.0], (2, 2))
        p = mesh.path(s, t, 0.5)
        out.append(None if p is None else (p.points, p.length))
    return out


def test_spawned_worker_processes_give_the_same_paths() -> None:
    """The kernels load from the on-disk cache in fresh (spawned) processes and agree."""
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        got = pool.map(_worker_paths, [1, 2])
    assert got == [_worker_paths(1), _worker_paths(2)]


@pytest.mark.parametrize("seed", range(3))
def test_crowded_battle_maps_give_identical_answers(seed: int) -> None:
    """Crowds (a 40v40 battle): paths weave through many units, the lazy rounds activate dozens
    of blockers, and the query graph's cross-part filters (bitangent cones, part discs) decide
    most pairs; the answers stay the former ones."""
    rng = np.random.default_rng(100 + seed)
    obstacles = battle_map(rng, n=20)
    bl = place_units(ref.NavMesh(obstacles, 48.0, 32.0), rng, 70)
    assert len(bl) >= 50
    assert assert_same_answers(obstacles, 48.0, 32.0, bl, rng, (0.5,), queries=24) > 0
