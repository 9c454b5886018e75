"""DispatchSystem: carries out the command that answered the pending decision.

Contract: as an esper processor (the first of a step), it takes the battle's
:class:`~components.decisions.Inbox` command. While a ruleset flow runs, the command is its
answer: the flow's frames (:class:`~components.decisions.FlowStack`) run on
(:func:`game.core.flow.advance`) until the flow asks again, and the decision it asks for
becomes the pending one, or until it is over. Otherwise it is a turn command of the active
unit, carried out by the system that owns the change, at the AP cost the ruleset gives:
``EndTurn`` ends the turn; ``Move`` and ``Step`` go to movement; ``Face`` and
``ChangePosture`` to posture; ``Attack`` pays its AP, notes the weapon in ``TurnState`` and
starts the ruleset's attack flow (its first frame); ``Maneuver`` starts its maneuver flow.

:meth:`DispatchSystem.asked` is the decision a flow's ``asking`` names, built again as the match
stands (a restored snapshot asks it).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import esper

from components.decisions import FlowStack, Inbox
from components.spatial import Posture
from components.state import TurnState
from components.turns import ActiveTurn
from game.core.commands import Attack, ChangePosture, Decision, EndTurn, Face, Maneuver, Move, Step
from game.core.flow import Frame
from game.rules.base import Ruleset
from systems.flows import run_flow
from systems.host import Host
from systems.movement import MovementSystem
from systems.posture import PostureSystem
from systems.turns import TurnSystem


class DispatchSystem(esper.Processor):
    """Answers the pending decision (see the module docstring)."""

    def __init__(
        self,
        rules: Ruleset,  # type: ignore[type-arg]
        turns: TurnSystem,
        movement: MovementSystem,
        posture: PostureSystem,
    ) -> None:
        self._rules = rules
        self._turns = turns
        self._movement = movement
        self._posture = posture

    def process(self, host: Host) -> None:  # type: ignore[override]
        store = host.store
        cmd = store.battle(Inbox).command
        if cmd is None:
            return
        store.put_battle(Inbox())
        stack: FlowStack = store.battle(FlowStack)
        if stack.frames:
            self._advance(host, stack.frames, cmd)
        else:
            self._turn_command(host, cmd)

    # ------------------------------------------------------------ flows
    def _start(self, host: Host, frame: Frame) -> None:
        self._advance(host, (frame,), None)

    def _advance(self, host: Host, frames: tuple[Frame, ...], answer: Any) -> None:
        """Run the flow on to its next decision (which becomes the pending one) or its end."""
        run_flow(host, self._rules, frames, answer)

    def asked(self, host: Host) -> Decision | None:
        """The decision the running flow waits for, built as the match stands (None: none)."""
        stack: FlowStack = host.store.battle(FlowStack)
        if not stack.frames or stack.asking is None:
            return None
        builder, args = stack.asking
        return self._rules.ask(host, builder, args)

    # ------------------------------------------------------------ turn commands
    def _turn_command(self, host: Host, cmd: Any) -> None:
        uid = cmd.unit
        rules = self._rules
        store = host.store
        costs = rules.action_costs(host, uid)
        if isinstance(cmd, EndTurn):
            store.put_battle(replace(store.battle(ActiveTurn), over=True))
        elif isinstance(cmd, Move):
            length = host.path_length(uid, cmd.to)
            assert length is not None  # validated by the decision's option
            ap = rules.move_ap_cost(host, uid, length)
            assert ap is not None
            self._movement.move(host, uid, cmd.to, "move", ap=ap)
        elif isinstance(cmd, Step):
            state: TurnState = store.get(uid, TurnState)
            store.put(uid, replace(state, stepped=True))
            self._movement.move(host, uid, cmd.to, "step", ap=costs.get("step", 0))
        elif isinstance(cmd, Face):
            self._posture.set_facing(host, uid, cmd.degrees, ap=costs.get("face", 0))
        elif isinstance(cmd, ChangePosture):
            self._posture.set_posture(host, uid, Posture(cmd.posture), ap=costs.get("posture", 0))
        elif isinstance(cmd, Attack):
            self._turns.spend_ap(host, uid, costs.get("attack", 0), "attack")
            state = store.get(uid, TurnState)
            store.put(uid, replace(state, attacked_with=state.attacked_with | {cmd.weapon}))
            self._start(host, rules.attack_frame(cmd))
        elif isinstance(cmd, Maneuver):
            self._start(host, rules.maneuver_frame(cmd))
        else:  # pragma: no cover - decisions only offer the types above
            raise TypeError(f"unexpected turn command {cmd!r}")
