"""Undo of a player's last command, tabletop style: allowed while no die has been rolled since.

Contract (pure, no pygame): :class:`UndoStack` remembers, just before each human command is
applied, how many commands and events the match had and the AI's private state (``ai_rng``,
``ai_memory``: neither can be re-derived from the commands). :meth:`UndoStack.refusal` says why
the last one cannot be undone (nothing to undo, or dice rolled since: a roll is a fact at the
table); :meth:`UndoStack.undo` rebuilds the match from its ``match_start`` header (seed,
ruleset, options, controllers, round limit: :class:`game.tools.session.Setup`) and its commands
minus the undone one and whatever followed it, restores the AI state, and returns the new match
(the caller shows it and closes the old one). The rebuilt match logs exactly what the original
logged up to that command.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from game.core.commands import command_from_json
from game.engine.match import Match


@dataclass(frozen=True)
class UndoPoint:
    """The match just before one human command."""

    commands: int
    events: int
    ai_rng: dict[str, Any]
    ai_memory: dict[str, dict[str, str]]


@dataclass
class UndoStack:
    """The human commands that may still be taken back, last on top."""

    points: list[UndoPoint] = field(default_factory=list)

    def mark(self, match: Match) -> None:
        """Call just before applying a human command (a refused one: call :meth:`drop`)."""
        self.points.append(
            UndoPoint(
                len(match.commands),
                len(match.log.events),
                copy.deepcopy(dict(match.ai_rng.bit_generator.state)),
                copy.deepcopy(match.ai_memory),
            )
        )

    def drop(self) -> None:
        """Forget the last mark (its command was refused)."""
        if self.points:
            self.points.pop()

    def clear(self) -> None:
        self.points.clear()

    def refusal(self, match: Match) -> str | None:
        """Why the last human command cannot be undone now, or None if it can."""
        if not self.points:
            return "nothing to undo: no command of yours since the start (or the last load)"
        p = self.points[-1]
        if len(match.commands) < p.commands or len(match.log.events) < p.events:
            return "nothing to undo: the match is not the one the command was given in"
        rolled = [e for e in match.log.events[p.events :] if e.get("type") == "roll"]
        if rolled:
            rolls = "a die roll" if len(rolled) == 1 else f"{len(rolled)} dice rolls"
            return f"cannot undo: {rolls} since your last command"
        return None

    def undo(self, match: Match) -> Match:
        """The match rebuilt without the last human command and what followed it.

        Raises:
            ValueError: :meth:`refusal` is not None.
        """
        why = self.refusal(match)
        if why is not None:
            raise ValueError(why)
        from game.tools.session import Setup

        p = self.points.pop()
        rebuilt = Setup.from_header(match.log.events[0]).build(match.spec)
        try:
            for data in match.commands[: p.commands]:
                rebuilt.apply(command_from_json(data))
        except BaseException:
            rebuilt.close()
            raise
        rebuilt.ai_rng.bit_generator.state = copy.deepcopy(p.ai_rng)
        rebuilt.ai_memory = copy.deepcopy(p.ai_memory)
        return rebuilt
