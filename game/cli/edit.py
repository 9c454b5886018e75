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

import os
from pathlib import Path

import click

from game.cli.play import no_display_reason
from game.cli.render import parse_size
from game.core.errors import SkirmishError


@click.command("edit")
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Save to this file instead of SCENARIO.",
)
@click.option("--size", default="1280x800", show_default=True, help="Window size WIDTHxHEIGHT.")
@click.option(
    "--script",
    "script_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Carry out the actions in FILE (key, click, drag, shot ...), then exit.",
)
@click.option(
    "--shots",
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder where the script's 'shot NAME' saves NAME.png.",
)
@click.option("--headless", is_flag=True, help="Run without a display (needs --script).")
def edit(
    scenario: Path, out: Path | None, size: str, script_path: Path | None, shots: Path | None, headless: bool
) -> None:
    """Edit SCENARIO in a window."""
    if headless:
        if script_path is None:
            raise SkirmishError("--headless needs --script FILE (nobody could edit otherwise)")
        os.environ["SDL_VIDEODRIVER"] = "dummy"
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    else:
        reason = no_display_reason()
        if reason is not None:
            raise SkirmishError(reason.replace("to play", "to edit"))
    dims = parse_size(size)
    actions = None
    if script_path is not None:
        from game.render.script import read_script

        actions = read_script(script_path)
    from game.ai import policy_names
    from game.render.editor import Editor, open_editor

    model = open_editor(scenario, out, policy_names())
    editor = Editor(model, size=dims)
    if actions is None:
        editor.run()
        return
    from game.render.script import ScriptRunner

    runner = ScriptRunner(editor, shots)
    try:
        runner.run(actions)
    finally:
        editor.close()
    for path in runner.saved:
        click.echo(f"wrote {path}")
