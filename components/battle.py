"""The rest of a match's state, on the battle entity: the ruleset's battle-wide bookkeeping,
what the AI remembers, the random streams and the event log.

``RulesetState`` and ``AiMemory`` are immutable values, replaced on change. ``Randomness``
and ``Journal`` hold the two objects of a match that change as they are used (a random
stream draws, the log grows): a clone forks them (``fork()``: an independent copy of the
stream's state, a copy of the log's list of events, which are shared), never shares them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True, slots=True)
class RulesetState:
    """The match's ruleset's battle-wide bookkeeping (per-round choices, rolled defence dice,
    action counts): a frozen value of the ruleset's own type, ``None`` until first set."""

    value: Any = None


@dataclass(frozen=True, slots=True)
class AiMemory:
    """What AI policies remember between decisions that no event holds: ``{topic: {unit:
    value}}`` (e.g. each unit's quarry). Like the AI's random stream it cannot be re-derived
    from the commands, so a save carries it. The engine never reads it."""

    topics: Mapping[str, Mapping[str, str]] = field(default_factory=lambda: MappingProxyType({}))

    def remembered(self, topic: str, unit: str, value: str) -> AiMemory:
        inner = dict(self.topics.get(topic, {}))
        inner[unit] = value
        topics = dict(self.topics)
        topics[topic] = MappingProxyType(inner)
        return AiMemory(MappingProxyType(topics))


@dataclass(frozen=True, slots=True)
class Randomness:
    """The match's two seeded random streams (``game.dice.stream.Stream``): ``dice`` for every
    logged roll, ``ai`` for the AI policies."""

    dice: Any
    ai: Any


@dataclass(frozen=True, slots=True)
class Journal:
    """The match's event log (``game.core.events.EventLog``)."""

    log: Any
