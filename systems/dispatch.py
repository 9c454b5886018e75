"""DispatchSystem: carries out the command that answered the pending decision.

Contract: as an esper processor (the first of a step), it takes the battle's
:class:`~components.decisions.Inbox` command. While a ruleset flow runs, the command is its
answer: it is sent into the flow, and the flow's next decision becomes the pending one (or
the flow is over). Otherwise it is a turn command of the active unit, carried out by the
system that owns the change, at the AP cost the ruleset gives: ``EndTurn`` ends the turn;
``Move`` and ``Step`` go to movement; ``Face`` and ``ChangePosture`` to posture; ``Attack``
pays its AP, notes the weapon in ``TurnState`` and starts the ruleset's attack flow;
``Maneuver`` starts the ruleset's maneuver flow.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import esper

from components.decisions import Inbox, PendingDecision, RunningFlow
from components.spatial import Posture
from components.state import TurnState
from components.turns import ActiveTurn
from game.core.battle import Battle, Flow
from game.core.commands import Attack, ChangePosture, EndTurn, Face, Maneuver, Move, Step
from game.rules.base import Ruleset
from systems.movement import MovementSystem
from systems.posture import PostureSystem
from systems.turns import TurnSystem
from systems.world import World


class DispatchSystem(esper.Processor):
    """Answers the pending decision (see the module docstring)."""

    def __init__(
        self,
        world: World,
        rules: Ruleset,
        turns: TurnSystem,
        movement: MovementSystem,
        posture: PostureSystem,
    ) -> None:
        self._world = world
        self._rules = rules
        self._turns = turns
        self._movement = movement
        self._posture = posture

    def process(self, battle: Battle) -> None:  # type: ignore[override]
        inbox: Inbox = self._world.battle[Inbox]
        cmd = inbox.command
        if cmd is None:
            return
        self._world.replace_battle(Inbox())
        running: RunningFlow = self._world.battle[RunningFlow]
        if running.flow is not None:
            self._step(running, cmd)
        else:
            self._turn_command(battle, cmd)

    def _start(self, flow: Flow) -> None:
        running: RunningFlow = self._world.battle[RunningFlow]
        running.flow = flow
        self._step(running, None, first=True)

    def _step(self, running: RunningFlow, answer: Any, first: bool = False) -> None:
        """Run the flow to its next decision (which becomes the pending one) or its end."""
        try:
            decision = next(running.flow) if first else running.flow.send(answer)
        except StopIteration:
            running.flow = None
            return
        self._world.replace_battle(PendingDecision(decision))

    def _turn_command(self, battle: Battle, cmd: Any) -> None:
        uid = cmd.unit
        rules = self._rules
        costs = rules.action_costs(battle, uid)
        if isinstance(cmd, EndTurn):
            turn: ActiveTurn = self._world.battle[ActiveTurn]
            self._world.replace_battle(replace(turn, over=True))
        elif isinstance(cmd, Move):
            length = battle.path_length(uid, cmd.to)
            assert length is not None  # validated by the decision's option
            ap = rules.move_ap_cost(battle, uid, length)
            assert ap is not None
            self._movement.move(battle, uid, cmd.to, "move", ap=ap)
        elif isinstance(cmd, Step):
            state: TurnState = self._world.unit(uid)[TurnState]
            self._world.replace(self._world.eid[uid], replace(state, stepped=True))
            self._movement.move(battle, uid, cmd.to, "step", ap=costs.get("step", 0))
        elif isinstance(cmd, Face):
            self._posture.set_facing(battle, uid, cmd.degrees, ap=costs.get("face", 0))
        elif isinstance(cmd, ChangePosture):
            self._posture.set_posture(battle, uid, Posture(cmd.posture), ap=costs.get("posture", 0))
        elif isinstance(cmd, Attack):
            self._turns.spend_ap(battle, uid, costs.get("attack", 0), "attack")
            state = self._world.unit(uid)[TurnState]
            self._world.replace(
                self._world.eid[uid], replace(state, attacked_with=state.attacked_with | {cmd.weapon})
            )
            self._start(rules.attack(battle, cmd))
        elif isinstance(cmd, Maneuver):
            self._start(rules.maneuver(battle, cmd))
        else:  # pragma: no cover - decisions only offer the types above
            raise TypeError(f"unexpected turn command {cmd!r}")
