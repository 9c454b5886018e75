"""The ``skirmish`` command line.

Contract: each subcommand lives in its own module ``game.cli.<name>`` exposing a
click command of that name; this group imports them lazily so ``skirmish
--help`` stays fast and a headless command never imports pygame. Every user
error exits with status 2 and a one-line cause (no traceback). A file that cannot be written or
read (a full disk, a read-only folder, a missing permission) is such an error too: one line
naming the path and the reason (:func:`os_error_line`); the atomic writers leave the older file
and no temp file behind. Text written to the terminal never fails on a file name that is not
UTF-8 (its bytes are shown escaped).
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import importlib.util
import os
import sys
from typing import Any

import click

from game import __version__
from game.core.errors import SkirmishError, visible

#: subcommand -> (module, attribute, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str, str]] = {
    "check": ("game.cli.check", "check", "Validate scenario files."),
    "schema": ("game.cli.check", "schema", "Print the scenario JSON Schema."),
    "los": ("game.cli.los", "los", "Line of sight and cover between two units."),
    "odds": ("game.cli.odds", "odds", "Exact odds of a defence under a ruleset."),
    "battle": ("game.cli.battle", "battle", "Run headless AI-vs-AI battles."),
    "tournament": ("game.cli.tournament", "tournament", "Round robin of AI policies, with ratings."),
    "fairness": ("game.cli.fairness", "fairness", "Mirror-AI win shares of scenarios, as a Markdown table."),
    "balance": (
        "game.cli.balance",
        "balance",
        "Find the value of a profile field or option that balances a scenario.",
    ),
    "replay": ("game.cli.replay", "replay", "Verify (or view) a recorded battle."),
    "reach": ("game.cli.reach", "reach", "The exact region a unit can move to."),
    "path": ("game.cli.path", "path", "Whether a unit may move to a point, and the path."),
    "render": ("game.cli.render", "render", "Draw a scenario to a PNG."),
    "play": ("game.cli.play", "play", "Play a scenario in a window."),
    "edit": ("game.cli.edit", "edit", "Edit a scenario in a window."),
    "rulesets": ("game.cli.rulesets", "rulesets", "List the rulesets and their options."),
    "scenarios": ("game.cli.scenarios", "scenarios", "List the shipped scenarios (usable by name)."),
    "warmup": ("game.cli.warmup", "warmup", "Compile the geometry and path kernels now (once)."),
    "sweep": ("game.cli.sweep", "sweep", "Battles over every combination of rulesets, policies and options."),
    "import-tiled": ("game.cli.import_tiled", "import_tiled", "Convert a Tiled map into a scenario file."),
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported only when used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [
            name for name, (mod, _, _) in SUBCOMMANDS.items() if importlib.util.find_spec(mod) is not None
        ]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = SUBCOMMANDS.get(cmd_name)
        if entry is None:
            return None
        module, attr, _ = entry
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name == module:
                return None
            raise
        cmd: click.Command = getattr(mod, attr)
        return cmd

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(n, SUBCOMMANDS[n][2]) for n in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="skirmish")
def cli() -> None:
    """skirmish: tactical grid combat with exact cover and five defence rulesets."""


def os_error_line(e: OSError) -> str:
    """``PATH: cannot write: No space left on device`` (the path and the reason, one line)."""
    reason = e.strerror or type(e).__name__
    name = e.filename if e.filename is not None else None
    if name is None:
        return f"{reason}" if not str(e) else str(e).splitlines()[0]
    shown = os.fsdecode(name) if isinstance(name, bytes) else str(name)
    shown = shown.encode("utf-8", "backslashreplace").decode("utf-8")
    verb = "cannot write: " if e.errno in _WRITE_ERRORS else ""
    return f"{shown}: {verb}{reason}"


#: errno values that only a write gives (a full disk or quota, a read-only file system).
_WRITE_ERRORS = frozenset({errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EFBIG})


def _safe_streams() -> None:
    """Never fail to print a file name that is not UTF-8: escape what the stream cannot encode."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # a closed or odd stream
                reconfigure(errors="backslashreplace")


def main(argv: list[str] | None = None) -> Any:
    """Console entry point: user errors exit 2 with one line, never a traceback."""
    _safe_streams()
    try:
        return cli.main(args=argv, prog_name="skirmish", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(1)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except click.UsageError as e:
        # One line, not click's usage dump: the cause, and where the usage is.
        where = f" (see '{e.ctx.command_path} --help')" if e.ctx is not None else ""
        click.echo(f"Error: {e.format_message()}{where}", err=True)
        sys.exit(2)
    except click.ClickException as e:
        e.show()
        sys.exit(2)
    except SkirmishError as e:
        # each line as written, escapes and all: a file's text never drives the terminal
        click.echo(f"error: {visible(str(e), keep=chr(10))}", err=True)
        sys.exit(2)
    except OSError as e:  # a file that cannot be written or read: the path and why, one line
        click.echo(f"error: {os_error_line(e)}", err=True)
        sys.exit(2)
