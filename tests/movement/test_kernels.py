"""The compiled kernels (game.movement._kernels) against the numpy and GEOS code they replace.

Blocker distances, the bitangent test and ring nodes must match the former numpy expressions
bit for bit; obstacle verdicts must match GEOS wherever the kernel does not hand them to GEOS.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from components.terrain import ObstacleSpec
from game.movement import NavMesh, _kernels
from game.movement.navmesh import _AMBIGUITY, TOUCH_TOL, point_segment_distance
from tests.movement import reference_navmesh as ref
from tests.movement.helpers import l_shape, rect, rotated_rect

RNG = np.random.default_rng(20240601)


def _mesh() -> NavMesh:
    obs = [
        rect("a", 5, 3, 7, 9),
        rotated_rect("b", 14, 8, 3, 0.6, 0.7),
        l_shape("c", 20, 3, 5, 1),
        ObstacleSpec("tri", ((26, 12), (29, 15), (24, 16)), 1.0),
        ObstacleSpec("bow", ((8, 12), (11, 15), (11, 12), (8, 15)), 1.0),  # repaired: MultiPolygon
    ]
    return NavMesh(obs, 32.0, 18.0)


def test_point_segment_distance_is_bitwise_the_numpy_one() -> None:
    n = 20_000
    p, a = RNG.uniform(-5, 50, (n, 2)), RNG.uniform(-5, 50, (n, 2))
    b = a + RNG.normal(0, 4, (n, 2))
    b[::9] = a[::9]  # zero-length segments
    want = point_segment_distance(p[None, :, :], a[None, :, :], b[None, :, :])[0]  # numpy path
    got = np.array([_kernels.point_segment(*p[i], *a[i], *b[i]) for i in range(n)])
    assert np.array_equal(want, got)
    # the scalar fast path of point_segment_distance agrees too
    assert all(float(point_segment_distance(p[i], a[i], b[i])) == want[i] for i in range(0, n, 97))


def test_bitangent_test_and_ring_nodes_are_bitwise_the_numpy_ones() -> None:
    mesh = _mesh()
    st = mesh._static(0.5)
    mask = _kernels.static_pairs(st.nodes, st.up, st.un)
    want = ref._tangent_matrix(st.nodes, (st.up, st.un), st.nodes, (st.up, st.un))
    assert np.array_equal(mask, np.triu(want, 1))
    for x, y, br in RNG.uniform([1, 1, 0.2], [30, 16, 1.2], (50, 3)):
        nodes, up, un = ref._circle_nodes(np.array([[x, y, br]]), 0.5, 32)
        rr = (br + 0.5) / math.cos(math.pi / 32)
        got = _kernels.ring_nodes(x, y, rr, mesh._unit)
        assert all(np.array_equal(u, v) for u, v in zip((nodes, up, un), got, strict=True))


def test_blocker_checks_are_bitwise_the_numpy_ones() -> None:
    bl = np.column_stack([RNG.uniform(0, 30, (40, 2)), RNG.uniform(0.2, 1.0, 40)])
    a, b = RNG.uniform(0, 30, (300, 2)), RNG.uniform(0, 30, (300, 2))
    want = ref.NavMesh._blocking(a, b, 0.5, bl)
    for i in range(len(a)):
        k = _kernels.first_blocker_on(*a[i], *b[i], 0.5, bl, TOUCH_TOL)
        hits = np.nonzero(want[i])[0]
        assert k == (hits[0] if len(hits) else -1)
    free = _kernels.blockers_free(a, 0.5, bl, TOUCH_TOL)
    d = np.hypot(a[:, None, 0] - bl[None, :, 0], a[:, None, 1] - bl[None, :, 1])
    assert np.array_equal(free, np.all(d >= bl[None, :, 2] + 0.5 - TOUCH_TOL, axis=1))


def _near_segments(mesh: NavMesh, r: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Segments that start near obstacle edges at distances close to r (touching, just in,
    just out, exactly at the tolerance) and random ones across the map."""
    seg = mesh._seg
    k = RNG.integers(0, len(seg), n)
    t = RNG.uniform(0, 1, n)
    base = seg[k, :2] + t[:, None] * (seg[k, 2:] - seg[k, :2])
    ang = RNG.uniform(0, 2 * math.pi, n)
    off = r + RNG.choice([0.0, -1e-9, 1e-9, -2e-9, 1e-6, -1e-6, 1e-3, -0.3], n)
    a = base + off[:, None] * np.column_stack([np.cos(ang), np.sin(ang)])
    b = a + RNG.normal(0, 3, (n, 2)) * RNG.choice([0.0, 1.0], n)[:, None]
    rand_a, rand_b = RNG.uniform(0, 32, (n, 2)), RNG.uniform(0, 18, (n, 2))
    return np.vstack([a, rand_a]), np.vstack([b, rand_b])


