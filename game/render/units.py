"""Drawing units: bases in side colours, facing wedge, posture glyph, AP pips, health bar, rings.

Contract: :func:`draw_units` draws every unit of a :class:`~game.engine.view.MatchView` snapshot onto
the map surface through a :class:`~game.render.camera.Camera`. A living unit's base is a disc
of its base radius filled with its side colour (:func:`game.render.colors.side_color`); the
facing wedge is a lighter sector of ±:data:`WEDGE_HALF_ANGLE`° toward its facing, so the half
of the base behind the facing always shows the plain side colour. The posture token (a figure
from ``assets/tokens.yaml``, :mod:`game.render.tokens`; letters for a posture without one) sits
at the centre, the health bar above the base and the AP pips below it. Units out of action are
grey discs with a cross, drawn under the living. The active unit has a thick yellow ring, the
selected unit a white one. Units are drawn as cached sprites (:class:`UnitSprites`), rebuilt only
when something shown about the unit changes. :func:`health_fraction` is pure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import pygame

from game.engine.view import UnitView
from game.render import colors
from game.render.camera import Camera
from game.render.text import Text
from game.render.tokens import draw_token

#: Half-angle of the facing wedge, degrees.
WEDGE_HALF_ANGLE = 35.0
#: Smallest drawn base radius, pixels (a unit stays visible when zoomed far out).
MIN_RADIUS_PX = 4
#: Draw the posture glyph and full unit ids only when a base is at least this many pixels across
#: (smaller bases are labelled with :func:`short_label`, so every unit is named at every zoom).
GLYPH_MIN_RADIUS_PX = 11
LABEL_MIN_RADIUS_PX = 11
#: The posture token (assets/tokens.yaml) spans this share of the base radius each way.
TOKEN_SCALE = 0.62
#: Above this many AP a unit shows "ap/max" as text instead of pips.
MAX_PIPS = 8

POSTURE_GLYPHS: dict[str, str] = {
    "standing": "St",
    "crouching": "Cr",
    "kneeling": "Kn",
    "sitting": "Si",
    "crawling": "Cw",
    "prone": "Pr",
}


def health_fraction(unit: UnitView, initial: Mapping[str, int] | None = None) -> float:
    """Share of health left, in [0, 1], over the unit's tracks that have a maximum.

    A track that started at its maximum counts down (hit points: left = value / max); a track
    that started below it counts damage up (wounds: left = 1 − value / max). The worst track wins.

    Args:
        unit: the unit's view.
        initial: the unit's health tracks at the start of the match (``match_start`` event);
            without it every track is taken to count down.

    Returns:
        1.0 for a unit whose tracks have no maxima.
    """
    maxima = dict(unit.maxima)
    values = dict(unit.health)
    left = 1.0
    for track, top in maxima.items():
        if top <= 0 or track not in values:
            continue
        start = (initial or {}).get(track, top)
        v = values[track] / top
        frac = v if start >= top else 1.0 - v
        left = min(left, frac)
    return min(1.0, max(0.0, left))


def radius_px(unit: UnitView, camera: Camera) -> int:
    """On-screen base radius in pixels."""
    return max(MIN_RADIUS_PX, round(camera.length(unit.base)))


def wedge_points(cx: float, cy: float, r: float, facing: float, steps: int = 6) -> list[tuple[float, float]]:
    """Polygon of the facing wedge: the centre and an arc of the rim around the facing."""
    pts = [(cx, cy)]
    for k in range(steps + 1):
        a = math.radians(facing - WEDGE_HALF_ANGLE + 2 * WEDGE_HALF_ANGLE * k / steps)
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts


#: Health is drawn in this many steps (sprites are cached per step).
HEALTH_STEPS = 40
#: Sprites kept; a battle needs a few per unit between changes.
MAX_SPRITES = 1024


def short_label(uid: str) -> str:
    """The unit's label where its full id does not fit (small bases on screen): the first letter
    of its id and the part after the last '-' (``red-m2`` -> ``rm2``, ``blue-3`` -> ``b3``), else
    its first four letters."""
    head, _, tail = uid.rpartition("-")
    return head[:1] + tail if head and tail else uid[:4]


class UnitSprites:
    """Pre-drawn unit pictures, keyed by everything that shows (side colour, size, facing,
    posture, AP, health step, rings, label): a frame blits one small surface per unit, and a
    pan moves sprites without drawing them again."""

    def __init__(self, text: Text) -> None:
        self.text = text
        self._cache: dict[tuple[object, ...], tuple[pygame.Surface, tuple[int, int]]] = {}
        self.built = 0

    def get(
        self, u: UnitView, r: int, side: colors.RGB, frac: float, active: bool, selected: bool
    ) -> tuple[pygame.Surface, tuple[int, int]]:
        """The sprite of ``u`` drawn with base radius ``r`` px, and the sprite pixel of its centre."""
        label = u.id if r >= LABEL_MIN_RADIUS_PX else short_label(u.id)
        step = round(frac * HEALTH_STEPS)
        key = (u.alive, side, r, round(u.facing, 1), u.posture, u.ap, u.ap_max, step, active, selected, label)
        got = self._cache.get(key)
        if got is None:
            if len(self._cache) >= MAX_SPRITES:
                self._cache.clear()
            half = r + 12
            label_w = self.text.width(label, 14) if label else 0
            w = max(2 * half, label_w + 6)
            h = 2 * half + 30
            surf = pygame.Surface((w, h), pygame.SRCALPHA)
            centre = (w // 2, half)
            _draw_unit(surf, self.text, centre, r, u, side, step / HEALTH_STEPS, active, selected, label)
            got = (surf, centre)
            self._cache[key] = got
            self.built += 1
        return got


def draw_units(
    surface: pygame.Surface,
    camera: Camera,
    units: Iterable[UnitView],
    sides: tuple[str, ...],
    sprites: UnitSprites,
    *,
    active: str | None = None,
    selected: str | None = None,
    initial_health: Mapping[str, Mapping[str, int]] | None = None,
) -> None:
    """Draw every unit (out-of-action ones first, underneath).

    Args:
        surface: the map surface.
        camera: world→screen transform.
        units: unit snapshots (alive and dead).
        sides: the scenario's sides, in order (for colours).
        sprites: the sprite cache to draw with.
        active: the unit whose decision is pending (yellow ring).
        selected: the selected unit (white ring).
        initial_health: unit id → health tracks at the start (for :func:`health_fraction`).
    """
    for u in sorted(units, key=lambda u: u.alive):
        cx, cy = camera.world_to_screen(*u.pos)
        r = radius_px(u, camera)
        frac = health_fraction(u, (initial_health or {}).get(u.id))
        side = colors.side_color(u.side, sides)
        img, (ox, oy) = sprites.get(u, r, side, frac, u.id == active, u.id == selected)
        surface.blit(img, (round(cx) - ox, round(cy) - oy))


def _draw_unit(
    surface: pygame.Surface,
    text: Text,
    c: tuple[int, int],
    r: int,
    u: UnitView,
    side: colors.RGB,
    frac: float,
    active: bool,
    selected: bool,
    label: str,
) -> None:
    """One unit centred on pixel ``c``: rings, base, wedge, outline, tick, glyph, health, AP, label."""
    if not u.alive:
        pygame.draw.circle(surface, colors.DEAD, c, r)
        d = round(r * 0.6)
        pygame.draw.line(surface, colors.OUTLINE, (c[0] - d, c[1] - d), (c[0] + d, c[1] + d), 2)
        pygame.draw.line(surface, colors.OUTLINE, (c[0] - d, c[1] + d), (c[0] + d, c[1] - d), 2)
        return
    cx, cy = float(c[0]), float(c[1])
    if active:
        pygame.draw.circle(surface, colors.ACTIVE_RING, c, r + 5, 3)
    if selected:
        pygame.draw.circle(surface, colors.SELECTED_RING, c, r + 2, 2)
    pygame.draw.circle(surface, side, c, r)
    pygame.draw.polygon(surface, colors.lighter(side, 0.55), wedge_points(cx, cy, r, u.facing))
    pygame.draw.circle(surface, colors.OUTLINE, c, r, 2 if r >= 8 else 1)
    _facing_tick(surface, cx, cy, r, u.facing, colors.lighter(side, 0.55))
    if r >= GLYPH_MIN_RADIUS_PX and not draw_token(surface, u.posture, c, r * TOKEN_SCALE, colors.OUTLINE):
        text.draw(surface, POSTURE_GLYPHS.get(u.posture, u.posture[:2]), c, r, colors.OUTLINE, "center")
    _health_bar(surface, c, r, frac)
    _ap_pips(surface, text, c, r, u.ap, u.ap_max)
    if label:
        text.draw(surface, label, (c[0], c[1] + r + 12), 14, colors.PANEL_TEXT, "midtop")


def _facing_tick(
    surface: pygame.Surface, cx: float, cy: float, r: float, facing: float, color: colors.RGB
) -> None:
    """A small arrowhead just outside the rim, so facing reads even on tiny bases."""
    a = math.radians(facing)
    ux, uy = math.cos(a), math.sin(a)
    size = max(3.0, r * 0.45)
    tip = (cx + ux * (r + size), cy + uy * (r + size))
    left = (cx + ux * r - uy * size * 0.6, cy + uy * r + ux * size * 0.6)
    right = (cx + ux * r + uy * size * 0.6, cy + uy * r - ux * size * 0.6)
    pygame.draw.polygon(surface, color, (tip, left, right))
    pygame.draw.polygon(surface, colors.OUTLINE, (tip, left, right), 1)


def _health_bar(surface: pygame.Surface, c: tuple[int, int], r: int, frac: float) -> None:
    w = max(8, 2 * r)
    x, y = c[0] - w // 2, c[1] - r - 7
    pygame.draw.rect(surface, colors.OUTLINE, (x - 1, y - 1, w + 2, 5))
    fill = round(w * frac)
    if fill > 0:
        pygame.draw.rect(surface, colors.mix(colors.HEALTH_LOW, colors.HEALTH_OK, frac), (x, y, fill, 3))


def _ap_pips(surface: pygame.Surface, text: Text, c: tuple[int, int], r: int, ap: int, ap_max: int) -> None:
    y = c[1] + r + 5
    if ap_max <= 0:
        return
    if ap_max > MAX_PIPS:
        text.draw(surface, f"{ap}/{ap_max} AP", (c[0], y), 13, colors.AP_FULL, "midtop")
        return
    gap = 7
    x0 = c[0] - (ap_max - 1) * gap / 2
    for k in range(ap_max):
        p = (round(x0 + k * gap), y)
        if k < ap:
            pygame.draw.circle(surface, colors.AP_FULL, p, 3)
        else:
            pygame.draw.circle(surface, colors.AP_EMPTY, p, 3)
        pygame.draw.circle(surface, colors.OUTLINE, p, 3, 1)
