"""What the scenario editor remembers between frames, its key table, and its picking geometry.

Contract (no pygame): :class:`EditState` is the editor's selection, mode, drawing in progress
and drag; :data:`EDIT_KEYS` / :data:`CTRL_KEYS` are the key table (pygame key name -> action,
help text) that :mod:`game.render.editor.input` acts on and :mod:`game.render.editor.draw`
lists; :func:`facing_handle` and :func:`point_in_polygon` are the table geometry both use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from game.render.editor.model import HEIGHT_STEP, number, unit_at

Point = tuple[float, float]

#: pygame key name -> (action, help text); Ctrl+S / Ctrl+Z / Ctrl+Y are in :data:`CTRL_KEYS`.
EDIT_KEYS: dict[str, tuple[str, str]] = {
    "n": (
        "new_unit",
        "new unit: click where (side and profile of the selected unit; "
        "none selected: the side with the fewest units)",
    ),
    "o": ("new_obstacle", "new obstacle: click its corners, Enter closes it, Esc cancels"),
    "m": ("move", "move the selected unit or obstacle: click where (or drag it)"),
    "[": ("turn_left", "turn the selected unit 15 degrees left (right click: face a point)"),
    "]": ("turn_right", "turn the selected unit 15 degrees right"),
    "s": ("side", "next side of the selected unit"),
    "p": ("posture", "next posture of the selected unit"),
    "f": ("profile", "next profile of the selected unit (Shift: previous)"),
    "1": ("low", "selected obstacle: height low (half a man)"),
    "2": ("high", "selected obstacle: height high (hides a man)"),
    ",": ("lower", f"selected obstacle: {HEIGHT_STEP:g} lower (a number)"),
    ".": ("higher", f"selected obstacle: {HEIGHT_STEP:g} higher (a number)"),
    "i": ("insert", "insert a corner after the selected corner (drag corners to move them)"),
    "delete": ("delete", "delete the selected corner, else the selected unit or obstacle"),
    "x": ("delete", "delete (as Delete)"),
    "tab": ("next", "select the next unit"),
    "escape": ("cancel", "cancel the drawing or placing / clear the selection"),
    "home": ("fit", "fit the map to the window"),
    "v": ("sight", "sight fans and cover from the selected unit on / off"),
    "a": ("arcs", "facing arcs on / off"),
    "t": ("threat", "threat map on / off"),
    "g": ("grid", "grid on / off"),
}
#: Ctrl + key name -> (action, help text).
CTRL_KEYS: dict[str, tuple[str, str]] = {
    "s": ("save", "save (problems are listed, the file is still written)"),
    "z": ("undo", "undo (Ctrl+Shift+Z or Ctrl+Y: redo)"),
    "y": ("redo", "redo"),
}
#: The facing handle sits this many inches beyond the base's edge.
HANDLE_IN = 0.6


@dataclass
class Drag:
    """A left drag in progress: what (``unit``, ``vertex``, ``obstacle``, ``face``), which item
    (and corner), where it started and where the mouse is (inches)."""

    kind: str
    item: str
    start: Point
    now: Point
    vertex: int | None = None
    moved: bool = False
    start_px: tuple[int, int] = (0, 0)


@dataclass
class EditState:
    """What the editor remembers between frames.

    Attributes:
        selected: the selected unit or obstacle id.
        vertex: the selected corner of the selected obstacle.
        mode: None, ``place`` (a click places a new unit), ``move`` (a click moves the
            selection) or ``polygon`` (clicks add corners of a new obstacle).
        draft: the corners clicked so far in ``polygon`` mode.
        drag: the left drag in progress.
        hover: the table point under the mouse.
        pan_from: where a right / middle press started (pixels), and whether it moved.
    """

    selected: str | None = None
    vertex: int | None = None
    mode: str | None = None
    draft: list[Point] = field(default_factory=list)
    drag: Drag | None = None
    hover: Point | None = None
    pan_from: tuple[int, int, int, bool] | None = None


def facing_handle(unit: dict[str, Any]) -> Point | None:
    """The table point of a unit's facing handle (ahead of its base); None without a position."""
    at = unit_at(unit)
    if at is None:
        return None
    r = number(unit, "base", 0.5) + HANDLE_IN
    a = math.radians(number(unit, "facing", 0))
    return (at[0] + r * math.cos(a), at[1] + r * math.sin(a))


def point_in_polygon(p: Point, poly: list[Point]) -> bool:
    """Even-odd rule: whether ``p`` lies inside the ring ``poly``."""
    x, y = p
    inside = False
    for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1]):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside
