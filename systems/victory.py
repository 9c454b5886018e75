"""VictorySystem: ends the match.

Contract: as an esper processor, while no ruleset flow runs, it ends the match when at most
one side has units in action (``last side standing``, or ``no units left``: a draw), or when
the round limit is reached and no turn is left to play (``round limit``: a draw). Ending adds
the :class:`~components.outcome.Outcome` to the battle entity, drops any pending decision and
logs ``match_end`` with the survivors of each side.

The sides come from the ``Identity`` components of the units in action (``World.in_action``:
the units whose ``Health`` flags leave them in action, remembered until the casualty system
changes a flag), so the check that runs after every step costs one pass over those units.
"""

from __future__ import annotations

import esper

from components.decisions import PendingDecision, RunningFlow
from components.identity import Identity
from components.outcome import Outcome
from components.turns import ActiveTurn, Round
from game.core.battle import Battle
from systems.world import World


class VictorySystem(esper.Processor):
    """Ends the match (see the module docstring)."""

    def __init__(self, world: World, sides: tuple[str, ...]) -> None:
        self._world = world
        self._sides = sides

    def process(self, battle: Battle) -> None:  # type: ignore[override]
        b = self._world.battle
        if Outcome in b or b[RunningFlow].flow is not None:
            return
        units = self._world.units
        standing = [units[u][Identity] for u in self._world.in_action()]
        sides = {ident.side for ident in standing}
        if len(sides) == 1:
            self._end(battle, sides.pop(), "last side standing", standing)
        elif not sides:
            self._end(battle, None, "no units left", standing)
        else:
            rnd: Round = b[Round]
            if b[ActiveTurn].unit is None and not rnd.order and rnd.number >= rnd.limit:
                self._end(battle, None, "round limit", standing)

    def _end(self, battle: Battle, winner: str | None, reason: str, standing: list[Identity]) -> None:
        b = self._world.battle
        esper.add_component(self._world.battle_eid, Outcome(winner, reason, battle.round))
        b[RunningFlow].flow = None
        self._world.replace_battle(PendingDecision())
        survivors = {s: [ident.uid for ident in standing if ident.side == s] for s in self._sides}
        battle.emit("match_end", winner=winner, reason=reason, rounds=battle.round, survivors=survivors)
