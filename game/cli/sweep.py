"""``skirmish sweep``: every combination of scenarios, rulesets, policies and option values, same seeds.

Contract:

- ``skirmish sweep SCENARIO... [--ruleset A,B] [--red P,Q] [--blue P,Q] [--option KEY=V1,V2 ...]
  [--policy-option POLICY.KEY=VALUE ...] [-n N] [--seed S] [--swap-sides] [--workers W]
  [--dask ADDR] [--out DIR] [--resume] [--check-invariants]`` plays the full cross product
  (scenario x ruleset x red x blue x each option's values), every arm on seeds S..S+N-1.
  Left out, ``--ruleset`` is each scenario's own and ``--red``/``--blue`` the scenario's
  controllers of its first/second side. Policy names are checked as ``skirmish battle`` checks
  them (:func:`game.ai.get_policy`), values are read as ``battle --option`` reads them.
- An ``--option`` key applies to the rulesets of the sweep that have it (their pydantic
  ``Options``) and is left out for the others: those play once, not once per value, and their
  ``option.<key>`` cell is empty. A key no ruleset of the sweep has is a usage error naming it.
- Output in ``--out`` (default ``out/sweep-<first scenario>``): ``results.csv``, tidy, one row
  per battle and side (:mod:`game.tools.results`), written as battles finish; ``summary.csv``,
  one row per arm and side with win rates and 95 % Wilson bounds; ``win_rate_by_<factor>.png``
  for each factor with more than one value; ``run.json``, the parameters ``--resume`` checks.
  stdout: a table per arm and where the outputs went; a tqdm bar on stderr.
- Ctrl-C keeps the finished battles in ``results.csv``, writes the summary and plots of them,
  says how to go on and exits 130; ``--resume`` with the same arguments plays the rest.
- Bad input exits 2 with one line before any battle is played; a battle that breaks down exits 1
  naming its seed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from game.cli.battle import (
    DEFAULT_OUT,
    BadInput,
    _load,
    _policies,
    _ruleset_options,
    _safe_label,
    _writable_dir,
    lock_outputs,
    parse_policy_options,
    parse_value,
    profiles_file,
    record_run,
    report_errors,
    split_errors,
    stopped,
)
from game.cli.params import (
    CHECK_INVARIANTS,
    DASK,
    MAX_BATTLES,
    POLICY_OPTIONS,
    POLICY_TIMEOUT,
    SEED,
    SWAP_SIDES,
    WORKERS,
    count,
    default_workers,
    run_size,
    seeds_fit,
)

#: File names written into ``--out``.
RESULTS = "results.csv"
SUMMARY = "summary.csv"


def _values(text: str | None, flag: str) -> list[str | None]:
    """A comma-separated flag value as a list (``[None]`` when the flag is left out)."""
    from game.tools.sweep import split_values

    if text is None:
        return [None]
    values = list(dict.fromkeys(split_values(text)))
    if not values:
        raise BadInput(flag, "give at least one value")
    return list(values)


def _option_values(options: tuple[str, ...]) -> dict[str, list[Any]]:
    """``KEY=V1,V2`` flags to ``{key: [values]}`` (values read as ``battle --option`` reads them)."""
    from game.tools.sweep import split_values

    out: dict[str, list[Any]] = {}
    for text in options:
        key, eq, vals = text.partition("=")
        key = key.strip()
        values = split_values(vals)
        if not eq or not key or not values:
            raise BadInput("--option", f"{text!r} is not KEY=V1,V2,...")
        if key in out:
            raise BadInput("--option", f"{key!r} is given twice; list its values once: {key}=V1,V2")
        parsed: list[Any] = []
        for v in values:
            value = parse_value(v)
            if value not in parsed:
                parsed.append(value)
        out[key] = parsed
    return out


def _option_keys(rulesets: list[str], values: dict[str, list[Any]]) -> dict[str, list[str]]:
    """Ruleset -> the swept option keys its ``Options`` has; a key none has is a usage error."""
    from game.rules import ruleset_class

    has = {r: [k for k in values if k in ruleset_class(r).Options.model_fields] for r in rulesets}
    for key in values:
        if not any(key in keys for keys in has.values()):
            import difflib

            known = sorted({f for r in rulesets for f in ruleset_class(r).Options.model_fields})
            near = difflib.get_close_matches(key, known, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise BadInput(
                "--option",
                f"no ruleset of this sweep ({', '.join(rulesets)}) has an option {key!r}{hint}; "
                "'skirmish rulesets' lists each ruleset's options",
            )
    return has


def _arms(
    scenarios: tuple[str, ...],
    rulesets: list[str | None],
    reds: list[str | None],
    blues: list[str | None],
    option_values: dict[str, list[Any]],
) -> list[Any]:
    from game.scenario.locate import resolve_scenario
    from game.tools.results import value_text
    from game.tools.sweep import Arm, label, option_grid, varied

    paths = [str(resolve_scenario(s)) for s in scenarios]
    if len(set(paths)) < len(paths):
        raise BadInput("SCENARIO", "a scenario is given twice")
    stems = _scenario_labels(paths)
    drafts: list[tuple[str, Any, str, dict[str, Any], dict[str, str], dict[str, str]]] = []
    for path, stem in zip(paths, stems, strict=True):
        for rs in rulesets:
            spec = _load(path, rs)
            ruleset = rs or spec.ruleset
            applicable = [k for k in option_values if k in _fields(ruleset)]
            for red in reds:
                for blue in blues:
                    pols = _policies(spec, red, blue, {}, path)
                    sides = list(spec.sides)
                    for combo in option_grid({k: option_values[k] for k in applicable}):
                        options = _ruleset_options(ruleset, spec, combo)
                        factors = {
                            "scenario": stem,
                            "ruleset": ruleset,
                            "red": pols[sides[0]],
                            "blue": pols[sides[1]] if len(sides) > 1 else "",
                        }
                        for k in option_values:
                            factors[f"option.{k}"] = value_text(combo[k]) if k in combo else ""
                        drafts.append((path, spec, ruleset, options, pols, factors))
    probe = [Arm("", p, s, r, o, pol, f) for p, s, r, o, pol, f in drafts]
    varying = varied(probe)
    return [
        Arm(label(f, varying, _safe_label(Path(p).stem)), p, s, r, o, pol, f) for p, s, r, o, pol, f in drafts
    ]


def _baseline(arms: list[Any], given: str | None) -> str:
    """The label of the baseline arm: the first, or the one ``--baseline`` names by its label or by
    the one value of a factor only it has (``gurps`` for ``ruleset=gurps``)."""
    if given is None:
        return str(arms[0].label)
    if given in [a.label for a in arms]:
        return given
    having = [a.label for a in arms if given in a.factors.values() or given in a.label.split(" ")]
    if len(having) == 1:
        return str(having[0])
    known = ", ".join(repr(a.label) for a in arms)
    if having:
        raise BadInput("--baseline", f"{given!r} names {len(having)} arms; name one: {known}")
    raise BadInput("--baseline", f"no arm {given!r}; the arms are {known}")


def _comparisons(arms: list[Any], by_arm: dict[str, list[dict[str, Any]]], baseline: str) -> dict[str, Any]:
    """Every arm against the baseline arm on the same seeds (:func:`game.tools.paired.compare_all`)."""
    from game.tools.paired import compare_all, first_side_won

    if len(arms) < 2:
        return {}
    outcomes = {a.label: first_side_won(by_arm.get(a.label, []), a.sides[0]) for a in arms}
    return {c.arm: c for c in compare_all(outcomes, baseline)}


def _fields(ruleset: str) -> set[str]:
    from game.rules import ruleset_class

    return set(ruleset_class(ruleset).Options.model_fields)


def _scenario_labels(paths: list[str]) -> list[str]:
    """File stems; the same stem twice gets its folder's name (``old-duel``), else a number."""
    stems = [_safe_label(Path(p).stem) for p in paths]
    if len(set(stems)) == len(stems):
        return stems
    named = [_safe_label(f"{Path(p).resolve().parent.name}-{s}") for p, s in zip(paths, stems, strict=True)]
    if len(set(named)) == len(named):
        return named
    return [f"{s}-{i}" for i, s in enumerate(stems, 1)]


