"""``skirmish edit``: edit a scenario in a window (units, obstacles, live cover, problems in place).

Contract:

- ``skirmish edit SCENARIO [--out PATH] [--size WxH]`` opens the scenario editor
  (:class:`game.render.editor.Editor`); Ctrl+S writes SCENARIO back (or ``--out PATH``), keeping
  the comments and layout of every unit and obstacle not edited and of every other part of the
  file. A scenario with problems is still saved (a designer saves work in progress); the window
  says how many problems it has, and ``skirmish check`` refuses it until they are fixed.
- ``--script FILE`` / ``--headless`` / ``--shots DIR`` work as for ``skirmish play``
  (:mod:`game.render.script`): the script's actions drive the real editor, then it exits (a
  script saves with ``key ctrl+s``). Without ``--headless`` and without a display, ``edit``
  exits 2 at once with one line.
- A missing file, a file that does not parse or whose map cannot be shown, a bad size or a bad
  script exits 2 with one line before any window opens.
"""

from __future__ import annotations

from pathlib import Path

import click

from game.cli.params import prepare_window, script_options
from game.cli.render import parse_size


@click.command("edit")
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Save to this file instead of SCENARIO.",
)
@click.option("--size", default="1280x800", show_default=True, help="Window size WIDTHxHEIGHT.")
@script_options("key, click, drag, shot ...")
def edit(
    scenario: Path, out: Path | None, size: str, script_path: Path | None, shots: Path | None, headless: bool
) -> None:
    """Edit SCENARIO in a window."""
    prepare_window("edit", headless, script_path)
    dims = parse_size(size)
    actions = None
    if script_path is not None:
        from game.render.script import read_script

        actions = read_script(script_path)
    from game.ai import policy_names
    from game.render.editor import Editor, open_editor

    model = open_editor(scenario, out, policy_names())
    editor = Editor(model, size=dims)
    from game.render.script import run_window

    for path in run_window(editor, actions, shots):
        click.echo(f"wrote {path}")
