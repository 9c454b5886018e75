"""CasualtySystem: wounds, status flags and casualties.

Contract:
- :meth:`CasualtySystem.damage` adds to a unit's health tracks and logs the ``damage`` event
  (the ledger: every change of a track is one), then runs the ruleset's ``on_damaged`` hook.
- :meth:`CasualtySystem.set_status` sets or clears a status flag (a ``status`` event; nothing
  if the flag is already so). A flag that takes the unit out of action logs a ``casualty``
  event, takes the unit out of the round's order and off the table (noted for the sight
  system). Statuses change only here.
- As an esper processor it ends the turn of an active unit taken out of action in its own
  turn (e.g. by a parry that injured it) once no ruleset flow runs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import esper

from components.spatial import Position
from components.state import Health
from components.turns import ActiveTurn, Round
from game.core.events import round_pos
from game.rules.base import Ruleset
from systems.flows import flow_running
from systems.host import Host


class CasualtySystem(esper.Processor):
    """Wounds and casualties (see the module docstring)."""

    def __init__(self, rules: Ruleset) -> None:  # type: ignore[type-arg]
        self._rules = rules

    def damage(self, host: Host, uid: str, deltas: dict[str, int], source: str | None, **detail: Any) -> None:
        """Add ``deltas`` to ``uid``'s health tracks (a ``damage`` event)."""
        store = host.store
        old: Health = store.get(uid, Health)
        h = old.plus(deltas)
        store.put(uid, h)
        store.bump(uid)
        host.emit(
            "damage",
            unit=uid,
            source=source,
            deltas=dict(deltas),
            before=dict(old.tracks),
            after=dict(h.tracks),
            **detail,
        )
        self._rules.on_damaged(host, uid)

    def set_status(self, host: Host, uid: str, flag: str, on: bool, reason: str) -> None:
        """Set or clear ``flag`` on ``uid`` (see the module docstring)."""
        store = host.store
        old: Health = store.get(uid, Health)
        if (flag in old.status) == on:
            return
        h = old.flagged(flag, on)
        store.put(uid, h)
        store.bump(uid)
        store.statuses_changed()
        host.emit("status", unit=uid, flag=flag, on=on, reason=reason)
        if h.out_of_action and not old.out_of_action:
            p: Position = store.get(uid, Position)
            host.emit("casualty", unit=uid, reason=reason, at=round_pos((p.x, p.y)))
            rnd: Round = store.battle(Round)
            if uid in rnd.order:
                store.put_battle(replace(rnd, order=tuple(u for u in rnd.order if u != uid)))
            store.note_table(uid)

    def process(self, host: Host) -> None:  # type: ignore[override]
        store = host.store
        turn: ActiveTurn = store.battle(ActiveTurn)
        uid = turn.unit
        if (
            uid is not None
            and not turn.over
            and not flow_running(store)
            and store.get(uid, Health).out_of_action
        ):
            store.put_battle(replace(turn, over=True))
