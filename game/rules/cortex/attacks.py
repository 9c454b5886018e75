"""Cortex attacks: the attack pool, its Difficulty bonus, and the exact odds of every attack.

Implements the attacker's side of shared/rules/cortex-actions-defense-damage.txt (part of the
Cortex ruleset, :mod:`game.rules.cortex.ruleset`): "Cover: Increases Difficulty to hit you.
Light cover +4 (prone; half concealed), Medium +8, Heavy +12, Near-total +16"; "Poor
Visibility: ... Dim; light fog +4. Dark; thick fog +8. Pitch Black: All potential targets make
Easy innate defense roll to avoid being hit. Lowest roll takes the hit."; "Range: Affects
attacker's skill. Point-blank +1 Skill step, Short -, Medium -2, Long -4".

Contract: this module only reads the battle (the attack flow, :mod:`game.rules.cortex.flow`,
rolls).
- :meth:`CortexAttacks.attack_setup`: the attack pool (attribute + skill at the round's step
  penalty and the range band's steps) and :meth:`CortexAttacks.difficulty_constant` (cover,
  at least light for a lying target of a missile, and visibility).
- :meth:`CortexAttacks.attack_options`: one option per target x weapon in reach (melee: base
  edge to base edge, in yards; missiles: range bands by the weapon's increment; total cover:
  no attack), none before the unit declares its actions; ``p_success`` is the exact chance to
  meet the innate defence, ``detail["p_hurt"]`` the exact chance to hurt against the target's
  best defence. In pitch black (:meth:`CortexAttacks.potential_targets`) the odds are those of
  the lowest innate roll among the target and the units near it.
"""

from __future__ import annotations

from components.sight import CoverLevel, SightFacts
from components.spatial import LYING_DOWN
from game.core.battle import Battle
from game.core.commands import Attack, Modifier, Option
from game.dice.cortex import (
    Pool,
    format_pool,
    hit_damage,
    lowest_value_pmf,
    p_meet_or_beat,
    step_dice,
    trait_pool,
)
from game.rules.cortex.actions import net_steps
from game.rules.cortex.defence import CortexDefences, Defence, defence_odds
from game.rules.cortex.options import CortexOptions
from game.rules.cortex.stats import CortexStats, CortexWeapon

#: The text's numbers (the defaults of the options; the rules read them through :func:`cover_table`,
#: :func:`visibility_table`, :func:`range_table` and the options).
#: Difficulty added by cover (from the cover model's level; text).
COVER_DIFFICULTY: dict[CoverLevel, int] = {
    CoverLevel.NONE: 0,
    CoverLevel.LIGHT: 4,
    CoverLevel.MEDIUM: 8,
    CoverLevel.HEAVY: 12,
    CoverLevel.NEAR_TOTAL: 16,
}
#: Difficulty added by poor visibility (``pitch_black`` has its own procedure; text).
VISIBILITY_DIFFICULTY: dict[str, int] = {"clear": 0, "dim": 4, "dark": 8}
#: Skill steps by range band (text).
RANGE_STEPS: dict[str, int] = {"point-blank": 1, "short": 0, "medium": -2, "long": -4}
#: Range bands: point-blank within this many yards; otherwise by range increments (decision).
POINT_BLANK_YARDS = 3.0
RANGE_BAND_INCREMENTS: tuple[tuple[str, float], ...] = (("short", 1.0), ("medium", 2.0), ("long", 4.0))
#: Pitch black: other units this close (yards, base edge to base edge) to the target may be hit.
PITCH_BLACK_SPREAD_YARDS = 2.0


def cover_table(options: CortexOptions) -> dict[CoverLevel, int]:
    """The Difficulty each cover level adds under ``options``."""
    return {
        CoverLevel.NONE: 0,
        CoverLevel.LIGHT: options.cover_light,
        CoverLevel.MEDIUM: options.cover_medium,
        CoverLevel.HEAVY: options.cover_heavy,
        CoverLevel.NEAR_TOTAL: options.cover_near_total,
    }


def visibility_table(options: CortexOptions) -> dict[str, int]:
    """The Difficulty each visibility adds under ``options`` (pitch black: its own procedure)."""
    return {"clear": 0, "dim": options.dim_difficulty, "dark": options.dark_difficulty}


def range_table(options: CortexOptions) -> dict[str, int]:
    """The skill steps of each range band under ``options``."""
    return {
        "point-blank": options.point_blank_steps,
        "short": 0,
        "medium": options.medium_range_steps,
        "long": options.long_range_steps,
    }


def to_yards(battle: Battle, inches: float) -> float:
    """``inches`` on the table, in yards."""
    return inches * battle.yards_per_inch


