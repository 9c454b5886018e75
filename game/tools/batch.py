"""Headless AI-vs-AI battles in bulk: one pure function per battle, run serially, in processes or on Dask.

Contract:
- A :class:`BattleJob` is a picklable description of one battle (scenario path or
  in-memory spec, seed, ruleset and options, the policy of each side, where to
  keep its log). :func:`run_battle` plays it to the end through a
  :class:`game.tools.session.Session` and returns one flat row (``dict`` of
  str/int/float, see :data:`ROW_DOC`). It is pure: the same job
  gives the same row and the same log bytes in any process on any machine with
  the same code, because every draw comes from the match's seeded generators.
- :func:`run_batch` runs many jobs serially (``workers=1``), in local worker
  processes (``workers>1``) or on a Dask distributed cluster (``dask="local"``
  or a scheduler address) and always returns the rows in job order, identical
  to a serial run. :func:`iter_batch` yields each row the moment its battle ends
  (completion order, with its job index), so a caller can keep every finished battle
  when the run is interrupted: Ctrl-C stops worker processes at once (they ignore SIGINT).
- :func:`plan` builds the jobs of one ``skirmish battle`` run: seeds ``seed ..
  seed+n-1``, optionally each also with the policies swapped between the sides.
- Scenario files are loaded once per worker process and checked against the
  sha256 the job was planned with, so a file edited mid-batch is an error,
  never a silent mix of two maps.
- A battle that fails (a policy returning an illegal command, an engine error,
  an invariant violation under ``check_invariants``, no outcome after
  :data:`game.tools.session.MAX_COMMANDS` commands) raises
  :class:`BattleFailed` naming the seed and the command step; with a log path
  the partial log is still written, atomically, for the post-mortem. A user policy that fails
  (:class:`game.ai.errors.PolicyFailed`, located in the user's code) is raised as such, with the
  seed and step in front: bad input, not a broken battle.
- A battle with a user policy plays in a process of its own (:mod:`game.tools.isolate`), under
  a CPU-time limit per decision (the job's ``policy_timeout``), whatever the number of workers:
  whatever the policy does ends at most that battle, which :func:`iter_batch` yields as an
  error row (:func:`error_row`: ``error`` names the seed, policy, unit and decision); every
  other battle plays on. Such batches cannot run on Dask. Worker processes of every kind die
  with the run's process, even when it is killed with ``kill -9``.
"""

from __future__ import annotations

import csv
import functools
import gc
import itertools
import os
import sys
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from components.specs import ScenarioSpec
from game.ai.errors import PolicyFailed
from game.core.errors import ScenarioError, SkirmishError
from game.core.events import atomic_write_text
from game.rules.mechanics import LEGACY, Facts, Mechanic, count_all
from game.tools.csvtext import FORMULA_STARTS, columns, neutralised, rows_to_csv  # noqa: F401  (re-exported)
from game.tools.failures import BattleFailed
from game.tools.session import Session, Setup, StuckMatch

#: Per-side counters every row has, whatever the ruleset (from the logged commands), in column order.
COUNTERS = tuple(m.name for m in LEGACY)

ROW_DOC = {
    "variant": "name of the compared variant ('' for a plain batch)",
    "scenario": "scenario name",
    "ruleset": "ruleset played",
    "seed": "match seed",
    "swapped": "1 if the policies were swapped between the sides (--swap-sides)",
    "policy_<side>": "policy that played the side",
    "winner": "winning side, or 'draw'",
    "winner_policy": "policy of the winning side ('' for a draw)",
    "reason": "why the match ended",
    "rounds": "rounds played",
    "commands": "commands applied (turn commands and reactions)",
    "survivors_<side>": "units of the side still in action at the end",
    "damage_<side>": "damage dealt by the side's units: sum of |change| over every health track",
    "attacks_<side> ...": "counts of the side's attacks, dodges, parries, blocks, retreats, "
    "dodge-and-drops, dodge moves, interpositions and follows",
    "final_hash": "state hash at the end (equal rows mean equal battles)",
    "log": "path of the battle's event log ('' if not kept)",
    "<mechanic>_<side>": "how often the side fired each further mechanic its ruleset declares "
    "(Ruleset.mechanics; docs/batch.md lists them)",
    "damage_taken_<side>": "damage the side's units took, from anyone (friends in the way included) "
    "or nothing (no source)",
    "profiles": "per side and unit profile: units, survivors, damage dealt and taken, mechanics, as "
    "JSON (game.tools.profiles; profiles.csv)",
}


