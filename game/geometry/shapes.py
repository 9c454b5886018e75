"""Shapely geometry of the cover model, for pictures (renderer, reports, debugging).

Contract (shapes are for drawing; the numbers come from :mod:`game.geometry.reference` and
:mod:`game.geometry.fast`):

* :func:`sight_corridor` — the corridor polygon: convex hull of the attacker's centre and the
  target's base disc (the disc approximated by a polygon).
* :func:`silhouette_parts` — the target's silhouette split into its hidden and exposed parts.
  In the **(angle, height) frame** x is the sight-ray angle in degrees from the bearing
  attacker→target (positive = clockwise on screen), from −α to +α, and y is the height above
  the ground, 0 to H; the hidden part is everything below the exact hidden-height profile
  (sampled densely between the profile's breakpoints), the exposed part the rest of the
  rectangle ``[−α, α] × [0, H]``. In **map space** each part is a wedge from the attacker's
  centre to the far edge of the target's base: ``hidden_wedge`` over the rays along which the
  target is entirely hidden, ``exposed_wedge`` over the rays along which some of it is seen.
* :func:`arc_wedges` — front/side/rear sectors of a given radius around a unit (DESIGN §1:
  front ±90°, side 90°..150° either side, rear the 60° behind).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from shapely.geometry import MultiPolygon, Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from components.sight import Arc
from components.terrain import ObstacleSpec
from game.geometry.model import FRONT_HALF_ANGLE, SIDE_LIMIT, UnitTable
from game.geometry.reference import ProfilePiece, SightProfile, unit_profile

#: Angular step (degrees) used to sample curves for pictures.
CURVE_STEP_DEG = 0.25


def sight_corridor(units: UnitTable, a: int, t: int, quad_segs: int = 16) -> Polygon:
    """The sight corridor from unit ``a`` to unit ``t`` (hull of A's centre and T's base).

    Args:
        units: the unit table.
        a: attacker row.
        t: target row.
        quad_segs: segments per quarter circle of the base's polygon.

    Returns:
        The corridor polygon.
    """
    disc = Point(float(units.xy[t, 0]), float(units.xy[t, 1])).buffer(
        float(units.base[t]), quad_segs=quad_segs
    )
    hull = unary_union([disc, Point(float(units.xy[a, 0]), float(units.xy[a, 1]))]).convex_hull
    assert isinstance(hull, Polygon)
    return hull


@dataclass(frozen=True)
class SilhouetteParts:
    """Hidden and exposed parts of a target's silhouette (see the module docstring).

    Attributes:
        profile: the exact profile they were drawn from.
        hidden: hidden part in the (angle °, height) frame.
        exposed: exposed part in the (angle °, height) frame.
        hidden_wedge: map-space wedge over the rays that see nothing of the target.
        exposed_wedge: map-space wedge over the rays that see some of it.
    """

    profile: SightProfile
    hidden: BaseGeometry
    exposed: BaseGeometry
    hidden_wedge: BaseGeometry
    exposed_wedge: BaseGeometry


def _samples(u0: float, u1: float) -> list[float]:
    n = max(2, math.ceil(math.degrees(u1 - u0) / CURVE_STEP_DEG) + 1)
    return [u0 + (u1 - u0) * k / (n - 1) for k in range(n)]


def _wedge(ax: float, ay: float, bearing: float, dist: float, base: float, u0: float, u1: float) -> Polygon:
    """Sector from A over local angles [u0, u1], out to the far edge of the target's base."""
    pts = [(ax, ay)]
    for u in _samples(u0, u1):
        along = dist * math.cos(u) + math.sqrt(max(0.0, base * base - (dist * math.sin(u)) ** 2))
        pts.append((ax + along * math.cos(bearing + u), ay + along * math.sin(bearing + u)))
    return Polygon(pts)