@pytest.mark.parametrize("r", [0.5, 0.25, 1e-3])
def test_obstacle_verdicts_agree_with_geos_outside_the_ambiguity_band(r: float) -> None:
    mesh = _mesh()
    a, b = _near_segments(mesh, r, 3000)
    thr = r - TOUCH_TOL
    status = _kernels.segments_status(a, b, thr, _AMBIGUITY, mesh._box, mesh._ptr, mesh._seg)
    lines = shapely.linestrings(np.stack([a, b], axis=1))
    within = shapely.dwithin(lines, mesh._all, thr)
    decided = status != _kernels.AMBIGUOUS
    assert np.array_equal(status[decided] == _kernels.HIT, within[decided])
    # the band is as thin as promised: only distances within eps of the threshold
    d = shapely.distance(lines[~decided], mesh._all)
    assert np.all(np.abs(d - thr) <= 2 * _AMBIGUITY)
    # points, through the STR tree as the former code asked
    pst = _kernels.points_status(a, r, 32.0, 18.0, TOUCH_TOL, _AMBIGUITY, mesh._box, mesh._ptr, mesh._seg)
    hits = mesh._tree.query(shapely.points(a), predicate="dwithin", distance=thr)
    want = np.zeros(len(a), bool)
    want[hits[0]] = True
    lo = r - TOUCH_TOL
    inside = (a[:, 0] >= lo) & (a[:, 1] >= lo) & (a[:, 0] <= 32.0 - lo) & (a[:, 1] <= 18.0 - lo)
    ok = pst != _kernels.AMBIGUOUS
    assert np.array_equal((pst == _kernels.HIT)[ok], (want | ~inside)[ok])


def test_first_obstacle_is_the_lowest_index_geos_names() -> None:
    mesh = _mesh()
    a, b = _near_segments(mesh, 0.5, 1000)
    thr = 0.5 - TOUCH_TOL
    for i in range(len(a)):
        o, status = _kernels.first_obstacle(*a[i], *b[i], thr, _AMBIGUITY, mesh._box, mesh._ptr, mesh._seg)
        if status == _kernels.AMBIGUOUS:
            continue
        # a zero-length line is a point to GEOS distances, but the STR tree's dwithin query
        # misses what it does not contain, so ask with a point (as the navmesh code does)
        same = bool(np.all(a[i] == b[i]))
        geom = shapely.points(a[i]) if same else shapely.linestrings(np.stack([a[i], b[i]]))
        hits = mesh._tree.query(geom, predicate="dwithin", distance=thr)
        assert o == (int(min(hits)) if len(hits) else -1)


def test_heap_searches_settle_every_reachable_node_once() -> None:
    """Dijkstra over the static graph from every node agrees with a plain Python Dijkstra."""
    import heapq

    mesh = _mesh()
    st = mesh._static(0.5)
    g = mesh._graph(st)
    n = len(st.nodes)
    no_extra = np.zeros(n + 1, np.int64)
    blocked = np.zeros(len(g.ea), bool)
    for src in RNG.integers(0, n, 5).tolist():
        done, dist, _ = _kernels.dijkstra(
            n, n, g.ptr, g.nbr, g.w, g.eid, blocked, no_extra, np.zeros(0, np.int64), np.zeros(0), src, 1e9
        )
        best = {src: 0.0}
        heap = [(0.0, src)]
        while heap:
            d, u = heapq.heappop(heap)
            if d > best[u]:
                continue
            for q in range(g.ptr[u], g.ptr[u + 1]):
                v, nd = int(g.nbr[q]), d + g.w[q]
                if nd < best.get(v, math.inf):
                    best[v] = nd
                    heapq.heappush(heap, (nd, v))
        assert set(np.nonzero(done)[0].tolist()) == set(best)
        assert all(dist[v] == best[v] for v in best)


def test_bitangent_cone_filter_never_drops_a_passing_pair() -> None:
    """``_faces`` (the cone of a node's passing directions against a disc) is only a filter: for
    every point q of a disc that passes :func:`_tangent_ok` from p, it says True."""
    mesh = _mesh()
    checked = 0
    for _ in range(100):
        x, y, rr = *RNG.uniform(0, 30, 2), RNG.uniform(0.3, 2.0)
        nodes, up, un = _kernels.ring_nodes(x, y, rr, mesh._unit)
        cx, cy, rad = *RNG.uniform(0, 30, 2), RNG.uniform(0.0, 3.0)
        ang = RNG.uniform(0, 2 * math.pi, 64)
        dist = rad * np.sqrt(RNG.uniform(0, 1, 64))
        dist[:32] = rad  # the rim, where bitangents touch
        qs = np.column_stack([cx + dist * np.cos(ang), cy + dist * np.sin(ang)])
        for i in range(len(nodes)):
            cone = _kernels._pass_arc(True, *up[i], *un[i])
            faces = _kernels._faces(*cone, *nodes[i], cx, cy, rad)
            for q in qs:
                if _kernels._tangent_ok(*nodes[i], True, *up[i], *un[i], *q, False, 0.0, 0.0, 0.0, 0.0):
                    checked += 1
                    assert faces, (nodes[i], q, (cx, cy, rad))
    assert checked > 300