class CortexAttacks(CortexDefences):
    """Attack pools, reach and range, cover and visibility, and the attack options."""

    @property
    def visibility(self) -> str:
        """The battle's visibility (option ``visibility``)."""
        return self.options.visibility

    def cover_difficulty(self, level: CoverLevel) -> int:
        """The Difficulty cover of ``level`` adds (options ``cover_light`` .. ``cover_near_total``)."""
        return cover_table(self.options).get(level, 0)

    def range_steps(self, band: str) -> int:
        """Skill steps of the range band (options ``point_blank_steps``, ``medium_range_steps``,
        ``long_range_steps``; short range is the text's 0)."""
        return range_table(self.options)[band]

    def range_band(self, battle: Battle, weapon: CortexWeapon, distance_in: float) -> str | None:
        """The range band of a ranged/thrown attack at ``distance_in`` inches (None: out of range)."""
        yards = to_yards(battle, distance_in)
        if yards <= self.options.point_blank_yards + 1e-9:
            return "point-blank"
        inc = weapon.range_increment or 0.0
        for band, mult in RANGE_BAND_INCREMENTS:
            if yards <= inc * mult + 1e-9:
                return band
        return None

    def edge_gap_yards(self, battle: Battle, a: str, b: str) -> float:
        """Gap between two bases, yards."""
        gap = battle.distance(a, b) - battle.body(a).base - battle.body(b).base
        return to_yards(battle, max(0.0, gap))

    def in_reach(
        self, battle: Battle, uid: str, target: str, weapon: CortexWeapon, sight: SightFacts
    ) -> str | None:
        """Why ``weapon`` cannot reach ``target`` (None: it can)."""
        if not sight.visible or sight.cover == CoverLevel.TOTAL:
            return "no line of sight"
        if weapon.kind == "melee":
            if self.edge_gap_yards(battle, uid, target) > weapon.reach + 1e-9:
                return "out of reach"
            return None
        if self.range_band(battle, weapon, sight.distance) is None:
            return "out of range"
        return None

    def cover_level(self, battle: Battle, target: str, weapon: CortexWeapon, sight: SightFacts) -> CoverLevel:
        """Cover the attack faces: the model's level, at least light for a lying target shot at."""
        level = sight.cover
        if (
            self.options.prone_is_light_cover
            and weapon.kind != "melee"
            and battle.posture(target) in LYING_DOWN
            and level == CoverLevel.NONE
        ):
            return CoverLevel.LIGHT
        return level

    def attack_setup(
        self,
        battle: Battle,
        uid: str,
        target: str,
        weapon: CortexWeapon,
        sight: SightFacts,
        extra_actions: int,
    ) -> tuple[Pool, list[Modifier], int, list[Modifier]]:
        """(attack pool, its step modifiers, Difficulty constant, the constant's modifiers)."""
        stats: CortexStats = battle.stats(uid)
        steps = self.action_steps(battle, uid, extra_actions)
        if weapon.kind != "melee":
            band = self.range_band(battle, weapon, sight.distance) or "long"
            band_steps = self.range_steps(band)
            if band_steps:
                steps.append(Modifier(f"range: {band}", band_steps, "skill steps"))
        pool = trait_pool(stats.attr(weapon.attribute), stats.skill(weapon.skill), net_steps(steps))
        constant, const_mods = self.difficulty_constant(battle, target, weapon, sight)
        return pool, steps, constant, const_mods

    def difficulty_constant(
        self, battle: Battle, target: str, weapon: CortexWeapon, sight: SightFacts
    ) -> tuple[int, list[Modifier]]:
        """(what cover and visibility add to the Difficulty, its modifiers)."""
        const_mods: list[Modifier] = []
        level = self.cover_level(battle, target, weapon, sight)
        cover = self.cover_difficulty(level)
        if cover:
            src = f"cover: {level.value}" if level == sight.cover else "cover: lying down"
            const_mods.append(Modifier(src, cover, "difficulty"))
        vis = visibility_table(self.options).get(self.visibility, 0)
        if vis:
            const_mods.append(Modifier(f"visibility: {self.visibility}", vis, "difficulty"))
        return int(sum(m.value for m in const_mods)), const_mods

    def attack_options(self, battle: Battle, uid: str) -> list[Option]:
        """Every attack now (none before the unit declares its actions)."""
        if not self.can_act(battle, uid):
            return []
        return self.attack_options_at(battle, uid, self.extra_actions(battle, uid))

    def attack_options_at(self, battle: Battle, uid: str, extra_actions: int) -> list[Option]:
        """Every attack as it would be priced with ``extra_actions`` other actions this round."""
        return self.attack_options_levels(battle, uid, (extra_actions,))[0]

    def attack_options_levels(self, battle: Battle, uid: str, levels: tuple[int, ...]) -> list[list[Option]]:
        """:meth:`attack_options_at` at each of ``levels``, the reach and the target's defences
        found once per target x weapon (they do not depend on the attacker's actions)."""
        stats: CortexStats = battle.stats(uid)
        out: list[list[Option]] = [[] for _ in levels]
        for target in battle.enemies(uid):
            sight = battle.sight(uid, target)
            for weapon in stats.weapons:
                if self.in_reach(battle, uid, target, weapon, sight) is not None:
                    continue
                defs = None
                if self.visibility != "pitch_black":
                    constant, const_mods = self.difficulty_constant(battle, target, weapon, sight)
                    defs = self.defences(battle, target, uid, weapon, sight, constant, const_mods)
                for got, level in zip(out, levels, strict=True):
                    got.append(self._attack_option(battle, uid, target, weapon, sight, level, defs))
        return out

    def _attack_option(
        self,
        battle: Battle,
        uid: str,
        target: str,
        weapon: CortexWeapon,
        sight: SightFacts,
        extra_actions: int,
        defs: list[Defence] | None = None,
    ) -> Option:
        pool, steps, constant, const_mods = self.attack_setup(
            battle, uid, target, weapon, sight, extra_actions
        )
        armour = battle.stats(target).armour
        mods = (*steps, *const_mods)
        if self.visibility == "pitch_black":
            p_success, p_hurt, e_stun, e_wounds = self._pitch_black_odds(battle, uid, target, weapon, pool)
            p_hit_best = self._pitch_black_hit_me(battle, uid, target, weapon, pool)
            label_def = "pitch black: lowest innate roll is hit"
        else:
            if defs is None:
                defs = self.defences(battle, target, uid, weapon, sight, constant, const_mods)
            innate = defence_odds(pool, defs[0], weapon, armour)
            best = min((defence_odds(pool, d, weapon, armour) for d in defs), key=lambda o: (o[1], o[0]))
            p_success = innate[0]
            p_hurt, e_stun, e_wounds = best[1], best[2], best[3]
            p_hit_best = best[0]
            label_def = defs[0].label
        return Option(
            Attack(uid, target, weapon.name, ()),
            f"{weapon.name} -> {target} ({format_pool(pool)} vs {label_def}"
            + (f" +{constant}" if constant else "")
            + f"; {100 * p_success:.0f}%)",
            p_success=p_success,
            modifiers=mods,
            detail={
                "p_hurt": p_hurt,
                "expected_damage": e_stun + e_wounds,
                "expected_stun": e_stun,
                "expected_wounds": e_wounds,
                "attack_dice": format_pool(pool),
                "difficulty_bonus": constant,
                "expected_harm": {"stun": p_hit_best * e_stun, "wounds": p_hit_best * e_wounds},
            },
        )

    def _pitch_black_hit_me(
        self, battle: Battle, uid: str, target: str, weapon: CortexWeapon, pool: Pool
    ) -> float:
        """Pitch black: P(the chosen target is the one hit), as :meth:`_pitch_black_odds` counts it."""
        units = self.potential_targets(battle, uid, target, weapon)
        pools = tuple(step_dice(battle.stats(u).attr("agility")) for u in units)
        cover = self.cover_difficulty(self.cover_level(battle, target, weapon, battle.sight(uid, target)))
        return sum(
            pv * p_meet_or_beat(pool, (), v + cover)
            for v, pv in enumerate(lowest_value_pmf(pools, 0).tolist())
            if pv
        )

    def potential_targets(self, battle: Battle, uid: str, target: str, weapon: CortexWeapon) -> list[str]:
        """Pitch black: the target and every unit near it that this weapon could reach."""
        out = [target]
        spread = self.options.pitch_black_spread_yards
        for other in battle.units():
            if other in (uid, target):
                continue
            if self.edge_gap_yards(battle, other, target) > spread + 1e-9:
                continue
            if self.in_reach(battle, uid, other, weapon, battle.sight(uid, other)) is None:
                out.append(other)
        return out

    def _pitch_black_odds(
        self, battle: Battle, uid: str, target: str, weapon: CortexWeapon, pool: Pool
    ) -> tuple[float, float, float, float]:
        """(P(hit anyone), P(the chosen target is hurt), E[stun], E[wounds] given it is hit)."""
        units = self.potential_targets(battle, uid, target, weapon)
        pools = tuple(step_dice(battle.stats(u).attr("agility")) for u in units)
        consts = [
            self.cover_difficulty(self.cover_level(battle, u, weapon, battle.sight(uid, u))) for u in units
        ]
        # P(some unit is hit) = sum over the lowest unit j and its roll v of P(attack >= v + cover_j).
        p_any = 0.0
        for j in range(len(units)):
            lowest = lowest_value_pmf(pools, j)
            for v, pv in enumerate(lowest.tolist()):
                if pv:
                    p_any += pv * p_meet_or_beat(pool, (), v + consts[j])
        mine = lowest_value_pmf(pools, 0)
        armour = battle.stats(target).armour
        p_hurt = e_stun = e_wounds = p_hit_me = 0.0
        for v, pv in enumerate(mine.tolist()):
            if not pv:
                continue
            ph, pu, es, ew = hit_damage(
                pool, (), v + consts[0], weapon.damage_dice, weapon.damage_type, armour
            )
            p_hit_me += pv * ph
            p_hurt += pv * pu
            e_stun += pv * ph * es
            e_wounds += pv * ph * ew
        if p_hit_me > 0:
            e_stun, e_wounds = e_stun / p_hit_me, e_wounds / p_hit_me
        return p_any, p_hurt, e_stun, e_wounds
