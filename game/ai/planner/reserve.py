"""The worth of AP held for a reaction, as the game prices it.

Contract: pure functions of numbers the game gives (the AP a reaction and an attack cost, read from
the ruleset through the view; the worth of the unit's best attack and of the incoming attacks from
the planner's evaluator; the unit's chance to make a defence work, from the log). No constant of
any ruleset: the same arithmetic prices a 1-AP and a 3-AP dodge.

Where reactions cost AP, an AP has two uses until the pool refills (at the round's start): the
unit's own turn, if it is still to come this round (its attacks, then moves), and reactions against
the enemies still to act this round (one each: a reaction answers one enemy's turn). :func:`ap_worth`
is the best split of ``a`` AP between them:

- ``k`` attacks of the own turn, the first worth ``attack``, each further one ``SECOND_ATTACK`` of
  the one before (the turn planner's own discount, game.ai.planner.onestep); or, where a move of
  ``c_move`` AP first buys a better shot (``moved_attack``: the turn planner's estimate of an
  attack after a move), those AP and then ``k`` attacks from there;
- ``n = (a − k × attack cost) // reaction cost`` reactions, at most one per enemy still to act,
  against the most dangerous of them: each worth its incoming worth × the unit's defence chance;
- every AP left over is worth :data:`MOVE_AP` (a step to a better place).

:func:`reaction_price` is what one reaction's AP cost the unit: ``ap_worth(a) − ap_worth(a − cost)``,
the attack it gives up or the later reaction it can no longer afford, and nothing when the AP would
have lapsed unused. :func:`held_worth` is the reactions part alone, for a turn's end (the turn
planner adds it to what the turn's AP bought).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from game.ai.planner.facts import log_facts

#: A further attack of the same turn counts this share of the one before (as the turn planner's).
SECOND_ATTACK = 0.5
#: Worth of an AP spent on a move (the turn planner's price of an AP not spent on an attack).
MOVE_AP = 0.02


def reaction_cost(view: Any, uid: str) -> int:
    """AP one reaction of ``uid`` costs now, as the ruleset tells (0: reactions cost no AP)."""
    got = view.reaction_ap(uid)
    return int(got[1]) if got is not None else 0


def attack_cost(view: Any, uid: str) -> int | None:
    """AP an attack of ``uid`` costs (None: attacks cost no AP, so AP never buy one)."""
    got = view.action_costs(uid).get("attack")
    return int(got) if got else None


def to_act(view: Any, uid: str, besides: Sequence[str] = ()) -> list[str]:
    """The living enemies of ``uid`` still to act this round (not the active unit, nor ``besides``)."""
    acted = log_facts(view).acted
    active = view.active
    return [e for e in view.enemies(uid) if e not in acted and e != active and e not in besides]


def own_turn_ahead(view: Any, uid: str) -> bool:
    """Whether ``uid``'s own turn is still to come this round (the AP it holds will pay for it)."""
    return uid not in log_facts(view).acted and uid != view.active


def ap_worth(
    a: int,
    *,
    turn: bool,
    attack: float,
    c_attack: int | None,
    c_react: int,
    dodges: Sequence[float],
    moved_attack: float = 0.0,
    c_move: int = 0,
) -> float:
    """The best split of ``a`` AP between own-turn attacks and reactions (see the module doc).

    ``dodges``: the worth of one reaction against each enemy still to act, any order.
    ``moved_attack``: the worth of the first attack if the turn first moves ``c_move`` AP towards a
    better firing point (its further attacks from there, each half the one before); a unit with
    no shot from where it stands would still buy one with a step and an attack."""
    if a <= 0:
        return 0.0
    ranked = sorted((d for d in dodges if d > 0), reverse=True)
    best = 0.0
    openings = [(0, attack)]
    if c_move > 0 and moved_attack > attack:
        openings.append((c_move, moved_attack))
    for move, first in openings:
        max_k = (a - move) // c_attack if (turn and c_attack and first > 0 and a > move) else 0
        for k in range(max_k + 1):
            rest = a - k * (c_attack or 0) - (move if k else 0)
            v = first * sum(SECOND_ATTACK**i for i in range(k))
            n = min(len(ranked), rest // c_react) if c_react > 0 else 0
            v += sum(ranked[:n]) + MOVE_AP * (rest - n * c_react if c_react > 0 else rest)
            best = max(best, v)
    return best


def reaction_price(
    a: int,
    cost: int,
    *,
    turn: bool,
    attack: float,
    c_attack: int | None,
    dodges: Sequence[float],
    moved_attack: float = 0.0,
    c_move: int = 0,
) -> float:
    """Worth the unit gives up by paying ``cost`` of its ``a`` AP for a reaction now."""
    if cost <= 0:
        return 0.0
    if cost > a:
        return math.inf
    kw: dict[str, Any] = {
        "turn": turn,
        "attack": attack,
        "c_attack": c_attack,
        "c_react": cost,
        "moved_attack": moved_attack,
        "c_move": c_move,
    }
    return ap_worth(a, dodges=dodges, **kw) - ap_worth(a - cost, dodges=dodges, **kw)


def held_worth(left: np.ndarray, c_react: int, dodges: np.ndarray) -> np.ndarray:
    """Worth of the reactions ``left`` AP pay for after the unit's turn, per point.

    ``left`` (m,): AP left at each point; ``dodges`` (m, q): the worth of one reaction against each
    enemy still to act this round, at each point. One reaction per enemy, the most dangerous first."""
    m = len(left)
    if c_react <= 0 or dodges.shape[1] == 0:
        return np.zeros(m)
    ranked = -np.sort(-dodges, axis=1)
    cum = np.concatenate([np.zeros((m, 1)), np.cumsum(ranked, axis=1)], axis=1)
    n = np.clip(np.floor(np.maximum(left, 0.0) / c_react), 0, dodges.shape[1]).astype(int)
    return cum[np.arange(m), n]
