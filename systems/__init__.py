"""The systems of a match: each queries and changes the components it owns.

Contract:
- Systems sit below the engine: they import components, the vocabulary (``game.core``) and
  the kernels (battlefield, rules, dice, geometry, movement), never ``game.engine``. They keep
  no match state: :func:`install` makes one set for a match (its ruleset, its map's sides),
  shared by all the match's clones, and every call gets the match as a
  :class:`~systems.host.Host` (the ``Battle`` the ruleset hooks are given and events go
  through, the :class:`~systems.store.Store`, the arena).
- The processors run only through the store's ``esper.process(host)``, in the order of
  :data:`PRIORITIES` (higher first), set here and nowhere else:
  1. :class:`~systems.dispatch.DispatchSystem` (50) carries out the command that answered
     the pending decision: a turn command, or the next steps of a ruleset flow.
  2. :class:`~systems.sight.SightSystem` (40) syncs the numpy mirror with the components
     and brings every pair's sight facts up to date.
  3. :class:`~systems.casualties.CasualtySystem` (30) ends the turn of an active unit taken
     out of action.
  4. :class:`~systems.victory.VictorySystem` (20) ends the match.
  5. :class:`~systems.turns.TurnSystem` (10) ends turns, starts rounds and turns, and poses
     the next turn decision.
- :class:`~systems.movement.MovementSystem` and :class:`~systems.posture.PostureSystem`
  have no per-step work: they carry out a request when it is made (a ruleset reads the
  result on its next line), as do the request methods of the turns (AP) and casualty
  (damage, status) systems.
"""

from __future__ import annotations

from typing import NamedTuple

import esper

from components.specs import ScenarioSpec
from game.rules.base import Ruleset
from systems.casualties import CasualtySystem
from systems.dispatch import DispatchSystem
from systems.movement import MovementSystem
from systems.posture import PostureSystem
from systems.sight import SightSystem
from systems.store import Store
from systems.turns import TurnSystem
from systems.victory import VictorySystem

#: esper priority of each processor (higher runs first).
PRIORITIES: dict[type[esper.Processor], int] = {
    DispatchSystem: 50,
    SightSystem: 40,
    CasualtySystem: 30,
    VictorySystem: 20,
    TurnSystem: 10,
}


class Systems(NamedTuple):
    """The systems of one match and its clones."""

    dispatch: DispatchSystem
    sight: SightSystem
    casualties: CasualtySystem
    victory: VictorySystem
    turns: TurnSystem
    movement: MovementSystem
    posture: PostureSystem


def install(store: Store, spec: ScenarioSpec, rules: Ruleset) -> Systems:  # type: ignore[type-arg]
    """Make the systems of a match played on ``spec`` under ``rules`` and add the processors to
    ``store``'s world (a clone's world shares them: ``Store.fork``)."""
    sight = SightSystem()
    turns = TurnSystem(rules, sight)
    movement = MovementSystem(rules, sight, turns)
    posture = PostureSystem(turns)
    systems = Systems(
        dispatch=DispatchSystem(rules, turns, movement, posture),
        sight=sight,
        casualties=CasualtySystem(rules),
        victory=VictorySystem(spec.sides),
        turns=turns,
        movement=movement,
        posture=posture,
    )
    for system in systems:
        if isinstance(system, esper.Processor):
            store.add_processor(system, PRIORITIES[type(system)])
    return systems
