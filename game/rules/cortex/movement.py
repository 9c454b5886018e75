"""Cortex movement: 15 ft a turn free, a hustle to 30 ft for one action, a run for two.

Implements "Base speed is 15 feet per turn, which doesn't count as an action. Going faster
requires actions. Hustle (30 ft. per turn): 1 action. Run (30 ft. + Attribute +
Athletics/Running): 2 actions" of shared/rules/cortex-actions-defense-damage.txt (part of the
Cortex ruleset, :mod:`game.rules.cortex.ruleset`).

Contract:
- Moves add up over a turn; the tier the total reaches is paid once (a later move pays only the
  difference); a path within ``TIER_TOLERANCE`` of a tier's limit is in it
  (:meth:`CortexMovement.move_tiers`, :meth:`CortexMovement.move_pricer`, a pure function of
  the length made from the state now). An undeclared unit pays no action: the free 15 ft.
- The run roll (Agility + Athletics/Running, in feet, at the round's step penalty) is made once
  the unit's actions are declared on its turn, and only if it can afford a run
  (:meth:`CortexMovement._roll_run`), so pricing a move never rolls. The movement of the turn
  is the unit's :class:`~game.rules.cortex.state.CortexTurn` record.
- Distances convert through the battle's ``yards_per_inch`` (15 ft = 5 yd).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from game.core.battle import Battle
from game.dice.cortex import Pool, trait_pool
from game.rules.cortex.actions import CortexActions, net_steps
from game.rules.cortex.rolls import roll_total
from game.rules.cortex.state import turn_record
from game.rules.cortex.stats import CortexStats
from game.rules.unit_state import set_turn_record

#: The text's numbers (the defaults of options ``base_move_feet``, ``hustle_feet``,
#: ``hustle_actions``, ``run_actions``; the rules read the options).
#: Free movement a turn, and the hustle limit for one action, in feet (text).
BASE_MOVE_FEET = 15.0
HUSTLE_FEET = 30.0
#: Actions a hustle and a run cost (text).
HUSTLE_ACTIONS = 1
RUN_ACTIONS = 2
#: Movement tiers: a path within this many inches of a tier's limit is in the tier (commands carry
#: points rounded to 6 decimals, so a path aimed at a limit may end up to ~7e-7 in beyond it).
TIER_TOLERANCE = 1e-6
#: Feet per yard.
FEET_PER_YARD = 3.0


def to_inches(battle: Battle, yards: float) -> float:
    """``yards`` on the table, in inches."""
    return yards / battle.yards_per_inch


class CortexMovement(CortexActions):
    """Movement tiers, the run roll and move pricing."""

    def move_tiers(self, battle: Battle, uid: str) -> list[tuple[float, int]]:
        """(total inches this turn, actions that distance costs): walk, hustle and (once rolled) run."""
        opts = self.options
        tiers = [
            (to_inches(battle, opts.base_move_feet / FEET_PER_YARD), 0),
            (to_inches(battle, opts.hustle_feet / FEET_PER_YARD), opts.hustle_actions),
        ]
        run_feet = turn_record(battle, uid).run_feet
        if run_feet is not None:
            tiers.append((to_inches(battle, float(run_feet) / FEET_PER_YARD), opts.run_actions))
        return tiers

    def move_allowance(self, battle: Battle, uid: str) -> float:
        """The furthest total distance (inches) this turn the unit can still pay for (an
        undeclared unit pays no action: the free 15 ft)."""
        paid = turn_record(battle, uid).move_paid
        ap = battle.ap(uid).current if self.can_act(battle, uid) else 0
        return max(limit for limit, actions in self.move_tiers(battle, uid) if actions - paid <= ap)

    def inches_per_ap(self, battle: Battle, uid: str) -> float:
        """The rest of this turn's movement spread over the AP left.

        Cortex movement is tiered, not priced per AP (:meth:`move_ap_cost` does
        the pricing); this makes the engine's move region (AP x inches per AP)
        exactly the distance the unit can still cover this turn.
        """
        ap = battle.ap(uid).current
        if ap <= 0:
            return 0.0
        left = self.move_allowance(battle, uid) - turn_record(battle, uid).moved
        return max(0.0, left) / ap

    def move_pricer(self, battle: Battle, uid: str) -> Callable[[float], int | None]:
        """Actions for ``length`` more inches this turn: 15 ft free, 30 ft 1 action, a run 2.

        Moves add up over the turn; actions already paid for movement this turn
        count toward the tier reached. Beyond the run distance: not this turn.
        """
        turn = turn_record(battle, uid)
        moved, paid = turn.moved, turn.move_paid
        ap = battle.ap(uid).current if self.can_act(battle, uid) else 0
        tiers = tuple(self.move_tiers(battle, uid))

        def price(length: float) -> int | None:
            total = moved + length
            for limit, actions in tiers:
                if total <= limit + TIER_TOLERANCE:
                    cost = max(0, actions - paid)
                    return cost if cost <= ap else None
            return None

        return price

    def on_moved(self, battle: Battle, uid: str, kind: str, length: float) -> None:
        if kind != "move":
            return
        turn = turn_record(battle, uid)
        moved = turn.moved + length
        tier = next(
            (a for limit, a in self.move_tiers(battle, uid) if moved <= limit + TIER_TOLERANCE),
            self.options.run_actions,
        )
        set_turn_record(battle, uid, replace(turn, moved=moved, move_paid=max(turn.move_paid, tier)))

    def _roll_run(self, battle: Battle, uid: str) -> None:
        """The run distance of this turn (30 ft + Agility + Athletics/Running, in feet), rolled
        up front so that pricing a move (a query the engine repeats) never rolls dice; only when
        a run is affordable (two actions), except under ``prospective_penalty`` (always)."""
        if not self.prospective and battle.ap(uid).current < self.options.run_actions:
            return
        pool = self._run_pool(battle, uid)
        feet = self.options.run_base_feet + roll_total(battle, pool, "run distance", uid)
        set_turn_record(battle, uid, replace(turn_record(battle, uid), run_feet=feet))

    def _run_pool(self, battle: Battle, uid: str) -> Pool:
        stats: CortexStats = battle.stats(uid)
        steps = self.action_steps(battle, uid, self.extra_actions(battle, uid))
        return trait_pool(stats.attr("agility"), stats.skill("athletics/running"), net_steps(steps))

    def expected_move_tiers(self, battle: Battle, uid: str, actions: int) -> tuple[tuple[float, int], ...]:
        """(inches still to go this turn, actions it costs) per movement tier ``actions`` declared
        actions make affordable: the free 15 ft, the hustle, and with two or more a run at its
        expected roll (at their penalty)."""
        moved = turn_record(battle, uid).moved
        opts = self.options
        feet = [(opts.base_move_feet, 0), (opts.hustle_feet, opts.hustle_actions)]
        if actions >= opts.run_actions:
            stats: CortexStats = battle.stats(uid)
            steps = net_steps(self.action_steps(battle, uid, actions - 1))
            pool = trait_pool(stats.attr("agility"), stats.skill("athletics/running"), steps)
            feet.append((opts.run_base_feet + sum((d + 1) / 2 for d in pool), opts.run_actions))
        return tuple(
            (max(0.0, to_inches(battle, f / FEET_PER_YARD) - moved), cost)
            for f, cost in feet
            if cost <= actions
        )
