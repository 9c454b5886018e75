"""Constants and small pure functions of the cover model (DESIGN §1 and §3).

Contract:

* Coordinates are inches, x east, y **south**; bearings are degrees with 0 = east and
  90 = south (clockwise on screen), so ``bearing = atan2(dy, dx)``.
* :func:`cover_level` maps a cover fraction to a :class:`CoverLevel` with the contract's
  thresholds: none < 0.10 ≤ light ≤ 0.50 < medium ≤ 0.75 < heavy ≤ 0.90 < near-total < 1.0;
  exactly 1.0 is total (and means no line of sight). Fractions are first snapped with
  :func:`snap_fraction` so that values within 1e-9 of 0, 1 or a threshold are treated as
  that value (both the exact and the fast path snap the same way).
* :func:`attack_arc` folds (bearing defender→attacker − defender facing) into [−180, 180] and
  returns front for |rel| ≤ 90, side for 90 < |rel| ≤ 150 and rear for |rel| > 150: the
  boundaries belong to the more forward arc (a shot exactly at 90° is a front shot).
* :class:`UnitTable` is the geometry's view of the units: numpy arrays, one row per unit.
  ``height`` is the silhouette height (posture height × size); the eye is at
  ``EYE_FRACTION × height``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from components.sight import Arc, CoverLevel
from components.spatial import EYE_FRACTION, POSTURE_HEIGHT, Posture, normalize_degrees
from components.specs import UnitSpec

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

#: Lower bounds (inclusive) of light, medium, heavy and near-total; see :func:`cover_level`.
LIGHT_FROM = 0.10
MEDIUM_ABOVE = 0.50
HEAVY_ABOVE = 0.75
NEAR_TOTAL_ABOVE = 0.90

#: Fractions within this of 0, 1 or a threshold are snapped onto it.
FRACTION_SNAP = 1e-9

#: Cover levels in code order: ``LEVELS[code]``; the fast path stores codes (int8).
LEVELS: tuple[CoverLevel, ...] = (
    CoverLevel.NONE,
    CoverLevel.LIGHT,
    CoverLevel.MEDIUM,
    CoverLevel.HEAVY,
    CoverLevel.NEAR_TOTAL,
    CoverLevel.TOTAL,
)
#: Arcs in code order: ``ARCS[code]``.
ARCS: tuple[Arc, ...] = (Arc.FRONT, Arc.SIDE, Arc.REAR)

#: Arc boundaries in degrees of |relative bearing| (inclusive upper bounds of front and side).
FRONT_HALF_ANGLE = 90.0
SIDE_LIMIT = 150.0

#: Defence-dice "hidden" rule: the screening obstacle or unit is within this of the target's base.
HIDDEN_GAP = 0.5

#: Distances within this (inches) count as touching: a unit whose base is this close to tangent
#: to a corridor does not intervene, a screen this far beyond 0.5 inch still counts. Both paths
#: use it, so exact ties on round coordinates are decided the same way.
TOUCH_TOL = 1e-9
#: An obstacle takes part in the cover only if the rays through its interior span more than
#: this angle (radians); thinner slivers are touches.
ANGLE_TOL = 1e-12

_THRESHOLDS = (LIGHT_FROM, MEDIUM_ABOVE, HEAVY_ABOVE, NEAR_TOTAL_ABOVE)


def snap_fraction(fraction: float) -> float:
    """Clamp a cover fraction to [0, 1] and snap values within 1e-9 of 0, 1 or a threshold.

    Args:
        fraction: a raw hidden-area / silhouette-area ratio.

    Returns:
        The fraction, snapped so that the exact and the fast path classify it alike.
    """
    f = min(1.0, max(0.0, float(fraction)))
    for mark in (0.0, 1.0, *_THRESHOLDS):
        if abs(f - mark) <= FRACTION_SNAP:
            return mark
    return f


def snap_fractions(fractions: FloatArray) -> FloatArray:
    """Vectorized :func:`snap_fraction`."""
    f = np.clip(np.asarray(fractions, dtype=np.float64), 0.0, 1.0)
    for mark in (0.0, 1.0, *_THRESHOLDS):
        f = np.where(np.abs(f - mark) <= FRACTION_SNAP, mark, f)
    return f


def level_codes(fractions: FloatArray) -> NDArray[np.int8]:
    """Cover level codes (indices into :data:`LEVELS`) of already snapped fractions."""
    f = np.asarray(fractions, dtype=np.float64)
    code = (
        (f >= LIGHT_FROM).astype(np.int8)
        + (f > MEDIUM_ABOVE)
        + (f > HEAVY_ABOVE)
        + (f > NEAR_TOTAL_ABOVE)
        + (f >= 1.0)
    )
    return code.astype(np.int8)


def cover_level(fraction: float) -> CoverLevel:
    """The cover level of a cover fraction (DESIGN §3).

    Args:
        fraction: hidden area / silhouette area, in [0, 1].

    Returns:
        none below 0.10, light up to 0.50, medium up to 0.75, heavy up to 0.90,
        near-total below 1.0 and total at exactly 1.0 (after :func:`snap_fraction`).
    """
    return LEVELS[int(level_codes(np.array([snap_fraction(fraction)]))[0])]


def bearing_deg(origin: tuple[float, float], to: tuple[float, float]) -> float:
    """Bearing from ``origin`` to ``to`` in degrees [0, 360): 0 = east, 90 = south.

    The bearing of a point onto itself is 0.
    """
    dx, dy = to[0] - origin[0], to[1] - origin[1]
    if dx == 0.0 and dy == 0.0:
        return 0.0
    return normalize_degrees(math.degrees(math.atan2(dy, dx)))


def fold_degrees(deg: float) -> float:
    """Fold an angle into [−180, 180) degrees."""
    return (float(deg) + 180.0) % 360.0 - 180.0


def direction(bearing: float) -> tuple[float, float]:
    """Unit vector of a bearing in degrees (x east, y south)."""
    rad = math.radians(bearing)
    return (math.cos(rad), math.sin(rad))


def relative_bearing(
    defender_xy: tuple[float, float], defender_facing_deg: float, attacker_xy: tuple[float, float]
) -> float:
    """Bearing from defender to attacker minus the defender's facing, folded to [−180, 180)."""
    return fold_degrees(bearing_deg(defender_xy, attacker_xy) - defender_facing_deg)


