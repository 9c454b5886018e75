"""The reaction policy: how the built-in AIs answer every decision that is not their own turn.

Contract: :func:`react(view, decision, rng) <react>` returns a legal command for a
``defence``, ``dodge_move``, ``follow`` or ``interpose`` decision (and, as a
fallback, for any other non-turn decision a ruleset poses). It is deterministic
given ``rng``; it reads only the view and the options.

- Defence: every option is scored ``p_success × stakes − costs`` with the exact
  ``p_success`` the ruleset attached. ``stakes`` grows as the defender's health
  runs out (a hit that may finish it is worth more AP to stop); costs are the AP
  the defence spends (``detail["ap"]``), the actions of the unit's own turn it gives
  up (``detail["forfeits"]``, e.g. a Cortex declaration) and, for a dodge-and-drop,
  the price of lying prone afterwards. A retreat's score also counts the cover of the
  best legal retreat point. The highest score wins, then the least
  ``detail["expected_damage"]`` (AFF protections); "no defence" scores 0.
- Retreat points: the legal point (a sample of the region plus the current spot)
  that minimizes :func:`~game.ai.tactics.threat`: how much of the unit every enemy
  that can see it would see there, nearer enemies weighted more. Dodge moves:
  :func:`game.ai.dodge_move.dodge_move`, the same measure over rings and samples of
  the 2" region, taken only if it lowers the threat.
- Follow: follow to the legal point nearest the retreating unit (keeping melee
  contact), else stay.
- Interpose (a sacrificial dodge for a friend): only for a friend worse off than
  the interposer by :data:`INTERPOSE_MARGIN` of health, to the legal point nearest
  the interposer.
"""

from __future__ import annotations

import math

import numpy as np

from game.ai import tactics as t
from game.ai.dodge_move import dodge_move
from game.ai.random_policy import random_policy
from game.core.commands import Command, Decision, Option
from game.engine.view import MatchView
from game.rules.gurps.commands import Follow, Interpose

#: Score lost per AP a defence spends (AP are the unit's next actions).
AP_COST = 0.04
#: Score lost per action of the unit's own turn a defence gives up (about one attack's worth).
FORFEIT_COST = 0.3
#: Score lost by a dodge-and-drop: the unit lies prone until it spends a turn getting up.
DROP_COST = 0.20
#: Score of a retreat per unit of threat its best point removes.
RETREAT_COVER_WEIGHT = 0.05
#: Candidate points sampled per point choice.
SAMPLES = 16
#: Interpose only for a friend whose health is this much below the interposer's.
INTERPOSE_MARGIN = 0.3


def react(view: MatchView, decision: Decision, rng: np.random.Generator) -> Command:
    """A legal answer to a reaction decision (see the module docstring)."""
    kind = decision.kind
    if kind == "dodge_move":
        cmd = _dodge_move(view, decision, rng)
    elif kind == "follow":
        cmd = _follow(view, decision, rng)
    elif kind == "interpose":
        cmd = _interpose(view, decision, rng)
    else:
        cmd = _defend(view, decision, rng)
    return cmd if cmd is not None else random_policy(view, decision, rng)


# --------------------------------------------------------------------------- defence
def stakes(view: MatchView, uid: str) -> float:
    """How much stopping one hit matters to ``uid``: 0.5 when fresh, 1.0 near its limit."""
    return 0.5 + 0.5 * (1.0 - t.condition(view, uid))


def defence_score(view: MatchView, opt: Option, uid: str) -> float:
    """``p_success × stakes − costs`` of one defence option (no point bonus)."""
    p = float(opt.p_success or 0.0)
    d = opt.detail or {}
    score = (
        p * stakes(view, uid) - AP_COST * float(d.get("ap", 0)) - FORFEIT_COST * float(d.get("forfeits", 0))
    )
    if getattr(opt.command, "drop", False):
        score -= DROP_COST
    return score


