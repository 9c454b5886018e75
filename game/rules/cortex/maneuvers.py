"""Cortex maneuvers: declaring the round's actions (``declare:N``) and all-out defence.

Implements the declaration the multiple-action penalty of
shared/rules/cortex-actions-defense-damage.txt calls for ("each extra action means a cumulative
-1 Skill step penalty to all actions that turn") and "All-Out Defense: +2 Skill step bonus to
dodge or block" (part of the Cortex ruleset, :mod:`game.rules.cortex.ruleset`).

Contract:
- :meth:`CortexManeuvers.maneuver_options`: while undeclared, ``declare:N`` for N = 1 up to the
  AP left (each with its penalty, the attack options priced at it and the movement tiers it
  makes affordable) and all-out defence; under ``prospective_penalty`` all-out defence only.
- The step ``maneuver`` (data: the :class:`~game.core.commands.Maneuver`) refuses a maneuver
  not offered now (``ValueError``), declares N (:meth:`~game.rules.cortex.actions.CortexActions.declare`),
  or takes all-out defence: every action spent, the round declared with none, dodges and
  blocks free at +2 steps until the unit's next turn (its
  :class:`~game.rules.cortex.state.CortexDefence` record), a reeling unit rolling to stay
  conscious first.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from game.core.battle import Battle
from game.core.commands import Maneuver, Modifier, Option
from game.core.flow import Outcome, step
from game.rules.cortex.actions import ALL_OUT_DEFENCE, DECLARE
from game.rules.cortex.attacks import CortexAttacks
from game.rules.cortex.state import defence_record, note
from game.rules.unit_state import set_defence_record


class CortexManeuvers(CortexAttacks):
    """The declaration and all-out defence maneuvers."""

    def maneuver_options(self, battle: Battle, uid: str) -> list[Option]:
        """Declaring the round's actions (``declare:N``, N = 1 up to the AP left) and all-out
        defence, while the unit has not declared; under ``prospective_penalty`` all-out defence
        only (while it has an action left and is not in all-out defence already).

        A declaration's ``detail``: ``declare_actions`` N, ``steps`` its penalty, ``attacks``
        (the attack options as they would be priced at it), ``move_tiers`` (per movement tier it
        makes affordable: inches still to go this turn and the actions that costs, a run at its
        expected roll), ``ap`` (AP it forfeits).
        """
        ap = battle.ap(uid).current
        if ap < 1:
            return []
        aod = Option(
            Maneuver(uid, ALL_OUT_DEFENCE),
            f"all-out defence ({ap} actions: free dodges/blocks at "
            f"{self.options.all_out_defence_steps:+d} steps until next turn)",
            modifiers=(Modifier("all-out defence", self.options.all_out_defence_steps, "skill steps"),),
            detail={"ap": ap},
        )
        if self.prospective:
            return [] if defence_record(battle, uid).all_out_defence else [aod]
        if self.declared(battle, uid) is not None:
            return []
        out: list[Option] = []
        priced = self.attack_options_levels(battle, uid, tuple(range(ap)))
        per = self.options.extra_action_steps
        for n in range(1, ap + 1):
            steps = self.action_steps(battle, uid, n - 1)
            out.append(
                Option(
                    Maneuver(uid, f"{DECLARE}:{n}"),
                    f"declare {n} action{'s' if n > 1 else ''} this round"
                    + (f" ({per * (n - 1)} step on every action)" if n > 1 else ""),
                    modifiers=tuple(steps),
                    detail={
                        "declare_actions": n,
                        "steps": per * (n - 1),
                        "attacks": tuple(priced[n - 1]),
                        "move_tiers": self.expected_move_tiers(battle, uid, n),
                        "ap": ap - n,
                    },
                )
            )
        out.append(aod)
        return out

    def _maneuver_names(self, battle: Battle, uid: str) -> set[str]:
        """The names of :meth:`maneuver_options` now, without pricing them."""
        ap = battle.ap(uid).current
        if ap < 1:
            return set()
        if self.prospective:
            return set() if defence_record(battle, uid).all_out_defence else {ALL_OUT_DEFENCE}
        if self.declared(battle, uid) is not None:
            return set()
        return {f"{DECLARE}:{n}" for n in range(1, ap + 1)} | {ALL_OUT_DEFENCE}

    @step("maneuver")
    def _maneuver(self, battle: Battle, cmd: Maneuver, _: Any) -> Outcome:
        """Declare the round's actions, or take all-out defence (the declaration of none)."""
        uid = cmd.unit
        legal = self._maneuver_names(battle, uid)
        if cmd.name not in legal:
            raise ValueError(f"{uid} cannot {cmd.name!r} now (legal: {', '.join(sorted(legal)) or 'none'})")
        if cmd.name.startswith(f"{DECLARE}:"):
            self.declare(battle, uid, int(cmd.name.partition(":")[2]), "turn")
            return None
        if not self.prospective:
            acting = self._acting(battle, uid)
            note(battle, "declared", uid, (battle.round, 0))
            if not acting:
                return None
        battle.spend_ap(uid, battle.ap(uid).current, "all-out defence")
        set_defence_record(battle, uid, replace(defence_record(battle, uid), all_out_defence=True))
        battle.emit("maneuver", unit=uid, name=ALL_OUT_DEFENCE, steps=self.options.all_out_defence_steps)
        return None