def arc_of_relative(rel_deg: float) -> Arc:
    """The arc of a relative bearing: |rel| ≤ 90 front, ≤ 150 side, else rear.

    Values within 1e-9 degree of a boundary count as on it (so on the more forward arc).
    """
    a = abs(fold_degrees(rel_deg))
    if a <= FRONT_HALF_ANGLE + 1e-9:
        return Arc.FRONT
    if a <= SIDE_LIMIT + 1e-9:
        return Arc.SIDE
    return Arc.REAR


def attack_arc(
    defender_xy: tuple[float, float], defender_facing_deg: float, attacker_xy: tuple[float, float]
) -> Arc:
    """The arc of the defender that an attack from ``attacker_xy`` comes in on (DESIGN §1).

    Args:
        defender_xy: the defender's centre.
        defender_facing_deg: the defender's facing, degrees (0 = east, 90 = south).
        attacker_xy: the attacker's centre.

    Returns:
        front if the attacker is within ±90° of the facing, side within ±150°, else rear.
        An attacker on the defender's centre is in front.
    """
    if defender_xy[0] == attacker_xy[0] and defender_xy[1] == attacker_xy[1]:
        return Arc.FRONT
    return arc_of_relative(relative_bearing(defender_xy, defender_facing_deg, attacker_xy))


def arc_codes(
    defender_xy: FloatArray, defender_facing_deg: FloatArray, attacker_xy: FloatArray
) -> NDArray[np.int8]:
    """Vectorized :func:`attack_arc`: codes into :data:`ARCS` for (n, 2) position arrays."""
    d = np.asarray(attacker_xy, dtype=np.float64) - np.asarray(defender_xy, dtype=np.float64)
    bearing = np.degrees(np.arctan2(d[:, 1], d[:, 0]))
    rel = np.abs((bearing - np.asarray(defender_facing_deg) + 180.0) % 360.0 - 180.0)
    code = (rel > FRONT_HALF_ANGLE + 1e-9).astype(np.int8) + (rel > SIDE_LIMIT + 1e-9)
    code[(d[:, 0] == 0.0) & (d[:, 1] == 0.0)] = 0
    return code.astype(np.int8)


