"""A move disc clipped to the table: a region value answering what sampling asks like GEOS.

Contract: :class:`ClippedDisc` is an immutable region value, ``box ∩ disc`` with the disc built
vertex for vertex as GEOS buffers a point (``quad_segs=16``). Its :attr:`~ClippedDisc.is_empty`,
:attr:`~ClippedDisc.bounds` and :meth:`~ClippedDisc.contains_xy` are the very answers GEOS gives
for the built geometry, mostly without building it; calling the disc builds (once) and returns
the shapely geometry. Pure geometry: no match state.
"""

from __future__ import annotations

import bisect
import math
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np
import shapely

Point = tuple[float, float]


class _Ring(NamedTuple):
    """The origin disc ``shapely.Point(0, 0).buffer(max_len, quad_segs=16)``, pre-digested."""

    ring: np.ndarray  #: its closed exterior ring
    rolled: np.ndarray  #: the same ring starting one vertex later
    bounds: tuple[float, float, float, float]
    #: the other coordinate of a vertex attaining min x, min y, max x, max y
    across: tuple[float, float, float, float]
    #: every vertex's x, and every vertex's y, sorted (to look for vertices near a line)
    sorted_xy: tuple[list[float], list[float]]
    normals: np.ndarray  #: (2, n) outward unit normal of each edge
    offsets: np.ndarray  #: (n,) each edge line's distance from the origin (up to rounding)
    inner: float  #: the smallest of ``offsets``: the disc holds the circle of this radius
    outer: float  #: the largest vertex distance: the disc lies in the circle of this radius


def _unit_ring() -> _Ring:
    """The unit disc's :class:`_Ring`, from GEOS."""
    disc = shapely.Point(0.0, 0.0).buffer(1.0, quad_segs=16)
    ring = np.asarray(disc.exterior.coords, dtype=np.float64)
    edge = ring[1:] - ring[:-1]
    normals = np.array([edge[:, 1], -edge[:, 0]]) / np.hypot(edge[:, 0], edge[:, 1])
    offsets = (normals * ring[:-1].T).sum(axis=0)
    if offsets.min() < 0:  # a counter-clockwise ring: the normals above point inwards
        normals, offsets = -normals, -offsets
    for a in (normals, offsets):
        a.setflags(write=False)  # shared by every reach
    lo, hi = ring.argmin(axis=0), ring.argmax(axis=0)
    return _Ring(
        ring,
        np.concatenate([ring[1:], ring[1:2]]),
        tuple(float(v) for v in disc.bounds),  # type: ignore[arg-type]
        (float(ring[lo[0], 1]), float(ring[lo[1], 0]), float(ring[hi[0], 1]), float(ring[hi[1], 0])),
        (sorted(ring[:, 0].tolist()), sorted(ring[:, 1].tolist())),
        normals,
        offsets,
        float(offsets.min()),
        float(np.hypot(ring[:, 0], ring[:, 1]).max()),
    )


_UNIT = _unit_ring()


@lru_cache(maxsize=1024)  # one per reach (speed x AP) seen in the process: a few hundred
def _disc_ring(max_len: float) -> _Ring | None:
    """The origin disc of radius ``max_len``; None for a reach outside [1e-6, 1e6] (or NaN),
    where callers leave the whole construction to GEOS.

    GEOS buffers a point by placing each vertex at ``centre + r·(cos a, sin a)``: about the
    origin, the unit ring's vertices times ``r``, rounded once (and rounding is monotonic, so
    the bounds and the sorted coordinates scale the same way). The normals are the unit
    ring's; the offsets and radii are scaled, right to rounding, which the users' tolerance
    covers.
    """
    if not 1e-6 <= max_len <= 1e6:
        return None
    u = _UNIT
    ring = max_len * u.ring
    rolled = max_len * u.rolled
    ring.setflags(write=False)
    rolled.setflags(write=False)
    return _Ring(
        ring,
        rolled,
        (max_len * u.bounds[0], max_len * u.bounds[1], max_len * u.bounds[2], max_len * u.bounds[3]),
        (max_len * u.across[0], max_len * u.across[1], max_len * u.across[2], max_len * u.across[3]),
        ([max_len * v for v in u.sorted_xy[0]], [max_len * v for v in u.sorted_xy[1]]),
        u.normals,
        max_len * u.offsets,
        max_len * u.inner,
        max_len * u.outer,
    )