class InvariantViolation(BattleFailed):
    """``game.tools.invariants.check`` reported a problem after a command."""


@dataclass(frozen=True)
class BattleJob:
    """One battle to play.

    Attributes:
        seed: the match seed.
        scenario: path of the scenario file (loaded once per process), or None with ``spec``.
        spec: an already loaded scenario (tests; rulesets registered at run time).
        ruleset: overrides the scenario's ruleset.
        options: ruleset options, merged over the scenario's options for that ruleset.
        policies: (side, policy name) pairs; sides not named use the scenario's controllers.
        policy_options: (policy name, ((key, value), ...)) pairs: options of the policies that
            take them (``--policy-option``), as :func:`game.ai.get_policy` reads them.
        variant: label of a compared variant ("" for a plain batch).
        swapped: whether ``policies`` are the swapped assignment (recorded in the row).
        log_path: where to write the event log (None: not kept).
        check_invariants: call ``game.tools.invariants.check(match)`` after every command.
        sha256: the scenario file's hash when the batch was planned (checked on load).
        round_limit: overrides the scenario's round limit.
        policy_timeout: CPU seconds a user policy may take for one decision (``--policy-timeout``;
            None: :data:`game.ai.guard.DEFAULT_SECONDS`).
    """

    seed: int
    scenario: str | None = None
    spec: ScenarioSpec | None = None
    ruleset: str | None = None
    options: tuple[tuple[str, Any], ...] = ()
    policies: tuple[tuple[str, str], ...] = ()
    policy_options: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()
    variant: str = ""
    swapped: bool = False
    log_path: str | None = None
    check_invariants: bool = False
    sha256: str | None = None
    round_limit: int | None = None
    policy_timeout: float | None = None


def has_user_policy(job: BattleJob) -> bool:
    """Whether a side of ``job`` is played by a user policy (``FILE.py:FUNCTION``): such a battle
    plays in a process of its own (:mod:`game.tools.isolate`)."""
    from game.ai import is_policy_spec

    return any(is_policy_spec(p) for _, p in job.policies)


def error_row(job: BattleJob, message: str) -> dict[str, Any]:
    """The row of a battle that ended in an error (a user policy that failed, looped or ended its
    process): who played, and ``error``, the one-line message naming the policy, unit and decision."""
    spec = job_spec(job)
    players = {s: spec.controllers.get(s, "random") for s in spec.sides} | dict(job.policies)
    row: dict[str, Any] = {
        "variant": job.variant,
        "scenario": spec.name,
        "ruleset": job.ruleset or spec.ruleset,
        "seed": job.seed,
        "swapped": int(job.swapped),
    }
    for side in spec.sides:
        row[f"policy_{side}"] = players[side]
    row["winner"] = ""
    row["error"] = message
    row["log"] = job.log_path or ""
    return row


# --------------------------------------------------------------------------- scenarios
_SPECS: dict[tuple[str, str | None, int, int], ScenarioSpec] = {}


def load_spec(path: str, ruleset: str | None = None, sha256: str | None = None) -> ScenarioSpec:
    """Load a scenario once per process (keyed by path, ruleset, mtime and size).

    Raises:
        ScenarioError: the file is invalid, or its sha256 differs from ``sha256``.
    """
    from game.scenario import load_scenario

    p = os.path.abspath(path)
    try:
        st = os.stat(p)
    except OSError as e:
        from game.core.errors import Problem

        raise ScenarioError([Problem(path, 0, "", f"cannot read: {e.strerror or e}")]) from None
    key = (p, ruleset, st.st_mtime_ns, st.st_size)
    spec = _SPECS.get(key)
    if spec is None:
        spec = load_scenario(path, ruleset=ruleset)
        _SPECS.clear()  # one scenario at a time is the common case; never grow without bound
        _SPECS[key] = spec
    if sha256 is not None and spec.sha256 != sha256:
        from game.core.errors import Problem

        raise ScenarioError(
            [
                Problem(
                    path,
                    0,
                    "",
                    f"sha256 {spec.sha256[:12]}… differs from {sha256[:12]}… the batch was planned with",
                )
            ]
        )
    return spec


