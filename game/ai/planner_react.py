"""The planner's reactions: defences, retreats, drops, dodge moves, follows and interpositions,
valued with the planner's position evaluator.

Contract: :func:`react(view, decision, rng) <react>` returns a legal command for any non-turn
decision and the candidates it weighed (best first, chosen first). It reads the view and the
options only, draws only from ``rng``, names no ruleset and no ruleset command type: it goes by
the decision's ``kind`` and each option's fields (``p_success``, ``detail``, a free point with a
region, the command's ``drop`` flag).

- ``defence``: each option is worth ``−(1 − p) × hit`` minus its costs, where ``p`` is its exact
  ``p_success`` and ``hit`` the worth a landed attack takes (:func:`~game.ai.planner_eval.loss` of
  a mirrored hit share; an option that gives its own ``detail["expected_damage"]`` is valued by
  it instead). Costs: AP the option spends (``detail["ap"]``) at the value of an attack per AP,
  nothing once the unit has had its turn this round (the AP refresh before it acts again); a
  drop costs the change of position value from lying prone plus the price of lying prone; a
  retreat gains half the position value its best point adds.
- ``dodge_move`` / ``follow``: the best legal point of the region by position value, if it beats
  staying by :data:`MOVE_GAIN`.
- ``interpose``: ``p × (friend's expected loss − own loss)`` minus :data:`INTERPOSE_COST` (and a
  drop's price) against declining (0): a healthy unit covers a fragile friend.
- Any other kind: the shared reaction policy (:func:`game.ai.reactions.react`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from game.ai import planner_eval as ev
from game.ai import planner_trace as trace
from game.ai import reactions
from game.ai import tactics as t
from game.ai.planner_log import log_facts
from game.core.commands import Decision, Option

#: Position-value weights (as the turn planner's, see game.ai.planner).
OFFENCE = 0.6
APPROACH = 0.15
#: Worth lost by lying prone after a drop (slow to move, to get up again).
PRONE_COST = 0.05
#: A retreat counts this share of the position value its point adds.
RETREAT_WEIGHT = 0.5
#: A dodge move or follow must beat staying by this much (worth).
MOVE_GAIN = 0.01
#: Samples of a region per point choice.
SAMPLES = 12
#: Chance that a friend attacked fails its own defence (the planner cannot see its options).
FRIEND_FAILS = 0.6
#: Worth an interposition costs besides its odds (it moved, and cannot retreat until its turn).
INTERPOSE_COST = 0.03
#: How far enemies are assumed to move in a turn when nothing tells (inches).
REACH = 6.0


def _pv(sc: ev.PointScores) -> np.ndarray:
    return OFFENCE * sc.offence - sc.incoming + APPROACH * sc.approach


def _label(opt: Option, point: t.Point | None) -> str:
    return opt.label + (f" to ({point[0]:.1f}, {point[1]:.1f})" if point is not None else "")


def _best_point(
    view: Any, b: ev.Board, opt: Option, rng: np.random.Generator, pv_here: float
) -> tuple[t.Point, float] | None:
    """The legal point of ``opt``'s region with the best position value, and that value."""
    pts = t.candidates(opt, rng, SAMPLES)
    if len(pts) == 0:
        return None
    pv = _pv(ev.score_points(view, b, pts))
    order = np.lexsort((np.arange(len(pts)), -pv))
    p = t.first_legal(opt, pts, order, view=view, uid=b.uid)
    if p is None:
        return None
    j = int(np.argmin(np.hypot(pts[:, 0] - p[0], pts[:, 1] - p[1])))
    return p, float(pv[j])


#: Share of a typical attack's gain one turn's AP are worth per attack they pay for (a turn's AP
#: do not always find a worthwhile attack).
AP_WORTH = 0.5


def ap_value(view: Any, b: ev.Board, uid: str) -> float:
    """Worth of one AP of ``uid`` spent now: :data:`AP_WORTH` of its side's typical attack gain (the
    log's hurt rate × the worth of a typical hit on an enemy) per AP an attack costs, or nothing
    once it has had its turn this round (its AP refresh before it acts again)."""
    facts = log_facts(view)
    if uid in facts.acted or len(b.enemies) == 0:
        return 0.0
    cost = t.action_costs(view, uid).get("attack") or 1
    side = view.unit(uid).side
    rate = facts.hurt_rate(side, ev.DEFAULT_POT, ev.PRIOR_WEIGHT)
    typical = rate * float(np.mean(ev.loss(b.eh, b.share)))
    return AP_WORTH * typical / max(1, cost)


def reaction_cost(view: Any, opt: Option) -> int:
    """AP a reaction option was seen to cost in this match (its ``Defend.kind``), else 0."""
    kind = getattr(opt.command, "kind", None)
    return log_facts(view).reaction_ap.get(str(kind), 0) if kind is not None else 0


def react(view: Any, decision: Decision, rng: np.random.Generator) -> tuple[Any, list[trace.Candidate]]:
    """A legal answer to a reaction decision and the candidates weighed (see the module doc)."""
    kind = decision.kind
    if kind == "defence":
        return _defend(view, decision, rng)
    if kind in ("dodge_move", "follow"):
        return _move_or_stay(view, decision, rng)
    if kind == "interpose":
        return _interpose(view, decision, rng)
    cmd = reactions.react(view, decision, rng)
    return cmd, [trace.Candidate(f"shared reaction: {type(cmd).__name__}", 0.0)]


