"""Reaction windows and limits a ruleset declares, read from its event log.

Contract: a ruleset lists, as class attributes of its :class:`~game.rules.base.Ruleset`,
the reactions it allows once per window (:attr:`~game.rules.base.Ruleset.reaction_limits`,
:class:`Reaction`) and the choices that bind a unit for a window
(:attr:`~game.rules.base.Ruleset.choice_bindings`, :class:`Binding`). Each is told by the
events the ruleset logs, so ``game.tools.invariants`` checks them on any log, live or
recorded. A window is ``"turn"`` (from one ``turn_start`` of the unit to its next),
``"activation"`` (from any unit's ``turn_start`` to the next: one unit's turn, whoever
reacts) or ``"round"`` (from one ``round_start`` to the next).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

#: A test on one log event.
Matcher = Callable[[dict[str, Any]], bool]
Window = Literal["turn", "activation", "round"]


@dataclass(frozen=True)
class Reaction:
    """A reaction allowed once per window.

    ``name`` is what messages call it; ``used(event)`` says whether a log event
    records a use of it; ``spent_by(event)`` (optional) matches events that use it
    up without being a use (GURPS: a sacrificial dodge moves the unit, so it may not
    retreat before its next turn); ``applies(options)`` tells from the ruleset options
    logged in ``match_start`` whether the limit is in force.
    """

    name: str
    used: Matcher
    window: Window = "turn"
    spent_by: Matcher | None = None
    applies: Callable[[dict[str, Any]], bool] = lambda options: True


@dataclass(frozen=True)
class Binding:
    """A choice that binds a unit for a window: its events show one value at most.

    ``value(event)`` is the choice an event shows (``None``: not such an event);
    ``applies(options)`` tells from the ruleset options logged in ``match_start``
    whether the binding is in force.
    """

    name: str
    value: Callable[[dict[str, Any]], str | None]
    window: Window = "round"
    applies: Callable[[dict[str, Any]], bool] = lambda options: True


def defence_event(*kinds: str, **flags: Any) -> Matcher:
    """A matcher for ``defence`` events of one of ``kinds`` (any kind if none) with ``flags`` set."""

    def used(e: dict[str, Any]) -> bool:
        if e.get("type") != "defence":
            return False
        if kinds and e.get("kind") not in kinds:
            return False
        return all(e.get(k) == v for k, v in flags.items())

    return used
