"""CasualtySystem: units out of action leave the turn order and end their turn.

The casualty event itself is written when the status is set (``Match.set_status``);
this system makes the consequences hold: an active unit taken out during its own
turn (e.g. by a parry that injured it) stops acting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import esper

from components.identity import Identity
from components.state import Health

if TYPE_CHECKING:
    from game.match import Match


class CasualtySystem(esper.Processor):
    def process(self, match: Match) -> None:  # type: ignore[override]
        for _, (ident, health) in esper.get_components(Identity, Health):
            if health.out_of_action and ident.uid == match.active and not match.flow_active:
                match.finish_turn()
