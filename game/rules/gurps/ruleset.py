"""GURPS ruleset: 3d6 roll-under attacks and active defences, one maneuver a turn.

Implements shared/rules/gurps-active-defense.txt: Dodge (Basic Speed + 3 -
encumbrance, Enhanced Dodge, Vehicular Dodge), Parry (3 + half skill + weapon
bonus, with the multiple-parry, off-hand, thrown-weapon, unbalanced-weapon,
bare-handed and missile-within-reach rules), Block (3 + half Shield/Cloak skill,
once per turn, not against bullets or beams), the 3-4 / 17-18 defence roll,
no defence when unaware, unconscious or immobilized, rapid fire against a
Dodge, Acrobatic Dodge, Sacrificial Dodge (and dodge-and-drop), Retreat (with
the follow step), Dodge-and-Drop and All-Out Defence (Double Defence). The
defence side lives in :mod:`game.rules.gurps.defence`, the data in
:mod:`game.rules.gurps.stats`, the exact odds in :mod:`game.dice.gurps`.

Where the text is silent, standard GURPS 4e Basic Set mechanics (decisions,
documented in docs/rulesets/gurps.md):
- Attack roll: 3d6 <= effective skill (3-4 always hit, 17-18 always miss);
  critical hit on 3-4 (5 at skill 15+, 6 at 16+): no defence allowed; critical
  miss on 18, on 17 at skill 15 or less, or at skill + 10: a plain miss (the
  Critical Miss Table is not modelled). An attack needs effective skill 3+.
- Modifiers: melee posture of the attacker; ranged: Size and Speed/Range
  penalty (centre distance in yards), the target's posture (-2), -4 per unit
  in the line of fire, weapon Acc after an Aim maneuver at that target, the
  RoF bonus; cover (melee and ranged: hidden parts cannot be hit): light -2,
  medium -3, heavy -4, near-total -5, total: no attack; shock from last injury.
- Melee reach is measured base edge to base edge: a reach R weapon (C counts
  as 1) covers a gap of R - 0.5 yards.
- Damage: weapon dice (thr/sw from the ST table) + adds, at least 1 (0 for
  crushing), halved beyond 1/2D, minus DR, times the wound modifier, rounded
  down, at least 1 if it penetrated, off the ``hp`` track. Shock (-injury, at
  most -4) to the victim's attack rolls on its next turn; a major wound (more
  than HP/2 at once) calls for a HT roll: failure stuns and knocks down, failure
  by 5+ or a critical failure knocks out. At 0 HP or less a HT roll at -1 per
  full multiple of HP below zero at each turn start, or unconscious; at -1xHP
  and each further multiple a HT roll or dead; dead at -5xHP. Stunned: -4 to
  defences, no retreat, the turn is lost and a HT roll at its start recovers.
  Below 1/3 HP Move and Dodge are halved (rounded up). Injury spoils an Aim.
- Turn economy: 1 AP = one maneuver. Move (up to Move yards, scaled by
  posture: crouching 2/3, kneeling and crawling 1/3, sitting none, prone one
  yard), Attack (one free step before or after), Change Posture (lying down to
  standing or crouching takes two), All-Out Defence (Double Defence, free step),
  Aim (at one target with one ranged weapon: +Acc on next turn's attack, free
  step). Facing changes are free while a maneuver or step remains. No
  sprinting (Move never exceeds Basic Move, so the text's "moved faster than
  Basic Move" bar to retreating never applies). Initiative: Basic Speed, then DX, then a 3d6 roll-off.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any, ClassVar

from components.sight import CoverLevel, SightFacts
from components.spatial import LYING_DOWN, Posture
from components.state import Health
from game.core.battle import Battle
from game.core.commands import Attack, Maneuver, Modifier, Option
from game.core.flow import Outcome, step
from game.dice.gurps import attack_outcomes, hits_scored, judge, p_success
from game.rules import mechanics as mech
from game.rules.base import ReactionRegion, Ruleset, StrictModel, UnitSetup
from game.rules.gurps.damage import HP, injury_pmf
from game.rules.gurps.defence import gap_yards, landing_odds, reach_limit_yards, scores
from game.rules.gurps.options import GurpsOptions
from game.rules.gurps.reactions import AIM, AOD, STEP_MANEUVERS, AttackData, GurpsReactions
from game.rules.gurps.state import memory, set_memory, turn_record, update_turn
from game.rules.gurps.stats import (
    POSTURES,
    RANGE_TABLE,
    GurpsStats,
    GurpsWeapon,
    range_penalty,
    rof_bonus,
)
from game.rules.limits import Reaction, defence_event
from game.rules.sheet import HarmLeft, RangeBand, UnitSheet, WeaponLine, in_inches

AP_MAX = 1  # one maneuver per turn
#: Cover level -> to-hit penalty (decision: GURPS partial-cover/hit-location scale).
COVER_PENALTY: dict[CoverLevel, int] = {
    CoverLevel.NONE: 0,
    CoverLevel.LIGHT: -2,
    CoverLevel.MEDIUM: -3,
    CoverLevel.HEAVY: -4,
    CoverLevel.NEAR_TOTAL: -5,
}
#: The fixed to-hit modifiers by the attacker's posture (melee), the target's posture (ranged)
#: and cover, built once: attack_profile prices every weapon against every enemy per decision.
_MELEE_POSTURE: dict[Posture, Modifier] = {
    p: Modifier(f"attacking while {p.value}", row.melee_attack, "skill")
    for p, row in POSTURES.items()
    if row.melee_attack
}
_TARGET_POSTURE: dict[Posture, Modifier] = {
    p: Modifier(f"target {p.value}", row.target, "skill") for p, row in POSTURES.items() if row.target
}
_COVER: dict[CoverLevel, Modifier] = {
    c: Modifier(f"{c.value} cover", pen, "skill") for c, pen in COVER_PENALTY.items() if pen
}

TROOPER = GurpsStats.model_validate(
    {
        "st": 11,
        "dx": 11,
        "iq": 10,
        "ht": 11,
        "encumbrance": 1,
        "dr": 2,
        "skills": {"Broadsword": 12, "Bow": 12, "Brawling": 11},
        "weapons": [
            {"name": "broadsword", "skill": "Broadsword", "damage": "sw+1 cut", "reach": 1},
            {
                "name": "bow",
                "skill": "Bow",
                "kind": "missile",
                "damage": "thr+1 imp",
                "acc": 2,
                "half_damage": 165,
                "max_range": 220,
                "hands": 2,
                "parry": None,
            },
        ],
    }
)


#: A defender's defence stages as the odds functions read them (dodge?, its effective skills).
_Stages = tuple[tuple[bool, tuple[tuple[float, int], ...]], ...]


@lru_cache(maxsize=8192)
def _hurt_odds(
    eff: int,
    rof: int,
    recoil: int,
    stages: tuple[tuple[bool, tuple[tuple[float, int], ...]], ...],
    p_pen: float,
) -> tuple[float, float]:
    """(P(injury lands), E[hits | attack succeeds]) given the defender's defence ``stages`` (as
    :func:`~game.rules.gurps.defence.landing_pmf` reads them) and each hit's chance to penetrate."""
    p_hurt = 0.0
    hit_mass = 0.0
    hits_sum = 0.0
    for pr, h, critical in attack_outcomes(eff, rof, recoil):
        hit_mass += pr
        hits_sum += pr * h
        land = [0.0] * h + [1.0] if critical else list(landing_odds(h, stages))
        p_hurt += pr * sum(q * (1.0 - (1.0 - p_pen) ** k) for k, q in enumerate(land))
    return p_hurt, (hits_sum / hit_mass if hit_mass else 0.0)


