"""``skirmish check`` and ``skirmish schema``: validate scenario files, print their schema.

Contract (DESIGN §4):

- ``skirmish check SCENARIO... [--ruleset R] [--all-rulesets] [--profiles FILE]``
  validates each file. A good file prints ``ok: <file> (<n> units, <m> obstacles,
  ruleset <r>)`` on stdout. A bad file prints every problem as
  ``file:line: key.path: message`` on stderr. The exit status is 0 when every file
  is good, else 2. A missing or unreadable file is one line on stderr (exit 2).
  No traceback is ever printed: an unexpected internal failure is reported as one
  line naming the bug (set ``SKIRMISH_DEBUG=1`` to see the traceback).
- A directory argument checks every ``*.yaml`` / ``*.yml`` file in it; a directory with none
  is an error (``DIR: no scenario files (*.yaml, *.yml) in this folder``, exit 2), never a
  silent pass. A ``profiles.yaml`` (or
  the ``--profiles`` file) given as an argument is checked as a profiles file:
  ``ok: <file> (<n> profiles)``.
- ``controllers:`` must name AI policies installed in ``game.ai``.
- ``--all-rulesets`` also requires every unit's profile to have a valid stat block
  under each of the five rulesets (and, for the profiles file, every profile).
- ``skirmish schema`` prints the scenario JSON Schema, indented by 2.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import click

from game.ai import policy_names
from game.core.errors import Problem, ScenarioError
from game.rules import RULESET_NAMES
from game.scenario import DEFAULT_PROFILES_PATH, check_profiles, load_scenario, scenario_schema
from game.scenario.locate import resolve_scenario

#: Exit status for invalid input (DESIGN §4).
EXIT_INVALID = 2
#: A file with this stem is a profiles file, not a scenario.
PROFILES_STEM = "profiles"


class EmptyFolder(Exception):
    """A folder argument holds no scenario files."""


def _targets(paths: tuple[Path, ...]) -> Iterator[Path | EmptyFolder]:
    """The files to check: each argument, directories expanded to their ``*.yaml``, each once;
    an :class:`EmptyFolder` in place of a folder without any."""
    seen: set[Path] = set()
    for path in paths:
        if is_dir(path):
            files = sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
            if not files:
                yield EmptyFolder(f"{path}: no scenario files (*.yaml, *.yml) in this folder")
        else:
            files = [resolve_scenario(path)]  # a shipped scenario may be named
        for f in files:
            key = _resolved(f)
            if key not in seen:
                seen.add(key)
                yield f


def is_dir(path: Path) -> bool:
    """Whether ``path`` is a directory (False for a symlink loop or an unreadable path)."""
    try:
        return path.is_dir()
    except (OSError, RuntimeError):
        return False


def _resolved(path: Path) -> Path:
    """``path.resolve()``, or ``path`` itself for a symlink loop (read_capped then refuses it)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def _same_file(a: Path, b: Path) -> bool:
    return _resolved(a) == _resolved(b)


def _check_one(path: Path, ruleset: str | None, all_rulesets: bool, profiles: Path | None) -> str:
    """Validate one file; return its ok line or raise ScenarioError."""
    # The shared profiles file is not a scenario; `skirmish check scenarios/*.yaml`
    # meets it, so check it as what it is.
    if path.stem == PROFILES_STEM or _same_file(path, profiles or DEFAULT_PROFILES_PATH):
        n = check_profiles(path, RULESET_NAMES if all_rulesets else None)
        return f"ok: {path} ({n} profiles)"
    spec = load_scenario(
        path,
        ruleset=ruleset,
        profiles_path=profiles,
        check_rulesets=RULESET_NAMES if all_rulesets else (),
        policies=policy_names(),
    )
    return f"ok: {path} ({len(spec.units)} units, {len(spec.obstacles)} obstacles, ruleset {spec.ruleset})"


def _problem_line(p: Problem) -> str:
    # A problem without a line (missing file) reads best as "file: message".
    if not p.line and not p.path:
        return f"{p.source}: {p.message}"
    return str(p)


@click.command()
@click.argument("scenarios", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--ruleset",
    type=click.Choice(RULESET_NAMES),
    default=None,
    help="Check under this ruleset instead of the file's `ruleset:`.",
)
@click.option(
    "--all-rulesets",
    is_flag=True,
    help="Also require valid stat blocks for every unit under all five rulesets.",
)
@click.option(
    "--profiles",
    "profiles",
    type=click.Path(path_type=Path),
    default=None,
    help="Shared profiles file (default: scenarios/profiles.yaml).",
)
def check(
    scenarios: tuple[Path, ...], ruleset: str | None, all_rulesets: bool, profiles: Path | None
) -> None:
    """Validate SCENARIO files (or directories of them); exit 2 listing every problem."""
    failed = False
    printed: set[Problem] = set()  # profiles.yaml problems would repeat for every scenario
    for path in _targets(scenarios):
        if isinstance(path, EmptyFolder):
            failed = True
            click.echo(str(path), err=True)
            continue
        try:
            click.echo(_check_one(path, ruleset, all_rulesets, profiles))
        except ScenarioError as e:
            failed = True
            for p in e.problems:
                if p.source != str(path) and p in printed:
                    continue
                printed.add(p)
                click.echo(_problem_line(p), err=True)
        except Exception as e:  # the contract: never a traceback, even for a bug
            if os.environ.get("SKIRMISH_DEBUG"):
                raise
            failed = True
            click.echo(
                f"{path}: internal error while checking ({type(e).__name__}: {e}); "
                "this is a bug in skirmish, rerun with SKIRMISH_DEBUG=1 for details",
                err=True,
            )
    if failed:
        raise SystemExit(EXIT_INVALID)


@click.command()
def schema() -> None:
    """Print the JSON Schema of scenario files."""
    click.echo(json.dumps(scenario_schema(), indent=2))