def _defend(view: Any, decision: Decision, rng: np.random.Generator) -> tuple[Any, list[trace.Candidate]]:
    uid = decision.unit
    b = ev.board(view, None, uid, REACH)
    here = np.array([b.me.xy])
    sc_here = ev.score_points(view, b, here, here=True)
    pv_here = float(_pv(sc_here)[0])
    hit = float(ev.loss(b.health, b.enemy_share))
    per_ap = ap_value(view, b, uid)
    top = ev.top(view, uid)
    prone_delta: float | None = None
    scored: list[tuple[float, int, Option, t.Point | None]] = []
    for i, opt in enumerate(decision.options):
        p = float(opt.p_success or 0.0)
        d = opt.detail or {}
        if "expected_damage" in d and p < 1.0:
            share = float(d["expected_damage"]) / top / (1.0 - p)
            value = -(1.0 - p) * float(ev.loss(b.health, share))
        else:
            value = -(1.0 - p) * hit
        value -= per_ap * float(d.get("ap", reaction_cost(view, opt)))
        if getattr(opt.command, "drop", False):
            if prone_delta is None:
                sq = ev.score_points(view, b, here, height=t.posture_height(view, uid, "prone"))
                prone_delta = float(_pv(sq)[0]) - pv_here
            value += prone_delta - PRONE_COST
        point: t.Point | None = None
        if opt.point_field is not None:
            if not opt.has_region:
                continue  # a free number in a defence: nothing to weigh it by
            got = _best_point(view, b, opt, rng, pv_here)
            if got is None:
                continue
            point, there = got
            value += RETREAT_WEIGHT * (there - pv_here)
        scored.append((value, -i, opt, point))
    if not scored:
        cmd = reactions.react(view, decision, rng)
        return cmd, [trace.Candidate(f"shared reaction: {type(cmd).__name__}", 0.0)]
    scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
    _, _, opt, point = scored[0]
    weighed = [trace.Candidate(_label(o, q), v, q) for v, _, o, q in scored]
    return (opt.with_point(point) if opt.point_field is not None else opt.command), weighed


def _split(decision: Decision) -> tuple[Option | None, Option | None]:
    """The decision's option without a point (stay/decline) and its first point option with a region."""
    stay = next((o for o in decision.options if o.point_field is None), None)
    move = next((o for o in decision.options if o.point_field is not None and o.has_region), None)
    return stay, move


def _move_or_stay(
    view: Any, decision: Decision, rng: np.random.Generator
) -> tuple[Any, list[trace.Candidate]]:
    uid = decision.unit
    stay, move = _split(decision)
    if move is None or stay is None:
        cmd = reactions.react(view, decision, rng)
        return cmd, [trace.Candidate(f"shared reaction: {type(cmd).__name__}", 0.0)]
    b = ev.board(view, None, uid, REACH)
    pv_here = float(_pv(ev.score_points(view, b, np.array([b.me.xy]), here=True))[0])
    got = _best_point(view, b, move, rng, pv_here)
    weighed = [trace.Candidate(stay.label, pv_here)]
    if got is not None:
        point, there = got
        cand = trace.Candidate(_label(move, point), there, point)
        if there > pv_here + MOVE_GAIN:
            return move.with_point(point), [cand, *weighed]
        weighed.append(cand)
    return stay.command, weighed


def _interpose(view: Any, decision: Decision, rng: np.random.Generator) -> tuple[Any, list[trace.Candidate]]:
    uid = decision.unit
    ctx = decision.context or {}
    friend = ctx.get("target") or ctx.get("friend") or ctx.get("defender")
    decline = next((o for o in decision.options if o.point_field is None), None)
    if decline is None or not isinstance(friend, str):
        cmd = reactions.react(view, decision, rng)
        return cmd, [trace.Candidate(f"shared reaction: {type(cmd).__name__}", 0.0)]
    b = ev.board(view, None, uid, REACH)
    share = b.enemy_share
    friend_loss = FRIEND_FAILS * float(ev.loss(t.condition(view, friend), share))
    own_loss = float(ev.loss(b.health, share))
    pv_here: float | None = None
    prone_delta: float | None = None
    scored: list[tuple[float, int, Option, t.Point | None]] = [(0.0, 0, decline, None)]
    for i, opt in enumerate(decision.options):
        if opt.point_field is None or not opt.has_region:
            continue
        p = float(opt.p_success if opt.p_success is not None else 0.0)
        value = p * (friend_loss - own_loss) - INTERPOSE_COST
        if getattr(opt.command, "drop", False):
            if prone_delta is None:
                here = np.array([b.me.xy])
                pv0 = float(_pv(ev.score_points(view, b, here, here=True))[0])
                sq = ev.score_points(view, b, here, height=t.posture_height(view, uid, "prone"))
                prone_delta = float(_pv(sq)[0]) - pv0
            value += prone_delta - PRONE_COST
        if value <= 0.0:
            scored.append((value, -i, opt, None))
            continue
        if pv_here is None:
            pv_here = float(_pv(ev.score_points(view, b, np.array([b.me.xy]), here=True))[0])
        got = _best_point(view, b, opt, rng, pv_here)
        if got is None:
            continue
        scored.append((value, -i, opt, got[0]))
    scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
    for value, _, opt, point in scored:
        if opt.point_field is None or point is not None:
            weighed = [trace.Candidate(_label(o, q), v, q) for v, _, o, q in scored]
            return (opt.with_point(point) if point is not None else opt.command), weighed
    return decline.command, [trace.Candidate(decline.label, 0.0)]
