"""Drawing of the scenario editor over the play window's frame: handles, drafts, problems, panel.

Contract: :func:`draw_map` draws, over the map the :class:`~game.render.renderer.Renderer`
drew from the rebuilt match, what only the editor knows: the items left out of the match
because they have problems (outlined in the warning colour), the selection with its facing
handle or its corners, the drag in progress, the obstacle being drawn, and every checker
problem at the unit or obstacle it concerns. :func:`draw_panel` replaces the side panel: the
file, the selection and its values with their keys, cover from the selected unit to each enemy
and back (the engine's :meth:`~game.engine.view.MatchView.sight`, as the play window), the
problems, and the keys.
"""

from __future__ import annotations

from typing import Any

import pygame

from game.engine.view import MatchView
from game.render import colors
from game.render.camera import Camera
from game.render.editor.model import EditModel, number, unit_at
from game.render.editor.state import CTRL_KEYS, EDIT_KEYS, EditState, facing_handle
from game.render.text import Text

Point = tuple[float, float]

#: Problems drawn on the map at most (all are listed in the panel).
MAX_MARKS = 12
#: Characters of a problem drawn on the map (the panel has the whole text).
MARK_CHARS = 70
PAD = 10


def _centre(model: EditModel, item: str) -> Point | None:
    section, _ = model.find(item)
    if section == "units":
        return unit_at(model.get(item))
    poly = model.polygon(item)
    if not poly:
        return None
    return (sum(x for x, _ in poly) / len(poly), sum(y for _, y in poly) / len(poly))


def _poly_px(cam: Camera, pts: list[Point]) -> list[tuple[int, int]]:
    return [cam.to_px(x, y) for x, y in pts]


def _unit_px(cam: Camera, unit: dict[str, Any]) -> int:
    return max(5, round(cam.length(number(unit, "base", 0.5))))


def draw_map(
    surface: pygame.Surface,
    text: Text,
    cam: Camera,
    model: EditModel,
    state: EditState,
    dropped: tuple[str, ...],
) -> None:
    """The editor's marks over the map (the caller clips to the map area)."""
    sides = model.sides()
    for item in dropped:
        if item not in model.ids("units") and item not in model.ids("obstacles"):
            continue
        section, _ = model.find(item)
        if section == "obstacles" and len(model.polygon(item)) >= 2:
            pygame.draw.lines(surface, colors.WARNING, True, _poly_px(cam, model.polygon(item)), 2)
        elif section == "units" and _centre(model, item) is not None:
            u = model.get(item)
            c = cam.to_px(*_centre(model, item))  # type: ignore[misc]
            color = colors.side_color(str(u.get("side")), sides)
            pygame.draw.circle(surface, color, c, _unit_px(cam, u), 2)
            text.draw(
                surface, str(item), (c[0], c[1] - _unit_px(cam, u) - 2), 13, colors.WARNING, "midbottom"
            )
    _selection(surface, cam, model, state)
    _drag(surface, cam, model, state)
    if state.mode == "polygon" and state.draft:
        pts = _poly_px(cam, state.draft)
        if state.hover is not None:
            pts.append(cam.to_px(*state.hover))
        if len(pts) >= 2:
            pygame.draw.lines(surface, colors.AP_FULL, False, pts, 2)
        for p in pts[: len(state.draft)]:
            pygame.draw.circle(surface, colors.AP_FULL, p, 4)
    _problems(surface, text, cam, model)


def _selection(surface: pygame.Surface, cam: Camera, model: EditModel, state: EditState) -> None:
    if state.selected is None:
        return
    section, _ = model.find(state.selected)
    if section == "units":
        u = model.get(state.selected)
        centre = _centre(model, state.selected)
        if centre is None:
            return
        c = cam.to_px(*centre)
        pygame.draw.circle(surface, colors.SELECTED_RING, c, _unit_px(cam, u) + 4, 2)
        handle = facing_handle(u)
        if handle is not None:
            h = cam.to_px(*handle)
            pygame.draw.line(surface, colors.SELECTED_RING, c, h, 2)
            pygame.draw.circle(surface, colors.SELECTED_RING, h, 5)
        return
    pts = _poly_px(cam, model.polygon(state.selected))
    if len(pts) >= 2:
        pygame.draw.lines(surface, colors.SELECTED_RING, True, pts, 2)
    for k, p in enumerate(pts):
        rect = pygame.Rect(0, 0, 9, 9)
        rect.center = p
        hot = k == state.vertex
        pygame.draw.rect(surface, colors.AP_FULL if hot else colors.PANEL, rect)
        pygame.draw.rect(surface, colors.SELECTED_RING, rect, 1)


