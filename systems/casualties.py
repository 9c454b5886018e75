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

from components.decisions import RunningFlow
from components.spatial import Position
from components.state import Health
from components.turns import ActiveTurn, Round
from game.core.battle import Battle
from game.core.events import round_pos
from game.rules.base import Ruleset
from systems.world import World


class CasualtySystem(esper.Processor):
    """Wounds and casualties (see the module docstring)."""

    def __init__(self, world: World, rules: Ruleset) -> None:
        self._world = world
        self._rules = rules

    def damage(
        self, battle: Battle, uid: str, deltas: dict[str, int], source: str | None, **detail: Any
    ) -> None:
        """Add ``deltas`` to ``uid``'s health tracks (a ``damage`` event)."""
        old: Health = self._world.unit(uid)[Health]
        before = dict(old.tracks)
        h = old.plus(deltas)
        self._world.replace(self._world.eid[uid], h)
        self._world.bump(uid)
        battle.emit(
            "damage",
            unit=uid,
            source=source,
            deltas=dict(deltas),
            before=before,
            after=dict(h.tracks),
            **detail,
        )
        self._rules.on_damaged(battle, uid)

    def set_status(self, battle: Battle, uid: str, flag: str, on: bool, reason: str) -> None:
        """Set or clear ``flag`` on ``uid`` (see the module docstring)."""
        world = self._world
        t = world.unit(uid)
        old: Health = t[Health]
        if (flag in old.status) == on:
            return
        was_out = old.out_of_action
        h = old.flagged(flag, on)
        world.replace(world.eid[uid], h)
        world.bump(uid)
        world.statuses_changed()
        battle.emit("status", unit=uid, flag=flag, on=on, reason=reason)
        if h.out_of_action and not was_out:
            p: Position = t[Position]
            battle.emit("casualty", unit=uid, reason=reason, at=round_pos((p.x, p.y)))
            rnd: Round = world.battle[Round]
            if uid in rnd.order:
                world.replace_battle(replace(rnd, order=tuple(u for u in rnd.order if u != uid)))
            world.note_table(uid)

    def process(self, *_: Any) -> None:
        b = self._world.battle
        turn: ActiveTurn = b[ActiveTurn]
        uid = turn.unit
        if uid is not None and b[RunningFlow].flow is None and self._world.units[uid][Health].out_of_action:
            self._world.replace_battle(replace(turn, over=True))
