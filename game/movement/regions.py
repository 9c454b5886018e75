"""Legal destinations of the short "moving reactions" as shapely polygons, and their checks.

Contract:
    * Every region is the set of centres a base of the given radius can reach from ``pos`` in
      ONE STRAIGHT move without overlapping anything on the way (other units = ``blockers``, a
      (k, 3) array of (x, y, radius) that must not include the mover) and that lies inside the
      map, intersected with the rule's shape. Regions are inner approximations (see
      :meth:`NavMesh.straight_region`): every point passes the matching ``is_legal_*`` check
      (a zero-width retreat ring after :func:`snap_retreat`), which is exact and is what the
      engine must use. Empty regions are empty Polygons.
    * Shapes (distances in inches; the caller converts rule yards with ``yards_per_inch``):
      step = disc of radius ``step_len`` (GURPS step, gurps-active-defense.txt "Step");
      retreat = half-annulus away from the attacker, distance in [min_len, max_len]
      (gurps-active-defense.txt "Retreat": at least one yard, at most a step); dodge move = disc
      of radius ``max_len``, 2" for the AP-pool rule (ap-dodge-reaction.txt "Movement After
      Dodge"); interposition = step positions whose base touches the attacker-friend line of
      fire (gurps-active-defense.txt "Sacrificial Dodge").
    * Zero-width retreat bands (GURPS Move < 10: exactly one yard) are drawn as a ring of width
      :data:`RETREAT_RING_WIDTH` *outside* the legal circle; :func:`snap_retreat` moves a point
      of it straight back onto the circle along the same ray, where it stays legal.
    * ``is_legal_*`` return None for a legal destination or a one-line reason; distances are
      compared with tolerance :data:`LEGAL_TOL`.
    * Rulesets decide WHEN a move is allowed; this module only answers WHERE.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import shapely
from numpy.typing import ArrayLike
from shapely.geometry import LineString, MultiPolygon, Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from game.movement.navmesh import (
    DISC_SEGMENTS,
    FloatArray,
    NavMesh,
    Point2,
    circle_polygon,
    disc_polygon,
    point_segment_distance,
    polygonal,
)

#: Tolerance of the legality checks on distances and angles (inches / cosine).
LEGAL_TOL = 1e-6
#: Width of the ring drawn for a zero-width retreat band (min_len == max_len), inches.
RETREAT_RING_WIDTH = 1e-3
#: The AP-pool dodge move: up to 2 inches in any direction (ap-dodge-reaction.txt).
AP_DODGE_MOVE_INCHES = 2.0
#: Segments per quarter circle of the round ends of the interposition corridor.
_CORRIDOR_QUAD_SEGS = 32


def _pt(p: ArrayLike) -> FloatArray:
    arr = np.asarray(p, dtype=float).reshape(-1)
    if arr.shape != (2,):
        raise ValueError(f"a point is (x, y), got {p!r}")
    return arr


def _away(pos: FloatArray, attacker_pos: FloatArray) -> FloatArray:
    w = pos - attacker_pos
    n = math.hypot(w[0], w[1])
    if n < 1e-12:
        raise ValueError("the attacker stands on the defender's centre: no direction to retreat")
    return w / n


def _check_band(min_len: float, max_len: float) -> None:
    if not (min_len > 0.0 and max_len >= min_len):
        raise ValueError(f"retreat band needs 0 < min_len <= max_len, got {min_len}, {max_len}")


# --------------------------------------------------------------------------- step


def step_region(
    mesh: NavMesh, pos: ArrayLike, radius: float, step_len: float, blockers: ArrayLike = ()
) -> Polygon | MultiPolygon:
    """Where a step of at most ``step_len`` inches can put the base (a disc, cut by obstacles).

    Args:
        mesh: The map.
        pos: The unit's centre.
        radius: Its base radius.
        step_len: Step length in inches (GURPS: 1 yard, or Move/10 yards, times inches per yard).
        blockers: Other units' bases, (k, 3).
    """
    return mesh.straight_region(pos, radius, step_len, blockers)


def is_legal_step(
    mesh: NavMesh,
    to: ArrayLike,
    pos: ArrayLike,
    radius: float,
    step_len: float,
    blockers: ArrayLike = (),
    blocker_ids: Sequence[str] = (),
) -> str | None:
    """None if a straight step from ``pos`` to ``to`` is legal, else why not."""
    return _straight_move_reason(mesh, "a step moves", to, pos, radius, step_len, blockers, blocker_ids)


def _straight_move_reason(
    mesh: NavMesh,
    what: str,
    to: ArrayLike,
    pos: ArrayLike,
    radius: float,
    max_len: float,
    blockers: ArrayLike,
    blocker_ids: Sequence[str],
) -> str | None:
    """Why a straight move of at most ``max_len`` from ``pos`` to ``to`` is illegal (None: legal)."""
    d = math.dist(_pt(to), _pt(pos))
    if d > max_len + LEGAL_TOL:
        return f"{what} at most {max_len:g} in (this one is {d:.3f} in)"
    return mesh.segment_reason(pos, to, radius, blockers, blocker_ids)


# --------------------------------------------------------------------------- retreat


def retreat_band(pos: ArrayLike, attacker_pos: ArrayLike, min_len: float, max_len: float) -> Polygon:
    """The retreat band ignoring terrain: a half-annulus on the side away from the attacker.

    Distances from ``pos`` lie in [min_len, outer] with outer = max(max_len, min_len +
    :data:`RETREAT_RING_WIDTH`); directions within 90° of straight away from the attacker. The
    inner circle is circumscribed and the outer inscribed, so no point is nearer than min_len.
    """
    _check_band(min_len, max_len)
    p, u = _pt(pos), _away(_pt(pos), _pt(attacker_pos))
    outer = max(max_len, min_len + RETREAT_RING_WIDTH)
    ring = disc_polygon(p, outer).difference(circle_polygon(p, min_len, DISC_SEGMENTS))
    perp = np.array([-u[1], u[0]])
    big = outer + 1.0
    half = Polygon([p + big * perp, p + big * perp + big * u, p - big * perp + big * u, p - big * perp])
    return polygonal(ring.intersection(half))


def retreat_region(
    mesh: NavMesh,
    pos: ArrayLike,
    attacker_pos: ArrayLike,
    radius: float,
    min_len: float,
    max_len: float,
    blockers: ArrayLike = (),
) -> Polygon | MultiPolygon:
    """Where a retreat can end: :func:`retreat_band` intersected with the straight-move region.

    Every point is strictly farther from the attacker than ``pos``. For a zero-width band the
    result is the thin outer ring described in :func:`retreat_band`; snap points with
    :func:`snap_retreat` before using them.
    """
    band = retreat_band(pos, attacker_pos, min_len, max_len)
    outer = max(max_len, min_len + RETREAT_RING_WIDTH)
    return polygonal(band.intersection(mesh.straight_region(pos, radius, outer, blockers)))


def snap_retreat(
    point: ArrayLike, pos: ArrayLike, attacker_pos: ArrayLike, min_len: float, max_len: float
) -> Point2:
    """The point of the ideal retreat band nearest to ``point`` (terrain not considered).

    Within the away half-plane the point is moved along its ray from ``pos`` to a distance
    clamped to [min_len, max_len]; behind it, onto the nearest end of the band. A point at
    ``pos`` goes straight back by min_len. Check the result with :func:`is_legal_retreat`.
    """
    _check_band(min_len, max_len)
    p, q = _pt(pos), _pt(point)
    u = _away(p, _pt(attacker_pos))
    v = q - p
    rho = math.hypot(v[0], v[1])
    if rho < 1e-12:
        out = p + min_len * u
    elif v @ u >= 0.0:
        out = p + min(max(rho, min_len), max_len) * (v / rho)
    else:
        cands = []
        for e in (np.array([-u[1], u[0]]), np.array([u[1], -u[0]])):
            c = p + min(max(float(v @ e), min_len), max_len) * e
            cands.append((math.dist(c, q), c))
        out = min(cands, key=lambda t: t[0])[1]
    return (float(out[0]), float(out[1]))


def is_legal_retreat(
    mesh: NavMesh,
    to: ArrayLike,
    pos: ArrayLike,
    attacker_pos: ArrayLike,
    radius: float,
    min_len: float,
    max_len: float,
    blockers: ArrayLike = (),
    blocker_ids: Sequence[str] = (),
) -> str | None:
    """None if retreating straight from ``pos`` to ``to`` is legal, else why not.

    Legal: distance within [min_len, max_len] (± :data:`LEGAL_TOL`), direction within 90° of
    straight away from the attacker, ending strictly farther from the attacker, and the straight
    move clear (:meth:`NavMesh.segment_reason`).
    """
    _check_band(min_len, max_len)
    p, t, a = _pt(pos), _pt(to), _pt(attacker_pos)
    u = _away(p, a)
    d = math.dist(t, p)
    if d < min_len - LEGAL_TOL or d > max_len + LEGAL_TOL:
        span = f"{min_len:g} in" if max_len - min_len <= LEGAL_TOL else f"{min_len:g} to {max_len:g} in"
        return f"a retreat moves {span} (this one is {d:.4f} in)"
    if (t - p) @ u < -LEGAL_TOL * d:
        return "a retreat must move away from the attacker (within 90° of straight back)"
    if math.dist(t, a) <= math.dist(p, a):
        return "a retreat must end farther from the attacker"
    return mesh.segment_reason(p, t, radius, blockers, blocker_ids)


# --------------------------------------------------------------------------- dodge move


def dodge_disc(
    mesh: NavMesh, pos: ArrayLike, radius: float, max_len: float, blockers: ArrayLike = ()
) -> Polygon | MultiPolygon:
    """Where the move after a successful dodge can end: up to ``max_len`` in any direction.

    The AP-pool rule gives :data:`AP_DODGE_MOVE_INCHES` (2"). Straight moves only, like the
    other reactions; a ruleset wanting a bent 2" move can use :meth:`NavMesh.reachable`.
    """
    return mesh.straight_region(pos, radius, max_len, blockers)


def is_legal_dodge_move(
    mesh: NavMesh,
    to: ArrayLike,
    pos: ArrayLike,
    radius: float,
    max_len: float,
    blockers: ArrayLike = (),
    blocker_ids: Sequence[str] = (),
) -> str | None:
    """None if the straight dodge move from ``pos`` to ``to`` is legal, else why not."""
    return _straight_move_reason(mesh, "a dodge move is", to, pos, radius, max_len, blockers, blocker_ids)


# --------------------------------------------------------------------------- interposition


def line_of_fire_corridor(friend_pos: ArrayLike, attacker_pos: ArrayLike, my_radius: float) -> Polygon:
    """Centres at which a base of ``my_radius`` touches or crosses the attacker-friend segment."""
    seg = LineString([_pt(attacker_pos), _pt(friend_pos)])
    return polygonal(seg.buffer(my_radius, quad_segs=_CORRIDOR_QUAD_SEGS))  # inscribed: conservative


def interpose_points(
    mesh: NavMesh,
    friend_pos: ArrayLike,
    attacker_pos: ArrayLike,
    my_pos: ArrayLike,
    my_radius: float,
    step_len: float,
    blockers: ArrayLike = (),
) -> Polygon | MultiPolygon:
    """Step destinations that put my base in the line of fire (GURPS Sacrificial Dodge).

    Criterion: after a legal step (:func:`step_region`) my base intersects (touching counts)
    the segment from the attacker's centre to the friend's centre. ``blockers`` should include
    the friend and the attacker, so positions overlapping them are excluded. Empty if I cannot
    interpose with one step.
    """
    region = step_region(mesh, my_pos, my_radius, step_len, blockers)
    if region.is_empty:
        return region
    return polygonal(region.intersection(line_of_fire_corridor(friend_pos, attacker_pos, my_radius)))


def is_legal_interpose(
    mesh: NavMesh,
    to: ArrayLike,
    friend_pos: ArrayLike,
    attacker_pos: ArrayLike,
    my_pos: ArrayLike,
    my_radius: float,
    step_len: float,
    blockers: ArrayLike = (),
    blocker_ids: Sequence[str] = (),
) -> str | None:
    """None if stepping to ``to`` is a legal interposition (see :func:`interpose_points`)."""
    why = is_legal_step(mesh, to, my_pos, my_radius, step_len, blockers, blocker_ids)
    if why is not None:
        return why
    t = _pt(to)
    d = float(point_segment_distance(t, _pt(attacker_pos), _pt(friend_pos)))
    if d > my_radius + LEGAL_TOL:
        return f"the base would not be in the line of fire ({d - my_radius:.3f} in clear of it)"
    return None


# --------------------------------------------------------------------------- sampling


def sample_points(region: BaseGeometry, n: int, rng: np.random.Generator) -> FloatArray:
    """``n`` points drawn uniformly from ``region`` (an (n, 2) array; (0, 2) if it is empty).

    Deterministic for a given Generator state: the region is triangulated (constrained
    Delaunay) and triangles are picked by area, so thin regions such as a retreat ring cost no
    more than fat ones.
    """
    poly = polygonal(region)
    if n <= 0 or poly.is_empty or poly.area <= 0.0:
        return np.zeros((0, 2))
    tris = [
        np.asarray(t.exterior.coords)[:3]
        for part in shapely.get_parts(poly)
        for t in shapely.get_parts(shapely.constrained_delaunay_triangles(part))
    ]
    if not tris:
        return np.zeros((0, 2))
    tri = np.stack(tris)
    e1, e2 = tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    area = 0.5 * np.abs(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0])
    pick = rng.choice(len(tri), size=n, p=area / area.sum())
    s, t = rng.random(n), rng.random(n)
    flip = s + t > 1.0
    s[flip], t[flip] = 1.0 - s[flip], 1.0 - t[flip]
    return np.asarray(tri[pick, 0] + s[:, None] * e1[pick] + t[:, None] * e2[pick])


def grid_points(region: BaseGeometry, spacing: float) -> FloatArray:
    """Points of the global lattice (multiples of ``spacing``) lying in ``region`` (k, 2).

    The lattice is anchored at the origin, so the same region always yields the same points.
    """
    if spacing <= 0.0:
        raise ValueError(f"spacing must be positive, got {spacing!r}")
    poly = polygonal(region)
    if poly.is_empty:
        return np.zeros((0, 2))
    x0, y0, x1, y1 = poly.bounds
    xs = np.arange(math.ceil(x0 / spacing), math.floor(x1 / spacing) + 1) * spacing
    ys = np.arange(math.ceil(y0 / spacing), math.floor(y1 / spacing) + 1) * spacing
    gx, gy = np.meshgrid(xs, ys)
    inside = shapely.intersects_xy(poly, gx.ravel(), gy.ravel())
    return np.column_stack([gx.ravel()[inside], gy.ravel()[inside]])


def nearest_point(region: BaseGeometry, p: ArrayLike) -> Point2 | None:
    """The point of ``region`` nearest to ``p`` (``p`` itself if inside), or None if empty."""
    if region.is_empty:
        return None
    q = nearest_points(region, Point(_pt(p)))[0]
    return (float(q.x), float(q.y))