def _frozen(a: Any, shape_tail: tuple[int, ...] = ()) -> FloatArray:
    arr = np.array(a, dtype=np.float64)
    if shape_tail:
        arr = arr.reshape((-1, *shape_tail))
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True)
class UnitTable:
    """The units as the geometry sees them: parallel read-only numpy arrays.

    Attributes:
        ids: unit ids, row order.
        xy: (n, 2) centres, inches.
        base: (n,) base radii, inches (> 0).
        height: (n,) silhouette heights = posture height × size.
        size: (n,) size scales (1 = a human).
        facing: (n,) facings, degrees [0, 360).
    """

    ids: tuple[str, ...]
    xy: FloatArray
    base: FloatArray
    height: FloatArray
    size: FloatArray
    facing: FloatArray
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = len(self.ids)
        object.__setattr__(self, "ids", tuple(str(i) for i in self.ids))
        object.__setattr__(self, "xy", _frozen(self.xy, (2,)) if n else np.zeros((0, 2)))
        for name in ("base", "height", "size", "facing"):
            object.__setattr__(self, name, _frozen(getattr(self, name)).reshape(n))
        object.__setattr__(self, "facing", _frozen(np.mod(self.facing, 360.0)))
        if self.xy.shape != (n, 2):
            raise ValueError(f"xy must have shape ({n}, 2), got {self.xy.shape}")
        if n and np.any(self.base <= 0.0):
            raise ValueError("base radii must be positive")
        if n and np.any(self.height < 0.0):
            raise ValueError("heights must not be negative")
        if len(set(self.ids)) != n:
            raise ValueError("unit ids must be unique")
        object.__setattr__(self, "_index", {uid: i for i, uid in enumerate(self.ids)})

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def eye(self) -> FloatArray:
        """(n,) eye heights: ``EYE_FRACTION × height``."""
        return EYE_FRACTION * self.height

    def index(self, uid: str) -> int:
        """Row of unit ``uid``; raises KeyError for an unknown id."""
        return self._index[uid]

    @staticmethod
    def build(rows: Iterable[Sequence[Any]]) -> UnitTable:
        """Build a table from simple tuples.

        Args:
            rows: ``(id, (x, y), posture, facing=0.0, base=0.5, size=1.0)`` per unit;
                ``posture`` is a :class:`Posture`, its name, or a number (a posture height).

        Returns:
            The table; height = posture height × size.
        """
        ids: list[str] = []
        xy: list[tuple[float, float]] = []
        base: list[float] = []
        height: list[float] = []
        size: list[float] = []
        facing: list[float] = []
        for row in rows:
            uid, at, posture, *rest = row
            fac = float(rest[0]) if len(rest) > 0 else 0.0
            rad = float(rest[1]) if len(rest) > 1 else 0.5
            sz = float(rest[2]) if len(rest) > 2 else 1.0
            if isinstance(posture, int | float):
                ph = float(posture)
            else:
                ph = POSTURE_HEIGHT[Posture(posture)]
            ids.append(str(uid))
            xy.append((float(at[0]), float(at[1])))
            base.append(rad)
            height.append(ph * sz)
            size.append(sz)
            facing.append(normalize_degrees(fac))
        return UnitTable(
            tuple(ids),
            np.array(xy).reshape(-1, 2),
            np.array(base),
            np.array(height),
            np.array(size),
            np.array(facing),
        )

    @staticmethod
    def from_specs(units: Sequence[UnitSpec]) -> UnitTable:
        """Build a table from a scenario's unit specs."""
        return UnitTable.build((u.id, u.at, u.posture, u.facing, u.base, u.size) for u in units)

    def with_unit(
        self,
        i: int,
        xy: tuple[float, float] | None = None,
        height: float | None = None,
        facing: float | None = None,
    ) -> UnitTable:
        """A copy with unit ``i`` moved, re-postured (silhouette height) or turned.

        Only the changed arrays are copied (the others are shared: they are read-only), and
        only the changed value is validated: the sight cache calls this on every move.
        """
        new_xy, new_h, new_f = self.xy, self.height, self.facing
        if xy is not None:
            new_xy = np.array(self.xy)
            new_xy[i] = (float(xy[0]), float(xy[1]))
            new_xy.setflags(write=False)
        if height is not None:
            if float(height) < 0.0:
                raise ValueError("heights must not be negative")
            new_h = np.array(self.height)
            new_h[i] = float(height)
            new_h.setflags(write=False)
        if facing is not None:
            new_f = np.array(self.facing)
            new_f[i] = np.mod(normalize_degrees(facing), 360.0)
            new_f.setflags(write=False)
        table = object.__new__(UnitTable)
        for name, value in (
            ("ids", self.ids),
            ("xy", new_xy),
            ("base", self.base),
            ("height", new_h),
            ("size", self.size),
            ("facing", new_f),
            ("_index", self._index),
        ):
            object.__setattr__(table, name, value)
        return table
