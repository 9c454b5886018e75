"""TurnSystem: ends turns, starts rounds and turns, and poses the turn decision.

Round start: every unit in action gets its AP refreshed, the ruleset rolls the
activation order (``initiative``) and its ``start_round`` hook runs; a
``round_start`` event carries a state hash for replay verification. Turn
start: the unit's defence and turn bookkeeping reset, the ruleset's
``start_turn`` may decide it cannot act. The turn ends on ``EndTurn``, when no
AP (and no free step) is left, or after ``MAX_COMMANDS_PER_TURN`` commands.
Past the round limit the match is a draw.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import esper

from game.engine.legal import turn_decision
from game.engine.match import MAX_COMMANDS_PER_TURN

if TYPE_CHECKING:
    from game.engine.match import Match


class TurnSystem(esper.Processor):
    def process(self, match: Match) -> None:  # type: ignore[override]
        if match.outcome is not None or match.flow_active or match.pending is not None:
            return
        uid = match.active
        if uid is not None:
            if not match.turn_over and match.count_turn_command() > MAX_COMMANDS_PER_TURN:
                match.emit(
                    "status", unit=uid, flag="turn_limit", on=True, reason="too many commands in one turn"
                )
                match.finish_turn()
            if not match.turn_over and not match.health(uid).out_of_action:
                decision = turn_decision(match, uid)
                if decision is not None:
                    match.pending = decision
                    return
            match.emit("turn_end", unit=uid, ap_left=match.ap(uid).current)
            match.clear_active()
        nxt = match.next_in_order()
        if nxt is None:
            if match.round >= match.round_limit:
                match.end_match(None, "round limit")
                return
            self._start_round(match)
            nxt = match.next_in_order()
            if nxt is None:
                return
        match.begin_turn(nxt)
        match.emit("turn_start", unit=nxt, ap=match.ap(nxt).current, at=list(match.pos(nxt)))
        if not match.rules.start_turn(match, nxt):
            match.finish_turn()

    def _start_round(self, match: Match) -> None:
        match.round += 1
        alive = match.units()
        for uid in alive:
            match.refill_ap(uid)
        order = match.rules.initiative(match, alive)
        match.set_order(order)
        match.emit("round_start", order=order, state_hash=match.state_hash())
        match.rules.start_round(match)
