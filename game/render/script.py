"""Scripted play: drive the real window (:class:`~game.render.window.App`) from a text file.

Contract: a script is one action per line; ``#`` starts a comment, blank lines are skipped.

- ``key NAME``: press and release the key ``NAME`` (a pygame key name, as
  ``pygame.key.key_code`` reads it: ``return``, ``e``, ``1``, ``escape``, ``f5`` ...);
  ``key shift+NAME`` holds Shift (``key shift+1`` chooses the eleventh option), ``key ctrl+NAME``
  holds Ctrl (``key ctrl+s`` saves in the editor); both may be combined (``ctrl+shift+z``).
- ``click X Y`` / ``click UNIT``: move the mouse to table point (X, Y) in inches (or to the centre
  of unit ``UNIT``) and left-click there; ``rclick`` right-clicks (face that way).
- ``hover X Y`` / ``hover UNIT``: move the mouse there without clicking (the target under the
  cursor, the path preview).
- ``drag X1 Y1 X2 Y2`` / ``drag UNIT X2 Y2``: press the left button there, move to (X2, Y2),
  release (with the tape armed, ``key l``, this stretches the measuring tape).
- ``wait``: run the window's frame loop until a human decision is pending or the match has
  ended (the AI sides and the reactions answer meanwhile).
- ``shot NAME``: draw one complete frame (threat map and exact reach finished) and save the
  window as ``SHOTS/NAME.png``.

:func:`parse_script` checks every line before anything runs (unknown action, wrong argument
count, unknown key name, a bad shot name): a :class:`ScriptError` names ``file:line``.
:func:`run_script` feeds the actions to an :class:`App` as the synthetic pygame events a player
would cause, one :meth:`App.tick` per event, exactly as the interactive loop; a click off the
map, a ``wait`` that does not end within :data:`WAIT_FRAMES` frames (e.g. the AI paused) or an
unknown unit is a :class:`ScriptError` naming the line. The ``skirmish play --headless
--script FILE --shots DIR`` command runs it with SDL's dummy video driver; ``skirmish edit``
runs the same actions on the scenario editor (:class:`~game.render.editor.Editor`, which has
the same ``tick`` / ``render_still`` / ``view`` / ``renderer`` as the play window).
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from game.core.errors import SkirmishError

#: Frames a ``wait`` may take before the script fails (a whole AI turn takes a few dozen).
WAIT_FRAMES = 20_000
#: Arguments per action: (min, max).
ARITY: dict[str, tuple[int, int]] = {
    "key": (1, 1),
    "click": (1, 2),
    "rclick": (1, 2),
    "hover": (1, 2),
    "drag": (3, 4),
    "wait": (0, 0),
    "shot": (1, 1),
}
#: Modifier prefixes of ``key`` (``key ctrl+s``, ``key ctrl+shift+z``).
_MODIFIERS = ("shift", "ctrl")
_SHOT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class ScriptError(SkirmishError):
    """A script line that cannot be read or carried out; the message starts ``file:line:``."""


@dataclass(frozen=True)
class Action:
    """One script line: ``kind`` with its ``args``, read from ``where`` (``file:line``)."""

    kind: str
    args: tuple[str, ...]
    where: str

    def fail(self, why: str) -> ScriptError:
        return ScriptError(f"{self.where}: {why}")


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def parse_script(text: str, name: str = "script") -> list[Action]:
    """The actions of a script (see the module docstring); raises :class:`ScriptError`."""
    import pygame

    actions = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        kind, *args = line.split()
        act = Action(kind, tuple(args), f"{name}:{n}")
        if kind not in ARITY:
            raise act.fail(f"unknown action {kind!r} (one of: {', '.join(ARITY)})")
        lo, hi = ARITY[kind]
        if not lo <= len(args) <= hi:
            want = f"{lo}" if lo == hi else f"{lo} or {hi}"
            raise act.fail(f"{kind} takes {want} argument{'s' if hi != 1 else ''}, got {len(args)}")
        if kind == "key":
            try:
                with warnings.catch_warnings():  # names resolve without a started display
                    warnings.simplefilter("ignore")
                    pygame.key.key_code(_key_name(args[0])[0])
            except ValueError:
                raise act.fail(
                    f"unknown key name {args[0]!r} (a pygame key name, e.g. return, e, 1)"
                ) from None
        elif kind in ("click", "rclick", "hover") and len(args) == 2:
            bad = [a for a in args if not _is_number(a)]
            if bad:
                raise act.fail(f"{kind} X Y needs two numbers (inches), got {bad[0]!r}")
        elif (kind == "drag" and not all(_is_number(a) for a in args[-2:])) or (
            kind == "drag" and len(args) == 4 and not _is_number(args[0])
        ):
            raise act.fail("drag needs X1 Y1 X2 Y2 or UNIT X2 Y2 (inches)")
        elif kind == "shot" and not _SHOT_NAME.match(args[0]):
            raise act.fail(f"shot name {args[0]!r} must be letters, digits, '.', '_' or '-'")
        actions.append(act)
    return actions


def _key_name(arg: str) -> tuple[str, tuple[str, ...]]:
    """(pygame key name, modifiers held: ``shift``, ``ctrl``) of a ``key`` argument."""
    mods: list[str] = []
    while True:
        head, sep, rest = arg.partition("+")
        if sep and rest and head.lower() in _MODIFIERS and head.lower() not in mods:
            mods.append(head.lower())
            arg = rest
            continue
        return arg, tuple(mods)


def read_script(path: str | Path) -> list[Action]:
    """:func:`parse_script` of a file; an unreadable file is a :class:`ScriptError`."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ScriptError(f"cannot read script {p}: {e}") from None
    return parse_script(text, p.name)


