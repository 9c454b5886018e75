"""The move after a successful dodge (AP pool, 2"): into the best cover in reach.

Contract: :func:`dodge_move(view, decision, rng) <dodge_move>` answers a ``dodge_move``
decision with a legal command. Candidates are the spot where the unit stands, points on
rings around it (:data:`RINGS` fractions of the move's reach, ``detail["max_len"]`` or else
read from the region's bounds, at
:data:`ANGLES` bearings: the region's rim, where cover changes most, is covered evenly) and
:data:`SAMPLES` uniform samples of the region. Each candidate's threat is the exact cover of
the unit there against every enemy in action (one call of the cover kernel,
:func:`game.ai.tactics.cover_matrix`): the distance-weighted share of the unit each enemy
sees, so enemies that cannot see it there count for nothing. The unit moves to the legal
candidate of least threat, and only if that is at least :data:`MOVE_GAIN` less than where it
stands; if no such candidate is legal, the best of them snapped onto the region
(:func:`game.ai.points.snap_first`, the window's snapping), if that still gains as much;
otherwise it stays. Deterministic given ``rng``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from game.ai import tactics as t
from game.ai.points import snap_first
from game.core.commands import Command, Decision
from game.engine.view import MatchView

#: Rings of candidates, as fractions of the move's reach.
RINGS = (0.25, 0.5, 0.75, 1.0)
#: Bearings per ring.
ANGLES = 16
#: Uniform samples of the region besides the rings.
SAMPLES = 16
#: A dodge move must lower the threat by this much to be taken.
MOVE_GAIN = 0.05
#: Rings stop this far inside the reach (a point on the rim must validate after rounding).
RIM = 1e-4


def ring_points(xy: t.Point, reach: float) -> list[t.Point]:
    """Candidate centres on :data:`RINGS` around ``xy`` (reach in inches)."""
    out: list[t.Point] = []
    for f in RINGS:
        r = max(0.0, f * reach - RIM)
        for k in range(ANGLES):
            a = 2.0 * math.pi * k / ANGLES
            out.append((xy[0] + r * math.cos(a), xy[1] + r * math.sin(a)))
    return out


def _reach_of(move: Any, xy: t.Point) -> float:
    """The move's reach from its region's bounds (when the option gives no ``max_len``)."""
    region = move.region
    if region is None or region.is_empty:
        return 0.0
    minx, miny, maxx, maxy = region.bounds
    return float(max(maxx - xy[0], xy[0] - minx, maxy - xy[1], xy[1] - miny))


def dodge_move(view: MatchView, decision: Decision, rng: np.random.Generator) -> Command | None:
    """The command: a move into the best cover in reach, or staying (see the module docstring)."""
    uid = decision.unit
    stay = next((o for o in decision.options if o.point_field is None), None)
    move = next((o for o in decision.options if o.point_field is not None and o.has_region), None)
    if move is None:
        return stay.command if stay is not None else None
    _, rows = t.enemy_rows(view, uid)
    if len(rows) == 0:
        return stay.command if stay is not None else None
    unit = t.me(view, uid)
    reach = float((move.detail or {}).get("max_len", 0.0)) or _reach_of(move, unit.xy)
    extra = (unit.xy, *ring_points(unit.xy, reach)) if reach > 0 else (unit.xy,)
    pts = t.candidates(move, rng, SAMPLES, extra)
    exposed = t.exposure_matrix(view, unit, pts, rows)
    th = t.threat(exposed, t.distance_weights(pts, view, rows))
    here = float(th[0])
    moved = np.hypot(pts[:, 0] - unit.xy[0], pts[:, 1] - unit.xy[1])
    better = np.flatnonzero((th <= here - MOVE_GAIN) & (moved > 1e-6))
    if len(better) == 0:
        return stay.command if stay is not None else None
    order = better[np.lexsort((better, th[better]))]
    p = t.first_legal(move, pts, order, tries=len(order), view=view, uid=uid)
    if p is None:  # none is legal: the best one snapped onto the region, if still worth moving
        p = snap_first(view, move, pts, order)
        if p is not None:
            there = np.array([p])
            exposed = t.exposure_matrix(view, unit, there, rows)
            if float(t.threat(exposed, t.distance_weights(there, view, rows))[0]) > here - MOVE_GAIN:
                p = None
    if p is None:
        return stay.command if stay is not None else None
    return move.with_point(p)
