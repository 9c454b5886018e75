"""Cortex damage and its effects: stun and wounds, shock, seriously wounded, passing out, dying.

Implements "Determining Damage" and "Damage Effects" of
shared/rules/cortex-actions-defense-damage.txt (part of the Cortex ruleset,
:mod:`game.rules.cortex.ruleset`).

Contract:
- :meth:`CortexDamage._damage`: a hit by ``margin`` (attack roll - Difficulty) rolls the weapon's
  damage die and splits the damage into stun and wounds (``game.dice.cortex.split_damage``:
  W/S/B weapons, armour removes wound points); stun taken while unconscious is shock.
- :meth:`CortexDamage._after_damage`: wounds >= half the life points make the unit seriously
  wounded (-2 steps on every action, :func:`seriously_wounded`); wounds >= life points make it
  dying: a Vitality + Willpower roll at Difficulty 3 at once, then every minute
  (``ROUNDS_PER_MINUTE`` rounds, :meth:`CortexDamage.minute_rolls`) at +4 each, a failure kills;
  stun + wounds over the life points make it reeling: a roll at Difficulty 7 to stay conscious,
  again with each round's first action (:mod:`game.rules.cortex.actions`) at +4 each.
- The rolls made so far are counted in the battle's track (:mod:`game.rules.cortex.state`);
  every roll goes through ``battle.dice`` and is logged as a ``check`` event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from game.core.battle import Battle
from game.dice.cortex import Pool, split_damage, step_dice
from game.rules.cortex.rolls import roll_total
from game.rules.cortex.state import TrackTable, note, track
from game.rules.cortex.stats import CortexWeapon

if TYPE_CHECKING:
    from game.rules.cortex.options import CortexOptions

#: The text's numbers (the defaults of the options of the same names; the rules read the options).
#: Passing out: Difficulty of the first roll and the increase per later roll.
CONSCIOUS_DIFFICULTY = 7
CONSCIOUS_STEP = 4
#: Dying: Difficulty of the first roll and the increase per later roll.
DYING_DIFFICULTY = 3
DYING_STEP = 4
#: Seriously wounded penalty, in steps.
SERIOUS_WOUND_STEPS = -2
#: Rounds in a "minute" (a Cortex turn is about three seconds; decision).
ROUNDS_PER_MINUTE = 20

#: Status flags this ruleset sets.
REELING = "reeling"  # over life points and still conscious
DYING = "dying"
SERIOUSLY_WOUNDED = "seriously_wounded"


def seriously_wounded(battle: Battle, uid: str) -> bool:
    """Whether ``uid``'s wounds are at least half its life points (-2 steps on its actions)."""
    h = battle.health(uid)
    return 2 * h.tracks.get("wounds", 0) >= h.maxima.get("wounds", 0) > 0


def vitality_willpower(battle: Battle, uid: str) -> Pool:
    """The pool of ``uid``'s rolls to stay conscious and to stay alive."""
    s = battle.stats(uid)
    return step_dice(s.attr("vitality")) + step_dice(s.attr("willpower"))


class CortexDamage:
    """Damage and its effects, the base of the Cortex ruleset's parts."""

    if TYPE_CHECKING:  # provided by game.rules.base.Ruleset
        options: CortexOptions

    def _damage(self, battle: Battle, target: str, attacker: str, weapon: CortexWeapon, margin: int) -> None:
        w = roll_total(battle, weapon.damage_dice, "damage", attacker)
        armour = battle.stats(target).armour
        stun, wounds = split_damage(margin, w, weapon.damage_type, armour)
        h = battle.health(target)
        shock = self.options.shock and "unconscious" in h.status
        deltas = {"shock" if shock else "stun": stun, "wounds": wounds}
        battle.damage(
            target,
            deltas,
            source=attacker,
            weapon=weapon.name,
            margin=margin,
            weapon_roll=w,
            damage_type=weapon.damage_type,
            armour=armour,
        )
        self._after_damage(battle, target)

    def _after_damage(self, battle: Battle, uid: str) -> None:
        h = battle.health(uid)
        if "dead" in h.status:
            return
        lp = h.maxima["wounds"]
        wounds, stun = h.tracks.get("wounds", 0), h.tracks.get("stun", 0)
        opts = self.options
        if opts.seriously_wounded and seriously_wounded(battle, uid) and SERIOUSLY_WOUNDED not in h.status:
            battle.set_status(uid, SERIOUSLY_WOUNDED, True, f"wounds {wounds} >= half of {lp} life points")
        if wounds >= lp and DYING not in h.status:
            battle.set_status(uid, DYING, True, f"wounds {wounds} >= {lp} life points")
            note(battle, "dying_since", uid, battle.round)
            if not opts.dying:
                battle.set_status(uid, "dead", True, "died of wounds (no rolls to stay alive)")
                return
            if self._dying_roll(battle, uid):
                battle.set_status(uid, "out", True, "dying")
            return
        if (
            opts.passing_out
            and stun + wounds > lp
            and REELING not in h.status
            and "unconscious" not in h.status
        ):
            battle.set_status(uid, REELING, True, f"stun + wounds {stun + wounds} > {lp} life points")
            self._conscious_roll(battle, uid)

    def _conscious_roll(self, battle: Battle, uid: str) -> bool:
        """Roll to stay conscious; True if the unit stays up."""
        return self._vw_check(
            battle,
            uid,
            "conscious_rolls",
            self.options.conscious_difficulty,
            self.options.conscious_step,
            "stay conscious",
            "unconscious",
            "passed out",
        )

    def _dying_roll(self, battle: Battle, uid: str) -> bool:
        """Roll to stay alive; True if the unit survives this minute."""
        return self._vw_check(
            battle,
            uid,
            "dying_rolls",
            self.options.dying_difficulty,
            self.options.dying_step,
            "stay alive",
            "dead",
            "died of wounds",
        )

    def _vw_check(
        self,
        battle: Battle,
        uid: str,
        counts: TrackTable,
        base: int,
        step: int,
        kind: str,
        flag: str,
        failure: str,
    ) -> bool:
        """A Vitality + Willpower roll whose Difficulty grows by ``step`` with each earlier roll
        (counted in the track's table ``counts``); on a failure the unit gets status ``flag``."""
        n = int(getattr(track(battle), counts).get(uid, 0))
        difficulty = base + step * n
        note(battle, counts, uid, n + 1)
        roll = roll_total(battle, vitality_willpower(battle, uid), kind, uid)
        ok = roll >= difficulty
        battle.emit("check", unit=uid, kind=kind, roll=roll, difficulty=difficulty, success=ok)
        if not ok:
            battle.set_status(uid, flag, True, f"{failure} (rolled {roll} vs {difficulty})")
        return ok

    def minute_rolls(self, battle: Battle) -> None:
        """At a round's start: every dying unit whose minute is up rolls to stay alive."""
        for uid, since in sorted(track(battle).dying_since.items()):
            h = battle.health(uid)
            if "dead" in h.status or DYING not in h.status:
                continue
            elapsed = battle.round - since
            if elapsed > 0 and elapsed % self.options.rounds_per_minute == 0:
                self._dying_roll(battle, uid)
