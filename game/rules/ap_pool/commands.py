"""AP-pool command types: the dodge with its attribute combination, and the 2" dodge move.

Registered with :func:`game.core.commands.register_command` when imported (``game.rules``
imports this module): their log records are ``Defend`` (:class:`PoolDodge` is a variant of
the shared record, built only with a combination) and ``DodgeMove``.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.core.commands import Defend, Point, register_command


@register_command
@dataclass(frozen=True, slots=True)
class PoolDodge(Defend):
    """A dodge rolled with ``combo``, one of the attribute combinations (``body``, ...)."""

    combo: str | None = None


@register_command
@dataclass(frozen=True, slots=True)
class DodgeMove:
    """The move after a successful dodge; ``to=None`` stays put."""

    unit: str
    to: Point | None = None
