"""The window's palette: side colours, obstacle shading by height, cover-level colours.

Contract: pure data and functions returning ``(r, g, b)`` / ``(r, g, b, a)`` tuples; no pygame.
``side_color(side, sides)`` is stable: ``red`` and ``blue`` are always red and blue, any other
side takes the next unused palette colour in the scenario's side order, so a picture and a test
agree on which colour a unit must have.
"""

from __future__ import annotations

from components.sight import Arc, CoverLevel

RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]

BACKGROUND: RGB = (24, 26, 30)
TABLE: RGB = (62, 84, 58)
GRID: RGB = (78, 102, 74)
GRID_MAJOR: RGB = (96, 122, 90)
TABLE_EDGE: RGB = (150, 150, 140)
PANEL: RGB = (32, 34, 40)
PANEL_TEXT: RGB = (220, 220, 210)
PANEL_DIM: RGB = (150, 150, 145)
PANEL_ACCENT: RGB = (250, 210, 90)
BUTTON: RGB = (54, 58, 70)
BUTTON_HOT: RGB = (82, 90, 112)
WARNING: RGB = (255, 110, 90)
OUTLINE: RGB = (16, 16, 16)
ACTIVE_RING: RGB = (255, 220, 60)
SELECTED_RING: RGB = (245, 245, 245)
HOVER_RING: RGB = (180, 220, 255)
COVER_UNIT_RING: RGB = (255, 150, 40)
PATH: RGB = (240, 240, 240)
PATH_BAD: RGB = (255, 90, 80)
DEAD: RGB = (90, 90, 90)
AP_FULL: RGB = (250, 230, 120)
AP_EMPTY: RGB = (70, 70, 70)
HEALTH_OK: RGB = (90, 220, 110)
HEALTH_LOW: RGB = (230, 70, 60)
HIDDEN_PART: RGB = (70, 70, 78)
EXPOSED_PART: RGB = (250, 240, 200)
REGION_RETREAT: RGBA = (90, 170, 255, 90)
#: Violet: not a cover colour and not an arc shade, so the disc never reads as either.
REGION_DODGE: RGBA = (190, 120, 255, 90)
REGION_MOVE: RGBA = (255, 255, 255, 40)
REGION_EDGE: RGB = (200, 230, 255)
#: Silhouette wedges on the map: rays that see part of the target / none of it.
WEDGE_EXPOSED: RGBA = (250, 240, 200, 55)
WEDGE_HIDDEN: RGBA = (20, 20, 30, 110)

#: Colours of the well-known sides; others take :data:`EXTRA_SIDES` in order.
NAMED_SIDES: dict[str, RGB] = {"red": (214, 58, 52), "blue": (52, 110, 226)}
EXTRA_SIDES: tuple[RGB, ...] = ((236, 196, 40), (150, 84, 210), (40, 190, 190), (235, 130, 40))

#: THE cover scale, one colour per cover level, for every overlay that shows cover (sight fans,
#: the target line, the threat map) and its legend: red in the open, through orange and yellow,
#: to green for near-total cover; grey for no line of sight. A colour means the same cover
#: wherever it appears (issue 19: the fans and the threat map used opposite scales).
COVER_COLORS: dict[CoverLevel, RGB] = {
    CoverLevel.NONE: (235, 50, 40),
    CoverLevel.LIGHT: (245, 130, 40),
    CoverLevel.MEDIUM: (245, 210, 50),
    CoverLevel.HEAVY: (170, 225, 70),
    CoverLevel.NEAR_TOTAL: (80, 210, 110),
    CoverLevel.TOTAL: (110, 110, 120),
}
#: The threat map uses the cover scale (its TOTAL points are never drawn: no enemy sees them).
THREAT_COLORS: dict[CoverLevel, RGB] = COVER_COLORS
#: Threat-map alpha: this much for the first enemy that sees a point, plus this per further enemy.
THREAT_ALPHA_FIRST = 60
THREAT_ALPHA_EACH = 16
THREAT_ALPHA_MAX = 150

#: Facing-arc sector shades (front light, side mid, rear dark): grey, so they never read as
#: cover levels or as a region.
ARC_COLORS: dict[Arc, RGBA] = {
    Arc.FRONT: (235, 235, 235, 55),
    Arc.SIDE: (150, 150, 160, 60),
    Arc.REAR: (15, 15, 25, 110),
}

#: Obstacle shade end points: the lowest obstacles are light sand, the tallest dark stone.
OBSTACLE_LOW: RGB = (176, 156, 112)
OBSTACLE_HIGH: RGB = (70, 64, 60)
#: Height (in standing-human units) at and above which an obstacle gets the darkest shade.
OBSTACLE_TOP = 2.0


def side_color(side: str, sides: tuple[str, ...] | list[str]) -> RGB:
    """The colour of ``side``.

    Args:
        side: a side name.
        sides: every side of the scenario, in order (decides the colour of unnamed sides).

    Returns:
        ``NAMED_SIDES[side]`` for red/blue; otherwise the first unused colour of
        :data:`EXTRA_SIDES`, counting unnamed sides in ``sides`` order.
    """
    if side in NAMED_SIDES:
        return NAMED_SIDES[side]
    others = [s for s in sides if s not in NAMED_SIDES]
    k = others.index(side) if side in others else len(others)
    return EXTRA_SIDES[k % len(EXTRA_SIDES)]


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """Linear blend from ``a`` (t = 0) to ``b`` (t = 1), ``t`` clamped to [0, 1]."""
    t = min(1.0, max(0.0, float(t)))
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def obstacle_color(height: float) -> RGB:
    """Fill colour of an obstacle: darker the taller (``OBSTACLE_TOP`` and above darkest)."""
    return mix(OBSTACLE_LOW, OBSTACLE_HIGH, float(height) / OBSTACLE_TOP)


def lighter(c: RGB, t: float = 0.45) -> RGB:
    """``c`` blended toward white by ``t``."""
    return mix(c, (255, 255, 255), t)


def darker(c: RGB, t: float = 0.45) -> RGB:
    """``c`` blended toward black by ``t``."""
    return mix(c, (0, 0, 0), t)


def with_alpha(c: RGB, alpha: int) -> RGBA:
    """``c`` with an alpha channel."""
    return (c[0], c[1], c[2], int(alpha))
