"""Big battles: CPU per command from 5v5 to 40v40, and all-pairs cover from 40 to 640 units.

Usage::

    .venv/bin/python benchmarks/scale.py             # 5v5 and 40v40, then cover 40 and 640 units
    .venv/bin/python benchmarks/scale.py --table     # also 10v10 and 20v20 (the docs' growth table)
    .venv/bin/python benchmarks/scale.py --profile   # also where a 40v40 battle's time goes (cProfile)

Battles: every size is played on the same map under the same ruleset (by default the village
of ``scenarios/skirmish-5v5.yaml`` under its ruleset, ap-pool, cautious vs aggressive). The
armies are generated: :func:`army_yaml` keeps the map's obstacles and puts ``k`` units a side
in columns along the west and east edges (1.5 in apart, clear of every obstacle, profiles
cycling through trooper, veteran, recruit, marksman, heavy, swashbuckler), so the only
difference between the sizes is the number of units. One warm-up battle per size runs first
(imports, compiled kernels, the scenario load); then ``--battles`` seeds per size. The figure
is CPU seconds of this process (``time.process_time``) over commands applied, so other jobs on
a shared machine inflate it much less than wall clock would.

Cover: the random 60 x 40 map of ``benchmarks/cover.py`` with 200 obstacles and 40 or 640
units; :meth:`game.geometry.SightIndex.all_pairs` (cover fraction, visibility, intervening
units of every ordered pair), best of several runs, CPU time per pair.

The last two lines are always::

    scale 40v40: <us> us/command, 5v5: <us> us/command, ratio <r>x
    cover scaling: 40 units <us> us/pair, 640 units <us> us/pair, ratio <r>x

To time another checkout of the code (e.g. the commit before a change), run this file with
``PYTHONPATH`` pointing at that checkout: the script then imports the game from there.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import math
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
if "PYTHONPATH" not in os.environ:
    sys.path.insert(0, str(ROOT))

from game.geometry import SightIndex  # noqa: E402
from game.tools.batch import load_spec, plan, run_battle  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cover import random_map  # noqa: E402

MAP = ROOT / "scenarios" / "skirmish-5v5.yaml"
PROFILES = ("trooper", "veteran", "recruit", "marksman", "heavy", "swashbuckler")
SPACING = 1.5
CLEARANCE = 0.8


def _columns(doc: dict, west: bool) -> list[list[tuple[float, float]]]:
    """Free deployment spots near one edge, column by column (edge column first)."""
    from shapely import STRtree
    from shapely.geometry import Point, Polygon

    width, height = float(doc["map"]["width"]), float(doc["map"]["height"])
    tree = STRtree([Polygon(o["polygon"]) for o in doc.get("obstacles", [])])
    cols: list[list[tuple[float, float]]] = []
    for c in range(8):
        x = 1.5 + c * SPACING
        if not west:
            x = width - x
        col = []
        y = 1.25
        while y <= height - 1.25:
            if not len(tree.query(Point(x, y).buffer(CLEARANCE), predicate="intersects")):
                col.append((round(x, 2), round(y, 2)))
            y += SPACING
        cols.append(col)
    return cols


def _spots(cols: list[list[tuple[float, float]]], k: int) -> list[tuple[float, float]]:
    """``k`` spots: as many as fit in the edge column, evenly spread, then the next column."""
    out: list[tuple[float, float]] = []
    for col in cols:
        take = min(k - len(out), len(col))
        if take <= 0:
            break
        if take == len(col):
            out += col
        else:
            step = (len(col) - 1) / max(1, take - 1)
            out += [col[round(i * step)] for i in range(take)]
    if len(out) < k:
        raise SystemExit(f"{k} units a side do not fit on the map")
    return out


def army_yaml(map_path: Path, k: int) -> str:
    """The map's scenario with ``k`` generated units a side (see the module docstring)."""
    doc = yaml.safe_load(map_path.read_text())
    sides = list(dict.fromkeys(u["side"] for u in doc["units"]))[:2]
    units = []
    for s, side in enumerate(sides):
        for j, (x, y) in enumerate(_spots(_columns(doc, west=s == 0), k)):
            units.append(
                {
                    "id": f"{side}-{j + 1}",
                    "side": side,
                    "at": [x, y],
                    "facing": 0 if s == 0 else 180,
                    "profile": PROFILES[j % len(PROFILES)],
                }
            )
    doc["units"] = units
    doc["name"] = f"{doc['name']} ({k}v{k})"
    return yaml.safe_dump(doc, sort_keys=False)


