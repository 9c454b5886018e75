"""``skirmish battle``: headless AI-vs-AI battles in bulk, with statistics, plots and logs.

Contract (issue 6, DESIGN §4):

- ``skirmish battle SCENARIO -n N --seed S --red P --blue P [--policy SIDE=NAME ...]
  [--ruleset R] [--option key=value ...] [--policy-option POLICY.KEY=VALUE ...] [--swap-sides]
  [--workers W] [--dask ADDR] [--out DIR] [--log DIR|FILE.jsonl] [--check-invariants]
  [--compare A B]`` plays
  battles with seeds S..S+N-1 (``--swap-sides``: each seed also with the first two
  sides' policies exchanged). ``--red``/``--blue`` set the policy of the scenario's
  first/second side whatever its name; ``--policy SIDE=NAME`` names any side;
  unnamed sides use the scenario's ``controllers``. ``--policy-option planner.budget=8``
  gives an option to a policy that takes options (values read as ``--option``'s), on whichever
  side it plays.
- Output: a tqdm bar on stderr; in ``--out`` (default ``out/<scenario>``) ``battles.csv``, tidy:
  one row per battle and side (:mod:`game.tools.results`, columns in ``docs/batch.md``),
  appended as each battle ends; ``summary.csv`` (per variant and side: win rate with its
  95 % Wilson bounds, draws, rounds); ``run.json`` (the parameters ``--resume`` checks) and
  three PNG plots; a summary table on stdout (per-side win rate with its 95 % Wilson interval,
  draws, mean rounds) and how often each side fired each mechanic of the ruleset
  (total and per battle); then where every output went. A single battle (``-n 1``, one
  variant, no ``--swap-sides``) also prints the battle's own summary
  (:func:`game.tools.summary.summary_lines`: harm dealt and taken, hits, defences, mechanics,
  the turning point), read from its log (kept in a temporary file when ``--log`` is not given).
- Ctrl-C (also with worker processes) keeps every finished battle in ``battles.csv``, writes
  and prints the summary of them, says how many were kept and how to go on, and exits 130.
  ``--resume`` (same arguments and ``--out``; a larger ``-n`` adds seeds) plays only the
  battles the CSV lacks, after dropping a torn last line; other parameters than ``run.json``'s
  are refused (exit 2). :func:`record_run` and :func:`stopped` do this for ``sweep`` too.
- ``--compare A B``: A and B are two rulesets (played on SCENARIO) or two scenario
  files (SCENARIO may then be left out); both run on the same seeds and the
  report ends with the difference in the first side's win rate, A − B, with its
  95 % Newcombe interval. A variant is labelled by its ruleset or its file's stem; two
  files of the same name by their folders' names (``old-duel``, ``new-duel``) or
  ``duel-1``/``duel-2`` (:func:`compare_labels`): a label is never a path.
- ``--log DIR`` keeps every battle's log as ``DIR/battle-<seed>.jsonl`` (compared
  variants in ``DIR/<variant>/``, each checked writable before any battle runs); with
  ``-n 1``, ``--log FILE.jsonl`` writes that one file.
- ``--check-invariants`` runs ``game.tools.invariants.check`` after every command; a
  violation stops the run with the seed and step (exit 1), as does any battle
  that breaks down.
- Bad input (unknown policy, ruleset or side, bad ``-n``/``--option``, a negative
  ``--seed``, an unwritable ``--out``/``--log``, a missing or invalid scenario) exits 2
  with one line and writes nothing.
- Before the battles start, the compiled kernels are made ready once in this process
  (:func:`game.tools.warmup.ensure_warm`: nothing to do when this installation warmed up
  before), so worker processes inherit them instead of each compiling its own while the
  progress bar waits; a first compile says so on stderr.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from game.cli.params import (
    CHECK_INVARIANTS,
    DASK,
    MAX_BATTLES,
    POLICY,
    POLICY_OPTIONS,
    POLICY_TIMEOUT,
    RULESET_OPTIONS,
    SEED,
    SWAP_SIDES,
    WORKERS,
    BadInput,
    OutputPath,
    count,
    default_workers,
    parse_options,
    parse_pairs,
    parse_value,
    policy_problem,
    ruleset_options,
    run_size,
    seeds_fit,
)

if TYPE_CHECKING:
    from game.tools.profiles import ProfilesFile
    from game.tools.results import Companion, Planned, Recorded

#: Default output folder (under the working directory).
DEFAULT_OUT = "out"


@dataclass(frozen=True)
class Variant:
    """One arm of a batch: a scenario under a ruleset ("" label for a plain batch)."""

    label: str
    path: str
    spec: Any
    ruleset: str
    options: dict[str, Any]
    policies: dict[str, str]


# --------------------------------------------------------------------------- parsing
def parse_policy_options(values: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """``POLICY.KEY=VALUE`` strings to ``{policy: {key: value}}``, each policy made once with its
    options to check them (a usage error naming ``--policy-option`` otherwise)."""
    from game.ai import get_policy, is_policy_spec
    from game.core.errors import SkirmishError
    from game.tools.isolate import probe

    out: dict[str, dict[str, Any]] = {}
    for text, value in parse_pairs(values, "--policy-option").items():
        name, dot, key = text.rpartition(".")  # the last dot: a spec's file name has one
        if not dot or not name or not key:
            raise BadInput("--policy-option", f"{text!r} is not POLICY.KEY (e.g. planner.budget=8)")
        out.setdefault(name, {})[key] = parse_value(value)
    for name, opts in out.items():
        try:
            if is_policy_spec(name):
                probe(name, opts)  # the user's code runs in a throwaway process, never here
            else:
                get_policy(name, **opts)
        except SkirmishError as e:
            raise BadInput("--policy-option", str(e)) from None
    return out


def _check_policy(name: str, where: str, own: bool = True) -> str:
    """``name`` if it is a registered policy, or (``own``: given on the command line) a user
    policy's spec that loads; a scenario's controllers never load a user's code."""
    from game.ai import policy_names

    if own:
        problem = policy_problem(name)
        if problem is not None:
            raise BadInput(where, problem)
        return name
    names = policy_names()
    if name not in names:
        raise BadInput(where, f"unknown AI policy {name!r}; choose one of {', '.join(names)}")
    return name


