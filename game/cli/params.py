"""Argument checks shared by the subcommands: seeds, picture formats, and whether a window can open.

Contract:

- :data:`SEED` is the click type of every ``--seed``: a whole number from 0 (numpy's seed
  sequences take no negative numbers); anything else is a usage error (one line, exit 2).
- :func:`picture_format` maps an ``--out`` file's extension to the format written there
  (:data:`PICTURE_FORMATS`: ``.png``, ``.jpg``/``.jpeg``, ``.bmp``); any other extension, or
  none, is a usage error naming the ones accepted. The bytes written are always in the format
  the name says.
- :data:`POLICY` is the click type of every option naming an AI policy (``--red``, ``--blue``):
  a registered name, or a user policy's spec ``FILE.py:FUNCTION`` / ``MODULE:FUNCTION``, loaded,
  made and checked at once in a throwaway process (:func:`game.tools.isolate.probe`: a file
  that loops, exits or kills its process while loading is one located line, and the command's
  own process never runs the user's code); :data:`POLICY_OR_HUMAN` also takes
  ``human`` (``skirmish play``). :func:`policy_problem` is the same check, for names read from
  other options (``--policy SIDE=NAME``, ``--policies A,B``). A bad name, a file that does
  not load or a function that cannot be a policy is a usage error located in the user's code
  (one line, exit 2).
- :func:`require_display` refuses, at once and in one line (exit 2), a command that needs a
  window where none can open (:func:`no_display`, which ``skirmish play`` asks too): on Linux
  with ``SDL_VIDEODRIVER`` unset and neither ``DISPLAY`` nor ``WAYLAND_DISPLAY`` set (SDL would
  fall back to an invisible window and the command would wait forever for input nobody can
  give). An explicit ``SDL_VIDEODRIVER`` (``dummy`` in tests,
  ``kmsdrm`` on a console) is left to SDL.
- Every number a command takes has a stated range, checked before anything runs (one line,
  exit 2): :func:`count` for the counts (``-n``, ``--max-battles``, ...), :data:`WORKERS` 1 to
  :data:`MAX_WORKERS`, :data:`MAX_BATTLES` battles in one run at most (:func:`run_size`: the plan
  of a run is held in memory), and :func:`seeds_fit`: seeds ``S .. S+N-1`` must all be seeds (a
  log of every accepted seed replays). :data:`POLICY_TIMEOUT` is ``--policy-timeout``, the CPU
  seconds a user policy may take for one decision.
- The options several subcommands share are declared once here, so their names and help agree:
  :data:`POLICY_OPTIONS` (``--policy-option``), :data:`SWAP_SIDES`, :data:`WORKERS`,
  :data:`DASK`, :data:`CHECK_INVARIANTS` (the batch commands) and :func:`script_options`
  (``--script``/``--shots``/``--headless``: the window driven by a script, ``play`` and ``edit``),
  with :func:`prepare_window`, the headless-or-display check both make first.
- Ruleset options (issue 26), the one way every command takes them: :data:`RULESET_OPTIONS` is
  the ``--option KEY=VALUE`` click option (repeatable); :func:`parse_options` reads its values
  (:func:`parse_value`: JSON numbers, ``true``/``false``/``yes``/``no``, lists, else a bare
  string) and :func:`ruleset_options` validates them for a ruleset over a base (the scenario's
  ``options:`` block), a bad one a usage error of one line naming the option, its type, range
  and default and the ruleset (:func:`game.rules.options.option_problem`), exit 2. The
  signatures are stable: ``skirmish balance`` uses them too.
- :class:`NumbersCommand` is a command whose arguments may be negative numbers (``skirmish
  path duel vasco -3 5.5``, ``skirmish los SCENARIO -2,4 blue-1``): a word that reads as a
  number is an argument, never an unknown option.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import click

#: Largest seed accepted (numpy takes any size; the logs store it as a JSON number).
MAX_SEED = 2**63 - 1
#: Most battles one run plays (every variant, arm, seed and swap): the plan and the finished rows
#: of a run are held in memory (about 5 KB a battle), and 100,000 battles are hours of CPU.
MAX_BATTLES = 100_000
#: Most worker processes.
MAX_WORKERS = 64
#: Default and bounds of ``--policy-timeout`` (CPU seconds per decision of a user policy).
DEFAULT_POLICY_TIMEOUT = 10.0
MIN_POLICY_TIMEOUT = 0.05
MAX_POLICY_TIMEOUT = 3600.0


class FiniteRange(click.FloatRange):
    """click's ``FloatRange`` refusing ``nan`` (which passes every comparison) and infinities."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        import math

        got = super().convert(value, param, ctx)
        if not math.isfinite(got):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return float(got)


