"""CPU per battle and per command of two checkouts, measured side by side in one sitting.

Usage::

    .venv/bin/python benchmarks/sidebyside.py --ref cbdbca2                   # that commit vs this tree
    .venv/bin/python benchmarks/sidebyside.py --ref cbdbca2 --scenario skirmish-5v5 \\
        --policies cautious,aggressive --seeds 1-6 --rounds 5              # the issue's measure
    .venv/bin/python benchmarks/sidebyside.py --old ../baseline --new .    # two folders
    make sidebyside REF=cbdbca2                                            # the issue's measure

CPU time on a shared host drifts by tens of per cent between hours (docs/batch.md), so a
figure is only comparable with one taken in the same sitting. This script plays the same
battles in a fresh subprocess per checkout, alternating the checkouts (old, new, then new, old,
...) for ``--rounds`` rounds, and prints the median CPU of each, per battle and per command,
per ruleset and in all. It measures CPU time (``time.process_time`` of the worker around each
battle: building the match, the policies' choices and applying them), not wall time; each
worker first plays one untimed battle (seed 999999), which loads the compiled kernels.

What is played: every ruleset in *both* checkouts' registries (``game.rules.REGISTRY``, read
from each checkout; a ruleset only one of them has is named and left out) x the scenarios
(``--scenario NAME|FILE``, repeatable; default the five small shipped ones, a name being looked
up in each checkout's own ``scenarios/``) x the seeds. ``--policies A,B`` gives every battle
that pairing; without it the seeds rotate the pairings of ``tests/golden`` (seed 1 cautious vs
aggressive, 2 aggressive vs cautious, 3 random vs cautious).

``--ref REF`` compares against a git commit: it is checked out beside the tree with ``git
worktree add --detach`` into the user's cache folder
(``$XDG_CACHE_HOME/skirmish/sidebyside/<commit>``), where the next run with the same commit
reuses it and the numba kernels it compiled into its own ``__pycache__`` folders (a first run
compiles them once, in an untimed warm-up: 1-2 minutes). ``--drop`` removes the checkout after
the run (``git worktree remove``). Each checkout runs with itself first on ``PYTHONPATH``
under this script's Python (``--python`` for another), so the dependencies must suit both.

Each worker hashes its battles' event logs per ruleset: the table says which rulesets played
byte-identical battles in both checkouts (a change of behaviour, or of what a log records,
shows as DIFFER). The last line::

    sidebyside: old <ms> ms/battle (<us> us/command), new <ms> ms/battle (<us> us/command),
    ratio <r>x per battle, <r>x per command, logs identical|DIFFER (<rulesets>)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

SCENARIOS = ("duel", "firing-line", "hedgerows", "skirmish-5v5", "street")
#: seed -> pairing when --policies is not given (as tests/golden plays them)
ROTATION = {1: ("cautious", "aggressive"), 2: ("aggressive", "cautious"), 3: ("random", "cautious")}

#: The worker, run in the checkout with the checkout first on sys.path. argv[1] is a JSON job:
#: {"registry": true} prints the ruleset names; else {"cases": [[scenario, ruleset, seed,
#: [policy, ...]], ...]} plays them. It uses only the public entry points (scenario loading,
#: Match, MatchView, get_policy), under either module layout.
WORKER = r"""
import hashlib, json, os, sys, time
job = json.loads(sys.argv[1])
if job.get("registry"):
    import game.rules as rules
    names = getattr(rules, "REGISTRY", None) or getattr(rules, "RULESET_NAMES")
    print(json.dumps(list(names)))
    raise SystemExit
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

def play(spec, ruleset, seed, pols):
    match = Match(spec, ruleset=ruleset, seed=seed, controllers=dict(zip(spec.sides, pols)))
    policies = {s: get_policy(p) for s, p in match.controllers.items()}
    view = MatchView(match)
    n = 0
    while match.outcome is None:
        d = match.pending
        match.apply(policies[match.side(d.unit)](view, d, match.ai_rng))
        n += 1
    return match, n

cases = job["cases"]
specs = {}
for scenario, ruleset, seed, pols in cases:  # warm-up: stat blocks, imports
    if (scenario, ruleset) not in specs:
        specs[(scenario, ruleset)] = load_scenario(scenario, ruleset=ruleset)
