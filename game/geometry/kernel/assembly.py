"""Assembly of sight facts from the cover and intervening-unit kernels' outputs, whole or as an
update (:mod:`game.geometry.kernel`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import types
from numpy.typing import NDArray

from game.geometry.jit import (
    B1,
    F1,
    F2,
    I1,
    OUT_B1,
    OUT_F1,
    OUT_I8,
    inline,
    kernel,
)
from game.geometry.kernel.common import _DEG
from game.geometry.model import (
    FRONT_HALF_ANGLE,
    HEAVY_ABOVE,
    HIDDEN_GAP,
    LIGHT_FROM,
    MEDIUM_ABOVE,
    NEAR_TOTAL_ABOVE,
    SIDE_LIMIT,
    TOUCH_TOL,
    BoolArray,
    FloatArray,
    IntArray,
)


# ---------------------------------------------------------------------------- assembly
@inline
def _screens(xy: FloatArray, base: FloatArray, size: FloatArray, u: int, tk: int) -> bool:
    """Is intervening unit ``u`` a screen of target ``tk`` (size ≥ its size, within 0.5 inch)?"""
    gap = math.hypot(xy[u, 0] - xy[tk, 0], xy[u, 1] - xy[tk, 1]) - base[u] - base[tk]
    return size[u] >= size[tk] and gap <= HIDDEN_GAP + TOUCH_TOL


@inline
def _assemble_pair(
    k: int,
    ak: int,
    tk: int,
    lo: int,
    hi: int,
    xy: FloatArray,
    base: FloatArray,
    size: FloatArray,
    facing: FloatArray,
    fraction: FloatArray,
    obstacle_screen: BoolArray,
    rows: IntArray,
    visible: BoolArray,
    level: NDArray[np.int8],
    hidden: BoolArray,
    arc: NDArray[np.int8],
    distance: FloatArray,
    unit_screen: BoolArray,
) -> None:
    """Write pair ``k``'s derived fields (see :func:`assemble`): attacker ``ak``, target ``tk``,
    intervening units ``rows[lo:hi]``."""
    f = fraction[k]
    visible[k] = f < 1.0
    level[k] = (
        (f >= LIGHT_FROM) + (f > MEDIUM_ABOVE) + (f > HEAVY_ABOVE) + (f > NEAR_TOTAL_ABOVE) + (f >= 1.0)
    )
    unit_screen[k] = False
    for e in range(hi - 1, lo - 1, -1):  # nearest the target (likeliest screen) first
        if _screens(xy, base, size, rows[e], tk):
            unit_screen[k] = True
            break
    has_cover = f >= LIGHT_FROM or hi > lo
    hidden[k] = has_cover and (obstacle_screen[k] or unit_screen[k])
    dx, dy = xy[ak, 0] - xy[tk, 0], xy[ak, 1] - xy[tk, 1]
    distance[k] = math.hypot(dx, dy)
    if dx == 0.0 and dy == 0.0:
        arc[k] = 0
    else:
        rel = abs((math.atan2(dy, dx) * _DEG - facing[tk] + 180.0) % 360.0 - 180.0)
        arc[k] = (rel > FRONT_HALF_ANGLE + 1e-9) + (rel > SIDE_LIMIT + 1e-9)


@kernel(types.Tuple((OUT_B1, OUT_I8, OUT_B1, OUT_I8, OUT_F1, OUT_B1))(F2, F1, F1, F1, I1, I1, F1, B1, I1, I1))
def assemble(
    xy: FloatArray,
    base: FloatArray,
    size: FloatArray,
    facing: FloatArray,
    a: IntArray,
    t: IntArray,
    fraction: FloatArray,
    obstacle_screen: BoolArray,
    ptr: IntArray,
    rows: IntArray,
) -> tuple[BoolArray, NDArray[np.int8], BoolArray, NDArray[np.int8], FloatArray, BoolArray]:
    """The derived fields of a batch: visible, level, hidden, arc, distance, unit screen.

    Hidden = has cover (fraction ≥ 0.10 or an intervening unit) and a screen (an obstacle, or
    an intervening unit of size ≥ the target's within 0.5 inch of its base). Arcs and levels
    follow :func:`game.geometry.model.arc_codes` and :func:`~game.geometry.model.level_codes`.
    """
    n_pairs = a.size
    visible = np.empty(n_pairs, dtype=np.bool_)
    level = np.empty(n_pairs, dtype=np.int8)
    hidden = np.empty(n_pairs, dtype=np.bool_)
    arc = np.empty(n_pairs, dtype=np.int8)
    distance = np.empty(n_pairs)
    unit_screen = np.zeros(n_pairs, dtype=np.bool_)
    for k in range(n_pairs):
        _assemble_pair(
            k, a[k], t[k], ptr[k], ptr[k + 1], xy, base, size, facing, fraction, obstacle_screen, rows,
            visible, level, hidden, arc, distance, unit_screen,
        )  # fmt: skip
    return visible, level, hidden, arc, distance, unit_screen


@kernel(
    types.none(
        F2, F1, F1, F1, F1, B1, I1, I1, I1, B1, B1,
        OUT_B1, OUT_I8, OUT_B1, OUT_I8, OUT_F1, OUT_B1,
    )
)  # fmt: skip
def assemble_update(
    xy: FloatArray,
    base: FloatArray,
    size: FloatArray,
    facing: FloatArray,
    fraction: FloatArray,
    obstacle_screen: BoolArray,
    start: IntArray,
    count: IntArray,
    pool: IntArray,
    changed: BoolArray,
    touched: BoolArray,
    visible: BoolArray,
    level: NDArray[np.int8],
    hidden: BoolArray,
    arc: NDArray[np.int8],
    distance: FloatArray,
    unit_screen: BoolArray,
) -> None:
    """:func:`assemble` in place over every ordered pair (attacker-major; intervening units in a
    pool, see :func:`intervening_update`), for the pairs ``changed[k]`` or with an end in
    ``touched``.

    Every other pair's derived fields depend only on what did not change (its ends, its cover
    fraction and screen, its intervening units), so the arrays then equal a full assembly. A
    pair whose intervening units changed but neither end (its fraction, distance and arc stay)
    only has its unit screen and hidden flag redone; if it had no unit screen, only its touched
    units can have become one (the others are where they were, and did not screen).
    """
    n = base.size
    if start.size != n * (n - 1) or count.size != start.size or changed.size != start.size:
        raise ValueError("pool arrays do not match the pairs")
    for k in range(start.size):
        if start[k] < 0 or start[k] + count[k] > pool.size:
            raise IndexError("list out of the pool")
    k = 0
    for ak in range(n):
        for tk in range(n):
            if tk == ak:
                continue
            lo, hi = start[k], start[k] + count[k]
            if touched[ak] or touched[tk]:
                _assemble_pair(
                    k, ak, tk, lo, hi, xy, base, size, facing, fraction, obstacle_screen, pool,
                    visible, level, hidden, arc, distance, unit_screen,
                )  # fmt: skip
            elif changed[k]:
                was = unit_screen[k]
                unit_screen[k] = False
                for e in range(hi - 1, lo - 1, -1):
                    u = pool[e]
                    if (was or touched[u]) and _screens(xy, base, size, u, tk):
                        unit_screen[k] = True
                        break
                has_cover = fraction[k] >= LIGHT_FROM or hi > lo
                hidden[k] = has_cover and (obstacle_screen[k] or unit_screen[k])
            k += 1
