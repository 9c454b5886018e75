"""Battles per second: the 5v5 scenario, cautious vs aggressive, under every ruleset, 1 and 2 workers.

Usage::

    .venv/bin/python benchmarks/battles.py            # 24 battles per ruleset and worker count
    .venv/bin/python benchmarks/battles.py --quick    # a few battles each: under two minutes
    .venv/bin/python benchmarks/battles.py --profile  # also where the time goes (cProfile, 1 worker)

Each configuration plays the same seeds through :func:`game.batch.run_batch`, so the
one- and two-worker runs play identical battles (the script checks the rows are equal).
Battles/second counts whole battles, scenario loading excluded (it is cached per
process; one warm-up battle runs first). CPU seconds per battle (this process and
its workers) show the cost independently of other load on the machine: equal
figures for 1 and 2 workers mean the pool adds no overhead, so on two idle cores
the wall-clock scaling approaches 2x less load imbalance. The last line is::

    battles 5v5: <b/s> battles/s with 2 workers, <b/s> with 1, scaling <r>x

The issue's target is 10,000 full-rules 5v5 battles in at most 60 s on 2 cores
(>= 170 battles/s) with 2 workers >= 1.8x one; see docs/batch.md for what this
machine reaches and what dominates.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from game.batch import load_spec, plan, run_batch, run_battle  # noqa: E402
from game.rules import RULESET_NAMES  # noqa: E402

SCENARIO = ROOT / "scenarios" / "skirmish-5v5.yaml"


def _jobs(ruleset: str, n: int, args: argparse.Namespace) -> list:
    spec = load_spec(str(args.scenario), ruleset)
    sides = spec.sides
    return plan(
        seeds=range(1, n + 1),
        scenario=str(args.scenario),
        spec=spec,
        ruleset=ruleset,
        policies={sides[0]: args.red, sides[1]: args.blue},
    )


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the pool's workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _timed(jobs: list, workers: int) -> tuple[float, float, list]:
    """(wall seconds, CPU seconds, rows) of one run."""
    c0, t0 = _cpu(), time.perf_counter()
    rows = run_batch(jobs, workers=workers, progress=False)
    return time.perf_counter() - t0, _cpu() - c0, rows


def profile(ruleset: str, args: argparse.Namespace, n: int) -> str:
    """The top of a cProfile of ``n`` serial battles (cumulative time)."""
    jobs = _jobs(ruleset, n, args)
    prof = cProfile.Profile()
    prof.enable()
    for job in jobs:
        run_battle(job)
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(30)
    return buf.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a few battles per configuration (< 2 minutes)")
    ap.add_argument("-n", type=int, default=None, help="battles per ruleset and worker count")
    ap.add_argument("--rulesets", nargs="+", default=list(RULESET_NAMES), choices=RULESET_NAMES)
    ap.add_argument("--scenario", type=Path, default=SCENARIO)
    ap.add_argument("--red", default="cautious")
    ap.add_argument("--blue", default="aggressive")
    ap.add_argument("--profile", action="store_true", help="print a cProfile of serial battles per ruleset")
    args = ap.parse_args()
    n = args.n or (3 if args.quick else 24)

    print(f"{args.scenario.name}: {args.red} vs {args.blue}, {n} battles per configuration")
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} CPUs (other work on the machine lowers every number)")
    head = f"{'ruleset':<14}{'1 worker b/s':>14}{'2 workers b/s':>15}{'scaling':>9}{'CPU s/battle 1w/2w':>20}"
    print(head + f"{'rounds':>8}{'commands':>10}")
    total = {1: 0.0, 2: 0.0}
    battles = 0
    for ruleset in args.rulesets:
        jobs = _jobs(ruleset, n, args)
        run_battle(jobs[0])  # warm-up: imports, caches, the scenario load
        t1, cpu1, rows1 = _timed(jobs, 1)
        t2, cpu2, rows2 = _timed(jobs, 2)
        if rows1 != rows2:
            raise SystemExit(f"{ruleset}: 1 and 2 workers gave different rows")
        total[1] += t1
        total[2] += t2
        battles += len(jobs)
        rounds = sum(r["rounds"] for r in rows1) / len(rows1)
        commands = sum(r["commands"] for r in rows1) / len(rows1)
        line = f"{ruleset:<14}{len(jobs) / t1:>14.2f}{len(jobs) / t2:>15.2f}{t1 / t2:>8.2f}x"
        cpu = f"{cpu1 / len(jobs):.2f} / {cpu2 / len(jobs):.2f}"
        print(line + f"{cpu:>20}{rounds:>8.1f}{commands:>10.0f}")
        if args.profile:
            print(profile(ruleset, args, max(2, n // 4)))
    b1, b2 = battles / total[1], battles / total[2]
    print(f"battles 5v5: {b2:.2f} battles/s with 2 workers, {b1:.2f} with 1, scaling {b2 / b1:.2f}x")


if __name__ == "__main__":
    main()