# Warm-up: an untimed battle (a seed not measured) loads the compiled kernels from the
# checkout's cache, ~0.4 s per process that would otherwise fall on the first timed battle.
scenario, ruleset, seed, pols = cases[0]
play(specs[(scenario, ruleset)], ruleset, 999_999, pols)[0].close()
out = {}
for scenario, ruleset, seed, pols in cases:
    t0 = time.process_time()
    match, n = play(specs[(scenario, ruleset)], ruleset, seed, pols)
    cpu = time.process_time() - t0
    acc = out.setdefault(ruleset, {"cpu": 0.0, "commands": 0, "battles": 0, "digest": hashlib.sha256()})
    for e in match.log.events:
        acc["digest"].update(json.dumps(e, sort_keys=True, separators=(",", ":")).encode())
    match.close()
    acc["cpu"] += cpu
    acc["commands"] += n
    acc["battles"] += 1
for acc in out.values():
    acc["digest"] = acc["digest"].hexdigest()
print(json.dumps(out))
"""


class BenchError(Exception):
    """A checkout cannot be made or a worker failed: the message says which and why. ``status``
    is the exit status: 2 for bad input (a ref, scenario or ruleset that is not there), else 1."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def _git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise BenchError(f"git {' '.join(args)} in {repo}: {proc.stderr.strip() or proc.stdout.strip()}")
    return proc.stdout.strip()


