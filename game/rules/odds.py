"""A ruleset's exact-odds query (``skirmish odds <ruleset> ...``), declared as data.

Contract: a ruleset that answers odds returns an :class:`OddsQuery` from
:meth:`~game.rules.base.Ruleset.odds`: its arguments as :class:`OddsParam` values (the CLI
makes each one a flag; nothing here imports click) and an ``answer`` function that computes
with the ruleset's own exact functions. ``answer(**values)`` gets every argument by its
``name`` and returns an :class:`OddsAnswer` (the object ``--json`` prints, and the readable
lines), or raises :class:`OddsUsageError` (arguments that do not go together, or a value it
cannot read) or :class:`OddsForbidden` (a combination the rules forbid); the CLI exits with
status 2 on either.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class OddsUsageError(ValueError):
    """Arguments that do not go together, or a value that cannot be read (a usage error)."""


class OddsForbidden(ValueError):
    """A combination the rules forbid (one line, no usage)."""


@dataclass(frozen=True)
class OddsParam:
    """One argument of an odds query.

    ``name`` is the keyword ``answer`` takes; ``flags`` the option spellings (the first is
    the one documented). ``kind`` is ``int``, ``str`` or ``bool`` (a flag: ``False`` unless
    given); ``choices`` restricts a value to those strings; ``minimum`` an ``int`` to at
    least that; ``multiple`` makes a repeatable option whose value is a tuple.
    """

    name: str
    flags: tuple[str, ...]
    kind: type = str
    default: Any = None
    required: bool = False
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    multiple: bool = False
    metavar: str | None = None
    help: str | None = None
    show_default: bool = False


@dataclass(frozen=True)
class OddsAnswer:
    """What a query answers: ``data`` for ``--json`` (key order kept), ``lines`` to read."""

    data: dict[str, Any]
    lines: tuple[str, ...]


@dataclass(frozen=True)
class OddsQuery:
    """A ruleset's odds query: ``help`` (the first sentence summarises it), its arguments,
    the function that answers, and what ``--json`` is said to print. An ``answer`` with an
    ``options`` keyword is given the ruleset's validated ``Options`` (``--option``), so its odds
    follow the numbers set there; a query without one gets only the options that are also its
    parameters, and the CLI refuses the others when changed from their defaults."""

    help: str
    params: tuple[OddsParam, ...]
    answer: Callable[..., OddsAnswer]
    json_help: str = "Print one JSON object."
