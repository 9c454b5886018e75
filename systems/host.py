"""What the systems are given: the match as the rulesets see it, plus its store and its arena.

Contract: a system keeps no match state of its own (one set of systems serves a match and
all its clones). Every call gets the :class:`Host` (the match): the ``Battle`` protocol the
ruleset hooks are given and events are written through, the :class:`~systems.store.Store`
every component is read from and written to, the ruleset, and ``mirror``, the match's numpy
mirror of the table (the :class:`~game.battlefield.arena.Arena`, written by the sight system
alone).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from game.core.battle import Battle

if TYPE_CHECKING:
    from game.battlefield.arena import Arena
    from game.rules.base import Ruleset
    from systems.store import Store


class Host(Battle, Protocol):
    """The match, as the systems see it (see the module docstring)."""

    @property
    def store(self) -> Store: ...

    @property
    def rules(self) -> Ruleset: ...  # type: ignore[type-arg]

    @property
    def mirror(self) -> Arena: ...