def job_spec(job: BattleJob) -> ScenarioSpec:
    """The scenario of ``job`` (its in-memory spec, or the file loaded through the cache)."""
    if job.spec is not None:
        return job.spec
    if job.scenario is None:
        raise ValueError("a BattleJob needs a scenario path or a spec")
    return load_spec(job.scenario, job.ruleset, job.sha256)


def job_options(job: BattleJob, spec: ScenarioSpec) -> dict[str, Any]:
    """Ruleset options for ``job``: the scenario's for that ruleset, overridden by the job's."""
    name = job.ruleset or spec.ruleset
    return {**spec.options.get(name, {}), **dict(job.options)}


# --------------------------------------------------------------------------- one battle
def invariant_checker(enabled: bool) -> Callable[[Any], list[str]] | None:
    """``game.tools.invariants.check`` if ``enabled`` (None otherwise); SkirmishError if it is missing."""
    if not enabled:
        return None
    try:
        from game.tools import invariants
    except ModuleNotFoundError as e:
        if e.name != "game.tools.invariants":
            raise
        raise SkirmishError(
            "--check-invariants needs game.tools.invariants, which this installation lacks"
        ) from None
    check: Callable[[Any], list[str]] = invariants.check
    return check


def run_battle(job: BattleJob) -> dict[str, Any]:
    """Play one battle headless to the end and return its row.

    Raises:
        BattleFailed: the battle broke down (seed and step in the message).
        InvariantViolation: ``job.check_invariants`` and an invariant failed.
        SkirmishError: bad input (scenario, ruleset, options, policy names).
    """
    spec = job_spec(job)
    _settle_heap()
    check = invariant_checker(job.check_invariants)
    session = Session.start(
        spec,
        Setup(
            ruleset=job.ruleset,
            seed=job.seed,
            options=job_options(job, spec),
            controllers=dict(job.policies),
            round_limit=job.round_limit,
        ),
        players=dict(job.policies),  # the caller's choice: a user policy plays only when named
        options={name: dict(opts) for name, opts in job.policy_options},
    )
    match = session.match
    try:
        if session.humans:
            raise SkirmishError(
                f"battle seed {job.seed}: side {min(session.humans)!r} is played by a human; "
                "a batch needs an AI policy for every side"
            )
        after: Callable[[Session], None] | None = None
        if check is not None:
            _check_now(check, match, job, 0)
            after = functools.partial(_check_after, check, job)
        session.play(after=after)
        row = battle_row(match, job, session.applied)
    except BattleFailed:
        _keep_log(match, job)
        raise
    except PolicyFailed as e:  # the user's policy broke, not the battle: their line, exit 2
        _keep_log(match, job)
        raise PolicyFailed(f"battle seed {job.seed} step {session.applied}: {e}") from None
    except StuckMatch as e:
        _keep_log(match, job)
        raise BattleFailed(
            f"battle seed {job.seed}: no result after {e.limit} commands", job.seed, session.applied
        ) from None
    except SkirmishError as e:
        step = session.applied
        if step == 0 and match.outcome is None and not match.commands:
            raise  # refused before anything happened: bad input, not a broken battle
        _keep_log(match, job)
        raise BattleFailed(
            f"battle seed {job.seed} step {step}: {type(e).__name__}: {e}",
            job.seed,
            step,
            traceback.format_exc(),
        ) from None
    except Exception as e:
        step = session.applied
        _keep_log(match, job)
        raise BattleFailed(
            f"battle seed {job.seed} step {step}: {type(e).__name__}: {e}",
            job.seed,
            step,
            traceback.format_exc(),
        ) from None
    finally:
        session.close()
    _keep_log(match, job)
    return row


_SETTLED_IN: int | None = None  # pid of the process whose heap is settled


