"""The reaction policy: how the built-in AIs answer every decision that is not their own turn.

Contract: :func:`react(view, decision, rng) <react>` returns a legal command for a
``defence``, ``dodge_move``, ``follow`` or ``interpose`` decision (and, as a
fallback, for any other non-turn decision a ruleset poses). It is deterministic
given ``rng``; it reads only the view and the options.

- Defence: every option is scored by its expected value ``p_success × stakes − costs``
  with the exact ``p_success`` the ruleset attached (retreat, drop and acrobatic bonuses
  and any roll that comes first included). ``stakes`` grows as the defender's health
  runs out (a hit that may finish it is worth more to stop). Costs: the AP the defence
  spends (``detail["ap"]``); the actions of the unit's own turn it gives up
  (``detail["forfeits"]``, e.g. a Cortex declaration); for a dodge-and-drop, lying prone afterwards
  (:data:`DROP_COST`, less the cover lying down buys where it stands); for a bonus the unit
  may use once until its next turn (a GURPS retreat, an Acrobatic Dodge), what keeping it
  would be worth: the same gain in ``p_success`` times the chance that another enemy attacks
  it before its next turn and hits (:func:`spent_bonus_cost`). A retreat's score also counts
  the cover of its best legal point. The highest score wins, then the least
  ``detail["expected_damage"]`` (AFF protections); "no defence" scores 0.
- Retreat points: the legal point (a sample of the region plus the current spot)
  that minimizes :func:`~game.ai.tactics.threat`: how much of the unit every enemy
  that can see it would see there, nearer enemies weighted more; if no sample is legal, the
  best one snapped onto the region (:func:`game.ai.points.snap_first`, the window's
  snapping). Dodge moves: :func:`game.ai.dodge_move.dodge_move`, the same measure over rings
  and samples of the 2" region, taken only if it lowers the threat.
- Follow: follow to the legal point nearest the retreating unit (keeping melee
  contact; the nearest legal sample, or if none is legal the region's point nearest it by
  :meth:`~game.engine.view.MatchView.snap_to_region`), else stay.
- Interpose (a sacrificial dodge for a friend): by expected harm. A hit costs a unit its
  ``stakes`` plus the chance it takes it down (``detail["p_down_self"]`` /
  ``["p_down_friend"]`` when the ruleset gives them). Without interposing the friend is hurt
  unless its own defence works (``detail["p_friend_defends"]``); a sacrificial dodge that
  succeeds (``p_success``) takes the hit instead (a sacrificial dodge and drop made by 3:
  nobody, ``detail["p_nobody_hit"]``) and one that fails leaves the friend to defend as
  before. The option with the least expected harm, net of its costs (dropping prone, a spent
  Acrobatic Dodge), is taken if it beats not interposing, to the legal point nearest the
  interposer. Taking the hit pays only for a friend worse off (or less able to defend).
"""

from __future__ import annotations

import math

import numpy as np

from game.ai import tactics as t
from game.ai.dodge_move import dodge_move
from game.ai.points import snap_first
from game.ai.random_policy import random_policy
from game.core.commands import Command, Decision, Defend, Option
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
#: Chance that an enemy's later attack (before the defender's next turn) succeeds, so that a
#: once-per-turn defence bonus kept for it would be used.
LATER_HIT = 0.5
#: Enemies within this many inches of the defender may still attack it in melee before its next
#: turn (a GURPS retreat only helps against melee attacks).
MELEE_THREAT = 3.0


def react(view: MatchView, decision: Decision, rng: np.random.Generator) -> Command:
    """A legal answer to a reaction decision (see the module docstring)."""
    kind = decision.kind
    if kind == "dodge_move":
        cmd = dodge_move(view, decision, rng)
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


def later_attack_odds(view: MatchView, uid: str, attacker: str | None) -> tuple[float, float]:
    """(melee, any): the chance that at least one other enemy attacks ``uid`` and hits before its
    next turn, counting the enemies within :data:`MELEE_THREAT` inches (melee) or all of them."""
    here = view.pos(uid)
    others = [e for e in t.enemies(view, uid) if e != attacker]
    near = sum(1 for e in others if math.dist(view.pos(e), here) <= MELEE_THREAT)
    return 1.0 - (1.0 - LATER_HIT) ** near, 1.0 - (1.0 - LATER_HIT) ** len(others)


