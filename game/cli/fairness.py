"""``skirmish fairness``: is each scenario fair when both sides play the same AI?

Contract:
- ``skirmish fairness SCENARIO... [--ruleset R|all ...] [-n N] [--seed S] [--policy P ...]
  [--min-decisive D] [--max-battles M] [--workers W] [--threshold T] [--heatmap PNG]
  [--write-doc FILE] [--check]`` plays, for every scenario, ruleset (default: the scenario's
  own; ``all``: the five; repeatable or comma-separated) and policy (default: cautious and
  aggressive), mirror battles (:func:`game.tools.fairness.measure`: at least N battles, more
  seeds until D are decisive or M were played) and prints one Markdown table on stdout:
  scenario, ruleset, policy, battles, decisive, draws, each side's wins, the weaker side's
  share of the decisive battles with its 95 % Wilson interval, and whether it reaches T
  (default 40 %).
- ``--heatmap PNG`` draws the weaker side's share, scenario x ruleset, a panel per policy.
  ``--write-doc FILE`` also puts the table, and the command that made it, between the fairness
  markers of a Markdown file (``make scenarios-doc`` regenerates docs/scenarios.md so); a file
  without the markers is an error before any battle is played.
- A directory argument stands for its ``*.yaml`` files; a profiles file (``profiles.yaml``,
  as ``scenarios/*.yaml`` expands to) is skipped, as ``skirmish check`` does.
- ``--check`` exits with status 1 when a row does not reach T. Progress goes to stderr.
- Bad input (a missing or invalid scenario, an unknown policy, N < 1) exits 2 with one
  line before any battle is played.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from game.cli.params import (
    MAX_BATTLES,
    MAX_WORKERS,
    POLICY_TIMEOUT,
    RULESET_OPTIONS,
    SEED,
    FiniteRange,
    picture_format,
)

DEFAULT_POLICIES = ("cautious", "aggressive")
#: Files with this stem hold shared profiles, not a scenario.
PROFILES_STEM = "profiles"


def scenario_files(args: tuple[str, ...]) -> list[str]:
    """Scenario paths: each argument once, directories as their ``*.yaml``, profiles files left out."""
    out: list[str] = []
    seen: set[Path] = set()
    for arg in args:
        p = Path(arg)
        files = sorted(f for f in p.iterdir() if f.suffix in (".yaml", ".yml")) if p.is_dir() else [p]
        for f in files:
            key = f.resolve()
            if f.stem != PROFILES_STEM and key not in seen:
                seen.add(key)
                out.append(str(f))
    return out


@click.command("fairness")
@click.argument("scenarios", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option(
    "--ruleset",
    "rulesets",
    multiple=True,
    metavar="R|all",
    help="Play under these rulesets (repeatable or comma-separated; 'all': every one) "
    "[default: each scenario's own].",
)
@click.option("-n", "n", type=int, default=200, show_default=True, help="Battles at least, per row.")
@click.option("--seed", type=SEED, default=1, show_default=True, help="First seed.")
@click.option(
    "--policy",
    "policies",
    multiple=True,
    metavar="NAME",
    help="Policy both sides play, a name or FILE.py:FUNCTION (repeatable) [default: cautious, aggressive].",
)
@click.option(
    "--min-decisive",
    type=int,
    default=100,
    show_default=True,
    help="Play more seeds until this many battles were decisive.",
)
@click.option(
    "--max-battles",
    type=int,
    default=2000,
    show_default=True,
    help=f"Battles at most, per row (at most {MAX_BATTLES}).",
)
@click.option(
    "--workers",
    type=click.IntRange(1, MAX_WORKERS),
    default=1,
    show_default=True,
    help=f"Worker processes (1 to {MAX_WORKERS}).",
)
@click.option(
    "--threshold",
    type=FiniteRange(0.0, 0.5),
    default=0.40,
    show_default=True,
    help="Pass mark of the weaker side's share.",
)
@RULESET_OPTIONS
@click.option(
    "--heatmap",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Draw the weaker side's share, scenario x ruleset, into this PNG.",
)
@click.option(
    "--write-doc",
    "write_doc",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Also write the table into this Markdown file, between its fairness markers.",
)
@POLICY_TIMEOUT
@click.option("--check", is_flag=True, help="Exit with status 1 if a row misses the pass mark.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show progress bars.")
def fairness(
    scenarios: tuple[str, ...],
    rulesets: tuple[str, ...],
    n: int,
    seed: int,
    policies: tuple[str, ...],
    min_decisive: int,
    max_battles: int,
    workers: int,
    threshold: float,
    option: tuple[str, ...],
    heatmap: Path | None,
    write_doc: Path | None,
    policy_timeout: float,
    check: bool,
    progress: bool,
) -> None:
    """Mirror-AI battles of each SCENARIO in its own ruleset: does the weaker side win often enough?"""
    from game.cli.params import BadInput, count, options_by_ruleset, parse_options, policy_problem, seeds_fit
    from game.rules import RULESET_NAMES
    from game.tools import fairness as fair
    from game.tools.batch import BattleFailed, load_spec
    from game.tools.fairness import markdown_table, measure

    count(n, "-n", "the number of battles")
    count(max_battles, "--max-battles", "the number of battles per row", n, MAX_BATTLES)
    count(min_decisive, "--min-decisive", "the number of decisive battles", 0, MAX_BATTLES)
    seeds_fit(seed, max_battles)  # the seeds a row may play: S .. S+M-1
    if not 0.0 <= threshold <= 0.5:
        raise BadInput("--threshold", f"a share between 0 and 0.5, not {threshold}")
    chosen = policies or DEFAULT_POLICIES
    for p in chosen:
        problem = policy_problem(p)  # a registered name or your own, FILE.py:FUNCTION
        if problem is not None:
            raise BadInput("--policy", problem)
    chosen_rulesets: list[str | None] = []
    for item in rulesets:
        for name in (x.strip() for x in item.split(",")):
            if name == "all":
                chosen_rulesets += list(RULESET_NAMES)
            elif name in RULESET_NAMES:
                chosen_rulesets.append(name)
            else:
                raise BadInput(
                    "--ruleset", f"unknown ruleset {name!r}; choose all or {', '.join(RULESET_NAMES)}"
                )
    chosen_rulesets = list(dict.fromkeys(chosen_rulesets)) or [None]
    if heatmap is not None:
        picture_format(heatmap, "--heatmap")
    doc_text = None
    if write_doc is not None:
        try:
            doc_text = write_doc.read_text(encoding="utf-8")
            fair.replace_block(doc_text, "", "")
        except (OSError, ValueError) as e:
            raise BadInput("--write-doc", f"{write_doc}: {e}") from None
    paths = scenario_files(scenarios)
    if not paths:
        raise BadInput("SCENARIO", "no scenario files given (profiles files are skipped)")
    for path in paths:
        for r in chosen_rulesets:
            spec = load_spec(path, r)  # a bad scenario exits 2 here, before any battle
        if len(spec.sides) < 2:
            raise BadInput("SCENARIO", f"{path} has {len(spec.sides)} side(s); fairness needs two")
    specs = {(path, r): load_spec(path, r) for path in paths for r in chosen_rulesets}
    chosen_options = options_by_ruleset(sorted({s.ruleset for s in specs.values()}), parse_options(option))
    rows = []
    try:
        for path in paths:
            for r in chosen_rulesets:
                for p in chosen:
                    rows.append(
                        measure(
                            path,
                            p,
                            n=n,
                            seed=seed,
                            min_decisive=min_decisive,
                            max_battles=max_battles,
                            workers=workers,
                            progress=progress,
                            policy_timeout=policy_timeout,
                            ruleset=r,
                            options=chosen_options[specs[(path, r)].ruleset],
                        )
                    )
    except BattleFailed as e:
        click.echo(f"error: {e}", err=True)
        raise SystemExit(1) from None
    table = markdown_table(rows, threshold)
    click.echo(table)
    if heatmap is not None:
        fair.heatmap(rows, heatmap, threshold)
        click.echo(f"heatmap: {heatmap}", err=True)
    if write_doc is not None and doc_text is not None:
        from game.core.events import atomic_write_text

        args = ["skirmish", "fairness", *paths]
        if rulesets:
            args += ["--ruleset", ",".join(r for r in chosen_rulesets if r)]
        args += ["-n", str(n), "--seed", str(seed), "--min-decisive", str(min_decisive)]
        args += ["--max-battles", str(max_battles), "--threshold", f"{threshold:g}"]
        for p in chosen:
            args += ["--policy", p]
        command = " ".join(shlex.quote(a) for a in args)
        atomic_write_text(write_doc, fair.replace_block(doc_text, table, command))
        click.echo(f"table written into {write_doc}", err=True)
    errors = [e for r in rows for e in r.errors]
    if errors:
        click.echo(f"error: {len(errors)} battles ended in an error and were not counted:", err=True)
        for message in errors[:5]:
            click.echo(f"  {message}", err=True)
        raise SystemExit(1)
    if check and not all(r.passes(threshold) for r in rows):
        raise SystemExit(1)
