"""GURPS damage and wounds: injury odds and the effects of injury (shock, stun, death).

Part of the GURPS ruleset (:mod:`game.rules.gurps.ruleset`), implementing the damage
step that shared/rules/gurps-active-defense.txt leaves to the standard rules
("roll for damage"): weapon dice and adds, at least 1 (0 for crushing), halved
beyond 1/2D, minus DR, times the wound modifier (rounded down, at least 1 if it
penetrated). Injury then brings shock, major wounds, unconsciousness and death
as in the GURPS 4e Basic Set (see docs/rulesets/gurps.md).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING

from components.sight import SightFacts
from components.spatial import Posture
from game.core.battle import Battle
from game.dice import sum_pmf
from game.dice.gurps import RollResult, judge
from game.rules.gurps.options import GurpsOptions
from game.rules.gurps.state import memory, set_memory
from game.rules.gurps.stats import WOUND_MULTIPLIER, GurpsStats, GurpsWeapon

HP = "hp"


@lru_cache(maxsize=4096)
def injury_pmf(dice: int, adds: int, dtype: str, dr: int, halved: bool) -> tuple[tuple[int, float], ...]:
    """Exact distribution of injury (HP lost) from one hit: ((injury, p), ...)."""
    out: dict[int, float] = {}
    pmf = sum_pmf(dice, 6)
    for total in range(dice, 6 * dice + 1):
        inj = injury(total + adds, dtype, dr, halved)
        out[inj] = out.get(inj, 0.0) + float(pmf[total])
    return tuple(sorted(out.items()))


@lru_cache(maxsize=4096)
def p_injury_at_least(
    dice: int, adds: int, dtype: str, dr: int, halved: bool, hits: int, amount: int
) -> float:
    """Exact P(the injuries of ``hits`` hits add up to at least ``amount``)."""
    if amount <= 0:
        return 1.0
    one = injury_pmf(dice, adds, dtype, dr, halved)
    total: dict[int, float] = {0: 1.0}
    for _ in range(hits):
        nxt: dict[int, float] = {}
        for a, pa in total.items():
            for b, pb in one:
                k = min(amount, a + b)  # all sums from ``amount`` up count alike
                nxt[k] = nxt.get(k, 0.0) + pa * pb
        total = nxt
    return total.get(amount, 0.0)


def basic_damage(rolled: int, dtype: str, halved: bool) -> int:
    """Basic damage: at least 1 (0 for crushing), halved (rounded down) beyond 1/2D."""
    basic = max(0 if dtype == "cr" else 1, rolled)
    return basic // 2 if halved else basic


def injury(rolled: int, dtype: str, dr: int, halved: bool) -> int:
    """Injury from a damage roll total (dice + adds)."""
    penetrating = basic_damage(rolled, dtype, halved) - dr
    if penetrating <= 0:
        return 0
    return max(1, math.floor(penetrating * WOUND_MULTIPLIER[dtype]))


class GurpsCore:
    """Rolls and wounds shared by the GURPS ruleset's parts (no state: the shock and Aim a unit
    carries into its next turn are the battle's :class:`~game.rules.gurps.state.GurpsMemory`;
    the numbers of shock, major wounds and death are the ruleset's options)."""

    if TYPE_CHECKING:  # provided by game.rules.base.Ruleset; this class is its mixin
        options: GurpsOptions

    def _roll(self, battle: Battle, uid: str, eff: int, purpose: str) -> RollResult:
        res = judge(battle.dice.total(3, 6, purpose, uid), eff)
        battle.emit("check", unit=uid, purpose=purpose, eff=eff, roll=res.roll, success=res.success)
        return res

    def _halved(self, battle: Battle, w: GurpsWeapon, sight: SightFacts) -> bool:
        return w.half_damage is not None and sight.distance * battle.yards_per_inch > w.half_damage + 1e-9

    def p_down(
        self, battle: Battle, attacker: str, target: str, w: GurpsWeapon, sight: SightFacts, hits: int
    ) -> float:
        """Exact P(``hits`` undefended hits of ``w`` leave ``target`` at 0 HP or less)."""
        dice, adds = w.dmg.dice_adds(battle.stats(attacker).st)
        tstats: GurpsStats = battle.stats(target)
        hp = battle.health(target).tracks.get(HP, tstats.hp_max)
        halved = self._halved(battle, w, sight)
        return p_injury_at_least(dice, adds, w.dmg.type, tstats.dr, halved, hits, hp)

    def injury_per_hit(
        self, battle: Battle, attacker: str, target: str, w: GurpsWeapon, sight: SightFacts
    ) -> float:
        """Exact E[HP one hit of ``w`` takes off ``target``] (a hit DR stops counts 0)."""
        dice, adds = w.dmg.dice_adds(battle.stats(attacker).st)
        tstats: GurpsStats = battle.stats(target)
        dist = injury_pmf(dice, adds, w.dmg.type, tstats.dr, self._halved(battle, w, sight))
        return sum(inj * p for inj, p in dist)

    def _hit(self, battle: Battle, attacker: str, target: str, w: GurpsWeapon, sight: SightFacts) -> None:
        dice, adds = w.dmg.dice_adds(battle.stats(attacker).st)
        rolled = battle.dice.total(dice, 6, "damage", attacker) + adds
        tstats: GurpsStats = battle.stats(target)
        halved = self._halved(battle, w, sight)
        inj = injury(rolled, w.dmg.type, tstats.dr, halved)
        basic = basic_damage(rolled, w.dmg.type, halved)
        if inj <= 0:
            battle.emit(
                "no_penetration", unit=target, attacker=attacker, weapon=w.name, basic=basic, dr=tstats.dr
            )
            return
        battle.damage(
            target,
            {HP: -inj},
            source=attacker,
            weapon=w.name,
            damage_type=w.dmg.type,
            basic=basic,
            dr=tstats.dr,
            halved=halved,
            injury=inj,
        )
        self._wound_effects(battle, target, inj)

    def _wound_effects(self, battle: Battle, uid: str, inj: int) -> None:
        stats: GurpsStats = battle.stats(uid)
        h = battle.health(uid)
        hp_max = h.maxima[HP]
        after = h.tracks[HP]
        before = after + inj
        opts = self.options
        mem = memory(battle)
        set_memory(battle, mem.injured(uid, min(opts.shock_max, mem.shock.get(uid, 0) + inj)))
        if after <= -opts.auto_death_multiple * hp_max:
            battle.set_status(uid, "dead", True, f"reduced to {after} HP (-{opts.auto_death_multiple}xHP)")
            return
        for k in range(1, opts.death_check_multiples + 1):
            crossed = before > -k * hp_max >= after
            if crossed and not self._roll(battle, uid, stats.ht, f"HT roll to survive -{k}xHP").success:
                battle.set_status(uid, "dead", True, f"failed HT roll at {after} HP")
                return
        if opts.major_wound_divisor * inj > hp_max:
            res = self._roll(battle, uid, stats.ht, "HT roll (major wound)")
            if not res.success:
                if (res.critical or res.margin <= -opts.knockout_margin) and not h.out_of_action:
                    battle.set_status(uid, "unconscious", True, "major wound (HT roll failed badly)")
                    return
                battle.set_status(uid, "stunned", True, "major wound")
                if battle.posture(uid) != Posture.PRONE:
                    battle.set_posture(uid, Posture.PRONE, kind="knockdown")
