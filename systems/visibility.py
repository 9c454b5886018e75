"""VisibilitySystem: keeps every unit's sight facts current.

Moves and posture changes mark units dirty in the match's
:class:`~game.battlefield.arena.Arena`; this system recomputes only what they invalidate,
so the AI, the rulesets and the renderer read fresh facts without recomputing
all pairs every step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import esper

if TYPE_CHECKING:
    from game.engine.match import Match


class VisibilitySystem(esper.Processor):
    def process(self, match: Match) -> None:  # type: ignore[override]
        match.arena.refresh()