def _settle_heap() -> None:
    """Once per process, move every object alive now out of the cyclic collector's reach.

    By the first battle a process holds ~140k long-lived objects (imports, compiled
    kernels, the scenario) that every full collection would rescan: freezing them saves
    3-4 % of a battle's CPU. Frozen objects are still freed by reference counting.
    """
    global _SETTLED_IN
    if os.getpid() != _SETTLED_IN:
        gc.collect()
        gc.freeze()
        _SETTLED_IN = os.getpid()


def _check_after(check: Callable[[Any], list[str]], job: BattleJob, session: Session) -> None:
    _check_now(check, session.match, job, session.applied)


def _check_now(check: Callable[[Any], list[str]], match: Any, job: BattleJob, step: int) -> None:
    problems = check(match)
    if problems:
        shown = "; ".join(str(p) for p in problems[:3]) + (
            f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
        )
        raise InvariantViolation(
            f"battle seed {job.seed} step {step}: invariant violated: {shown}", job.seed, step
        )


def _keep_log(match: Any, job: BattleJob) -> None:
    if job.log_path:
        match.log.write(job.log_path)


def row_mechanics(ruleset: str) -> tuple[Mechanic, ...]:
    """The mechanics a row of ``ruleset`` counts: :data:`LEGACY` first, then the ruleset's others."""
    from game.rules import ruleset_class

    legacy = {m.name for m in LEGACY}
    return LEGACY + tuple(m for m in ruleset_class(ruleset).mechanics if m.name not in legacy)


def battle_row(match: Any, job: BattleJob, commands: int) -> dict[str, Any]:
    """The CSV row of a finished match (columns documented in :data:`ROW_DOC`)."""
    sides = tuple(match.spec.sides)
    side_of = {u: match.side(u) for u in match.units(alive=False)}
    damage = dict.fromkeys(sides, 0)
    taken = dict.fromkeys(sides, 0)
    events = match.log.events
    for e in events:
        if e["type"] == "damage":
            amount = sum(abs(int(v)) for v in e["deltas"].values())
            src = side_of.get(e.get("source") or "")
            if src is not None:
                damage[src] += amount
            hit = side_of.get(e.get("unit") or "")
            if hit is not None:
                taken[hit] += amount
    mechanics = row_mechanics(match.ruleset_name)
    fired = count_all(mechanics, events, Facts(match.stats, match.spec))
    outcome = match.outcome
    winner = outcome.winner if outcome.winner is not None else "draw"
    row: dict[str, Any] = {
        "variant": job.variant,
        "scenario": match.spec.name,
        "ruleset": match.ruleset_name,
        "seed": job.seed,
        "swapped": int(job.swapped),
    }
    for s in sides:
        row[f"policy_{s}"] = match.controllers[s]
    row["winner"] = winner
    row["winner_policy"] = match.controllers.get(outcome.winner, "") if outcome.winner else ""
    row["reason"] = outcome.reason
    row["rounds"] = outcome.rounds
    row["commands"] = commands
    alive = match.units()
    for s in sides:
        row[f"survivors_{s}"] = sum(1 for u in alive if side_of[u] == s)
    for s in sides:
        row[f"damage_{s}"] = damage[s]

    def put(m: Mechanic) -> None:
        per_side = dict.fromkeys(sides, 0)
        for uid, times in fired[m.name].items():
            side = side_of.get(uid)
            if side is not None:
                per_side[side] += times
        for s in sides:
            row[f"{m.name}_{s}"] = per_side[s]

    for m in mechanics[: len(LEGACY)]:
        put(m)
    row["final_hash"] = match.state_hash()
    row["log"] = job.log_path or ""
    for m in mechanics[len(LEGACY) :]:  # after the columns rows had before rulesets declared mechanics
        put(m)
    for s in sides:
        row[f"damage_taken_{s}"] = taken[s]
    from game.tools.profiles import battle_profiles, encode

    row["profiles"] = encode(battle_profiles(match, fired, [m.name for m in mechanics]))
    return row


# --------------------------------------------------------------------------- planning
def log_name(seed: int, swapped: bool = False) -> str:
    """File name of a battle's log inside ``--log DIR``."""
    return f"battle-{seed}{'-swapped' if swapped else ''}.jsonl"


