"""What a match as a value costs: a clone, a snapshot and its restore, against a command.

Usage::

    .venv/bin/python benchmarks/state.py                 # 5v5, every ruleset, seeds 1-3
    .venv/bin/python benchmarks/state.py --seeds 1,2 --ruleset gurps --json

Plays the shipped 5v5 (``skirmish-5v5``), ``cautious`` against ``aggressive``, under each ruleset
of the registry. Every command (policy + apply) is timed in CPU time; at every decision the
match is also cloned, and written and read back (``Match.snapshot`` then
``Match.from_snapshot``), each timed in CPU time (the copies are checked equal to the match
and thrown away: the battle itself is not changed). Prints, per ruleset and in all::

    state: clone <us> (<r>x a command), snapshot+restore <us> (<r>x)

with the median clone and median snapshot+restore against the mean command of the same
battles (issue 25's measure: at most 0.25x and 2x), and the first snapshot of each battle apart
(it writes the whole log; later ones write only the new events).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from game.ai import get_policy  # noqa: E402
from game.engine.match import Match  # noqa: E402
from game.engine.view import MatchView  # noqa: E402
from game.rules import RULESET_NAMES  # noqa: E402
from game.scenario import load_scenario  # noqa: E402


def measure(ruleset: str, seeds: list[int], scenario: str) -> dict[str, list[float]]:
    spec = load_scenario(scenario, ruleset=ruleset)
    out: dict[str, list[float]] = {"command": [], "clone": [], "snapshot": [], "first_snapshot": []}
    clock = time.process_time
    for seed in seeds:
        match = Match(
            spec, ruleset=ruleset, seed=seed, controllers=dict(zip(spec.sides, ("cautious", "aggressive")))
        )
        policies = {s: get_policy(p) for s, p in match.controllers.items()}
        view = MatchView(match)
        first = True
        while match.outcome is None:
            t0 = clock()
            twin = match.clone()
            t1 = clock()
            data = match.snapshot()
            back = Match.from_snapshot(data)
            t2 = clock()
            assert twin.state_hash() == back.state_hash() == match.state_hash()
            twin.close()
            back.close()
            out["clone"].append(t1 - t0)
            out["first_snapshot" if first else "snapshot"].append(t2 - t1)
            first = False
            t3 = clock()
            d = match.pending
            match.apply(policies[match.side(d.unit)](view, d, match.ai_rng))
            out["command"].append(clock() - t3)
        match.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="skirmish-5v5")
    ap.add_argument("--ruleset", action="append", help="rulesets (default: every registered one)")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    args = ap.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    rulesets = args.ruleset or list(RULESET_NAMES)
    # Warm-up: kernels, stat blocks, the scenario spec of the snapshots.
    measure(rulesets[0], [999], args.scenario)
    every: dict[str, list[float]] = {"command": [], "clone": [], "snapshot": [], "first_snapshot": []}
    rows = {}
    for ruleset in rulesets:
        got = measure(ruleset, seeds, args.scenario)
        for k, v in got.items():
            every[k].extend(v)
        rows[ruleset] = got
    report = {}
    for name, got in [*rows.items(), ("all", every)]:
        command = statistics.fmean(got["command"])
        clone = statistics.median(got["clone"])
        snap = statistics.median(got["snapshot"] or got["first_snapshot"])
        first = statistics.median(got["first_snapshot"])
        report[name] = {
            "command_us": command * 1e6,
            "clone_us": clone * 1e6,
            "clone_ratio": clone / command,
            "snapshot_restore_us": snap * 1e6,
            "snapshot_restore_ratio": snap / command,
            "first_snapshot_restore_us": first * 1e6,
            "decisions": len(got["clone"]),
        }
        if not args.json:
            print(
                f"{name:>12}: clone {clone * 1e6:.0f} us ({clone / command:.2f}x a command), "
                f"snapshot+restore {snap * 1e6:.0f} us ({snap / command:.2f}x); "
                f"first snapshot {first * 1e6:.0f} us; command {command * 1e6:.0f} us "
                f"({len(got['clone'])} decisions)"
            )
    a = report["all"]
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(
            f"state: clone {a['clone_us']:.0f} us ({a['clone_ratio']:.2f}x a command), "
            f"snapshot+restore {a['snapshot_restore_us']:.0f} us ({a['snapshot_restore_ratio']:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
