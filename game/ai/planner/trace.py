"""What the planner considered at its last decision: data for the window's overlay, never for play.

Contract:
- :class:`Considered` lists the candidate plans the planner weighed for one decision, best first,
  each a :class:`Candidate` (a label, its value in worth, the point it moves to if any, and
  ``why``: the reasons in the game's terms, chances and cover, that a player reads), with the
  one it chose first. It is a frozen value. Any planner fills the same record.
- :func:`record` keeps the last one per match and the last one per unit (weakly, keyed by the
  view's table object, one per match, so every view of a match finds them); :func:`last` returns
  the match's last, :func:`by_unit` each unit's last. Nothing here is saved with a game, logged,
  or read by any policy: it cannot change play.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

#: Candidates kept per decision (best first).
KEEP = 8


@dataclass(frozen=True)
class Candidate:
    """One plan the planner weighed: what it starts with and its value (worth: planner.evaluate)."""

    label: str
    value: float
    point: tuple[float, float] | None = None
    why: tuple[str, ...] = ()


@dataclass(frozen=True)
class Considered:
    """The planner's candidates for one decision of ``unit`` (``kind``), best first (the chosen
    one is ``candidates[0]``), taken when the match had logged ``event_count`` events;
    ``positions``: how many candidate points it scored (the budget at work)."""

    unit: str
    kind: str
    event_count: int
    candidates: tuple[Candidate, ...]
    positions: int = 0
    round: int = 0

    @property
    def chosen(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None


_LAST: weakref.WeakKeyDictionary[Any, Considered] = weakref.WeakKeyDictionary()
_BY_UNIT: weakref.WeakKeyDictionary[Any, dict[str, Considered]] = weakref.WeakKeyDictionary()


def _key(view: Any) -> Any:
    """The per-match object of a view (its unit table: one object per match)."""
    return view.table


def record(view: Any, considered: Considered) -> None:
    """Remember ``considered`` as the last decision the planner weighed in ``view``'s match."""
    _LAST[_key(view)] = considered
    _BY_UNIT.setdefault(_key(view), {})[considered.unit] = considered


def last(view: Any) -> Considered | None:
    """The last :class:`Considered` recorded for ``view``'s match, or None."""
    return _LAST.get(_key(view))


def by_unit(view: Any) -> dict[str, Considered]:
    """Each unit's last :class:`Considered` in ``view``'s match (unit -> record; a copy)."""
    return dict(_BY_UNIT.get(_key(view), {}))
