"""What the match waits for, what answered it, and the rule flow in progress: the battle
entity's decision state.

Decisions, commands and flow frames are values of the vocabulary layer (``game.core``), above
this package: the fields hold them untyped. All three components are immutable values,
replaced by the systems that own them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class PendingDecision:
    """The decision the match waits for (a ``game.core.commands.Decision``), or ``None``.

    A decision is a value built from the state (the turn system builds a turn decision, a rule
    flow's :class:`FlowStack` names what it asks): clones share it, and a restored snapshot
    builds it again.
    """

    decision: Any = None


@dataclass(frozen=True, slots=True)
class Inbox:
    """The command that answered the pending decision, not yet carried out, or ``None``."""

    command: Any = None


@dataclass(frozen=True, slots=True)
class FlowStack:
    """The ruleset flow in progress (an attack or a maneuver), as data: the stack of its frames
    (``game.core.flow.Frame``: the name of a ruleset step and its frozen data), the top one
    next to run, and ``asking``, the decision it waits for as ``(builder, args)`` (the ruleset
    builds the decision from them: ``Ruleset.ask``). Empty when no flow runs; while one runs,
    every answer goes to its top frame."""

    frames: tuple[Any, ...] = ()
    asking: Any = None

    @property
    def running(self) -> bool:
        return bool(self.frames)
