"""World-space shapes the overlays draw (pure: numpy and shapely, no pygame).

Contract: :func:`fan_polygon` is the sight fan from an attacker's centre to the two tangent
points of a target's base (the angular interval the cover model integrates over);
:func:`region_rings` turns any shapely (multi)polygon or collection into (exterior, holes)
coordinate arrays, ready for the camera transform; :func:`thin_lines` gives the lines a thin
region (a one-yard retreat's arcs) is drawn along instead, as a band of constant screen
width; :func:`arc_radius` is how far the facing-arc sectors reach around a unit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

Point = tuple[float, float]
Ring = NDArray[np.float64]

#: A region narrower than this (inches) everywhere is drawn as a band along its lines.
THIN_REGION = 0.2

#: Radius of the facing-arc sectors, inches, and as a multiple of the base radius (the larger wins).
ARC_RADIUS = 2.5
ARC_RADIUS_BASES = 4.0


def fan_polygon(a: Point, t: Point, t_base: float) -> list[Point]:
    """The sight fan from ``a`` to a target base: ``a`` and the two tangent points on the base.

    Args:
        a: attacker centre.
        t: target centre.
        t_base: target base radius.

    Returns:
        Three world points (a degenerate fan if ``a`` is on or inside the base).
    """
    dx, dy = t[0] - a[0], t[1] - a[1]
    d = math.hypot(dx, dy)
    if d <= t_base:
        return [a, t, t]
    beta = math.atan2(dy, dx)
    alpha = math.asin(t_base / d)
    reach = math.sqrt(d * d - t_base * t_base)
    return [
        a,
        (a[0] + reach * math.cos(beta - alpha), a[1] + reach * math.sin(beta - alpha)),
        (a[0] + reach * math.cos(beta + alpha), a[1] + reach * math.sin(beta + alpha)),
    ]


def arc_radius(base: float) -> float:
    """Radius of the facing-arc sectors drawn around a unit with this base radius."""
    return max(ARC_RADIUS, ARC_RADIUS_BASES * base)


def region_rings(geom: Any) -> list[tuple[Ring, list[Ring]]]:
    """A shapely (multi)polygon or collection as (exterior, holes) coordinate arrays (world)."""
    if geom is None or geom.is_empty:
        return []
    kind = geom.geom_type
    if kind == "Polygon":
        return [
            (
                np.asarray(geom.exterior.coords, dtype=np.float64),
                [np.asarray(r.coords) for r in geom.interiors],
            )
        ]
    if kind in ("MultiPolygon", "GeometryCollection"):
        out: list[tuple[Ring, list[Ring]]] = []
        for part in geom.geoms:
            out.extend(region_rings(part))
        return out
    if kind in ("Point", "MultiPoint", "LineString", "MultiLineString"):
        return region_rings(geom.buffer(0.05))
    return []


def thin_lines(geom: Any) -> list[Ring] | None:
    """The polylines (world) a thin region is drawn along, or None if it has room to be filled.

    Thin: one-dimensional (a retreat's arcs: their own lines), or polygons with no point farther
    than half of :data:`THIN_REGION` from their edge (their outlines).
    """
    if geom is None or geom.is_empty:
        return None
    parts = list(getattr(geom, "geoms", [geom]))
    lines: list[Ring] = []
    for part in parts:
        kind = part.geom_type
        if kind in ("LineString", "LinearRing"):
            lines.append(np.asarray(part.coords, dtype=np.float64))
        elif kind == "Polygon":
            # (a polygon no wider than w has area <= w * perimeter / 2: most regions stop here)
            if part.area > 0.5 * THIN_REGION * part.length or not part.buffer(-0.5 * THIN_REGION).is_empty:
                return None
            lines.append(np.asarray(part.exterior.coords, dtype=np.float64))
            lines.extend(np.asarray(r.coords, dtype=np.float64) for r in part.interiors)
        elif kind != "Point":
            return None
    return [line for line in lines if len(line) >= 2] or None
