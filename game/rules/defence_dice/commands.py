"""Defence-dice command types: a Block(N) memory blocking for another memory.

Registered with :func:`game.core.commands.register_command` when imported (``game.rules``
imports this module): its log record is ``MemoryBlock``, a record type of its own (no field
of it reaches another ruleset's records).
"""

from __future__ import annotations

from dataclasses import dataclass

from game.core.commands import register_command


@register_command
@dataclass(frozen=True, slots=True)
class MemoryBlock:
    """The answer when a hit targets an ordinary memory a Block(N) memory could block for:
    ``memory`` is the Block memory that blocks, ``None`` takes the hit."""

    unit: str
    memory: str | None = None
