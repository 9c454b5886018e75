"""Input: pygame events -> UI changes and commands for the pending decision.

Contract: :class:`InputHandler` turns each pygame event into at most one command for the
match (returned by :meth:`InputHandler.handle`; the caller applies it with ``match.apply``)
and otherwise only changes the :class:`~game.render.ui.UiState` and the camera. It never
changes the match. Commands are only produced for a pending decision of a side listed in
``humans``, and only from that decision's options: a click on the map moves (the Move
option), a click on an enemy attacks it (its only attack option, or opens a menu of several),
a click in a drawn region answers an armed point option (retreat, dodge move, step, ...):
a click within :data:`SNAP_PX` pixels of the region snaps to its nearest legal point
(:func:`game.render.inspect.resolve_point`, the snapping the AI uses), farther it is refused,
number keys and panel rows choose listed options (:func:`game.render.ui.menu_rows`: the same
numbers for the whole decision), Enter / S / F end the turn, step and face, Ctrl + a digit
attacks the targeted enemy with that weapon of the attacker's sheet; a refused point leaves the
reason the option's validator gives on the message line, a refused attack the one reason
(:func:`game.render.price.why_no_attack`). A hint stays until the pending decision changes.
``ui.request`` carries save / load requests to the app. Synthetic events
(``pygame.event.Event``) work the same as real ones, so tests drive the window through this class.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from typing import Any

import pygame

from components.spatial import Posture
from game.core.commands import ChangePosture, Decision, EndTurn, Face, Option, Step, matches
from game.render.camera import Camera
from game.render.inspect import path_preview, resolve_point
from game.render.price import why_no_attack
from game.render.renderer import Renderer
from game.render.scene import CachedView
from game.render.ui import ACTION_KEYS, DIGIT_ROWS, KEYED_ROWS, OVERLAY_KEYS, UiState, attack_rows, menu_rows

#: A click within this many pixels of a region snaps onto its nearest legal point.
SNAP_PX = 12.0
#: A click within this many pixels of a base picks the unit even on tiny bases.
PICK_PX = 8.0
#: Pixels a right/middle button must travel before a press counts as a drag.
DRAG_PX = 4
#: Pan step for the arrow keys, pixels; zoom factor per wheel notch or +/- key.
PAN_STEP = 48
ZOOM_STEP = 1.2
#: Facing from a click is rounded to this many decimals of a degree.
FACE_DECIMALS = 1

_DIGITS = {getattr(pygame, f"K_{k}"): (k - 1) % 10 for k in range(10)} | {
    getattr(pygame, f"K_KP{k}"): (k - 1) % 10 for k in range(10)
}
_POSTURES = [p.value for p in Posture]  # tallest first


class InputHandler:
    """Translates events for one window.

    Args:
        renderer: the renderer (its camera, panel buttons and view are used).
        ui: the UI state to update.
        humans: sides whose decisions this window answers.
        ap_cost: ``(unit, path length) -> AP or None``, for the path preview (the ruleset's
            ``move_ap_cost``); without it previews show no AP.
    """

    def __init__(
        self,
        renderer: Renderer,
        ui: UiState,
        humans: Collection[str],
        ap_cost: Callable[[str, float], int | None] | None = None,
    ) -> None:
        self.renderer = renderer
        self.ui = ui
        self.humans = set(humans)
        self.ap_cost = ap_cost
        self._keys = {pygame.key.key_code(name): action for name, (action, _) in ACTION_KEYS.items()}
        self._keys[pygame.K_KP_ENTER] = "end_turn"
        self._overlay_keys = {pygame.key.key_code(name): ov for name, ov in OVERLAY_KEYS.items()}
        self._decision: Decision | None = None
        self._drag_from: tuple[int, int] | None = None
        self._dragged = False
        self._taping = False
        self._mouse: tuple[int, int] = (0, 0)
        self._dirty = True
        self.sync_decision()

    # ------------------------------------------------------------------ state
    @property
    def view(self) -> CachedView:
        return self.renderer.view

    @property
    def camera(self) -> Camera:
        return self.renderer.camera

    def my_decision(self) -> Decision | None:
        """The pending decision if this window answers it (a human side's, match not over)."""
        v = self.view
        d: Decision | None = v.pending
        if d is None or v.outcome is not None:
            return None
        return d if v.unit(d.unit).side in self.humans else None

    def sync_decision(self) -> None:
        """Forget armed options when the pending decision changed; select a human's deciding unit."""
        d = self.view.pending
        if d is self._decision:
            return
        self._decision = d
        self.ui.reset_decision()
        self.ui.decision_changed()
        self.ui.preview = None
        self._dirty = True
        mine = self.my_decision()
        if mine is not None:
            self.ui.selected = mine.unit

    def refresh(self) -> None:
        """Once per frame: recompute the path preview and point legality if the cursor moved."""
        self.sync_decision()
        if not self._dirty:
            return
        self._dirty = False
        ui, d = self.ui, self.my_decision()
        ui.preview = None
        ui.point_ok = None
        ui.snapped = None
        if d is None or ui.hover is None:
            return
        if ui.armed is not None:
            opt = d.options[ui.armed]
            if opt.region is not None:
                p, reason = resolve_point(
                    opt, ui.hover, self.view.unit(d.unit).pos, SNAP_PX / self.camera.scale
                )
                ui.point_ok = p is not None
                ui.snapped = p
                if reason:
                    ui.say(f"{opt.label}: {reason}", error=True)
                elif ui.message_error:
                    ui.say("")
            return
        if "path" in ui.overlays and ui.hover_unit is None and not ui.tape_on:  # the tape measures instead
            uid = d.unit
            cost = self.ap_cost
            ui.preview = path_preview(
                self.view,
                d,
                ui.hover,
                (lambda length: cost(uid, length)) if cost else (lambda length: None),
                SNAP_PX / self.camera.scale,
            )

    # ------------------------------------------------------------------ events
    def handle(self, event: pygame.event.Event) -> Any:
        """Process one event; returns a command for the pending decision, or None."""
        self.sync_decision()
        t = event.type
        if t == pygame.MOUSEMOTION:
            self._motion(event.pos, event.rel)
        elif t == pygame.MOUSEBUTTONDOWN:
            self._mouse = event.pos
            if event.button == 1 and self.ui.tape_on:
                self._tape_start(event.pos)
                return None
            if event.button == 1:
                return self._left_click(event.pos)
            if event.button in (2, 3):
                self._drag_from, self._dragged = event.pos, False
        elif t == pygame.MOUSEBUTTONUP and event.button == 1 and self._taping:
            self._taping = False
        elif t == pygame.MOUSEBUTTONUP and event.button in (2, 3):
            was_drag, self._drag_from = self._dragged, None
            if event.button == 3 and not was_drag:
                return self._face_towards(event.pos)
        elif t == pygame.MOUSEWHEEL:
            self._wheel(event.y)
        elif t == pygame.KEYDOWN:
            return self._key(event.key, getattr(event, "mod", 0))
        return None

    def _tape_start(self, pos: tuple[int, int]) -> None:
        if not self.camera.in_viewport(*pos):
            return
        w = self.camera.screen_to_world(*pos)
        unit = self.unit_at(w)
        start = self.view.unit(unit).pos if unit is not None else w
        self.ui.tape = (start, w, unit)
        self._taping = True

    def _motion(self, pos: tuple[int, int], rel: tuple[int, int]) -> None:
        self._mouse = pos
        if self._taping and self.ui.tape is not None and self.camera.in_viewport(*pos):
            start, _, unit = self.ui.tape
            self.ui.tape = (start, self.camera.screen_to_world(*pos), unit)
        if self._drag_from is not None:
            if abs(pos[0] - self._drag_from[0]) + abs(pos[1] - self._drag_from[1]) > DRAG_PX:
                self._dragged = True
            if self._dragged:
                self.camera.pan(rel[0], rel[1])
        ui = self.ui
        if self.camera.in_viewport(*pos):
            w = self.camera.screen_to_world(*pos)
            ui.hover = w if self.camera.on_map(*w) else None
            ui.hover_unit = self.unit_at(w)
            viewer = self.renderer.viewer(ui)
            if (
                ui.hover_unit is not None
                and viewer is not None
                and ui.hover_unit in self.view.enemies(viewer)
            ):
                ui.target = ui.hover_unit
        else:
            ui.hover = None
            ui.hover_unit = None
        self._dirty = True

    def _wheel(self, notches: float) -> None:
        pos = self._mouse
        if self.camera.in_viewport(*pos):
            self.camera.zoom_at(pos[0], pos[1], ZOOM_STEP ** float(notches))
            self._dirty = True
        elif pos[1] >= self.renderer.panel_log_top:
            self.ui.log_scroll = max(0, self.ui.log_scroll + round(notches) * 3)
        else:  # the panel's upper part: wheel down shows what lies below
            self.ui.panel_scroll = max(0, self.ui.panel_scroll - round(notches) * 40)

    def unit_at(self, w: tuple[float, float]) -> str | None:
        """The living unit whose base is under world point ``w`` (nearest centre first)."""
        slack = PICK_PX / self.camera.scale
        best: tuple[float, str] | None = None
        for u in self.view.units():
            d = math.dist(u.pos, w)
            if d <= max(u.base, slack) and (best is None or d < best[0]):
                best = (d, u.id)
        return best[1] if best else None

    # ------------------------------------------------------------------ clicks
    def _left_click(self, pos: tuple[int, int]) -> Any:
        button = self.renderer.panel.button_at(pos)
        if button is not None:
            kind, arg = button.action
            if kind == "option":
                return self.choose(int(arg))
            return None
        if not self.camera.in_viewport(*pos):
            return None
        w = self.camera.screen_to_world(*pos)
        unit = self.unit_at(w)
        d = self.my_decision()
        ui = self.ui
        if d is None:
            if unit is not None:
                ui.selected = unit
            return None
        if ui.armed is not None:
            return self.pick_point(ui.armed, w)
        if unit is not None:
            if d.kind == "turn" and unit in self.view.enemies(d.unit):
                return self.attack(unit)
            ui.selected = unit
            return None
        if d.kind == "turn":
            idx = _index(d, lambda o: type(o.command).__name__ == "Move")
            if idx is None:
                ui.say(f"{d.unit} cannot move now", error=True)
                return None
            return self.pick_point(idx, w)
        spatial = [i for i, o in enumerate(d.options) if o.point_field is not None and o.region is not None]
        if len(spatial) == 1:
            return self.pick_point(spatial[0], w)
        if spatial:
            ui.say("choose one of the options first (number keys or the panel), then click", error=True)
        return None

    def _face_towards(self, pos: tuple[int, int]) -> Any:
        d = self.my_decision()
        if d is None or not self.camera.in_viewport(*pos):
            return None
        idx = _index(d, lambda o: isinstance(o.command, Face))
        if idx is None:
            self.ui.say(f"{d.unit} cannot turn now", error=True)
            return None
        return self.pick_point(idx, self.camera.screen_to_world(*pos))

    # ------------------------------------------------------------------ choices
    def choose(self, idx: int) -> Any:
        """Choose option ``idx`` of the pending decision: its command, or arm it if it needs a point."""
        d = self.my_decision()
        if d is None or not 0 <= idx < len(d.options):
            return None
        opt = d.options[idx]
        if opt.point_field is None:
            self.ui.reset_decision()
            return opt.command
        self.ui.armed = idx
        self.ui.attack_menu = None
        if opt.region is None:
            where = "click the direction"
        elif any(s.option == idx and s.lines for s in self.renderer.scene.regions(self.view.pending)):
            where = "click on or next to the drawn arc"  # a thin region, drawn as a band
        else:
            where = "click a point in the drawn region"
        self.ui.say(f"{opt.label}: {where} (Esc cancels)")
        self._dirty = True
        return None

    def pick_point(self, idx: int, w: tuple[float, float]) -> Any:
        """Answer point option ``idx`` with the world point ``w`` (snapped if near its region)."""
        d = self.my_decision()
        if d is None:
            return None
        opt = d.options[idx]
        me = self.view.unit(d.unit).pos
        if opt.region is None:  # a direction, e.g. Face.degrees
            deg = math.degrees(math.atan2(w[1] - me[1], w[0] - me[0])) % 360.0
            value: Any = round(deg, FACE_DECIMALS) % 360.0
            why = matches(opt, opt.with_point(value))
        else:
            value, why = resolve_point(opt, w, me, SNAP_PX / self.camera.scale)
        if why is not None or value is None:
            self.ui.say(f"{opt.label}: {why}", error=True)
            return None
        self.ui.reset_decision()
        self.ui.say("")
        return opt.with_point(value)

    def attack(self, target: str) -> Any:
        """Attack ``target``: its only attack option, or pin it (its attacks stay listed in the
        panel with their Ctrl keys) when there are several."""
        d = self.my_decision()
        if d is None:
            return None
        opts = attack_rows(d, target)
        self.ui.target = target
        if not opts:
            self.ui.say(
                f"{d.unit} cannot attack {target}: {why_no_attack(self.view, d, d.unit, target)}", error=True
            )
            return None
        if len(opts) == 1:
            return self.choose(opts[0])
        self.ui.attack_menu = target
        self.ui.say(
            f"{len(opts)} ways to attack {target}: Ctrl + the weapon's number, or click a row (Esc: unpin)"
        )
        return None

    def attack_with(self, weapon_index: int) -> Any:
        """Ctrl + digit: attack the pinned (else the targeted) enemy with the attacker's
        ``weapon_index``-th weapon (0-based, the order of its sheet)."""
        d = self.my_decision()
        if d is None or d.kind != "turn":
            return None
        target = self.ui.attack_menu or self.ui.target
        if target is None or target not in self.view.enemies(d.unit):
            self.ui.say(
                "point at an enemy first (hover or click it), then Ctrl + the weapon's number", error=True
            )
            return None
        weapons = self.view.sheet(d.unit).weapons
        if not 0 <= weapon_index < len(weapons):
            self.ui.say(f"{d.unit} has no weapon {weapon_index + 1}", error=True)
            return None
        name = weapons[weapon_index].name
        for i in attack_rows(d, target):
            if getattr(d.options[i].command, "weapon", None) == name:
                return self.choose(i)
        self.ui.say(
            f"{d.unit} cannot attack {target} with {name}: {why_no_attack(self.view, d, d.unit, target)}",
            error=True,
        )
        return None

    def _posture(self, step: int) -> Any:
        d = self.my_decision()
        if d is None:
            return None
        here = _POSTURES.index(self.view.unit(d.unit).posture)
        offered = {
            o.command.posture: i for i, o in enumerate(d.options) if isinstance(o.command, ChangePosture)
        }
        k = here + step
        while 0 <= k < len(_POSTURES):
            if _POSTURES[k] in offered:
                return self.choose(offered[_POSTURES[k]])
            k += step
        self.ui.say(
            f"{d.unit} cannot go {'up' if step < 0 else 'down'} from {_POSTURES[here]} now", error=True
        )
        return None

    # ------------------------------------------------------------------ keys
    def _key(self, key: int, mod: int = 0) -> Any:
        ui = self.ui
        if key in self._overlay_keys:
            ui.toggle(self._overlay_keys[key])
            self._dirty = True
            return None
        if key in _DIGITS and mod & pygame.KMOD_CTRL:
            self._dirty = True
            return self.attack_with(_DIGITS[key])
        if key in _DIGITS:
            d = self.my_decision()
            rows = menu_rows(d, ui)
            r = _DIGITS[key] + (DIGIT_ROWS if mod & pygame.KMOD_SHIFT else 0)
            if d is not None and r < min(len(rows), KEYED_ROWS):
                return self.choose(rows[r])
            return None
        action = self._keys.get(key)
        if action is None:
            return None
        d = self.my_decision()
        cam = self.camera
        if action == "end_turn":
            idx = _index(d, lambda o: isinstance(o.command, EndTurn)) if d else None
            return self.choose(idx) if idx is not None else None
        if action in ("arm_step", "arm_face"):
            kind = Step if action == "arm_step" else Face
            idx = _index(d, lambda o: isinstance(o.command, kind)) if d else None
            if idx is None:
                ui.say(f"no {kind.__name__.lower()} available now", error=True)
                return None
            return self.choose(idx)
        if action in ("posture_up", "posture_down"):
            return self._posture(-1 if action == "posture_up" else 1)
        if action == "next_unit":
            ids = [u.id for u in self.view.units()]
            if ids:
                k = ids.index(ui.selected) + 1 if ui.selected in ids else 0
                ui.selected = ids[k % len(ids)]
        elif action == "tape":
            ui.tape_on = not ui.tape_on
            ui.tape = None
            ui.say("tape: drag from a unit or a point (L: put it away)" if ui.tape_on else "")
        elif action == "cancel":
            if ui.tape_on:
                ui.tape_on, ui.tape = False, None
                ui.say("")
            elif ui.show_help:
                ui.show_help = False
            elif ui.show_summary:
                ui.show_summary = False
            elif ui.armed is not None or ui.attack_menu is not None:
                ui.reset_decision()
                ui.say("")
            else:
                ui.target = None
        elif action == "help":
            ui.show_help = not ui.show_help
        elif action == "summary":
            ui.show_summary = not ui.show_summary
        elif action == "fit":
            cam.fit()
        elif action == "pause_ai":
            ui.ai_paused = not ui.ai_paused
            ui.say("AI paused (N: one decision)" if ui.ai_paused else "AI resumed", ttl=120)
        elif action == "ai_step":
            ui.ai_steps += 1
        elif action in ("save", "load", "undo", "difficulty"):
            ui.request = action
        elif action.startswith("pan_"):
            dx, dy = {"pan_left": (1, 0), "pan_right": (-1, 0), "pan_up": (0, 1), "pan_down": (0, -1)}[action]
            cam.pan(dx * PAN_STEP, dy * PAN_STEP)
        elif action in ("zoom_in", "zoom_out"):
            vx, vy, vw, vh = cam.viewport
            cam.zoom_at(vx + vw / 2, vy + vh / 2, ZOOM_STEP if action == "zoom_in" else 1 / ZOOM_STEP)
        self._dirty = True
        return None


def _index(decision: Decision | None, pred: Callable[[Option], bool]) -> int | None:
    if decision is None:
        return None
    for i, o in enumerate(decision.options):
        if pred(o):
            return i
    return None
