"""TurnSystem: turns and action points.

Contract:
- AP: :meth:`TurnSystem.spend_ap` (every AP a unit spends, with an ``ap`` event; refused
  with ``IllegalCommand`` beyond what it has) and :meth:`TurnSystem.refill_ap`.
- As an esper processor, when no decision is pending, no ruleset flow runs and the match
  is not over, it advances the battle's :class:`~components.turns.ActiveTurn` and
  :class:`~components.turns.Round`:
  the active unit is offered its turn decision (``systems.turn_options``) until the turn
  is over: on ``EndTurn``, when no AP (and no free step) is left, when the unit is out of
  action, or when it has been asked more than ``MAX_COMMANDS_PER_TURN`` times. Then
  ``turn_end``, and the next unit of the round's order starts its turn: its
  ``DefenceState`` and ``TurnState`` are replaced by fresh ones, ``turn_start`` is logged
  and the ruleset's ``start_turn`` may say it cannot act.
- Round start (the order is empty): every unit in action gets its AP back, the ruleset
  rolls the activation order (``initiative``), ``round_start`` logs it with a state hash
  for replay verification, and the ruleset's ``start_round`` runs. Past the round limit no
  round starts: the victory system ends the match.
"""

from __future__ import annotations

from dataclasses import replace

import esper

from components.decisions import PendingDecision, RunningFlow
from components.outcome import Outcome
from components.spatial import Position
from components.state import ActionPoints, DefenceState, Health, TurnState
from components.turns import ActiveTurn, Round
from game.core.battle import Battle
from game.core.errors import IllegalCommand
from game.rules.base import Ruleset
from systems.sight import SightSystem
from systems.turn_options import turn_decision
from systems.world import World

#: A guard against a controller that never ends its turn (e.g. spins on Face).
MAX_COMMANDS_PER_TURN = 64


class TurnSystem(esper.Processor):
    """Turns and AP (see the module docstring)."""

    def __init__(self, world: World, rules: Ruleset, sight: SightSystem) -> None:
        self._world = world
        self._rules = rules
        self._sight = sight

    # ------------------------------------------------------------------ AP
    def spend_ap(self, battle: Battle, uid: str, n: int, reason: str) -> None:
        """``uid`` spends ``n`` AP for ``reason`` (an ``ap`` event)."""
        if n == 0:
            return
        ap: ActionPoints = self._world.unit(uid)[ActionPoints]
        if n < 0 or n > ap.current:
            raise IllegalCommand(f"{uid} cannot spend {n} AP for {reason}: it has {ap.current}")
        left = ap.current - n
        self._world.replace(self._world.eid[uid], ActionPoints(left, ap.maximum))
        self._world.bump(uid)
        battle.emit("ap", unit=uid, spent=n, left=left, reason=reason)

    def refill_ap(self, uid: str) -> None:
        """Back to full AP (the start of a round; the ``round_start`` event logs it)."""
        ap: ActionPoints = self._world.unit(uid)[ActionPoints]
        self._world.replace(self._world.eid[uid], ActionPoints(ap.maximum, ap.maximum))
        self._world.bump(uid)

    # ---------------------------------------------------------- the loop
    def process(self, battle: Battle) -> None:  # type: ignore[override]
        b = self._world.battle
        if Outcome in b or b[RunningFlow].flow is not None or b[PendingDecision].decision is not None:
            return
        world = self._world
        turn: ActiveTurn = b[ActiveTurn]
        uid = turn.unit
        if uid is not None:
            if not turn.over:
                turn = replace(turn, commands=turn.commands + 1)
                if turn.commands > MAX_COMMANDS_PER_TURN:
                    battle.emit(
                        "status", unit=uid, flag="turn_limit", on=True, reason="too many commands in one turn"
                    )
                    turn = replace(turn, over=True)
                world.replace_battle(turn)
            units = world.units
            if not turn.over and not units[uid][Health].out_of_action:
                decision = turn_decision(battle, self._rules, self._sight.table(), uid)
                if decision is not None:
                    world.replace_battle(PendingDecision(decision))
                    return
            battle.emit("turn_end", unit=uid, ap_left=units[uid][ActionPoints].current)
            world.replace_battle(replace(turn, unit=None))
        rnd: Round = b[Round]
        if not rnd.order:
            if rnd.number >= rnd.limit:
                return  # the victory system ends the match
            self._start_round(battle, rnd)
            rnd = b[Round]
            if not rnd.order:
                return
        world.replace_battle(replace(rnd, order=rnd.order[1:]))
        self._start_turn(battle, rnd.order[0])

    def _start_round(self, battle: Battle, rnd: Round) -> None:
        world = self._world
        world.replace_battle(replace(rnd, number=rnd.number + 1))
        alive = list(world.in_action())
        for uid in alive:
            self.refill_ap(uid)
        order = self._rules.initiative(battle, alive)
        world.replace_battle(replace(world.battle[Round], order=tuple(order)))
        battle.emit("round_start", order=order, state_hash=world.state_hash())
        self._rules.start_round(battle)

    def _start_turn(self, battle: Battle, uid: str) -> None:
        world = self._world
        world.replace_battle(ActiveTurn(uid, False, 0))
        world.replace(world.eid[uid], DefenceState(), TurnState())
        t = world.units[uid]
        p: Position = t[Position]
        battle.emit("turn_start", unit=uid, ap=t[ActionPoints].current, at=[p.x, p.y])
        if not self._rules.start_turn(battle, uid):
            world.replace_battle(replace(world.battle[ActiveTurn], over=True))
