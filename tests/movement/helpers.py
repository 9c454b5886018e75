"""Shared builders and independent checkers for the movement tests.

The checkers use plain shapely distances on the raw obstacle polygons, not the NavMesh
internals, so they catch mistakes in the inflation and the graph.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import shapely
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, Polygon

from components.terrain import ObstacleSpec
from game.movement import NavMesh, Path

TOL = 1e-6


def rect(oid: str, x0: float, y0: float, x1: float, y1: float, height: float = 2.0) -> ObstacleSpec:
    return ObstacleSpec(oid, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), height)


def rotated_rect(oid: str, cx: float, cy: float, hw: float, hh: float, ang: float) -> ObstacleSpec:
    c, s = math.cos(ang), math.sin(ang)
    pts = [(cx + x * c - y * s, cy + x * s + y * c) for x, y in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh))]
    return ObstacleSpec(oid, tuple(pts), 1.0)


def l_shape(oid: str, x: float, y: float, size: float, thick: float) -> ObstacleSpec:
    """A non-convex L: corner at (x, y), arms east and south."""
    pts = (
        (x, y),
        (x + size, y),
        (x + size, y + thick),
        (x + thick, y + thick),
        (x + thick, y + size),
        (x, y + size),
    )
    return ObstacleSpec(oid, pts, 1.0)


@st.composite
def random_maps(draw: st.DrawFn, max_obstacles: int = 6, max_units: int = 4):
    """(obstacles, width, height, blockers) on a non-square map."""
    width = draw(st.floats(18.0, 36.0))
    height = draw(st.floats(10.0, 24.0).filter(lambda h: abs(h - width) > 2.0))
    n = draw(st.integers(1, max_obstacles))
    obstacles = []
    for k in range(n):
        kind = draw(st.sampled_from(["rect", "rot", "tri", "L"]))
        cx = draw(st.floats(2.0, width - 2.0))
        cy = draw(st.floats(2.0, height - 2.0))
        if kind == "rect":
            hw, hh = draw(st.floats(0.2, 3.0)), draw(st.floats(0.2, 2.0))
            obstacles.append(rect(f"o{k}", cx - hw, cy - hh, cx + hw, cy + hh))
        elif kind == "rot":
            hw, hh = draw(st.floats(0.2, 3.0)), draw(st.floats(0.2, 1.5))
            obstacles.append(rotated_rect(f"o{k}", cx, cy, hw, hh, draw(st.floats(0.0, math.pi))))
        elif kind == "tri":
            rs = [draw(st.floats(0.5, 2.5)) for _ in range(3)]
            a0 = draw(st.floats(0.0, 2 * math.pi))
            pts = tuple(
                (cx + rr * math.cos(a0 + i * 2.1), cy + rr * math.sin(a0 + i * 2.1))
                for i, rr in enumerate(rs)
            )
            obstacles.append(ObstacleSpec(f"o{k}", pts, 1.0))
        else:
            obstacles.append(
                l_shape(f"o{k}", cx - 1.5, cy - 1.5, draw(st.floats(1.5, 4.0)), draw(st.floats(0.3, 1.0)))
            )
    units = []
    for _ in range(draw(st.integers(0, max_units))):
        units.append(
            [draw(st.floats(1.0, width - 1.0)), draw(st.floats(1.0, height - 1.0)), draw(st.floats(0.3, 0.8))]
        )
    blockers = np.array(units, dtype=float).reshape(-1, 3)
    return obstacles, width, height, blockers


def free_units(mesh: NavMesh, blockers: np.ndarray) -> np.ndarray:
    """Drop blockers that overlap obstacles or earlier blockers (a scenario would reject them)."""
    kept: list[np.ndarray] = []
    for b in blockers:
        if mesh.free_reason(b[:2], b[2], np.array(kept).reshape(-1, 3)) is None:
            kept.append(b)
    return np.array(kept).reshape(-1, 3)


def random_free_point(
    mesh: NavMesh, r: float, blockers: np.ndarray, rng: np.random.Generator, tries: int = 200
):
    for _ in range(tries):
        p = rng.uniform([0.0, 0.0], [mesh.width, mesh.height])
        if mesh.free_reason(p, r, blockers) is None:
            return p
    return None


def seg_geom(a, b):
    return Point(a) if math.dist(a, b) < 1e-12 else LineString([a, b])


def assert_move_legal(mesh: NavMesh, obstacles, a, b, r: float, blockers: np.ndarray) -> None:
    """Independent check that a base of radius r sliding a->b overlaps nothing (within TOL)."""
    seg = seg_geom(a, b)
    for o in obstacles:
        poly = shapely.make_valid(Polygon(o.polygon))
        d = shapely.distance(seg, poly)
        assert d >= r - TOL, f"segment {a}->{b} comes {r - d:.2e} into obstacle {o.id}"
        assert seg.buffer(r, quad_segs=16).intersection(poly).area <= TOL
    for x, y, br in blockers:
        d = shapely.distance(seg, Point(x, y))
        assert d >= r + br - TOL, f"segment {a}->{b} comes {r + br - d:.2e} into unit at ({x}, {y})"
    for p in (a, b):
        assert r - TOL <= p[0] <= mesh.width - r + TOL and r - TOL <= p[1] <= mesh.height - r + TOL


def assert_path_legal(
    mesh: NavMesh, obstacles, path: Path, start, goal, r: float, blockers: np.ndarray
) -> None:
    pts = np.asarray(path.points)
    assert len(pts) >= 2
    assert np.allclose(pts[0], start) and np.allclose(pts[-1], goal)
    assert math.isclose(
        path.length, float(np.hypot(*np.diff(pts, axis=0).T).sum()), rel_tol=1e-12, abs_tol=1e-12
    )
    assert path.length >= math.dist(start, goal) - 1e-9
    for a, b in itertools.pairwise(pts):
        assert_move_legal(mesh, obstacles, a, b, r, blockers)
