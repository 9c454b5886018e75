"""Input of the scenario editor: pygame events -> edits of the :class:`EditModel` and the view.

Contract: :class:`EditInput` turns each event into at most one edit (through the model's
methods, so each is one undo step) or a change of the :class:`EditState` and the camera; a
refused edit leaves its reason on the message line; the keys are those of
:data:`~game.render.editor.state.EDIT_KEYS` and :data:`~game.render.editor.state.CTRL_KEYS`. A drag is
shown while it lasts (:attr:`EditState.drag`) and becomes one edit when the button is released;
a left press and release without moving is a click (select, or place in a placing mode).
"""

from __future__ import annotations

import math
from typing import Any

import pygame

from game.core.errors import SkirmishError
from game.render.camera import Camera
from game.render.editor.model import HEIGHT_STEP, POSTURES, EditModel, number, unit_at
from game.render.editor.state import CTRL_KEYS, EDIT_KEYS, Drag, EditState, facing_handle, point_in_polygon
from game.render.ui import UiState

Point = tuple[float, float]

#: The overlay each overlay action toggles.
_OVERLAY_ACTIONS = {"sight": "sight", "arcs": "arcs", "threat": "threat", "grid": "grid"}
#: A press this close (pixels) to a unit's base, a corner or the facing handle picks it.
PICK_PX = 8.0
#: Pixels the mouse must travel with a button down before it is a drag.
DRAG_PX = 4
#: Facing step of ``[`` and ``]``, degrees.
TURN_STEP = 15
PAN_STEP = 48
ZOOM_STEP = 1.2


