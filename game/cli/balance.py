"""``skirmish balance``: the value of one number at which a scenario's first side wins the target share.

Contract:

- ``skirmish balance SCENARIO --vary KEY=LO..HI [--ruleset R] [--policy P] [--target T] [-n N]
  [--seed S] [--points K] [--option NAME=VALUE ...] [--workers W] [--plot PNG] [--write FILE]``
  varies KEY (``profiles.PROFILE.RULESET.FIELD`` or ``option.NAME``) over [LO, HI] and finds where
  the first side's share of decisive battles under mirror P (default cautious) reaches T (default
  0.5), by the two-stage logistic search of :func:`game.tools.balance.search` on seeds
  S..S+N-1 (common random numbers). It prints
  ``balanced: KEY = VALUE (win share S [lo, hi], N battles)``: the share observed at VALUE with
  its 95 % Wilson interval over the N battles played there; then the fitted root's interval and
  the battles played in all. A progress bar per design value goes to stderr.
- ``--plot`` (default ``out/balance/<scenario>-<KEY>.png``) draws the share against the value.
  ``--write FILE`` writes the scenario with KEY = VALUE (comments and everything else kept),
  validated before it replaces FILE atomically.
- When the fitted share does not cross T inside [LO, HI] it prints ``not balanced: ...`` naming
  the nearest end, writes nothing with ``--write`` and exits 1.
- Bad input (a KEY that names no number the scenario has, a profile no unit uses, a range
  that is not LO..HI with LO < HI or whose ends the ruleset refuses, a bad option or policy)
  exits 2 with one line before any battle.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from game.cli.params import MAX_WORKERS, SEED, FiniteRange, picture_format


def cli_options(values: tuple[str, ...], ruleset: str, spec: Any) -> dict[str, Any]:
    """The ``--option`` values, validated for ``ruleset`` over the scenario's (one place to
    switch to the shared option parser of game.cli)."""
    from game.cli.battle import _ruleset_options, parse_pairs, parse_value

    parsed = {k: parse_value(v) for k, v in parse_pairs(values, "--option").items()}
    return _ruleset_options(ruleset, spec, parsed)


@click.command("balance")
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option("--vary", required=True, metavar="KEY=LO..HI", help="The number to vary and its range.")
@click.option("--ruleset", help="Play under this ruleset [default: the scenario's].")
@click.option(
    "--policy", default="cautious", show_default=True, metavar="NAME", help="The policy both sides play."
)
@click.option(
    "--target",
    type=FiniteRange(0.05, 0.95),
    default=0.5,
    show_default=True,
    help="The first side's share of decisive battles wanted.",
)
@click.option("-n", "n", type=int, default=40, show_default=True, help="Seeds per design value.")
@click.option("--seed", type=SEED, default=1, show_default=True, help="First seed.")
@click.option(
    "--points", type=click.IntRange(3, 12), default=5, show_default=True, help="Values per design stage."
)
@click.option("--option", "option", multiple=True, metavar="NAME=VALUE", help="Ruleset option (repeatable).")
@click.option(
    "--workers", type=click.IntRange(1, MAX_WORKERS), default=1, show_default=True, help="Worker processes."
)
@click.option(
    "--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path), help="PNG of the search."
)
@click.option(
    "--write",
    "write",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the balanced scenario here.",
)
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show progress bars.")
def balance(
    scenario: str,
    vary: str,
    ruleset: str | None,
    policy: str,
    target: float,
    n: int,
    seed: int,
    points: int,
    option: tuple[str, ...],
    workers: int,
    plot_path: Path | None,
    write: Path | None,
    progress: bool,
) -> None:
    """Find the value of one profile field or option at which SCENARIO's first side wins the target share."""
    from game.cli.params import BadInput, count, policy_problem, seeds_fit
    from game.core.errors import SkirmishError
    from game.core.events import atomic_write_text
    from game.scenario import load_scenario, load_scenario_text
    from game.tools import balance as bal
    from game.tools.batch import BattleFailed, plan, run_batch
    from game.tools.batch_run import require_pandas

    count(n, "-n", "the number of seeds")
    seeds_fit(seed, n + 1)
    key, eq, span = vary.partition("=")
    if not eq:
        raise BadInput("--vary", f"{vary!r} is not KEY=LO..HI")
    try:
        knob = bal.parse_knob(key.strip())
        lo, hi = bal.parse_range(span)
    except SkirmishError as e:
        raise BadInput("--vary", str(e)) from None
    problem = policy_problem(policy)
    if problem is not None:
        raise BadInput("--policy", problem)
    spec0 = load_scenario(scenario, ruleset=ruleset)
    rname = spec0.ruleset
    text = spec0.text
    source = spec0.source
    opts = cli_options(option, rname, spec0)
    if knob.kind == "option" and knob.path[0] in dict(parse_pairs_keys(option)):
        raise BadInput("--option", f"{knob.path[0]} is the option --vary varies")
    try:
        require_pandas("skirmish balance")  # statsmodels' fit; the same extra
        import statsmodels  # noqa: F401
    except ImportError:
        raise BadInput(
            "balance", "needs statsmodels: pip install 'skirmish-tabletop-sim[analysis]'"
        ) from None
    try:
        integer = bal.is_integer(text, source, knob, rname)
        if integer and (lo != int(lo) or hi != int(hi)):
            raise SkirmishError(f"{knob.key} takes whole numbers, not {span.strip()}")
        bal.check_knob(text, source, knob, rname, lo, hi, integer)
    except SkirmishError as e:
        raise BadInput("--vary", str(e)) from None
    if plot_path is None:
        plot_path = Path("out/balance") / f"{Path(source).stem}-{knob.key}.png"
    picture_format(plot_path, "--plot")

    def play(value: float | int, seeds: Any) -> list[dict[str, Any]]:
        spec = bal.variant(text, source, knob, rname, value)
        merged = {
            **spec.options.get(rname, {}),
            **{k: v for k, v in opts.items() if k not in _knob_key(knob)},
        }
        jobs = plan(
            seeds=seeds,
            spec=spec,
            policies=dict.fromkeys(spec.sides, policy),
            ruleset=rname,
            options=merged,
        )
        rows = run_batch(jobs, workers=workers, progress=progress, desc=f"{knob.key} = {value:g}")
        return [{**r, "first": spec.sides[0]} for r in rows]

    try:
        result = bal.search(
            play, lo, hi, integer=integer, knob=knob.key, target=target, n=n, seed=seed, points=points
        )
    except BattleFailed as e:
        click.echo(f"error: {e}", err=True)
        raise SystemExit(1) from None
    s = result.share
    share = f"win share {s.p:.2f} [{s.lo:.2f}, {s.hi:.2f}]"
    shown = f"{knob.key} = {result.value:g} ({share}, {result.battles_at_value} battles)"
    bal.plot(result, plot_path, f"{Path(source).stem} under {rname}, mirror {policy}")
    if not result.reached:
        click.echo(
            f"not balanced: the fitted share does not reach {target:g} inside {lo:g}..{hi:g}; "
            f"nearest: {shown}"
        )
        click.echo(f"plot: {plot_path}", err=True)
        raise SystemExit(1)
    click.echo(f"balanced: {shown}")
    if result.root_interval is not None:
        a, b = result.root_interval
        click.echo(
            f"root of the logistic fit: 95% interval [{a:.2f}, {b:.2f}]; {result.battles} battles in all"
        )
    click.echo(f"plot: {plot_path}", err=True)
    if write is not None:
        new = bal.with_value(text, source, knob, rname, result.value)
        load_scenario_text(new, str(write), ruleset=rname)  # validated before it replaces anything
        atomic_write_text(write, new)
        click.echo(f"wrote {write}", err=True)


def _knob_key(knob: Any) -> tuple[str, ...]:
    return (knob.path[0],) if knob.kind == "option" else ()


def parse_pairs_keys(values: tuple[str, ...]) -> list[tuple[str, str]]:
    """``KEY=VALUE`` pairs as (key, value) (malformed ones were refused by :func:`cli_options`)."""
    return [(k.strip(), v) for k, _, v in (x.partition("=") for x in values)]