def plan(
    *,
    seeds: Iterable[int],
    scenario: str | None = None,
    spec: ScenarioSpec | None = None,
    policies: Mapping[str, str],
    ruleset: str | None = None,
    options: Mapping[str, Any] | None = None,
    swap_sides: bool = False,
    log_dir: str | os.PathLike[str] | None = None,
    log_file: str | os.PathLike[str] | None = None,
    variant: str = "",
    check_invariants: bool = False,
    round_limit: int | None = None,
    policy_options: Mapping[str, Mapping[str, Any]] | None = None,
    policy_timeout: float | None = None,
) -> list[BattleJob]:
    """Jobs for one batch, seed-major (with ``swap_sides`` each seed is followed by its swap).

    ``policies`` maps every side to a policy name; swapping exchanges the policies of the
    first two sides. ``policy_options`` (policy name -> options) go with the policy wherever it
    plays. ``log_file`` names the one log of a single battle; ``log_dir`` keeps
    ``battle-<seed>.jsonl`` (``-swapped`` for swapped games) in that folder.
    """
    if spec is None and scenario is None:
        raise ValueError("plan needs a scenario path or a spec")
    sha = spec.sha256 if spec is not None and scenario is not None else None
    base = BattleJob(
        seed=0,
        scenario=scenario,
        spec=None if scenario is not None else spec,
        ruleset=ruleset,
        options=tuple(sorted((options or {}).items())),
        variant=variant,
        check_invariants=check_invariants,
        sha256=sha,
        round_limit=round_limit,
        policy_timeout=policy_timeout,
        policy_options=tuple(
            (name, tuple(sorted(opts.items()))) for name, opts in sorted((policy_options or {}).items())
        ),
    )
    order = list(policies)
    swapped_policies = dict(policies)
    if len(order) >= 2:
        swapped_policies[order[0]], swapped_policies[order[1]] = policies[order[1]], policies[order[0]]
    jobs: list[BattleJob] = []
    for seed in seeds:
        for swapped in (False, True) if swap_sides else (False,):
            pols = swapped_policies if swapped else policies
            if log_file is not None:
                log: str | None = str(log_file)
            elif log_dir is not None:
                log = str(Path(log_dir) / log_name(seed, swapped))
            else:
                log = None
            jobs.append(
                replace(base, seed=int(seed), policies=tuple(pols.items()), swapped=swapped, log_path=log)
            )
    return jobs


# --------------------------------------------------------------------------- many battles
def run_batch(
    jobs: Sequence[BattleJob],
    workers: int = 1,
    dask: str | None = None,
    progress: bool = True,
    desc: str = "battles",
) -> list[dict[str, Any]]:
    """Run ``jobs`` and return their rows in job order (arguments as :func:`iter_batch`'s).

    Raises:
        BattleFailed: the first failing battle (in completion order).
        SkirmishError: bad input, or Dask requested but not installed / not reachable.
    """
    rows: list[dict[str, Any] | None] = [None] * len(jobs)
    for i, row in iter_batch(jobs, workers=workers, dask=dask, progress=progress, desc=desc):
        rows[i] = row
    return [r for r in rows if r is not None]


