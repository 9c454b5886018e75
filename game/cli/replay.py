"""``skirmish replay``: verify a recorded battle by re-simulating it, or open it in the viewer.

Contract (issue 6, DESIGN §4):

- ``skirmish replay LOG [--scenario PATH] [--policy SIDE=NAME ...]`` re-simulates the battle
  from the log's ``match_start`` and its ``command`` events (:mod:`game.tools.replay`) and
  prints ``OK: ...`` (exit 0) or the first divergence as
  ``DIVERGED at seq N (type) field: expected X, got Y`` (exit 1), followed, for a log without
  embedded profiles whose match starts differently, by a line saying the profiles (or the
  rules) changed since it was recorded.
- An ``OK`` vouches only for what the battle shows: after it, one line per claim of the log it
  could not check (``N claim(s) not verified (below)``): a side played by a person, or by a user
  policy (a log never runs code; ``--policy SIDE=FILE.py:FUNCTION`` on the command line
  re-chooses that side's commands and so verifies them), an option or round limit that departs
  from the embedded scenario's although the battle replays just as well with the scenario's
  (:func:`game.tools.replay.undetermined`).
- The scenario comes from the log itself (``match_start`` embeds its text and the profiles the
  units use), so a log replays from any folder; ``--scenario`` with another file than the
  embedded one is refused, saying so. Logs written before that find their scenario by the one
  rule of :func:`game.scenario.locate.find_scenario` (``--scenario``, the recorded path, the
  recorded path next to the log, or a file with the logged sha256 in the usual folders). A
  refusal exits 2 with ``LOG:1: key: why``, as does an unreadable or malformed log.
- ``--narrate`` prints the battle as readable sentences instead, round by round
  (:func:`game.render.narrate.narrate`: who moves where, attacks and defences with their odds
  and rolls, damage, casualties, the result; the window log's sentences, never Python notation)
  and exits 0 without re-simulating; it needs no scenario, only the log.
- ``--view`` opens the log in the window viewer instead
  (``game.render.window.view_replay(log_path, spec, events)``, imported only then); if the
  viewer is not installed, or no window can open here (no display:
  :func:`game.cli.params.require_display`), it exits 2 with one line, at once.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click

from game.cli.params import require_display


class ViewerMissing(click.ClickException):
    """The window viewer is not installed: a usage problem, exit status 2."""

    exit_code = 2


@click.command("replay")
@click.argument("log", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--scenario",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The scenario file the battle was played on [default: found by its sha256].",
)
@click.option("--view", is_flag=True, help="Open the battle in the window viewer instead of verifying it.")
@click.option("--narrate", is_flag=True, help="Print the battle as readable sentences, round by round.")
@click.option(
    "--policy",
    "policy",
    multiple=True,
    metavar="SIDE=NAME",
    help="Re-choose SIDE's commands with this policy (a name or FILE.py:FUNCTION), repeatable; a log "
    "never runs the user policies it names.",
)
def replay(log: Path, scenario: Path | None, view: bool, narrate: bool, policy: tuple[str, ...]) -> None:
    """Re-simulate the battle recorded in LOG and verify every event (or --view or --narrate it)."""
    if view and narrate:
        raise click.UsageError("give one of --view and --narrate")
    from game.cli.battle import parse_pairs
    from game.cli.params import BadInput, policy_problem

    named = parse_pairs(policy, "--policy")
    for name in named.values():
        problem = policy_problem(name)
        if problem is not None:
            raise BadInput("--policy", problem)
    if narrate:
        from game.render.narrate import narrate as tell
        from game.tools.replay import read_events

        for line in tell(read_events(log)):
            click.echo(line)
        return
    if view:
        require_display("skirmish replay --view")  # at once, before anything is loaded
    from game import __version__
    from game.tools.replay import explain, load, undetermined, verify

    events, spec = load(log, scenario)
    unknown = [side for side in named if side not in spec.sides]
    if unknown:
        raise BadInput("--policy", f"no side {unknown[0]!r} in {log}; its sides are {', '.join(spec.sides)}")
    recorded = events[0].get("version")
    if recorded is not None and recorded != __version__:
        click.echo(
            f"note: {log} was recorded with version {recorded}, replaying with {__version__}", err=True
        )
    if view:
        try:
            from game.render.window import view_replay
        except ModuleNotFoundError as e:
            if e.name not in ("game.render.window", "pygame"):
                raise
            raise ViewerMissing(
                "the window viewer is not available in this installation (game.render.window is missing)"
            ) from None
        except ImportError:  # the module is there but has no view_replay
            raise ViewerMissing(
                "the window viewer is not available in this installation (no game.render.window.view_replay)"
            ) from None
        view_replay(log, spec, events)
        return
    result = verify(events, spec, named)
    notes = list(result.unverified) + (undetermined(events, spec, named) if result.ok else [])
    if notes and result.ok:
        result = replace(result, unverified=tuple(notes))
    click.echo(f"{log}: {result}")
    for note in notes if result.ok else ():
        click.echo(f"{log}: {note}")
    if not result.ok:
        why = explain(result, events)
        if why is not None:
            click.echo(f"{log}: {why}")
        raise SystemExit(1)