def _writable_dir(path: Path, hint: str) -> Path:
    """Create ``path`` if needed and prove a file can be written there (nothing is left behind)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".skirmish-write-test.", dir=path)
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise BadInput(hint, f"cannot write to {path}: {e.strerror or e}") from None
    return path


def lock_outputs(
    out_dir: Path,
    log_dir: Path | None = None,
    log_file: Path | None = None,
    folders: list[Path] | None = None,
) -> None:
    """Hold the output folders for the rest of the command (:mod:`game.tools.outlock`): a second run
    on the same ``--out`` (or ``--log``) refuses at once; clear the temp files a killed run left in
    them (no other run writes there now), and again when the command ends."""
    from game.tools.outlock import clear_temps, hold

    ctx = click.get_current_context()
    ctx.with_resource(hold(out_dir, "--out"))
    if log_dir is not None and log_dir.resolve() != out_dir.resolve():
        ctx.with_resource(hold(log_dir, "--log"))
    if log_file is not None:
        ctx.with_resource(hold(log_file.parent, "--log", name=f".{log_file.name}.lock"))
    cleared: list[tuple[Path, str | None]] = [(f, None) for f in [out_dir, *(folders or [])]]
    if log_file is not None:
        cleared.append((log_file.parent, log_file.name))
    for folder, only in cleared:
        clear_temps(folder, only)
    # and at the end, while the locks are still held: a worker stopped mid-write (a failed or
    # interrupted run ends the others at once) leaves its temp file
    ctx.call_on_close(lambda: [clear_temps(f, only) for f, only in cleared])


def _ruleset_options(ruleset: str, spec: Any, cli_options: dict[str, Any]) -> dict[str, Any]:
    """Scenario options for ``ruleset`` overridden by ``--option``, validated by the ruleset."""
    return ruleset_options(ruleset, cli_options, base=spec.options.get(ruleset, {}))


def _policies(
    spec: Any, red: str | None, blue: str | None, named: dict[str, str], label: str
) -> dict[str, str]:
    sides = list(spec.sides)
    chosen = {s: spec.controllers.get(s, "random") for s in sides}
    given: set[str] = set()  # sides whose policy the command line names (it may be a user's file)
    for flag, i, name in (("--red", 0, red), ("--blue", 1, blue)):
        if name is not None:
            if i >= len(sides):
                raise BadInput(flag, f"the scenario has only {len(sides)} side(s)")
            chosen[sides[i]] = _check_policy(name, flag)
            given.add(sides[i])
    for side, name in named.items():
        if side in chosen:
            chosen[side] = _check_policy(name, "--policy")
            given.add(side)
    for side, name in chosen.items():
        if name == "human":
            raise BadInput(
                "--policy",
                f"side {side!r} is played by a human in {label}; give it an AI with --policy {side}=NAME",
            )
        if side not in given:
            _check_policy(name, f"controllers of {label}", own=False)
    return chosen


def _load(path: str, ruleset: str | None) -> Any:
    from game.scenario import load_scenario

    return load_scenario(path, ruleset=ruleset)


def _variants(
    scenario: str | None,
    compare: tuple[str, str] | None,
    ruleset: str | None,
    cli_options: dict[str, Any],
    red: str | None,
    blue: str | None,
    named: dict[str, str],
) -> list[Variant]:
    from game.rules import RULESET_NAMES

    arms: list[tuple[str, str, str | None]] = []  # (label, path, ruleset)
    if compare is None:
        if scenario is None:
            raise BadInput("SCENARIO", "give a scenario file (or --compare A.yaml B.yaml)")
        arms.append(("", scenario, ruleset))
    else:
        a, b = compare
        if a == b:
            raise BadInput("--compare", "compare two different rulesets or scenario files")
        if a in RULESET_NAMES and b in RULESET_NAMES:
            if scenario is None:
                raise BadInput("SCENARIO", "--compare RULESET_A RULESET_B needs a scenario file")
            arms += [(a, scenario, a), (b, scenario, b)]
        else:
            from game.scenario.locate import resolve_scenario

            for x in (a, b):
                if x not in RULESET_NAMES and not resolve_scenario(x).is_file():
                    raise BadInput(
                        "--compare",
                        f"{x!r} is neither a ruleset ({', '.join(RULESET_NAMES)}) nor a scenario file",
                    )
            if a in RULESET_NAMES or b in RULESET_NAMES:
                raise BadInput("--compare", "compare two rulesets or two scenario files, not one of each")
            la, lb = compare_labels(a, b)
            arms += [(la, a, ruleset), (lb, b, ruleset)]
    from game.scenario.locate import resolve_scenario

    out = []
    for label, given, rs in arms:
        path = str(resolve_scenario(given))  # a shipped scenario may be named
        spec = _load(path, rs)
        name = rs or spec.ruleset
        pols = _policies(spec, red, blue, named, path)
        out.append(Variant(label, path, spec, name, _ruleset_options(name, spec, cli_options), pols))
    unknown = [s for s in named if not any(s in v.spec.sides for v in out)]
    if unknown:
        sides = sorted({s for v in out for s in v.spec.sides})
        raise BadInput("--policy", f"no side {unknown[0]!r} in the scenario; sides are {', '.join(sides)}")
    return out


def _safe_label(text: str) -> str:
    """``text`` as one file-name component: letters, digits, ``.``, ``_``, ``-`` only."""
    return re.sub(r"[^\w.-]+", "-", text).strip(".-") or "variant"


def compare_labels(a: str, b: str) -> tuple[str, str]:
    """Distinct labels of two compared scenario files, each safe as a folder name.

    The file names' stems (``duel``, ``street``); for two files of the same name, the stem
    after the parent folder's name (``old-duel``, ``new-duel``), else ``duel-1``/``duel-2``.
    Never a path: the labels name the variants' log folders inside ``--log`` and the default
    output folder, so nothing is ever written outside them.
    """
    pa, pb = Path(a), Path(b)
    la, lb = _safe_label(pa.stem), _safe_label(pb.stem)
    if la != lb:
        return la, lb
    try:
        da, db = pa.resolve().parent.name, pb.resolve().parent.name
    except (OSError, RuntimeError):
        da = db = ""
    if da and db and da != db:
        return _safe_label(f"{da}-{la}"), _safe_label(f"{db}-{lb}")
    return f"{la}-1", f"{lb}-2"


def _default_out(variants: list[Variant]) -> Path:
    stem = Path(variants[0].path).stem
    if len(variants) > 1:
        if variants[0].path == variants[1].path:
            stem = f"{stem}-{variants[0].label}-vs-{variants[1].label}"
        else:
            stem = f"{variants[0].label}-vs-{variants[1].label}"
    return Path(DEFAULT_OUT) / stem


# --------------------------------------------------------------------------- the command
@click.command("battle")
@click.argument("scenario", required=False, type=click.Path(dir_okay=False))
@click.option(
    "-n", "n", type=int, default=1, show_default=True, help=f"Battles per variant (1 to {MAX_BATTLES})."
)
@click.option("--seed", type=SEED, default=1, show_default=True, help="First seed (seeds S..S+N-1).")
@click.option("--red", type=POLICY, help="Policy of the scenario's first side: a name or FILE.py:FUNCTION.")
@click.option("--blue", type=POLICY, help="Policy of the scenario's second side: a name or FILE.py:FUNCTION.")
@click.option("--policy", "policy", multiple=True, metavar="SIDE=NAME", help="Policy of a side (repeatable).")
@click.option("--ruleset", help="Play under this ruleset instead of the scenario's.")
@RULESET_OPTIONS
@POLICY_OPTIONS
@POLICY_TIMEOUT
@SWAP_SIDES
@WORKERS
@DASK
@click.option(
    "--out", "out", type=click.Path(file_okay=False), help="Output folder [default: out/<scenario>]."
)
@click.option("--log", "log", type=OutputPath(), help="Keep event logs: a folder, or FILE.jsonl with -n 1.")
@CHECK_INVARIANTS
@click.option("--compare", nargs=2, metavar="A B", help="Compare two rulesets or two scenario files.")
@click.option(
    "--baseline",
    metavar="ARM",
    help="With --compare: the arm the other is compared with on the same seeds [default: A].",
)
@click.option("--plots/--no-plots", default=True, show_default=True, help="Write the PNG plots.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show the progress bar.")
@click.option(
    "--resume", is_flag=True, help="Continue the run in --out: play only the battles its CSV lacks."
)
def battle(
    scenario: str | None,
    n: int,
    seed: int,
    red: str | None,
    blue: str | None,
    policy: tuple[str, ...],
    ruleset: str | None,
    option: tuple[str, ...],
    policy_option: tuple[str, ...],
    policy_timeout: float,
    swap_sides: bool,
    workers: int | None,
    dask: str | None,
    out: str | None,
    log: str | None,
    check_invariants: bool,
    compare: tuple[str, str] | None,
    baseline: str | None,
    plots: bool,
    progress: bool,
    resume: bool,
) -> None:
    """Run N headless AI-vs-AI battles of SCENARIO and report who wins, and by how much."""
    from game.rules import RULESET_NAMES
    from game.tools import batch

    count(n, "-n", "the number of battles")
    seeds_fit(seed, n)
    if ruleset is not None and ruleset not in RULESET_NAMES:
        raise BadInput("--ruleset", f"unknown ruleset {ruleset!r}; choose one of {', '.join(RULESET_NAMES)}")
    named = parse_pairs(policy, "--policy")
    policy_options = parse_policy_options(policy_option)
    cli_options = parse_options(option)
    variants = _variants(scenario, compare, ruleset, cli_options, red, blue, named)
    if baseline is not None:
        labels = [planned_label(v) for v in variants]
        if len(variants) < 2:
            raise BadInput("--baseline", "names the arm of --compare the other is compared with")
        if baseline not in labels:
            given = dict(zip(compare or (), labels, strict=False))
            if baseline not in given:
                raise BadInput("--baseline", f"no arm {baseline!r}; the arms are {', '.join(labels)}")
            baseline = given[baseline]
    run_size(n * len(variants) * (2 if swap_sides else 1))
    if check_invariants:
        batch.invariant_checker(True)  # fail now, with one line, if the checker is missing

    out_dir = _writable_dir(Path(out) if out else _default_out(variants), "--out")
    log_file: Path | None = None
    log_dir: Path | None = None
    if log is not None:
        if log.endswith(".jsonl"):
            if n != 1 or swap_sides or len(variants) > 1:
                raise BadInput(
                    "--log",
                    "a single FILE.jsonl keeps one battle: use -n 1 (no --swap-sides/--compare) or a folder",
                )
            log_file = Path(log)
            _writable_dir(log_file.parent if str(log_file.parent) else Path("."), "--log")
        else:
            log_dir = _writable_dir(Path(log), "--log")

    single = n == 1 and not swap_sides and len(variants) == 1 and log_dir is None
    scratch: tempfile.TemporaryDirectory[str] | None = None
    if single and log_file is None:  # the one battle's log, for its summary
        scratch = tempfile.TemporaryDirectory(prefix="skirmish-battle-")
        log_file = Path(scratch.name) / "battle.jsonl"
    try:
        _play(
            variants,
            seed,
            n,
            swap_sides,
            log_dir,
            log_file,
            check_invariants,
            policy_options,
            out_dir,
            workers,
            dask,
            progress,
            resume,
            plots,
            log,
            single,
            policy_timeout,
            baseline,
        )
    finally:
        if scratch is not None:
            scratch.cleanup()


def _play(
    variants: list[Variant],
    seed: int,
    n: int,
    swap_sides: bool,
    log_dir: Path | None,
    log_file: Path | None,
    check_invariants: bool,
    policy_options: dict[str, dict[str, Any]],
    out_dir: Path,
    workers: int | None,
    dask: str | None,
    progress: bool,
    resume: bool,
    plots: bool,
    log: str | None,
    single: bool,
    policy_timeout: float,
    baseline: str | None = None,
) -> None:
    """Plan, play and report the battles of :func:`battle` (its arguments, checked)."""
    from game.rules import ruleset_class
    from game.tools import batch, results
    from game.tools.stats import (
        mechanic_totals,
        mechanics_table,
        summarize,
        summary_records,
        summary_table,
    )

    if log_dir is not None:  # up front: each variant's folder, inside --log, writable
        for v in variants:
            if v.label:
                _writable_dir(log_dir / v.label, "--log")
    log_folders = [] if log_dir is None else [log_dir, *(log_dir / v.label for v in variants if v.label)]
    lock_outputs(out_dir, log_dir, log_file, log_folders)
    jobs_by_variant: list[list[batch.BattleJob]] = []
    for v in variants:
        vdir = None if log_dir is None else (log_dir / v.label if v.label else log_dir)
        jobs_by_variant.append(
            batch.plan(
                seeds=range(seed, seed + n),
                scenario=v.path,
                spec=v.spec,
                policies=v.policies,
                ruleset=v.ruleset,
                options=v.options,
                swap_sides=swap_sides,
                log_dir=vdir,
                log_file=log_file,
                variant=v.label,
                check_invariants=check_invariants,
                policy_options=policy_options,
                policy_timeout=policy_timeout,
            )
        )
    # a column per option set (--option or the scenario's), as a sweep has one per varied option
    option_keys = sorted({k for v in variants for k in v.options})
    planned = [
        results.Planned(
            job,
            planned_label(v),
            v.spec.name,
            v.ruleset,
            tuple(v.spec.sides),
            tuple(
                (f"option.{k}", results.value_text(v.options[k]) if k in v.options else "")
                for k in option_keys
            ),
        )
        for v, vjobs in zip(variants, jobs_by_variant, strict=True)
        for job in vjobs
    ]
    params = {
        "command": "battle",
        "variants": [
            {
                "label": v.label,
                "scenario_sha256": v.spec.sha256,
                "ruleset": v.ruleset,
                "options": v.options,
                "policies": v.policies,
            }
            for v in variants
        ],
        "seed": seed,
        "n": n,
        "swap_sides": swap_sides,
        "policy_options": policy_options,
        "log": log,
    }
    csv_path = out_dir / "battles.csv"
    profiles = profiles_file(planned, [v.ruleset for v in variants], out_dir)
    kept = record_run(
        planned,
        csv_path,
        results.columns([v.ruleset for v in variants], option_keys),
        params,
        resume=resume,
        workers=workers if workers is not None else default_workers(),
        dask=dask,
        progress=progress,
        retry=f"skirmish battle {variants[0].path} -n 1 --seed {{seed}} ...",
        companion=profiles,
    )
    rows, errors = split_errors(kept.in_order())
    if not rows and not errors:
        stopped(kept, len(planned), csv_path)
    by_variant: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_variant.setdefault(row["variant"], []).append(row)
    summaries = []
    records: list[dict[str, Any]] = []
    for v in variants:
        head = f"{v.spec.name} under {v.ruleset}" + (f" [{v.label}]" if v.label else "")
        click.echo(head)
        vrows = by_variant.get(v.label, [])
        if not vrows:
            click.echo("no battle finished\n")
            continue
        sm = summarize(vrows, v.spec.sides, v.label)
        summaries.append(sm)
        records += summary_records(sm, {} if swap_sides else v.policies, {"variant": planned_label(v)})
        click.echo(summary_table(sm, None if swap_sides else v.policies))
        names = [m.name for m in ruleset_class(v.ruleset).mechanics]
        click.echo(mechanics_table(mechanic_totals(vrows, v.spec.sides, names), v.spec.sides))
        click.echo("")
        if single and log_file is not None and log_file.exists():
            from game.core.events import read_log
            from game.rules.mechanics import Facts
            from game.tools.summary import summarize as summarize_battle
            from game.tools.summary import summary_lines

            for line in summary_lines(summarize_battle(read_log(log_file), Facts(spec=v.spec))):
                click.echo(line)
            click.echo("")
    if len(variants) > 1:
        records = _paired_report(variants, by_variant, records, baseline)
    summary_path = batch.write_csv(records, out_dir / "summary.csv")
    profiles_path = profiles.path
    written: list[Path] = []
    if plots:
        from game.tools.plots import write_all

        written = write_all({k: r for k, r in by_variant.items() if r}, out_dir)
    click.echo(f"battles: {csv_path}")
    click.echo(f"summary: {summary_path}")
    click.echo(f"profiles: {profiles_path}")
    if plots:
        click.echo(f"plots: {', '.join(str(p) for p in written)}")
    if log_file is not None and log is not None:
        click.echo(f"log: {log_file}")
    elif log_dir is not None:
        click.echo(f"logs: {log_dir}{os.sep}")
    if kept.interrupted:
        stopped(kept, len(planned), csv_path)
    if errors:
        report_errors(errors, len(planned), csv_path)


def _paired_report(
    variants: list[Variant],
    by_variant: dict[str, list[dict[str, Any]]],
    records: list[dict[str, Any]],
    baseline: str | None,
) -> list[dict[str, Any]]:
    """Print every arm against the baseline arm on the same seeds (:mod:`game.tools.paired`) and
    return ``records`` with the comparison columns on each arm's first-side row."""
    from game.tools.paired import cells, compare_all, first_side_won, table

    labels = [planned_label(v) for v in variants]
    base = baseline if baseline is not None else labels[0]
    outcomes = {
        planned_label(v): first_side_won(by_variant.get(v.label, []), v.spec.sides[0]) for v in variants
    }
    comparisons = {c.arm: c for c in compare_all(outcomes, base)}
    sides = list(dict.fromkeys(v.spec.sides[0] for v in variants))
    click.echo(table(list(comparisons.values()), "/".join(sides)))
    click.echo("")
    out = []
    for r in records:
        first = next((v.spec.sides[0] for v in variants if planned_label(v) == r.get("variant")), None)
        c = comparisons.get(r.get("variant", "")) if r.get("side") == first else None
        out.append({**r, **cells(c, base)})
    return out


