"""Legal regions of the moving reactions and their exact checks (game.movement.regions)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import Point

from game.movement import (
    AP_DODGE_MOVE_INCHES,
    RETREAT_SNAP_TOL,
    NavMesh,
    dodge_disc,
    grid_points,
    interpose_points,
    is_legal_dodge_move,
    is_legal_interpose,
    is_legal_retreat,
    is_legal_step,
    nearest_point,
    retreat_arcs,
    retreat_region,
    sample_points,
    snap_retreat,
    step_region,
)
from game.movement.regions import ARC_MARGIN
from tests.movement.helpers import assert_move_legal, free_units, random_free_point, random_maps, rect

W, H = 24.0, 14.0  # non-square
R = 0.5
WALL = rect("wall-1", 10, 3, 11, 11)
NO_UNITS = np.zeros((0, 3))


@pytest.fixture(scope="module")
def mesh() -> NavMesh:
    return NavMesh([WALL], W, H)


def _vertices(region) -> np.ndarray:
    return np.vstack(
        [np.asarray(r.coords) for p in shapely.get_parts(region) for r in (p.exterior, *p.interiors)]
    )


def _dist(points: np.ndarray, c) -> np.ndarray:
    return np.hypot(points[:, 0] - c[0], points[:, 1] - c[1])


# --------------------------------------------------------------------------- step


def test_step_in_the_open_is_a_disc(mesh: NavMesh) -> None:
    reg = step_region(mesh, (5.0, 7.0), R, 1.0)
    assert math.isclose(reg.area, math.pi, rel_tol=1e-3) and reg.area <= math.pi
    assert _dist(_vertices(reg), (5.0, 7.0)).max() <= 1.0 + 1e-12


def test_step_touching_a_wall_is_a_half_disc(mesh: NavMesh) -> None:
    pos = (9.5, 7.0)  # base touches the wall's west face
    reg = step_region(mesh, pos, R, 1.0)
    assert math.isclose(reg.area, math.pi / 2, rel_tol=2e-3)
    assert reg.bounds[2] <= 9.5 + 1e-9
    for q in sample_points(reg, 100, np.random.default_rng(0)):
        assert is_legal_step(mesh, q, pos, R, 1.0) is None


def test_step_touching_a_corner_can_go_round_it(mesh: NavMesh) -> None:
    pos = np.array([10.0, 3.0]) + R * np.array([-1.0, -1.0]) / math.sqrt(2)
    reg = step_region(mesh, pos, R, 1.0)
    # a straight move from a point contact may not head into the corner at all: a half disc,
    # but one that reaches past the corner along both faces
    assert math.isclose(reg.area, math.pi / 2, rel_tol=2e-3)
    assert reg.bounds[2] > 10.3 and reg.bounds[3] > 3.3
    for q in sample_points(reg, 200, np.random.default_rng(1)):
        assert is_legal_step(mesh, q, pos, R, 1.0) is None
        assert_move_legal(mesh, [WALL], pos, q, R, NO_UNITS)


def test_step_excludes_units_and_map_edges(mesh: NavMesh) -> None:
    pos = (1.0, 1.0)  # near the north-west corner of the map
    bl = np.array([[2.5, 1.0, 0.5]])
    reg = step_region(mesh, pos, R, 1.5, bl)
    assert reg.bounds[0] >= R - 1e-9 and reg.bounds[1] >= R - 1e-9
    assert reg.distance(Point(2.5, 1.0)) >= 1.0 - 1e-9
    for q in sample_points(reg, 200, np.random.default_rng(2)):
        assert mesh.free_reason(q, R, bl) is None
        assert is_legal_step(mesh, q, pos, R, 1.5, bl) is None


def test_illegal_steps_are_refused_with_reasons(mesh: NavMesh) -> None:
    bl = np.array([[7.0, 7.0, 0.5]])
    ids = ["red-2"]
    assert (
        is_legal_step(mesh, (5.0, 8.5), (5.0, 7.0), R, 1.0)
        == "a step moves at most 1 in (this one is 1.500 in)"
    )
    assert is_legal_step(mesh, (9.8, 7.0), (9.0, 7.0), R, 1.0) == "destination overlaps obstacle wall-1"
    assert is_legal_step(mesh, (6.5, 7.0), (5.8, 7.0), R, 1.0, bl, ids) == "destination overlaps unit red-2"
    assert is_legal_step(mesh, (0.4, 7.0), (1.0, 7.0), R, 1.0) == "destination outside the map"


# --------------------------------------------------------------------------- retreat


ATT = np.array([5.0, 7.0])
POS = np.array([6.0, 7.0])  # in base contact with the attacker, who stands to the west


def _on_arcs(arcs, n: int, seed: int) -> np.ndarray:
    return arcs.at(np.random.default_rng(seed).random(n) * arcs.length)


def _rounded(q) -> tuple[float, float]:
    return (round(float(q[0]), 6), round(float(q[1]), 6))


def test_one_yard_retreat_in_the_open_is_the_half_circle_away(mesh: NavMesh) -> None:
    bl = np.array([[*ATT, 0.5]])
    arcs = retreat_arcs(mesh, POS, ATT, R, 1.0, 1.0, bl)
    assert len(arcs.arcs) == 1
    rho, s, e = arcs.arcs[0]
    assert rho == 1.0 and math.isclose(s, -math.pi / 2, abs_tol=2 * ARC_MARGIN)
    assert math.isclose(e, math.pi / 2, abs_tol=2 * ARC_MARGIN)
    pts = _on_arcs(arcs, 500, 3)
    assert np.abs(_dist(pts, POS) - 1.0).max() <= 1e-12  # exactly on the arc
    assert np.all(pts[:, 0] >= POS[0] - 1e-9)  # within 90° of straight away (east)
    for q in pts[:100]:
        assert is_legal_retreat(mesh, _rounded(q), POS, ATT, R, 1.0, 1.0, bl) is None
    geom = retreat_region(mesh, POS, ATT, R, 1.0, 1.0, bl)
    assert geom.geom_type == "MultiLineString" and math.isclose(geom.length, math.pi, rel_tol=1e-4)
    vertices = shapely.get_coordinates(geom)
    assert np.abs(_dist(vertices, POS) - 1.0).max() <= 1e-12


def test_a_wider_band_offers_both_ends_and_accepts_between(mesh: NavMesh) -> None:
    bl = np.array([[*ATT, 0.5]])
    arcs = retreat_arcs(mesh, POS, ATT, R, 1.0, 2.0, bl)
    assert sorted({rho for rho, _, _ in arcs.arcs}) == [1.0, 2.0]
    assert math.isclose(arcs.length, 3 * math.pi, rel_tol=1e-4)
    assert is_legal_retreat(mesh, (7.5, 7.0), POS, ATT, R, 1.0, 2.0, bl) is None


def test_a_defender_touching_units_on_both_flanks_can_still_retreat_straight_back(mesh: NavMesh) -> None:
    # Before: the region was the half-annulus minus each flank's shadow, the half-plane beyond
    # the tangent line through the defender's centre; the two half-planes left only the line of
    # straight-back directions, which has no area: empty, though that retreat is legal.
    bl = np.array([[*ATT, 0.5], [6.0, 8.0, 0.5], [6.0, 6.0, 0.5]])
    ids = ["red-1", "blue-2", "blue-3"]
    assert is_legal_retreat(mesh, (7.0, 7.0), POS, ATT, R, 1.0, 1.0, bl, ids) is None
    arcs = retreat_arcs(mesh, POS, ATT, R, 1.0, 1.0, bl)
    assert not arcs.is_empty and len(arcs.arcs) == 1
    _, s, e = arcs.arcs[0]
    assert s < 0.0 < e and e - s < 1e-3  # a thin arc about straight back (touching tolerance)
    for q in _on_arcs(arcs, 50, 4):
        assert is_legal_retreat(mesh, _rounded(q), POS, ATT, R, 1.0, 1.0, bl, ids) is None
    assert is_legal_retreat(
        mesh, (6.0 + math.cos(0.01), 7.0 + math.sin(0.01)), POS, ATT, R, 1.0, 1.0, bl, ids
    ) == ("the way is blocked by unit blue-2")


def test_retreat_against_a_wall_behind(mesh: NavMesh) -> None:
    pos, att = np.array([9.0, 7.0]), np.array([8.0, 7.0])  # wall 0.5 behind the base edge
    arcs = retreat_arcs(mesh, pos, att, R, 1.0, 1.0)
    assert not arcs.is_empty
    pts = _on_arcs(arcs, 200, 5)
    assert pts[:, 0].max() <= 9.5 + 1e-9  # nothing inside the wall
    for q in pts:
        assert is_legal_retreat(mesh, _rounded(q), pos, att, R, 1.0, 1.0) is None
        assert mesh.free_reason(q, R) is None
    assert (
        is_legal_retreat(mesh, (10.0, 7.0), pos, att, R, 1.0, 1.0) == "destination overlaps obstacle wall-1"
    )


def test_no_retreat_leaves_an_empty_region(mesh: NavMesh) -> None:
    pos, att = np.array([9.5, 7.0]), np.array([8.5, 7.0])  # backed against the wall, flanked
    bl = np.array([[*att, 0.5], [9.5, 8.0, 0.5], [9.5, 6.0, 0.5]])
    arcs = retreat_arcs(mesh, pos, att, R, 1.0, 1.0, bl)
    assert arcs.is_empty and arcs().is_empty and arcs.at([0.5]).shape == (0, 2)


def test_illegal_retreats_are_refused(mesh: NavMesh) -> None:
    bl = np.array([[*ATT, 0.5], [7.5, 7.0, 0.5]])
    ids = ["red-1", "blue-2"]
    assert (
        is_legal_retreat(mesh, (6.5, 7.0), POS, ATT, R, 1.0, 1.0)
        == "a retreat moves 1 in (this one is 0.5000 in)"
    )
    assert (
        is_legal_retreat(mesh, (8.5, 7.0), POS, ATT, R, 1.0, 2.0)
        == "a retreat moves 1 to 2 in (this one is 2.5000 in)"
    )
    why = is_legal_retreat(mesh, (5.4, 7.8), POS, ATT, R, 1.0, 1.0)
    assert why == "a retreat must move away from the attacker (within 90° of straight back)"
    assert (
        is_legal_retreat(mesh, (7.0, 7.0), POS, ATT, R, 1.0, 1.0, bl, ids)
        == "destination overlaps unit blue-2"
    )
    assert is_legal_retreat(mesh, (6.0, 8.0), POS, ATT, R, 1.0, 1.0) is None  # exactly sideways is allowed
    assert is_legal_retreat(mesh, (6.0, 8.0 + 1e-7), POS, ATT, R, 1.0, 1.0) is None  # within tolerance


def test_points_near_the_band_stand_for_their_snapped_point(mesh: NavMesh) -> None:
    near = 0.9 * RETREAT_SNAP_TOL
    for d in (1.0 - near, 1.0 + near):
        assert is_legal_retreat(mesh, (6.0 + d, 7.0), POS, ATT, R, 1.0, 1.0) is None
        assert snap_retreat((6.0 + d, 7.0), POS, ATT, 1.0, 1.0) == (7.0, 7.0)
    far = 1.0 + 2 * RETREAT_SNAP_TOL
    assert is_legal_retreat(mesh, (6.0 + far, 7.0), POS, ATT, R, 1.0, 1.0) == (
        f"a retreat moves 1 in (this one is {far:.4f} in)"
    )
    # the snapped point is what is judged: just short of a unit the end would overlap it
    bl = np.array([[8.0 + 1e-4, 7.0, 0.5]])
    assert is_legal_retreat(mesh, (7.0 - near, 7.0), POS, ATT, R, 1.0, 1.0, bl) is None
    bl = np.array([[7.99, 7.0, 0.5]])
    assert (
        is_legal_retreat(mesh, (7.0 - near, 7.0), POS, ATT, R, 1.0, 1.0, bl) == "destination overlaps unit #0"
    )


def test_snap_retreat_projects_onto_the_band() -> None:
    assert snap_retreat((9.0, 7.0), POS, ATT, 1.0, 2.0) == (8.0, 7.0)  # too far: clamp
    assert snap_retreat((6.2, 7.0), POS, ATT, 1.0, 2.0) == (7.0, 7.0)  # too near: push out
    assert snap_retreat(POS, POS, ATT, 1.0, 2.0) == (7.0, 7.0)  # no direction: straight back
    assert snap_retreat((4.0, 8.5), POS, ATT, 1.0, 2.0) == (6.0, 8.5)  # behind: nearest band end
    s = snap_retreat((7.0, 8.0), POS, ATT, 1.0, 1.0)
    assert math.isclose(s[0], 6.0 + math.sqrt(0.5)) and math.isclose(s[1], 7.0 + math.sqrt(0.5))


def test_retreat_arcs_reject_bad_input(mesh: NavMesh) -> None:
    with pytest.raises(ValueError):
        retreat_arcs(mesh, POS, POS, R, 1.0, 1.0)
    with pytest.raises(ValueError):
        retreat_arcs(mesh, POS, ATT, R, 2.0, 1.0)


# --------------------------------------------------------------------------- dodge move


def test_dodge_disc_radius_is_exactly_two_inches(mesh: NavMesh) -> None:
    pos = (5.0, 7.0)
    reg = dodge_disc(mesh, pos, R, AP_DODGE_MOVE_INCHES)
    d = _dist(_vertices(reg), pos)
    assert math.isclose(d.max(), 2.0, abs_tol=1e-12)
    assert math.isclose(reg.area, 4 * math.pi, rel_tol=1e-3)
    assert is_legal_dodge_move(mesh, (7.0, 7.0), pos, R, 2.0) is None
    assert is_legal_dodge_move(mesh, (5.0, 9.0 + 5e-7), pos, R, 2.0) is None
    assert (
        is_legal_dodge_move(mesh, (7.01, 7.0), pos, R, 2.0)
        == "a dodge move is at most 2 in (this one is 2.010 in)"
    )


def test_dodge_disc_is_cut_by_walls_units_and_edges(mesh: NavMesh) -> None:
    pos = (9.0, 12.6)  # south-west of the wall's end, near the south map edge
    bl = np.array([[8.0, 11.0, 0.5]])
    reg = dodge_disc(mesh, pos, R, 2.0, bl)
    assert reg.bounds[3] <= H - R + 1e-9
    for q in sample_points(reg, 300, np.random.default_rng(6)):
        assert is_legal_dodge_move(mesh, q, pos, R, 2.0, bl) is None
        assert_move_legal(mesh, [WALL], pos, q, R, bl)
    assert is_legal_dodge_move(mesh, (9.8, 11.0), pos, R, 2.0, bl) == "destination overlaps obstacle wall-1"
    assert (
        is_legal_dodge_move(mesh, (11.6, 10.0), (9.2, 11.5), R, 3.0)
        == "the way is blocked by obstacle wall-1"
    )


# --------------------------------------------------------------------------- interposition


def test_interpose_points_lie_in_the_line_of_fire(mesh: NavMesh) -> None:
    friend, attacker, me = np.array([3.0, 12.0]), np.array([3.0, 2.0]), np.array([4.2, 7.0])
    bl = np.array([[*friend, 0.5], [*attacker, 0.5]])
    reg = interpose_points(mesh, friend, attacker, me, R, 1.0, bl)
    assert not reg.is_empty
    for q in sample_points(reg, 200, np.random.default_rng(7)):
        assert abs(q[0] - 3.0) <= R + 1e-9  # my base touches the line x = 3
        assert is_legal_interpose(mesh, q, friend, attacker, me, R, 1.0, bl) is None
    best = nearest_point(reg, me)
    assert best is not None and math.isclose(best[0], 3.5, abs_tol=1e-3)


def test_no_interposition_beyond_a_step(mesh: NavMesh) -> None:
    friend, attacker = np.array([3.0, 12.0]), np.array([3.0, 2.0])
    assert interpose_points(mesh, friend, attacker, (5.0, 7.0), R, 1.0).is_empty
    why = is_legal_interpose(mesh, (4.2, 7.0), friend, attacker, (5.0, 7.0), R, 1.0)
    assert why == "the base would not be in the line of fire (0.700 in clear of it)"


# --------------------------------------------------------------------------- sampling


def test_sampling_is_deterministic_and_inside(mesh: NavMesh) -> None:
    reg = step_region(mesh, (9.5, 7.0), R, 1.0)
    a = sample_points(reg, 50, np.random.default_rng(11))
    b = sample_points(reg, 50, np.random.default_rng(11))
    assert a.shape == (50, 2) and np.array_equal(a, b)
    assert shapely.intersects_xy(reg.buffer(1e-9), a[:, 0], a[:, 1]).all()
    assert sample_points(shapely.Polygon(), 5, np.random.default_rng(0)).shape == (0, 2)


def test_grid_points_use_a_global_lattice(mesh: NavMesh) -> None:
    reg = step_region(mesh, (5.0, 7.0), R, 1.0)
    g = grid_points(reg, 0.5)
    assert len(g) == 13  # lattice points within 1" of (5, 7): 0.5" spacing
    assert np.allclose(np.round(g / 0.5) * 0.5, g)
    assert grid_points(shapely.Polygon(), 0.5).shape == (0, 2)
    with pytest.raises(ValueError):
        grid_points(reg, 0.0)
    assert nearest_point(shapely.Polygon(), (0, 0)) is None


# --------------------------------------------------------------------------- random maps


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_maps(max_obstacles=6, max_units=4), st.integers(0, 2**32 - 1))
def test_random_regions_hold_only_legal_destinations(m, seed: int) -> None:
    obstacles, width, height, blockers = m
    mesh = NavMesh(obstacles, width, height)
    bl = free_units(mesh, blockers)
    rng = np.random.default_rng(seed)
    pos = random_free_point(mesh, R, bl, rng)
    if pos is None:
        return
    att = pos + rng.normal(size=2)
    for q in sample_points(step_region(mesh, pos, R, 1.0, bl), 10, rng):
        assert is_legal_step(mesh, q, pos, R, 1.0, bl) is None
        assert_move_legal(mesh, obstacles, pos, q, R, bl)
    for q in sample_points(dodge_disc(mesh, pos, R, 2.0, bl), 10, rng):
        assert is_legal_dodge_move(mesh, q, pos, R, 2.0, bl) is None
    for lo, hi in ((1.0, 1.0), (1.0, 1.5)):
        arcs = retreat_arcs(mesh, pos, att, R, lo, hi, bl)
        for q in arcs.at(rng.random(10) * arcs.length):
            assert is_legal_retreat(mesh, _rounded(q), pos, att, R, lo, hi, bl) is None
            assert_move_legal(mesh, obstacles, pos, q, R, bl)
            assert math.dist(q, att) > math.dist(pos, att)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_maps(max_obstacles=6, max_units=4), st.integers(0, 2**32 - 1), st.booleans())
def test_retreat_arcs_are_exactly_the_legal_directions(m, seed: int, crowd: bool) -> None:
    """The arcs and the check agree on every direction of a fine fan (except within a margin of
    an arc's end), also with units placed in base contact around the defender."""
    obstacles, width, height, blockers = m
    mesh = NavMesh(obstacles, width, height)
    bl = free_units(mesh, blockers)
    rng = np.random.default_rng(seed)
    pos = random_free_point(mesh, R, bl, rng)
    if pos is None:
        return
    if crowd:  # neighbours touching the defender's base (or nearly)
        rows = []
        for ang in rng.uniform(0.0, 2 * math.pi, 3):
            gap = float(rng.choice([0.0, 0.0, 0.05]))
            rows.append([pos[0] + (2 * R + gap) * math.cos(ang), pos[1] + (2 * R + gap) * math.sin(ang), R])
        extra = np.array(rows)
        bl = np.vstack([bl, extra[[mesh.free_reason(p[:2], R, bl) is None for p in extra]]])
        if mesh.free_reason(pos, R, bl) is not None:
            return
    att = pos + rng.normal(size=2)
    arcs = retreat_arcs(mesh, pos, att, R, 1.0, 1.0, bl)
    away = math.atan2(pos[1] - att[1], pos[0] - att[0])
    for ang in np.linspace(away - math.pi / 2, away + math.pi / 2, 361):
        q = (pos[0] + math.cos(ang), pos[1] + math.sin(ang))
        legal = is_legal_retreat(mesh, q, pos, att, R, 1.0, 1.0, bl) is None
        inside = any(s <= ang <= e for _, s, e in arcs.arcs)
        if abs(ang - away) > math.pi / 2 - 2 * ARC_MARGIN or any(
            min(abs(ang - s), abs(ang - e)) < 2 * ARC_MARGIN for _, s, e in arcs.arcs
        ):
            continue
        assert legal == inside, (ang, legal, arcs.arcs)
    if not arcs.is_empty:
        for q in arcs.at(rng.random(20) * arcs.length):
            assert is_legal_retreat(mesh, _rounded(q), pos, att, R, 1.0, 1.0, bl) is None
