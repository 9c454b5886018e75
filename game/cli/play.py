"""``skirmish play``: play a scenario in a pygame-ce window (hotseat or against the AI).

Contract (DESIGN §4, issue 7):

- ``skirmish play SCENARIO [--ruleset R] [--red human|POLICY] [--blue human|POLICY]
  [--difficulty easy|normal|hard] [--seed N] [--size WxH] [--save-file PATH]
  [--policy-option POLICY.KEY=VALUE ...]`` opens a
  resizable window (:class:`game.render.window.App`).
  ``--red`` / ``--blue`` set who plays the scenario's first / second side (as in ``skirmish
  battle``): ``human`` (default for red), an AI policy name (default for blue: the
  scenario's controller) or a user policy ``FILE.py:FUNCTION`` (:mod:`game.ai.loader`). Both
  human is hotseat. ``--seed`` seeds the dice and the AI.
  F5 / F9 save to / load from ``--save-file`` (default ``skirmish-save.json``);
  ``--load SAVE`` starts from a saved game, its sides played as the save records unless
  ``--red``/``--blue`` are given. A save never runs code: a side it gives to a user policy is
  played by a person (a note on stderr and in the window says so) unless ``--red``/``--blue``
  names the policy again (:func:`game.tools.integrity.trusted_players`). A save continues under
  its own ruleset and seed: ``--ruleset`` or ``--seed`` given with ``--load`` must be the
  saved ones, else it is refused (exit 2). ``--policy-option POLICY.KEY=VALUE`` (repeatable)
  gives an AI policy its options, as in ``skirmish battle``. ``--difficulty LEVEL`` plays every
  AI side not named by ``--red``/``--blue`` at a level of :data:`game.ai.difficulty.LEVELS`
  (``hard``: the strongest policy, answering within 300 ms); F2 in the window cycles the level.
- The controls are listed in the window (H) and in ``docs/window.md``.
- ``--script FILE`` plays the actions of FILE (:mod:`game.render.script`: ``key``, ``click``,
  ``hover``, ``wait``, ``shot``) in the window and exits at its end; ``--headless`` runs the
  same window code without a display (SDL's dummy video driver, set before pygame starts) and
  needs ``--script``; ``--shots DIR`` is where ``shot NAME`` saves ``DIR/NAME.png``. A script
  error names its line (``script.txt:7: unknown action 'klick'``) and exits 2.
- Without ``--headless`` and without a display (Linux: neither ``DISPLAY`` nor
  ``WAYLAND_DISPLAY`` set, and no ``SDL_VIDEODRIVER`` chosen: :func:`game.cli.params.no_display`)
  ``play`` exits 2 at once with one line saying so, instead of failing or hanging invisibly.
- ``--help`` lists the AI opponents, one line each on how they play and how strong they are
  (:data:`game.ai.STRENGTH`). When play starts, stdout and the window's message line say who
  plays each side and why (``--red``/``--blue``, the scenario's controllers, or the default
  when the scenario names none), so a new scenario's opponent is never a surprise.
- Bad input (missing or invalid scenario, unknown ruleset or policy, a malformed size, a
  negative seed, plain pygame instead of pygame-ce) exits 2 with one line before any window
  opens.
"""

from __future__ import annotations

from pathlib import Path

import click
from click.core import ParameterSource

from game.cli.params import (
    POLICY_OPTIONS,
    POLICY_OR_HUMAN,
    RULESET_OPTIONS,
    SEED,
    BadInput,
    parse_options,
    prepare_window,
    ruleset_options,
    script_options,
)
from game.cli.render import parse_size


def _opponents() -> str:
    """The play command's epilog: the AI policies, one line each on how strong they are."""
    from game.ai import STRENGTH

    lines = "\n".join(f"  {name:<11} {text}" for name, text in STRENGTH.items())
    return (
        "\b\nOpponents (--red / --blue POLICY; 'human' is you, two humans play hotseat):\n"
        f"{lines}\n  FILE.py:FUNCTION  your own policy (docs/ai.md)"
    )


def who_plays(
    spec: object,
    controllers: dict[str, str],
    given: dict[str, str],
    humans: set[str],
    level: str | None = None,
) -> str:
    """One line: who plays each side, and why (given, the difficulty level, the scenario's
    controllers, the default)."""
    from game.ai import RANK
    from game.scenario.schema import DEFAULT_CONTROLLER
    from game.scenario.yaml_source import parse_yaml

    text = getattr(spec, "text", "") or ""
    named = parse_yaml(text, "scenario").data if text else None
    named = named.get("controllers") if isinstance(named, dict) else None
    named = named if isinstance(named, dict) else {}
    parts = []
    for side in getattr(spec, "sides", ()):
        who = controllers.get(side, DEFAULT_CONTROLLER)
        if side in humans:
            parts.append(f"{side}: you")
            continue
        why = (
            "your choice"
            if side in given
            else f"difficulty {level}"
            if level is not None
            else "the scenario's"
            if side in named
            else "the default"
        )
        rank = RANK.get(who)
        parts.append(f"{side}: AI {who} ({why}" + (f", {rank})" if rank else ")"))
    return "; ".join(parts) + ". --red/--blue POLICY picks another (play --help)"