def _defend(view: MatchView, decision: Decision, rng: np.random.Generator) -> Command | None:
    uid = decision.unit
    scored: list[tuple[float, float, int, Option, t.Point | None]] = []
    threat_here: float | None = None
    for i, opt in enumerate(decision.options):
        score = defence_score(view, opt, uid)
        point: t.Point | None = None
        if opt.point_field is not None:
            if opt.region is None:
                continue  # a free number in a defence: not something this policy can weigh
            if threat_here is None:
                threat_here = _threat_here(view, uid)
            got = best_cover_point(view, uid, opt, rng)
            if got is None:
                continue
            point, there = got
            score += RETREAT_COVER_WEIGHT * (threat_here - there)
        harm = -float((opt.detail or {}).get("expected_damage", 0.0))
        scored.append((score, harm, -i, opt, point))
    if not scored:
        return None
    scored.sort(key=lambda s: (s[0], s[1], s[2]), reverse=True)
    _, _, _, opt, point = scored[0]
    return opt.with_point(point) if opt.point_field is not None else opt.command


def _threat_here(view: MatchView, uid: str) -> float:
    cover, weights = t.exposure_now(view, uid)
    return float(((1.0 - cover) * weights).sum())


def best_cover_point(
    view: MatchView, uid: str, opt: Option, rng: np.random.Generator, extra: tuple[t.Point, ...] = ()
) -> tuple[t.Point, float] | None:
    """The legal point of ``opt`` with the least threat, and that threat (None: no legal point)."""
    unit = t.me(view, uid)
    _, rows = t.enemy_rows(view, uid)
    pts = t.candidates(opt, rng, SAMPLES, extra)
    if len(pts) == 0:
        return None
    exposed, _ = t.cover_matrix(view, unit, pts, rows)
    th = t.threat(exposed, t.distance_weights(pts, view, rows))
    order = np.lexsort((np.arange(len(pts)), th))
    p = t.first_legal(opt, pts, order, view=view, uid=uid)
    if p is None:
        return None
    k = int(np.argmin(np.hypot(pts[:, 0] - p[0], pts[:, 1] - p[1])))  # the candidate it came from
    return p, float(th[k])


# --------------------------------------------------------------------------- moves
def _dodge_move(view: MatchView, decision: Decision, rng: np.random.Generator) -> Command | None:
    return dodge_move(view, decision, rng)


def _nearest_legal(view: MatchView, opt: Option, rng: np.random.Generator, goal: t.Point) -> t.Point | None:
    pts = t.candidates(opt, rng, SAMPLES)
    if len(pts) == 0:
        return None
    d = np.hypot(pts[:, 0] - goal[0], pts[:, 1] - goal[1])
    return t.first_legal(opt, pts, np.lexsort((np.arange(len(pts)), d)), view=view, uid=opt.command.unit)


def _follow(view: MatchView, decision: Decision, rng: np.random.Generator) -> Command | None:
    stay = next((o for o in decision.options if o.point_field is None), None)
    move = next((o for o in decision.options if o.point_field is not None and o.region is not None), None)
    ctx = decision.context or {}
    target = ctx.get("defender") or ctx.get("target")
    if move is not None and isinstance(target, str) and target in view.enemies(decision.unit):
        goal = view.pos(target)
        here = view.pos(decision.unit)
        point = _nearest_legal(view, move, rng, goal)
        if point is not None and math.dist(point, goal) < math.dist(here, goal) - 1e-6:
            return move.with_point(point)
    if stay is not None:
        return stay.command
    return Follow(decision.unit, None) if _accepts_none(decision, Follow) else None


def _interpose(view: MatchView, decision: Decision, rng: np.random.Generator) -> Command | None:
    uid = decision.unit
    ctx = decision.context or {}
    friend = ctx.get("friend") or ctx.get("defender") or ctx.get("target")
    decline = next((o for o in decision.options if o.point_field is None and not _is_interpose_to(o)), None)
    step = next((o for o in decision.options if isinstance(o.command, Interpose) and o.point_field), None)
    want = (
        isinstance(friend, str)
        and step is not None
        and t.condition(view, friend) + INTERPOSE_MARGIN <= t.condition(view, uid)
        and float(step.p_success if step.p_success is not None else 1.0) >= 0.5
    )
    if want and step is not None:
        point = _nearest_legal(view, step, rng, view.pos(uid))
        if point is not None:
            return step.with_point(point)
    if decline is not None:
        return decline.command
    return None


def _is_interpose_to(opt: Option) -> bool:
    return isinstance(opt.command, Interpose) and opt.command.to is not None


def _accepts_none(decision: Decision, cmd_type: type) -> bool:
    return any(isinstance(o.command, cmd_type) and o.point_field is None for o in decision.options)