@click.command("sweep")
@click.argument("scenarios", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--ruleset", "rulesets", metavar="A,B", help="Rulesets to play [default: each scenario's].")
@click.option("--red", metavar="P,Q", help="Policies of the scenarios' first side.")
@click.option("--blue", metavar="P,Q", help="Policies of the scenarios' second side.")
@click.option(
    "--option",
    "option",
    multiple=True,
    metavar="KEY=V1,V2",
    help="Ruleset option and its values (repeatable).",
)
@POLICY_OPTIONS
@POLICY_TIMEOUT
@click.option(
    "-n", "n", type=int, default=10, show_default=True, help=f"Battles per arm (1 to {MAX_BATTLES})."
)
@click.option("--seed", type=SEED, default=1, show_default=True, help="First seed (seeds S..S+N-1).")
@SWAP_SIDES
@WORKERS
@DASK
@click.option(
    "--out", "out", type=click.Path(file_okay=False), help="Output folder [default: out/sweep-<scenario>]."
)
@click.option(
    "--resume", is_flag=True, help="Continue the sweep in --out: play only the battles its CSV lacks."
)
@CHECK_INVARIANTS
@click.option(
    "--baseline",
    metavar="ARM",
    help="The arm every other is compared with on the same seeds: its label as printed [default: the first].",
)
@click.option("--plots/--no-plots", default=True, show_default=True, help="Write a plot per varied factor.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show the progress bar.")
def sweep(
    scenarios: tuple[str, ...],
    rulesets: str | None,
    red: str | None,
    blue: str | None,
    option: tuple[str, ...],
    policy_option: tuple[str, ...],
    policy_timeout: float,
    n: int,
    seed: int,
    swap_sides: bool,
    workers: int | None,
    dask: str | None,
    out: str | None,
    resume: bool,
    check_invariants: bool,
    baseline: str | None,
    plots: bool,
    progress: bool,
) -> None:
    """Play every combination of SCENARIOs, rulesets, policies and option values on the same seeds."""
    from game.rules import RULESET_NAMES
    from game.tools import batch, results
    from game.tools import sweep as sw
    from game.tools.paired import cells
    from game.tools.stats import summarize, summary_records

    count(n, "-n", "the number of battles")
    seeds_fit(seed, n)
    ruleset_list = _values(rulesets, "--ruleset")
    for rs in ruleset_list:
        if rs is not None and rs not in RULESET_NAMES:
            raise BadInput("--ruleset", f"unknown ruleset {rs!r}; choose one of {', '.join(RULESET_NAMES)}")
    option_values = _option_values(option)
    policy_options = parse_policy_options(policy_option)
    arms = _arms(scenarios, ruleset_list, _values(red, "--red"), _values(blue, "--blue"), option_values)
    _option_keys(sorted({a.ruleset for a in arms}), option_values)
    base_label = _baseline(arms, baseline)
    run_size(len(arms) * n * (2 if swap_sides else 1))
    if check_invariants:
        batch.invariant_checker(True)
    out_dir = _writable_dir(
        Path(out) if out else Path(DEFAULT_OUT) / f"sweep-{Path(arms[0].path).stem}", "--out"
    )
    lock_outputs(out_dir)

    planned = []
    for arm in arms:
        jobs = batch.plan(
            seeds=range(seed, seed + n),
            scenario=arm.path,
            spec=arm.spec,
            policies=arm.policies,
            ruleset=arm.ruleset,
            options=arm.options,
            swap_sides=swap_sides,
            variant=arm.label,
            check_invariants=check_invariants,
            policy_options=policy_options,
            policy_timeout=policy_timeout,
        )
        factors = tuple((k, v) for k, v in arm.factors.items() if k.startswith("option."))
        planned += [
            results.Planned(job, arm.label, arm.spec.name, arm.ruleset, arm.sides, factors) for job in jobs
        ]
    params = {
        "command": "sweep",
        "arms": [
            {
                "label": a.label,
                "scenario_sha256": a.spec.sha256,
                "ruleset": a.ruleset,
                "options": a.options,
                "policies": a.policies,
            }
            for a in arms
        ],
        "seed": seed,
        "n": n,
        "swap_sides": swap_sides,
        "policy_options": policy_options,
    }
    csv_path = out_dir / RESULTS
    header = results.columns(list(dict.fromkeys(a.ruleset for a in arms)), list(option_values))
    profiles = profiles_file(planned, list(dict.fromkeys(a.ruleset for a in arms)), out_dir)
    kept = record_run(
        planned,
        csv_path,
        header,
        params,
        resume=resume,
        workers=workers if workers is not None else default_workers(),
        dask=dask,
        progress=progress,
        retry="skirmish battle SCENARIO -n 1 --seed {seed} with the failing arm's --ruleset, --red, "
        "--blue and --option values",
        desc="sweep",
        companion=profiles,
    )
    rows, errors = split_errors(kept.in_order())
    if not rows and not errors:
        stopped(kept, len(planned), csv_path)
    by_arm: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_arm.setdefault(row["variant"], []).append(row)
    summaries = {a.label: summarize(by_arm[a.label], a.sides, a.label) for a in arms if a.label in by_arm}
    comparisons = _comparisons(arms, by_arm, base_label)
    records: list[dict[str, Any]] = []
    for a in arms:
        if a.label in summaries:
            head = {"variant": a.label, **a.factors}
            for r in summary_records(summaries[a.label], {} if swap_sides else a.policies, head):
                c = comparisons.get(a.label) if r["side"] == a.sides[0] else None
                records.append({**r, **cells(c, base_label)} if len(arms) > 1 else r)
    summary_path = batch.write_csv(records, out_dir / SUMMARY)
    profiles_path = profiles.path
    varying = sw.varied(arms)
    swapped = " x 2 (swapped sides)" if swap_sides else ""
    click.echo(f"{len(arms)} arm(s) x {n} seed(s){swapped}, 95% Wilson intervals")
    if len(arms) > 1:
        click.echo(
            f"diff: the first side's win share minus the baseline's ({base_label!r}) on the same seeds, "
            f"95% paired interval; p_holm: McNemar exact, Holm-adjusted over {len(arms) - 1} comparison(s)"
        )
        click.echo(sw.table(arms, summaries, varying, comparisons, base_label))
    else:
        click.echo(sw.table(arms, summaries, varying))
    click.echo("")
    written: list[Path] = []
    if plots:
        for factor in varying:
            values, series = sw.by_factor(arms, by_arm, factor)
            written.append(sw.factor_plot(factor, values, series, out_dir / sw.plot_name(factor)))
    click.echo(f"results: {csv_path}")
    click.echo(f"summary: {summary_path}")
    click.echo(f"profiles: {profiles_path}")
    if written:
        click.echo(f"plots: {', '.join(str(p) for p in written)}")
    if kept.interrupted:
        stopped(kept, len(planned), csv_path)
    if errors:
        report_errors(errors, len(planned), csv_path)