@click.command("play", epilog=_opponents())
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--ruleset", default=None, help="Ruleset to use instead of the scenario's.")
@click.option(
    "--red",
    default="human",
    show_default=True,
    type=POLICY_OR_HUMAN,
    help="First side: 'human', an AI policy or your own (FILE.py:FUNCTION).",
)
@click.option(
    "--blue",
    default=None,
    type=POLICY_OR_HUMAN,
    help="Second side: 'human', an AI policy or FILE.py:FUNCTION [default: the scenario's].",
)
@click.option(
    "--difficulty",
    type=click.Choice(["easy", "normal", "hard"]),
    default=None,
    help="Play every AI side at this level (easy: aggressive, normal: cautious, hard: planner, "
    "answering within 300 ms); F2 in the window changes it [default: the scenario's AI].",
)
@click.option("--seed", default=0, show_default=True, type=SEED, help="Match seed (dice and AI).")
@click.option("--size", default="1280x800", show_default=True, help="Window size WIDTHxHEIGHT.")
@click.option(
    "--save-file",
    default="skirmish-save.json",
    show_default=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="File for F5 (save) and F9 (load).",
)
@click.option(
    "--load",
    "load_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Continue a saved game (F5 writes one); SCENARIO must be the file it was saved from.",
)
@script_options("key, click, hover, wait, shot")
@RULESET_OPTIONS
@POLICY_OPTIONS
def play(
    scenario: Path,
    ruleset: str | None,
    red: str,
    blue: str | None,
    difficulty: str | None,
    seed: int,
    size: str,
    save_file: Path,
    load_path: Path | None,
    script_path: Path | None,
    shots: Path | None,
    headless: bool,
    option: tuple[str, ...],
    policy_option: tuple[str, ...],
) -> None:
    """Play SCENARIO in a window."""
    from game.cli.battle import parse_policy_options

    prepare_window("play", headless, script_path)
    dims = parse_size(size)
    policy_options = parse_policy_options(policy_option)
    cli_options = parse_options(option)
    if cli_options and load_path is not None:
        raise BadInput(
            "--option", "a saved game plays on with the options it was saved with; leave --option out"
        )
    actions = None
    if script_path is not None:
        from game.render.script import read_script

        actions = read_script(script_path)  # every line is checked before the window opens
    from game.ai import policy_names
    from game.render.window import App
    from game.scenario import load_scenario
    from game.tools.session import Setup

    notes: list[str] = []
    if load_path is not None:
        from game.tools.integrity import setup_conflicts, trusted_players
        from game.tools.saves import load_match

        # The save names its seed, ruleset and every command so far; it is checked against
        # SCENARIO's sha256 and replayed to the very state it was saved in.
        match = load_match(load_path, scenario_path=scenario)
        ctx = click.get_current_context()
        given_seed = seed if ctx.get_parameter_source("seed") is not ParameterSource.DEFAULT else None
        conflict = setup_conflicts(str(load_path), match.ruleset_name, match.seed, ruleset, given_seed)
        if conflict is not None:
            match.close()
            raise click.BadParameter(conflict[1], param_hint=conflict[0])
        spec = match.spec
        named = {"red": red, "blue": blue}
        given: dict[str, str] = {}
        for side, flag in zip(spec.sides[:2], ("red", "blue")):
            who = named[flag]
            if who is not None and ctx.get_parameter_source(flag) is not ParameterSource.DEFAULT:
                given[side] = who
        # a save never runs code: a side it gives to a user policy is a person's unless named again
        controllers, notes = trusted_players(dict(match.controllers), given, str(load_path))
    else:
        spec = load_scenario(scenario, ruleset, policies=policy_names())
        controllers = dict(spec.controllers)
        given = {side: who for side, who in zip(spec.sides[:2], (red, blue)) if who is not None}
        controllers.update(given)
        for side in spec.sides:
            controllers.setdefault(side, "random")
        name = ruleset or spec.ruleset
        options = ruleset_options(name, cli_options, base=spec.options.get(name, {}))
        match = Setup(ruleset=ruleset, seed=seed, options=options, controllers=controllers).build(spec)
    level = None
    if difficulty is not None:
        from game.ai.difficulty import LEVELS

        # A level replaces the AI of every side not played by a person and not named by --red/--blue.
        level = LEVELS[difficulty]
        for side, who in controllers.items():
            if who != "human" and side not in given:
                controllers[side] = level.policy
    for note in notes:
        click.echo(f"note: {note}", err=True)
    # The window plays the match through a game.tools.session.Session with these controllers.
    app = App(match, controllers, size=dims, save_path=save_file, policy_options=policy_options, level=level)
    intro = who_plays(spec, controllers, given, set(app.humans), level.name if level is not None else None)
    click.echo(intro)
    app.ui.say(intro, ttl=600)
    for note in notes:
        app.ui.say(note)
    from game.render.script import run_window

    for path in run_window(app, actions, shots):
        click.echo(f"wrote {path}")
