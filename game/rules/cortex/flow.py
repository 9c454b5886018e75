"""The Cortex attack flow (``game.core.flow``): roll the attack, ask the defence, roll it, damage.

Implements the order of an attack that shared/rules/cortex-actions-defense-damage.txt leaves to
the game (part of the Cortex ruleset, :mod:`game.rules.cortex.ruleset`; docs/rulesets/cortex.md):
the attack is rolled first, the defender sees the total and then chooses its defence, which
sets the Difficulty ("Attack roll - Difficulty = Damage").

Contract (the steps and their frozen data; a builder only reads):
- ``attack`` (data: the :class:`~game.core.commands.Attack`): checks reach and the declaration,
  rolls the pool and logs the ``attack`` event; in pitch black every potential target rolls its
  innate defence and the lowest (ties: a d6 roll-off) is hit if the attack meets that roll plus
  its cover (nobody can actively defend in the dark); otherwise it asks the decision
  ``defence`` of a :class:`RolledAttack`.
- ``defence`` (builder): while the target has not declared its actions, the innate defence or
  ``declare:N`` for an active one; else every defence it may use now
  (:mod:`game.rules.cortex.defence`).
- ``attack.defended``: a declaration asks ``defence`` again (now at its penalty), unless the
  unit passes out taking the action (then Difficulty 3); a defence pays its action, is rolled
  and logged (``defence`` event), and a hit deals damage (:mod:`game.rules.cortex.damage`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from components.sight import SightFacts
from game.core.battle import Battle
from game.core.codec import value
from game.core.commands import Attack, Decision, Maneuver, Modifier
from game.core.flow import Ask, Frame, Outcome, asks, step
from game.dice.cortex import format_pool, step_dice
from game.rules.cortex.actions import ACTION_COSTS
from game.rules.cortex.attacks import CortexAttacks
from game.rules.cortex.defence import Defence
from game.rules.cortex.rolls import roll_total
from game.rules.cortex.stats import CortexStats, CortexWeapon


@value("cortex.attack")
@dataclass(frozen=True, slots=True)
class RolledAttack:
    """An attack rolled and waiting for its defence: who, whom, with which weapon, the facts of
    the attack when it was made, the pool as rolled, its total and its modifiers as shown."""

    attacker: str
    target: str
    weapon: str
    sight: SightFacts
    dice: str
    total: int
    modifiers: tuple[str, ...]


class CortexAttackFlow(CortexAttacks):
    """The attack flow's steps and its defence decision."""

    @step("attack")
    def _attack(self, battle: Battle, cmd: Attack, _: Any) -> Outcome:
        """Roll the attack; in pitch black resolve it at once, else ask the target's defence."""
        uid, target = cmd.unit, cmd.target
        stats: CortexStats = battle.stats(uid)
        weapon = stats.weapon(cmd.weapon)
        sight = battle.sight(uid, target)
        why = self.in_reach(battle, uid, target, weapon, sight)
        if why is not None:
            raise ValueError(f"{uid} cannot attack {target} with {weapon.name}: {why}")
        if not self.can_act(battle, uid):
            raise ValueError(f"{uid} cannot attack before declaring its actions this round")
        if self.prospective:  # the engine spent this attack's action already: earlier ones count
            extra = max(0, self.actions_taken(battle, uid) - ACTION_COSTS["attack"])
        else:
            extra = self.extra_actions(battle, uid)
        pool, _, _, _ = self.attack_setup(battle, uid, target, weapon, sight, extra)
        option = self._attack_option(battle, uid, target, weapon, sight, extra)
        total = roll_total(battle, pool, "attack", uid)
        battle.emit(
            "attack",
            attacker=uid,
            target=target,
            weapon=weapon.name,
            dice=format_pool(pool),
            roll=total,
            modifiers=[
                {"source": m.source, "value": m.value, "applies_to": m.applies_to} for m in option.modifiers
            ],
            p_success=option.p_success,
            p_hurt=option.detail["p_hurt"],
            visibility=self.visibility,
        )
        if self.visibility == "pitch_black":
            self._resolve_pitch_black(battle, uid, target, weapon, total)
            return None
        rolled = RolledAttack(
            uid, target, weapon.name, sight, format_pool(pool), total, tuple(str(m) for m in option.modifiers)
        )
        return Ask("defence", rolled, Frame("attack.defended", rolled))

    def _against(self, battle: Battle, a: RolledAttack) -> tuple[CortexWeapon, int, list[Modifier]]:
        """The attack's weapon and its Difficulty constant (cover, visibility) with its modifiers."""
        weapon: CortexWeapon = battle.stats(a.attacker).weapon(a.weapon)
        constant, const_mods = self.difficulty_constant(battle, a.target, weapon, a.sight)
        return weapon, constant, const_mods

    def _attack_defences(self, battle: Battle, a: RolledAttack) -> list[Defence]:
        weapon, constant, const_mods = self._against(battle, a)
        return self.defences(battle, a.target, a.attacker, weapon, a.sight, constant, const_mods)

    @asks("defence")
    def _ask_defence(self, battle: Battle, a: RolledAttack) -> Decision:
        """The target's defence against the rolled total: while it has not declared its actions,
        the innate defence or a declaration (``declare:N``) for an active one; else every defence
        it may use now."""
        weapon, constant, const_mods = self._against(battle, a)
        defs = self.defences(battle, a.target, a.attacker, weapon, a.sight, constant, const_mods)
        if any(d.declare is not None for d in defs):
            options = self._declaring_options(battle, defs, a.target, a.total, weapon)
        else:
            options = tuple(self._defence_option(battle, d, a.target, a.total, weapon, defs[0]) for d in defs)
        context = {
            "attacker": a.attacker,
            "weapon": a.weapon,
            "attack_dice": a.dice,
            "roll": a.total,
            "difficulty_bonus": constant,
            "modifiers": list(a.modifiers),
        }
        return Decision(unit=a.target, kind="defence", options=options, context=context)

    @step("attack.defended")
    def _defended(self, battle: Battle, a: RolledAttack, choice: Any) -> Outcome:
        """The defence chosen: a declaration asks again (now declared, at its penalty), unless the
        unit passes out taking the action; a defence is rolled against the attack."""
        if isinstance(choice, Maneuver):
            if self.declare(battle, a.target, int(choice.name.partition(":")[2]), "defence"):
                return Ask("defence", a, Frame("attack.defended", a))
            _, constant, const_mods = self._against(battle, a)
            # passed out on taking the action: no defence, not moving around
            chosen = Defence(
                "none",
                (),
                self.options.static_difficulty,
                constant,
                tuple(const_mods),
                "no defence (passed out)",
                False,
            )
        else:
            chosen = next(d for d in self._attack_defences(battle, a) if d.kind == choice.kind)
        self._resolve_defence(battle, a, chosen)
        return None

    def _resolve_defence(self, battle: Battle, a: RolledAttack, chosen: Defence) -> None:
        """Roll ``chosen`` (paying its action) against the attack's total; damage on a hit."""
        uid, target, total = a.attacker, a.target, a.total
        if chosen.costs_action:
            battle.spend_ap(target, 1, chosen.kind)
        if chosen.fixed is not None:
            base = chosen.fixed
        else:
            base = roll_total(battle, chosen.pool, f"defence: {chosen.kind}", target)
        difficulty = base + chosen.constant
        hit = total >= difficulty
        p = self._defence_option(battle, chosen, target, total).p_success
        battle.emit(
            "defence",
            unit=target,
            attacker=uid,
            kind=chosen.kind,
            dice=format_pool(chosen.pool) if chosen.fixed is None else None,
            roll=base,
            difficulty=difficulty,
            modifiers=[
                {"source": m.source, "value": m.value, "applies_to": m.applies_to} for m in chosen.modifiers
            ],
            p_success=p,
            success=not hit,
        )
        if hit:
            self._damage(battle, target, uid, battle.stats(uid).weapon(a.weapon), total - difficulty)

    def _resolve_pitch_black(
        self, battle: Battle, uid: str, target: str, weapon: CortexWeapon, total: int
    ) -> None:
        units = self.potential_targets(battle, uid, target, weapon)
        rolls = {
            u: roll_total(battle, step_dice(battle.stats(u).attr("agility")), "defence: innate", u)
            for u in units
        }
        low = min(rolls.values())
        tied = [u for u in units if rolls[u] == low]
        while len(tied) > 1:  # fair roll-off among the tied lowest
            offs = {u: battle.dice.roll(1, 6, "pitch-black roll-off", u)[0] for u in tied}
            worst = min(offs.values())
            tied = [u for u in tied if offs[u] == worst]
        struck = tied[0]
        sight = battle.sight(uid, struck)
        cover = self.cover_difficulty(self.cover_level(battle, struck, weapon, sight))
        difficulty = low + cover
        hit = total >= difficulty
        battle.emit(
            "defence",
            unit=struck,
            attacker=uid,
            kind="pitch_black",
            rolls=rolls,
            difficulty=difficulty,
            modifiers=[{"source": "cover", "value": cover, "applies_to": "difficulty"}] if cover else [],
            p_success=None,
            success=not hit,
        )
        if hit:
            self._damage(battle, struck, uid, weapon, total - difficulty)
