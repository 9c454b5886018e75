"""The window's palette: side colours, obstacle shading by height, cover-level colours.

Contract: pure data and functions returning ``(r, g, b)`` / ``(r, g, b, a)`` tuples; no pygame.
Every colour comes from the shipped theme, ``assets/theme.yaml`` (:func:`game.render.theme.theme`,
validated when this module is imported); the names here are the theme's keys in capitals.
``side_color(side, sides)`` is stable: ``red`` and ``blue`` are always red and blue, any other
side takes the next unused palette colour in the scenario's side order, so a picture and a test
agree on which colour a unit must have.
"""

from __future__ import annotations

from components.sight import Arc, CoverLevel
from game.render.theme import ByCover, theme

RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]

_T = theme()

BACKGROUND: RGB = _T.background
TABLE: RGB = _T.table
GRID: RGB = _T.grid
GRID_MAJOR: RGB = _T.grid_major
TABLE_EDGE: RGB = _T.table_edge
PANEL: RGB = _T.panel
PANEL_TEXT: RGB = _T.panel_text
PANEL_DIM: RGB = _T.panel_dim
PANEL_ACCENT: RGB = _T.panel_accent
TEXT: RGB = _T.text
BUTTON: RGB = _T.button
BUTTON_HOT: RGB = _T.button_hot
WARNING: RGB = _T.warning
HELP_SHADE: RGBA = _T.help_shade
OUTLINE: RGB = _T.outline
ACTIVE_RING: RGB = _T.active_ring
SELECTED_RING: RGB = _T.selected_ring
HOVER_RING: RGB = _T.hover_ring
COVER_UNIT_RING: RGB = _T.cover_unit_ring
PATH: RGB = _T.path
PATH_BAD: RGB = _T.path_bad
DEAD: RGB = _T.dead
AP_FULL: RGB = _T.ap_full
AP_EMPTY: RGB = _T.ap_empty
HEALTH_OK: RGB = _T.health_ok
HEALTH_LOW: RGB = _T.health_low
HIDDEN_PART: RGB = _T.hidden_part
EXPOSED_PART: RGB = _T.exposed_part
REGION_RETREAT: RGBA = _T.region_retreat
REGION_DODGE: RGBA = _T.region_dodge
REGION_MOVE: RGBA = _T.region_move
REGION_EDGE: RGB = _T.region_edge
#: Silhouette wedges on the map: rays that see part of the target / none of it.
WEDGE_EXPOSED: RGBA = _T.wedge_exposed
WEDGE_HIDDEN: RGBA = _T.wedge_hidden

#: Colours of the well-known sides; others take :data:`EXTRA_SIDES` in order.
NAMED_SIDES: dict[str, RGB] = dict(_T.sides.named)
EXTRA_SIDES: tuple[RGB, ...] = _T.sides.extra


def _by_cover(table: ByCover) -> dict[CoverLevel, RGB]:
    return {level: getattr(table, level.value.replace("-", "_")) for level in CoverLevel}


#: THE cover scale, one colour per cover level, for every overlay that shows cover (sight fans,
#: the target line, the threat map) and its legend: red in the open, through orange and yellow,
#: to green for near-total cover; grey for no line of sight. A colour means the same cover
#: wherever it appears (issue 19: the fans and the threat map used opposite scales).
COVER_COLORS: dict[CoverLevel, RGB] = _by_cover(_T.cover)
#: The threat map uses the cover scale (its TOTAL points are never drawn: no enemy sees them).
THREAT_COLORS: dict[CoverLevel, RGB] = COVER_COLORS
#: Threat-map alpha: this much for the first enemy that sees a point, plus this per further enemy.
THREAT_ALPHA_FIRST = _T.threat_alpha.first
THREAT_ALPHA_EACH = _T.threat_alpha.each
THREAT_ALPHA_MAX = _T.threat_alpha.max

#: Facing-arc sector shades (front light, side mid, rear dark): grey, so they never read as
#: cover levels or as a region.
ARC_COLORS: dict[Arc, RGBA] = {arc: getattr(_T.arcs, arc.value) for arc in Arc}

#: Obstacle shade end points: the lowest obstacles are light sand, the tallest dark stone.
OBSTACLE_LOW: RGB = _T.obstacles.low
OBSTACLE_HIGH: RGB = _T.obstacles.high
#: Height (in standing-human units) at and above which an obstacle gets the darkest shade.
OBSTACLE_TOP = _T.obstacles.top


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