def iter_batch(
    jobs: Sequence[BattleJob],
    workers: int = 1,
    dask: str | None = None,
    progress: bool = True,
    desc: str = "battles",
    done: int = 0,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Run ``jobs`` and yield ``(index in jobs, row)`` as each battle finishes.

    Serially the order is the job order; with workers it is the completion order. A battle's
    row is yielded as soon as it is played, so a caller that records each one loses nothing
    when the run is interrupted: a ``KeyboardInterrupt`` (or closing the generator) stops the
    worker processes at once and shuts the pool down; workers ignore SIGINT themselves, so
    Ctrl-C in a terminal reaches only this process.

    Args:
        jobs: the battles.
        workers: local worker processes (1: in this process). With ``dask="local"``
            the number of Dask workers.
        dask: None (local), ``"local"`` (a Dask LocalCluster) or a scheduler address
            such as ``tcp://10.0.0.5:8786``.
        progress: show a tqdm progress bar on stderr.
        desc: the progress bar's label.
        done: battles of the same run finished before (a resumed run): the bar starts there.

    Raises:
        BattleFailed: the first failing battle (in completion order).
        SkirmishError: bad input, or Dask requested but not installed / not reachable.
    """
    from tqdm import tqdm

    if workers < 1:
        raise SkirmishError(f"--workers must be at least 1, not {workers}")
    with tqdm(
        total=done + len(jobs),
        initial=done,
        desc=desc,
        unit="battle",
        file=sys.stderr,
        disable=not progress,
    ) as bar:
        if any(has_user_policy(job) for job in jobs):
            if dask is not None:
                raise SkirmishError(
                    "--dask: battles of user policies (FILE.py:FUNCTION) play only in local worker "
                    "processes, each isolated from the run; leave out --dask"
                )
            from game.tools.isolate import run_isolated

            source: Iterable[tuple[int, dict[str, Any]]] = (
                (i, error_row(jobs[i], row["error"]) if "error" in row else row)
                for i, row in run_isolated(jobs, workers, run_battle)
            )
        elif dask is not None:
            source = _run_dask(jobs, dask, workers)
        elif workers == 1 or len(jobs) <= 1:
            source = ((i, run_battle(job)) for i, job in enumerate(jobs))
        else:
            source = _run_processes(jobs, workers)
        for item in source:
            bar.update(1)
            yield item


def _run_processes(jobs: Sequence[BattleJob], workers: int) -> Iterator[tuple[int, dict[str, Any]]]:
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

    # fork starts workers in milliseconds and shares the parent's loaded scenario and imports.
    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    from game.tools.isolate import worker_start

    # Workers ignore Ctrl-C (the parent stops them) and die with the parent, even by kill -9.
    pool = ProcessPoolExecutor(
        max_workers=min(workers, len(jobs)),
        mp_context=mp.get_context(method),
        initializer=worker_start,
        initargs=(os.getpid(),),
    )
    # One battle per task, a few tasks queued per worker: each row comes back the moment its
    # battle ends (nothing finished is lost to an interrupt), and a battle costs 30-1000 ms
    # against well under 1 ms to send a job and its row.
    ahead = 4 * workers
    pending: dict[Future[dict[str, Any]], int] = {}
    upcoming = iter(enumerate(jobs))
    clean = False
    try:
        for i, job in itertools.islice(upcoming, ahead):
            pending[pool.submit(run_battle, job)] = i
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            failed = None
            for fut in sorted(finished, key=pending.__getitem__):
                i = pending.pop(fut)
                if fut.exception() is not None:
                    failed = failed or fut  # the others finished with it are still yielded
                    continue
                for j, job in itertools.islice(upcoming, 1):
                    pending[pool.submit(run_battle, job)] = j
                yield i, fut.result()
            if failed is not None:
                failed.result()  # re-raises the battle's own exception
        clean = True
    finally:
        if not clean:
            # Interrupted, closed or failed: stop the battles still being played now, not after them.
            for fut in pending:
                fut.cancel()
            for proc in list(getattr(pool, "_processes", {}).values()):
                proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)


def _run_dask(jobs: Sequence[BattleJob], address: str, workers: int) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        import distributed
    except ImportError:
        raise SkirmishError(
            "--dask needs dask.distributed: pip install 'skirmish-tabletop-sim[distributed]'"
        ) from None
    import logging

    cluster = None
    if address == "local":
        cluster = distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        client = distributed.Client(cluster)
    else:
        try:
            client = distributed.Client(address, timeout="10s")
        except (OSError, TimeoutError, ValueError) as e:
            raise SkirmishError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    try:
        futures = client.map(run_battle, list(jobs), pure=False)
        index = {fut.key: i for i, fut in enumerate(futures)}
        for fut in distributed.as_completed(futures):
            row: dict[str, Any] = fut.result()  # re-raises the battle's own exception
            yield index[fut.key], row
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# --------------------------------------------------------------------------- output
def write_csv(rows: Sequence[Mapping[str, Any]], path: str | os.PathLike[str]) -> Path:
    """Write ``rows`` to ``path`` atomically (never a half-written file)."""
    return atomic_write_text(Path(path), rows_to_csv(rows))


def read_csv(path: str | os.PathLike[str]) -> list[dict[str, str]]:
    """Rows of a ``battles.csv`` (values as strings)."""
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))
