"""VictorySystem: the match ends when at most one side has units in action."""

from __future__ import annotations

from typing import TYPE_CHECKING

import esper

if TYPE_CHECKING:
    from game.engine.match import Match


class VictorySystem(esper.Processor):
    def process(self, match: Match) -> None:  # type: ignore[override]
        if match.outcome is not None or match.flow_active:
            return
        standing = match.sides_in_action()
        if len(standing) == 1:
            match.end_match(standing[0], "last side standing")
        elif not standing:
            match.end_match(None, "no units left")
