"""Legal destinations of the short "moving reactions" as shapely regions, and their checks.

Contract:
    * Every region is the set of centres a base of the given radius can reach from ``pos`` in
      ONE STRAIGHT move without overlapping anything on the way (other units = ``blockers``, a
      (k, 3) array of (x, y, radius) that must not include the mover) and that lies inside the
      map, intersected with the rule's shape. Regions are inner approximations (see
      :meth:`NavMesh.straight_region`): every point passes the matching ``is_legal_*`` check,
      which is exact and is what the engine must use. Empty regions are empty geometries.
    * Shapes (distances in inches; the caller converts rule yards with ``yards_per_inch``):
      step = disc of radius ``step_len`` (GURPS step, gurps-active-defense.txt "Step");
      dodge move = disc of radius ``max_len``, 2" for the AP-pool rule (ap-dodge-reaction.txt
      "Movement After Dodge"); interposition = step positions whose base touches the
      attacker-friend line of fire (gurps-active-defense.txt "Sacrificial Dodge").
    * Retreat (gurps-active-defense.txt "Retreat": at least one yard, at most a step, away from
      the attacker) is one-dimensional: an :class:`ArcRegion`, the arcs of directions within 90°
      of straight away in which a straight retreat of exactly ``min_len`` (and of exactly
      ``max_len``) is legal, found exactly (:func:`retreat_arcs`). With Move under 10 yd the band
      has zero width (exactly one yard) and the arc is all there is. :func:`is_legal_retreat`
      accepts a point within :data:`RETREAT_SNAP_TOL` of the band and judges the point
      :func:`snap_retreat` puts on it; the engine moves the unit to that snapped point.
    * ``is_legal_*`` return None for a legal destination or a one-line reason; distances are
      compared with tolerance :data:`LEGAL_TOL`.
    * Rulesets decide WHEN a move is allowed; this module only answers WHERE.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from numpy.typing import ArrayLike
from shapely.geometry import LineString, MultiLineString, MultiPolygon, Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from game.movement.navmesh import (
    SEGMENT_ASK,
    SEGMENT_FREE,
    TOUCH_TOL,
    FloatArray,
    NavMesh,
    Point2,
    as_blockers,
    point_segment_distance,
    polygonal,
)

#: Tolerance of the legality checks on distances and angles (inches / cosine).
LEGAL_TOL = 1e-6
#: A retreat point may lie this far (inches) off the legal distance band: it stands for the point
#: :func:`snap_retreat` puts on the band, which is what is checked and where the unit goes.
RETREAT_SNAP_TOL = 1e-3
#: Retreat arcs keep this angle (radians) clear of their ends (see :func:`retreat_arcs`).
ARC_MARGIN = 1e-5
#: Largest angle (radians) between neighbouring vertices of a drawn arc (0.5°).
ARC_STEP = math.pi / 360.0
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


def legal_steps(
    mesh: NavMesh,
    points: Sequence[tuple[float, float]],
    pos: tuple[float, float],
    radius: float,
    step_len: float,
    blockers: ArrayLike = (),
    blocker_ids: Sequence[str] = (),
) -> list[bool]:
    """``[is_legal_step(mesh, p, pos, ...) is None for p in points]``, in bulk: the length test
    and one kernel verdict per point (:meth:`NavMesh.segment_codes`); only the close calls the
    kernel leaves to GEOS are asked one by one."""
    codes = mesh.segment_codes(pos, points, radius, blockers)
    limit = step_len + LEGAL_TOL
    out: list[bool] = []
    for p, code in zip(points, codes, strict=True):
        if math.dist(p, pos) > limit:
            out.append(False)
        elif code == SEGMENT_ASK:
            out.append(is_legal_step(mesh, p, pos, radius, step_len, blockers, blocker_ids) is None)
        else:
            out.append(code == SEGMENT_FREE)
    return out


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


@dataclass(frozen=True)
class ArcRegion:
    """Points on circles about ``centre``: each arc ``(radius, start, end)`` holds the points at
    distance ``radius`` in the directions ``start <= angle <= end`` (radians, ``end - start < 2π``).

    A one-dimensional region (the legal ends of a retreat of an exact length). Calling it builds
    its shapely geometry, a MultiLineString whose vertices lie on the circles (at most
    :data:`ARC_STEP` apart, so every point of it is within ``radius·(1 − cos(ARC_STEP/2))`` of its
    circle); :meth:`at` places points exactly on the arcs (for sampling by angle).
    """

    centre: Point2
    arcs: tuple[tuple[float, float, float], ...]

    @property
    def is_empty(self) -> bool:
        return not self.arcs

    @property
    def length(self) -> float:
        """Total arc length (inches)."""
        return float(sum(rho * (e - s) for rho, s, e in self.arcs))

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """(min x, min y, max x, max y) of the geometry."""
        return tuple(float(v) for v in self().bounds)  # type: ignore[return-value]

    def at(self, lengths: ArrayLike) -> FloatArray:
        """The points reached after each of ``lengths`` (inches) along the arcs, taken in order
        (an (n, 2) array; lengths are clamped to [0, :attr:`length`])."""
        want = np.asarray(lengths, dtype=float).reshape(-1)
        if self.is_empty:
            return np.zeros((0, 2))
        sizes = np.array([rho * (e - s) for rho, s, e in self.arcs])
        ends = np.cumsum(sizes)
        k = np.minimum(np.searchsorted(ends, want, side="right"), len(self.arcs) - 1)
        arcs = np.asarray(self.arcs)
        before = ends[k] - sizes[k]
        rho, s, e = arcs[k, 0], arcs[k, 1], arcs[k, 2]
        ang = np.clip(s + (want - before) / rho, s, e)
        cx, cy = self.centre
        return np.column_stack([cx + rho * np.cos(ang), cy + rho * np.sin(ang)])

    def __call__(self) -> BaseGeometry:
        """The arcs as a shapely MultiLineString (empty if there are none)."""
        lines = []
        cx, cy = self.centre
        for rho, s, e in self.arcs:
            n = max(1, math.ceil((e - s) / ARC_STEP))
            ang = s + (e - s) * np.arange(n + 1) / n
            lines.append(np.column_stack([cx + rho * np.cos(ang), cy + rho * np.sin(ang)]))
        return MultiLineString(lines)


def _check_band(min_len: float, max_len: float) -> None:
    if not (min_len > 0.0 and max_len >= min_len):
        raise ValueError(f"retreat band needs 0 < min_len <= max_len, got {min_len}, {max_len}")


def retreat_arcs(
    mesh: NavMesh,
    pos: ArrayLike,
    attacker_pos: ArrayLike,
    radius: float,
    min_len: float,
    max_len: float,
    blockers: ArrayLike = (),
) -> ArcRegion:
    """Where a retreat of exactly ``min_len`` or exactly ``max_len`` can end (gurps-active-defense.txt
    "Retreat": at least one yard, at most a step, away from the attacker).

    Each arc is a set of directions, within 90° of straight away from the attacker, in which a
    straight move of that length is legal (:func:`is_legal_retreat`, the authority). The
    directions are found exactly: legality can only change at a *critical angle* (the map edge,
    a blocker's or an obstacle edge's inflated outline touching the moved base's path or its end
    point), so the half-circle is cut at every critical angle and each piece is judged by the
    exact straight-move check of :class:`NavMesh` at its middle. A defender whose base touches
    units on both flanks keeps the thin arc of straight-back directions the check accepts (the
    touching tolerance makes it about 1e-4 rad wide). Each arc then loses
    :data:`ARC_MARGIN` at both ends (a quarter of its width if that is less), and its ends are
    checked, so that points drawn on it and rounded to 1e-6 inch stay legal. Retreats of a length
    between the two are legal too (the check accepts them) but are not part of the region.
    """
    _check_band(min_len, max_len)
    p, a = _pt(pos), _pt(attacker_pos)
    u = _away(p, a)
    away = math.atan2(u[1], u[0])
    bl = as_blockers(blockers)
    arcs: list[tuple[float, float, float]] = []
    for length in sorted({float(min_len), float(max_len)}):
        arcs.extend((length, s, e) for s, e in _legal_directions(mesh, p, away, float(radius), length, bl))
    return ArcRegion((float(p[0]), float(p[1])), tuple(arcs))


def _legal_directions(
    mesh: NavMesh, p: FloatArray, away: float, r: float, length: float, bl: FloatArray
) -> list[tuple[float, float]]:
    """The direction intervals (radians, within ±π/2 of ``away``) of legal straight retreats."""
    lo, hi = away - 0.5 * math.pi, away + 0.5 * math.pi

    def legal(angle: float) -> bool:
        q = (p[0] + length * math.cos(angle), p[1] + length * math.sin(angle))
        return bool(mesh.segment_clear(p, q, r, bl))

    cuts = {lo, hi}
    for ang in _critical_angles(mesh, p, r, length, bl):
        x = lo + (ang - lo) % (2.0 * math.pi)
        if x < hi:
            cuts.add(x)
    edges = sorted(cuts)
    spans: list[list[float]] = []
    for x, y in itertools.pairwise(edges):
        if y - x > 1e-13 and legal(0.5 * (x + y)):
            if spans and spans[-1][1] == x:
                spans[-1][1] = y
            else:
                spans.append([x, y])
    out = []
    for x, y in spans:
        margin = min(ARC_MARGIN, 0.25 * (y - x))
        mid = 0.5 * (x + y)
        s, e = _inner_end(legal, x + margin, mid), _inner_end(legal, y - margin, mid)
        if e > s:
            out.append((s, e))
    return out


def _inner_end(legal: Callable[[float], bool], end: float, inside: float) -> float:
    """``end`` if legal, else the legal angle next to the boundary between it and ``inside``."""
    if legal(end):
        return end
    for _ in range(60):
        mid = 0.5 * (end + inside)
        if legal(mid):
            inside = mid
        else:
            end = mid
    return inside


def _critical_angles(mesh: NavMesh, p: FloatArray, r: float, length: float, bl: FloatArray) -> list[float]:
    """Directions from ``p`` in which a straight move of ``length`` can start or stop being legal."""
    out: list[float] = []
    # The map edge: the end point crosses a side of the box the centre must stay in.
    for axis, side in ((0, r), (0, mesh.width - r), (1, r), (1, mesh.height - r)):
        c = (side - p[axis]) / length
        if -1.0 <= c <= 1.0:
            base = math.acos(c)
            out.extend((base, -base) if axis == 0 else (0.5 * math.pi - base, 0.5 * math.pi + base))
    # Blockers: discs of radius (their base + r), less the touching tolerance.
    for x, y, b in bl:
        if math.hypot(x - p[0], y - p[1]) < b + r + length + 1e-6:
            out.extend(_disc_angles(p, (x, y), b + r - TOUCH_TOL, length))
    # Obstacles: each edge's capsule of radius r (two end discs, two offset sides).
    rr = r - TOUCH_TOL
    near = Point(p).buffer(length + r + 1e-6)
    for geom in mesh.obstacle_geoms:
        if not geom.intersects(near):
            continue
        for ring in _rings_of(geom):
            pts = np.asarray(ring.coords, dtype=float)
            for v0, v1 in itertools.pairwise(pts):
                out.extend(_disc_angles(p, v0, rr, length))
                edge = v1 - v0
                n = math.hypot(edge[0], edge[1])
                if n < 1e-12:
                    continue
                normal = np.array([-edge[1], edge[0]]) * (rr / n)
                for sgn in (1.0, -1.0):
                    out.extend(_segment_angles(p, v0 + sgn * normal, v1 + sgn * normal, length))
    return out


def _rings_of(geom: BaseGeometry) -> list[BaseGeometry]:
    rings = []
    for part in shapely.get_parts(geom):
        if isinstance(part, Polygon):
            rings.append(part.exterior)
            rings.extend(part.interiors)
        elif isinstance(part, LineString):
            rings.append(part)
    return rings


def _disc_angles(p: FloatArray, c: Sequence[float] | FloatArray, rad: float, length: float) -> list[float]:
    """Where a move of ``length`` from ``p`` starts or stops touching the disc (``c``, ``rad``):
    the tangents from ``p`` (perpendicular to ``c`` if ``p`` is on or in it) and the directions
    whose end point is on its circle."""
    cx, cy = float(c[0]) - p[0], float(c[1]) - p[1]
    dist = math.hypot(cx, cy)
    if dist < 1e-12:
        return []
    phi = math.atan2(cy, cx)
    half = math.asin(rad / dist) if dist > rad else 0.5 * math.pi
    out = [phi - half, phi + half, phi - 0.5 * math.pi, phi + 0.5 * math.pi]
    cos_end = (length * length + dist * dist - rad * rad) / (2.0 * length * dist)
    if -1.0 <= cos_end <= 1.0:
        g = math.acos(cos_end)
        out.extend((phi - g, phi + g))
    return out


def _segment_angles(p: FloatArray, s0: FloatArray, s1: FloatArray, length: float) -> list[float]:
    """Directions of the segment's ends and of its crossings with the circle of ``length``."""
    out = [math.atan2(s0[1] - p[1], s0[0] - p[0]), math.atan2(s1[1] - p[1], s1[0] - p[0])]
    d = s1 - s0
    f = s0 - p
    qa = float(d @ d)
    qb = 2.0 * float(f @ d)
    qc = float(f @ f) - length * length
    disc = qb * qb - 4.0 * qa * qc
    if qa > 0.0 and disc >= 0.0:
        root = math.sqrt(disc)
        for t in ((-qb - root) / (2.0 * qa), (-qb + root) / (2.0 * qa)):
            if -1e-9 <= t <= 1.0 + 1e-9:
                x = f + t * d
                out.append(math.atan2(x[1], x[0]))
    return out


