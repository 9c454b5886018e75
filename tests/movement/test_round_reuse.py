"""A path search's later lazy rounds reuse the earlier round's query graph and give exactly the
answers of rounds built from scratch.

``NavMesh.path`` adds the blockers a route crosses and searches again; each round passes the
previous round's parts and cross-part edges to ``_kernels.route`` (``_kernels.assemble``). Here
the same searches run with that reuse switched off (every round told that nothing is known), on
crowded random maps where most searches take several rounds: points and lengths must be equal
bit for bit, and the reuse must actually have happened.
"""

from __future__ import annotations

import numpy as np
import pytest

from game.movement import NavMesh
from game.movement import _kernels as kernels
from tests.movement.helpers import assert_path_legal, free_units, random_free_point, rect, rotated_rect


def _crowd(seed: int) -> tuple[list, NavMesh, np.ndarray]:
    rng = np.random.default_rng(seed)
    obstacles = [
        rect("wall", 9.0, 4.0, 10.0, 11.0),
        rotated_rect("slab", 20.0, 9.0, 2.5, 0.6, 0.7),
        rect("hut", 14.0, 13.0, 17.0, 15.0),
    ]
    mesh = NavMesh(obstacles, 30.0, 18.0)
    xs, ys = rng.uniform(1.0, 29.0, 60), rng.uniform(1.0, 17.0, 60)
    raw = np.column_stack([xs, ys, rng.choice([0.5, 0.75, 1.0], 60)])
    return obstacles, mesh, free_units(mesh, raw)


_ROUTE = kernels.route


def _fresh_route(*args):
    """``_kernels.route`` told that no earlier round exists: every part's edges are made anew."""
    *head, omap, _old, _n_old, old_act = args
    return _ROUTE(*head, np.full(len(omap), -1, np.int64), np.zeros((0, 4), np.int64), 0, old_act)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_reused_rounds_equal_fresh_rounds(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    obstacles, mesh, blockers = _crowd(seed)
    rng = np.random.default_rng(100 + seed)
    reused = []  # one entry per round that was handed an earlier round's edges

    def spying_route(*args):
        omap, old = args[-4], args[-3]
        if (omap >= 0).any() and len(old):
            reused.append(True)
        return _ROUTE(*args)

    queries = []
    for _ in range(25):
        k = int(rng.integers(len(blockers)))
        r = float(blockers[k, 2])
        others = np.delete(blockers, k, axis=0)
        goal = random_free_point(mesh, r, others, rng)
        if goal is not None:
            queries.append((tuple(blockers[k, :2]), tuple(goal), r, others))
    monkeypatch.setattr(kernels, "route", spying_route)
    with_reuse = [mesh.path(*q) for q in queries]
    monkeypatch.setattr(kernels, "route", _fresh_route)
    fresh = [NavMesh(obstacles, mesh.width, mesh.height).path(*q) for q in queries]
    assert len(reused) >= 3, "the crowd should make searches take several rounds"
    for q, a, b in zip(queries, with_reuse, fresh, strict=True):
        if a is None or b is None:
            assert a is None and b is None
            continue
        assert a.points == b.points and a.length == b.length
        assert_path_legal(mesh, obstacles, a, q[0], q[1], q[2], q[3])
