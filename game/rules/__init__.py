"""Rulesets: one package per rule system behind :class:`game.rules.base.Ruleset`.

``get_ruleset(name, options)`` builds one; ``ruleset_class(name)`` gives the class
(its ``Stats`` model validates profile blocks). Rulesets are imported lazily so
loading one does not import the others; their small command modules are imported
here, in :data:`COMMAND_MODULES` order, so that any log or save decodes
(:func:`game.core.commands.command_from_json`) once this package is imported, and a
shared record's fields always come in the same order.
"""

from __future__ import annotations

import importlib
from typing import Any

from game.core.errors import UnknownName
from game.rules.base import Ruleset
from game.rules.odds import OddsQuery

#: ruleset name -> "module:Class"
REGISTRY: dict[str, str] = {
    "gurps": "game.rules.gurps.ruleset:GurpsRuleset",
    "defence-dice": "game.rules.defence_dice.ruleset:DefenceDiceRuleset",
    "cortex": "game.rules.cortex.ruleset:CortexRuleset",
    "aff": "game.rules.aff.ruleset:AffRuleset",
    "ap-pool": "game.rules.ap_pool.ruleset:ApPoolRuleset",
}

RULESET_NAMES: tuple[str, ...] = tuple(REGISTRY)

#: ruleset name -> the module registering its command types, imported with this package in
#: this order: a variant's fields come after the fields of the variants registered before it.
COMMAND_MODULES: dict[str, str] = {
    "gurps": "game.rules.gurps.commands",
    "defence-dice": "game.rules.defence_dice.commands",
    "ap-pool": "game.rules.ap_pool.commands",
}
for _module in COMMAND_MODULES.values():
    importlib.import_module(_module)


#: ruleset name -> "module:QUERY", the exact-odds query ``skirmish odds <name>`` answers
#: (game.rules.odds). Named here rather than by the ruleset class, because the query module
#: reads the ruleset's tables: the dependency runs one way, odds -> ruleset.
ODDS_QUERIES: dict[str, str] = {
    "gurps": "game.rules.gurps.odds:QUERY",
    "defence-dice": "game.rules.defence_dice.odds:QUERY",
    "cortex": "game.rules.cortex.odds:QUERY",
    "aff": "game.rules.aff.odds:QUERY",
    "ap-pool": "game.rules.ap_pool.odds:QUERY",
}


def odds_query(name: str) -> OddsQuery | None:
    """The odds query of ruleset ``name`` (None: the ruleset declares none)."""
    target = ODDS_QUERIES.get(name)
    if target is None:
        return None
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)  # type: ignore[no-any-return]


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
