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
  for replay verification, and the ruleset's ``start_round`` runs: a flow it returns runs
  (``systems.flows.run_flow``) before the first turn starts, and its decisions (asked of any
  unit) are answered like a reaction's. Past the round limit no round starts: the victory
  system ends the match.
- :meth:`TurnSystem.decision` is the turn decision the active unit is offered as the match
  stands (a pure read: a restored snapshot asks it again).
"""

from __future__ import annotations

from dataclasses import replace

import esper

from components.decisions import PendingDecision
from components.outcome import Outcome
from components.spatial import Position
from components.state import ActionPoints, DefenceState, Health, TurnState
from components.turns import ActiveTurn, Round
from game.core.commands import Decision
from game.core.errors import IllegalCommand
from game.rules.base import Ruleset
from systems.flows import flow_running, run_flow
from systems.host import Host
from systems.sight import SightSystem
from systems.turn_options import turn_decision

#: A guard against a controller that never ends its turn (e.g. spins on Face).
MAX_COMMANDS_PER_TURN = 64


class TurnSystem(esper.Processor):
    """Turns and AP (see the module docstring)."""

    def __init__(self, rules: Ruleset, sight: SightSystem) -> None:  # type: ignore[type-arg]
        self._rules = rules
        self._sight = sight

    # ------------------------------------------------------------------ AP
    def spend_ap(self, host: Host, uid: str, n: int, reason: str) -> None:
        """``uid`` spends ``n`` AP for ``reason`` (an ``ap`` event)."""
        if n == 0:
            return
        store = host.store
        ap: ActionPoints = store.get(uid, ActionPoints)
        if n < 0 or n > ap.current:
            raise IllegalCommand(f"{uid} cannot spend {n} AP for {reason}: it has {ap.current}")
        left = ap.current - n
        store.put(uid, ActionPoints(left, ap.maximum))
        store.bump(uid)
        host.emit("ap", unit=uid, spent=n, left=left, reason=reason)

    def refill_ap(self, host: Host, uid: str) -> None:
        """Back to full AP (the start of a round; the ``round_start`` event logs it)."""
        store = host.store
        ap: ActionPoints = store.get(uid, ActionPoints)
        store.put(uid, ActionPoints(ap.maximum, ap.maximum))
        store.bump(uid)

    # ---------------------------------------------------------- the loop
    def decision(self, host: Host, uid: str) -> Decision | None:
        """The turn decision of ``uid`` as the match stands (None: its turn ends by itself)."""
        return turn_decision(host, self._rules, self._sight.table(host), uid)

    def process(self, host: Host) -> None:  # type: ignore[override]
        store = host.store
        if (
            store.has_battle(Outcome)
            or flow_running(store)
            or store.battle(PendingDecision).decision is not None
        ):
            return
        turn: ActiveTurn = store.battle(ActiveTurn)
        uid = turn.unit
        if uid is not None:
            if not turn.over:
                turn = ActiveTurn(uid, False, turn.commands + 1)  # (replace() costs 3x)
                if turn.commands > MAX_COMMANDS_PER_TURN:
                    host.emit(
                        "status", unit=uid, flag="turn_limit", on=True, reason="too many commands in one turn"
                    )
                    turn = ActiveTurn(uid, True, turn.commands)
                store.put_battle(turn)
            if not turn.over and not store.get(uid, Health).out_of_action:
                decision = self.decision(host, uid)
                if decision is not None:
                    store.put_battle(PendingDecision(decision))
                    return
            host.emit("turn_end", unit=uid, ap_left=store.get(uid, ActionPoints).current)
            store.put_battle(ActiveTurn(None, turn.over, turn.commands))
        rnd: Round = store.battle(Round)
        if not rnd.order:
            if rnd.number >= rnd.limit:
                return  # the victory system ends the match
            self._start_round(host, rnd)
            if flow_running(store) or store.battle(PendingDecision).decision is not None:
                return  # the round's start asks first; the first turn starts when it is over
            rnd = store.battle(Round)
            if not rnd.order:
                return
        store.put_battle(Round(rnd.number, rnd.limit, rnd.order[1:]))
        self._start_turn(host, rnd.order[0])

    def _start_round(self, host: Host, rnd: Round) -> None:
        store = host.store
        store.put_battle(replace(rnd, number=rnd.number + 1))
        alive = list(store.in_action())
        for uid in alive:
            self.refill_ap(host, uid)
        order = self._rules.initiative(host, alive)
        store.put_battle(replace(store.battle(Round), order=tuple(order)))
        host.emit("round_start", order=order, state_hash=store.state_hash())
        frame = self._rules.start_round(host)
        if frame is not None:
            run_flow(host, self._rules, (frame,), None)

    def _start_turn(self, host: Host, uid: str) -> None:
        store = host.store
        store.put_battle(ActiveTurn(uid, False, 0))
        store.put(uid, DefenceState(), TurnState())
        p: Position = store.get(uid, Position)
        host.emit("turn_start", unit=uid, ap=store.get(uid, ActionPoints).current, at=[p.x, p.y])
        if not self._rules.start_turn(host, uid):
            store.put_battle(replace(store.battle(ActiveTurn), over=True))
