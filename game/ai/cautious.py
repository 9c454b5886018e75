"""The ``cautious`` policy: fight from cover, shoot at exposed enemies, press only when winning.

Contract: ``cautious_policy(view, decision, rng)`` returns a legal command.
Reactions go to the shared :func:`game.ai.reactions.react`. On its own turn the
unit weighs candidate positions (the spot it stands on, a uniform sample of the
legal move region and, while it has no target, points on the way to the nearest
enemy) with one vectorized call of the exact cover kernel
(:func:`game.ai.tactics.cover_matrix`) and scores each as

    ``SHOT × best shot − THREAT × mean threat (+ ADVANCE × progress)``

where every enemy counts with the distance weight ``1 / (1 + d / 24)``, *best shot*
is the largest weighted ``1 − cover`` of an enemy seen from the point, *mean
threat* the weighted share of the unit the enemies would see there, averaged over
enemies (THREAT > SHOT: a position pays only where cover is lopsided in the
unit's favour), and *progress* how much nearer the nearest enemy the point is, as
a share of the move, counted only while the unit has no attack and has not
attacked this turn, so it advances from cover to cover until it finds a target.

0. Commitments first (:mod:`game.ai.commitment`): a free standing choice that gains, and
   where the ruleset asks for one (Cortex) the declaration of the round's actions of best
   expected value when it can attack from where it stands; with no target, once its free
   movement is spent, it declares one action to go on looking (a hustle).
1. Pressing: when its side has PRESS_RATIO times as many units in action as the
   enemy and its best attack is worth less than POOR_ODDS, it closes in like
   ``aggressive`` (:func:`game.ai.aggressive.close_in`).
2. It attacks with the best-value option (:func:`~game.ai.tactics.attack_value`),
   unless it stands badly exposed (threat above SAFE_ENOUGH) and a firing
   position better by MOVE_FIRST_GAIN is in reach with the attack's AP kept.
   Before attacking it takes a maneuver that sets up a much better attack next turn
   (GURPS Aim, :func:`~game.ai.tactics.setup_beats_attack`); and when its best attack
   is :func:`~game.ai.tactics.hopeless` and it has not attacked this turn, it first
   advances (score with the progress term) to a legal candidate no more exposed than
   where it stands (or than SAFE_ENOUGH), attacking only if there is none.
3. With no attack (or after it), it moves to the best-scoring legal candidate
   if that beats staying by :data:`MOVE_GAIN` ("shoot and scoot").
4. Otherwise it takes a lower posture if that lowers its threat by at least
   :data:`POSTURE_GAIN` without losing its best shot, and ends its turn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from game.ai import commitment
from game.ai import tactics as t
from game.ai.aggressive import choose_quarry, close_in, get_up, move_budget
from game.ai.reactions import react
from game.core.commands import ChangePosture, Command, Decision, EndTurn, Move, Option
from game.engine.view import MatchView

#: Weights of the position score (see the module docstring).
SHOT = 1.0
THREAT = 1.5
ADVANCE = 0.5
#: A move must improve the score by this much.
MOVE_GAIN = 0.05
#: Before an attack, move first only if the unit's threat where it stands exceeds SAFE_ENOUGH
#: and a firing position better by MOVE_FIRST_GAIN is in reach.
SAFE_ENOUGH = 0.15
MOVE_FIRST_GAIN = 0.25
#: It presses (closes in like ``aggressive``) when its side has PRESS_RATIO times as many units in
#: action as the enemy, and its best attack is worth less than POOR_ODDS (or it has none).
PRESS_RATIO = 2.0
POOR_ODDS = 0.25
#: A lower posture must cut the threat by this much (and keep the best shot within SHOT_KEEP).
POSTURE_GAIN = 0.1
SHOT_KEEP = 0.05
#: Candidate points: uniform samples of the region, and points along the path to the nearest enemy.
SAMPLES = 24
PATH_POINTS = 4
#: Postures it may take to hide, lowest last; it never goes prone (too slow to get up again).
HIDING_POSTURES = ("crouching", "kneeling")


@dataclass(frozen=True)
class Scored:
    """Candidate points with their scores and the parts of the score."""

    points: np.ndarray
    score: np.ndarray
    shot: np.ndarray
    threat: np.ndarray


def cautious_policy(view: MatchView, decision: Decision, rng: np.random.Generator) -> Command:
    """See the module docstring."""
    if decision.kind != "turn":
        return react(view, decision, rng)
    uid = decision.unit
    first = commitment.free_choice(decision) or commitment.declare_for_attacks(view, decision)
    if first is not None:
        return first.command
    move = t.find(decision, Move, point=True)
    best = t.best_attack(view, decision)
    poor = best is None or t.attack_value(view, best) < POOR_ODDS
    if move is not None and poor and outnumbers(view, uid):
        # Winning clearly: press the last enemies instead of trading poor shots with them.
        quarry = choose_quarry(view, uid)
        if quarry is not None:
            up = get_up(view, decision)
            if up is not None:
                return up.command
            got = close_in(view, decision, move, quarry, rng)
            if got is not None:
                return move.with_point(got)
    if best is not None:
        # Only a unit standing badly exposed looks for a better firing position first.
        if move is not None and exposed_here(view, uid) > SAFE_ENOUGH:
            got = better_position(view, decision, move, rng, keep_attack=True, gain=MOVE_FIRST_GAIN)
            if got is not None:
                return move.with_point(got)
        # Aim (or the like) when next turn's attack is worth much more than this one.
        setup = t.setup_beats_attack(view, decision, best)
        if setup is not None:
            return setup.command
        if move is not None and t.hopeless(best) and not t.attacked_this_turn(view, uid):
            # Every shot is hopeless from here: advance to a covered position nearer the enemy.
            got = better_position(
                view, decision, move, rng, keep_attack=False, gain=MOVE_GAIN, advance=True, covered=True
            )
            if got is not None:
                return move.with_point(got)
        return best.command
    if move is not None:
        # No target yet and no shot fired this turn: go and find one, from cover to cover.
        seek = not t.attacked_this_turn(view, uid)
        got = better_position(view, decision, move, rng, keep_attack=False, gain=MOVE_GAIN, advance=seek)
        if got is not None:
            return move.with_point(got)
    hide = lower_posture(view, decision)
    if hide is not None:
        return hide.command
    if best is None and not t.attacked_this_turn(view, uid):
        declared = commitment.declare_to_move(view, decision, None)  # free movement spent: go on
        if declared is not None:
            return declared.command
    return EndTurn(uid)


def score_points(
    view: MatchView,
    uid: str,
    points: np.ndarray,
    reach: float,
    height: float | None = None,
    advance: bool = False,
    here: bool = False,
) -> Scored:
    """Score ``points`` for ``uid`` (see the module docstring).

    Args:
        view: the match view.
        uid: the unit.
        points: (m, 2) candidate centres.
        reach: the move's length, the scale of *progress*.
        height: silhouette height to assume (a posture change); default the current one.
        advance: add the progress term (the unit has no target yet).
        here: ``points`` is just where the unit stands, as it stands (no ``height``): read
            the cover from the match's sight facts (:func:`~game.ai.tactics.cover_here`)
            instead of calling the kernel.
    """
    unit = t.me(view, uid)
    ids, rows = t.enemy_rows(view, uid)
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(rows) == 0:
        zero = np.zeros(len(pts))
        return Scored(pts, zero, zero, zero)
    exy = view.table.xy[rows]
    dist = t.distances(pts, exy)  # the weights' distances serve the progress term too
    weights = t.weights_of(dist)
    if len(pts) > 1:  # the kernel asked only for the shots that can be the best
        exposed = t.exposure_matrix(view, unit, pts, rows, height)
        shot = t.best_shot(view, unit, pts, rows, weights, exposed, height)
    else:
        if here and height is None:
            exposed, shot_cover = t.cover_here(view, uid, ids)
        else:
            exposed, shot_cover = t.cover_matrix(view, unit, pts, rows, height)
        shot = ((1.0 - shot_cover) * weights).max(axis=1)
    threat = t.threat(exposed, weights) / len(rows)
    score = SHOT * shot - THREAT * threat
    if advance:
        nearest_now = float(np.hypot(exy[:, 0] - unit.xy[0], exy[:, 1] - unit.xy[1]).min())
        score = score + ADVANCE * (nearest_now - dist.min(axis=1)) / max(reach, 1.0)
    return Scored(pts, score, shot, threat)


def outnumbers(view: MatchView, uid: str) -> bool:
    """Whether ``uid``'s side has at least PRESS_RATIO times as many units in action as the enemy."""
    enemies = len(t.enemies(view, uid))
    return enemies > 0 and len(view.friends(uid)) + 1 >= PRESS_RATIO * enemies


