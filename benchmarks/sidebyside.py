"""CPU per command of two checkouts, measured side by side in one run.

Usage::

    .venv/bin/python benchmarks/sidebyside.py --old ../baseline --new .
    .venv/bin/python benchmarks/sidebyside.py --old ../baseline --new . --rounds 5 --seeds 1,2,3

CPU time on a shared host drifts by tens of per cent between hours (docs/batch.md), so a
figure is only comparable with one taken in the same run. This script plays the same battles
(every shipped scenario x every ruleset x the seeds, the three built-in policies taking turns
as in ``tests/golden``) in a fresh subprocess per checkout, alternating old and new for
``--rounds`` rounds, and prints the median CPU microseconds per command of each, per ruleset
and in all. It prints CPU time (``time.process_time`` of the worker), not wall time. Each
worker also hashes its event logs, so the last line says whether both checkouts played
byte-identical battles::

    sidebyside: old <us> us/command, new <us> us/command, ratio <r>x, logs identical|DIFFER
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

RULESETS = ("gurps", "defence-dice", "cortex", "aff", "ap-pool")
SCENARIOS = ("duel", "firing-line", "hedgerows", "skirmish-5v5", "street")
POLICIES = {1: ("cautious", "aggressive"), 2: ("aggressive", "cautious"), 3: ("random", "cautious")}

#: The worker, run with the checkout first on sys.path. It uses only the public entry points
#: (scenario loading, Match, MatchView, get_policy), under either module layout.
WORKER = r"""
import hashlib, json, os, sys, time
# Decide the layout by the files (an editable install's finder would resolve a missing
# subpackage from another checkout, mixing the two).
if os.path.exists("game/engine/match.py"):
    from game.engine.match import Match
    from game.engine.view import MatchView
else:  # the layout before the restructure
    from game.match import Match
    from game.view import MatchView
from game.ai import get_policy
from game.scenario import load_scenario

cases = json.loads(sys.argv[1])
specs = {}
out = {}
for scenario, ruleset, seed, pols in cases:  # warm-up: kernels, stat blocks, imports
    specs[(scenario, ruleset)] = load_scenario(f"scenarios/{scenario}.yaml", ruleset=ruleset)
digest = hashlib.sha256()
for scenario, ruleset, seed, pols in cases:
    spec = specs[(scenario, ruleset)]
    t0 = time.process_time()
    match = Match(spec, ruleset=ruleset, seed=seed, controllers=dict(zip(spec.sides, pols)))
    policies = {s: get_policy(p) for s, p in match.controllers.items()}
    view = MatchView(match)
    n = 0
    while match.outcome is None:
        d = match.pending
        match.apply(policies[match.side(d.unit)](view, d, match.ai_rng))
        n += 1
    cpu = time.process_time() - t0
    for e in match.log.events:
        digest.update(json.dumps(e, sort_keys=True, separators=(",", ":")).encode())
    match.close()
    acc = out.setdefault(ruleset, [0.0, 0])
    acc[0] += cpu
    acc[1] += n
print(json.dumps({"per_ruleset": out, "logs": digest.hexdigest()}))
"""


def _run(checkout: Path, cases: list[list[object]]) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(checkout), SDL_VIDEODRIVER="dummy")
    proc = subprocess.run(
        [sys.executable, "-c", WORKER, json.dumps(cases)],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        sys.exit(f"sidebyside: the worker failed in {checkout}:\n{proc.stderr[-2000:]}")
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", type=Path, required=True, help="the checkout to compare against")
    ap.add_argument("--new", type=Path, default=Path("."), help="the checkout under test (default: .)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (median taken)")
    ap.add_argument("--seeds", default="1,2,3", help="seeds, each with its policy pairing (1-3)")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    cases = [[sc, rs, s, POLICIES[1 + (s - 1) % 3]] for sc in SCENARIOS for rs in RULESETS for s in seeds]
    per: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
    logs: dict[str, set[str]] = {"old": set(), "new": set()}
    for r in range(args.rounds):
        for label, path in (("old", args.old), ("new", args.new)):
            got = _run(path.resolve(), cases)
            logs[label].add(str(got["logs"]))
            total_cpu = total_n = 0.0
            for ruleset, (cpu, n) in got["per_ruleset"].items():  # type: ignore[attr-defined]
                per[label].setdefault(ruleset, []).append(1e6 * cpu / n)
                total_cpu += cpu
                total_n += n
            per[label].setdefault("all", []).append(1e6 * total_cpu / total_n)
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    print(f"{'ruleset':<14}{'old us/cmd':>12}{'new us/cmd':>12}{'ratio':>8}")
    for key in (*RULESETS, "all"):
        o, n = statistics.median(per["old"][key]), statistics.median(per["new"][key])
        print(f"{key:<14}{o:>12.0f}{n:>12.0f}{n / o:>8.2f}")
    same = logs["old"] == logs["new"] and len(logs["old"]) == 1
    o, n = statistics.median(per["old"]["all"]), statistics.median(per["new"]["all"])
    print(
        f"sidebyside: old {o:.0f} us/command, new {n:.0f} us/command, ratio {n / o:.2f}x, "
        f"logs {'identical' if same else 'DIFFER'}"
    )


if __name__ == "__main__":
    main()
