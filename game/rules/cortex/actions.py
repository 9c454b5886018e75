"""Cortex actions: one a turn, each extra one a -1 step on all of them; declaring the round's
actions; the step modifiers on an action.

Implements "Each turn you get one action. Each extra action means a cumulative -1 Skill step
penalty to all actions that turn." of shared/rules/cortex-actions-defense-damage.txt (part of
the Cortex ruleset, :mod:`game.rules.cortex.ruleset`; a Cortex "turn" is the engine's round).

Contract:
- A unit **declares** its number of actions N with its first action of the round
  (:meth:`CortexActions.declare`: a ``declare:N`` maneuver on its turn, or an active defence
  when it is attacked first); the AP beyond N are forfeit and every action of the round is at
  -(N-1) steps (:meth:`CortexActions.extra_actions`, :meth:`CortexActions.action_steps`, with
  the seriously wounded -2). All-out defence declares no action (0). Before declaring, a unit
  may only face and walk its free 15 ft (:meth:`CortexActions.action_costs`,
  :meth:`CortexActions.can_act`).
- The round's first action is when a reeling unit rolls to stay conscious (the text: "each turn
  you take any action you must roll again"); failing it, the unit declares nothing.
- Option ``prospective_penalty``: no declaration, each action at -1 step per action already
  taken this round.
- Declarations are kept in the battle's track (:mod:`game.rules.cortex.state`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from game.core.battle import Battle
from game.core.commands import Modifier
from game.rules.cortex.damage import REELING, CortexDamage, seriously_wounded
from game.rules.cortex.state import note, track

if TYPE_CHECKING:
    from game.rules.cortex.options import CortexOptions

#: The text's numbers (the defaults of options ``extra_action_steps``, ``all_out_defence_steps``,
#: ``max_actions``; the rules read the options).
#: Step penalty per action beyond the first in a turn (text).
EXTRA_ACTION_STEPS = -1
#: All-out defence bonus to dodge and block, in steps (text).
ALL_OUT_DEFENCE_STEPS = 2
#: Actions (AP) a turn (decision).
MAX_ACTIONS = 3
#: Maneuvers: declaring the round's actions (``declare:N``) and all-out defence.
DECLARE = "declare"
ALL_OUT_DEFENCE = "all_out_defence"
#: Action costs of the engine's turn commands (facing is free).
ACTION_COSTS: dict[str, int] = {"attack": 1, "posture": 1, "face": 0}


def net_steps(mods: Sequence[Modifier]) -> int:
    """The net skill steps of ``mods`` (the modifiers that apply to skill steps)."""
    net: float = 0  # a plain loop: the same additions in the same order as sum(), for less overhead
    for m in mods:
        if m.applies_to == "skill steps":
            net += m.value
    return int(net)


class CortexActions(CortexDamage):
    """Declaring the round's actions and the step modifiers they bring."""

    if TYPE_CHECKING:  # provided by game.rules.base.Ruleset and the movement part
        options: CortexOptions

        def _roll_run(self, battle: Battle, uid: str) -> None: ...

    @property
    def prospective(self) -> bool:
        """Whether the ``prospective_penalty`` reading applies (no declarations)."""
        return self.options.prospective_penalty

    def declared(self, battle: Battle, uid: str) -> int | None:
        """The actions ``uid`` declared this round (0: all-out defence), None if not yet."""
        got = track(battle).declared.get(uid)
        return got[1] if got is not None and got[0] == battle.round else None

    def can_act(self, battle: Battle, uid: str) -> bool:
        """Whether ``uid`` may spend actions now: declared, or under ``prospective_penalty``."""
        return self.prospective or self.declared(battle, uid) is not None

    def _acting(self, battle: Battle, uid: str) -> bool:
        """The unit takes its first action of the round: a reeling unit rolls to stay conscious
        (the text: again each turn it takes any action). False if it passes out."""
        if REELING in battle.health(uid).status and "unconscious" not in battle.health(uid).status:
            return self._conscious_roll(battle, uid)
        return True

    def declare(self, battle: Battle, uid: str, actions: int, reason: str) -> bool:
        """Commit ``uid`` to ``actions`` actions this round (the rest of its AP is forfeit), each
        at the multiple-action penalty of them all. False if it passed out instead."""
        if self.declared(battle, uid) is not None:
            raise ValueError(f"{uid} has declared its actions this round already")
        ap = battle.ap(uid).current
        if not 1 <= actions <= ap:
            raise ValueError(f"{uid} can declare 1 to {ap} actions, not {actions}")
        if not self._acting(battle, uid):
            note(battle, "declared", uid, (battle.round, 0))
            return False
        battle.spend_ap(uid, ap - actions, f"declared {actions} actions")
        note(battle, "declared", uid, (battle.round, actions))
        battle.emit(
            "actions_declared",
            unit=uid,
            actions=actions,
            steps=self.options.extra_action_steps * (actions - 1),
            forfeited=ap - actions,
            reason=reason,
        )
        if battle.active_unit() == uid:
            self._roll_run(battle, uid)
        return True

    def forfeits(self, battle: Battle, uid: str, actions: int) -> int:
        """Actions of its own turn still to come this round that declaring ``actions`` gives up."""
        if track(battle).turn_round.get(uid) == battle.round:
            return 0  # its turn is past: the rest of its actions only serve defences
        return max(0, battle.ap(uid).current - actions)

    def action_costs(self, battle: Battle, uid: str) -> dict[str, int]:
        """Attack and posture are actions: an undeclared unit may only face (and walk)."""
        if not self.can_act(battle, uid):
            return {"face": ACTION_COSTS["face"]}
        return dict(ACTION_COSTS)

    @staticmethod
    def actions_taken(battle: Battle, uid: str) -> int:
        """Actions spent this round (AP refreshes to the maximum at round start)."""
        ap = battle.ap(uid)
        return max(0, ap.maximum - ap.current)

    def extra_actions(self, battle: Battle, uid: str) -> int:
        """The multiple-action count of ``uid``'s actions now: its declared actions less one
        (under ``prospective_penalty``: the actions it already took this round)."""
        if self.prospective:
            return self.actions_taken(battle, uid)
        return max(0, (self.declared(battle, uid) or 1) - 1)

    def action_steps(self, battle: Battle, uid: str, extra_actions: int) -> list[Modifier]:
        """Step modifiers on an action of ``uid`` with ``extra_actions`` other actions counted."""
        mods: list[Modifier] = []
        opts = self.options
        if extra_actions > 0:
            mods.append(Modifier("multiple actions", opts.extra_action_steps * extra_actions, "skill steps"))
        if opts.seriously_wounded and seriously_wounded(battle, uid):
            mods.append(Modifier("seriously wounded", opts.serious_wound_steps, "skill steps"))
        return mods