def _without(options: tuple[Option, ...], opt: Option, bonus: str) -> Option | None:
    """The option of ``options`` that is ``opt`` without ``bonus``: ``"retreat"`` (the same
    defence with no point to retreat to) or ``"acrobatic"``."""
    cmd = opt.command
    point = opt.point_field is not None and bonus != "retreat"
    acrobatic = _flag(cmd, "acrobatic") and bonus != "acrobatic"
    same = _defence_key(cmd)
    for o in options:
        c = o.command
        if (
            isinstance(c, Defend)
            and (o.point_field is not None) == point
            and _flag(c, "acrobatic") == acrobatic
            and _defence_key(c) == same
        ):
            return o
    return None


def _flag(cmd: Defend, name: str) -> bool:
    """A flag of a ruleset's variant of ``Defend`` (GURPS ``drop``, ``acrobatic``), False if absent."""
    return bool(getattr(cmd, name, False))


def _defence_key(cmd: Defend) -> tuple[object, ...]:
    """What tells two defences apart but for their acrobatic flag and retreat point."""
    return (cmd.kind, cmd.weapon, getattr(cmd, "combo", None), _flag(cmd, "drop"))


def spent_bonus_cost(
    options: tuple[Option, ...], opt: Option, stakes_: float, q_melee: float, q_any: float
) -> float:
    """What using a once-per-turn bonus now gives up (0 if ``opt`` uses none): its gain in
    ``p_success`` over the same defence without it, times ``stakes_``, times the chance of a later
    attack it would serve (``q_melee`` for a retreat, ``q_any`` for an Acrobatic Dodge)."""
    cmd = opt.command
    if not isinstance(cmd, Defend):
        return 0.0
    p = float(opt.p_success or 0.0)
    cost = 0.0
    if opt.point_field == "retreat_to":
        base = _without(options, opt, "retreat")
        if base is not None:
            cost += q_melee * max(0.0, p - float(base.p_success or 0.0)) * stakes_
    if _flag(cmd, "acrobatic"):
        base = _without(options, opt, "acrobatic")
        if base is not None:
            cost += q_any * max(0.0, p - float(base.p_success or 0.0)) * stakes_
    return cost


def _defend(view: MatchView, decision: Decision, rng: np.random.Generator) -> Command | None:
    uid = decision.unit
    scored: list[tuple[float, float, int, Option, t.Point | None]] = []
    threat_here: float | None = None
    attacker = (decision.context or {}).get("attacker")
    q_melee, q_any = later_attack_odds(view, uid, attacker if isinstance(attacker, str) else None)
    s = stakes(view, uid)
    # Options sharing one region (a retreat's arcs, offered with every defence) share its point.
    points: dict[tuple[int, int], tuple[t.Point, float] | None] = {}
    for i, opt in enumerate(decision.options):
        score = defence_score(view, opt, uid) - spent_bonus_cost(decision.options, opt, s, q_melee, q_any)
        if getattr(opt.command, "drop", False):
            if threat_here is None:
                threat_here = t.threat_now(view, uid)
            score += RETREAT_COVER_WEIGHT * (threat_here - _threat_lying(view, uid))
        point: t.Point | None = None
        if opt.point_field is not None:
            if opt.region is None:
                continue  # a free number in a defence: not something this policy can weigh
            if threat_here is None:
                threat_here = t.threat_now(view, uid)
            key = (id(opt.lazy_region or opt.region), id(opt.validate))
            if key not in points:
                points[key] = best_cover_point(view, uid, opt, rng)
            got = points[key]
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


def _threat_lying(view: MatchView, uid: str) -> float:
    """`tactics.threat_now` if ``uid`` lay prone where it stands."""
    unit = t.me(view, uid)
    _, rows = t.enemy_rows(view, uid)
    here = np.array([unit.xy])
    exposed = t.exposure_matrix(view, unit, here, rows, t.posture_height(view, uid, "prone"))
    return float(t.threat(exposed, t.distance_weights(here, view, rows))[0])


