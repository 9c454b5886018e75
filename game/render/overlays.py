"""Geometry overlays drawn over the map: sight fans, arcs, regions, silhouettes, paths, threat map.

Contract: drawing only. Each function takes the data it draws (sight facts, shapely regions,
profiles, arrays computed by :mod:`game.render.scene`) plus the :class:`Camera`, and draws in
screen space; translucent fills go onto ``fill`` (a per-pixel-alpha layer the renderer
blends where something was drawn: the fill functions return that area), lines and labels onto
``surface``. Nothing here reads or changes the match. The world-space geometry they draw
comes from :mod:`game.render.shapes` (pure).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pygame

from components.sight import Arc, SightFacts
from game.render import colors
from game.render.camera import Camera
from game.render.shapes import Ring, fan_polygon, region_rings
from game.render.text import Text

Point = tuple[float, float]


# ------------------------------------------------------------------ drawing
def _screen(camera: Camera, pts: Sequence[Point] | Ring) -> list[list[float]]:
    arr = camera.points_to_screen(np.asarray(pts, dtype=np.float64).reshape(-1, 2))
    out: list[list[float]] = arr.tolist()
    return out


def _grow(area: pygame.Rect | None, rect: pygame.Rect) -> pygame.Rect:
    return rect if area is None else area.union(rect)


def draw_fans(
    fill: pygame.Surface,
    surface: pygame.Surface,
    camera: Camera,
    origin: Point,
    fans: Iterable[tuple[SightFacts, Point, float]],
    highlight: str | None = None,
) -> pygame.Rect | None:
    """Sight fans from ``origin`` to each target, coloured by cover level; returns the filled area.

    Args:
        fill: translucent layer.
        surface: line layer.
        camera: world→screen transform.
        origin: the viewing unit's centre.
        fans: (facts, target centre, target base radius) per enemy.
        highlight: target whose fan is drawn stronger (the one under the cursor).
    """
    area: pygame.Rect | None = None
    for facts, tpos, tbase in fans:
        color = colors.COVER_COLORS[facts.cover]
        strong = facts.target == highlight
        poly = _screen(camera, fan_polygon(origin, tpos, tbase))
        if poly[1] != poly[2]:
            area = _grow(
                area, pygame.draw.polygon(fill, colors.with_alpha(color, 95 if strong else 45), poly)
            )
        a, t = camera.to_px(*origin), camera.to_px(*tpos)
        pygame.draw.line(surface, color, a, t, 3 if strong else 1)
    return area


def draw_sight_label(
    surface: pygame.Surface, text: Text, camera: Camera, origin: Point, facts: SightFacts, tpos: Point
) -> None:
    """Cover % and level at the middle of the sight line to the target."""
    mx, my = camera.world_to_screen((origin[0] + tpos[0]) / 2, (origin[1] + tpos[1]) / 2)
    label = f"{facts.cover} {facts.cover_fraction * 100:.0f}%" if facts.visible else "no line of sight"
    if facts.hidden:
        label += ", hidden"
    img = text.render(label, 16, colors.COVER_COLORS[facts.cover])
    box = img.get_rect(midbottom=(round(mx), round(my) - 5)).inflate(8, 4)
    pygame.draw.rect(surface, colors.PANEL, box, border_radius=3)
    surface.blit(img, img.get_rect(center=box.center))


def draw_rings(
    surface: pygame.Surface, camera: Camera, units: Iterable[tuple[Point, float]], color: colors.RGB
) -> None:
    """Outline unit bases (cover units)."""
    for pos, base in units:
        r = max(5, round(camera.length(base))) + 4
        pygame.draw.circle(surface, color, camera.to_px(*pos), r, 2)


def draw_arcs(
    fill: pygame.Surface, camera: Camera, arcs: Iterable[tuple[Arc, list[tuple[Ring, list[Ring]]]]]
) -> pygame.Rect | None:
    """Front / side / rear sectors (world rings, e.g. from :meth:`Scene.arcs`); returns the filled area."""
    area: pygame.Rect | None = None
    for arc, rings in arcs:
        for ext, _ in rings:
            if len(ext) >= 3:
                area = _grow(area, pygame.draw.polygon(fill, colors.ARC_COLORS[arc], _screen(camera, ext)))
    return area


def draw_region(
    fill: pygame.Surface,
    surface: pygame.Surface,
    camera: Camera,
    rings: list[tuple[Ring, list[Ring]]],
    color: colors.RGBA,
    edge: colors.RGB = colors.REGION_EDGE,
    strong: bool = False,
) -> pygame.Rect | None:
    """A legal region: translucent fill (holes cleared) and its outline; returns the filled area."""
    width = 3 if strong else 2
    area: pygame.Rect | None = None
    for ext, holes in rings:
        if len(ext) < 3:
            continue
        spts = _screen(camera, ext)
        area = _grow(area, pygame.draw.polygon(fill, color, spts))
        for h in holes:
            if len(h) >= 3:
                pygame.draw.polygon(fill, (0, 0, 0, 0), _screen(camera, h))
        pygame.draw.lines(surface, edge, True, spts, width)
        for h in holes:
            if len(h) >= 3:
                pygame.draw.lines(surface, edge, True, _screen(camera, h), width)
    return area


#: Width (pixels) of the band a thin region (a one-yard retreat's arcs) is drawn as, whatever the
#: zoom, and of the dark outline on each side of it.
BAND_PX = 6
BAND_OUTLINE_PX = 2


def draw_band(
    surface: pygame.Surface,
    text: Text,
    camera: Camera,
    lines: Sequence[Ring],
    color: colors.RGB,
    label: str | None = None,
    strong: bool = False,
) -> None:
    """A thin region (world polylines, :func:`game.render.shapes.thin_lines`) as an opaque band of
    :data:`BAND_PX` pixels at every zoom (wider when ``strong``: its option is armed), outlined
    in the background colour so it reads on any ground, with ``label`` beside its longest line."""
    width = BAND_PX + (2 if strong else 0)
    screen = [_screen(camera, line) for line in lines]
    for w, c in ((width + 2 * BAND_OUTLINE_PX, colors.BACKGROUND), (width, color)):
        for pts in screen:
            if len(pts) >= 2:
                pygame.draw.lines(surface, c, False, pts, w)
            for x, y in pts:  # round joins and caps
                pygame.draw.circle(surface, c, (round(x), round(y)), w // 2)
    if label and screen:
        # beside the middle of the longest line, on its outer side (away from its chord)
        longest = max(screen, key=len)
        x, y = longest[len(longest) // 2]
        cx, cy = (longest[0][0] + longest[-1][0]) / 2, (longest[0][1] + longest[-1][1]) / 2
        dx, dy = x - cx, y - cy
        n = math.hypot(dx, dy) or 1.0
        dx, dy = (dx / n, dy / n) if n > 1.0 else (1.0, 0.0)
        img = text.render(label, 15, color)
        at = (round(x + dx * (width + 12)), round(y + dy * (width + 12)))
        box = img.get_rect(**{"midleft" if dx >= 0 else "midright": at}).inflate(8, 4)
        pygame.draw.rect(surface, colors.PANEL, box, border_radius=3)
        surface.blit(img, img.get_rect(center=box.center))


def draw_path(
    surface: pygame.Surface,
    text: Text,
    camera: Camera,
    points: Sequence[Point],
    label: str,
    ok: bool,
) -> None:
    """A path preview polyline with its length / AP label at the end."""
    color = colors.PATH if ok else colors.PATH_BAD
    if len(points) >= 2:
        pygame.draw.lines(surface, color, False, _screen(camera, points), 2)
    if points:
        end = camera.world_to_screen(*points[-1])
        pygame.draw.circle(surface, color, (round(end[0]), round(end[1])), 4, 1)
        text.draw(surface, label, (end[0] + 10, end[1] - 10), 16, color, "bottomleft")


def planner_lines(records: Mapping[str, Any], latest: Any, alternatives: int = 2) -> list[tuple[str, bool]]:
    """What the planner chose and why, per unit (the :class:`game.ai.planner.trace.Considered`
    of each unit's last decision, the latest first), as (line, headline) pairs: the unit, its
    decision and choice, the reasons in the game's terms, and for the latest decision the next
    plans it weighed."""
    out: list[tuple[str, bool]] = []
    ordered = sorted(records.values(), key=lambda c: (c is not latest, -c.event_count))
    for c in ordered:
        chosen = c.chosen
        if chosen is None:
            continue
        out.append((f"{c.unit} (round {c.round}, {c.kind.replace('_', ' ')}): {chosen.label}", True))
        out += [
            (f"   because: {why}" if k == 0 else f"   and {why}", False) for k, why in enumerate(chosen.why)
        ]
        if c is latest:
            for rank, other in enumerate(c.candidates[1 : 1 + alternatives], 2):
                why = f" ({other.why[0]})" if other.why else ""
                out.append((f"   {rank}. rather than: {other.label}{why}", False))
    return out


def draw_considered(
    surface: pygame.Surface,
    text: Text,
    camera: Camera,
    origin: tuple[int, int],
    considered: Any,
    records: Mapping[str, Any] | None = None,
    width: int = 520,
) -> None:
    """The planner's choices: per unit, what it chose at its last decision and why, on a shaded
    box from ``origin`` (screen pixels) down; and the latest decision's plans that go to a point
    as numbered rings there (1 = chosen)."""
    x0, y0 = origin
    lines = planner_lines(records or {considered.unit: considered}, considered)
    wrapped: list[tuple[str, bool]] = []
    for line, head in lines:
        indent = "      " if line.startswith("   ") else ""
        for k, part in enumerate(text.wrap(line.strip(), 14, width - 16)):
            wrapped.append(((indent if (k or indent) else "") + part, head and k == 0))
    box = pygame.Rect(x0 - 4, y0 - 3, width, 17 * (len(wrapped) + 1) + 6)
    shade = pygame.Surface(box.size, pygame.SRCALPHA)
    shade.fill((16, 18, 22, 200))
    surface.blit(shade, box)
    text.draw(
        surface,
        "planner AI: what each unit chose, and why (W hides)",
        (x0, y0),
        15,
        colors.PANEL_ACCENT,
        "topleft",
    )
    y = y0
    for line, head in wrapped:
        y += 17
        text.draw(surface, line, (x0, y), 14, colors.PANEL_ACCENT if head else colors.PANEL_TEXT, "topleft")
    for rank, c in enumerate(considered.candidates, 1):
        if c.point is not None:
            color = colors.PANEL_ACCENT if rank == 1 else colors.PANEL_TEXT
            px, py = camera.to_px(*c.point)
            pygame.draw.circle(surface, color, (px, py), 7 if rank == 1 else 5, 2)
            text.draw(surface, str(rank), (px + 8, py - 8), 14, color, "bottomleft")


def draw_cross(surface: pygame.Surface, camera: Camera, p: Point, ok: bool) -> None:
    """The cursor mark when picking a point: a ring if legal, a red cross if not."""
    x, y = camera.to_px(*p)
    if ok:
        pygame.draw.circle(surface, colors.PATH, (x, y), 6, 2)
    else:
        pygame.draw.line(surface, colors.PATH_BAD, (x - 6, y - 6), (x + 6, y + 6), 2)
        pygame.draw.line(surface, colors.PATH_BAD, (x - 6, y + 6), (x + 6, y - 6), 2)


def frame_to_inset(
    rings: list[tuple[Ring, list[Ring]]],
    half_angle_deg: float,
    inner: pygame.Rect,
    fig_h: float,
    height: float,
) -> list[tuple[list[tuple[float, float]], list[list[tuple[float, float]]]]]:
    """Map (angle °, height) polygons of a silhouette into an inset rectangle (ground at the bottom)."""
    span = 2.0 * half_angle_deg if half_angle_deg > 0 else 1.0
    k = fig_h / height if height > 0 else 0.0

    def conv(r: Ring) -> list[tuple[float, float]]:
        return [
            (inner.left + (float(a) + half_angle_deg) / span * inner.w, inner.bottom - float(z) * k)
            for a, z in r
        ]

    return [(conv(ext), [conv(h) for h in holes]) for ext, holes in rings]


def draw_silhouette(
    surface: pygame.Surface,
    text: Text,
    box: pygame.Rect,
    parts: Any,
    side_color: colors.RGB,
    caption: str,
) -> None:
    """A picture of the target as the attacker sees it, in ``box``: exposed light, hidden dark.

    The picture is the (angle, height) frame of the cover model: across, the sight rays from
    one edge of the target's base to the other; up, the height above the ground, a standing
    figure filling the frame.

    Args:
        surface: where to draw.
        text: font cache.
        box: the picture's rectangle (the caption goes in its bottom 18 pixels).
        parts: :class:`game.geometry.shapes.SilhouetteParts` (hidden / exposed in the
            (angle °, height) frame; its profile gives the half-angle and the height).
        side_color: the target's side colour (frame).
        caption: line written under the picture.
    """
    pygame.draw.rect(surface, colors.BACKGROUND, box)
    pygame.draw.rect(surface, side_color, box, 2)
    inner = pygame.Rect(box.x + 6, box.y + 5, box.w - 12, box.h - 28)
    prof = parts.profile
    height = float(prof.height)
    fig_h = inner.h * min(1.0, height)
    half = math.degrees(float(prof.half_angle))
    pygame.draw.line(surface, colors.PANEL_DIM, (inner.left, inner.bottom), (inner.right, inner.bottom))
    for geom, color in ((parts.exposed, colors.EXPOSED_PART), (parts.hidden, colors.HIDDEN_PART)):
        for ext, holes in frame_to_inset(region_rings(geom), half, inner, fig_h, height):
            if len(ext) >= 3:
                pygame.draw.polygon(surface, color, ext)
            for h in holes:
                if len(h) >= 3:
                    pygame.draw.polygon(surface, colors.BACKGROUND, h)
    text.draw(surface, caption, (box.centerx, box.bottom - 3), 15, colors.PANEL_TEXT, "midbottom")


def draw_threat(surface: pygame.Surface, camera: Camera, image: pygame.Surface, cell: float) -> None:
    """Blit a threat-map image (one pixel per ``cell`` inches, origin at the map corner) scaled to the view.

    Only the visible window of the image is scaled, so zooming in does not scale the whole map.
    """
    iw, ih = image.get_size()
    vx, vy, vw, vh = camera.viewport
    wx0, wy0 = camera.screen_to_world(vx, vy)
    wx1, wy1 = camera.screen_to_world(vx + vw, vy + vh)
    i0, j0 = max(0, math.floor(wx0 / cell)), max(0, math.floor(wy0 / cell))
    i1, j1 = min(iw, math.ceil(wx1 / cell)), min(ih, math.ceil(wy1 / cell))
    if i1 <= i0 or j1 <= j0:
        return
    sub = image.subsurface((i0, j0, i1 - i0, j1 - j0))
    x0, y0 = camera.world_to_screen(i0 * cell, j0 * cell)
    x1, y1 = camera.world_to_screen(i1 * cell, j1 * cell)
    size = (max(1, round(x1) - round(x0)), max(1, round(y1) - round(y0)))
    surface.blit(pygame.transform.scale(sub, size), (round(x0), round(y0)))
