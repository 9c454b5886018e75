"""Playing a match to the end with AI policies (headless).

Contract: ``play(match, policies)`` answers every pending decision with the
policy of the deciding unit's side (from ``policies`` or the match's
controllers) using ``match.ai_rng``, and returns the outcome. It never imports
pygame.
"""

from __future__ import annotations

from components.outcome import Outcome
from game.ai import Policy, get_policy
from game.engine.match import Match
from game.engine.view import MatchView


def play(match: Match, policies: dict[str, Policy] | None = None, max_commands: int = 100_000) -> Outcome:
    """Run ``match`` to the end; ``policies`` maps side -> policy (default: the match's controllers)."""
    chosen: dict[str, Policy] = dict(policies or {})
    for side, name in match.controllers.items():
        if side not in chosen:
            chosen[side] = get_policy(name)
    view = MatchView(match)
    for _ in range(max_commands):
        if match.outcome is not None:
            return match.outcome
        decision = match.pending
        assert decision is not None
        policy = chosen[match.side(decision.unit)]
        match.apply(policy(view, decision, match.ai_rng))
    raise RuntimeError(f"match did not finish within {max_commands} commands")