class UnitIdType(click.ParamType):
    """A unit's id as typed: in its one spelling (NFC), as scenarios keep ids
    (:mod:`game.scenario.idents`), so ``vásco`` typed either way finds the unit."""

    name = "UNIT"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        import unicodedata

        return unicodedata.normalize("NFC", str(value))


UNIT_ID = UnitIdType()


class OutputPath(click.Path):
    """``click.Path`` for a file or folder skirmish writes: its name must be valid UTF-8 (it is
    written into CSV cells, logs and messages); one that is not is a usage error (exit 2)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        got = super().convert(value, param, ctx)
        text = os.fsdecode(got) if isinstance(got, bytes) else str(got)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            shown = text.encode("utf-8", "surrogateescape")
            self.fail(f"the name {shown!r} is not valid UTF-8; give outputs UTF-8 names", param, ctx)
        return got


class BadInput(click.ClickException):
    """A bad argument: one line ``Error: <option>: <why>``, exit status 2."""

    exit_code = 2

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")


def parse_value(text: str) -> Any:
    """An ``--option`` value: JSON (numbers, true/false/null, lists, quoted strings) or a bare string."""
    import json

    low = text.strip().lower()
    if low in ("yes", "on"):
        return True
    if low in ("no", "off"):
        return False
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_pairs(values: tuple[str, ...] | list[str], what: str) -> dict[str, str]:
    """``KEY=VALUE`` strings to a dict; a malformed one is a usage error naming ``what``."""
    out: dict[str, str] = {}
    for v in values:
        key, eq, val = v.partition("=")
        if not eq or not key.strip() or not val.strip():
            raise BadInput(what, f"{v!r} is not KEY=VALUE")
        out[key.strip()] = val.strip()
    return out


def parse_options(values: tuple[str, ...] | list[str], flag: str = "--option") -> dict[str, Any]:
    """``KEY=VALUE`` flags to ``{key: value}`` (:func:`parse_value`); a malformed one, or a key
    given twice, is a usage error naming ``flag``."""
    keys = [v.partition("=")[0].strip() for v in values]
    twice = next((k for i, k in enumerate(keys) if k in keys[:i]), None)
    if twice is not None:
        raise BadInput(flag, f"{twice!r} is given twice")
    return {k: parse_value(v) for k, v in parse_pairs(values, flag).items()}


def ruleset_options(
    ruleset: str,
    values: Mapping[str, Any],
    *,
    base: Mapping[str, Any] | None = None,
    flag: str = "--option",
) -> dict[str, Any]:
    """``base`` (the scenario's options for ``ruleset``) overridden by ``values``, validated by the
    ruleset's ``Options``: the merged mapping (only the keys given; the defaults stay implicit).

    Raises:
        BadInput: an unknown ruleset, or an unknown option or a value of the wrong type or out of
            range: one line naming ``flag``, the option, its type, range and default and the
            ruleset (exit 2).
    """
    from game.rules import REGISTRY, RULESET_NAMES, ruleset_class
    from game.rules.options import check

    if ruleset not in REGISTRY:  # the registry: a ruleset registered at run time counts too
        raise BadInput("--ruleset", f"unknown ruleset {ruleset!r}; choose one of {', '.join(RULESET_NAMES)}")
    merged = {**(base or {}), **values}
    try:
        check(ruleset, ruleset_class(ruleset).Options, merged)
    except ValueError as e:
        raise BadInput(flag, str(e)) from None
    return merged


def options_by_ruleset(
    rulesets: list[str], values: Mapping[str, Any], flag: str = "--option"
) -> dict[str, dict[str, Any]]:
    """``--option`` values for a command that plays several rulesets: each key goes to the rulesets
    whose ``Options`` have it (validated there); a key no ruleset has is a usage error."""
    from game.rules import ruleset_class

    out: dict[str, dict[str, Any]] = {}
    for r in rulesets:
        fields = ruleset_class(r).Options.model_fields
        out[r] = ruleset_options(r, {k: v for k, v in values.items() if k in fields}, flag=flag)
    for key in values:
        if not any(key in ruleset_class(r).Options.model_fields for r in rulesets):
            if len(rulesets) == 1:  # the ruleset's own words: did you mean, its options
                ruleset_options(rulesets[0], {key: values[key]}, flag=flag)
            import difflib

            known = sorted({f for r in rulesets for f in ruleset_class(r).Options.model_fields})
            near = difflib.get_close_matches(key, known, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise BadInput(
                flag,
                f"no ruleset played here ({', '.join(rulesets)}) has an option {key!r}{hint}; "
                "'skirmish rulesets' lists each ruleset's options",
            )
    return out


def count(value: int, flag: str, what: str, lo: int = 1, hi: int = MAX_BATTLES) -> int:
    """``value`` if ``lo <= value <= hi``, else :class:`BadInput` naming ``flag`` and the range."""
    if value < lo:
        raise BadInput(flag, f"{what} must be at least {lo}, not {value}")
    if value > hi:
        raise BadInput(flag, f"{what} must be at most {hi}, not {value}")
    return value


def run_size(battles: int, flag: str = "-n") -> int:
    """``battles`` if one run may play that many (:data:`MAX_BATTLES`), else :class:`BadInput`."""
    if battles > MAX_BATTLES:
        raise BadInput(
            flag,
            f"this run would play {battles} battles; one run plays at most {MAX_BATTLES} "
            "(split it: the same command with another --seed and --out)",
        )
    return battles


def seeds_fit(seed: int, n: int, flag: str = "--seed") -> None:
    """Refuse seeds ``seed .. seed+n-1`` that run past :data:`MAX_SEED` (their logs would not replay)."""
    if seed + n - 1 > MAX_SEED:
        raise BadInput(
            flag,
            f"seeds {seed} to {seed + n - 1} run past 2**63-1, the largest seed; with {n} seeds "
            f"the first may be at most {MAX_SEED - n + 1}",
        )


#: Picture formats ``--out`` may name, by extension.
PICTURE_FORMATS: dict[str, str] = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".bmp": "bmp"}


#: A word that reads as a number (``-3``, ``-2.5``, ``-1e-3``), or a point (``-2,4``, ``-2.5,-1``).
_NUMBER_WORD = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?(,\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)?$")


class NumbersCommand(click.Command):
    """A command whose arguments may be negative numbers or points: such a word is kept as an
    argument (after ``--``, which click reads as the end of the options), not read as an option."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args or not any(_NUMBER_WORD.match(a) for a in args):
            return super().parse_args(ctx, args)
        takes_value = {
            o
            for p in self.params
            if isinstance(p, click.Option) and not p.is_flag and not p.count
            for o in p.opts
        }
        options: list[str] = []
        rest: list[str] = []
        i = 0
        while i < len(args):
            a = args[i]
            if a.startswith("-") and not _NUMBER_WORD.match(a):
                options.append(a)
                if a in takes_value and i + 1 < len(args):  # its value goes with it
                    options.append(args[i + 1])
                    i += 1
            else:
                rest.append(a)
            i += 1
        return super().parse_args(ctx, [*options, "--", *rest])


class SeedType(click.ParamType):
    """A match seed: a whole number from 0 to :data:`MAX_SEED`."""

    name = "SEED"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            seed = value
        else:
            try:
                seed = int(str(value).strip(), 10)
            except ValueError:
                self.fail(f"{value!r} is not a whole number; a seed is a whole number from 0", param, ctx)
        if not 0 <= seed <= MAX_SEED:
            self.fail(f"{seed} is not a seed; a seed is a whole number from 0 to 2**63-1", param, ctx)
        return seed


SEED = SeedType()


#: Who plays a side, for a player: ``human`` (the session's ``HUMAN``).
HUMAN = "human"


class PolicyType(click.ParamType):
    """An AI policy: a registered name or a user policy's spec (``human`` too if ``human``)."""

    name = "POLICY"

    def __init__(self, human: bool = False) -> None:
        self.human = human

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value).strip()
        problem = policy_problem(text, self.human)
        if problem is not None:
            self.fail(problem, param, ctx)
        return text