def silhouette_parts(obstacles: Sequence[ObstacleSpec], units: UnitTable, a: int, t: int) -> SilhouetteParts:
    """The target's silhouette from the attacker, split into hidden and exposed parts.

    Args:
        obstacles: the scenario's obstacles (e.g. ``SightIndex.obstacles``).
        units: the unit table.
        a: attacker row.
        t: target row.

    Returns:
        Polygons in the (angle, height) frame and map-space wedges.
    """
    prof = unit_profile(obstacles, units, a, t)
    top = prof.height
    alpha_deg = math.degrees(prof.half_angle)
    frame = Polygon([(-alpha_deg, 0.0), (alpha_deg, 0.0), (alpha_deg, top), (-alpha_deg, top)])
    hidden_polys: list[Polygon] = []
    ax, ay = float(units.xy[a, 0]), float(units.xy[a, 1])
    base = float(units.base[t])
    blocked: list[tuple[float, float]] = []
    seen: list[tuple[float, float]] = []
    for piece in prof.pieces:
        us = _samples(piece.u0, piece.u1)
        zs = [_piece_z(piece, u, top) for u in us]
        if max(zs) > 0.0:
            pts = [(math.degrees(piece.u0), 0.0)]
            pts += [(math.degrees(u), z) for u, z in zip(us, zs)]
            pts.append((math.degrees(piece.u1), 0.0))
            poly = Polygon(pts).buffer(0)
            if isinstance(poly, Polygon) and not poly.is_empty:
                hidden_polys.append(poly)
        full = min(zs) >= top
        span = blocked if full else seen
        if span and abs(span[-1][1] - piece.u0) < 1e-15:
            span[-1] = (span[-1][0], piece.u1)
        else:
            span.append((piece.u0, piece.u1))
    hidden = unary_union(hidden_polys) if hidden_polys else Polygon()
    hidden = hidden.intersection(frame)
    exposed = frame.difference(hidden)
    if prof.distance > 0.0:
        hw = [_wedge(ax, ay, prof.bearing, prof.distance, base, u0, u1) for u0, u1 in blocked]
        ew = [_wedge(ax, ay, prof.bearing, prof.distance, base, u0, u1) for u0, u1 in seen]
    else:
        hw, ew = [], []
    return SilhouetteParts(
        profile=prof,
        hidden=hidden,
        exposed=exposed,
        hidden_wedge=unary_union(hw) if hw else Polygon(),
        exposed_wedge=unary_union(ew) if ew else Polygon(),
    )


def _piece_z(piece: ProfilePiece, u: float, top: float) -> float:
    if math.isinf(piece.c0):
        return top
    return min(top, max(0.0, piece.c0 + piece.c1 * math.cos(u) + piece.c2 * math.sin(u)))


def _sector(cx: float, cy: float, radius: float, start_deg: float, end_deg: float) -> Polygon:
    n = max(2, math.ceil((end_deg - start_deg) / 3.0) + 1)
    pts = [(cx, cy)]
    for k in range(n):
        ang = math.radians(start_deg + (end_deg - start_deg) * k / (n - 1))
        pts.append((cx + radius * math.cos(ang), cy + radius * math.sin(ang)))
    return Polygon(pts)


def arc_wedges(xy: tuple[float, float], facing: float, radius: float) -> dict[Arc, BaseGeometry]:
    """Front, side and rear sectors around a unit (map space, y south, bearings clockwise).

    Args:
        xy: the unit's centre.
        facing: its facing, degrees (0 = east, 90 = south).
        radius: the sectors' radius, inches.

    Returns:
        ``{Arc.FRONT: Polygon, Arc.SIDE: MultiPolygon (both sides), Arc.REAR: Polygon}``.
    """
    cx, cy = float(xy[0]), float(xy[1])
    f = float(facing)
    front = _sector(cx, cy, radius, f - FRONT_HALF_ANGLE, f + FRONT_HALF_ANGLE)
    side = MultiPolygon(
        [
            _sector(cx, cy, radius, f + FRONT_HALF_ANGLE, f + SIDE_LIMIT),
            _sector(cx, cy, radius, f - SIDE_LIMIT, f - FRONT_HALF_ANGLE),
        ]
    )
    rear = _sector(cx, cy, radius, f + SIDE_LIMIT, f + 360.0 - SIDE_LIMIT)
    return {Arc.FRONT: front, Arc.SIDE: side, Arc.REAR: rear}
