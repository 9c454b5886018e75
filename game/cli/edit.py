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
- ``skirmish edit --new WxH FILE`` starts a new scenario: an empty map W by H inches (ruleset
  GURPS, no units, no obstacles; nothing is written until Ctrl+S saves FILE). N places the
  first units (nothing selected: on the side with the fewest, red then blue), O draws
  obstacles. FILE must not exist yet (open it without ``--new``).
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
@click.option(
    "--new",
    "new",
    default=None,
    metavar="WxH",
    help="Start a new scenario: an empty map W by H inches, saved to SCENARIO (which must not exist).",
)
@script_options("key, click, drag, shot ...")
def edit(
    scenario: Path,
    out: Path | None,
    size: str,
    new: str | None,
    script_path: Path | None,
    shots: Path | None,
    headless: bool,
) -> None:
    """Edit SCENARIO in a window (--new WxH: start it on an empty map)."""
    prepare_window("edit", headless, script_path)
    dims = parse_size(size)
    text = None
    if new is not None:
        text = new_scenario_text(scenario, new)
    actions = None
    if script_path is not None:
        from game.render.script import read_script

        actions = read_script(script_path)
    from game.ai import policy_names
    from game.render.editor import Editor, open_editor

    if text is not None:
        from game.render.editor.model import EditModel

        model = EditModel(text, str(scenario), out if out is not None else scenario, policy_names())
    else:
        model = open_editor(scenario, out, policy_names())
    editor = Editor(model, size=dims)
    from game.render.script import run_window

    for path in run_window(editor, actions, shots):
        click.echo(f"wrote {path}")


#: Largest side of a new map, inches (the largest shipped map is 64 inches).
MAX_NEW_SIDE = 1000.0


def new_scenario_text(path: Path, size: str) -> str:
    """The text of a new scenario on an empty ``size`` (``WxH`` inches) map, to be saved at
    ``path``; ``click.BadParameter`` (exit 2) for a bad size or a file that exists."""
    import re

    got = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*[xX]\s*(\d+(?:\.\d+)?)\s*", size)
    if got is None:
        raise click.BadParameter(
            f"expected WIDTHxHEIGHT in inches, like 24x16, got {size!r}", param_hint="--new"
        )
    w, h = float(got.group(1)), float(got.group(2))
    if not (0 < w <= MAX_NEW_SIDE and 0 < h <= MAX_NEW_SIDE):
        raise click.BadParameter(
            f"expected each side above 0 and at most {MAX_NEW_SIDE:g} inches, got {size!r}",
            param_hint="--new",
        )
    if path.exists():
        raise click.BadParameter(f"{path} exists already: open it without --new", param_hint="--new")

    def num(v: float) -> str:
        return str(int(v)) if v == int(v) else str(v)

    return (
        f"# A new scenario ({num(w)} by {num(h)} inches), begun with skirmish edit --new.\n"
        "# N places a unit (nothing selected: on the side with the fewest), O draws an obstacle,\n"
        "# Ctrl+S saves; skirmish check tells what is still missing.\n"
        f"name: {path.stem}\n"
        "ruleset: gurps   # or defence-dice, cortex, aff, ap-pool\n"
        f"map: {{width: {num(w)}, height: {num(h)}}}\n"
        "units: []\n"
        "obstacles: []\n"
    )