class ClippedDisc:
    """``box(lo_x, lo_y, hi_x, hi_y) ∩ Point(centre).buffer(max_len, quad_segs=16)``: a move
    disc clipped to the map, built (vertex for vertex as GEOS builds it) when first called.

    It also answers what rejection sampling asks of the geometry (:attr:`is_empty`,
    :attr:`bounds`, :meth:`contains_xy`) with the very answers GEOS would give, mostly without
    building it: a policy samples a turn's move disc far more often than anything draws it.
    The answers are GEOS's wherever they can be derived exactly, with a safety margin
    ``tol`` far above the rounding of either computation:

    - the clipped polygon is convex (a convex disc cut by a box); where the disc reaches past
      a box side, the overlay's new vertices on that side sit exactly on it (GEOS conditions
      the intersection on the segments' common envelope: on an axis-parallel side the
      coordinate comes out exact), so that bound is the side's; elsewhere it is the shifted
      ring's extreme, a vertex that survives the cut. Cases too close to call (a disc vertex
      or extreme within ``tol`` of a box side, a box corner within ``tol`` of a disc edge, the
      centre not inside the box) are left to GEOS;
    - a point is inside if it is inside the disc's inscribed circle (else inside every edge)
      and inside the box, each by ``tol``, and outside if beyond either by ``tol``; points in
      between (on the boundary, give or take rounding) are asked of the geometry.
    """

    __slots__ = ("_box", "_centre", "_crossed", "_fast", "_geom", "_max_len")

    def __init__(self, box: tuple[float, float, float, float], centre: Point, max_len: float) -> None:
        self._box = box
        self._centre = centre
        self._max_len = max_len
        self._geom: Any = None
        #: (bounds, tolerance) when the fast answers hold, None when they do not, False until
        #: first asked (most turn decisions never sample their move disc)
        self._fast: tuple[tuple[float, float, float, float], float] | bool | None = False
        #: the box sides the disc crosses (min x, min y, max x, max y), once the answers hold
        self._crossed: tuple[bool, ...] = ()

    def _answers(self) -> tuple[tuple[float, float, float, float], float] | None:
        got = self._fast
        if got is False:
            got = self._fast = self._fast_bounds()
        return got  # type: ignore[return-value]

    def _fast_bounds(self) -> tuple[tuple[float, float, float, float], float] | None:
        rg = _disc_ring(float(self._max_len))
        if rg is None:
            return None
        cx, cy = float(self._centre[0]), float(self._centre[1])
        tol = 1e-9 * (1.0 + abs(cx) + abs(cy) + abs(float(self._max_len)))
        lo_x, lo_y, hi_x, hi_y = self._box
        if rg.inner <= 4.0 * tol or not (lo_x + tol < cx < hi_x - tol and lo_y + tol < cy < hi_y - tol):
            return None  # a disc too small to tell from rounding, or a centre off the box
        x0, y0, x1, y1 = rg.bounds
        # (rounding is monotonic: the shifted ring's extremes are the shifted extremes)
        ext = (cx + x0, cy + y0, cx + x1, cy + y1)
        side = (lo_x, lo_y, hi_x, hi_y)
        past = (ext[0] < lo_x, ext[1] < lo_y, ext[2] > hi_x, ext[3] > hi_y)
        if any(abs(e - s) <= tol for e, s in zip(ext, side)):
            return None
        if not any(past):
            return ext, tol
        centre = (cx, cy)
        for k, on in enumerate(past):
            axis = k % 2
            if on:  # no vertex (all but) on a side the disc crosses (2 tol: the shift's rounding)
                values = rg.sorted_xy[axis]
                at = side[k] - centre[axis]
                i = bisect.bisect_left(values, at - 2.0 * tol)
                if i < len(values) and values[i] <= at + 2.0 * tol:
                    return None
            else:  # the extreme vertex must survive the cut along the other axis
                v = centre[1 - axis] + rg.across[k]
                if not (side[1 - axis] + tol < v < side[3 - axis] - tol):
                    return None
        # No box corner (all but) on a disc edge: edges lie between the inscribed and the
        # circumscribed circle, so only corners between them can be.
        for qx in (lo_x - cx, hi_x - cx):
            for qy in (lo_y - cy, hi_y - cy):
                if not rg.inner - 2.0 * tol <= math.hypot(qx, qy) <= rg.outer + 2.0 * tol:
                    continue
                if bool((np.abs(qx * rg.normals[0] + qy * rg.normals[1] - rg.offsets) <= tol).any()):
                    return None
        self._crossed = past
        bounds = (
            lo_x if past[0] else ext[0],
            lo_y if past[1] else ext[1],
            hi_x if past[2] else ext[2],
            hi_y if past[3] else ext[3],
        )
        return bounds, tol

    @property
    def key(self) -> tuple[tuple[float, float, float, float], Point, float]:
        """(box, centre, max_len): the values the region is a function of (equal keys, equal
        regions)."""
        return self._box, self._centre, self._max_len

    def __call__(self) -> Any:
        """The geometry (built once)."""
        if self._geom is None:
            self._geom = self._build()
        return self._geom

    def _build(self) -> Any:
        lo_x, lo_y, hi_x, hi_y = self._box
        rg = _disc_ring(float(self._max_len))
        if rg is None:
            disc = shapely.Point(self._centre).buffer(self._max_len, quad_segs=16)
            return shapely.box(lo_x, lo_y, hi_x, hi_y).intersection(disc)
        # GEOS places each vertex at centre + r·(cos a, sin a): the origin disc shifted is the same.
        x0, y0, x1, y1 = rg.bounds
        c = np.array(self._centre, dtype=np.float64)
        cx, cy = float(c[0]), float(c[1])
        if cx + x0 > lo_x and cx + x1 < hi_x and cy + y0 > lo_y and cy + y1 < hi_y:
            # Strictly inside: the overlay returns the disc itself, its ring starting one vertex on.
            return shapely.polygons(rg.rolled + c)
        return shapely.box(lo_x, lo_y, hi_x, hi_y).intersection(shapely.polygons(rg.ring + c))

    @property
    def is_empty(self) -> bool:
        return False if self._answers() is not None else bool(self().is_empty)

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        got = self._answers()
        return got[0] if got is not None else tuple(self().bounds)

    def contains_xy(self, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """``shapely.contains_xy(geometry, xs, ys)`` for arrays of coordinates, point for point."""
        got = self._answers()
        if got is None:
            return np.asarray(shapely.contains_xy(self(), xs, ys), dtype=bool)
        tol = got[1]
        rg = _disc_ring(float(self._max_len))
        assert rg is not None
        qx = xs - self._centre[0]
        qy = ys - self._centre[1]
        d2 = qx * qx + qy * qy
        inside = d2 < (rg.inner - tol) ** 2
        unsure = ~inside & (d2 <= (rg.outer + tol) ** 2)
        if unsure.any():  # between the inscribed and the circumscribed circle: edge by edge
            rim = np.flatnonzero(unsure)
            nx, ny = rg.normals
            far = (np.outer(qx[rim], nx) + np.outer(qy[rim], ny) - rg.offsets).max(axis=1)
            inside[rim] = far < -tol
            unsure[rim] = np.abs(far) <= tol
        for k, on in enumerate(self._crossed):  # the box: only the sides the disc crosses cut it
            if on:
                side = self._box[k]
                gap = ((xs, ys)[k % 2] - side) if k < 2 else (side - (xs, ys)[k % 2])
                unsure |= inside & (np.abs(gap) <= tol)
                inside &= gap > tol
        if unsure.any():
            rim = np.flatnonzero(unsure)
            inside[rim] = shapely.contains_xy(self(), xs[rim], ys[rim])
        return inside
