"""Errors users can cause, each with a clear message (the CLI maps them to exit 2)."""

from __future__ import annotations

from dataclasses import dataclass


class SkirmishError(Exception):
    """Base for every error caused by user input (files, arguments, commands)."""


@dataclass(frozen=True)
class Problem:
    """One validation problem, located in a file."""

    source: str
    line: int
    path: str  # dotted key path, e.g. "units.2.at"
    message: str

    def __str__(self) -> str:
        if not self.line and not self.path:  # about the whole file (missing, too large...)
            return f"{self.source}: {self.message}"
        where = f"{self.source}:{self.line}" if self.line else self.source
        return f"{where}: {self.path or '<root>'}: {self.message}"


class ScenarioError(SkirmishError):
    """A scenario (or profiles/save) file failed validation; carries every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    def __reduce__(self) -> tuple[type[ScenarioError], tuple[list[Problem]]]:
        # Rebuilt from its problems, not from the joined message (worker processes pickle it).
        return (type(self), (self.problems,))


class IllegalCommand(SkirmishError):
    """A command that is not legal now; the match state is unchanged."""


class UnknownName(SkirmishError):
    """An unknown id/name (unit, ruleset, policy); the message lists the valid ones."""
