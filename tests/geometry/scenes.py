"""Small builders for geometry tests: obstacles, unit tables and the two sight engines.

Maps in these tests are deliberately not square (MAP_W × MAP_H), so an x/y mix-up shows.
"""

from __future__ import annotations

from collections.abc import Sequence

from components.sight import SightFacts
from components.terrain import ObstacleSpec
from game.geometry import SightIndex, UnitTable, sight_reference

MAP_W, MAP_H = 30.0, 12.0

HIGH = 2.0
LOW = 0.5


def box(
    oid: str, x0: float, y0: float, x1: float, y1: float, height: float = HIGH, size: float = 1.0
) -> ObstacleSpec:
    """An axis-aligned rectangular obstacle."""
    return ObstacleSpec(oid, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), height, size)


def poly(
    oid: str, pts: Sequence[tuple[float, float]], height: float = HIGH, size: float = 1.0
) -> ObstacleSpec:
    """An obstacle from a vertex list."""
    return ObstacleSpec(oid, tuple((float(x), float(y)) for x, y in pts), height, size)


def table(*rows: tuple) -> UnitTable:  # type: ignore[type-arg]
    """``UnitTable.build`` shorthand."""
    return UnitTable.build(rows)


def reference_facts(obstacles: Sequence[ObstacleSpec], units: UnitTable, a: int, t: int) -> SightFacts:
    return sight_reference(obstacles, units, a, t)


def fast_facts(obstacles: Sequence[ObstacleSpec], units: UnitTable, a: int, t: int) -> SightFacts:
    return SightIndex(obstacles, MAP_W, MAP_H).facts(units, a, t)


def batch_facts(obstacles: Sequence[ObstacleSpec], units: UnitTable, a: int, t: int) -> SightFacts:
    """Through all_pairs, so the pair is computed alongside every other pair."""
    batch = SightIndex(obstacles, MAP_W, MAP_H).all_pairs(units)
    n = len(units)
    return batch.facts(a * (n - 1) + (t if t < a else t - 1))


ENGINES = {"reference": reference_facts, "fast": fast_facts, "all_pairs": batch_facts}


def random_obstacle(rng: object, oid: str, width: float = MAP_W, height: float = MAP_H) -> ObstacleSpec:
    """A random wall, rock (convex polygon), L-shaped ruin (concave) or triangle."""
    import math

    import numpy as np

    assert isinstance(rng, np.random.Generator)
    while True:
        cx, cy = rng.uniform(0, width), rng.uniform(0, height)
        kind = rng.integers(0, 4)
        ang = rng.uniform(0, 2 * math.pi)
        if kind == 0:
            length, thick = rng.uniform(0.5, 6.0), rng.uniform(0.15, 1.5)
            pts = [
                (-length / 2, -thick / 2),
                (length / 2, -thick / 2),
                (length / 2, thick / 2),
                (-length / 2, thick / 2),
            ]
        elif kind == 1:
            k = int(rng.integers(3, 9))
            rx, ry = rng.uniform(0.3, 2.5), rng.uniform(0.3, 2.5)
            ts = np.sort(rng.uniform(0, 2 * math.pi, k))
            pts = [(rx * math.cos(t), ry * math.sin(t)) for t in ts]
        elif kind == 2:
            s = rng.uniform(0.4, 2.5)
            pts = [(0, 0), (2 * s, 0), (2 * s, 0.5 * s), (0.5 * s, 0.5 * s), (0.5 * s, 2 * s), (0, 2 * s)]
        else:
            pts = [tuple(rng.uniform(-2, 2, 2)) for _ in range(3)]
        c, s_ = math.cos(ang), math.sin(ang)
        ring = [(cx + x * c - y * s_, cy + x * s_ + y * c) for x, y in pts]
        from shapely.geometry import Polygon

        p = Polygon(ring)
        if p.is_valid and p.area > 0.02:
            h = float(rng.choice([0.3, LOW, 1.0, HIGH, rng.uniform(0.05, 2.5)]))
            return poly(oid, ring, h, float(rng.choice([0.5, 1.0, 2.0])))


def random_scene(seed: int, n_obstacles: int, n_units: int) -> tuple[list[ObstacleSpec], UnitTable]:
    """A random non-square table: obstacles anywhere (units may stand inside them)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    obstacles = [random_obstacle(rng, f"o{i}") for i in range(n_obstacles)]
    postures = ["standing", "crouching", "kneeling", "sitting", "crawling", "prone"]
    rows = []
    for j in range(n_units):
        rows.append(
            (
                f"u{j}",
                (float(rng.uniform(0, MAP_W)), float(rng.uniform(0, MAP_H))),
                postures[int(rng.integers(0, 6))],
                float(rng.uniform(0, 360)),
                float(rng.uniform(0.25, 0.8)),
                float(rng.choice([0.5, 1.0, 1.0, 2.0])),
            )
        )
    return obstacles, UnitTable.build(rows)