def checkouts_root() -> Path:
    """Where ``--ref`` checkouts are kept: ``$XDG_CACHE_HOME/skirmish/sidebyside``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "skirmish" / "sidebyside"


def checkout_ref(repo: Path, ref: str, root: Path) -> Path:
    """A detached worktree of ``repo`` at ``ref`` in ``root/<commit>``: reused when it is
    already there at that commit (with its compiled kernels), else (re)made."""
    try:
        commit = _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except BenchError:
        raise BenchError(f"--ref {ref}: no such commit in {repo}", 2) from None
    path = (root / commit).resolve()
    if path.is_dir():
        try:
            if _git(path, "rev-parse", "HEAD") == commit and not _git(path, "status", "--porcelain"):
                return path
        except BenchError:
            pass
        shutil.rmtree(path)  # a broken or changed copy: made again below
    _git(repo, "worktree", "prune")
    root.mkdir(parents=True, exist_ok=True)
    _git(repo, "worktree", "add", "--detach", str(path), commit)
    return path


def drop_checkout(repo: Path, path: Path) -> None:
    """Remove a checkout made by :func:`checkout_ref` (the worktree and its registration)."""
    _git(repo, "worktree", "remove", "--force", str(path))


def run_worker(checkout: Path, job: dict[str, object], python: str = sys.executable) -> object:
    """Run the worker in ``checkout`` (first on its path) and return what it printed (JSON)."""
    env = dict(os.environ, PYTHONPATH=str(checkout), SDL_VIDEODRIVER="dummy")
    proc = subprocess.run(
        [python, "-c", WORKER, json.dumps(job)], cwd=checkout, env=env, capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise BenchError(f"the worker failed in {checkout}:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def scenario_in(checkout: Path, scenario: str) -> str:
    """``scenario`` as the worker in ``checkout`` loads it: a name is that checkout's
    ``scenarios/NAME.yaml``, given relative to it (the log records the path as given, so both
    checkouts' logs can be equal); a file path is the same file for every checkout."""
    if scenario.endswith((".yaml", ".yml")) or os.sep in scenario:
        return str(Path(scenario).resolve())
    return f"scenarios/{scenario}.yaml"


def plan(
    checkout: Path,
    scenarios: list[str],
    rulesets: list[str],
    seeds: list[int],
    policies: tuple[str, ...] | None,
) -> list[list[object]]:
    """The worker's cases in ``checkout``: scenario x ruleset x seed, each with its pairing."""
    return [
        [scenario_in(checkout, sc), rs, s, list(policies or ROTATION[1 + (s - 1) % 3])]
        for sc in scenarios
        for rs in rulesets
        for s in seeds
    ]


@dataclass
class Sample:
    """One checkout's rounds: per ruleset, the CPU seconds of each round, battles, commands, digests."""

    cpu: dict[str, list[float]] = field(default_factory=dict)
    battles: dict[str, int] = field(default_factory=dict)
    commands: dict[str, int] = field(default_factory=dict)
    digests: dict[str, set[str]] = field(default_factory=dict)

    def add(self, got: dict[str, dict[str, object]]) -> None:
        for ruleset, acc in got.items():
            self.cpu.setdefault(ruleset, []).append(float(acc["cpu"]))  # type: ignore[arg-type]
            self.battles[ruleset] = int(acc["battles"])  # type: ignore[call-overload]
            self.commands[ruleset] = int(acc["commands"])  # type: ignore[call-overload]
            self.digests.setdefault(ruleset, set()).add(str(acc["digest"]))

    def ms_per_battle(self, rulesets: list[str]) -> float:
        """Median over rounds of the rulesets' CPU per battle, in ms."""
        rounds = zip(*(self.cpu[r] for r in rulesets), strict=True)
        return 1e3 * statistics.median(sum(x) for x in rounds) / sum(self.battles[r] for r in rulesets)

    def us_per_command(self, rulesets: list[str]) -> float:
        return (
            1e3
            * self.ms_per_battle(rulesets)
            * sum(self.battles[r] for r in rulesets)
            / max(1, sum(self.commands[r] for r in rulesets))
        )


def measure(
    checkouts: list[Path],
    cases: list[list[list[object]]],
    rounds: int,
    python: str = sys.executable,
    say: bool = True,
) -> list[Sample]:
    """Play each checkout's cases ``rounds`` times, alternating the checkouts (the order
    reversed every other round, so a steady drift of the host weighs on all alike)."""
    samples = [Sample() for _ in checkouts]
    order = list(range(len(checkouts)))
    for r in range(rounds):
        for i in order if r % 2 == 0 else order[::-1]:
            samples[i].add(run_worker(checkouts[i], {"cases": cases[i]}, python))  # type: ignore[arg-type]
        if say:
            print(f"round {r + 1}/{rounds} done", file=sys.stderr)
    return samples


def _seeds(text: str) -> list[int]:
    """``1,2,3`` or ``1-6`` (or both: ``1-3,7``)."""
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        try:
            out.extend(range(int(lo), int(hi or lo) + 1))
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a seed list: {text!r} (e.g. 1,2,3 or 1-6)") from None
    if not out or min(out) < 0:
        raise argparse.ArgumentTypeError(f"not a seed list: {text!r} (e.g. 1,2,3 or 1-6)")
    return out


def _policies(text: str) -> tuple[str, ...]:
    names = tuple(p.strip() for p in text.split(","))
    if len(names) < 2 or not all(names):
        raise argparse.ArgumentTypeError(f"--policies wants two or more names, comma-separated: {text!r}")
    return names


def table(old: Sample, new: Sample, rulesets: list[str]) -> list[str]:
    """The side-by-side table, a row per ruleset and one for all (Markdown)."""
    lines = [
        "| ruleset | battles | commands/battle old | new | CPU ms/battle old | new | ratio "
        "| µs/command old | new | ratio | logs |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for key in (*rulesets, "all"):
        rs = rulesets if key == "all" else [key]
        b = sum(new.battles[r] for r in rs)
        co, cn = (sum(s.commands[r] for r in rs) / b for s in (old, new))
        mo, mn = old.ms_per_battle(rs), new.ms_per_battle(rs)
        uo, un = old.us_per_command(rs), new.us_per_command(rs)
        differ = [r for r in rs if not same_logs(old, new, r)]
        logs = "identical" if not differ else ("DIFFER" if key != "all" else f"{len(differ)} DIFFER")
        lines.append(
            f"| {key} | {b} | {co:.1f} | {cn:.1f} | {mo:.1f} | {mn:.1f} | {mn / mo:.2f} "
            f"| {uo:.0f} | {un:.0f} | {un / uo:.2f} | {logs} |"
        )
    return lines


def same_logs(old: Sample, new: Sample, ruleset: str) -> bool:
    """Both checkouts wrote the same event logs for the ruleset's battles, in every round."""
    return len(old.digests[ruleset]) == 1 and old.digests[ruleset] == new.digests[ruleset]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = ap.add_mutually_exclusive_group(required=True)
    which.add_argument("--old", type=Path, help="the checkout (folder) to compare against")
    which.add_argument("--ref", help="the git commit to compare against, checked out beside the tree")
    ap.add_argument("--new", type=Path, default=Path("."), help="the checkout under test (default: .)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds, the median taken (default 3)")
    ap.add_argument("--seeds", type=_seeds, default=[1, 2, 3], help="seeds: 1,2,3 (default) or 1-6")
    ap.add_argument("--scenario", action="append", help="a scenario name or file (repeatable)")
    ap.add_argument("--policies", type=_policies, help="every battle's pairing, e.g. cautious,aggressive")
    ap.add_argument(
        "--ruleset", action="append", help="only this ruleset (repeatable; default: the registry)"
    )
    ap.add_argument("--python", default=sys.executable, help="the Python that runs both checkouts")
    ap.add_argument("--drop", action="store_true", help="remove the --ref checkout after the run")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    new = args.new.resolve()
    try:
        old = checkout_ref(new, args.ref, checkouts_root()) if args.ref else args.old.resolve()
        try:
            _compare(old, new, args)
        finally:
            if args.ref and args.drop:
                drop_checkout(new, old)
    except BenchError as e:
        print(f"sidebyside: {e}", file=sys.stderr)
        sys.exit(e.status)


def _compare(old: Path, new: Path, args: argparse.Namespace) -> None:
    for path in (old, new):
        if not (path / "game").is_dir():
            raise BenchError(f"{path} is not a skirmish checkout (no game/ folder)", 2)
    known = {p: list(run_worker(p, {"registry": True}, args.python)) for p in (old, new)}  # type: ignore[call-overload]
    rulesets = [r for r in known[new] if r in known[old]]
    if args.ruleset:
        unknown = [r for r in args.ruleset if r not in rulesets]
        if unknown:
            raise BenchError(f"--ruleset {unknown[0]}: not in both registries ({', '.join(rulesets)})", 2)
        rulesets = [r for r in rulesets if r in args.ruleset]
    for path, other in ((old, new), (new, old)):
        only = [r for r in known[path] if r not in known[other]]
        if only and not args.ruleset:
            print(f"only in {path}: {', '.join(only)} (left out)", file=sys.stderr)
    scenarios = args.scenario or list(SCENARIOS)
    for sc in scenarios:
        for path in (old, new):
            if not (path / scenario_in(path, sc)).is_file():
                raise BenchError(f"--scenario {sc}: no such scenario in {path}", 2)
    cases = [plan(p, scenarios, rulesets, args.seeds, args.policies) for p in (old, new)]
    print(f"old: {old}\nnew: {new}\nwarm-up (compiles a checkout's kernels once)", file=sys.stderr)
    warm = [[c for c in cs if c[2] == args.seeds[0] and c[0] == cs[0][0]] for cs in cases]
    measure([old, new], warm, 1, args.python, say=False)
    o, n = measure([old, new], cases, args.rounds, args.python)
    print(
        f"{len(scenarios)} scenario(s) x {len(rulesets)} rulesets x {len(args.seeds)} seeds, "
        f"{'policies ' + ','.join(args.policies) if args.policies else 'rotating policies'}, "
        f"median of {args.rounds} alternating rounds"
    )
    print("\n".join(table(o, n, rulesets)))
    differ = [r for r in rulesets if not same_logs(o, n, r)]
    mo, mn = o.ms_per_battle(rulesets), n.ms_per_battle(rulesets)
    uo, un = o.us_per_command(rulesets), n.us_per_command(rulesets)
    print(
        f"sidebyside: old {mo:.1f} ms/battle ({uo:.0f} us/command), new {mn:.1f} ms/battle "
        f"({un:.0f} us/command), ratio {mn / mo:.2f}x per battle, {un / uo:.2f}x per command, "
        f"logs {'identical' if not differ else 'DIFFER (' + ', '.join(differ) + ')'}"
    )


if __name__ == "__main__":
    main()