def retreat_region(
    mesh: NavMesh,
    pos: ArrayLike,
    attacker_pos: ArrayLike,
    radius: float,
    min_len: float,
    max_len: float,
    blockers: ArrayLike = (),
) -> BaseGeometry:
    """The geometry of :func:`retreat_arcs` (a MultiLineString; empty if no retreat is legal)."""
    return retreat_arcs(mesh, pos, attacker_pos, radius, min_len, max_len, blockers)()


def snap_retreat(
    point: ArrayLike, pos: ArrayLike, attacker_pos: ArrayLike, min_len: float, max_len: float
) -> Point2:
    """The point of the ideal retreat band nearest to ``point`` (terrain not considered).

    Within the away half-plane the point is moved along its ray from ``pos`` to a distance
    clamped to [min_len, max_len]; behind it, onto the nearest end of the band. A point at
    ``pos`` goes straight back by min_len. :func:`is_legal_retreat` judges a point by where this
    puts it, and the engine moves the unit there.
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
    """None if retreating straight from ``pos`` towards ``to`` is legal, else why not.

    ``to`` may lie up to :data:`RETREAT_SNAP_TOL` inside or outside the band [min_len, max_len]
    (a point picked on a drawn arc, or rounded); it stands for :func:`snap_retreat` of itself,
    the point the unit moves to, which must be legal: direction within 90° of straight away
    from the attacker (± :data:`LEGAL_TOL`), ending strictly farther from the attacker, and the
    straight move clear (:meth:`NavMesh.segment_reason`).
    """
    _check_band(min_len, max_len)
    p, t, a = _pt(pos), _pt(to), _pt(attacker_pos)
    u = _away(p, a)
    d = math.dist(t, p)
    if d < min_len - RETREAT_SNAP_TOL or d > max_len + RETREAT_SNAP_TOL:
        span = f"{min_len:g} in" if max_len - min_len <= LEGAL_TOL else f"{min_len:g} to {max_len:g} in"
        return f"a retreat moves {span} (this one is {d:.4f} in)"
    if (t - p) @ u < -LEGAL_TOL * d:
        return "a retreat must move away from the attacker (within 90° of straight back)"
    s = snap_retreat(t, p, a, min_len, max_len)
    if math.dist(s, a) <= math.dist(p, a):
        return "a retreat must end farther from the attacker"
    return mesh.segment_reason(p, s, radius, blockers, blocker_ids)


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
