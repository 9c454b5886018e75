"""closest_first: a small AI policy to copy and change (docs/ai.md, "Your own policy").

Each unit goes for the enemy nearest to it: it attacks that enemy when it can (else any enemy
it can attack, best odds first), otherwise gets up if it lies or kneels, walks towards that
enemy as far as this turn allows, and ends its turn. Every other decision (a defence, a
retreat point, a follow...) takes the choice with the best odds of success.

Play it:

    skirmish battle duel -n 1 --red examples/policies/closest_first.py:closest_first --blue random

A policy is any function ``(view, decision, rng) -> command``:

- ``view`` (``game.engine.view.MatchView``) reads the match and never changes it:
  ``view.unit(uid)`` (position, side, posture, AP, health...), ``view.enemies(uid)`` and
  ``view.friends(uid)`` (units still in action), ``view.distance(a, b)`` (inches between
  bases), ``view.sight(a, b)``, ``view.path_length(uid, point)``, ``view.round``, ...
- ``decision`` (``game.core.commands.Decision``) is what the match waits for: the deciding
  ``decision.unit``, its ``decision.kind`` (``"turn"`` or a reaction such as ``"defence"``)
  and ``decision.options``, exactly the legal choices. An option's ``command`` is the command
  to return; ``p_success`` its chance of success where there is a roll; an option with a
  ``point_field`` leaves a point (or an angle) free: ``option.with_point(p)`` fills it in,
  ``option.validate(p)`` says why a point is refused (None: legal) and ``option.region`` is
  the shapely geometry of the legal points.
- ``rng`` (a ``numpy.random.Generator``) is the only randomness a policy may use, so that a
  battle is a pure function of its seed. This policy needs none.

Return one of the options' commands (filled in); anything else stops the battle with a
message pointing at the line of this file.
"""

from __future__ import annotations

import math

import numpy as np

from game.core.commands import Attack, ChangePosture, Command, Decision, EndTurn, Move, Option
from game.engine.view import MatchView

#: A move that gains less than this many inches is not worth making.
MIN_GAIN = 0.1
#: Postures a unit stands up from before walking.
LOW = ("kneeling", "sitting", "crawling", "prone")


def closest_first(view: MatchView, decision: Decision, rng: np.random.Generator) -> Command:
    """Attack or approach the nearest enemy on a turn; the best odds on any other decision."""
    if decision.kind != "turn":
        return best_odds(decision.options)
    me = decision.unit
    enemies = sorted(view.enemies(me), key=lambda e: view.distance(me, e))
    attacks = [o for o in decision.options if isinstance(o.command, Attack)]
    if attacks:
        # nearest target first, then the attack most likely to succeed
        rank = {e: i for i, e in enumerate(enemies)}
        return min(
            attacks, key=lambda o: (rank.get(o.command.target, len(rank)), -(o.p_success or 0.0))
        ).command
    if not enemies:
        return end_turn(decision)
    if view.unit(me).posture in LOW:
        for o in decision.options:
            if isinstance(o.command, ChangePosture) and o.command.posture == "standing":
                return o.command
    move = next((o for o in decision.options if isinstance(o.command, Move) and o.has_region), None)
    if move is not None:
        point = towards(view, move, me, enemies[0])
        if point is not None:
            return move.with_point(point)
    return end_turn(decision)


def towards(view: MatchView, move: Option, me: str, enemy: str) -> tuple[float, float] | None:
    """The legal point of ``move`` nearest to ``enemy``, if it brings ``me`` closer."""
    from shapely.geometry import Point
    from shapely.ops import nearest_points

    here = view.unit(me).pos
    there = view.unit(enemy).pos
    region = move.region
    if region is None or region.is_empty:
        return None
    target = nearest_points(region, Point(there))[0]
    # The region's edge may be refused by a hair: pull the point back towards the unit.
    for pull in (0.0, 0.02, 0.1, 0.3):
        x = target.x + (here[0] - target.x) * pull
        y = target.y + (here[1] - target.y) * pull
        gain = math.dist(here, there) - math.dist((x, y), there)
        if gain < MIN_GAIN:
            return None
        if move.validate is None or move.validate((x, y)) is None:
            return (x, y)
    return None


def best_odds(options: tuple[Option, ...]) -> Command:
    """The option with the best chance of success (the first one on a tie); points are filled
    with a legal point of the option's region."""
    for o in sorted(options, key=lambda o: -(o.p_success or 0.0)):
        if o.point_field is None:
            return o.command
        if o.has_region and not o.region.is_empty:
            p = o.region.representative_point()
            if o.validate is None or o.validate((p.x, p.y)) is None:
                return o.with_point((p.x, p.y))
    return options[0].command  # every option leaves a point free and none was found


def end_turn(decision: Decision) -> Command:
    """End the turn (every turn decision offers it)."""
    for o in decision.options:
        if isinstance(o.command, EndTurn):
            return o.command
    return best_odds(decision.options)