def best_cover_point(
    view: MatchView, uid: str, opt: Option, rng: np.random.Generator, extra: tuple[t.Point, ...] = ()
) -> tuple[t.Point, float] | None:
    """The legal point of ``opt`` with the least threat, and that threat (None: no legal point)."""
    unit = t.me(view, uid)
    _, rows = t.enemy_rows(view, uid)
    pts = t.candidates(opt, rng, SAMPLES, extra)
    if len(pts) == 0:
        return None
    exposed = t.exposure_matrix(view, unit, pts, rows)
    th = t.threat(exposed, t.distance_weights(pts, view, rows))
    order = np.lexsort((np.arange(len(pts)), th))
    p = t.first_legal(opt, pts, order, view=view, uid=uid)
    if p is None:  # no candidate is legal: the best one snapped onto the region, as a click would be
        p = snap_first(view, opt, pts, order)
        if p is None:
            return None
        there = np.array([p])
        exposed = t.exposure_matrix(view, unit, there, rows)
        return p, float(t.threat(exposed, t.distance_weights(there, view, rows))[0])
    k = int(np.argmin(np.hypot(pts[:, 0] - p[0], pts[:, 1] - p[1])))  # the candidate it came from
    return p, float(th[k])


# --------------------------------------------------------------------------- moves
def _nearest_legal(view: MatchView, opt: Option, rng: np.random.Generator, goal: t.Point) -> t.Point | None:
    pts = t.candidates(opt, rng, SAMPLES)
    if len(pts) == 0:
        return None
    d = np.hypot(pts[:, 0] - goal[0], pts[:, 1] - goal[1])
    got = t.first_legal(opt, pts, np.lexsort((np.arange(len(pts)), d)), view=view, uid=opt.command.unit)
    # no sample is legal: the region's legal point nearest the goal itself
    return got if got is not None else view.snap_to_region(opt, goal)


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


#: A friend's chance to defend itself when the ruleset does not say (``p_friend_defends``).
FRIEND_DEFENDS = 0.5


def interpose_harm(view: MatchView, uid: str, friend: str, opt: Option, q_any: float) -> tuple[float, float]:
    """(expected harm if ``uid`` makes the sacrificial dodge ``opt``, expected harm if nobody
    interposes), in the units of :func:`stakes` (see the module docstring)."""
    d = opt.detail or {}
    p = float(opt.p_success if opt.p_success is not None else 1.0)
    p_f = float(d.get("p_friend_defends", FRIEND_DEFENDS))
    harm_me = stakes(view, uid) + float(d.get("p_down_self", 0.0))
    harm_f = stakes(view, friend) + float(d.get("p_down_friend", 0.0))
    cmd = opt.command
    drop = bool(getattr(cmd, "drop", False))
    clear = float(d.get("p_nobody_hit", 0.0)) if drop else 0.0
    harm = (p - clear) * harm_me + (1.0 - p) * (1.0 - p_f) * harm_f
    if drop:  # the interposer ends prone; on a success the friend falls prone too
        harm += DROP_COST * (1.0 + p)
    if getattr(cmd, "acrobatic", False):
        harm += q_any * max(0.0, p - d.get("p_plain", p)) * stakes(view, uid)
    return harm, (1.0 - p_f) * harm_f


def _interpose(view: MatchView, decision: Decision, rng: np.random.Generator) -> Command | None:
    uid = decision.unit
    ctx = decision.context or {}
    friend = ctx.get("friend") or ctx.get("defender") or ctx.get("target")
    decline = next((o for o in decision.options if o.point_field is None and not _is_interpose_to(o)), None)
    steps = [o for o in decision.options if isinstance(o.command, Interpose) and o.point_field]
    if isinstance(friend, str) and steps:
        attacker = ctx.get("attacker")
        _, q_any = later_attack_odds(view, uid, attacker if isinstance(attacker, str) else None)
        plain = {(o.command.drop, False): float(o.p_success or 0.0) for o in steps if not o.command.acrobatic}
        best: tuple[float, int, Option] | None = None
        for i, opt in enumerate(steps):
            if opt.command.acrobatic:  # its gain over the plain sacrificial dodge is what it spends
                detail = {**(opt.detail or {}), "p_plain": plain.get((opt.command.drop, False), 0.0)}
                opt = Option(opt.command, opt.label, opt.p_success, opt.modifiers, detail=detail)
            harm, harm_none = interpose_harm(view, uid, friend, opt, q_any)
            if harm < harm_none - 1e-9 and (best is None or harm < best[0] - 1e-12):
                best = (harm, i, steps[i])
        if best is not None:
            point = _nearest_legal(view, best[2], rng, view.pos(uid))
            if point is not None:
                return best[2].with_point(point)
    if decline is not None:
        return decline.command
    return None


def _is_interpose_to(opt: Option) -> bool:
    return isinstance(opt.command, Interpose) and opt.command.to is not None


def _accepts_none(decision: Decision, cmd_type: type) -> bool:
    return any(isinstance(o.command, cmd_type) and o.point_field is None for o in decision.options)
