"""Cortex defences: which set the Difficulty of an attack, and their exact odds.

Implements the defences of shared/rules/cortex-actions-defense-damage.txt (part of the Cortex
ruleset, :mod:`game.rules.cortex.ruleset`): "Innate Defense: If you see it coming and you're
moving around, make an unskilled Agility roll as the Difficulty to hit you. Otherwise you're at
Difficulty 3." "Block: Agility + Skill roll against the attack." "Dodge: Agility +
Athletics/Dodge as Difficulty to hit you." "All-Out Defense: +2 Skill step bonus to dodge or
block."

Contract: this module only reads the battle (the attack flow, :mod:`game.rules.cortex.flow`,
rolls and pays).
- :meth:`CortexDefences.defences`: every :class:`Defence` the target may use now against an
  attack, the innate one first (Difficulty 3 from the rear arc or when not on its feet). Dodge
  and block (melee only, with the best melee skill) need the attacker outside the rear arc and
  cost one declared action at the round's penalty; under all-out defence they are free, at +2
  steps, without the multiple-action penalty; an undeclared defender gets each active defence
  once per number of actions it could declare (``Defence.declare``).
- :meth:`CortexDefences._defence_option` / :meth:`CortexDefences._declaring_options`: the
  defence decision's options given the rolled attack total, each with the exact chance it makes
  the attack miss (ties go to the attacker); :func:`defence_odds`: the exact hit and damage odds
  of an attack pool against one defence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from components.sight import Arc, SightFacts
from components.spatial import LYING_DOWN, Posture
from game.core.battle import Battle
from game.core.commands import Defend, Maneuver, Modifier, Option
from game.dice.cortex import Pool, format_pool, hit_damage, p_meet_or_beat, step_dice, trait_pool
from game.rules.cortex.actions import DECLARE, net_steps
from game.rules.cortex.damage import seriously_wounded
from game.rules.cortex.movement import CortexMovement
from game.rules.cortex.state import defence_record
from game.rules.cortex.stats import CortexStats, CortexWeapon

#: Difficulty when the target does not see it coming or is not moving around (text; the default of
#: option ``static_difficulty``, which the rules read).
STATIC_DIFFICULTY = 3


@dataclass(frozen=True)
class Defence:
    """One way to set the Difficulty: a pool to roll (or a fixed number) plus modifiers."""

    kind: str  # none (innate), dodge, block
    pool: Pool
    fixed: int | None  # a fixed Difficulty instead of a roll
    constant: int  # cover and visibility
    modifiers: tuple[Modifier, ...]
    label: str
    costs_action: bool
    declare: int | None = None  # the actions an undeclared defender commits to by choosing this


def defence_odds(
    attack: Pool, d: Defence, weapon: CortexWeapon, armour: int
) -> tuple[float, float, float, float]:
    """Exact (P(hit), P(hurt), E[stun | hit], E[wounds | hit]) of ``attack`` against ``d``."""
    fixed = (d.fixed or 0) + d.constant
    return hit_damage(
        attack, d.pool if d.fixed is None else (), fixed, weapon.damage_dice, weapon.damage_type, armour
    )


def known_total_harm(d: Defence, total: int, weapon: CortexWeapon, armour: int) -> dict[str, float]:
    """E[stun] and E[wounds] an attack of the known ``total`` does against defence ``d``."""
    constant = (d.fixed or 0) + d.constant - total  # margin = total - (D + constant)
    p_hit, _, e_stun, e_wounds = hit_damage(
        (), d.pool if d.fixed is None else (), constant, weapon.damage_dice, weapon.damage_type, armour
    )
    return {"stun": p_hit * e_stun, "wounds": p_hit * e_wounds}


class CortexDefences(CortexMovement):
    """The defences a target may use, and the defence decision's options."""

    def defences(
        self,
        battle: Battle,
        target: str,
        attacker: str,
        weapon: CortexWeapon,
        sight: SightFacts,
        constant: int,
        const_mods: Sequence[Modifier],
    ) -> list[Defence]:
        """Every defence ``target`` may use now against this attack (innate first)."""
        stats: CortexStats = battle.stats(target)
        agility = stats.attr("agility")
        sees = sight.arc != Arc.REAR
        moving = battle.posture(target) not in LYING_DOWN | {Posture.SITTING}
        cm = tuple(const_mods)
        out: list[Defence] = []
        if sees and moving:
            pool = step_dice(agility)
            out.append(
                Defence(
                    "none", pool, None, constant, cm, f"innate defence (Agility {format_pool(pool)})", False
                )
            )
        else:
            why = "rear attack" if not sees else "not moving around"
            out.append(
                Defence(
                    "none",
                    (),
                    self.options.static_difficulty,
                    constant,
                    cm,
                    f"no defence (Difficulty {self.options.static_difficulty}, {why})",
                    False,
                )
            )
        if not sees:
            return out
        aod = defence_record(battle, target).all_out_defence
        ap = battle.ap(target).current
        if aod:
            opts = self.options
            steps = [Modifier("all-out defence", opts.all_out_defence_steps, "skill steps")]
            if opts.seriously_wounded and seriously_wounded(battle, target):
                steps.append(Modifier("seriously wounded", opts.serious_wound_steps, "skill steps"))
            out.extend(self._active(stats, target, weapon, steps, constant, cm, False, None))
        elif ap < 1:
            pass
        elif self.can_act(battle, target):
            steps = self.action_steps(battle, target, self.extra_actions(battle, target))
            out.extend(self._active(stats, target, weapon, steps, constant, cm, True, None))
        else:  # undeclared: each active defence declares the round's actions, 1 up to the AP left
            for n in range(1, ap + 1):
                steps = self.action_steps(battle, target, n - 1)
                out.extend(self._active(stats, target, weapon, steps, constant, cm, True, n))
        return out

    def _active(
        self,
        stats: CortexStats,
        target: str,
        weapon: CortexWeapon,
        steps: list[Modifier],
        constant: int,
        cm: tuple[Modifier, ...],
        costs_action: bool,
        declare: int | None,
    ) -> list[Defence]:
        """Dodge (and, against melee, block) at these step modifiers."""
        net = net_steps(steps)
        agility = stats.attr("agility")
        also = "" if declare is None else f", declaring {declare} action" + ("s" if declare > 1 else "")
        dodge = trait_pool(agility, stats.skill("athletics/dodge"), net)
        out = [
            Defence(
                "dodge",
                dodge,
                None,
                constant,
                (*steps, *cm),
                f"dodge ({format_pool(dodge)}{also})",
                costs_action,
                declare,
            )
        ]
        if weapon.kind == "melee":
            block = trait_pool(agility, stats.block_skill(), net)
            out.append(
                Defence(
                    "block",
                    block,
                    None,
                    constant,
                    (*steps, *cm),
                    f"block ({format_pool(block)}{also})",
                    costs_action,
                    declare,
                )
            )
        return out

    def _defence_option(
        self,
        battle: Battle,
        d: Defence,
        target: str,
        total: int,
        weapon: CortexWeapon | None = None,
        baseline: Defence | None = None,
    ) -> Option:
        """The defence as an option, with the exact chance its Difficulty beats the known total.

        ``detail``: ``ap`` = the AP it takes from the unit's round (the action, and the actions a
        declaration forfeits), ``forfeits`` = actions of the unit's own turn still to come that
        the declaration gives up; with the attacking ``weapon``, ``expected_harm`` (stun and
        wounds expected with this defence) and ``expected_harm_without`` (with ``baseline``, the
        innate defence, which costs nothing).
        """
        if d.fixed is not None:
            p = 1.0 if d.fixed + d.constant > total else 0.0
        else:
            p = 1.0 - p_meet_or_beat(
                (), d.pool, d.constant - total
            )  # P(D + c <= total) = P(0 >= D + c - total)
        detail: dict[str, Any] = {"ap": int(d.costs_action)}
        if weapon is not None:
            armour = battle.stats(target).armour
            detail["expected_harm"] = known_total_harm(d, total, weapon, armour)
            detail["expected_harm_without"] = known_total_harm(baseline or d, total, weapon, armour)
        return Option(
            Defend(target, d.kind),
            d.label,
            p_success=p,
            modifiers=d.modifiers,
            detail=detail,
        )

    def _declaring_options(
        self,
        battle: Battle,
        defs: Sequence[Defence],
        target: str,
        total: int,
        weapon: CortexWeapon | None = None,
    ) -> tuple[Option, ...]:
        """An undeclared defender's first choice: the innate defence, or declaring N actions
        (``declare:N``) to dodge or block at their penalty. A declaration's ``p_success`` is the
        exact chance of its best active defence; ``detail``: ``ap`` = the AP it takes from the
        unit's round (the defence's action and the actions forfeited), ``forfeits`` = actions of
        the unit's own turn still to come that it gives up, ``declare_actions`` N."""
        out = [self._defence_option(battle, defs[0], target, total, weapon, defs[0])]
        ap = battle.ap(target).current
        for n in sorted({d.declare for d in defs if d.declare is not None}):
            active = [
                (self._defence_option(battle, d, target, total, weapon, defs[0]), d)
                for d in defs
                if d.declare == n
            ]
            best, d = max(active, key=lambda od: float(od[0].p_success or 0.0))
            kinds = " or ".join(x.kind for _, x in active)
            out.append(
                Option(
                    Maneuver(target, f"{DECLARE}:{n}"),
                    f"declare {n} action{'s' if n > 1 else ''} to {kinds} (best: {d.label})",
                    p_success=best.p_success,
                    modifiers=d.modifiers,
                    detail={
                        "ap": 1 + ap - n,
                        "forfeits": self.forfeits(battle, target, n),
                        "declare_actions": n,
                        **{k: v for k, v in best.detail.items() if k.startswith("expected_harm")},
                    },
                )
            )
        return tuple(out)