@lru_cache(maxsize=8192)
def _landed_hits(
    eff: int, rof: int, recoil: int, stages: tuple[tuple[bool, tuple[tuple[float, int], ...]], ...]
) -> float:
    """E[hits that land] of an attack at effective skill ``eff``, every outcome counted (a miss
    lands none; a critical hit allows no defence), the defender trying ``stages``."""
    out = 0.0
    for pr, h, critical in attack_outcomes(eff, rof, recoil):
        land = landing_odds(h, stages) if not critical else (0.0,) * h + (1.0,)
        out += pr * sum(k * q for k, q in enumerate(land))
    return out


@lru_cache(maxsize=4096)
def _injury_summary(dice: int, adds: int, dtype: str, dr: int, halved: bool) -> tuple[float, float]:
    """(P(one hit injures), E[injury of one hit]) of :func:`~game.rules.gurps.damage.injury_pmf`."""
    dist = injury_pmf(dice, adds, dtype, dr, halved)
    return sum(p for inj, p in dist if inj > 0), sum(inj * p for inj, p in dist)


class GurpsRuleset(GurpsReactions, Ruleset[GurpsStats, GurpsOptions]):
    """GURPS 4e: 3d6 roll-under, Dodge/Parry/Block with retreat, drop, acrobatics, sacrifice."""

    name: ClassVar[str] = "gurps"
    source: ClassVar[str] = "gurps-active-defense.txt"
    Stats: ClassVar[type[StrictModel]] = GurpsStats
    # Once per own turn (gurps-active-defense.txt; ledger G63, G28, G54, G18): one retreat (an
    # attempt counts), none after a sacrificial dodge until the unit's next turn, one block, one
    # acrobatic dodge.
    # Options raising the number of retreats or blocks per turn lift those limits from the check.
    reaction_limits: ClassVar[tuple[Reaction, ...]] = (
        Reaction(
            "retreat",
            defence_event(retreat=True),
            spent_by=defence_event("sacrificial dodge"),
            applies=lambda options: int(options.get("retreats_per_turn", 1)) <= 1,
        ),
        Reaction(
            "block",
            defence_event("block"),
            applies=lambda options: int(options.get("blocks_per_turn", 1)) <= 1,
        ),
        Reaction("acrobatic dodge", defence_event(acrobatic=True)),
    )
    Options: ClassVar[type[StrictModel]] = GurpsOptions
    reaction_regions: ClassVar[tuple[str, ...]] = ("retreat",)

    def reaction_region(
        self, battle: Battle, kind: str, uid: str, attacker: str | None = None
    ) -> ReactionRegion:
        """The retreat of ``uid`` from ``attacker``: the arcs its defence options offer
        (:meth:`retreat_band`: one yard up to a step)."""
        if kind != "retreat" or attacker is None:
            return super().reaction_region(battle, kind, uid, attacker)
        lo, hi = self.retreat_band(battle, uid)
        return ReactionRegion(battle.retreat_region(uid, attacker, lo, hi), lo, hi)

    # ---- mechanics: what batch results count per side (game/rules/mechanics.py) ----------------
    mechanics: ClassVar[tuple[mech.Mechanic, ...]] = (
        mech.ATTACKS,
        mech.Mechanic(
            "aims", "Aim maneuvers (+Acc next turn), by the aimer", mech.event("maneuver", name=AIM)
        ),
        mech.Mechanic(
            "critical_hits",
            "attack rolls that were critical successes (no defence)",
            mech.event("attack", credit="attacker", result="critical success"),
        ),
        mech.Mechanic(
            "critical_misses",
            "attack rolls that were critical failures",
            mech.event("attack", credit="attacker", result="critical failure"),
        ),
        mech.Mechanic(
            "rapid_fire_hits",
            "attacks scoring more than one hit (rapid fire), by the attacker",
            mech.event("attack", credit="attacker", hits=lambda n: isinstance(n, int) and n > 1),
        ),
        mech.Mechanic(
            "unaware_defenders",
            "attacks the target could not defend: unaware (rear arc, unseen)",
            mech.event("defence", kind="none", reason=lambda r: str(r).startswith("unaware")),
        ),
        mech.DODGES,
        mech.PARRIES,
        mech.BLOCKS,
        mech.Mechanic(
            "defences_made",
            "active defences that succeeded (dodge, parry, block), by the defender",
            mech.event("defence", kind={"dodge", "parry", "block"}, success=True),
        ),
        mech.Mechanic(
            "all_out_defences",
            "All-Out Defence (Double Defense) maneuvers",
            mech.event("maneuver", name=AOD),
        ),
        mech.Mechanic(
            "second_defences",
            "second defences against one attack under All-Out Defence",
            mech.again("defence", reset="attack", kind={"dodge", "parry", "block"}),
        ),
        mech.RETREATS,
        mech.Mechanic(
            "retreat_rolls",
            "rolls to retreat from the ground (lying down)",
            mech.event("check", purpose="roll to retreat from the ground"),
        ),
        mech.Mechanic(
            "acrobatic_dodges",
            "Acrobatic Dodges (an Acrobatics roll for +2/-2), sacrificial ones included, by the dodger",
            mech.event("check", purpose="Acrobatics roll (acrobatic dodge)"),
        ),
        mech.DROPS,
        mech.INTERPOSES,
        mech.Mechanic(
            "interposes_made",
            "sacrificial dodges that succeeded (the friend took the attack)",
            mech.event("defence", kind="sacrificial dodge", success=True),
        ),
        mech.FOLLOWS,
        mech.Mechanic(
            "parry_injuries",
            "rolls to injure an unarmed attacker after a weapon parry",
            mech.event("check", purpose=lambda p: "parry injures" in str(p)),
        ),
        mech.Mechanic(
            "dr_stops",
            "hits that did not penetrate DR, by the unit hit",
            mech.event("no_penetration"),
        ),
        mech.Mechanic("knockdowns", "units knocked down by a major wound", mech.event("knockdown")),
        mech.Mechanic("stuns", "units stunned (major wound)", mech.event("status", flag="stunned", on=True)),
        mech.Mechanic(
            "knockouts",
            "units falling unconscious (HT rolls at 0 HP or less, major wounds)",
            mech.event("status", flag="unconscious", on=True),
        ),
        mech.Mechanic("deaths", "units killed", mech.event("status", flag="dead", on=True)),
    )
    # ---- end of mechanics ----------------------------------------------------------------------

    @classmethod
    def default_stats(cls) -> GurpsStats:
        return TROOPER

    def setup_unit(self, stats: Any) -> UnitSetup:
        hp = stats.hp_max
        return UnitSetup(Health({HP: hp}, {HP: hp}), AP_MAX)

    # ---- rounds and turns ------------------------------------------------------------------
    def initiative(self, battle: Battle, units: Sequence[str]) -> list[str]:
        key = {u: (-battle.stats(u).speed, -battle.stats(u).dx) for u in units}
        tied = {u for u in units if sum(1 for v in units if key[v] == key[u]) > 1}
        rolloff = {u: battle.dice.total(3, 6, "initiative roll-off", u) if u in tied else 0 for u in units}
        index = {u: i for i, u in enumerate(units)}
        return sorted(units, key=lambda u: (key[u], -rolloff[u], index[u]))

    def start_turn(self, battle: Battle, uid: str) -> bool:
        h = battle.health(uid)
        if h.out_of_action:
            return False
        stats: GurpsStats = battle.stats(uid)
        # What the unit carries into this turn: shock from injury since its last, an Aim.
        mem = memory(battle)
        shock, aim = mem.shock.get(uid, 0), mem.aims.get(uid)
        if shock or aim is not None:
            set_memory(battle, mem.without(uid))
            turn = turn_record(battle, uid)
            update_turn(battle, uid, shock=shock or turn.shock, aim=turn.aim if aim is None else aim)
        hp = h.tracks[HP]
        if hp <= 0:
            penalty = -((-hp) // stats.hp_max)  # -1 per full multiple of HP below zero
            res = self._roll(battle, uid, stats.ht + penalty, "HT roll to stay conscious")
            if not res.success:
                battle.set_status(uid, "unconscious", True, f"failed HT roll at {hp} HP")
                return False
        if "stunned" in h.status:
            if self._roll(battle, uid, stats.ht, "HT roll to recover from stun").success:
                battle.set_status(uid, "stunned", False, "recovered (HT roll)")
            return False
        return True

    def inches_per_ap(self, battle: Battle, uid: str) -> float:
        stats: GurpsStats = battle.stats(uid)
        posture = battle.posture(uid)
        opts = self.options
        yards = (
            opts.prone_move_yards
            if posture == Posture.PRONE
            else scores(stats, opts).encumbered_move * POSTURES[posture].move
        )
        hp = battle.health(uid).tracks.get(HP, stats.hp_max)
        if opts.reeling_divisor * hp < stats.hp_max:
            yards = math.ceil(yards / 2)
        return yards / battle.yards_per_inch

    def move_pricer(self, battle: Battle, uid: str) -> Callable[[float], int | None]:
        # One Move maneuver covers the whole Move; a step taken first uses part of it.
        budget = self.inches_per_ap(battle, uid) - turn_record(battle, uid).step_in
        no_ap = battle.ap(uid).current < 1

        def price(length: float) -> int | None:
            if no_ap or budget <= 0 or length > budget + 1e-9:
                return None
            return 1

        return price

    def action_costs(self, battle: Battle, uid: str) -> dict[str, int]:
        turn = battle.turn(uid)
        ap = battle.ap(uid).current
        costs = {"attack": 1}
        step_ok = not turn.stepped and (ap >= 1 or turn_record(battle, uid).maneuver in STEP_MANEUVERS)
        if step_ok:
            costs["step"] = 0
        if ap >= 1 and not turn.stepped:
            costs["posture"] = 1  # Change Posture allows no step
        if ap >= 1 or step_ok:
            costs["face"] = 0
        return costs

    # ---- for players -------------------------------------------------------------------------------
    def sheet(self, battle: Battle, uid: str) -> UnitSheet:
        stats: GurpsStats = battle.stats(uid)
        opts = self.options
        ypi = battle.yards_per_inch
        weapons = []
        for w in stats.weapons:
            dice, adds = w.dmg.dice_adds(stats.st)
            damage = (
                f"{w.damage}: {dice}d{adds:+d} {w.dmg.type}" if adds else f"{w.damage}: {dice}d {w.dmg.type}"
            )
            notes = [f"{w.skill} {stats.skills.get(w.skill, '?')}"]
            if w.kind == "melee":
                if w.parry is not None and not w.unarmed:
                    notes.append(f"parry {opts.parry_base + stats.skills.get(w.skill, 0) // 2 + w.parry}")
                reach = in_inches(reach_limit_yards(w.reach), ypi)
                weapons.append(WeaponLine(w.name, w.kind, 1, damage, reach, True, (), tuple(notes)))
                continue
            assert w.max_range is not None
            if w.acc:
                notes.append(f"Acc {w.acc} (aim first)")
            if w.rof > 1:
                notes.append(f"RoF {w.rof}")
            if w.half_damage is not None and w.half_damage < w.max_range:
                notes.append(f"half damage beyond {in_inches(w.half_damage, ypi):g} in")
            # the Size and Speed/Range table's rows up to the weapon's range
            bands = [
                RangeBand("", in_inches(limit, ypi), f"{mod:+d}" if mod else "±0")
                for limit, mod in RANGE_TABLE
                if limit < w.max_range
            ]
            bands.append(RangeBand("max", in_inches(w.max_range, ypi), f"{range_penalty(w.max_range):+d}"))
            weapons.append(
                WeaponLine(w.name, w.kind, 1, damage, bands[-1].upto, False, tuple(bands), tuple(notes))
            )
        dv = scores(stats, opts)
        defences = [f"Dodge {dv.dodge}"]
        for w in stats.weapons:
            if w.kind == "melee" and not w.unarmed and w.parry is not None:
                parry = opts.parry_base + stats.skills.get(w.skill, 0) // 2 + w.parry
                defences.append(f"Parry ({w.name}) {parry}")
        if dv.block is not None and stats.shield is not None:
            defences.append(f"Block ({stats.shield.name}) {dv.block}")
        if opts.retreat and opts.retreats_per_turn:
            times = "once a turn" if opts.retreats_per_turn == 1 else f"{opts.retreats_per_turn} times a turn"
            defences.append(
                f"retreat: +{opts.retreat_dodge} to Dodge"
                f" (+{opts.retreat_parry_block} to Parry and Block), {times}"
            )
        if turn_record(battle, uid).maneuver == AOD:
            defences.append("All-Out Defence: a second defence if the first fails")
        hp = battle.health(uid).tracks.get(HP, stats.hp_max)
        return UnitSheet(
            weapons=tuple(weapons),
            defences=tuple(defences),
            protection=(f"DR {stats.dr} (off every hit's damage)",),
            harm=(HarmLeft(HP, max(0, hp), stats.hp_max),),
        )

    def posture_allowed(self, battle: Battle, uid: str, posture: Posture) -> bool:
        current = battle.posture(uid)
        if current in LYING_DOWN and posture in (Posture.STANDING, Posture.CROUCHING):
            return False  # getting up from lying down takes two Change Posture maneuvers
        return posture != current

    def on_moved(self, battle: Battle, uid: str, kind: str, length: float) -> None:
        if uid != battle.active_unit():
            return
        turn = turn_record(battle, uid)
        if kind == "move" and not turn.maneuver:
            update_turn(battle, uid, maneuver="move")
        elif kind == "step":
            update_turn(battle, uid, step_in=turn.step_in + length)

    # ---- attack odds ------------------------------------------------------------------------
    def attack_profile(
        self,
        battle: Battle,
        uid: str,
        target: str,
        w: GurpsWeapon,
        sight: SightFacts,
        aimed: bool | None = None,
    ) -> tuple[int, tuple[Modifier, ...]] | str:
        """(effective skill, modifiers) of an attack, or why it cannot be made."""
        if not sight.visible or sight.cover == CoverLevel.TOTAL:
            return "not visible"
        # Reach and range first: most melee weapon-enemy pairs priced are out of reach.
        melee = w.kind == "melee"
        if melee:
            gap = gap_yards(battle, uid, target, sight.distance)  # in_reach's test, the gap read once
            if not gap <= reach_limit_yards(w.reach) + 1e-9:
                return f"out of reach ({gap:.2f} yd gap)"
        else:
            yards = sight.distance * battle.yards_per_inch
            assert w.max_range is not None
            if yards > w.max_range + 1e-9:
                return f"out of range ({yards:.0f} > {w.max_range:g} yd)"
        stats: GurpsStats = battle.stats(uid)
        turn = turn_record(battle, uid)
        mods = [Modifier(w.skill, stats.skills[w.skill], "skill")]
        shock = turn.shock
        if shock:
            mods.append(Modifier("shock", -shock, "skill"))
        if melee:
            posture = _MELEE_POSTURE.get(battle.posture(uid))
            if posture is not None:
                mods.append(posture)
        else:
            rp = range_penalty(yards)
            if rp:
                mods.append(Modifier(f"range {yards:.1f} yd", rp, "skill"))
            posture = _TARGET_POSTURE.get(battle.posture(target))
            if posture is not None:
                mods.append(posture)
            if sight.intervening:
                mods.append(
                    Modifier(
                        f"{len(sight.intervening)} in the way",
                        self.options.intervening_penalty * len(sight.intervening),
                        "skill",
                    )
                )
            if aimed is None:
                aimed = turn.aim == (target, w.name)
            if aimed and w.acc:
                mods.append(Modifier("aimed (Acc)", w.acc, "skill"))
            rof = rof_bonus(w.rof)
            if rof:
                mods.append(Modifier(f"RoF {w.rof}", rof, "skill"))
        cover = _COVER.get(sight.cover)
        if cover is not None:
            mods.append(cover)
        eff = int(sum([m.value for m in mods]))
        least = self.options.min_attack_skill
        if eff < least:
            return f"effective skill {eff} is below {least}"
        return eff, tuple(mods)

    def hurt_odds(
        self,
        battle: Battle,
        uid: str,
        target: str,
        w: GurpsWeapon,
        eff: int,
        sight: SightFacts,
        key: _Stages | None = None,
    ) -> tuple[float, float, float]:
        """Exact (P(injury lands), E[injury | one hit], E[hits | attack succeeds]).

        The target is assumed to take its best defence (two with All-Out Defence);
        sacrificial dodges by its friends are not counted.
        """
        tstats: GurpsStats = battle.stats(target)
        dice, adds = w.dmg.dice_adds(battle.stats(uid).st)
        halved = self._halved(battle, w, sight)
        p_pen, expected = _injury_summary(dice, adds, w.dmg.type, tstats.dr, halved)
        if key is None:
            key = self._defence_key(battle, uid, target, w, sight)
        p_hurt, hits = _hurt_odds(eff, w.rof, w.recoil, key, p_pen)
        return p_hurt, expected, hits

    def _defence_key(
        self, battle: Battle, uid: str, target: str, w: GurpsWeapon, sight: SightFacts
    ) -> _Stages:
        """The target's best defence stages against this attack, as the odds functions read them."""
        info = self.attack_info(battle, uid, w, sight)
        return tuple((c.kind == "dodge", c.effs) for c in self.best_defences(battle, target, info))

    def expected_injury(
        self,
        battle: Battle,
        uid: str,
        target: str,
        w: GurpsWeapon,
        eff: int,
        sight: SightFacts,
        key: _Stages | None = None,
    ) -> float:
        """Exact E[HP the attack takes off ``target``], every outcome counted, the target taking
        its best defence as :meth:`hurt_odds` assumes (hits land independently of their injury)."""
        per_hit = self.injury_per_hit(battle, uid, target, w, sight)
        if key is None:
            key = self._defence_key(battle, uid, target, w, sight)
        return _landed_hits(eff, w.rof, w.recoil, key) * per_hit

    def attack_options(self, battle: Battle, uid: str) -> list[Option]:
        if battle.ap(uid).current < 1:
            return []
        stats: GurpsStats = battle.stats(uid)
        out: list[Option] = []
        for target in battle.enemies(uid):
            sight = battle.sight(uid, target)
            for w in stats.weapons:
                got = self.attack_profile(battle, uid, target, w, sight)
                if isinstance(got, str):
                    continue
                eff, mods = got
                key = self._defence_key(battle, uid, target, w, sight)
                p_hurt, expected, hits = self.hurt_odds(battle, uid, target, w, eff, sight, key)
                out.append(
                    Option(
                        Attack(uid, target, w.name),
                        f"{w.name} -> {target} (skill {eff}, {p_success(eff):.0%})",
                        p_success=p_success(eff),
                        modifiers=mods,
                        detail={
                            "p_hurt": p_hurt,
                            "expected_damage": expected,
                            "eff": eff,
                            "expected_hits": hits,
                            "expected_harm": {
                                HP: self.expected_injury(battle, uid, target, w, eff, sight, key)
                            },
                        },
                    )
                )
        return out

    # ---- maneuvers --------------------------------------------------------------------------
    def maneuver_options(self, battle: Battle, uid: str) -> list[Option]:
        if battle.ap(uid).current < 1:
            return []
        out = []
        if self.options.all_out_defence:
            out.append(Option(Maneuver(uid, AOD), "All-Out Defence (Double Defence)"))
        stats: GurpsStats = battle.stats(uid)
        for w in stats.weapons:
            if not w.ranged or not w.acc:
                continue
            for target in battle.enemies(uid):
                got = self.attack_profile(battle, uid, target, w, battle.sight(uid, target), aimed=True)
                if isinstance(got, str):
                    continue
                out.append(
                    Option(
                        Maneuver(uid, f"{AIM}:{w.name}:{target}"),
                        f"aim {w.name} at {target} (+{w.acc} next turn: skill {got[0]})",
                        detail={"eff_next_turn": got[0]},
                    )
                )
        return out

    @step("maneuver")
    def _maneuver(self, battle: Battle, cmd: Maneuver, _: Any) -> Outcome:
        uid = cmd.unit
        if cmd.name == AOD:
            if not self.options.all_out_defence:
                raise ValueError("gurps: All-Out Defence is switched off (option all_out_defence)")
            battle.spend_ap(uid, 1, AOD)
            update_turn(battle, uid, maneuver=AOD)
            battle.emit("maneuver", unit=uid, name=AOD)
            return None
        stats: GurpsStats = battle.stats(uid)
        for w in stats.weapons:
            prefix = f"{AIM}:{w.name}:"
            if cmd.name.startswith(prefix):
                target = cmd.name[len(prefix) :]
                battle.spend_ap(uid, 1, AIM)
                update_turn(battle, uid, maneuver=AIM)
                set_memory(battle, memory(battle).with_aim(uid, (target, w.name)))
                battle.emit("maneuver", unit=uid, name=AIM, weapon=w.name, target=target)
                return None
        raise ValueError(f"gurps has no maneuver {cmd.name!r}")

    # ---- the attack flow ----------------------------------------------------------------------
    @step("attack")
    def _attack(self, battle: Battle, cmd: Attack, _: Any) -> Outcome:
        """Roll the attack; the friends' sacrificial dodges and the target's defence follow
        (:mod:`game.rules.gurps.reactions`), then the hits that got through."""
        uid, target = cmd.unit, cmd.target
        stats: GurpsStats = battle.stats(uid)
        w = stats.weapon(cmd.weapon)
        sight = battle.sight(uid, target)  # the facts of this attack, even after a drop or retreat
        got = self.attack_profile(battle, uid, target, w, sight)
        if isinstance(got, str):
            raise ValueError(f"{uid} cannot attack {target} with {w.name}: {got}")
        eff, mods = got
        state = battle.turn(uid)
        turn = replace(turn_record(battle, uid), maneuver="attack", aim=None)
        battle.set_turn(uid, replace(state, attacked_with=state.attacked_with | {w.name}, record=turn))
        res = judge(battle.dice.total(3, 6, "attack", uid), eff)
        hits = hits_scored(res.margin, w.rof, w.recoil) if res.success else 0
        battle.emit(
            "attack",
            attacker=uid,
            target=target,
            weapon=w.name,
            eff=eff,
            roll=res.roll,
            result=res.label,
            hit=res.success,
            hits=hits,
            p_success=p_success(eff),
            modifiers=[{"source": m.source, "value": m.value} for m in mods],
        )
        if not res.success:
            return None
        a = AttackData(uid, target, w.name, sight, res.roll, eff, hits)
        if not res.critical:
            return self._sacrificial(battle, a)
        battle.emit("defence", unit=target, kind="none", attacker=uid, reason="critical hit: no defence")
        return self._land(battle, a, hits)
