"""``skirmish fairness``: is each scenario fair when both sides play the same AI?

Contract:
- ``skirmish fairness SCENARIO... [-n N] [--seed S] [--policy P ...] [--min-decisive D]
  [--max-battles M] [--workers W] [--threshold T] [--check]`` plays, for every scenario
  and every policy (default: cautious and aggressive), mirror battles in the scenario's
  own ruleset (:func:`game.tools.fairness.measure`: at least N battles, more seeds until
  D are decisive or M were played) and prints one Markdown table on stdout: scenario,
  ruleset, policy, battles, decisive, each side's wins, the weaker side's share of the
  decisive battles with its 95 % Wilson interval, and whether it reaches T (default 30 %).
- A directory argument stands for its ``*.yaml`` files; a profiles file (``profiles.yaml``,
  as ``scenarios/*.yaml`` expands to) is skipped, as ``skirmish check`` does.
- ``--check`` exits with status 1 when a row does not reach T. Progress goes to stderr.
- Bad input (a missing or invalid scenario, an unknown policy, N < 1) exits 2 with one
  line before any battle is played.
"""

from __future__ import annotations

from pathlib import Path

import click

from game.cli.params import MAX_BATTLES, MAX_WORKERS, POLICY_TIMEOUT, RULESET_OPTIONS, SEED, FiniteRange

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
    default=0.30,
    show_default=True,
    help="Pass mark of the weaker side's share.",
)
@RULESET_OPTIONS
@POLICY_TIMEOUT
@click.option("--check", is_flag=True, help="Exit with status 1 if a row misses the pass mark.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show progress bars.")
def fairness(
    scenarios: tuple[str, ...],
    n: int,
    seed: int,
    policies: tuple[str, ...],
    min_decisive: int,
    max_battles: int,
    workers: int,
    threshold: float,
    option: tuple[str, ...],
    policy_timeout: float,
    check: bool,
    progress: bool,
) -> None:
    """Mirror-AI battles of each SCENARIO in its own ruleset: does the weaker side win often enough?"""
    from game.cli.params import BadInput, count, options_by_ruleset, parse_options, policy_problem, seeds_fit
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
    paths = scenario_files(scenarios)
    if not paths:
        raise BadInput("SCENARIO", "no scenario files given (profiles files are skipped)")
    for path in paths:
        spec = load_spec(path)  # a bad scenario exits 2 here, before any battle
        if len(spec.sides) < 2:
            raise BadInput("SCENARIO", f"{path} has {len(spec.sides)} side(s); fairness needs two")
    specs = {path: load_spec(path) for path in paths}
    chosen_options = options_by_ruleset(sorted({s.ruleset for s in specs.values()}), parse_options(option))
    rows = []
    try:
        for path in paths:
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
                        options=chosen_options[specs[path].ruleset],
                    )
                )
    except BattleFailed as e:
        click.echo(f"error: {e}", err=True)
        raise SystemExit(1) from None
    click.echo(markdown_table(rows, threshold))
    errors = [e for r in rows for e in r.errors]
    if errors:
        click.echo(f"error: {len(errors)} battles ended in an error and were not counted:", err=True)
        for message in errors[:5]:
            click.echo(f"  {message}", err=True)
        raise SystemExit(1)
    if check and not all(r.passes(threshold) for r in rows):
        raise SystemExit(1)