def _jobs(path: Path, n: int, args: argparse.Namespace, first: int = 1) -> list:
    spec = load_spec(str(path), args.ruleset)
    sides = spec.sides
    return plan(
        seeds=range(first, first + n),
        scenario=str(path),
        spec=spec,
        ruleset=args.ruleset,
        policies={sides[0]: args.red, sides[1]: args.blue},
    )


def battle_cost(path: Path, n: int, args: argparse.Namespace) -> tuple[float, float, float]:
    """(CPU us per command, CPU ms per battle, commands per battle) over ``n`` seeds."""
    run_battle(_jobs(path, 1, args, first=10_000)[0])  # warm-up
    jobs = _jobs(path, n, args)
    t0 = time.process_time()
    commands = sum(run_battle(job)["commands"] for job in jobs)
    cpu = time.process_time() - t0
    return 1e6 * cpu / commands, 1e3 * cpu / n, commands / n


def cover_cost(n_units: int, runs: int) -> float:
    """CPU us per pair of all-pairs sight facts with ``n_units`` on the 200-obstacle map."""
    obstacles, units, width, height = random_map(1, 200, n_units)
    index = SightIndex(obstacles, width, height)
    index.all_pairs(units)  # warm-up
    best = math.inf
    for _ in range(runs):
        t0 = time.process_time()
        index.all_pairs(units)
        best = min(best, time.process_time() - t0)
    return 1e6 * best / (n_units * (n_units - 1))


def _profile(path: Path, args: argparse.Namespace) -> str:
    jobs = _jobs(path, 1, args)
    prof = cProfile.Profile()
    prof.enable()
    run_battle(jobs[0])
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(25)
    return buf.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--map", type=Path, default=MAP, help="scenario whose map and ruleset are used")
    ap.add_argument("--ruleset", default=None, help="ruleset (default: the map scenario's)")
    ap.add_argument("--red", default="cautious")
    ap.add_argument("--blue", default="aggressive")
    ap.add_argument("--battles", type=int, default=None, help="seeds per size (default: 60 // k, >= 3)")
    ap.add_argument("--table", action="store_true", help="also 10v10 and 20v20")
    ap.add_argument("--profile", action="store_true", help="cProfile one 40v40 battle (by own time)")
    ap.add_argument("--no-cover", action="store_true", help="skip the all-pairs cover part")
    args = ap.parse_args()
    if not args.map.is_file():
        print(f"scale.py: --map {args.map}: no such file", file=sys.stderr)
        raise SystemExit(2)

    sizes = [5, 10, 20, 40] if args.table else [5, 40]
    print(f"CPU time (time.process_time), not wall clock; code from {sys.modules['game'].__file__}")
    print(f"map {args.map.name}, {args.red} vs {args.blue}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'size':>6}{'battles':>9}{'commands':>10}{'ms/battle':>11}{'us/command':>12}")
    per_command: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for k in sizes:
            paths[k] = Path(tmp) / f"scale-{k}v{k}.yaml"
            paths[k].write_text(army_yaml(args.map, k))
        for k in sizes:
            n = args.battles or max(3, 60 // k)
            us, ms, cmds = battle_cost(paths[k], n, args)
            per_command[k] = us
            print(f"{f'{k}v{k}':>6}{n:>9}{cmds:>10.0f}{ms:>11.0f}{us:>12.0f}", flush=True)
        if args.profile:
            print(_profile(paths[40], args))
    cover: dict[int, float] = {}
    if not args.no_cover:
        for n_units, runs in ((40, 20), (640, 2)):
            cover[n_units] = cover_cost(n_units, runs)
    a, b = per_command[40], per_command[5]
    print(f"scale 40v40: {a:.0f} us/command, 5v5: {b:.0f} us/command, ratio {a / b:.2f}x")
    if cover:
        c40, c640 = cover[40], cover[640]
        ratio = c640 / c40
        print(f"cover scaling: 40 units {c40:.2f} us/pair, 640 units {c640:.2f} us/pair, ratio {ratio:.2f}x")


if __name__ == "__main__":
    main()
