"""Benchmark of all-pairs sight and cover: naive ray loop vs exact oracle vs fast path.

Run ``python benchmarks/cover.py`` for the full table (10/40/160 units × 20/200/2000
obstacles, then the small queries of a battle) or ``--quick`` for the 40 × 200 case only (well
under a minute); ``--compile`` also times, in fresh processes, the kernels' first compilation
and their load from the disk cache. The last line is always::

    cover 40x200: fast <ms> ms, naive <ms> ms, speedup <ratio>x, max fraction error <e>

Maps are random with fixed seeds: 60 × 40 inches for up to 200 obstacles, growing with the
obstacle count beyond that so the density stays that of 200 on 60 × 40 (2000 obstacles:
190 × 126). Obstacles are 40% walls and hedges (1.5–5 × 0.25–0.6 in; 60% low, 40% high),
35% rocks and houses (convex 5–8-gons, 0.4–1.5 in radii; half high) and 25% L-shaped ruins
(concave). Units have 0.5-inch bases, random postures and facings, and stand in free space.

Timing is the CPU time of this process (``time.process_time``), so other jobs sharing the
machine do not inflate it; wall-clock time on an idle machine is about the same. The fast path
runs all ordered pairs (best of several runs); the naive
loop (:func:`game.geometry.sight_naive`, 8 rays per pair, a shapely LineString per ray and a
Python loop over obstacles) and the exact oracle (:func:`game.geometry.sight_reference`) are
too slow for all pairs, so they run on a fixed random sample of pairs and their all-pairs
time is projected (said so in the output). "max fraction error" is the largest
|fast − oracle| cover fraction on the sampled pairs; the naive loop's own error (it samples
8 rays) is shown separately; "diff" counts sampled pairs where the fast path's level,
visibility, hidden flag or intervening units differ from the oracle's.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from shapely import STRtree
from shapely.geometry import Point, Polygon

from components.sight import SightFacts
from components.terrain import ObstacleSpec
from game.geometry import SightIndex, UnitTable, sight_naive, sight_reference


def random_map(
    seed: int, n_obstacles: int, n_units: int
) -> tuple[list[ObstacleSpec], UnitTable, float, float]:
    """A random table (see the module docstring): obstacles, units, width, height."""
    rng = np.random.default_rng(seed)
    scale = math.sqrt(max(1.0, n_obstacles / 200.0))
    width, height = 60.0 * scale, 40.0 * scale
    obstacles: list[ObstacleSpec] = []
    while len(obstacles) < n_obstacles:
        cx, cy = rng.uniform(0, width), rng.uniform(0, height)
        kind = rng.random()
        ang = rng.uniform(0, 2 * math.pi)
        if kind < 0.4:
            length, thick = rng.uniform(1.5, 5.0), rng.uniform(0.25, 0.6)
            pts = [
                (-length / 2, -thick / 2),
                (length / 2, -thick / 2),
                (length / 2, thick / 2),
                (-length / 2, thick / 2),
            ]
            h = 0.5 if rng.random() < 0.6 else 2.0
        elif kind < 0.75:
            k = int(rng.integers(5, 9))
            rx, ry = rng.uniform(0.4, 1.5), rng.uniform(0.4, 1.5)
            ts = np.sort(rng.uniform(0, 2 * math.pi, k))
            pts = [(rx * math.cos(t), ry * math.sin(t)) for t in ts]
            q = rng.random()
            h = 2.0 if q < 0.5 else (0.5 if q < 0.75 else float(rng.uniform(0.3, 2.5)))
        else:
            s = rng.uniform(0.6, 2.0)
            pts = [(0, 0), (2 * s, 0), (2 * s, 0.4 * s), (0.4 * s, 0.4 * s), (0.4 * s, 2 * s), (0, 2 * s)]
            h = float(rng.choice([0.5, 1.0, 2.0]))
        c, sn = math.cos(ang), math.sin(ang)
        ring = tuple((round(cx + x * c - y * sn, 4), round(cy + x * sn + y * c, 4)) for x, y in pts)
        p = Polygon(ring)
        if not p.is_valid or p.area < 0.05:
            continue
        obstacles.append(
            ObstacleSpec(f"ob{len(obstacles)}", ring, h, float(rng.choice([1.0, 1.0, 2.0, 0.5])))
        )
    tree = STRtree([Polygon(o.polygon) for o in obstacles])
    rows: list[tuple[str, tuple[float, float], str, float, float, float]] = []
    placed: list[tuple[float, float]] = []
    postures = ["standing", "standing", "crouching", "kneeling", "prone"]
    while len(rows) < n_units:
        x, y = rng.uniform(1, width - 1), rng.uniform(1, height - 1)
        if len(tree.query(Point(x, y).buffer(0.5), predicate="intersects")):
            continue
        if any(math.hypot(x - px, y - py) < 1.0 for px, py in placed):
            continue
        placed.append((x, y))
        rows.append(
            (f"u{len(rows)}", (x, y), postures[int(rng.integers(0, 5))], float(rng.uniform(0, 360)), 0.5, 1.0)
        )
    return obstacles, UnitTable.build(rows), width, height


def _best_of(fn: Callable[[], object], runs: int) -> float:
    best = math.inf
    for _ in range(runs):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def _per_pair(
    fn: Callable[[int, int], SightFacts], pairs: list[tuple[int, int]]
) -> tuple[float, list[SightFacts]]:
    t0 = time.process_time()
    out = [fn(a, t) for a, t in pairs]
    return (time.process_time() - t0) / len(pairs), out


def run_case(n_units: int, n_obstacles: int, sample: int, seed: int = 1) -> dict[str, float]:
    """Time one table size; returns the row of the results table."""
    obstacles, units, width, height = random_map(seed, n_obstacles, n_units)
    index = SightIndex(obstacles, width, height)
    batch = index.all_pairs(units)  # warm-up
    n_pairs = len(batch)
    runs = 3 if n_pairs * max(n_obstacles, 20) > 2_000_000 else 10
    fast_s = _best_of(lambda: index.all_pairs(units), runs)
    rng = np.random.default_rng(seed + 7)
    k = rng.choice(n_pairs, size=min(sample, n_pairs), replace=False)
    pairs = [(int(batch.attackers[j]), int(batch.targets[j])) for j in k]
    naive_pp, naive = _per_pair(lambda a, t: sight_naive(obstacles, units, a, t), pairs)
    ref_pp, ref = _per_pair(lambda a, t: sight_reference(obstacles, units, a, t), pairs)
    fast = [batch.facts(int(j)) for j in k]
    err = max(abs(f.cover_fraction - r.cover_fraction) for f, r in zip(fast, ref))
    naive_err = max(abs(f.cover_fraction - r.cover_fraction) for f, r in zip(naive, ref))
    diff = sum(
        (f.cover, f.visible, f.hidden, f.intervening) != (r.cover, r.visible, r.hidden, r.intervening)
        for f, r in zip(fast, ref)
    )
    return {
        "units": n_units,
        "obstacles": n_obstacles,
        "pairs": n_pairs,
        "sampled": len(pairs),
        "fast_ms": fast_s * 1e3,
        "naive_ms": naive_pp * n_pairs * 1e3,
        "ref_ms": ref_pp * n_pairs * 1e3,
        "err": err,
        "naive_err": naive_err,
        "diff": diff,
        "visible": float(batch.visible.mean()),
    }


def _skirmish_5v5() -> tuple[SightIndex, UnitTable, float, float]:
    from game.scenario import load_scenario

    spec = load_scenario(Path(__file__).resolve().parents[1] / "scenarios" / "skirmish-5v5.yaml")
    return (
        SightIndex(spec.obstacles, spec.width, spec.height),
        UnitTable.from_specs(spec.units),
        spec.width,
        spec.height,
    )


def refresh_case(moves: int = 200) -> float:
    """CPU µs of one ``move_unit`` + ``refresh()`` of a :class:`SightCache` on the 5v5 scenario."""
    from game.geometry.cache import SightCache

    index, units, _, _ = _skirmish_5v5()
    cache = SightCache(index, units)
    rng = np.random.default_rng(0)
    n = len(units)
    steps = [(i % n, tuple(units.xy[i % n] + rng.uniform(-0.5, 0.5, 2))) for i in range(moves)]

    def run() -> None:
        for i, xy in steps:
            cache.move_unit(i, xy=(float(xy[0]), float(xy[1])))
            cache.refresh()

    return _best_of(run, 5) / moves * 1e6


def points_case(n_points: int = 32, calls: int = 200) -> float:
    """CPU µs of one ``cover_at_points`` call (one attacker, ``n_points`` points) on the 5v5 map."""
    index, units, width, height = _skirmish_5v5()
    rng = np.random.default_rng(0)
    points = np.column_stack([rng.uniform(0, width, n_points), rng.uniform(0, height, n_points)])

    def run() -> None:
        for _ in range(calls):
            index.cover_at_points(units, 0, points, 1.0, 0.5)

    return _best_of(run, 5) / calls * 1e6


def compile_case() -> tuple[float, float]:
    """CPU seconds of ``import game.geometry`` in a fresh process: kernels compiled, then cached."""
    import os
    import resource
    import subprocess
    import sys
    import tempfile

    root = Path(__file__).resolve().parents[1]
    times = []
    with tempfile.TemporaryDirectory() as cache_dir:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "PYTHONPATH": str(root)}
        for _ in range(2):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([sys.executable, "-c", "import game.geometry"], env=env, check=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            times.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return times[0], times[1]


def _print_row(r: dict[str, float]) -> None:
    pairs = r["pairs"]
    rates = (pairs / r["fast_ms"] * 1e3, pairs / r["ref_ms"] * 1e3, pairs / r["naive_ms"] * 1e3)
    print(
        f"{int(r['units']):>5} {int(r['obstacles']):>5} {int(pairs):>6} "
        f"{rates[0]:>11,.0f} {rates[1]:>9,.0f} {rates[2]:>9,.0f} "
        f"{r['fast_ms']:>9.2f} {r['naive_ms'] / r['fast_ms']:>8.0f}x {r['ref_ms'] / r['fast_ms']:>8.0f}x "
        f"{r['err']:>9.1e} {r['naive_err']:>9.3f} {int(r['diff']):>4} {int(r['sampled']):>6} "
        f"{r['visible']:>5.0%}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the 40 units x 200 obstacles case")
    parser.add_argument(
        "--sample", type=int, default=40, help="pairs sampled for the naive loop and the oracle"
    )
    parser.add_argument(
        "--compile", action="store_true", help="also time the kernels' compilation and cached load"
    )
    args = parser.parse_args()
    cases = [(40, 200)] if args.quick else [(u, o) for u in (10, 40, 160) for o in (20, 200, 2000)]
    print("CPU time of this process. pairs/s: fast = all ordered pairs (best of runs); oracle and naive =")
    print("per-pair time on a random sample of pairs ('sampled'), projected to all pairs; speedups are")
    print("against the fast path's all-pairs time.")
    print(
        f"{'units':>5} {'obst':>5} {'pairs':>6} {'fast p/s':>11} {'oracle p/s':>9} {'naive p/s':>9} "
        f"{'fast ms':>9} {'vs naive':>9} {'vs oracle':>9} {'max err':>9} {'naive err':>9} {'diff':>4} "
        f"{'sampled':>6} {'vis':>5}"
    )
    rows = []
    for units, obstacles in cases:
        sample = args.sample if obstacles < 2000 else max(5, args.sample // 4)
        row = run_case(units, obstacles, sample)
        rows.append(row)
        _print_row(row)
    if not args.quick:
        print(f"refresh 5v5 (one unit moved, 10 units, 25 obstacles): {refresh_case():.0f} us")
        print(f"cover_at_points 5v5 (one attacker, 32 points): {points_case():.0f} us")
    if args.compile:
        cold, cached = compile_case()
        print(f"import game.geometry in a fresh process: {cold:.1f} s CPU compiling, {cached:.2f} s cached")
    quick = next(r for r in rows if r["units"] == 40 and r["obstacles"] == 200)
    print(
        f"cover 40x200: fast {quick['fast_ms']:.2f} ms, naive {quick['naive_ms']:.0f} ms, "
        f"speedup {quick['naive_ms'] / quick['fast_ms']:.0f}x, max fraction error {quick['err']:.1e}"
    )


if __name__ == "__main__":
    main()
