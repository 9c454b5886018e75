"""Constants and scratch-row layout shared by the compiled sight kernels (:mod:`game.geometry.kernel`)."""

from __future__ import annotations

import math

from game.geometry.jit import (
    F1,
    F2,
    I1,
    I2,
)
from game.geometry.model import (
    HEAVY_ABOVE,
    LIGHT_FROM,
    MEDIUM_ABOVE,
    NEAR_TOTAL_ABOVE,
)

_PI = math.pi
_TWO_PI = 2.0 * math.pi
_INV_TWO_PI = 1.0 / _TWO_PI
_DEG = 180.0 / math.pi  # numpy's degrees() multiplies by this constant
#: |slack| below this (inches) puts the attacker on an edge's line.
_ON_EDGE = 1e-10
#: Relative margin of the occlusion shortcut: a window edge must be inside a blocker by this much.
_BLOCK_MARGIN = 1e-9
#: Relative margin of the conservative broad-phase and capsule tests.
_CULL_MARGIN = 1e-9

#: Mode bits of :func:`cover_pairs`.
SCREENS = 1  # compute obstacle screens (the target sizes are given)
OWNERS = 2  # exact per-obstacle shares (one pair; no shortcuts)

#: Columns of the per-edge scratch rows (_X, _Y: the edge's start vertex in the pair frame).
_X, _Y, _LO, _HI, _MID, _SLACK, _NLX, _NLY, _NANG, _FLO, _FHI, _FOK, _KEEP, _CLO, _CHI = range(15)
_EDGE_COLS = 15

#: Grid cell width, in mean bounding-circle diameters of the pieces.
_GRID_CELL = 1.0
#: Recent blockers remembered per attacker and per target.
_MEMORY = 4
#: Obstacles near a target listed once per target (more: listed per pair).
_NEAR = 8

#: Where :func:`_snap` snaps fractions (as :func:`game.geometry.model.snap_fraction`).
_THRESHOLDS = (0.0, 1.0, LIGHT_FROM, MEDIUM_ABOVE, HEAVY_ABOVE, NEAR_TOTAL_ABOVE)


#: Argument types of the static scene, in :meth:`ObstacleGrid.args` order.
_OBSTACLES = (F2, I2, F2, F1, I2, I1, F1, I1, I1, I1)
