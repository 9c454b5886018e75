"""The planner's reactions: defences, retreats, drops, dodge moves, follows and interpositions,
weighed with the shared exact expected values and the planner's position evaluator.

Contract: :func:`react(view, decision, rng) <react>` returns a legal command for any non-turn
decision and the candidates it weighed (best first, the chosen one first). It reads the view and
the options only, draws only from ``rng``, and names no ruleset: it goes by the decision's
``kind`` and each option's fields (``p_success``, ``detail``, a free point with a region, the
command's ``drop`` flag).

- ``defence``: each option is scored in the evaluator's worth: its exact ``p_success`` times the
  worth one hit of the attacker takes (:func:`hit_worth`: the attacker's kind's hit share from the
  log, :func:`game.ai.planner.evaluate.loss` at the unit's health), less what it spends: its AP at
  what they would otherwise buy (:func:`game.ai.planner.reserve.reaction_price`: the own-turn
  attack or the later reaction of the round it could no longer afford), a forfeited action as the
  shared policy prices it (:data:`~game.ai.reactions.FORFEIT_COST`), less a once-per-turn bonus it uses
  up (:func:`~game.ai.reactions.spent_bonus_cost`, at the same worth of a hit). A drop adds the
  position value lying prone changes where it stands, less one action of its turn to get up
  (:func:`action_worth`: its best attack from where it stands); a retreat adds
  :data:`POINT_WEIGHT` × the position value its best legal point adds
  (:func:`game.ai.planner.onestep.position_value` over samples of the region). Ties go to the least
  ``detail["expected_damage"]``.
- ``dodge_move`` / ``follow``: the legal point of the region with the best position value, if it
  beats staying by :data:`MOVE_GAIN`.
- ``interpose``: the shared expected harm (:func:`~game.ai.reactions.interpose_harm`: a hit on
  the interposer against the friend's hit unless it defends), the interposer stepping to the
  legal point of best position value.
- Any other kind: the shared reaction policy (:func:`game.ai.reactions.react`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from game.ai import reactions
from game.ai import tactics as t
from game.ai.planner import evaluate as ev
from game.ai.planner import reserve as rs
from game.ai.planner import trace
from game.ai.planner.approach import ATTACK_DISCOUNT, approach_points
from game.ai.planner.facts import log_facts
from game.core.commands import Decision, Option

#: Position-value weights (as the turn planner's, see game.ai.planner.onestep).
OFFENCE = 0.6
APPROACH = 0.15
#: A retreat point's position value counts this much in a defence's score (a point is secondary
#: to stopping the hit).
POINT_WEIGHT = 0.5
#: Least worth of one action of the unit's own turn (it can always move to a better place).
MIN_ACTION = 0.1
#: A dodge move or follow must beat staying by this much (worth).
MOVE_GAIN = 0.01
#: Samples of a region per point choice.
SAMPLES = 12
#: How far enemies are assumed to move in a turn when nothing tells (inches).
REACH = 6.0


def _pv(sc: ev.PointScores) -> np.ndarray:
    return OFFENCE * sc.offence - sc.incoming + APPROACH * sc.approach


def _label(opt: Option, point: t.Point | None) -> str:
    return opt.label + (f" to ({point[0]:.1f}, {point[1]:.1f})" if point is not None else "")


def _shared(view: Any, decision: Decision, rng: np.random.Generator) -> tuple[Any, list[trace.Candidate]]:
    cmd = reactions.react(view, decision, rng)
    return cmd, [trace.Candidate(f"shared reaction: {type(cmd).__name__}", 0.0)]


def best_point(view: Any, b: ev.Board, opt: Option, rng: np.random.Generator) -> tuple[t.Point, float] | None:
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


def _pv_here(view: Any, b: ev.Board) -> float:
    return float(_pv(ev.score_points(view, b, np.array([b.me.xy]), here=True))[0])


def _pv_prone(view: Any, b: ev.Board) -> float:
    height = t.posture_height(view, b.uid, "prone")
    return float(_pv(ev.score_points(view, b, np.array([b.me.xy]), height=height))[0])


def react(view: Any, decision: Decision, rng: np.random.Generator) -> tuple[Any, list[trace.Candidate]]:
    """A legal answer to a reaction decision and the candidates weighed (see the module doc)."""
    kind = decision.kind
    if kind == "defence":
        return _defend(view, decision, rng)
    if kind in ("dodge_move", "follow"):
        return _move_or_stay(view, decision, rng)
    if kind == "interpose":
        return _interpose(view, decision, rng)
    return _shared(view, decision, rng)


def _defend(view: Any, decision: Decision, rng: np.random.Generator) -> tuple[Any, list[trace.Candidate]]:
    uid = decision.unit
    attacker = (decision.context or {}).get("attacker")
    q_melee, q_any = reactions.later_attack_odds(view, uid, attacker if isinstance(attacker, str) else None)
    stake = hit_worth(view, uid, attacker)
    # The board (costly in a big battle) only where an option moves or drops the unit.
    b: ev.Board | None = None
    pv_here = act = 0.0
    prone: float | None = None
    points: dict[tuple[int, int], tuple[t.Point, float] | None] = {}
    scored: list[tuple[float, float, int, Option, t.Point | None]] = []
    price: Callable[[int], float] | None = None
    for i, opt in enumerate(decision.options):
        d = opt.detail or {}
        score = float(opt.p_success or 0.0) * stake
        # AP it spends are priced at what they would otherwise buy (game.ai.planner.reserve);
        # a forfeited action as the shared policy prices it.
        spend = int(d.get("ap", 0) or 0)
        if spend > 0:
            if price is None:
                price = ap_pricer(view, uid, attacker)
            score -= price(spend)
        score -= reactions.FORFEIT_COST * float(d.get("forfeits", 0))
        score -= reactions.spent_bonus_cost(decision.options, opt, stake, q_melee, q_any)
        drop = bool(getattr(opt.command, "drop", False))
        if (drop or opt.point_field is not None) and b is None:
            b = ev.board(view, None, uid, REACH)
            here = ev.score_points(view, b, np.array([b.me.xy]), here=True)
            pv_here = float(_pv(here)[0])
            act = action_worth(float(here.offence[0]))
        if drop and b is not None:
            if prone is None:
                prone = _pv_prone(view, b) - pv_here
            score += prone - act  # where it lies, and the action getting up costs
        point: t.Point | None = None
        if opt.point_field is not None:
            if not opt.has_region or b is None:
                continue  # a free number in a defence: nothing to weigh it by
            key = (id(opt.lazy_region or opt.region), id(opt.validate))
            if key not in points:
                points[key] = best_point(view, b, opt, rng)
            got = points[key]
            if got is None:
                continue
            point, there = got
            score += POINT_WEIGHT * (there - pv_here)
        harm = -float(d.get("expected_damage", 0.0))
        scored.append((score, harm, -i, opt, point))
    if not scored:
        return _shared(view, decision, rng)
    scored.sort(key=lambda s: (s[0], s[1], s[2]), reverse=True)
    _, _, _, opt, point = scored[0]
    weighed = [trace.Candidate(_label(o, q), v, q, _defence_why(o)) for v, _, _, o, q in scored]
    return (opt.with_point(point) if opt.point_field is not None else opt.command), weighed


def ap_pricer(view: Any, uid: str, attacker: Any) -> Callable[[int], float]:
    """What paying AP for this reaction costs ``uid`` (game.ai.planner.reserve): the attack of its
    own turn still to come this round it could no longer afford (its best attack from where it
    stands, the evaluator's), or the reaction against a later enemy of the round it could no longer
    pay for (that enemy's incoming worth × its defence chance from the log)."""
    a = int(view.unit(uid).ap)
    turn = rs.own_turn_ahead(view, uid)
    later = rs.to_act(view, uid, (attacker,) if isinstance(attacker, str) else ())
    terms = ap_terms(view, uid, turn)
    dodges = [terms.dodge[e] for e in later if e in terms.dodge]
    attack, moved, c_move = terms.attack, terms.moved_attack, terms.c_move
    c_attack = rs.attack_cost(view, uid)

    def price(cost: int) -> float:
        return rs.reaction_price(
            a,
            cost,
            turn=turn,
            attack=attack,
            c_attack=c_attack,
            dodges=dodges,
            moved_attack=moved,
            c_move=c_move,
        )

    return price


@dataclass(frozen=True)
class ApTerms:
    """What the AP ``uid`` holds would buy, as the evaluator sees the board now (one board): the
    first attack of its own turn from where it stands and after a one-AP move
    (:func:`turn_attacks`; zeros when its turn is not counted), and one reaction's worth against
    each enemy (incoming worth × the unit's defence chance from the log)."""

    attack: float
    moved_attack: float
    c_move: int
    dodge: dict[str, float]


#: The terms last found per view: (event count, unit, own turn counted) -> terms. The reactions'
#: price (planner1) and the search's held AP ask for the same decision's terms one after the other.
_TERMS: weakref.WeakKeyDictionary[Any, tuple[tuple[int, str, bool], ApTerms]] = weakref.WeakKeyDictionary()


def ap_terms(view: Any, uid: str, turn: bool) -> ApTerms:
    """:class:`ApTerms` of ``uid`` now (``turn``: count the attacks of its own turn)."""
    key = (view.event_count, uid, turn)
    got = _TERMS.get(view)
    if got is not None and got[0] == key:
        return got[1]
    b = ev.board(view, None, uid, REACH)
    here = ev.score_points(view, b, np.array([b.me.xy]), here=True)
    p = log_facts(view).defence_chance(uid)
    attack, moved, c_move = turn_attacks(view, b, float(here.offence[0])) if turn else (0.0, 0.0, 0)
    dodge = {e: p * float(here.mine_e[0, k]) for k, e in enumerate(b.enemies)}
    terms = ApTerms(attack, moved, c_move, dodge)
    _TERMS[view] = (key, terms)
    return terms


def inches_per_ap(view: Any, uid: str) -> float:
    """The longest move one AP buys ``uid`` now, as ``view.move_ap_cost`` prices it (0: moves do
    not cost one AP, or none is possible).

    Found from the price, not read from ``Ruleset.inches_per_ap``: a ruleset may price movement
    in tiers (its ``inches_per_ap`` is then the rest of the turn's movement spread over the
    actions left) or take a step already made off the move, so only the pricer says what one AP
    buys now."""
    if view.move_ap_cost(uid, 1e-3) != 1:
        return 0.0
    lo, hi = 1e-3, 64.0
    if view.move_ap_cost(uid, hi) == 1:
        return hi
    for _ in range(16):
        mid = 0.5 * (lo + hi)
        if view.move_ap_cost(uid, mid) == 1:
            lo = mid
        else:
            hi = mid
    return lo


def turn_attacks(view: Any, b: ev.Board, offence_here: float) -> tuple[float, float, int]:
    """What the first attack of the unit's own turn is worth: (from where it stands,
    :func:`action_worth`; after a one-AP move towards its quarry, the turn planner's estimate
    ``ATTACK_DISCOUNT`` × the best offence along that way; that move's AP, 0 if none is priced).
    A unit in cover with no shot from where it stands still buys one with a step and an attack:
    AP held for a reaction give that up as well."""
    attack = action_worth(offence_here)
    per_ap = inches_per_ap(view, b.uid)
    if per_ap <= 0.0:
        return attack, 0.0, 0
    pts, _ = approach_points(view, b, per_ap)
    if len(pts) == 0:
        return attack, 0.0, 0
    moved = ATTACK_DISCOUNT * float(ev.score_points(view, b, pts).offence.max())
    return attack, moved, 1


def _defence_why(opt: Option) -> tuple[str, ...]:
    """A defence's reasons in the game's terms: its chance, what it costs, the harm expected."""
    d = opt.detail or {}
    out = [f"{100 * float(opt.p_success or 0.0):.0f}% to stop the hit"]
    if d.get("ap"):
        out.append(f"costs {d['ap']} AP")
    harm = d.get("expected_harm")
    if isinstance(harm, dict) and harm:
        out.append("expects " + " and ".join(f"{float(v):.2f} {k}" for k, v in harm.items()))
    return tuple(out)


def hit_worth(view: Any, uid: str, attacker: Any) -> float:
    """Worth ``uid`` loses to one hit of ``attacker``: :func:`game.ai.planner.evaluate.loss` at its
    health of its kind's hit share (:func:`~game.ai.planner.evaluate.kind_share`; the default share for
    an attacker the log does not name)."""
    known = isinstance(attacker, str) and attacker in log_facts(view).side_of
    share = ev.kind_share(view, attacker) if known else ev.DEFAULT_SHARE
    return float(ev.loss(t.condition(view, uid), share))


def action_worth(offence: float) -> float:
    """Worth of one action of the unit's own turn: its best attack from where it stands
    (``offence``), at least :data:`MIN_ACTION` (an action can always move it somewhere better)."""
    return max(MIN_ACTION, offence)


def _split(decision: Decision) -> tuple[Option | None, Option | None]:
    """The decision's option without a point (stay/decline) and its first point option with a region."""
    stay = next((o for o in decision.options if o.point_field is None), None)
    move = next((o for o in decision.options if o.point_field is not None and o.has_region), None)
    return stay, move


def _move_or_stay(
    view: Any, decision: Decision, rng: np.random.Generator
) -> tuple[Any, list[trace.Candidate]]:
    stay, move = _split(decision)
    if move is None or stay is None:
        return _shared(view, decision, rng)
    b = ev.board(view, None, decision.unit, REACH)
    pv_here = _pv_here(view, b)
    weighed = [
        trace.Candidate(stay.label, pv_here, why=("where it stands is as good as any point in reach",))
    ]
    got = best_point(view, b, move, rng)
    if got is not None:
        point, there = got
        why = (
            ("a better spot than where it stands: more cover from the enemies, or a better next attack",)
            if there > pv_here + MOVE_GAIN
            else ()
        )
        cand = trace.Candidate(_label(move, point), there, point, why)
        if there > pv_here + MOVE_GAIN:
            return move.with_point(point), [cand, *weighed]
        weighed.append(cand)
    return stay.command, weighed


def _interpose(view: Any, decision: Decision, rng: np.random.Generator) -> tuple[Any, list[trace.Candidate]]:
    uid = decision.unit
    ctx = decision.context or {}
    friend = ctx.get("friend") or ctx.get("defender") or ctx.get("target")
    decline = next((o for o in decision.options if o.point_field is None), None)
    steps = [o for o in decision.options if o.point_field is not None and o.has_region]
    if decline is None or not isinstance(friend, str) or not steps:
        return _shared(view, decision, rng)
    attacker = ctx.get("attacker")
    _, q_any = reactions.later_attack_odds(view, uid, attacker if isinstance(attacker, str) else None)
    plain = {
        bool(getattr(o.command, "drop", False)): float(o.p_success or 0.0)
        for o in steps
        if not getattr(o.command, "acrobatic", False)
    }
    scored: list[tuple[float, int, Option]] = []
    for i, opt in enumerate(steps):
        scoring = opt
        if getattr(opt.command, "acrobatic", False):  # what it spends: its gain over the plain dodge
            detail = {
                **(opt.detail or {}),
                "p_plain": plain.get(bool(getattr(opt.command, "drop", False)), 0.0),
            }
            scoring = Option(opt.command, opt.label, opt.p_success, opt.modifiers, detail=detail)
        harm, harm_none = reactions.interpose_harm(view, uid, friend, scoring, q_any)
        scored.append((harm_none - harm, -i, opt))
    scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
    weighed = [trace.Candidate(decline.label, 0.0, why=(f"stepping in would not spare {friend} enough",))]
    for gain, _, opt in scored:
        if gain <= 1e-9:
            weighed.append(trace.Candidate(opt.label, gain))
            continue
        b = ev.board(view, None, uid, REACH)
        got = best_point(view, b, opt, rng)
        if got is None:
            continue
        point = got[0]
        why = (f"takes the blow for {friend}: the harm spared is worth more than the risk",)
        return opt.with_point(point), [trace.Candidate(_label(opt, point), gain, point, why), *weighed]
    return decline.command, weighed