def human_to_move(app: Any) -> bool:
    """True when the window waits for a person: a human side's decision, or the match is over."""
    view = app.view
    d = view.pending
    if d is None or view.outcome is not None:
        return True
    return bool(view.unit(d.unit).side in app.humans)


class ScriptRunner:
    """Carries out actions on an :class:`App` (which may draw on any surface).

    Args:
        app: the window.
        shots: folder for ``shot`` pictures (created when the first one is saved); None refuses
            ``shot`` lines.
    """

    def __init__(self, app: Any, shots: str | Path | None = None) -> None:
        import pygame

        self.pg = pygame
        self.app = app
        self.shots = Path(shots) if shots is not None else None
        #: Paths of the pictures saved so far.
        self.saved: list[Path] = []

    def run(self, actions: list[Action]) -> None:
        for act in actions:
            getattr(self, f"_do_{act.kind}")(act)
            if not self.app.running:
                break

    # ------------------------------------------------------------------ actions
    def _tick(self, *events: Any) -> None:
        self.app.tick(list(events))
        if self.app._own_window:
            self.pg.display.flip()

    def _do_key(self, act: Action) -> None:
        pg = self.pg
        name, mods = _key_name(act.args[0])
        mod = (pg.KMOD_SHIFT if "shift" in mods else 0) | (pg.KMOD_CTRL if "ctrl" in mods else 0)
        common = {
            "key": pg.key.key_code(name),
            "mod": mod,
            "unicode": "",
            "scancode": 0,
        }
        self._tick(pg.event.Event(pg.KEYDOWN, **common))
        self._tick(pg.event.Event(pg.KEYUP, **common))

    def _screen_point(self, act: Action, args: tuple[str, ...] | None = None) -> tuple[int, int]:
        app = self.app
        args = act.args if args is None else args
        if len(args) == 1:
            uid = args[0]
            known = {u.id for u in app.view.units()}
            if uid not in known:
                raise act.fail(f"no living unit {uid!r} (units: {', '.join(sorted(known))})")
            x, y = app.view.unit(uid).pos
        else:
            x, y = float(args[0]), float(args[1])
        cam = app.renderer.camera
        sx, sy = cam.world_to_screen(x, y)
        pos = (round(sx), round(sy))
        if not cam.in_viewport(*pos):
            raise act.fail(f"table point ({x:g}, {y:g}) is off the map on screen (pan or zoom first)")
        return pos

    def _move_to(self, pos: tuple[int, int]) -> None:
        pg = self.pg
        self._tick(pg.event.Event(pg.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0)))

    def _do_hover(self, act: Action) -> None:
        self._move_to(self._screen_point(act))

    def _click(self, act: Action, button: int) -> None:
        pg = self.pg
        pos = self._screen_point(act)
        self._move_to(pos)
        self._tick(pg.event.Event(pg.MOUSEBUTTONDOWN, pos=pos, button=button))
        self._tick(pg.event.Event(pg.MOUSEBUTTONUP, pos=pos, button=button))

    def _do_click(self, act: Action) -> None:
        self._click(act, 1)

    def _do_rclick(self, act: Action) -> None:
        self._click(act, 3)

    def _do_drag(self, act: Action) -> None:
        pg = self.pg
        a = self._screen_point(act, act.args[:-2])
        b = self._screen_point(act, act.args[-2:])
        self._move_to(a)
        self._tick(pg.event.Event(pg.MOUSEBUTTONDOWN, pos=a, button=1))
        rel = (b[0] - a[0], b[1] - a[1])
        self._tick(pg.event.Event(pg.MOUSEMOTION, pos=b, rel=rel, buttons=(1, 0, 0)))
        self._tick(pg.event.Event(pg.MOUSEBUTTONUP, pos=b, button=1))

    def _do_wait(self, act: Action) -> None:
        for _ in range(WAIT_FRAMES):
            if human_to_move(self.app):
                return
            self._tick()
        why = " (the AI is paused: press space or n)" if self.app.ui.ai_paused else ""
        raise act.fail(f"wait: no human decision after {WAIT_FRAMES} frames{why}")

    def _do_shot(self, act: Action) -> None:
        from game.render.png import write_png

        if self.shots is None:
            raise act.fail("shot needs a folder for the pictures (--shots DIR)")
        app = self.app
        app.render_still()
        self.saved.append(write_png(app.screen, self.shots / f"{act.args[0]}.png"))


def run_window(window: Any, actions: list[Action] | None, shots: str | Path | None) -> list[Path]:
    """Show ``window`` (the game's or the editor's) until it is closed, or, given ``actions``,
    carry them out and close it. Returns the pictures the script saved."""
    if actions is None:
        window.run()
        return []
    runner = ScriptRunner(window, shots)
    try:
        runner.run(actions)
    finally:
        window.close()
    return runner.saved
