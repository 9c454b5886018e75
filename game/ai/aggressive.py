"""The ``aggressive`` policy: close with the enemy and attack the best-odds target.

Contract: ``aggressive_policy(view, decision, rng)`` returns a legal command.
Reactions (defences, retreats, dodge moves, follows, interpositions) go to the
shared :func:`game.ai.reactions.react`. On its own turn the unit

0. makes its commitments first (:mod:`game.ai.commitment`): a free standing choice that
   gains (defence dice: whether moves reroll the dodge dice), and, where the ruleset asks for
   one (Cortex), the declaration of the round's actions of best expected value when it can
   attack from where it stands;
1. takes a maneuver that sets up a better attack next turn (GURPS Aim) when
   :func:`~game.ai.tactics.setup_beats_attack` says it is worth SETUP_GAIN
   times attacking now;
2. attacks with the option of highest :func:`~game.ai.tactics.attack_value`
   (exact ``p_hurt`` × expected share of the target's remaining health:
   finishing blows first), unless that attack is
   :func:`~game.ai.tactics.hopeless` (chance to hurt below HOPELESS_P): then it
   closes in first (below) and only attacks if it cannot;
3. otherwise moves towards its quarry: the enemy with the smallest straight
   distance weighted by health (a wounded enemy counts as nearer), kept from
   turn to turn unless another is QUARRY_STICKINESS times nearer. Lying or
   kneeling, it gets up first. It follows the exact shortest path (other units
   block, the quarry does not) up to base contact, keeping the AP of one attack
   when it can afford to; once its free movement is spent and it still has
   actions to declare (Cortex), it declares the actions that bring it into
   contact with one to spare (:func:`~game.ai.commitment.declare_to_move`);
4. otherwise steps closer if the ruleset offers a step, and ends its turn.

Apart from aiming, it never picks a turn maneuver (all-out defence and the
like): it wants every AP for closing and striking.
"""

from __future__ import annotations

import math

import numpy as np

from game.ai import commitment
from game.ai import tactics as t
from game.ai.reactions import react
from game.core.commands import ChangePosture, Command, Decision, EndTurn, Move, Option, Step
from game.engine.view import MatchView

#: Gap (inches) left between the bases when moving into contact.
CONTACT_GAP = 0.05
#: A move shorter than this (inches) is not worth its AP.
MIN_MOVE = 0.05
#: Fractions of the planned distance tried when the full one is refused.
SHRINK = (1.0, 0.85, 0.65, 0.45, 0.25)
#: A unit keeps its quarry unless another enemy is this many times nearer (see choose_quarry).
QUARRY_STICKINESS = 1.5
#: Postures a unit closing in gets up from: they move at a fraction of the speed, or not at all.
LOW_POSTURES = ("kneeling", "sitting", "crawling", "prone")
#: Random samples of the move region tried when the path cannot be followed.
SAMPLES = 32


def aggressive_policy(view: MatchView, decision: Decision, rng: np.random.Generator) -> Command:
    """See the module docstring."""
    if decision.kind != "turn":
        return react(view, decision, rng)
    uid = decision.unit
    first = commitment.free_choice(decision) or commitment.declare_for_attacks(view, decision)
    if first is not None:
        return first.command
    best = t.best_attack(view, decision)
    setup = t.setup_beats_attack(view, decision, best)
    if setup is not None:
        return setup.command
    if best is not None and not t.hopeless(best):
        return best.command
    quarry = choose_quarry(view, uid)
    if quarry is not None:
        if best is None:
            up = get_up(view, decision)
            if up is not None:
                return up.command
        move = t.find(decision, Move, point=True)
        if move is not None:
            p = close_in(view, decision, move, quarry, rng)
            if p is not None:
                return move.with_point(p)
        step = t.find(decision, Step, point=True)
        if step is not None:
            p = close_in(view, decision, step, quarry, rng)
            if p is not None:
                return step.with_point(p)
        declared = commitment.declare_to_move(view, decision, quarry)  # free movement spent
        if declared is not None:
            return declared.command
    if best is not None:
        return best.command  # hopeless, but nothing better to do
    return EndTurn(uid)


def get_up(view: MatchView, decision: Decision) -> Option | None:
    """The option that gets a unit lower than crouching back on its feet (standing if offered,
    else crouching, which some rulesets require on the way up), or None."""
    if view.posture(decision.unit) not in LOW_POSTURES:
        return None
    offered = {o.command.posture: o for o in decision.options if isinstance(o.command, ChangePosture)}
    return offered.get("standing") or offered.get("crouching")


def choose_quarry(view: MatchView, uid: str) -> str | None:
    """The enemy to close with: nearest, a wounded one counting as nearer (ties: first listed).

    The unit keeps its previous quarry while that one is in action and no more than
    :data:`QUARRY_STICKINESS` times as far (by the same measure) as the best: without it two
    enemies at similar distances make a unit walk back and forth between them.
    """
    here = view.pos(uid)
    keys: dict[str, float] = {}
    for e in t.enemies(view, uid):
        keys[e] = math.dist(here, view.pos(e)) * (0.5 + 0.5 * t.condition(view, e))
    if not keys:
        return None
    best = min(keys, key=keys.__getitem__)  # the first listed of equals
    old = t.remembered_quarry(view, uid)
    if old in keys and keys[old] <= QUARRY_STICKINESS * keys[best]:
        best = old
    t.remembered_quarry(view, uid, best)
    return best


def move_budget(view: MatchView, decision: Decision, opt: Option) -> float:
    """How far to go: the option's reach, less the AP of one attack when the unit can afford both."""
    d = opt.detail or {}
    max_len = float(d.get("max_len", math.inf))
    per_ap = float(d.get("inches_per_ap", 0.0))
    ap = int((decision.context or {}).get("ap", 0))
    attack = t.action_costs(view, decision.unit).get("attack")
    if per_ap > 0 and attack is not None and ap - attack >= 1:
        return min(max_len, per_ap * (ap - attack))
    return max_len


def close_in(
    view: MatchView, decision: Decision, opt: Option, quarry: str, rng: np.random.Generator
) -> t.Point | None:
    """A legal point of ``opt`` (a Move or Step) that brings the unit nearer to ``quarry``, or None."""
    unit = t.me(view, decision.unit)
    goal = view.pos(quarry)
    stop = unit.base + view.base(quarry) + CONTACT_GAP
    now = math.dist(unit.xy, goal)
    if now <= stop + MIN_MOVE:
        return None
    # A step is one yard (DESIGN §1); a move goes as far as the budget allows.
    budget = move_budget(view, decision, opt) if isinstance(opt.command, Move) else 1.0 / view.yards_per_inch
    path = t.route(view, unit, goal, ignore=quarry)
    if path is not None:
        for f in SHRINK:
            p = t.rounded(t.along(path.points, budget * f, stop))
            if math.dist(p, unit.xy) < MIN_MOVE:
                break
            if opt.validate is None or opt.validate(p) is None:
                return p
    # No usable path (blocked, or the region is smaller than the path suggests): the legal sample
    # nearest the quarry, if it is nearer than where the unit stands.
    pts = t.candidates(opt, rng, SAMPLES)
    if len(pts) == 0:
        return None
    d = np.hypot(pts[:, 0] - goal[0], pts[:, 1] - goal[1])
    order = [i for i in np.lexsort((np.arange(len(pts)), d)) if d[i] < now - MIN_MOVE]
    return t.first_legal(opt, pts, order, view=view, uid=decision.unit)
