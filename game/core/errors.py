"""Errors users can cause, each with a clear message (the CLI maps them to exit 2).

A :class:`Problem` prints as one line whatever a file held: control and bidi characters in a
key, a value or a file name are shown escaped (:func:`visible`), never sent to the terminal.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass


def visible(text: str, keep: str = "") -> str:
    """``text`` with control, format (bidi, zero-width) and line-separator characters escaped
    (``\\n``, ``\\x1b``, ``\\u202e``), except those in ``keep``: one line, shown as written."""
    if text.isprintable() and not any(c in text for c in keep):
        return text
    out = []
    for c in text:
        if c in keep or c.isprintable() or (c == " "):
            out.append(c)
        elif unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            out.append(c.encode("unicode_escape").decode("ascii"))
        else:
            out.append(c)
    return "".join(out)


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
        source, message = visible(self.source), visible(self.message)
        if not self.line and not self.path:  # about the whole file (missing, too large...)
            return f"{source}: {message}"
        where = f"{source}:{self.line}" if self.line else source
        return f"{where}: {visible(self.path) or '<root>'}: {message}"


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
