"""Battles per second: the 5v5 scenario, cautious vs aggressive, under every ruleset, 1 and 2 workers.

Usage::

    .venv/bin/python benchmarks/battles.py            # 60 battles per ruleset
    .venv/bin/python benchmarks/battles.py --quick    # 16 battles per ruleset: under a minute
    .venv/bin/python benchmarks/battles.py --profile  # also where the time goes (cProfile, 1 worker)

Each ruleset's battles are played serially (one worker), then all of them again as one
two-worker batch through :func:`game.tools.batch.run_batch`; both play identical battles (the script
checks the rows are equal).
Battles/second counts whole battles, scenario loading excluded (it is cached per
process; one warm-up battle runs first). CPU seconds per battle (this process and
its workers) show the cost with less dependence on other load than wall clock (not
none: a busy shared host raises them too, so compare versions side by side): equal
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

from game.rules import RULESET_NAMES  # noqa: E402
from game.tools.batch import load_spec, plan, run_batch, run_battle  # noqa: E402

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
    ap.add_argument("--quick", action="store_true", help="fewer battles per ruleset (< 2 minutes)")
    ap.add_argument("-n", type=int, default=None, help="battles per ruleset")
    ap.add_argument("--rulesets", nargs="+", default=list(RULESET_NAMES), choices=RULESET_NAMES)
    ap.add_argument("--scenario", type=Path, default=SCENARIO)
    ap.add_argument("--red", default="cautious")
    ap.add_argument("--blue", default="aggressive")
    ap.add_argument("--profile", action="store_true", help="print a cProfile of serial battles per ruleset")
    args = ap.parse_args()
    n = args.n or (16 if args.quick else 60)

    print(f"{args.scenario.name}: {args.red} vs {args.blue}, {n} battles per ruleset")
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} CPUs (other work on the machine lowers every number)")
    head = f"{'ruleset':<14}{'1 worker b/s':>14}{'CPU ms/battle':>15}"
    print(head + f"{'rounds':>8}{'commands':>10}{'us/command':>12}")
    jobs_by_ruleset = {ruleset: _jobs(ruleset, n, args) for ruleset in args.rulesets}
    for jobs in jobs_by_ruleset.values():
        run_battle(jobs[0])  # warm-up: imports, compiled kernels, caches, the scenario load
    serial_time = 0.0
    serial_rows: list = []
    for ruleset, jobs in jobs_by_ruleset.items():
        t1, cpu1, rows1 = _timed(jobs, 1)
        serial_time += t1
        serial_rows += rows1
        rounds = sum(r["rounds"] for r in rows1) / len(rows1)
        commands = sum(r["commands"] for r in rows1)
        line = f"{ruleset:<14}{len(jobs) / t1:>14.2f}{1000 * cpu1 / len(jobs):>15.1f}"
        print(line + f"{rounds:>8.1f}{commands / len(jobs):>10.0f}{1e6 * cpu1 / commands:>12.0f}")
        if args.profile:
            print(profile(ruleset, args, max(2, n // 4)))
    # Two workers play every ruleset's battles as one batch, as a designer's run would: one pool,
    # so the tail (the last long battle on one core while the other idles) is paid once, not per ruleset.
    all_jobs = [job for jobs in jobs_by_ruleset.values() for job in jobs]
    pooled_time, pooled_cpu, pooled_rows = _timed(all_jobs, 2)
    if pooled_rows != serial_rows:
        raise SystemExit("1 and 2 workers gave different rows")
    battles = len(all_jobs)
    b1, b2 = battles / serial_time, battles / pooled_time
    print(f"all rulesets, 2 workers: {b2:.2f} b/s, CPU {1000 * pooled_cpu / battles:.1f} ms/battle")
    print(f"battles 5v5: {b2:.2f} battles/s with 2 workers, {b1:.2f} with 1, scaling {b2 / b1:.2f}x")


if __name__ == "__main__":
    main()
