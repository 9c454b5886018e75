"""Policies and checks that misbehave on purpose, to test how a batch reports failures."""

from __future__ import annotations

from typing import Any

import numpy as np

from game.ai.random_policy import random_policy
from game.core.commands import Decision, EndTurn


def broken_policy(view: Any, decision: Decision, rng: np.random.Generator) -> Any:
    """Plays randomly, then from round 2 on answers everything with an illegal command."""
    if view.round >= 2:
        return EndTurn("nobody")
    return random_policy(view, decision, rng)
