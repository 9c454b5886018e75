"""Benchmark: shortest-path queries per CPU second on a 48x32 map, with and without the caches.

Run: ``.venv/bin/python benchmarks/paths.py [--queries N] [--rounds K] [--seed S] [--reference]``.
The map has 30 random rectangular and triangular obstacles (rotated) and 10 unit bases; each
query routes a base of radius 0.5 between two random free points past the other units.
"Cached" is the default NavMesh (static graph per radius + attachments of unmoved units);
"uncached" rebuilds everything per query. Rates are paths per CPU second of this process
(``time.process_time``: the machine has two shared cores, wall-clock rates swing by ±50 %
with other jobs), best of K rounds of fresh queries; wall-clock rates are printed alongside.
``--reference`` also runs the frozen pre-kernel implementation
(``tests/movement/reference_navmesh.py``) on the same queries and checks the answers agree.
The last line is ``paths 48x32: <n> paths/s cached, <n> uncached, speedup <r>x``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path as FsPath
from typing import Any

import numpy as np

from components.terrain import ObstacleSpec
from game.movement import NavMesh

WIDTH, HEIGHT = 48.0, 32.0
N_OBSTACLES, N_UNITS, RADIUS = 30, 10, 0.5


def make_map(rng: np.random.Generator) -> tuple[list[ObstacleSpec], np.ndarray]:
    """30 obstacles (rotated rectangles and triangles) and 10 free unit bases."""
    obstacles = []
    for k in range(N_OBSTACLES):
        cx, cy = rng.uniform(3, WIDTH - 3), rng.uniform(3, HEIGHT - 3)
        ang = rng.uniform(0, math.pi)
        if k % 3 == 2:
            radii = rng.uniform(0.8, 2.0, 3)
            angles = ang + np.array([0.0, 2.1, 4.2])
            pts = np.column_stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)])
        else:
            hw, hh = rng.uniform(0.3, 3.0), rng.uniform(0.3, 1.0)
            local = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
            rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
            pts = local @ rot.T + [cx, cy]
        obstacles.append(ObstacleSpec(f"o{k}", tuple(map(tuple, pts.tolist())), 1.0))
    mesh = NavMesh(obstacles, WIDTH, HEIGHT)
    units: list[list[float]] = []
    while len(units) < N_UNITS:
        p = rng.uniform(1, [WIDTH - 1, HEIGHT - 1])
        if mesh.free_reason(p, RADIUS, np.array(units).reshape(-1, 3)) is None:
            units.append([p[0], p[1], RADIUS])
    return obstacles, np.array(units)


def free_pairs(
    mesh: NavMesh, blockers: np.ndarray, n: int, rng: np.random.Generator
) -> list[tuple[np.ndarray, np.ndarray]]:
    pairs: list[tuple[np.ndarray, np.ndarray]] = []
    while len(pairs) < n:
        a, b = rng.uniform(1, [WIDTH - 1, HEIGHT - 1], size=(2, 2))
        if mesh.free_reason(a, RADIUS, blockers) is None and mesh.free_reason(b, RADIUS, blockers) is None:
            pairs.append((a, b))
    return pairs


def rate(mesh: Any, blockers: np.ndarray, pairs: list) -> tuple[float, float, list]:
    """(paths per CPU second of this process, per wall-clock second, the answers)."""
    t0, c0 = time.perf_counter(), time.process_time()
    found = [mesh.path(a, b, RADIUS, blockers) for a, b in pairs]
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    return len(pairs) / dc, len(pairs) / dt, found


def best(mesh: Any, blockers: np.ndarray, rounds: list) -> tuple[float, float, list]:
    return max((rate(mesh, blockers, pairs) for pairs in rounds), key=lambda t: t[0])


def describe(found: list) -> str:
    ok = [p for p in found if p is not None]
    return f"{len(ok)}/{len(found)} found, mean {np.mean([p.length for p in ok]) if ok else 0.0:.2f} in"


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--queries", type=int, default=300, help="queries per cached round")
    ap.add_argument("--uncached", type=int, default=30, help="queries of the uncached round")
    ap.add_argument("--rounds", type=int, default=3, help="report the best of this many rounds")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--reference", action="store_true", help="also time the pre-kernel implementation")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)

    c0 = time.process_time()
    obstacles, blockers = make_map(rng)  # its free_reason calls load the compiled kernels
    load = time.process_time() - c0
    cached = NavMesh(obstacles, WIDTH, HEIGHT)
    static_only = NavMesh(obstacles, WIDTH, HEIGHT, cache_attachments=False)
    uncached = NavMesh(obstacles, WIDTH, HEIGHT, cache_static=False)
    # fresh endpoints every round, so only the map and the (unmoving) units are ever cached
    rounds = [free_pairs(cached, blockers, args.queries, rng) for _ in range(args.rounds)]
    first = rounds[0][0]
    static_only.path(first[0], first[1], RADIUS, blockers)  # loads the remaining kernels
    c0 = time.process_time()
    cached.path(first[0], first[1], RADIUS, blockers)  # builds the static cache
    build = time.process_time() - c0
    nodes = len(cached.static_nodes(RADIUS))
    print(f"map: {WIDTH:g}x{HEIGHT:g} in, {N_OBSTACLES} obstacles, {N_UNITS} units, base radius {RADIUS}")
    print(f"kernels: {load * 1000:.0f} ms CPU to load (compiled once, then cached on disk)")
    print(f"static build: {build * 1000:.0f} ms CPU, {nodes} graph nodes")

    c_cpu, c_wall, c_found = best(cached, blockers, rounds)
    print(f"cached:      {c_cpu:7.1f} paths/CPU s ({c_wall:7.1f}/s wall)  {describe(c_found)}")
    s_cpu, s_wall, _ = best(static_only, blockers, rounds)
    print(f"static only: {s_cpu:7.1f} paths/CPU s ({s_wall:7.1f}/s wall)  unit rings re-attached every query")
    again_cpu, again_wall, _ = rate(cached, blockers, rounds[0])
    print(f"repeated:    {again_cpu:7.1f} paths/CPU s ({again_wall:7.1f}/s wall)  same queries again")
    few = rounds[0][: args.uncached]
    u_cpu, u_wall, _ = rate(uncached, blockers, few)
    print(f"uncached:    {u_cpu:7.1f} paths/CPU s ({u_wall:7.1f}/s wall)  rebuilds the graph per query")
    print(f"per path:    {1e3 / c_cpu:.3f} ms cached, {1e3 / again_cpu:.3f} ms repeated (CPU)")

    if args.reference:
        sys.path.insert(0, str(FsPath(__file__).resolve().parents[1]))
        from tests.movement import reference_navmesh as ref

        old = ref.NavMesh(obstacles, WIDTH, HEIGHT)
        old.path(first[0], first[1], RADIUS, blockers)
        r_cpu, _, r_found = best(old, blockers, rounds)
        r_again, _, _ = rate(old, blockers, rounds[0])
        r_unc, _, _ = rate(ref.NavMesh(obstacles, WIDTH, HEIGHT, cache_static=False), blockers, few)
        same = all(
            (a is None and b is None)
            or (a is not None and b is not None and (a.points, a.length) == (b.points, b.length))
            for pairs in rounds
            for a, b in zip(
                [cached.path(p, q, RADIUS, blockers) for p, q in pairs],
                [old.path(p, q, RADIUS, blockers) for p, q in pairs],
                strict=True,
            )
        )
        print(
            f"reference:   {r_cpu:7.1f} paths/CPU s cached, {r_again:7.1f} repeated, {r_unc:5.1f} uncached; "
            f"kernels {c_cpu / r_cpu:.1f}x / {again_cpu / r_again:.1f}x / {u_cpu / r_unc:.1f}x faster; "
            f"answers {'identical' if same else 'DIFFERENT'} ({describe(r_found)})"
        )
    print(f"paths 48x32: {c_cpu:.0f} paths/s cached, {u_cpu:.1f} uncached, speedup {c_cpu / u_cpu:.0f}x")


if __name__ == "__main__":
    main()