def _drag(surface: pygame.Surface, cam: Camera, model: EditModel, state: EditState) -> None:
    """The edit a drag will make, shown while the button is held."""
    d = state.drag
    if d is None or not d.moved:
        return
    dx, dy = d.now[0] - d.start[0], d.now[1] - d.start[1]
    u = model.get(d.item)
    at = unit_at(u) if d.kind in ("unit", "face") else None
    if at is not None and d.kind == "unit":
        c = cam.to_px(at[0] + dx, at[1] + dy)
        pygame.draw.line(surface, colors.PATH, cam.to_px(*at), c, 1)
        pygame.draw.circle(surface, colors.PATH, c, _unit_px(cam, u), 2)
    elif at is not None:
        pygame.draw.line(surface, colors.PATH, cam.to_px(*at), cam.to_px(*d.now), 2)
    elif d.kind in ("obstacle", "vertex"):
        pts = model.polygon(d.item)
        if d.kind == "obstacle":
            pts = [(x + dx, y + dy) for x, y in pts]
        elif d.vertex is not None:
            pts[d.vertex] = d.now
        pygame.draw.lines(surface, colors.PATH, True, _poly_px(cam, pts), 2)


def _problems(surface: pygame.Surface, text: Text, cam: Camera, model: EditModel) -> None:
    """Each problem at its unit or obstacle: a warning badge and the first words."""
    seen: dict[str, int] = {}
    for item, message in model.check().problems:
        if item is None or len(seen) >= MAX_MARKS:
            continue
        seen[item] = seen.get(item, 0) + 1
        if seen[item] > 1:
            continue
        centre = _centre(model, item)
        if centre is None:
            continue
        x, y = cam.to_px(*centre)
        more = sum(1 for i, _ in model.check().problems if i == item) - 1
        line = message if len(message) <= MARK_CHARS else message[: MARK_CHARS - 1] + "…"
        if more:
            line += f" (+{more} more)"
        img = text.render(line, 13, colors.WARNING)
        box = img.get_rect(midleft=(x + 14, y)).inflate(8, 4)
        shade = pygame.Surface(box.size, pygame.SRCALPHA)
        shade.fill((16, 18, 22, 215))
        surface.blit(shade, box)
        surface.blit(img, img.get_rect(center=box.center))
        pygame.draw.circle(surface, colors.WARNING, (x, y), 8)
        text.draw(surface, "!", (x, y), 13, colors.PANEL, "center")


def key_rows() -> list[tuple[str, str]]:
    """(keys, what they do) for the panel and the docs."""
    labels = {"escape": "Esc", "delete": "Delete", "tab": "Tab", "home": "Home"}
    rows: list[tuple[str, str]] = []
    for name, (action, help_text) in EDIT_KEYS.items():
        label = labels.get(name, name.upper())
        if rows and rows[-1][1] == help_text:
            continue
        if action == "delete" and name == "x":
            rows[-1] = (rows[-1][0] + ", X", rows[-1][1])
            continue
        rows.append((label, help_text))
    rows += [(f"Ctrl+{k.upper()}", h) for k, (_, h) in CTRL_KEYS.items()]
    rows.append(("mouse", "click: select; drag: move a unit, an obstacle, a corner, a facing handle"))
    rows.append(("", "right click: face the selected unit there; right drag: pan; wheel: zoom"))
    return rows


