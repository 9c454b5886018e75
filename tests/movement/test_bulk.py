"""The bulk movement verdicts give the one-by-one answers (issue 27: a learning agent's mask).

- :meth:`NavMesh.straight_codes` is :meth:`NavMesh.path`'s own first verdict: 0 where ``path``
  is None, 1 where it is the straight segment of length ``math.dist``.
- :func:`game.movement.regions.legal_steps` is ``is_legal_step(...) is None`` point for point.
- :meth:`NavMesh.segment_codes` agrees with :meth:`NavMesh.segment_reason`.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from game.movement import NavMesh
from game.movement.navmesh import SEGMENT_ASK, SEGMENT_FREE
from game.movement.regions import is_legal_step, legal_steps
from tests.movement.helpers import l_shape, rect

W, H = 24.0, 16.0
R = 0.5
OBSTACLES = [rect("wall-1", 10, 3, 11, 11), l_shape("l-1", 15, 9, 5, 1)]
BLOCKERS = np.array([[6.0, 8.0, 0.5], [13.0, 5.0, 0.75]])


@pytest.fixture(scope="module")
def mesh() -> NavMesh:
    return NavMesh(OBSTACLES, W, H)


def _goals(seed: int, start: tuple[float, float], reach: float, n: int = 300) -> list[tuple[float, float]]:
    rng = np.random.default_rng(seed)
    pts = np.array(start) + rng.uniform(-reach, reach, size=(n, 2))
    # a few exactly on the map's edge, and the start itself
    pts[:5, 0] = R
    return [(float(x), float(y)) for x, y in pts] + [start]


@pytest.mark.parametrize("start", [(4.0, 4.0), (8.5, 7.0), (12.0, 6.5), (R, 8.0)])
def test_straight_codes_are_the_path_searchs_first_verdict(mesh: NavMesh, start: tuple[float, float]):
    goals = _goals(1, start, 9.0)
    codes = mesh.straight_codes(start, np.array(goals), R, BLOCKERS)
    assert {0, 1, 2} <= set(codes.tolist())
    for goal, code in zip(goals, codes.tolist(), strict=True):
        path = mesh.path(start, goal, R, BLOCKERS)
        if code == 0:
            assert path is None
        elif code == 1:
            assert path is not None and len(path.points) == 2
            assert path.length == math.dist(start, goal)


@pytest.mark.parametrize("start", [(4.0, 4.0), (9.0, 6.0), (12.0, 6.5), (R, 8.0), (6.0, 9.0)])
def test_legal_steps_are_is_legal_step_point_for_point(mesh: NavMesh, start: tuple[float, float]):
    goals = _goals(2, start, 1.5)
    got = legal_steps(mesh, goals, start, R, 1.0, BLOCKERS, ("a", "b"))
    want = [is_legal_step(mesh, g, start, R, 1.0, BLOCKERS, ("a", "b")) is None for g in goals]
    assert got == want
    assert any(got) and not all(got)
    codes = mesh.segment_codes(start, goals, R, BLOCKERS)
    for g, code in zip(goals, codes, strict=True):
        if code != SEGMENT_ASK:
            assert (code == SEGMENT_FREE) == (mesh.segment_reason(start, g, R, BLOCKERS) is None)
