"""Undo of a player's last command, tabletop style: allowed while no die has been rolled since.

Contract (pure, no pygame): :class:`UndoStack` keeps, just before each human command is
applied, a clone of the match (``Match.clone``: an exact, independent copy, the AI's random
stream and memory included). :meth:`UndoStack.refusal` says why the last one cannot be undone
(nothing to undo, or dice rolled since: a roll is a fact at the table); :meth:`UndoStack.undo`
returns the kept clone (the caller shows it and closes the old match). It logs exactly what
the original logged up to that command.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from game.engine.match import Match


@dataclass(frozen=True)
class UndoPoint:
    """The match just before one human command."""

    commands: int
    events: int
    before: Match


@dataclass
class UndoStack:
    """The human commands that may still be taken back, last on top."""

    points: list[UndoPoint] = field(default_factory=list)

    def mark(self, match: Match) -> None:
        """Call just before applying a human command (a refused one: call :meth:`drop`)."""
        self.points.append(UndoPoint(len(match.commands), len(match.log.events), match.clone()))

    def drop(self) -> None:
        """Forget the last mark (its command was refused)."""
        if self.points:
            self.points.pop().before.close()

    def clear(self) -> None:
        for p in self.points:
            p.before.close()
        self.points.clear()

    def refusal(self, match: Match) -> str | None:
        """Why the last human command cannot be undone now, or None if it can."""
        if not self.points:
            return "nothing to undo: no command of yours since the start (or the last load)"
        p = self.points[-1]
        if len(match.commands) < p.commands or len(match.log.events) < p.events:
            return "nothing to undo: the match is not the one the command was given in"
        if match.log.events[: p.events] != p.before.log.events:
            return "nothing to undo: the match is not the one the command was given in"
        rolled = [e for e in match.log.events[p.events :] if e.get("type") == "roll"]
        if rolled:
            rolls = "a die roll" if len(rolled) == 1 else f"{len(rolled)} dice rolls"
            return f"cannot undo: {rolls} since your last command"
        return None

    def undo(self, match: Match) -> Match:
        """The match as it was before the last human command.

        Raises:
            ValueError: :meth:`refusal` is not None.
        """
        why = self.refusal(match)
        if why is not None:
            raise ValueError(why)
        return self.points.pop().before