def _cover_lines(view: MatchView, uid: str) -> list[str]:
    """Cover between ``uid`` and each enemy, both ways, from the engine's sight query."""
    alive = {u.id for u in view.units()}
    if uid not in alive:
        return []
    out = []
    for e in view.enemies(uid):
        there, back = view.sight(uid, e), view.sight(e, uid)
        if not there.visible and not back.visible:
            out.append(f"{e}: out of sight both ways")
            continue
        a = f"{round(100 * there.cover_fraction)} % ({there.cover})" if there.visible else "unseen"
        b = f"{round(100 * back.cover_fraction)} % ({back.cover})" if back.visible else "unseen"
        out.append(f"{e}, {there.distance:.1f} in: {a}; {b}")
    return out


def draw_panel(
    surface: pygame.Surface,
    rect: pygame.Rect,
    text: Text,
    model: EditModel,
    state: EditState,
    view: MatchView,
    stale: bool,
) -> None:
    """The editor's side panel in ``rect``."""
    surface.fill(colors.PANEL, rect)
    x, w = rect.x + PAD, rect.w - 2 * PAD
    y = rect.y + PAD

    def line(s: str, size: int = 15, color: colors.RGB = colors.PANEL_TEXT, indent: int = 0) -> None:
        nonlocal y
        for k, part in enumerate(text.wrap(s, size, w - indent - 8)):
            if y > rect.bottom - 18:
                return
            text.draw(surface, part, (x + indent + (8 if k else 0), y), size, color)
            y += size + 2

    line(f"Editing {model.out.name}", 20, colors.PANEL_ACCENT)
    line("unsaved changes (Ctrl+S saves)" if model.dirty else "no unsaved changes", 15, colors.PANEL_DIM)
    if state.mode is not None:
        what = {"place": "click to place a new unit", "move": f"click where {state.selected} goes"}
        line(what.get(state.mode, f"drawing an obstacle: {len(state.draft)} corners"), 15, colors.AP_FULL)
    y += 6
    if state.selected is not None:
        _selection_lines(line, model, state, view)
    else:
        line("Click a unit or an obstacle to edit it.", 15, colors.PANEL_DIM)
    y += 6
    problems = model.check().problems
    if stale:
        line("The map shows the last valid state: fix the problems below.", 15, colors.WARNING)
    if problems:
        line(
            f"{len(problems)} problem{'s' if len(problems) != 1 else ''} (saving is allowed; "
            "skirmish check refuses the file until fixed):",
            15,
            colors.WARNING,
        )
        for _, message in problems[:8]:
            line(message, 13, colors.WARNING, 8)
        if len(problems) > 8:
            line(f"... and {len(problems) - 8} more", 13, colors.WARNING, 8)
    else:
        line("No problems: skirmish check accepts this scenario.", 15, colors.HEALTH_OK)
    y += 6
    line("Keys", 17, colors.PANEL_ACCENT)
    for keys, does in key_rows():
        line(f"{keys}  {does}" if keys else does, 13, colors.PANEL_TEXT if keys else colors.PANEL_DIM)


def _selection_lines(line: Any, model: EditModel, state: EditState, view: MatchView) -> None:
    item = state.selected
    assert item is not None
    section, _ = model.find(item)
    d = model.get(item)
    if section == "units":
        at = d.get("at")
        line(f"Unit {item}", 17, colors.PANEL_ACCENT)
        line(f"at {at}, facing {d.get('facing', 0)} degrees ([ ] turn, M or drag: move)")
        line(f"S side: {d.get('side')}    P posture: {d.get('posture', 'standing')}")
        line(f"F profile: {d.get('profile') or 'the ruleset standard trooper'}")
        cover = _cover_lines(view, item)
        if cover:
            line(f"Cover of each enemy from {item}; of {item} from it:", 15, colors.PANEL_ACCENT)
            for s in cover:
                line(s, 13, colors.PANEL_TEXT, 8)
        return
    poly = model.polygon(item)
    line(f"Obstacle {item}", 17, colors.PANEL_ACCENT)
    h = d.get("height", "low")
    line(f"height {h} ({model.height_value(item):g} of a standing man): 1 low, 2 high, , . step")
    corner = (
        f", corner {state.vertex + 1} selected (Delete, I inserts after)" if state.vertex is not None else ""
    )
    line(f"{len(poly)} corners{corner}")