class EditInput:
    """Translates events for the editor.

    Args:
        model: the scenario being edited.
        state: the editor's state.
        ui: the window's UI state (overlays, message line, request).
        camera: returns the renderer's camera (it is replaced on a new map).
    """

    def __init__(self, model: EditModel, state: EditState, ui: UiState, camera: Any) -> None:
        self.model = model
        self.state = state
        self.ui = ui
        self._camera = camera

    @property
    def cam(self) -> Camera:
        cam: Camera = self._camera()
        return cam

    # ------------------------------------------------------------------ picking
    def _near(self, a: Point, b: Point, slack_in: float = 0.0) -> bool:
        return math.dist(a, b) <= slack_in + PICK_PX / self.cam.scale

    def pick(self, p: Point) -> tuple[str, str, int | None] | None:
        """(kind, id, corner) under table point ``p``: the selected unit's facing handle, a corner
        of the selected obstacle, a unit, an obstacle (topmost last drawn first)."""
        st, m = self.state, self.model
        if st.selected is not None:
            section, _ = m.find(st.selected)
            handle = facing_handle(m.get(st.selected)) if section == "units" else None
            if handle is not None and self._near(p, handle):
                return ("face", st.selected, None)
            if section == "obstacles":
                for k, v in enumerate(m.polygon(st.selected)):
                    if self._near(p, v):
                        return ("vertex", st.selected, k)
        for it in reversed(m.items["units"]):
            u = it.data
            at = unit_at(u)
            if at is not None and self._near(p, at, number(u, "base", 0.5)):
                return ("unit", str(u["id"]), None)
        for it in reversed(m.items["obstacles"]):
            oid = str(it.data.get("id"))
            if point_in_polygon(p, m.polygon(oid)):
                return ("obstacle", oid, None)
        return None

    # ------------------------------------------------------------------ events
    def handle(self, event: Any) -> None:
        """Apply one pygame event; a refused edit is shown on the message line."""
        try:
            self._handle(event)
        except SkirmishError as e:
            self.ui.say(str(e), error=True)

    def _handle(self, event: Any) -> None:
        t = event.type
        if t == pygame.KEYDOWN:
            self._key(event)
        elif t == pygame.MOUSEBUTTONDOWN:
            self._press(event)
        elif t == pygame.MOUSEMOTION:
            self._motion(event)
        elif t == pygame.MOUSEBUTTONUP:
            self._release(event)
        elif t == pygame.MOUSEWHEEL:
            x, y = pygame.mouse.get_pos()
            if self.cam.in_viewport(x, y):
                self.cam.zoom_at(x, y, ZOOM_STEP**event.y)

    def _world(self, pos: tuple[int, int]) -> Point | None:
        if not self.cam.in_viewport(*pos):
            return None
        return self.cam.screen_to_world(*pos)

    def _press(self, event: Any) -> None:
        st = self.state
        if event.button in (2, 3):
            st.pan_from = (event.pos[0], event.pos[1], event.button, False)
            return
        if event.button != 1:
            return
        p = self._world(event.pos)
        if p is None:
            return
        st.hover = p
        if st.mode == "polygon":
            st.draft.append(p)
            self.ui.say(f"corner {len(st.draft)}: Enter closes the obstacle, Esc cancels")
            return
        if st.mode == "place":
            self._place(p)
            return
        if st.mode == "move" and st.selected is not None:
            self._move_to(st.selected, p)
            st.mode = None
            return
        hit = self.pick(p)
        if hit is None:
            st.selected, st.vertex = None, None
            return
        kind, item, vertex = hit
        if kind in ("unit", "obstacle") and item != st.selected:
            st.vertex = None
        st.selected = item
        if kind == "vertex":
            st.vertex = vertex
        st.drag = Drag(kind, item, p, p, vertex, start_px=event.pos)

    def _motion(self, event: Any) -> None:
        st = self.state
        st.hover = self._world(event.pos)
        if st.pan_from is not None:
            x0, y0, button, _ = st.pan_from
            if abs(event.pos[0] - x0) + abs(event.pos[1] - y0) > DRAG_PX:
                st.pan_from = (x0, y0, button, True)
            if st.pan_from[3]:
                self.cam.pan(*event.rel)
            return
        d = st.drag
        if d is not None and st.hover is not None:
            d.now = st.hover
            if abs(event.pos[0] - d.start_px[0]) + abs(event.pos[1] - d.start_px[1]) > DRAG_PX:
                d.moved = True

    def _release(self, event: Any) -> None:
        st = self.state
        if event.button in (2, 3) and st.pan_from is not None:
            moved = st.pan_from[3]
            st.pan_from = None
            p = self._world(event.pos)
            if event.button == 3 and not moved and p is not None:
                self._face_point(p)
            return
        d, st.drag = st.drag, None
        if event.button != 1 or d is None or not d.moved:
            return
        m = self.model
        dx, dy = d.now[0] - d.start[0], d.now[1] - d.start[1]
        if d.kind == "unit":
            at = unit_at(m.get(d.item))
            if at is not None:
                m.move_unit(d.item, (at[0] + dx, at[1] + dy))
        elif d.kind == "obstacle":
            m.move_obstacle(d.item, dx, dy)
        elif d.kind == "vertex" and d.vertex is not None:
            m.move_vertex(d.item, d.vertex, d.now)
        elif d.kind == "face":
            at = unit_at(m.get(d.item))
            if at is not None:
                m.face(d.item, math.degrees(math.atan2(d.now[1] - at[1], d.now[0] - at[0])))

    # ------------------------------------------------------------------ edits
    def _selected_unit(self) -> dict[str, Any] | None:
        st = self.state
        if st.selected is None or self.model.find(st.selected)[0] != "units":
            return None
        return self.model.get(st.selected)

    def _selected_obstacle(self) -> str | None:
        st = self.state
        if st.selected is None or self.model.find(st.selected)[0] != "obstacles":
            return None
        return st.selected

    def _place(self, p: Point) -> None:
        m, st = self.model, self.state
        like = self._selected_unit()
        if like is not None:
            side = str(like["side"])
        else:  # nothing selected: the side with the fewest units (red, then blue, in a new scenario)
            choices = m.side_choices()[: max(2, len(m.sides()))]
            count = {c: sum(1 for it in m.items["units"] if it.data.get("side") == c) for c in choices}
            side = min(choices, key=lambda c: count[c])
        profile = like.get("profile") if like is not None else None
        facing = number(like, "facing", 0) if like is not None else 0
        st.selected = m.add_unit(p, side, profile, facing)
        st.mode = None
        self.ui.say(f"placed {st.selected}")

    def _move_to(self, item: str, p: Point) -> None:
        m = self.model
        if m.find(item)[0] == "units":
            m.move_unit(item, p)
            return
        poly = m.polygon(item)
        cx, cy = sum(x for x, _ in poly) / len(poly), sum(y for _, y in poly) / len(poly)
        m.move_obstacle(item, p[0] - cx, p[1] - cy)

    def _face_point(self, p: Point) -> None:
        u = self._selected_unit()
        if u is None:
            return
        at = unit_at(u)
        if at is None:
            return
        x, y = at
        if (p[0], p[1]) != (x, y):
            self.model.face(str(u["id"]), math.degrees(math.atan2(p[1] - y, p[0] - x)))

    def _key(self, event: Any) -> None:
        name = pygame.key.name(event.key)
        mods = getattr(event, "mod", 0)
        shift = bool(mods & pygame.KMOD_SHIFT)
        if mods & pygame.KMOD_CTRL:
            action = CTRL_KEYS.get(name, ("", ""))[0]
            if action == "undo" and shift:
                action = "redo"
            if action:
                self._ctrl(action)
            return
        st = self.state
        if st.mode == "polygon" and name in ("return", "enter", "escape", "backspace"):
            self._draft_key(name)
            return
        if name in ("enter", "keypad enter"):
            name = "return"
        action = EDIT_KEYS.get(name, ("", ""))[0]
        if name in ("left", "right", "up", "down"):
            dx, dy = {"left": (1, 0), "right": (-1, 0), "up": (0, 1), "down": (0, -1)}[name]
            self.cam.pan(dx * PAN_STEP, dy * PAN_STEP)
        elif name in ("=", "+", "-"):
            vx, vy, vw, vh = self.cam.viewport
            self.cam.zoom_at(vx + vw / 2, vy + vh / 2, ZOOM_STEP if name != "-" else 1 / ZOOM_STEP)
        elif action in _OVERLAY_ACTIONS:
            self.ui.toggle(_OVERLAY_ACTIONS[action])
        elif action:
            getattr(self, f"_do_{action}")(shift)

    def _ctrl(self, action: str) -> None:
        m = self.model
        if action == "save":
            self.ui.request = "save"
        elif action == "undo":
            self.ui.say("undone" if m.undo() else "nothing to undo", error=False)
        elif action == "redo":
            self.ui.say("redone" if m.redo() else "nothing to redo", error=False)
        self._forget_missing()

    def _forget_missing(self) -> None:
        st = self.state
        known = set(self.model.ids("units")) | set(self.model.ids("obstacles"))
        if st.selected not in known:
            st.selected, st.vertex = None, None
        elif (
            st.vertex is not None
            and self.model.find(st.selected)[0] == "obstacles"
            and st.vertex >= len(self.model.polygon(st.selected))
        ):
            st.vertex = None

    def _draft_key(self, name: str) -> None:
        st = self.state
        if name == "backspace":
            if st.draft:
                st.draft.pop()
            return
        if name == "escape":
            st.mode, st.draft = None, []
            self.ui.say("drawing cancelled")
            return
        if len(st.draft) < 3:
            self.ui.say(f"an obstacle needs at least 3 corners, got {len(st.draft)}", error=True)
            return
        st.selected = self.model.add_obstacle(st.draft)
        st.vertex = None
        st.mode, st.draft = None, []
        self.ui.say(f"added {st.selected} (1 / 2: low / high, , and .: lower / higher)")

    # one method per action of EDIT_KEYS (shift: reverse where it means something)
    def _do_new_unit(self, shift: bool) -> None:
        self.state.mode = "place"
        self.ui.say("click where the new unit stands (Esc: cancel)")

    def _do_new_obstacle(self, shift: bool) -> None:
        self.state.mode, self.state.draft = "polygon", []
        self.ui.say("click the corners of the new obstacle; Enter closes it, Esc cancels")

    def _do_move(self, shift: bool) -> None:
        if self.state.selected is None:
            self.ui.say("select a unit or an obstacle first", error=True)
            return
        self.state.mode = "move"
        self.ui.say(f"click where {self.state.selected} goes (Esc: cancel)")

    def _turn(self, degrees: float) -> None:
        u = self._selected_unit()
        if u is None:
            self.ui.say("select a unit first", error=True)
            return
        self.model.face(str(u["id"]), number(u, "facing", 0) + degrees)

    def _do_turn_left(self, shift: bool) -> None:
        self._turn(-TURN_STEP)

    def _do_turn_right(self, shift: bool) -> None:
        self._turn(TURN_STEP)

    def _cycle(self, key: str, values: list[Any], shift: bool, default: Any) -> None:
        u = self._selected_unit()
        if u is None:
            self.ui.say("select a unit first", error=True)
            return
        cur = u.get(key, default)
        i = values.index(cur) if cur in values else -1
        nxt = values[(i + (-1 if shift else 1)) % len(values)]
        self.model.set_field(str(u["id"]), key, nxt)
        self.ui.say(f"{u['id']}: {key} {nxt}")

    def _do_side(self, shift: bool) -> None:
        self._cycle("side", self.model.side_choices(), shift, None)

    def _do_posture(self, shift: bool) -> None:
        self._cycle("posture", POSTURES, shift, POSTURES[0])

    def _do_profile(self, shift: bool) -> None:
        self._cycle("profile", self.model.profiles(), shift, None)

    def _height(self, value: str | float) -> None:
        oid = self._selected_obstacle()
        if oid is None:
            self.ui.say("select an obstacle first", error=True)
            return
        self.model.set_field(oid, "height", value)
        self.ui.say(f"{oid}: height {value}")

    def _do_low(self, shift: bool) -> None:
        self._height("low")

    def _do_high(self, shift: bool) -> None:
        self._height("high")

    def _step_height(self, step: float) -> None:
        oid = self._selected_obstacle()
        if oid is None:
            self.ui.say("select an obstacle first", error=True)
            return
        self._height(max(HEIGHT_STEP, round(self.model.height_value(oid) + step, 2)))

    def _do_lower(self, shift: bool) -> None:
        self._step_height(-HEIGHT_STEP)

    def _do_higher(self, shift: bool) -> None:
        self._step_height(HEIGHT_STEP)

    def _do_insert(self, shift: bool) -> None:
        oid, st = self._selected_obstacle(), self.state
        if oid is None:
            self.ui.say("select an obstacle first", error=True)
            return
        st.vertex = self.model.insert_vertex(oid, st.vertex if st.vertex is not None else 0)

    def _do_delete(self, shift: bool) -> None:
        st = self.state
        if st.selected is None:
            self.ui.say("nothing selected", error=True)
            return
        if st.vertex is not None and self._selected_obstacle() is not None:
            self.model.delete_vertex(st.selected, st.vertex)
            self.ui.say(f"{st.selected}: deleted corner {st.vertex + 1}")
            st.vertex = None
            return
        gone, st.selected, st.vertex = st.selected, None, None
        self.model.delete(gone)
        self.ui.say(f"deleted {gone}")

    def _do_next(self, shift: bool) -> None:
        ids = self.model.ids("units")
        if not ids:
            return
        st = self.state
        i = ids.index(st.selected) if st.selected in ids else -1
        st.selected, st.vertex = ids[(i + (-1 if shift else 1)) % len(ids)], None

    def _do_cancel(self, shift: bool) -> None:
        st = self.state
        if st.mode is not None:
            st.mode = None
            self.ui.say("")
        else:
            st.selected, st.vertex = None, None

    def _do_fit(self, shift: bool) -> None:
        self.cam.fit()
