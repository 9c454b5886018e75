"""AI policies, registered by name.

Contract: a policy is a callable ``policy(view, decision, rng) -> command``
that sees only a read-only :class:`~game.engine.view.MatchView`, the pending
:class:`~game.core.commands.Decision` (its options are the legal commands) and an
injected ``numpy.random.Generator``; it must return a legal command. Policies
answer every kind of decision: turns and reactions (defence, retreat point,
dodge move, interposition, follow).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from game.core.commands import Command, Decision
from game.core.errors import UnknownName
from game.engine.view import MatchView

Policy = Callable[[MatchView, Decision, np.random.Generator], Command]

_REGISTRY: dict[str, str] = {
    "random": "game.ai.random_policy:random_policy",
    "aggressive": "game.ai.aggressive:aggressive_policy",
    "cautious": "game.ai.cautious:cautious_policy",
}


def register(name: str, target: str) -> None:
    """Register ``"module:function"`` under ``name``."""
    _REGISTRY[name] = target


def policy_names() -> list[str]:
    import importlib.util

    return [n for n, t in _REGISTRY.items() if importlib.util.find_spec(t.partition(":")[0]) is not None]


def get_policy(name: str) -> Policy:
    """The policy registered as ``name``; ``UnknownName`` lists the valid ones."""
    import importlib

    if name not in policy_names():
        raise UnknownName(f"unknown AI policy {name!r}; choose one of {', '.join(policy_names())}")
    module, _, attr = _REGISTRY[name].partition(":")
    fn: Policy = getattr(importlib.import_module(module), attr)
    return fn