def planned_label(v: Variant) -> str:
    """The ``variant`` cell of a battle's variant: its label, else its scenario file's stem (bytes
    of a name that are not UTF-8 shown as U+FFFD: the cell is written to a UTF-8 file)."""
    from game.core.files import readable_name

    return v.label or readable_name(Path(v.path).stem)


def profiles_file(planned: list[Planned], rulesets: list[str], out_dir: Path) -> ProfilesFile:
    """``profiles.csv`` beside the battles (:mod:`game.tools.profiles`): per battle, side and unit
    profile, appended battle by battle as ``battles.csv`` is; battles resumed from an earlier run
    keep their rows of its ``profiles.csv``."""
    from game.tools import profiles, results

    heads = [{"variant": p.variant, "options": results.options_text(p.job.options)} for p in planned]
    return profiles.ProfilesFile(out_dir / profiles.PROFILES, heads, results.mechanic_names(rulesets))


# --------------------------------------------------------------------------- recording (battle, sweep)
def record_run(
    planned: list[Planned],
    csv_path: Path,
    header: list[str],
    params: dict[str, Any],
    *,
    resume: bool,
    workers: int,
    dask: str | None,
    progress: bool,
    retry: str,
    desc: str = "battles",
    companion: Companion | None = None,
) -> Recorded:
    """Play ``planned`` into ``csv_path`` (:func:`game.tools.results.record`), with ``run.json``
    (and ``companion``, a file kept battle by battle beside it, e.g. ``profiles.csv``).

    Compiles the kernels once first (workers fork with them). A battle that breaks down ends
    the command with exit status 1, naming its seed and how to reproduce it (``retry``, with
    ``{seed}``); the battles finished before it stay in the CSV. Resuming a run made with other
    parameters is a usage error (exit 2).
    """
    from game.tools import batch, results
    from game.tools.warmup import ensure_warm

    try:
        manifest = results.check_manifest(csv_path.parent, params, resume, csv_path, write=resume)
    except results.ResumeRefused as e:
        raise BadInput("--resume", str(e)) from None
    if resume and not csv_path.exists():
        click.echo(f"--resume: no {csv_path} yet, so every battle is played", err=True)
    ensure_warm()  # compile once here, before workers fork, not once per worker
    try:
        with stopped_by_sigterm():
            kept = results.record(
                planned,
                csv_path,
                header,
                resume=resume,
                workers=workers,
                dask=dask,
                progress=progress,
                desc=desc,
                before_first_write=manifest,
                companion=companion,
            )
    except results.ResumeRefused as e:
        raise BadInput("--resume", str(e)) from None
    except batch.BattleFailed as e:
        click.echo(f"error: {e}", err=True)
        click.echo(f"to reproduce: {retry.format(seed=e.seed)}", err=True)
        if csv_path.exists():
            click.echo(f"the battles finished before it are in {csv_path}", err=True)
        raise SystemExit(1) from None
    if kept.resumed:
        torn = f"; dropped {kept.dropped_lines} unfinished line(s)" if kept.dropped_lines else ""
        click.echo(
            f"resumed: {kept.resumed} of {len(planned)} battles were already in {csv_path}{torn}", err=True
        )
    return kept


