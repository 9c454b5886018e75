"""esper processors that advance a match; each delegates the rules to ``game.rules``.

Contract: processors run only through ``esper.process(match)`` and their
priorities are set here, in one place (higher runs first):

1. :class:`~systems.commands.CommandSystem` (50) carries out the command that
   answered the pending decision (moves, posture, facing, attacks, reactions).
2. :class:`~systems.visibility.VisibilitySystem` (40) brings every unit's sight
   facts up to date after what moved.
3. :class:`~systems.casualties.CasualtySystem` (30) takes units out of action
   out of the turn order.
4. :class:`~systems.victory.VictorySystem` (20) ends the match when one side
   (or none) is left.
5. :class:`~systems.turns.TurnSystem` (10) ends turns, starts rounds and turns
   (AP refresh, initiative) and poses the next turn decision.
"""

from __future__ import annotations

import esper


def install_processors() -> None:
    """Add the match processors to the *current* esper world."""
    from systems.casualties import CasualtySystem
    from systems.commands import CommandSystem
    from systems.turns import TurnSystem
    from systems.victory import VictorySystem
    from systems.visibility import VisibilitySystem

    for proc, priority in (
        (CommandSystem(), 50),
        (VisibilitySystem(), 40),
        (CasualtySystem(), 30),
        (VictorySystem(), 20),
        (TurnSystem(), 10),
    ):
        esper.add_processor(proc, priority=priority)
