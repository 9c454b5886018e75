"""``skirmish path SCENARIO UNIT X Y [--ap N | --retreat-from ATTACKER | --dodge] [--json]``:
whether UNIT may move to table point (X, Y), by which path and how long.

Contract (issue 19): the same query as ``skirmish reach`` (see :mod:`game.cli.reach` for the
options and the move length), answered by the engine's validator, which is what a command is
checked against: ``--json`` prints ``{"legal", "length", "path", "reason"}`` — ``legal`` a
bool, ``length`` the shortest free path in inches (a straight line for retreats and dodge moves;
null when there is no free path), ``path`` its points ``[[x, y], ...]`` from the unit's centre,
``reason`` the validator's one line when not legal, else null. A point is legal exactly when it
lies in ``skirmish reach``'s region, away from a thin band at its boundary. Without ``--json``
one or two lines. An illegal point is an answer (exit 0); bad input exits 2 with one line.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import click

from game.cli.params import UNIT_ID, FiniteRange, NumbersCommand
from game.cli.reach import build_query, region_options
from game.scenario.schema import MAX_MAGNITUDE


@click.command("path", cls=NumbersCommand)
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("unit", type=UNIT_ID)
@click.argument("x", type=FiniteRange(-MAX_MAGNITUDE, MAX_MAGNITUDE))
@click.argument("y", type=FiniteRange(-MAX_MAGNITUDE, MAX_MAGNITUDE))
@region_options
def path(
    scenario: Path,
    unit: str,
    x: float,
    y: float,
    ruleset: str | None,
    option: tuple[str, ...],
    ap: int | None,
    retreat_from: str | None,
    dodge: bool,
    as_json: bool,
) -> None:
    """Whether UNIT may move to (X, Y), and the path."""
    if not (math.isfinite(x) and math.isfinite(y)):
        raise click.BadParameter("X and Y must be finite numbers (inches)")
    from game.cli.params import parse_options

    q = build_query(
        scenario,
        unit,
        ruleset=ruleset,
        ap=ap,
        retreat_from=retreat_from,
        dodge=dodge,
        options=parse_options(option),
    )
    try:
        got = q.check((x, y))
    finally:
        q.match.close()
    if as_json:
        click.echo(json.dumps(got))
        return
    where = f"({x:g}, {y:g})"
    if got["length"] is not None:
        via = (
            " via " + ", ".join(f"({px:g}, {py:g})" for px, py in got["path"][1:-1])
            if len(got["path"]) > 2
            else ""
        )
        click.echo(
            f"{unit} to {where}: path of {got['length']:.2f} in{via} (the limit is {q.max_len:.2f} in)"
        )
    if got["legal"]:
        click.echo(f"legal: {unit} may move to {where}")
    else:
        click.echo(f"not legal: {got['reason']}")
