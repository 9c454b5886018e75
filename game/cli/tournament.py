"""``skirmish tournament``: a round robin of AI policies over scenarios and rulesets.

Contract:

- ``skirmish tournament [SCENARIO ...] [--policies A,B,...] [--ruleset R ...] [-n N] [--seed S]
  [--policy-option POLICY.KEY=VALUE ...] [--round-limit R] [--workers W] [--out DIR]
  [--plots/--no-plots] [--progress/--no-progress]`` plays every pair of the policies (default:
  every registered policy) on every SCENARIO (a file, or a shipped scenario's name; default: the
  shipped scenarios) under every
  ``--ruleset`` (repeatable; default: all five) on seeds S..S+N-1, each seed with both side
  assignments (:mod:`game.tools.tournament`). Policies are registered names or user policies
  (``FILE.py:FUNCTION``, :mod:`game.ai.loader`).
- Output: a tqdm bar on stderr; in ``--out`` (default ``out/tournament``) ``crosstable.md``,
  ``crosstable.csv``, ``ratings.csv``, ``battles.csv`` (one row per battle and side) and
  ``tournament.png``; on stdout the Markdown tables, then where the files went.
- Bad input (an unknown policy or ruleset, fewer than two policies, a bad option, an invalid
  scenario, an unwritable ``--out``) exits 2 with one line and plays nothing; a battle that
  breaks down exits 1 naming its seed.
"""

from __future__ import annotations

from pathlib import Path

import click

from game.cli.battle import BadInput, _writable_dir, lock_outputs, parse_policy_options
from game.cli.params import (
    POLICY_OPTIONS,
    POLICY_TIMEOUT,
    RULESET_OPTIONS,
    SEED,
    WORKERS,
    count,
    default_workers,
    options_by_ruleset,
    parse_options,
    policy_problem,
    run_size,
    seeds_fit,
)
from game.scenario.schema import MAX_ROUNDS

#: Default output folder.
DEFAULT_OUT = Path("out") / "tournament"


@click.command("tournament")
@click.argument("scenarios", nargs=-1, type=click.Path(dir_okay=False))
@click.option(
    "--policies",
    default=None,
    help="Comma-separated policies, names or FILE.py:FUNCTION [default: every registered one].",
)
@click.option("--ruleset", "rulesets", multiple=True, help="Ruleset to play (repeatable) [default: all].")
@click.option("-n", "n", type=int, default=2, show_default=True, help="Seeds per scenario and ruleset.")
@click.option("--seed", type=SEED, default=1, show_default=True, help="First seed (seeds S..S+N-1).")
@RULESET_OPTIONS
@POLICY_OPTIONS
@POLICY_TIMEOUT
@click.option(
    "--round-limit",
    type=int,
    default=None,
    help=f"Override every scenario's round limit (1 to {MAX_ROUNDS}).",
)
@WORKERS
@click.option(
    "--out", "out", type=click.Path(file_okay=False), help="Output folder [default: out/tournament]."
)
@click.option("--plots/--no-plots", default=True, show_default=True, help="Write tournament.png.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show the progress bar.")
def tournament(
    scenarios: tuple[str, ...],
    policies: str | None,
    rulesets: tuple[str, ...],
    n: int,
    seed: int,
    option: tuple[str, ...],
    policy_option: tuple[str, ...],
    policy_timeout: float,
    round_limit: int | None,
    workers: int | None,
    out: str | None,
    plots: bool,
    progress: bool,
) -> None:
    """Play a round robin of AI policies and rate them."""
    from game.ai import policy_names
    from game.rules import RULESET_NAMES
    from game.scenario.locate import resolve_scenario, shipped_scenarios
    from game.tools import batch
    from game.tools import tournament as tm

    count(n, "-n", "the number of seeds")
    seeds_fit(seed, n)
    if round_limit is not None:
        count(round_limit, "--round-limit", "the round limit", 1, MAX_ROUNDS)
    names = policy_names()
    chosen = [p.strip() for p in policies.split(",") if p.strip()] if policies else list(names)
    for p in chosen:
        problem = policy_problem(p)
        if problem is not None:
            raise BadInput("--policies", problem)
    if len(set(chosen)) < 2:
        raise BadInput("--policies", "a round robin needs at least two different policies")
    for r in rulesets:
        if r not in RULESET_NAMES:
            raise BadInput("--ruleset", f"unknown ruleset {r!r}; choose one of {', '.join(RULESET_NAMES)}")
    options = parse_policy_options(policy_option)
    ruleset_opts = options_by_ruleset(list(rulesets) or list(RULESET_NAMES), parse_options(option))
    # a shipped scenario may be named (``duel``); without any, every shipped one
    paths = [str(resolve_scenario(s)) for s in scenarios] or [
        str(p) for _, p in sorted(shipped_scenarios().items())
    ]
    pairs = len(set(chosen)) * (len(set(chosen)) - 1) // 2
    run_size(pairs * len(paths) * len(rulesets or RULESET_NAMES) * n * 2)
    out_dir = _writable_dir(Path(out) if out else DEFAULT_OUT, "--out")
    lock_outputs(out_dir)
    jobs = tm.plan_tournament(
        policies=chosen,
        scenarios=paths,
        rulesets=list(rulesets) or list(RULESET_NAMES),
        seeds=range(seed, seed + n),
        policy_options=options,
        round_limit=round_limit,
        policy_timeout=policy_timeout,
        options=ruleset_opts,
    )
    try:
        played = tm.run_tournament(jobs, chosen, workers=workers or default_workers(), progress=progress)
    except batch.BattleFailed as e:
        click.echo(f"error: {e}", err=True)
        raise SystemExit(1) from None
    written = tm.write_outputs(played, out_dir, with_plot=plots)
    click.echo(tm.markdown(played))
    click.echo(f"{len(played.rows)} battles; files: {', '.join(str(p) for p in written)}")
    if played.errors:
        click.echo(
            f"error: {len(played.errors)} of {len(jobs)} battles ended in an error and were left out:",
            err=True,
        )
        for row in played.errors[:5]:
            click.echo(f"  {row['error']}", err=True)
        raise SystemExit(1)