#: Exit status of a run stopped by Ctrl-C (128 + SIGINT), as shells report it.
INTERRUPTED = 130


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: the run stops as on Ctrl-C, keeping what finished (exit 128 + 15)."""

    signum = int(signal.SIGTERM)


def _on_sigterm(signum: int, frame: Any) -> None:
    raise Terminated()


@contextlib.contextmanager
def stopped_by_sigterm() -> Iterator[None]:
    """While playing, SIGTERM stops the run like Ctrl-C: finished battles kept, workers ended."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def stopped(kept: Recorded, total: int, csv_path: Path) -> NoReturn:
    """Report a run stopped by Ctrl-C or SIGTERM (what was kept, how to go on) and exit with
    status 130 (143 for SIGTERM)."""
    n = len(kept.rows)
    click.echo(
        f"interrupted: {n} of {total} battles finished and kept in {csv_path}; "
        f"run the same command with --resume (same --out) to play the other {total - n}",
        err=True,
    )
    raise SystemExit(128 + kept.signum)


#: Battles of a run shown by :func:`report_errors` (the CSV has them all).
SHOWN_ERRORS = 5


def split_errors(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(battles that finished, battles that ended in an error)."""
    return [r for r in rows if "error" not in r], [r for r in rows if "error" in r]


def report_errors(errors: list[dict[str, Any]], total: int, csv_path: Path) -> NoReturn:
    """Say which battles ended in an error (their rows say why) and exit with status 1."""
    click.echo(
        f"error: {len(errors)} of {total} battles ended in an error; their rows in {csv_path} "
        "have result 'error' and the reason:",
        err=True,
    )
    for row in errors[:SHOWN_ERRORS]:
        click.echo(f"  {row['error']}", err=True)
    if len(errors) > SHOWN_ERRORS:
        click.echo(f"  ... and {len(errors) - SHOWN_ERRORS} more", err=True)
    raise SystemExit(1)
