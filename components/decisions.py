"""What the match waits for and what answered it: the battle entity's decision state.

Decisions, commands and ruleset flows are values of the vocabulary layer (``game.core``),
above this package: the fields hold them untyped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class PendingDecision:
    """The decision the match waits for (a ``game.core.commands.Decision``), or ``None``."""

    decision: Any = None


@dataclass(slots=True)
class Inbox:
    """The command that answered the pending decision, not yet carried out, or ``None``."""

    command: Any = None


@dataclass(slots=True)
class RunningFlow:
    """A ruleset flow in progress (the generator of an attack or a maneuver), or ``None``:
    while one runs, every answer goes to it."""

    flow: Any = None
