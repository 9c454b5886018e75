"""The search planner's ``withdraw`` script: out of the enemies' sight as far as this turn allows.

The portfolio's other scripts fight (``aggressive`` closes in, ``cautious`` shoots from cover and
advances from cover to cover, ``planner1`` weighs each command one ply deep); none of them ever
breaks contact, so a search over their proposals never weighs getting away: a unit that cannot
hurt anyone in reach, a wounded one, one caught in the open by more guns than it can answer.
This script proposes exactly that, and the search (:mod:`game.ai.planner.search`) decides by
playing it forward whether it pays (with the planner option ``withdraw``; off by default, see
docs/ai.md for what it costs).

Contract: ``withdraw_policy(view, decision, rng)`` returns a legal command of ``decision``;
reactions go to the shared :func:`game.ai.reactions.react`. On its own turn:

1. **The spot.** Candidate points are uniform samples of the reach *and* points hugging the
   obstacles within it, around each corner and along each side (a shadow behind a wall is a
   sliver that uniform samples miss; such points are the classic cover nodes of tactical AI).
   Each is scored by its threat (the enemies' distance-weighted view of the unit there,
   :func:`game.ai.tactics.threat`, one vectorized call of the exact cover kernel) plus
   :data:`DISTANCE_COST` per inch of the move, so that of equally hidden spots the nearest wins.
2. **Declaring.** Where the ruleset asks the unit to declare its actions before moving
   (options with ``detail["declare_actions"]``, :mod:`game.ai.commitment`), the spot is sought
   within the farthest declaration's reach (its ``move_tiers``: a run at its expected roll), and
   the fewest actions whose movement reaches the spot's path are declared: a run when only a
   run gets there. A spot no better than standing still by :data:`GAIN` declares nothing.
3. **Moving.** With a move option, the best legal spot within the move's region, if it beats
   staying by :data:`GAIN` (the run's rolled distance may fall short of the spot sought: then
   the best spot the roll allows).
4. Then a lower posture that hides it better (the ``cautious`` rule), and the end of the turn.

Nothing here attacks: a unit that should shoot is another script's proposal.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import shapely

from components.terrain import ObstacleSpec
from game.ai import commitment
from game.ai import tactics as t
from game.ai.cautious import lower_posture
from game.ai.points import sampling_region
from game.ai.reactions import react
from game.core.commands import Command, Decision, EndTurn, Move
from game.engine.view import MatchView

#: Uniform samples of the reach.
SAMPLES = 24
#: Points around each obstacle corner (evenly spaced angles), along each side (about this many
#: inches apart), and their gap beyond the base.
CORNER_ANGLES = 8
EDGE_STEP = 1.0
CORNER_GAP = 0.15
#: Score per inch moved (a threat unit is one enemy's full view of the unit at weight 1).
DISTANCE_COST = 0.01
#: A spot must cut the threat of staying by this much (threat units).
GAIN = 0.05
#: Spots off the straight line whose path is searched (a shortest-path search each), at most.
PATH_TRIES = 6


@functools.lru_cache(maxsize=8)
def _shapes(obstacles: tuple[ObstacleSpec, ...]) -> np.ndarray:
    """The obstacles as shapely polygons (one map's, remembered: a battle asks again and again)."""
    return np.array([shapely.Polygon(ob.polygon) for ob in obstacles], dtype=object)


def cover_points(view: MatchView, centre: t.Point, base: float, reach: float) -> np.ndarray:
    """(m, 2) points a base's width out from the obstacles within ``reach`` of ``centre``: around
    each corner (:data:`CORNER_ANGLES` of them) and along each side every :data:`EDGE_STEP`
    inches, on its outer side (where a unit stands in the obstacle's lee)."""
    off = base + CORNER_GAP
    ang = np.linspace(0.0, 2.0 * math.pi, CORNER_ANGLES, endpoint=False)
    ring = np.c_[np.cos(ang), np.sin(ang)] * off
    out: list[np.ndarray] = []
    for ob in view.obstacles:
        poly = np.asarray(ob.polygon, dtype=np.float64)
        if len(poly) < 3:
            continue
        nxt = np.roll(poly, -1, axis=0)
        # Shoelace sign: the outer side of each edge (dx, dy) is (dy, -dx) for one winding, the
        # opposite for the other.
        area = float(np.sum(poly[:, 0] * nxt[:, 1] - nxt[:, 0] * poly[:, 1]))
        sign = 1.0 if area > 0 else -1.0
        near = np.hypot(poly[:, 0] - centre[0], poly[:, 1] - centre[1]) <= reach + off
        if near.any():
            out.append((poly[near][:, None, :] + ring[None, :, :]).reshape(-1, 2))
        for a, b in zip(poly, nxt, strict=True):
            d = b - a
            length = float(np.hypot(d[0], d[1]))
            if length <= 0.0:
                continue
            n = max(1, int(length // EDGE_STEP))
            f = (np.arange(n) + 0.5) / n
            normal = sign * np.array([d[1], -d[0]]) / length
            pts = a[None, :] + f[:, None] * d[None, :] + off * normal[None, :]
            keep = np.hypot(pts[:, 0] - centre[0], pts[:, 1] - centre[1]) <= reach
            if keep.any():
                out.append(pts[keep])
    if not out:
        return np.empty((0, 2))
    pts = np.concatenate(out)
    # Where the base does not overlap an obstacle (a corner's ring reaches into its neighbours).
    shapes = _shapes(view.obstacles)
    clear = shapely.distance(shapes[None, :], shapely.points(pts)[:, None]).min(axis=1) >= base
    pts = pts[clear]
    inside = (
        (pts[:, 0] >= base)
        & (pts[:, 1] >= base)
        & (pts[:, 0] <= view.width - base)
        & (pts[:, 1] <= view.height - base)
        & (np.hypot(pts[:, 0] - centre[0], pts[:, 1] - centre[1]) <= reach)
    )
    return np.round(pts[inside], t.POINT_DECIMALS)


def _scores(view: MatchView, uid: str, pts: np.ndarray) -> np.ndarray:
    """Threat at each of ``pts`` plus the distance cost (see the module docstring)."""
    unit = t.me(view, uid)
    _, rows = t.enemy_rows(view, uid)
    exposed = t.exposure_matrix(view, unit, pts, rows)
    threat = t.threat(exposed, t.distance_weights(pts, view, rows))
    moved = np.hypot(pts[:, 0] - unit.xy[0], pts[:, 1] - unit.xy[1])
    return np.asarray(threat + DISTANCE_COST * moved)


def _disc(view: MatchView, centre: t.Point, reach: float, rng: np.random.Generator) -> np.ndarray:
    """Uniform samples of the disc of ``reach`` around ``centre`` (the map's inside)."""
    r = reach * np.sqrt(rng.random(SAMPLES))
    a = rng.random(SAMPLES) * 2.0 * math.pi
    pts = np.c_[centre[0] + r * np.cos(a), centre[1] + r * np.sin(a)]
    ok = (pts[:, 0] > 0) & (pts[:, 1] > 0) & (pts[:, 0] < view.width) & (pts[:, 1] < view.height)
    return np.round(pts[ok], t.POINT_DECIMALS)


def declare_for_spot(view: MatchView, decision: Decision, rng: np.random.Generator) -> Command | None:
    """The fewest-actions declaration whose movement reaches the best spot in the farthest
    declaration's reach (see the module docstring), or None: nothing to declare, or no spot
    worth it."""
    opts = commitment.declarations(decision)
    if not opts:
        return None
    uid = decision.unit
    unit = t.me(view, uid)
    far = max(commitment.reach(o) for o in opts)
    if far <= 0:
        return None
    pts = np.concatenate([cover_points(view, unit.xy, unit.base, far), _disc(view, unit.xy, far, rng)])
    if len(pts) == 0:
        return None
    score = _scores(view, uid, pts)
    stay = t.threat_now(view, uid)
    order = [int(i) for i in np.lexsort((np.arange(len(pts)), score)) if score[i] <= stay - GAIN]
    for i in order[:PATH_TRIES]:
        length = view.path_length(uid, (float(pts[i, 0]), float(pts[i, 1])))
        if length is None or length > far:
            continue
        for o in opts:  # fewest actions first
            if commitment.moving_actions(o, length) is not None:
                return o.command
    return None


def withdraw_policy(view: MatchView, decision: Decision, rng: np.random.Generator) -> Command:
    """See the module docstring."""
    if decision.kind != "turn":
        return react(view, decision, rng)
    uid = decision.unit
    if not t.enemies(view, uid):
        return EndTurn(uid)
    declared = declare_for_spot(view, decision, rng)
    if declared is not None:
        return declared
    move = t.find(decision, Move, point=True)
    if move is not None:
        unit = t.me(view, uid)
        reach = float((move.detail or {}).get("max_len", math.inf))
        region = sampling_region(move)
        if math.isfinite(reach) and reach > 0.05 and region is not None:
            corners = cover_points(view, unit.xy, unit.base, reach)
            pts = np.concatenate([corners, t.candidates(move, rng, SAMPLES)])
            if len(pts):
                score = _scores(view, uid, pts)
                stay = t.threat_now(view, uid)
                moved = np.hypot(pts[:, 0] - unit.xy[0], pts[:, 1] - unit.xy[1])
                ok = np.flatnonzero((score <= stay - GAIN) & (moved >= 0.05))
                if len(ok):
                    # Best first, detours included: the spot behind a corner is off the straight
                    # line (t.first_legal would prefer any straight-line spot to it).
                    detours = 0
                    for i in ok[np.lexsort((ok, score[ok]))].tolist():
                        p = t.rounded(pts[i])
                        if not view.segment_clear(uid, unit.xy, p):
                            detours += 1  # its validation is a shortest-path search
                            if detours > PATH_TRIES:
                                continue
                        if move.validate is None or move.validate(p) is None:
                            return move.with_point(p)
    hide = lower_posture(view, decision)
    if hide is not None:
        return hide.command
    return EndTurn(uid)
