"""CasualtySystem: units out of action leave the turn order and end their turn.

The casualty event itself is written when the status is set (``Match.set_status``);
this system makes the consequences hold: an active unit taken out during its own
turn (e.g. by a parry that injured it) stops acting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import esper

if TYPE_CHECKING:
    from game.engine.match import Match


class CasualtySystem(esper.Processor):
    def process(self, match: Match) -> None:  # type: ignore[override]
        # Only the active unit's own casualty matters here: ask for it directly rather than
        # scanning every entity on every step of the loop.
        uid = match.active
        if uid is not None and not match.flow_active and match.health(uid).out_of_action:
            match.finish_turn()