def policy_problem(name: str, human: bool = False) -> str | None:
    """Why ``name`` is not a registered policy nor a user policy's spec that loads (nor
    ``human`` when ``human`` is allowed), in one line; None when it is one."""
    from game.ai import check_policy, is_policy_spec, policy_names
    from game.core.errors import SkirmishError

    if human and name == HUMAN:
        return None
    try:
        if is_policy_spec(name):
            from game.tools.isolate import probe

            probe(name)  # loaded in a throwaway process: this one never runs the user's code
        else:
            check_policy(name)
    except SkirmishError as e:
        if is_policy_spec(name):  # located in the user's code by the loader
            return str(e)
        names = ", ".join(policy_names())
        if human:
            return f"{name!r} is neither 'human' nor an AI policy ({names}) nor your own (FILE.py:FUNCTION)"
        return f"unknown AI policy {name!r}; choose one of {names}, or your own: FILE.py:FUNCTION"
    return None


POLICY = PolicyType()
POLICY_OR_HUMAN = PolicyType(human=True)


def picture_format(path: Path, option: str = "--out") -> str:
    """The format a picture named ``path`` is written in (see the module docstring)."""
    fmt = PICTURE_FORMATS.get(path.suffix.lower())
    if fmt is None:
        given = f"the extension {path.suffix!r}" if path.suffix else "no extension"
        raise click.BadParameter(
            f"{path} has {given}; name a picture {', '.join(PICTURE_FORMATS)} "
            "(the format written follows it)",
            param_hint=option,
        )
    return fmt


