"""VictorySystem: ends the match.

Contract: as an esper processor, while no ruleset flow runs, it ends the match when at most
one side has units in action (``last side standing``, or ``no units left``: a draw), or when
the round limit is reached and no turn is left to play (``round limit``: a draw). Ending adds
the :class:`~components.outcome.Outcome` to the battle entity, drops any pending decision and
logs ``match_end`` with the survivors of each side.

The sides are those of the units in action (``Store.in_action``: the units whose ``Health``
flags leave them in action, remembered until the casualty system changes a flag) read from the
store's fixed side table (a unit's ``Identity`` never changes), so the check that runs after
every step costs one pass over those units and no component read.
"""

from __future__ import annotations

import esper

from components.decisions import FlowStack, PendingDecision
from components.identity import Identity
from components.outcome import Outcome
from components.turns import ActiveTurn, Round
from systems.flows import flow_running
from systems.host import Host


class VictorySystem(esper.Processor):
    """Ends the match (see the module docstring)."""

    def __init__(self, sides: tuple[str, ...]) -> None:
        self._sides = sides

    def process(self, host: Host) -> None:  # type: ignore[override]
        store = host.store
        if store.has_battle(Outcome) or flow_running(store):
            return
        alive = store.in_action()
        side = store.side  # a unit's side never changes: the store's table, no component read
        sides = {side[u] for u in alive}
        if len(sides) == 1:
            self._end(host, sides.pop(), "last side standing", alive)
        elif not sides:
            self._end(host, None, "no units left", alive)
        else:
            rnd: Round = store.battle(Round)
            if store.battle(ActiveTurn).unit is None and not rnd.order and rnd.number >= rnd.limit:
                self._end(host, None, "round limit", alive)

    def _end(self, host: Host, winner: str | None, reason: str, alive: list[str]) -> None:
        standing = [host.store.get(u, Identity) for u in alive]
        host.store.put_battle(Outcome(winner, reason, host.round), FlowStack(), PendingDecision())
        survivors = {s: [ident.uid for ident in standing if ident.side == s] for s in self._sides}
        host.emit("match_end", winner=winner, reason=reason, rounds=host.round, survivors=survivors)
