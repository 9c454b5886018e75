"""``skirmish import-tiled MAP [--out SCENARIO.yaml] [--ruleset R] [--force]``: a Tiled map as a scenario.

Contract (docs/tiled.md):

- Reads a Tiled map (``.tmj``, ``.tmx`` or a ``.json`` map; a shipped map by its file name,
  ``crossroads.tmj``), converts it (:mod:`game.scenario.tiled`) and checks the result as
  ``skirmish check`` would (profiles, policies, placement). Only a map that passes is written,
  as commented YAML (:mod:`game.scenario.tiled.to_yaml`) that ``skirmish check`` accepts; it prints
  ``wrote OUT (n units, m obstacles, ruleset r)`` on stderr.
- ``--out`` defaults to the map's name with ``.yaml`` in the working directory; ``--out -``
  prints the YAML on stdout. An existing file is not replaced without ``--force`` (exit 2, one
  line saying so): a converted map must not silently overwrite a hand-edited scenario. The file
  is written atomically (a temp file renamed over it).
- ``--ruleset`` sets the scenario's ruleset (the map's ``ruleset`` property otherwise).
- Every problem of the map is one located line on stderr (``map.tmj: object 7 (hedge): ...``),
  exit 2; nothing is written then.
"""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import click

from game.ai import policy_names
from game.core.errors import Problem, ScenarioError
from game.core.events import atomic_write_text
from game.core.files import FileRefused, read_capped
from game.rules import RULESET_NAMES
from game.scenario import load_scenario_text
from game.scenario.locate import resolve_scenario
from game.scenario.tiled import MAP_SUFFIXES, convert, is_tiled, read_kind
from game.scenario.tiled.to_yaml import scenario_yaml

#: Exit status for invalid input (DESIGN §4).
EXIT_INVALID = 2


def _fail(problems: list[Problem]) -> NoReturn:
    for p in problems:
        click.echo(str(p), err=True)
    raise SystemExit(EXIT_INVALID)


@click.command("import-tiled")
@click.argument("map_file", metavar="MAP", type=click.Path(path_type=Path))
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False, allow_dash=True),
    default=None,
    help="Scenario file to write ('-' for stdout)  [default: MAP's name with .yaml, here].",
)
@click.option(
    "--ruleset",
    type=click.Choice(RULESET_NAMES),
    default=None,
    help="Ruleset of the scenario instead of the map's `ruleset` property.",
)
@click.option("--force", is_flag=True, help="Replace --out if it exists.")
def import_tiled(map_file: Path, out: Path | None, ruleset: str | None, force: bool) -> None:
    """Convert a Tiled MAP (.tmj, .tmx) into a scenario YAML file that `skirmish check` accepts."""
    path = resolve_scenario(map_file)
    if path.suffix.lower() not in (*MAP_SUFFIXES, ".json"):
        raise click.BadParameter(
            f"{map_file}: expected a Tiled map (.tmj, .tmx or .json), got {path.suffix or 'no extension'!r}",
            param_hint="MAP",
        )
    target = out if out is not None else Path(path.with_suffix(".yaml").name)
    to_stdout = str(target) == "-"
    if not to_stdout and target.exists() and not force:
        raise click.UsageError(f"{target} exists; pass --force to replace it (or choose another --out)")
    try:
        raw = read_capped(path, read_kind(path))
    except FileRefused as e:
        _fail([e.problem()])
    source = str(path)
    if not is_tiled(source, raw):
        _fail([Problem(source, 0, "", 'expected a Tiled map (a JSON object with "type": "map")')])
    try:
        tiled = convert(raw, source)
        # The checks of `skirmish check` (profiles, policies, placement), worded in the map's terms.
        spec = load_scenario_text(raw, source, ruleset=ruleset, policies=policy_names())
    except ScenarioError as e:
        _fail(e.problems)
    text = scenario_yaml(tiled, path.name, ruleset)
    summary = f"{len(spec.units)} units, {len(spec.obstacles)} obstacles, ruleset {spec.ruleset}"
    if to_stdout:
        click.echo(text, nl=False)
        return
    atomic_write_text(target, text)
    click.echo(f"wrote {target} ({summary})", err=True)
