"""The ``planner`` policy: a one-ply search over turn plans with a two-ply position evaluator.

Contract: ``Planner(options)`` (made by :func:`make_planner`, registered as ``planner``; the
default instance is :data:`planner_policy`) is a policy ``(view, decision, rng) -> command``. It
reads only the view and the decision, draws only from ``rng``, keeps nothing between decisions
that play depends on (every fact it uses is read from the view or the log), and names no
ruleset: it reads the odds every option carries. On its own turn it

1. builds a :class:`~game.ai.planner.evaluate.Board` and samples candidate points (the spot it stands
   on, ``budget`` uniform samples of the move region, points on the way to the enemy worth
   approaching most, a few samples of the step region);
2. scores every point at once with :func:`~game.ai.planner.evaluate.score_points` (one exact cover
   kernel call): the position value ``PV = OFFENCE × offence − incoming + APPROACH × approach``,
   where *incoming* is the worth its side expects to lose to the enemies' best replies;
3. values each plan that starts with a legal command: an **attack** by its exact expected gain
   (:func:`~game.ai.planner.evaluate.attack_gain`), the relief of the enemy's reply if it goes down,
   and the best continuation with the AP left (stay, or move to the best point in reach, or
   another attack); a **move** to a point by its PV plus an attack from there if the AP left pay
   for one (the odds from there estimated, :data:`ATTACK_DISCOUNT`); a **posture** change by the
   PV at the new height (one single-point kernel call); a **setup maneuver** (an aim) by how much
   the attack it promises (:func:`game.ai.tactics.next_turn_attack`) beats the best attack now (it
   gives that attack up); any other maneuver (all-out defence and the like) as guarding
   (:data:`GUARD` of the incoming aimed at the unit);
   **end turn** by the PV where it stands. Lower postures pay :data:`LOW_POSTURE_COST`;
4. takes the best plan's first command; a move is validated in rank order
   (:func:`game.ai.tactics.first_legal`) among points better than the best other plan by
   :data:`MOVE_GAIN`. When that command ends its turn and turning is free, it first faces the
   enemies that threaten its final position (once a turn).

Every other decision (defences, retreats, dodge moves, drops, interpositions, follows) goes to
:func:`game.ai.planner.react.react`, which values the options with the same evaluator. The plans
weighed at each decision are recorded for the window (:mod:`game.ai.planner.trace`).

``budget`` (:class:`PlannerOptions`, ``--policy-option planner.budget=N``) is the number of
uniform samples of the move region per turn decision: more samples, better points, more time.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from pydantic import BaseModel, ConfigDict, Field

from game.ai import commitment
from game.ai import tactics as t
from game.ai.planner import evaluate as ev
from game.ai.planner import reserve as rs
from game.ai.planner import trace
from game.ai.planner.approach import ATTACK_DISCOUNT, approach_points, quarry
from game.ai.planner.facts import log_facts
from game.ai.planner.react import react
from game.ai.points import sampling_region
from game.core.commands import ChangePosture, Decision, EndTurn, Face, Maneuver, Move, Option, Step, matches
from game.geometry.model import cover_level

#: Default number of move-region samples per turn decision.
DEFAULT_BUDGET = 12
#: Weight of next turn's attack from a point in its value (the enemies move first).
OFFENCE = 0.6
#: Weight of the incoming attacks (the worth the side expects to lose to the enemies' replies).
INCOMING = 1.0
#: Weight of the approach term (closing with the enemies worth attacking).
APPROACH = 0.15
#: A further attack this turn (when the AP allow it) counts this much of the best attack now.
SECOND_ATTACK = 0.5
#: A setup maneuver counts this much of the attack it promises for next turn.
SETUP_DISCOUNT = 0.8
#: An opaque maneuver (no promised attack: all-out defence and the like) is valued as cutting
#: this share of the incoming attacks aimed at the unit.
GUARD = 0.3
#: A move must beat the best plan without one by this much (worth).
MOVE_GAIN = 0.01
#: Shortest move worth making (inches).
MIN_MOVE = 0.05
#: Worth lost by ending a turn in a lower posture (slower to move and to get up again).
LOW_POSTURE_COST = {
    "standing": 0.0,
    "crouching": 0.005,
    "kneeling": 0.02,
    "sitting": 0.04,
    "crawling": 0.05,
    "prone": 0.05,
}
#: Samples of the step region, and points on the way to the enemy worth approaching.
STEP_SAMPLES = 6
#: How far an enemy is assumed to move when nothing tells (inches).
DEFAULT_REACH = 6.0
#: A lower posture is weighed only where the attacks expected on the unit exceed this (worth).
POSTURE_THREAT = 0.02
#: Turn to face the threats when the facing is off by more than this (degrees).
FACE_TOLERANCE = 45.0
#: While no attack is worth making, a point counts ADVANCE per move-length of progress towards the
#: nearest enemy (more as the round limit nears, see :func:`pressure`).
ADVANCE = 0.05
#: Attacks expected to take less worth than this are not worth their AP.
MIN_GAIN = 0.002
#: A unit whose best attack takes less than this is not engaged: it advances (ADVANCE).
ENGAGE_GAIN = 0.03
#: Worth of an AP spent on anything but an attack (it could have paid for one, or a reaction).
AP_COST = 0.02
#: The golden angle (radians): successive candidate points turn by it (a sunflower spiral).
GOLDEN = math.pi * (3.0 - math.sqrt(5.0))


def spiral(centre: t.Point, radius: float, n: int) -> np.ndarray:
    """``n`` points evenly spread over the disc of ``radius`` around ``centre`` (a sunflower
    spiral: the same points every time, so the decisions of one turn weigh the same places)."""
    j = np.arange(n, dtype=np.float64)
    r = radius * np.sqrt((j + 0.5) / n)
    a = j * GOLDEN
    return np.column_stack([centre[0] + r * np.cos(a), centre[1] + r * np.sin(a)])


def region_points(option: Any, centre: t.Point, radius: float, n: int) -> np.ndarray:
    """Up to ``n`` points of :func:`spiral` that lie in ``option``'s region (rounded as chosen
    points are)."""
    region = sampling_region(option)
    if region is None or region.is_empty or n <= 0 or radius <= 0:
        return np.empty((0, 2))
    pts = spiral(centre, radius, n)
    if hasattr(region, "contains_xy"):  # a clipped move disc answers without building the geometry
        inside = region.contains_xy(pts[:, 0], pts[:, 1])
    else:
        inside = shapely.contains_xy(region, pts[:, 0], pts[:, 1])
    return np.round(pts[np.asarray(inside, dtype=bool)], t.POINT_DECIMALS)


class PlannerOptions(BaseModel):
    """Options of the ``planner1`` policy (``--policy-option planner1.KEY=VALUE``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    budget: int = Field(
        default=DEFAULT_BUDGET,
        ge=1,
        le=1024,
        description="move-region samples weighed per turn decision (strength for time)",
    )


@dataclass(frozen=True)
class _Plan:
    value: float
    order: int
    label: str
    command: Any
    point: tuple[float, float] | None = None
    ends_turn: bool = False
    stays: bool = False  # it neither attacks nor moves
    why: tuple[str, ...] = ()  # the reasons in the game's terms (the trace, for players)


# --------------------------------------------------------------------------- why, in words
def seen_text(b: ev.Board, exposed: np.ndarray | None, j: int) -> str | None:
    """``seen by 2 of 3 enemies (light cover from blue-2, the most exposing)`` at point ``j``."""
    if exposed is None or len(b.enemies) == 0:
        return None
    row = exposed[j]
    seen = [i for i in range(len(b.enemies)) if row[i] < 1.0 - 1e-9]
    if not seen:
        return f"out of sight of all {len(b.enemies)} enemies"
    worst = min(seen, key=lambda i: float(row[i]))
    level = cover_level(float(row[worst])).value
    return (
        f"seen by {len(seen)} of {len(b.enemies)} enemies "
        f"({level} cover from {b.enemies[worst]}, the most exposing)"
    )


def attack_why(view: Any, o: Option) -> tuple[str, ...]:
    """An attack's reasons: its exact chance to hurt and the chance it puts the target out."""
    target = getattr(o.command, "target", "?")
    out = [f"{100 * ev.hurt_chance(o):.0f}% to hurt {target}"]
    kill = ev.kill_chance(view, o)
    if kill >= 0.005:
        out.append(f"about {100 * kill:.0f}% to put it out of action")
    return tuple(out)


def compare_here(sc: ev.PointScores, j: int) -> str:
    """Whether point ``j`` is safer than where the unit stands (the enemies' expected replies)."""
    here, there = float(sc.mine[0]), float(sc.mine[j])
    if there < here - 1e-3:
        return (
            f"the enemies' replies expected to cost it {100 * (1 - there / here):.0f}% less than here"
            if here > 0
            else "safer than here"
        )
    if there > here + 1e-3:
        return "more exposed than here, for a better shot"
    return "as exposed as here"


class Planner:
    """The planner policy with its options (see the module doc)."""

    def __init__(self, options: PlannerOptions | None = None) -> None:
        self.options = options or PlannerOptions()

    def __call__(self, view: Any, decision: Decision, rng: np.random.Generator) -> Any:
        positions = 0
        if decision.kind != "turn":
            cmd, weighed = react(view, decision, rng)
        else:
            cmd, weighed, positions = plan_turn(view, decision, rng, self.options.budget)
        kept = tuple(weighed[: trace.KEEP])
        trace.record(
            view,
            trace.Considered(decision.unit, decision.kind, view.event_count, kept, positions, view.round),
        )
        return cmd

    def __repr__(self) -> str:
        return f"Planner(budget={self.options.budget})"


def make_planner(**options: Any) -> Planner:
    """A planner with ``options`` (:class:`PlannerOptions`; pydantic ``ValidationError`` if bad)."""
    return Planner(PlannerOptions.model_validate(options))


#: The registered default planner.
planner_policy = Planner()


# --------------------------------------------------------------------------- the turn
def position_value(sc: ev.PointScores, press: float = 0.0) -> np.ndarray:
    """PV of each scored point (see the module doc); ``press`` in [0, 1] (:func:`pressure`)."""
    return OFFENCE * sc.offence - INCOMING * (1.0 - 0.5 * press) * sc.incoming + APPROACH * sc.approach


def pressure(view: Any) -> float:
    """How near the round limit the match is: 0 in the first half, rising to 1 at the limit."""
    limit = log_facts(view).round_limit
    if limit <= 0:
        return 0.0
    return float(min(1.0, max(0.0, (view.round - 0.5 * limit) / (0.5 * limit))))


def move_costs(view: Any, uid: str, lengths: np.ndarray, per_ap: float, ap: int) -> np.ndarray:
    """AP each move of ``lengths`` inches costs now (inf: beyond this turn's reach), as
    ``view.move_ap_cost`` prices it. When the ruleset prices one AP per ``per_ap`` inches begun
    (checked at every AP step), the costs are computed at once; otherwise one by one."""
    if per_ap > 0 and ap > 0:
        standard = True
        for a in range(1, ap + 1):
            if view.move_ap_cost(uid, a * per_ap - 1e-6) != a or (
                a < ap and view.move_ap_cost(uid, a * per_ap + 1e-6) != a + 1
            ):
                standard = False
                break
        if standard:
            cost = np.maximum(1.0, np.ceil(lengths / per_ap - 1e-9))
            return np.where(cost <= ap, cost, np.inf)
    out = np.empty(len(lengths))
    for j, length in enumerate(lengths.tolist()):
        got = view.move_ap_cost(uid, length)
        out[j] = math.inf if got is None else float(got)
    return out


def _facing_towards(b: ev.Board, sc: ev.PointScores, j: int) -> float | None:
    """The facing (degrees) that looks at the threats to point ``j``, or None (no enemy)."""
    if len(b.enemies) == 0:
        return None
    x, y = sc.points[j]
    dx, dy = b.exy[:, 0] - x, b.exy[:, 1] - y
    w = sc.mine_e[j] + 1e-3 / (1.0 + np.hypot(dx, dy))
    norm = np.hypot(dx, dy) + 1e-9
    sx, sy = float((w * dx / norm).sum()), float((w * dy / norm).sum())
    if abs(sx) + abs(sy) < 1e-12:
        return None
    return math.degrees(math.atan2(sy, sx)) % 360.0


def _angle_off(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def plan_turn(
    view: Any, decision: Decision, rng: np.random.Generator, budget: int
) -> tuple[Any, list[trace.Candidate], int]:
    """The command that starts the best plan of ``decision``'s unit, the plans weighed and how
    many candidate points were scored.

    Commitments come first (:mod:`game.ai.commitment`): a free standing choice that gains, and,
    where the ruleset asks for a declaration of the round's actions, the declaration of best
    expected value when the unit can attack from where it stands. Without one, the unit plans
    with what it has (its free movement); if the best plan then ends its turn where it stands,
    it declares the actions it needs to close with its :func:`quarry` instead.
    """
    free = commitment.free_choice(decision)
    if free is not None:
        gain = float((free.detail or {}).get("value_gain", 0.0))
        return (
            free.command,
            [trace.Candidate(f"commit: {free.label}", gain, why=("a free choice that gains",))],
            0,
        )
    declared = commitment.declare_for_attacks(view, decision)
    if declared is not None:
        value = commitment.declaration_value(view, declared)
        why = ("the actions its best attacks from here need",)
        return declared.command, [trace.Candidate(f"declare: {declared.label}", value, why=why)], 0
    cmd, weighed, chosen, b, positions = _plan(view, decision, rng, budget)
    if commitment.declarations(decision) and chosen.stays and not _engaged(view, decision):
        j = quarry(b)
        got = commitment.declare_to_move(view, decision, b.enemies[j] if j is not None else None)
        if got is not None:
            why = ("no attack worth making from here: the actions to close in",)
            declare = trace.Candidate(f"declare: {got.label}", chosen.value, why=why)
            return got.command, [declare, *weighed], positions
    return cmd, weighed, positions


def _engaged(view: Any, decision: Decision) -> bool:
    """Whether some attack the decision offers, or prices in a declaration, is worth making
    (answered once per decision)."""
    global _ENGAGED
    ref, got = _ENGAGED
    if ref() is not decision:
        offered = list(t.attacks(decision))
        for o in commitment.declarations(decision):
            offered += list((o.detail or {}).get("attacks") or ())
        got = any(ev.attack_gain(view, o) >= ENGAGE_GAIN for o in offered)
        _ENGAGED = (weakref.ref(decision), got)
    return got


#: The last decision asked about (weakly) and whether it is engaged.
_ENGAGED: tuple[Any, bool] = (lambda: None, False)


def _is_commitment(opt: Any) -> bool:
    """A declaration or standing choice (handled by :mod:`game.ai.commitment`), not a maneuver."""
    d = opt.detail or {}
    return "declare_actions" in d or "value_gain" in d


def _plan(
    view: Any, decision: Decision, rng: np.random.Generator, budget: int
) -> tuple[Any, list[trace.Candidate], _Plan, ev.Board, int]:
    """The planner proper (see the module doc): the command, the plans weighed, the chosen plan,
    the board it was weighed on and the number of candidate points scored."""
    before = _planned_before_facing(view, decision)
    if before is not None:
        _, _, _, _, chosen_, candidates_, b_, n_ = before
        return chosen_.command, candidates_, chosen_, b_, n_
    uid = decision.unit
    ap = int((decision.context or {}).get("ap", view.unit(uid).ap))
    costs = t.action_costs(view, uid)
    c_att, c_post = costs.get("attack"), costs.get("posture")
    move = t.find(decision, Move, point=True)
    step = t.find(decision, Step, point=True)
    md = move.detail if move is not None else {}
    per_ap = float(md.get("inches_per_ap", 0.0))
    max_len = float(md.get("max_len", 0.0))
    reach = per_ap * view.unit(uid).ap_max if per_ap > 0 else DEFAULT_REACH
    b = ev.board(view, decision, uid, reach)
    attacks = t.attacks(decision)
    attack_later = bool(attacks) or not t.attacked_this_turn(view, uid)
    here = b.me.xy
    posture = view.posture(uid)
    stay_cost = LOW_POSTURE_COST.get(posture, 0.0)

    # Candidate points: here, samples of the move region (with the way to the best enemy), steps.
    blocks = [np.array([here], dtype=np.float64)]
    n_move = 0
    along = np.empty(0)
    if move is not None:
        if _engaged(view, decision):  # a unit with a worthwhile attack weighs the region only
            pm = region_points(move, here, max_len, budget)
        else:
            extra, along = approach_points(view, b, max_len)
            pm = np.concatenate([extra, region_points(move, here, max_len, budget)])
        blocks.append(pm)
        n_move = len(pm)
    if step is not None:
        ps = region_points(step, here, 1.0 / max(view.yards_per_inch, 1e-9), STEP_SAMPLES)
    else:
        ps = np.empty((0, 2))
    blocks.append(ps)
    pts = np.concatenate(blocks)
    sc = ev.score_points(view, b, pts)
    press = pressure(view)
    pv = position_value(sc, press)
    dist = np.hypot(pts[:, 0] - here[0], pts[:, 1] - here[1])
    gains = [ev.attack_gain(view, o) for o in attacks]
    engaged = any(g >= ENGAGE_GAIN for g in gains)
    if not engaged and len(b.enemies):
        d_near = t.distances(pts, b.exy).min(axis=1)
        gone = d_near[0] - d_near
        if move is not None and len(along):
            gone[1 : 1 + len(along)] = np.maximum(gone[1 : 1 + len(along)], along)
        progress = np.clip(gone / max(reach, 1.0), -1.0, 1.0)
        pv = pv + ADVANCE * (1.0 + 2.0 * press) * progress
    react_ap = rs.reaction_cost(view, uid)
    # AP each point needs (inf: out of reach this turn) and AP left there.
    need = np.zeros(len(pts))
    need[1 : 1 + n_move] = move_costs(view, uid, dist[1 : 1 + n_move], per_ap, ap)
    step_cost = float(costs.get("step") or 0)
    need[1 + n_move :] = step_cost
    left = ap - need
    can_attack_at = (left >= (c_att if c_att is not None else math.inf)) & attack_later
    est_attack = np.where(can_attack_at, ATTACK_DISCOUNT * sc.offence, 0.0)

    plans: list[_Plan] = []
    pv_here = float(pv[0])
    best_gain = max(gains, default=0.0)

    # AP kept for reactions are worth the reactions they pay for against the enemies still to act
    # this round (one each, the most dangerous first): each enemy's incoming worth at the point x
    # the unit's defence chance (game.ai.planner.reserve). Fewer AP than a reaction costs: nothing.
    later = set(rs.to_act(view, uid))
    cols = [k for k, e in enumerate(b.enemies) if e in later]
    dodge_worth = log_facts(view).defence_chance(uid) * sc.mine_e[:, cols]

    def reserve(a: float | np.ndarray, j: int | np.ndarray = 0) -> Any:
        """Worth of keeping ``a`` AP for reactions at point(s) ``j``."""
        aa = np.asarray(a, dtype=np.float64)
        jj = np.asarray(j)
        if react_ap <= 0 or not cols:
            return 0.0 * aa
        left, rows = np.broadcast_arrays(aa, jj)
        got = rs.held_worth(left.ravel(), int(react_ap), dodge_worth[rows.ravel()])
        return got.reshape(left.shape) if left.ndim else float(got[0])

    # The best continuation after an attack, with ``a`` AP left.
    moved = dist >= MIN_MOVE
    moved[0] = False
    move_idx = np.arange(len(pts))
    is_move = (move_idx >= 1) & (move_idx < 1 + n_move)
    is_step = move_idx >= 1 + n_move

    def continuation(a: float) -> float:
        best = pv_here + float(reserve(a))
        ok = moved & (need <= a)
        if ok.any():
            idx = np.flatnonzero(ok)
            best = max(best, float((pv[idx] + reserve(a - need[idx], idx) - AP_COST * need[idx]).max()))
        if c_att is not None and a >= c_att and best_gain >= MIN_GAIN:
            best = max(best, pv_here + SECOND_ATTACK * best_gain + float(reserve(a - c_att)))
        return best

    enemy_index = {e: i for i, e in enumerate(b.enemies)}
    for o, g in zip(attacks, gains, strict=True):
        if g < MIN_GAIN:
            continue
        k = enemy_index.get(getattr(o.command, "target", ""))
        relief = ev.kill_chance(view, o) * float(sc.per_enemy[0, k]) if k is not None else 0.0
        a_left = ap - (c_att or 0)
        v = g + relief + continuation(a_left) - stay_cost
        plans.append(
            _Plan(
                v, len(plans), f"attack {o.label}", o.command, ends_turn=a_left <= 0, why=attack_why(view, o)
            )
        )
    # Postures where it stands, scored in one pass (a lower posture only pays where it is seen).
    seen_here = float(sc.mine[0]) > POSTURE_THREAT
    postures: list[tuple[Any, str, float]] = []
    for o in decision.options:
        if isinstance(o.command, ChangePosture):
            q = o.command.posture
            height = t.posture_height(view, uid, q)
            if seen_here or height > b.me.height + 1e-9:
                postures.append((o, q, height))
    if postures:
        heights = sorted({h for _, _, h in postures})
        sq = ev.score_heights(view, b, heights)
        pvq = position_value(sq, press)
        a_left = ap - (c_post or 0)
        for o, q, height in postures:
            i = heights.index(height)
            after = ATTACK_DISCOUNT * float(sq.offence[i]) if c_att is not None and a_left >= c_att else 0.0
            v = float(pvq[i]) + (after if attack_later else 0.0)
            v += float(reserve(a_left)) - LOW_POSTURE_COST.get(q, 0.05) - AP_COST * float(c_post or 0)
            seen = seen_text(b, sq.exposed, i)
            why = (f"{q} here: {seen}",) if seen else ()
            plans.append(
                _Plan(v, len(plans), f"posture {q}", o.command, ends_turn=a_left <= 0, stays=True, why=why)
            )
    # Maneuvers: setups by the attack they promise, others as guarding.
    mine_here = float(sc.mine[0])
    for o in decision.options:
        if not isinstance(o.command, Maneuver) or _is_commitment(o):
            continue
        promised = t.next_turn_attack(decision, o)
        if promised is not None:
            # It gives up this turn's attack: next turn it would attack anyway, so a setup pays
            # only by how much better the promised attack is than the best one now.
            v = SETUP_DISCOUNT * (ev.attack_gain(view, promised) - best_gain) + pv_here - stay_cost
            why = (f"promises {100 * ev.hurt_chance(promised):.0f}% to hurt next turn",)
        else:
            v = pv_here + GUARD * mine_here - stay_cost
            seen = seen_text(b, sc.exposed, 0)
            why = (f"guards where it stands: {seen}",) if seen else ()
        plans.append(
            _Plan(
                v,
                len(plans),
                f"maneuver {o.label}",
                o.command,
                ends_turn=True,
                stays=promised is None,
                why=why,
            )
        )
    end = t.find(decision, EndTurn)
    if end is not None:
        v = pv_here + float(reserve(ap)) - stay_cost
        why_end = []
        if attacks:
            best = max(attacks, key=lambda o: ev.hurt_chance(o))
            if best_gain < MIN_GAIN:
                why_end.append(f"no attack worth its AP (best: {100 * ev.hurt_chance(best):.0f}% to hurt)")
        else:
            why_end.append("no attack from here")
        seen = seen_text(b, sc.exposed, 0)
        if seen:
            why_end.append(f"stays: {seen}")
        if react_ap > 0:
            why_end.append(f"keeps {ap} AP for reactions ({react_ap:g} AP each)")
        plans.append(
            _Plan(v, len(plans), "end turn", end.command, ends_turn=True, stays=True, why=tuple(why_end))
        )
    plans.sort(key=lambda p: (-p.value, p.order))
    best_other = plans[0].value if plans else -math.inf

    # Moves and steps: validated in rank order among those that beat the best other plan.
    after_move = np.where(can_attack_at & (est_attack > 0), left - (c_att or 0), left)
    # Where the turn ends: at the point, or, with AP left after the attack there for another move,
    # at the best point within that move of it (step out, shoot, step back into cover).
    end_pv = pv.copy()
    if per_ap > 0 and n_move:
        spare = np.where(np.isfinite(need) & (est_attack > 0), np.maximum(after_move, 0.0), 0.0) * per_ap
        if spare.max() > 0:
            cross = np.hypot(pts[:, None, 0] - pts[None, :, 0], pts[:, None, 1] - pts[None, :, 1])
            within = cross <= spare[:, None] + 1e-9
            end_pv = np.where(within, pv[None, :], -np.inf).max(axis=1)
            end_pv = np.maximum(end_pv, pv)
    point_value = end_pv + est_attack + reserve(np.maximum(after_move, 0.0), np.arange(len(pts))) - stay_cost
    point_value = point_value - AP_COST * np.where(np.isfinite(need), need, 0.0)
    chosen: _Plan | None = None
    ranked_points: list[_Plan] = []
    for opt, mask in ((move, is_move), (step, is_step)):
        if opt is None:
            continue
        ok = mask & moved & np.isfinite(need) & (point_value > best_other + MOVE_GAIN)
        idx = np.flatnonzero(ok)
        if len(idx) == 0:
            continue
        order = idx[np.lexsort((idx, -point_value[idx]))]
        p = t.first_legal(opt, pts, order, view=view, uid=uid)
        if p is None:
            continue
        j = int(np.argmin(np.hypot(pts[:, 0] - p[0], pts[:, 1] - p[1])))
        kind = "move" if opt is move else "step"
        why_move = [w for w in (seen_text(b, sc.exposed, j),) if w]
        why_move.append(compare_here(sc, j))
        if can_attack_at[j] and est_attack[j] > 0:
            why_move.append("can attack from there this turn")
        elif not engaged and len(b.enemies):
            why_move.append("closes in: no attack worth making yet")
        plan = _Plan(
            float(point_value[j]),
            -1,
            f"{kind} to ({p[0]:.1f}, {p[1]:.1f})",
            opt.with_point(p),
            point=p,
            ends_turn=bool(left[j] <= 0) and not can_attack_at[j],
            why=tuple(why_move),
        )
        ranked_points.append(plan)
        if chosen is None or plan.value > chosen.value:
            chosen = plan
    if chosen is None:
        chosen = (
            plans[0] if plans else _Plan(pv_here, 0, "end turn", EndTurn(uid), ends_turn=True, stays=True)
        )
    weighed = sorted([*plans, *ranked_points], key=lambda p: (-p.value, p.order))
    weighed.remove(chosen)
    weighed.insert(0, chosen)
    candidates = [trace.Candidate(p.label, p.value, p.point, p.why) for p in weighed]

    # Face the threats before the command that ends the turn, if turning is free.
    face = t.find(decision, Face, point=True)
    if face is not None and chosen.ends_turn and costs.get("face") == 0 and uid not in log_facts(view).faced:
        j = 0
        if chosen.point is not None:
            j = int(np.argmin(np.hypot(pts[:, 0] - chosen.point[0], pts[:, 1] - chosen.point[1])))
        want = _facing_towards(b, sc, j)
        if want is not None and _angle_off(want, view.unit(uid).facing) > FACE_TOLERANCE:
            degrees = round(want, t.POINT_DECIMALS)
            _AFTER_FACE[view] = (uid, view.round, here, ap, chosen, candidates, b, len(pts))
            candidates = [
                trace.Candidate(
                    f"face {degrees:.0f} deg, then {chosen.label}",
                    chosen.value,
                    why=("turns to face the enemies that threaten where its turn ends", *chosen.why),
                ),
                *candidates,
            ]
            return face.with_point(degrees), candidates, chosen, b, len(pts)
    return chosen.command, candidates, chosen, b, len(pts)


#: The plan a unit turned to face the threats for, per view: the next decision (the same unit, round,
#: place and AP, its turn taken) takes it without weighing again. Planning reads no random numbers,
#: so weighing again would choose the same: this only saves the time (and a loaded game, which has
#: no such memory, plays on identically).
_AFTER_FACE: weakref.WeakKeyDictionary[Any, tuple[Any, ...]] = weakref.WeakKeyDictionary()


def _planned_before_facing(view: Any, decision: Decision) -> tuple[Any, ...] | None:
    got = _AFTER_FACE.pop(view, None)
    if got is None:
        return None
    uid, rnd, here, ap, chosen, _, _, _ = got
    if (
        uid != decision.unit
        or rnd != view.round
        or here != view.pos(uid)
        or ap != int((decision.context or {}).get("ap", -1))
        or uid not in log_facts(view).faced
        or not any(matches(o, chosen.command) is None for o in decision.options)
    ):
        return None
    return got
