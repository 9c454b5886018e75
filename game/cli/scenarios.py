"""``skirmish scenarios``: the scenarios shipped with skirmish, which any command accepts by name.

Contract: ``skirmish scenarios [--json]`` lists every shipped scenario
(:func:`game.core.shipped.shipped_scenarios`) with its name (what ``skirmish battle NAME``,
``check``, ``render``, ``play``, ``los`` accept instead of a path when no file of that name
exists), its ruleset, its number of units and the first sentence of its description; then
where the files are. ``--json`` prints a list of objects (``name``, ``path``, ``title``,
``ruleset``, ``units``, ``sides``, ``description``) instead. A shipped scenario that fails to
load is a bug: it is listed with the first problem in place of its description, and the exit
status is 1.
"""

from __future__ import annotations

import json
import re
import shutil
from typing import Any

import click

#: Width of the description column when the terminal's is unknown.
DEFAULT_WIDTH = 100


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` on one line."""
    flat = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(\s|$)", flat)
    return m.group(1) if m else flat


def _rows() -> tuple[list[dict[str, Any]], bool]:
    from game.core.errors import ScenarioError
    from game.core.shipped import shipped_scenarios
    from game.scenario import load_scenario

    rows: list[dict[str, Any]] = []
    broken = False
    for name, path in shipped_scenarios().items():
        try:
            spec = load_scenario(path)
        except ScenarioError as e:
            broken = True
            rows.append({"name": name, "path": str(path), "error": str(e.problems[0])})
            continue
        rows.append(
            {
                "name": name,
                "path": str(path),
                "title": spec.name,
                "ruleset": spec.ruleset,
                "units": len(spec.units),
                "sides": list(spec.sides),
                "description": " ".join(spec.description.split()),
            }
        )
    return rows, broken


@click.command("scenarios")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def scenarios(as_json: bool) -> None:
    """List the shipped scenarios (give their NAME to any command instead of a file)."""
    from game.core.shipped import SCENARIOS_DIR

    rows, broken = _rows()
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        width = shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
        name_w = max([len("name"), *(len(r["name"]) for r in rows)])
        rs_w = max([len("ruleset"), *(len(r.get("ruleset", "")) for r in rows)])
        head = f"{'name':<{name_w}}  {'ruleset':<{rs_w}}  units  "
        room = max(20, width - len(head) - 1)
        click.echo(head + "description")
        for r in rows:
            if "error" in r:
                click.echo(f"{r['name']:<{name_w}}  {'?':<{rs_w}}  {'?':>5}  BROKEN: {r['error']}")
                continue
            text = f"{r['title']}: {r['description']}" if r["description"] else r["title"]
            if len(text) > room:
                text = text[: room - 1] + "…"
            click.echo(f"{r['name']:<{name_w}}  {r['ruleset']:<{rs_w}}  {r['units']:>5}  {text}")
        click.echo(f"\nfiles: {SCENARIOS_DIR}")
    if broken:
        raise SystemExit(1)
