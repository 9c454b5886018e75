"""The exact cover oracle: one attacker, one target, shapely and plain Python (DESIGN §3).

Contract (the numbers every faster path is tested against):

* Local frame: ``u`` is the angle of a sight ray from the attacker's centre, in radians,
  measured from the bearing attacker→target, positive clockwise on screen (towards growing
  bearings). The target's silhouette spans ``u ∈ [−α, α]`` with ``α = asin(min(1, r/D))``
  (``r`` target base radius, ``D`` centre distance) and heights ``[0, H]``.
* On the ray at ``u`` an obstacle of height ``h`` whose **interior** the ray crosses at
  distances ``d ∈ (0, D]`` hides the target below ``z = sup_d e + (h − e)·D/d`` (``e`` the
  attacker's eye height): the nearest entry sets it if ``h > e`` (``+∞``, i.e. everything, if
  the ray starts inside the obstacle), the farthest exit (capped at ``D``) if ``h ≤ e``. The
  hidden height of the ray is the highest ``z`` over obstacles, clamped to ``[0, H]``.
* Cover fraction = ∫ hidden height du / (2α·H), integrated **exactly**: the window is cut at
  every event where the governing boundary of some obstacle can change (polygon vertices and
  crossings of polygon edges with the circle of radius ``D`` around the attacker); inside such
  an interval each obstacle's ``z`` is ``c0 + c1·cos u + c2·sin u`` (or a constant), the
  interval is cut again where any of them crosses 0, ``H`` or another, and each final piece is
  integrated in closed form. The only error is floating point (~1e-12).
* Edge policy: a ray that only touches an obstacle (grazes a corner, runs along an edge) is not
  blocked by it; only a passage of positive length through the interior counts. Such rays are
  isolated angles, so this never changes a fraction; it decides which obstacles *take part*
  (for the hidden rule) and it is tested explicitly.
* Intervening units: every other unit whose base disc overlaps the sight corridor (the convex
  hull of the attacker's centre and the target's base disc) with positive area (touching does
  not count), nearest the attacker (centre to centre) first, ties in table order.
* Hidden (defence-dice rule): the target has cover (fraction ≥ 0.10, or an intervening unit)
  and a *screen* is within 0.5 inch of its base: an obstacle with size ≥ the target's size
  that takes part in the cover (its interior is crossed by silhouette rays within ``D``) and
  whose polygon comes within ``r + 0.5`` of the target's centre, or an intervening unit with
  size ≥ the target's size whose base edge is within 0.5 inch of the target's base edge.
* Degenerate input: an attacker exactly on the target's centre sees it without cover.

:func:`sight_naive` is the textbook loop (a shapely LineString per ray, a Python loop over the
obstacles, a fixed number of evenly spaced rays); it exists only as the benchmark baseline.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import LineString, Point, Polygon
from shapely.geometry.base import BaseGeometry

from components.sight import SightFacts
from components.terrain import ObstacleSpec
from game.geometry.model import (
    ANGLE_TOL,
    ARCS,
    HIDDEN_GAP,
    LEVELS,
    LIGHT_FROM,
    TOUCH_TOL,
    UnitTable,
    arc_codes,
    level_codes,
    snap_fraction,
)

_TWO_PI = 2.0 * math.pi
#: Relative tolerance for "the ray starts inside" / "the ray ends inside" decisions.
_REL_TOL = 1e-9
#: Sub-intervals shorter than this (radians) carry no area and are skipped.
_MIN_SPAN = 1e-14


def _wrap(a: float) -> float:
    """Fold an angle in radians into (−π, π]."""
    a = math.fmod(a + math.pi, _TWO_PI)
    if a <= 0.0:
        a += _TWO_PI
    return a - math.pi


@dataclass(frozen=True, slots=True)
class ProfilePiece:
    """One closed-form piece of the hidden-height profile.

    On ``[u0, u1]`` the hidden height is ``clamp(c0 + c1·cos u + c2·sin u, 0, H)``; ``c0`` is
    ``inf`` where the attacker stands inside an obstacle taller than its eye.

    Attributes:
        u0: start angle (local frame, radians).
        u1: end angle.
        c0: constant term.
        c1: cosine coefficient.
        c2: sine coefficient.
        obstacle: index of the obstacle that sets the height here, -1 if none.
        area: the piece's hidden area (∫ clamped height du).
    """

    u0: float
    u1: float
    c0: float
    c1: float
    c2: float
    obstacle: int
    area: float


@dataclass(frozen=True)
class SightProfile:
    """The exact hidden-height profile of one target seen by one attacker.

    Attributes:
        bearing: bearing attacker→target, radians (the local frame's zero).
        half_angle: ``α``; the silhouette spans ``[−α, α]``.
        distance: ``D``, centre to centre.
        eye: the attacker's eye height.
        height: ``H``, the target's silhouette height.
        pieces: ordered pieces covering ``[−α, α]``.
        participating: indices of obstacles whose interior some silhouette ray crosses within D.
    """

    bearing: float
    half_angle: float
    distance: float
    eye: float
    height: float
    pieces: tuple[ProfilePiece, ...]
    participating: frozenset[int]

    @property
    def hidden_area(self) -> float:
        """∫ hidden height du over the silhouette."""
        return math.fsum(p.area for p in self.pieces)

    @property
    def fraction(self) -> float:
        """Hidden area / silhouette area, snapped (see :func:`snap_fraction`)."""
        if self.height <= 0.0 or self.half_angle <= 0.0:
            return 0.0
        return snap_fraction(self.hidden_area / (2.0 * self.half_angle * self.height))

    def contributions(self) -> dict[int, float]:
        """Share of the silhouette hidden by each obstacle (they sum to the fraction)."""
        out: dict[int, float] = {}
        total = 2.0 * self.half_angle * self.height
        if total <= 0.0:
            return out
        for p in self.pieces:
            if p.obstacle >= 0 and p.area > 0.0:
                out[p.obstacle] = out.get(p.obstacle, 0.0) + p.area / total
        return out

    def z(self, u: float) -> float:
        """Clamped hidden height at local angle ``u`` (0 outside the silhouette)."""
        for p in self.pieces:
            if p.u0 <= u <= p.u1:
                return _clamp_eval(p.c0, p.c1, p.c2, u, self.height)
        return 0.0


def _clamp_eval(c0: float, c1: float, c2: float, u: float, top: float) -> float:
    if math.isinf(c0):
        return top
    return min(top, max(0.0, c0 + c1 * math.cos(u) + c2 * math.sin(u)))


def _sinusoid_area(c0: float, c1: float, c2: float, a: float, b: float) -> float:
    """∫_a^b c0 + c1·cos u + c2·sin u du."""
    return c0 * (b - a) + c1 * (math.sin(b) - math.sin(a)) - c2 * (math.cos(b) - math.cos(a))


def _roots(c0: float, c1: float, c2: float, level: float, a: float, b: float) -> list[float]:
    """Angles in (a, b) where c0 + c1·cos u + c2·sin u equals ``level``."""
    amp = math.hypot(c1, c2)
    if amp == 0.0 or math.isinf(c0):
        return []
    x = (level - c0) / amp
    if abs(x) > 1.0:
        return []
    mu = math.atan2(c2, c1)
    delta = math.acos(x)
    out = []
    for base in (mu - delta, mu + delta):
        for k in (-1, 0, 1):
            r = base + k * _TWO_PI
            if a < r < b:
                out.append(r)
    return out


Func = tuple[int, float, float, float]  # (obstacle, c0, c1, c2)


def _envelope(a: float, b: float, funcs: list[Func], top: float) -> list[ProfilePiece]:
    """Exact pieces of ``clamp(max_i f_i, 0, top)`` on [a, b]; each f_i is one sinusoid there."""
    if not funcs:
        return [ProfilePiece(a, b, 0.0, 0.0, 0.0, -1, 0.0)]
    cuts = {a, b}
    finite = [f for f in funcs if not math.isinf(f[1])]
    for _, c0, c1, c2 in finite:
        cuts.update(_roots(c0, c1, c2, 0.0, a, b))
        cuts.update(_roots(c0, c1, c2, top, a, b))
    for i, f in enumerate(finite):
        for g in finite[i + 1 :]:
            cuts.update(_roots(f[1] - g[1], f[2] - g[2], f[3] - g[3], 0.0, a, b))
    edges = sorted(cuts)
    pieces: list[ProfilePiece] = []
    for u0, u1 in itertools.pairwise(edges):
        if u1 - u0 <= 0.0:
            continue
        m = 0.5 * (u0 + u1)
        best: Func | None = None
        best_z = -math.inf
        for f in funcs:
            z = math.inf if math.isinf(f[1]) else f[1] + f[2] * math.cos(m) + f[3] * math.sin(m)
            if z > best_z:
                best, best_z = f, z
        assert best is not None
        if best_z >= top:
            area = top * (u1 - u0)
        elif best_z <= 0.0:
            area = 0.0
        else:
            area = _sinusoid_area(best[1], best[2], best[3], u0, u1)
        owner = best[0] if best_z > 0.0 else -1
        pieces.append(ProfilePiece(u0, u1, best[1], best[2], best[3], owner, area))
    return pieces


@functools.lru_cache(maxsize=64)
def _polygons(obstacles: tuple[ObstacleSpec, ...]) -> tuple[Polygon, ...]:
    polys = tuple(Polygon(o.polygon) for o in obstacles)
    for p in polys:
        shapely.prepare(p)
    return polys


def _as_polygons(obstacles: Sequence[ObstacleSpec]) -> tuple[Polygon, ...]:
    return _polygons(tuple(obstacles))


def _line_parts(geom: BaseGeometry) -> list[LineString]:
    """The positive-length line parts of an intersection result."""
    if geom.is_empty:
        return []
    if isinstance(geom, LineString):
        return [geom] if geom.length > 0.0 else []
    parts: list[LineString] = []
    for g in getattr(geom, "geoms", ()):
        parts.extend(_line_parts(g))
    return parts


def _ring(poly: Polygon) -> list[tuple[float, float]]:
    coords = [(float(x), float(y)) for x, y in poly.exterior.coords]
    return coords[:-1]


def _nearest_edge(ring: list[tuple[float, float]], px: float, py: float) -> tuple[float, float, float, float]:
    """The edge of ``ring`` closest to point p, as (x1, y1, x2, y2)."""
    best = (0.0, 0.0, 0.0, 0.0)
    best_d = math.inf
    n = len(ring)
    for i in range(n):
        x1, y1 = ring[i]
        x2, y2 = ring[(i + 1) % n]
        dx, dy = x2 - x1, y2 - y1
        ll = dx * dx + dy * dy
        t = 0.0 if ll == 0.0 else max(0.0, min(1.0, ((px - x1) * dx + (py - y1) * dy) / ll))
        d = math.hypot(px - (x1 + t * dx), py - (y1 + t * dy))
        if d < best_d:
            best, best_d = (x1, y1, x2, y2), d
    return best


def sight_profile(
    obstacles: Sequence[ObstacleSpec],
    attacker_xy: tuple[float, float],
    eye: float,
    target_xy: tuple[float, float],
    base: float,
    height: float,
) -> SightProfile:
    """The exact hidden-height profile of a target seen from an attacker's eye.

    Args:
        obstacles: the scenario's obstacles.
        attacker_xy: the attacker's centre.
        eye: the attacker's eye height.
        target_xy: the target's centre.
        base: the target's base radius (> 0).
        height: the target's silhouette height.

    Returns:
        The profile (pieces over the whole silhouette, and the obstacles taking part).
    """
    ax, ay = float(attacker_xy[0]), float(attacker_xy[1])
    tx, ty = float(target_xy[0]), float(target_xy[1])
    dist = math.hypot(tx - ax, ty - ay)
    if dist == 0.0:
        return SightProfile(0.0, math.pi / 2, 0.0, eye, height, (), frozenset())
    phi = math.atan2(ty - ay, tx - ax)
    alpha = math.asin(min(1.0, base / dist))
    fx, fy = math.cos(phi), math.sin(phi)  # forward
    sx, sy = -fy, fx  # towards +u
    polys = _as_polygons(obstacles)
    capsule = LineString([(ax, ay), (tx, ty)]).buffer(base * (1.0 + 1e-6) + 1e-9)
    cand = [i for i, p in enumerate(polys) if p.intersects(capsule)]

    events = {-alpha, alpha}
    for i in cand:
        ring = _ring(polys[i])
        for k, (vx, vy) in enumerate(ring):
            if (vx, vy) != (ax, ay):
                u = _wrap(math.atan2(vy - ay, vx - ax) - phi)
                if -alpha < u < alpha:
                    events.add(u)
            # crossings of the edge with the circle of radius D around the attacker
            wx, wy = ring[(k + 1) % len(ring)]
            ex, ey = wx - vx, wy - vy
            qa = ex * ex + ey * ey
            qb = 2.0 * (ex * (vx - ax) + ey * (vy - ay))
            qc = (vx - ax) ** 2 + (vy - ay) ** 2 - dist * dist
            disc = qb * qb - 4.0 * qa * qc
            if qa > 0.0 and disc >= 0.0:
                for sgn in (-1.0, 1.0):
                    t = (-qb + sgn * math.sqrt(disc)) / (2.0 * qa)
                    if 0.0 <= t <= 1.0:
                        px, py = vx + t * ex, vy + t * ey
                        u = _wrap(math.atan2(py - ay, px - ax) - phi)
                        if -alpha < u < alpha:
                            events.add(u)

    heights = [obstacles[i].height for i in range(len(obstacles))]
    tol = _REL_TOL * max(1.0, dist)
    pieces: list[ProfilePiece] = []
    crossed: dict[int, float] = {}  # obstacle -> angle of the rays through its interior
    cuts = sorted(events)
    for u0, u1 in itertools.pairwise(cuts):
        if u1 - u0 < _MIN_SPAN:
            continue
        um = 0.5 * (u0 + u1)
        dx, dy = math.cos(phi + um), math.sin(phi + um)
        ray = LineString([(ax, ay), (ax + dist * dx, ay + dist * dy)])
        funcs: list[Func] = []
        for i in cand:
            parts = _line_parts(ray.intersection(polys[i]))
            if not parts:
                continue
            crossed[i] = crossed.get(i, 0.0) + (u1 - u0)
            ds = [math.hypot(x - ax, y - ay) for part in parts for x, y in part.coords]
            h = float(heights[i])
            if h > eye:
                d = min(ds)
                if d <= tol:
                    funcs.append((i, math.inf, 0.0, 0.0))
                    continue
            else:
                d = max(ds)
                if d >= dist - tol:
                    funcs.append((i, h, 0.0, 0.0))
                    continue
            # z = e + (h − e)·D/d with d the distance to the governing edge's line along the ray.
            x1, y1, x2, y2 = _nearest_edge(_ring(polys[i]), ax + d * dx, ay + d * dy)
            nx, ny = y2 - y1, -(x2 - x1)
            offset = nx * (x1 - ax) + ny * (y1 - ay)
            scale = (h - eye) * dist / offset
            funcs.append((i, eye, scale * (nx * fx + ny * fy), scale * (nx * sx + ny * sy)))
        pieces.extend(_envelope(u0, u1, funcs, height))
    taking_part = frozenset(i for i, width in crossed.items() if width > ANGLE_TOL)
    return SightProfile(phi, alpha, dist, eye, height, tuple(pieces), taking_part)


def corridor_distance(
    point: tuple[float, float], attacker_xy: tuple[float, float], target_xy: tuple[float, float], base: float
) -> float:
    """Distance from a point to the sight corridor (hull of the attacker's centre and target disc).

    Returns 0 inside the corridor.
    """
    px, py = point
    ax, ay = attacker_xy
    tx, ty = target_xy
    d_t = math.hypot(px - tx, py - ty)
    dist = math.hypot(tx - ax, ty - ay)
    if d_t <= base:
        return 0.0
    if dist <= base:
        return d_t - base
    alpha = math.asin(base / dist)
    length = math.sqrt(dist * dist - base * base)
    fx, fy = (tx - ax) / dist, (ty - ay) / dist
    x = (px - ax) * fx + (py - ay) * fy
    y = abs(-(px - ax) * fy + (py - ay) * fx)
    if y * math.cos(alpha) <= x * math.sin(alpha) and x <= length * math.cos(alpha):
        return 0.0
    qx, qy = length * math.cos(alpha), length * math.sin(alpha)
    t = max(0.0, min(1.0, (x * qx + y * qy) / (qx * qx + qy * qy)))
    seg = math.hypot(x - t * qx, y - t * qy)
    return min(seg, d_t - base)


def intervening_units(units: UnitTable, a: int, t: int) -> tuple[int, ...]:
    """Rows of the units whose base overlaps the corridor a→t, nearest the attacker first."""
    xy = units.xy
    ax, ay = float(xy[a, 0]), float(xy[a, 1])
    tx, ty = float(xy[t, 0]), float(xy[t, 1])
    rows = []
    for u in range(len(units)):
        if u in (a, t):
            continue
        p = (float(xy[u, 0]), float(xy[u, 1]))
        if corridor_distance(p, (ax, ay), (tx, ty), float(units.base[t])) < float(units.base[u]) - TOUCH_TOL:
            rows.append((math.hypot(p[0] - ax, p[1] - ay), u))
    rows.sort()
    return tuple(u for _, u in rows)


def _unit_screens(units: UnitTable, t: int, between: Sequence[int]) -> bool:
    for u in between:
        gap = math.dist(units.xy[u], units.xy[t]) - float(units.base[u]) - float(units.base[t])
        if units.size[u] >= units.size[t] and gap <= HIDDEN_GAP + TOUCH_TOL:
            return True
    return False


def _obstacle_screens(
    obstacles: Sequence[ObstacleSpec], units: UnitTable, t: int, taking_part: frozenset[int]
) -> bool:
    polys = _as_polygons(obstacles)
    centre = Point(float(units.xy[t, 0]), float(units.xy[t, 1]))
    reach = float(units.base[t]) + HIDDEN_GAP + TOUCH_TOL
    return any(
        obstacles[i].size >= units.size[t] and polys[i].distance(centre) <= reach for i in sorted(taking_part)
    )


def _facts(
    obstacles: Sequence[ObstacleSpec],
    units: UnitTable,
    a: int,
    t: int,
    fraction: float,
    taking_part: frozenset[int],
) -> SightFacts:
    between = intervening_units(units, a, t)
    has_cover = fraction >= LIGHT_FROM or bool(between)
    hidden = has_cover and (
        _unit_screens(units, t, between) or _obstacle_screens(obstacles, units, t, taking_part)
    )
    arc = ARCS[int(arc_codes(units.xy[[t]], units.facing[[t]], units.xy[[a]])[0])]
    return SightFacts(
        attacker=units.ids[a],
        target=units.ids[t],
        visible=fraction < 1.0,
        cover_fraction=fraction,
        cover=LEVELS[int(level_codes(np.array([fraction]))[0])],
        intervening=tuple(units.ids[u] for u in between),
        hidden=hidden,
        arc=arc,
        distance=math.dist(units.xy[a], units.xy[t]),
    )


def unit_profile(obstacles: Sequence[ObstacleSpec], units: UnitTable, a: int, t: int) -> SightProfile:
    """:func:`sight_profile` for two rows of a unit table."""
    return sight_profile(
        obstacles,
        (float(units.xy[a, 0]), float(units.xy[a, 1])),
        float(units.eye[a]),
        (float(units.xy[t, 0]), float(units.xy[t, 1])),
        float(units.base[t]),
        float(units.height[t]),
    )


def sight_reference(obstacles: Sequence[ObstacleSpec], units: UnitTable, a: int, t: int) -> SightFacts:
    """Exact line of sight and cover from unit ``a`` to unit ``t`` (the oracle).

    Args:
        obstacles: the scenario's obstacles.
        units: the unit table.
        a: attacker row.
        t: target row.

    Returns:
        The sight facts; ``cover_fraction`` is exact up to floating point.
    """
    if a == t:
        raise ValueError("attacker and target must differ")
    prof = unit_profile(obstacles, units, a, t)
    return _facts(obstacles, units, a, t, prof.fraction, prof.participating)


def sight_naive(
    obstacles: Sequence[ObstacleSpec], units: UnitTable, a: int, t: int, rays: int = 8
) -> SightFacts:
    """The naive baseline: ``rays`` evenly spaced rays, a LineString each, a loop over obstacles.

    Each ray's hidden height uses the same formula as the oracle, so the result converges to
    :func:`sight_reference` as ``rays`` grows (error ≲ 1/(2·rays) at an obstacle's edge).

    Args:
        obstacles: the scenario's obstacles.
        units: the unit table.
        a: attacker row.
        t: target row.
        rays: number of rays (midpoint rule over the silhouette's angle).

    Returns:
        Sight facts computed the slow way.
    """
    ax, ay = float(units.xy[a, 0]), float(units.xy[a, 1])
    tx, ty = float(units.xy[t, 0]), float(units.xy[t, 1])
    eye, top, base = float(units.eye[a]), float(units.height[t]), float(units.base[t])
    dist = math.hypot(tx - ax, ty - ay)
    polys = _as_polygons(obstacles)  # built once per obstacle list, as any real loop would
    taking_part: set[int] = set()
    total = 0.0
    if dist > 0.0 and top > 0.0:
        phi = math.atan2(ty - ay, tx - ax)
        alpha = math.asin(min(1.0, base / dist))
        for k in range(rays):
            u = -alpha + (k + 0.5) * 2.0 * alpha / rays
            end = (ax + dist * math.cos(phi + u), ay + dist * math.sin(phi + u))
            ray = LineString([(ax, ay), end])
            z = 0.0
            for i, poly in enumerate(polys):
                if not ray.intersects(poly):
                    continue
                parts = _line_parts(ray.intersection(poly))
                if not parts:
                    continue
                taking_part.add(i)
                ds = [math.hypot(x - ax, y - ay) for p in parts for x, y in p.coords]
                h = float(obstacles[i].height)
                if h > eye:
                    d = min(ds)
                    zi = top if d <= 0.0 else eye + (h - eye) * dist / d
                else:
                    zi = eye + (h - eye) * dist / max(ds)
                z = max(z, zi)
            total += min(top, max(0.0, z))
        fraction = snap_fraction(total / (rays * top))
    else:
        fraction = 0.0
    return _facts(obstacles, units, a, t, fraction, frozenset(taking_part))