class NoDisplay(click.ClickException):
    """A window cannot open here: one line, exit status 2."""

    exit_code = 2


def no_display(environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Whether no window can open here: on Linux, no ``SDL_VIDEODRIVER``, ``DISPLAY`` or
    ``WAYLAND_DISPLAY`` (other systems always have a display)."""
    env = os.environ if environ is None else environ
    plat = sys.platform if platform is None else platform
    if not plat.startswith("linux") or env.get("SDL_VIDEODRIVER"):
        return False
    return not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def require_display(
    command: str, environ: Mapping[str, str] | None = None, platform: str | None = None
) -> None:
    """Refuse ``command`` at once when no window can open (see the module docstring).

    Raises:
        NoDisplay: :func:`no_display`.
    """
    if not no_display(environ, platform):
        return
    raise NoDisplay(
        f"{command} opens a window, but there is no display here (DISPLAY and WAYLAND_DISPLAY are "
        "not set); run it on a desktop, or use 'skirmish render' for pictures"
    )


def no_display_reason(
    env: Mapping[str, str] | None = None, platform: str | None = None, verb: str = "play"
) -> str | None:
    """Why a window to ``verb`` in cannot open here (None if it can): on Linux, no X11 or Wayland
    display and no SDL video driver chosen."""
    if not no_display(env, platform):
        return None
    return (
        "no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set); "
        f"use --headless --script FILE to {verb} without one"
    )


def prepare_window(verb: str, headless: bool, script_path: Path | None) -> None:
    """``--headless`` (which needs ``--script``) draws on SDL's dummy display, chosen before pygame
    starts its video; without it, no display refuses ``verb`` at once (:func:`no_display_reason`).

    Raises:
        SkirmishError: ``--headless`` without ``--script``, or no display.
    """
    from game.core.errors import SkirmishError

    if headless:
        if script_path is None:
            raise SkirmishError(f"--headless needs --script FILE (nobody could {verb} otherwise)")
        os.environ["SDL_VIDEODRIVER"] = "dummy"
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
        return
    reason = no_display_reason(verb=verb)
    if reason is not None:
        raise SkirmishError(reason)


_F = TypeVar("_F", bound=Callable[..., object])

RULESET_OPTIONS = click.option(
    "--option",
    "option",
    multiple=True,
    metavar="KEY=VALUE",
    help="Ruleset option, e.g. dodge_ap=3 (repeatable; 'skirmish rulesets' lists them).",
)
POLICY_OPTIONS = click.option(
    "--policy-option",
    "policy_option",
    multiple=True,
    metavar="POLICY.KEY=VALUE",
    help="Option of an AI policy, e.g. planner.budget=8 (repeatable).",
)
SWAP_SIDES = click.option(
    "--swap-sides", is_flag=True, help="Also play every seed with the first two sides' policies swapped."
)
WORKERS = click.option(
    "--workers",
    type=click.IntRange(1, MAX_WORKERS),
    default=None,
    help=f"Worker processes, 1 to {MAX_WORKERS} [default: CPUs].",
)
POLICY_TIMEOUT = click.option(
    "--policy-timeout",
    "policy_timeout",
    type=FiniteRange(MIN_POLICY_TIMEOUT, MAX_POLICY_TIMEOUT),
    default=DEFAULT_POLICY_TIMEOUT,
    show_default=True,
    help="CPU seconds a user policy (FILE.py:FUNCTION) may take for one decision; a battle where it "
    "takes longer is an error row.",
)
DASK = click.option(
    "--dask", metavar="ADDRESS", help="Run on a Dask cluster: 'local' or a scheduler address."
)
CHECK_INVARIANTS = click.option(
    "--check-invariants", is_flag=True, help="Check the match invariants after every command."
)


def script_options(actions: str) -> Callable[[_F], _F]:
    """``--script FILE`` (the ``actions`` it may hold), ``--shots DIR`` and ``--headless``."""

    def decorate(f: _F) -> _F:
        f = click.option("--headless", is_flag=True, help="Run without a display (needs --script).")(f)
        f = click.option(
            "--shots",
            default=None,
            type=click.Path(file_okay=False, path_type=Path),
            help="Folder where the script's 'shot NAME' saves NAME.png.",
        )(f)
        return click.option(
            "--script",
            "script_path",
            default=None,
            type=click.Path(dir_okay=False, path_type=Path),
            help=f"Carry out the actions in FILE ({actions}), then exit.",
        )(f)

    return decorate


def default_workers() -> int:
    """Worker processes when ``--workers`` is left out: one per CPU, at most :data:`MAX_WORKERS`."""
    return max(1, min(os.cpu_count() or 1, MAX_WORKERS))