def exposed_here(view: MatchView, uid: str) -> float:
    """The mean threat (see :func:`score_points`) where ``uid`` stands now."""
    cover, weights = t.exposure_now(view, uid)
    return float(t.threat(cover[None, :], weights[None, :])[0]) / len(cover) if len(cover) else 0.0


def _approach_points(view: MatchView, uid: str, reach: float) -> list[t.Point]:
    """Points on the straight line towards the nearest enemy, up to ``reach`` (candidates only:
    the move's validator decides, and samples of the region cover the way round obstacles)."""
    unit = t.me(view, uid)
    _, rows = t.enemy_rows(view, uid)
    if len(rows) == 0 or not math.isfinite(reach) or reach <= 0:
        return []
    table = view.table
    exy = table.xy[rows]
    d = np.hypot(exy[:, 0] - unit.xy[0], exy[:, 1] - unit.xy[1])
    j = int(np.argmin(d))
    goal = (float(exy[j, 0]), float(exy[j, 1]))
    stop = unit.base + float(table.base[rows[j]]) + 0.05
    return [t.along([unit.xy, goal], reach * (k + 1) / PATH_POINTS, stop) for k in range(PATH_POINTS)]


def better_position(
    view: MatchView,
    decision: Decision,
    move: Option,
    rng: np.random.Generator,
    *,
    keep_attack: bool,
    gain: float,
    advance: bool = False,
    covered: bool = False,
) -> t.Point | None:
    """The best legal candidate of ``move`` if it beats staying by ``gain``, else None.

    With ``keep_attack`` only points within the move budget that keeps one attack's AP
    are considered (:func:`game.ai.aggressive.move_budget`), and a point must still offer
    a shot. With ``covered`` a point must not be more exposed than staying, or than
    SAFE_ENOUGH if that is more.
    """
    uid = decision.unit
    unit = t.me(view, uid)
    reach = float((move.detail or {}).get("max_len", math.inf))
    budget = move_budget(view, decision, move) if keep_attack else reach
    if keep_attack and budget >= reach - 1e-9:
        return None  # moving would use the attack's AP
    extra = [unit.xy, *(_approach_points(view, uid, budget) if advance else [])]
    pts = t.candidates(move, rng, SAMPLES, extra)
    moved = np.hypot(pts[:, 0] - unit.xy[0], pts[:, 1] - unit.xy[1])
    if keep_attack:
        near = moved <= budget
        pts, moved = pts[near], moved[near]
    if len(pts) <= 1:
        return None
    s = score_points(view, uid, pts, reach if math.isfinite(reach) else 1.0, advance=advance)
    stay = float(s.score[0])
    ok = s.score >= stay + gain
    ok[0] = False
    if keep_attack:
        ok &= s.shot > 0.0
    if covered:
        ok &= s.threat <= max(float(s.threat[0]), SAFE_ENOUGH) + 1e-12
    ok &= moved >= 0.05
    if not ok.any():
        return None
    idx = np.flatnonzero(ok)
    order = idx[np.lexsort((idx, -s.score[idx]))]
    return t.first_legal(move, pts, order, view=view, uid=uid)


def lower_posture(view: MatchView, decision: Decision) -> Option | None:
    """A posture option that hides the unit better without costing its best shot, or None."""
    uid = decision.unit
    current = view.posture(uid)
    if current not in ("standing", *HIDING_POSTURES):
        return None
    offered = {
        o.command.posture: o
        for o in decision.options
        if isinstance(o.command, ChangePosture) and o.command.posture in HIDING_POSTURES
    }
    if not offered or not t.enemies(view, uid):
        return None
    unit = t.me(view, uid)
    here = np.array([unit.xy])
    base = score_points(view, uid, here, 1.0, here=True)
    best: tuple[float, Option] | None = None
    for name in HIDING_POSTURES:
        opt = offered.get(name)
        if opt is None or t.posture_height(view, uid, name) >= unit.height - 1e-9:
            continue
        s = score_points(view, uid, here, 1.0, height=t.posture_height(view, uid, name))
        cut = float(base.threat[0] - s.threat[0])
        keeps_shot = float(s.shot[0]) >= float(base.shot[0]) - SHOT_KEEP
        if cut >= POSTURE_GAIN and keeps_shot and (best is None or cut > best[0] + 1e-12):
            best = (cut, opt)
    return best[1] if best is not None else None
