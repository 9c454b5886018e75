"""Where a unit would go to attack, and what that attack is worth before it gets there: the turn
planner's approach (game.ai.planner.onestep) and the reactions' price of AP (game.ai.planner.react)
share it, so it lives apart from both (onestep imports react).

Contract: :func:`quarry` picks the enemy worth approaching most on a board; :func:`approach_points`
gives points on the shortest free way towards it at fractions of a reach (routes remembered per
view while no unit moves). :data:`ATTACK_DISCOUNT` is the share of an attack's estimated offence an
attack from a point not yet reached counts. Pure functions of the view and the board; no draws.
"""

from __future__ import annotations

import itertools
import math
import weakref
from typing import Any

import numpy as np

from game.ai import tactics as t
from game.ai.planner import evaluate as ev

#: Points on the way to the enemy worth approaching.
APPROACH_POINTS = 4
#: An attack after moving, with odds estimated from the board, counts this much of its estimate.
ATTACK_DISCOUNT = 0.8


def quarry(b: ev.Board) -> int | None:
    """Index of the enemy worth approaching most (chance × worth of a hit, nearer counting more)."""
    if len(b.enemies) == 0:
        return None
    here = b.me.xy
    d = np.hypot(b.exy[:, 0] - here[0], b.exy[:, 1] - here[1])
    worth = np.maximum(b.pot, b.melee) * ev.loss(b.eh, b.share) / (1.0 + d / ev.APPROACH_SCALE)
    return int(np.argmax(worth))


def approach_points(view: Any, b: ev.Board, reach: float, path: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Points on the shortest free path towards the :func:`quarry` (straight if there is none, or
    without ``path``: a unit with a worthwhile attack does not need the way round), at fractions
    of ``reach``, and how far along the way each one is (inches)."""
    j = quarry(b)
    if j is None or not math.isfinite(reach) or reach <= 0:
        return np.empty((0, 2)), np.empty(0)
    goal = (float(b.exy[j, 0]), float(b.exy[j, 1]))
    stop = b.me.base + float(b.ebase[j]) + 0.05
    line = [b.me.xy, goal]
    if path:
        # The way round obstacles only where the straight line is blocked (a path search costs
        # milliseconds, the swept-disc test microseconds).
        end = t.along(line, reach, stop + 0.1)
        if not view.segment_clear(b.uid, b.me.xy, end):
            line = _route(view, b, goal, b.enemies[j]) or line
    pts, along = [], []
    for i in range(APPROACH_POINTS):
        want = reach * (i + 1) / APPROACH_POINTS
        p = t.along(line, want, stop)
        pts.append(p)
        along.append(min(want, max(0.0, _length(line) - stop)))
    return np.round(np.asarray(pts, dtype=np.float64), t.POINT_DECIMALS), np.asarray(along)


#: Routes found, per view: (unit, from, to, every unit's centre) -> the path's points.
_ROUTES: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], list[t.Point] | None]] = (
    weakref.WeakKeyDictionary()
)


def _route(view: Any, b: ev.Board, goal: t.Point, ignore: str) -> list[t.Point] | None:
    """The points of :func:`game.ai.tactics.route` to ``goal``, remembered while no unit moves."""
    memo = _ROUTES.get(view)
    if memo is None:
        memo = _ROUTES[view] = {}
    key = (b.uid, b.me.xy, goal, ignore, view.table.xy.tobytes())
    if key not in memo:
        if len(memo) >= 256:
            memo.clear()
        way = t.route(view, b.me, goal, ignore=ignore)
        memo[key] = list(way.points) if way is not None else None
    return memo[key]


def _length(line: list[t.Point]) -> float:
    return float(sum(math.dist(a, c) for a, c in itertools.pairwise(line)))
