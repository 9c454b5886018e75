"""CommandSystem: carries out the command that answered the pending decision.

Turn commands (Move, Step, Face, ChangePosture, EndTurn) are applied here with
the AP costs the ruleset gives; Attack and Maneuver start a ruleset flow (a
generator); answers to a flow's decision are sent into that flow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import esper

from components.spatial import Posture
from game.core.commands import Attack, ChangePosture, EndTurn, Face, Maneuver, Move, Step

if TYPE_CHECKING:
    from game.engine.match import Match


class CommandSystem(esper.Processor):
    def process(self, match: Match) -> None:  # type: ignore[override]
        cmd = match.take_inbox()
        if cmd is None:
            return
        if match.flow_active:
            match.answer_flow(cmd)
            return
        self._turn_command(match, cmd)

    def _turn_command(self, match: Match, cmd: Any) -> None:
        uid = cmd.unit
        rules = match.rules
        costs = rules.action_costs(match, uid)
        if isinstance(cmd, EndTurn):
            match.finish_turn()
        elif isinstance(cmd, Move):
            length = match.path_length(uid, cmd.to)
            assert length is not None  # validated by the decision's option
            ap = rules.move_ap_cost(match, uid, length)
            assert ap is not None
            match.move_unit(uid, cmd.to, "move", ap=ap)
        elif isinstance(cmd, Step):
            match.turn(uid).stepped = True
            match.move_unit(uid, cmd.to, "step", ap=costs.get("step", 0))
        elif isinstance(cmd, Face):
            match.set_facing(uid, cmd.degrees, ap=costs.get("face", 0))
        elif isinstance(cmd, ChangePosture):
            match.set_posture(uid, Posture(cmd.posture), ap=costs.get("posture", 0))
        elif isinstance(cmd, Attack):
            match.spend_ap(uid, costs.get("attack", 0), "attack")
            match.turn(uid).attacked_with.add(cmd.weapon)
            match.start_flow(rules.attack(match, cmd))
        elif isinstance(cmd, Maneuver):
            match.start_flow(rules.maneuver(match, cmd))
        else:  # pragma: no cover - decisions only offer the types above
            raise TypeError(f"unexpected turn command {cmd!r}")
