"""Soak: many random-policy battles over every shipped scenario and ruleset, invariants on.

Run: ``.venv/bin/python benchmarks/soak.py [--battles N] [--seed S] [--jobs J] [--rounds R]
[--scenario FILE ...] [--ruleset NAME ...] [--max-seconds T] [--out FAILURES.json] [--no-progress]``.

Battle ``i`` plays combination ``i mod C`` of (scenario, ruleset) (see :func:`plan`) with match seed
``S + i``, every side under the ``random`` policy (drawing from the match's ``ai_rng``),
to the scenario's round limit (or ``R`` rounds if fewer: a shorter battle ends in a draw).
The battle is played by :class:`game.tools.session.Session`; after every command
:func:`game.tools.invariants.check` runs; at the end the whole log is checked again with
:func:`game.tools.invariants.check_log`. A battle stops at its first exception, broken
invariant or the session's stuck limit (``StuckMatch``, :data:`game.tools.session.MAX_COMMANDS`).
The summary reports battles, commands, exceptions, broken invariants and time; the exit status
is 1 if anything broke (0 otherwise, 2 for bad arguments), and ``--out`` writes every failure
(scenario, ruleset, seed, what broke, the traceback) as JSON. ``--repro SCENARIO RULESET SEED``
replays one battle and prints its full traceback or violations.

The test suite runs a short form (``tests/robustness/test_soak.py``); ``SKIRMISH_SOAK=full``
selects the long one.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
import traceback
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCENARIO_DIR = ROOT / "scenarios"


def shipped_scenarios() -> list[Path]:
    """Every scenario shipped in ``scenarios/`` (not the shared profiles file)."""
    return sorted(p for p in SCENARIO_DIR.glob("*.yaml") if p.name != "profiles.yaml")


@dataclass
class BattleResult:
    """What one soak battle did."""

    scenario: str
    ruleset: str
    seed: int
    commands: int = 0
    winner: str | None = None
    reason: str = ""
    error: str | None = None  # "ExceptionType: message"
    trace: str | None = None
    violations: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.error is not None or bool(self.violations)


_SPECS: dict[tuple[str, str], Any] = {}


def _spec(scenario: str, ruleset: str) -> Any:
    from game.scenario import load_scenario

    key = (scenario, ruleset)
    if key not in _SPECS:
        _SPECS[key] = load_scenario(scenario, ruleset=ruleset)
    return _SPECS[key]


def play_battle(scenario: str, ruleset: str, seed: int, rounds: int | None = None) -> BattleResult:
    """One random-policy battle with invariants checked after every command (``rounds`` caps its length)."""
    from game.tools.invariants import check, check_log
    from game.tools.session import Session, Setup, StuckMatch

    result = BattleResult(scenario, ruleset, seed)
    t0 = time.perf_counter()
    session = None
    try:
        spec = _spec(scenario, ruleset)
        limit = spec.round_limit if rounds is None else min(rounds, spec.round_limit)
        setup = Setup(
            ruleset=ruleset, seed=seed, controllers=dict.fromkeys(spec.sides, "random"), round_limit=limit
        )
        session = Session.start(spec, setup)
        match = session.match

        def after(s: Session) -> None:
            result.violations = check(s.match)

        result.violations = check(match)
        try:
            session.play(after=after, until=lambda s: bool(result.violations))
        except StuckMatch as e:
            result.error = f"StuckMatch: {e}"
        if not result.violations and result.error is None:
            result.violations = check_log(match.log.events, spec)
        if match.outcome is not None:
            result.winner, result.reason = match.outcome.winner, match.outcome.reason
    except Exception as e:  # the soak's job is to report every failure, whatever it is
        result.error = f"{type(e).__name__}: {e}"
        result.trace = traceback.format_exc()
    finally:
        if session is not None:
            result.commands = session.applied
            session.close()
    result.seconds = time.perf_counter() - t0
    return result


Job = tuple[str, str, int, int | None]


def _job(args: Job) -> BattleResult:
    return play_battle(*args)


def plan(
    battles: int, seed: int, scenarios: Sequence[str], rulesets: Sequence[str], rounds: int | None = None
) -> list[Job]:
    """The (scenario, ruleset, seed, rounds) of every battle: combinations in turn, seeds counting up.

    Combinations run diagonally (scenario ``k`` with ruleset ``k + b`` in block ``b``), so
    any few consecutive battles already vary both the scenario and the ruleset, and every
    ``len(scenarios) * len(rulesets)`` battles cover each combination once.
    """
    combos = [
        (scenarios[k], rulesets[(k + b) % len(rulesets)])
        for b in range(len(rulesets))
        for k in range(len(scenarios))
    ]
    return [(*combos[i % len(combos)], seed + i, rounds) for i in range(battles)]


@dataclass
class SoakSummary:
    """Totals of a soak run."""

    battles: int
    commands: int
    exceptions: int
    broken_invariants: int
    seconds: float
    failures: list[BattleResult]
    outcomes: dict[str, int]

    @property
    def ok(self) -> bool:
        return self.exceptions == 0 and self.broken_invariants == 0

    def lines(self) -> list[str]:
        rate = self.battles / self.seconds if self.seconds > 0 else 0.0
        out = [
            f"battles: {self.battles}",
            f"commands: {self.commands}",
            f"exceptions: {self.exceptions}",
            f"broken invariants: {self.broken_invariants}",
            f"time: {self.seconds:.1f} s ({rate:.1f} battles/s)",
            "outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items())),
        ]
        for f in self.failures[:20]:
            what = f.error or "; ".join(f.violations[:3])
            out.append(f"FAILED {f.scenario} --ruleset {f.ruleset} --seed {f.seed}: {what}")
        if len(self.failures) > 20:
            out.append(f"... and {len(self.failures) - 20} more failures")
        return out


def _results(jobs: list[Job], workers: int) -> Iterator[BattleResult]:
    if workers <= 1:
        for j in jobs:
            yield _job(j)
        return
    ctx = multiprocessing.get_context("spawn" if sys.platform == "win32" else "fork")
    with ctx.Pool(workers) as pool:
        yield from pool.imap_unordered(_job, jobs, chunksize=4)


def run_soak(
    battles: int,
    seed: int = 0,
    scenarios: Sequence[str | Path] | None = None,
    rulesets: Sequence[str] | None = None,
    jobs: int = 1,
    progress: bool = True,
    max_seconds: float | None = None,
    rounds: int | None = None,
) -> SoakSummary:
    """Play ``battles`` soak battles (see the module docstring) and total them up.

    ``max_seconds`` stops after that long (the summary counts only the battles
    finished), for a time-boxed run; ``rounds`` caps every battle's round limit.
    """
    from tqdm import tqdm

    from game.rules import RULESET_NAMES

    names = [str(s) for s in (scenarios or shipped_scenarios())]
    jobs_list = plan(battles, seed, names, list(rulesets or RULESET_NAMES), rounds)
    t0 = time.perf_counter()
    played: list[BattleResult] = []
    bar = tqdm(total=len(jobs_list), disable=not progress, unit="battle", file=sys.stderr)
    results = _results(jobs_list, jobs)
    try:
        for r in results:
            played.append(r)
            bar.update(1)
            bad = sum(1 for p in played if p.failed)
            bar.set_postfix(commands=sum(p.commands for p in played), failed=bad, refresh=False)
            if max_seconds is not None and time.perf_counter() - t0 > max_seconds:
                break
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()
        bar.close()
    failures = [r for r in played if r.failed]
    outcomes = Counter(
        ("error" if r.error else r.winner or "draw") if not r.violations else "broken" for r in played
    )
    return SoakSummary(
        battles=len(played),
        commands=sum(r.commands for r in played),
        exceptions=sum(1 for r in played if r.error is not None),
        broken_invariants=sum(len(r.violations) for r in played),
        seconds=time.perf_counter() - t0,
        failures=sorted(failures, key=lambda r: r.seed),
        outcomes=dict(outcomes),
    )


def _write_failures(path: Path, summary: SoakSummary) -> None:
    from game.core.events import atomic_write_text

    data = {
        "battles": summary.battles,
        "commands": summary.commands,
        "exceptions": summary.exceptions,
        "broken_invariants": summary.broken_invariants,
        "failures": [asdict(f) for f in summary.failures],
    }
    atomic_write_text(path, json.dumps(data, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=5000, help="battles to play (default 5000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first battle (default 0)")
    parser.add_argument(
        "--jobs", type=int, default=max(1, multiprocessing.cpu_count()), help="worker processes"
    )
    parser.add_argument(
        "--scenario", action="append", help="scenario file (repeatable; default: all shipped)"
    )
    parser.add_argument("--ruleset", action="append", help="ruleset (repeatable; default: all five)")
    parser.add_argument("--rounds", type=int, default=None, help="cap every battle at this many rounds")
    parser.add_argument("--max-seconds", type=float, default=None, help="stop after this long")
    parser.add_argument("--out", type=Path, default=None, help="write the failures here as JSON")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--repro", nargs=3, metavar=("SCENARIO", "RULESET", "SEED"), help="replay one battle")
    args = parser.parse_args(argv)
    if args.battles < 1:
        parser.error(f"--battles must be at least 1, not {args.battles}")
    if args.rounds is not None and args.rounds < 1:
        parser.error(f"--rounds must be at least 1, not {args.rounds}")
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, not {args.jobs}")
    from game.rules import RULESET_NAMES

    for r in args.ruleset or []:
        if r not in RULESET_NAMES:
            parser.error(f"--ruleset {r!r}: choose from {', '.join(RULESET_NAMES)}")
    for s in args.scenario or []:
        if not Path(s).is_file():
            parser.error(f"--scenario {s}: no such file")
    if args.repro:
        scenario, ruleset, seed_text = args.repro
        if not seed_text.lstrip("-").isdigit():
            parser.error(f"--repro SEED must be an integer, not {seed_text!r}")
        r = play_battle(scenario, ruleset, int(seed_text), args.rounds)
        print(f"{scenario} {ruleset} seed {r.seed}: {r.commands} commands, {r.winner or 'draw'} ({r.reason})")
        if r.trace:
            print(r.trace, end="")
        for v in r.violations:
            print(v)
        return 1 if r.failed else 0
    summary = run_soak(
        args.battles,
        seed=args.seed,
        scenarios=args.scenario,
        rulesets=args.ruleset,
        jobs=args.jobs,
        progress=not args.no_progress,
        max_seconds=args.max_seconds,
        rounds=args.rounds,
    )
    for line in summary.lines():
        print(line)
    if args.out is not None:
        _write_failures(args.out, summary)
        print(f"failures written to {args.out}")
    return 0 if summary.ok else 1


if __name__ == "__main__":
    sys.exit(main())
