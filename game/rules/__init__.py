"""Rulesets: one module per rule system behind :class:`game.rules.base.Ruleset`.

``get_ruleset(name, options)`` builds one; ``ruleset_class(name)`` gives the class
(its ``Stats`` model validates profile blocks). Modules are imported lazily so
loading one ruleset does not import the others.
"""

from __future__ import annotations

import importlib
from typing import Any

from game.core.errors import UnknownName
from game.rules.base import Ruleset

#: ruleset name -> "module:Class"
REGISTRY: dict[str, str] = {
    "gurps": "game.rules.gurps.ruleset:GurpsRuleset",
    "defence-dice": "game.rules.defence_dice:DefenceDiceRuleset",
    "cortex": "game.rules.cortex:CortexRuleset",
    "aff": "game.rules.aff:AffRuleset",
    "ap-pool": "game.rules.ap_pool:ApPoolRuleset",
}

RULESET_NAMES: tuple[str, ...] = tuple(REGISTRY)


def ruleset_class(name: str) -> type[Ruleset]:
    """The class registered under ``name``; ``UnknownName`` lists the valid names."""
    try:
        target = REGISTRY[name]
    except KeyError:
        raise UnknownName(f"unknown ruleset {name!r}; choose one of {', '.join(RULESET_NAMES)}") from None
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(module), cls)  # type: ignore[no-any-return]


def get_ruleset(name: str, options: dict[str, Any] | None = None) -> Ruleset:
    """A ready ruleset instance (options validated by its ``Options`` model)."""
    return ruleset_class(name)(options)
