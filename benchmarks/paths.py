"""Benchmark: shortest-path queries per second on a 48x32 map, with and without the static cache.

Run: ``.venv/bin/python benchmarks/paths.py [--queries N] [--rounds K] [--seed S]``. The map has
30 random rectangular and triangular obstacles (rotated) and 10 unit bases; each query routes a
base of radius 0.5 between two random free points past the other units. "Cached" is the default
NavMesh (static graph per radius + attachments of unmoved units); "uncached" rebuilds everything
per query. Rates are the best of K rounds of fresh queries. The last line is
``paths 48x32: <n> paths/s cached, <n> uncached, speedup <r>x``.
"""

from __future__ import annotations

import argparse
import math
import time

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


def free_pairs(mesh: NavMesh, blockers: np.ndarray, n: int, rng: np.random.Generator) -> list:
    pairs = []
    while len(pairs) < n:
        a, b = rng.uniform(1, [WIDTH - 1, HEIGHT - 1], size=(2, 2))
        if mesh.free_reason(a, RADIUS, blockers) is None and mesh.free_reason(b, RADIUS, blockers) is None:
            pairs.append((a, b))
    return pairs


def rate(mesh: NavMesh, blockers: np.ndarray, pairs: list) -> tuple[float, float, int, float]:
    """(paths per wall-clock second, per CPU second of this process, paths found, mean length).

    The CPU-time rate does not depend on other work running on the machine.
    """
    t0, c0 = time.perf_counter(), time.process_time()
    found = [mesh.path(a, b, RADIUS, blockers) for a, b in pairs]
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    ok = [p for p in found if p is not None]
    return len(pairs) / dt, len(pairs) / dc, len(ok), float(np.mean([p.length for p in ok])) if ok else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=300, help="queries per cached round")
    ap.add_argument("--uncached", type=int, default=30, help="queries of the uncached round")
    ap.add_argument("--rounds", type=int, default=3, help="report the best of this many rounds")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    obstacles, blockers = make_map(rng)
    cached = NavMesh(obstacles, WIDTH, HEIGHT)
    static_only = NavMesh(obstacles, WIDTH, HEIGHT, cache_attachments=False)
    uncached = NavMesh(obstacles, WIDTH, HEIGHT, cache_static=False)
    # fresh endpoints every round, so only the map and the (unmoving) units are ever cached
    rounds = [free_pairs(cached, blockers, args.queries, rng) for _ in range(args.rounds)]

    c0 = time.process_time()
    cached.path(rounds[0][0][0], rounds[0][0][1], RADIUS, blockers)  # builds the static cache
    build = time.process_time() - c0
    static_only.path(rounds[0][0][0], rounds[0][0][1], RADIUS, blockers)
    nodes = len(cached.static_nodes(RADIUS))
    print(f"map: {WIDTH:g}x{HEIGHT:g} in, {N_OBSTACLES} obstacles, {N_UNITS} units, base radius {RADIUS}")
    print(f"static build: {build * 1000:.0f} ms CPU, {nodes} graph nodes")

    c_rate, c_cpu, c_found, c_len = max(
        (rate(cached, blockers, pairs) for pairs in rounds), key=lambda t: t[0]
    )
    print(
        f"cached:      {c_rate:7.1f} paths/s ({c_cpu:7.1f} per CPU s)  "
        f"{c_found}/{args.queries} found, mean {c_len:.2f} in"
    )
    s_rate, s_cpu, _, _ = max((rate(static_only, blockers, pairs) for pairs in rounds), key=lambda t: t[0])
    print(f"static only: {s_rate:7.1f} paths/s ({s_cpu:7.1f} per CPU s)  unit rings re-attached every query")
    again, again_cpu, _, _ = rate(cached, blockers, rounds[0])
    print(f"repeated:    {again:7.1f} paths/s ({again_cpu:7.1f} per CPU s)  same queries: endpoints cached")
    few = rounds[0][: args.uncached]
    u_rate, u_cpu, _, _ = rate(uncached, blockers, few)
    print(f"uncached:    {u_rate:7.1f} paths/s ({u_cpu:7.1f} per CPU s)  rebuilds the graph per query")
    print(f"paths 48x32: {c_rate:.0f} paths/s cached, {u_rate:.1f} uncached, speedup {c_rate / u_rate:.0f}x")


if __name__ == "__main__":
    main()
