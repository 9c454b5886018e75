"""MovementSystem: every change of a unit's place.

Contract: :meth:`MovementSystem.move` carries out a move, a step, a retreat, a 2" dodge move,
an interposition or a follow-up step (``kind`` names it; it is the event type). The unit goes
along the exact shortest free path for its base (refused with ``IllegalCommand`` if there is
none); it pays ``ap`` first (an ``ap`` event before the move's), its ``Position`` changes, its
``TurnState.moved`` grows by the path's length, the sight system is told the table changed,
the move event carries the path, and the ruleset's ``on_moved`` hook runs last. It acts when
asked, not per step: a ruleset reads the new place on its next line.
"""

from __future__ import annotations

from dataclasses import replace

from components.spatial import Position
from components.state import TurnState
from game.core.commands import Point
from game.core.errors import IllegalCommand
from game.core.events import round_pos
from game.rules.base import Ruleset
from systems.host import Host
from systems.sight import SightSystem
from systems.turns import TurnSystem


class MovementSystem:
    """Moves units (see the module docstring)."""

    def __init__(self, rules: Ruleset, sight: SightSystem, turns: TurnSystem) -> None:  # type: ignore[type-arg]
        self._rules = rules
        self._sight = sight
        self._turns = turns

    def move(self, host: Host, uid: str, to: Point, kind: str, ap: int = 0) -> None:
        """Move ``uid`` to ``to`` for ``ap`` AP; ``kind`` is the event type."""
        arena = self._sight.table(host)
        path = arena.path(uid, to)
        if path is None:
            raise IllegalCommand(
                f"{uid} cannot reach {round_pos(to)}: {arena.free_reason(uid, to) or 'no path'}"
            )
        self._turns.spend_ap(host, uid, ap, kind)
        store = host.store
        p: Position = store.get(uid, Position)
        frm = (p.x, p.y)
        turn: TurnState = store.get(uid, TurnState)
        store.put(uid, Position(float(to[0]), float(to[1])), replace(turn, moved=turn.moved + path.length))
        store.bump(uid)
        store.note_table(uid)
        host.emit(
            kind,
            unit=uid,
            **{"from": round_pos(frm), "to": round_pos(to)},
            ap=ap,
            length=round(path.length, 6),
            path=[round_pos(q) for q in path.points],
        )
        self._rules.on_moved(host, uid, kind, path.length)
