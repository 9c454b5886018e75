"""How long each difficulty level takes to answer a decision (the window's hardest must answer
within ``HARD_CAP_MS``, issue 27).

Usage::

    .venv/bin/python benchmarks/difficulty.py                 # duel + 5v5, every ruleset, 1 seed
    .venv/bin/python benchmarks/difficulty.py --seeds 3 --scenario street

Plays each shipped scenario named (default the duel and the 5v5) under every ruleset with each
level's policy and options (:data:`game.ai.difficulty.LEVELS`) on both sides, as the window
would, and times every AI decision (after compiling the kernels, as ``make warmup`` does) in
wall-clock time (what a player waits; the window answers one decision a frame).
Prints, per level, the decisions timed, the median, the 99th percentile
and the slowest, and whether the slowest is within the cap. A busy host stretches wall time:
read it on an idle machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    from game.ai.difficulty import HARD_CAP_MS, LEVELS, policy_options
    from game.rules import RULESET_NAMES
    from game.scenario import load_scenario
    from game.tools.session import Session, Setup

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", action="append", help="shipped scenario name (repeatable)")
    ap.add_argument("--seeds", type=int, default=1, help="battles per scenario and ruleset")
    ap.add_argument("--max-commands", type=int, default=400, help="commands per battle at most")
    args = ap.parse_args(argv)
    from game.tools.warmup import warm

    warm()  # compile (or load) every kernel first: a first-call compile is not a decision's cost
    names = args.scenario or ["duel", "skirmish-5v5"]
    print(f"{'level':<8} {'policy':<11} {'decisions':>9} {'median ms':>10} {'p99 ms':>8} {'max ms':>8}  cap")
    for level in LEVELS.values():
        times: list[float] = []
        options = policy_options(level)
        for name in names:
            for ruleset in RULESET_NAMES:
                spec = load_scenario(ROOT / "scenarios" / f"{name}.yaml", ruleset=ruleset)
                for seed in range(1, args.seeds + 1):
                    with Session(Setup(ruleset=ruleset, seed=seed).build(spec), level.policy, options) as s:
                        for _ in range(args.max_commands):
                            t0 = time.perf_counter()
                            if not s.step():
                                break
                            times.append((time.perf_counter() - t0) * 1000)
        arr = np.asarray(times)
        worst = float(arr.max())
        cap = (
            "" if level.name != "hard" else ("within" if worst <= HARD_CAP_MS else "OVER") + f" {HARD_CAP_MS}"
        )
        print(
            f"{level.name:<8} {level.policy:<11} {arr.size:>9} {np.median(arr):>10.1f} "
            f"{np.percentile(arr, 99):>8.1f} {worst:>8.1f}  {cap}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
