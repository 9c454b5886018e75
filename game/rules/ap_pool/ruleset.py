"""AP-pool ruleset: d6 success pools and a 2-AP dodge reaction.

Implements shared/rules/ap-dodge-reaction.txt (the dodge reaction) inside a
standard dice-pool skirmish frame the text leaves to the game.

From the text:
- Dodge is a reaction costing 2 AP, open to any unit with at least 2 AP left,
  whether or not it has already activated; it is declared after the attack roll
  and before damage, against melee and ranged attacks alike.
- The defender picks one of three combinations: Body + Acrobatics, Mind +
  Perception or Spirit + Willpower, plus its specialization for the kind of
  attack (melee or ranged). Each 5 or 6 is a success; meeting or beating the
  attacker's successes avoids the attack. A successful dodge lets the unit move
  up to 2 inches in any direction (inches already: no scale conversion).
- "A unit can only Dodge once per turn, even if multiple attacks target
  them": the text says "round" for the game round and "turn" for an
  activation, so the limit is one dodge per activation of the attacking
  side's unit (the active unit's turn): several attacks in one enemy turn
  meet one dodge at most; the next enemy's turn allows another while AP last.
  Option ``dodge_once_per_round`` restores the old reading (one a round).
- A failed dodge changes nothing: the attack hits and damage is applied as
  normal (option ``failed_dodge_reduces_damage`` restores the old variant in
  which the dodge's successes come off the attacker's).

Where the text is silent (choices documented in docs/rulesets/ap-pool.md):
- AP: 4 per round (``Stats.ap``), refreshed at round start. Move costs 1 AP per
  ``Stats.move`` inches (halved when kneeling, sitting, crawling or prone);
  attack 2 AP, posture change 1 AP, facing free while AP remain. No step.
- Attack pool: melee Body + Fighting + melee specialization, ranged Mind +
  Shooting + ranged specialization, thrown Body + Shooting + ranged
  specialization, plus the weapon's bonus dice. One success hits.
- Dice removed: cover (ranged only; light 1, medium 2, heavy 3, near-total 4;
  total cover: no shot), long range band (beyond ``short`` up to ``long``: 2),
  1 per unit in the line of fire, 1 for a ranged shot at a crawling or prone
  target; a melee attack on a sitting, crawling or prone target adds 1 die.
  A pool of no dice cannot attack.
- Damage: weapon damage + (successes - 1) - armour; 0 or less is a glancing
  hit. Each point is a wound; at ``Stats.wounds`` wounds the unit is out of
  action.
- Reach: melee reach is measured edge to edge between bases, in inches.
  Ranges are centre to centre. Every target must be visible (a unit in the
  attacker's sight with cover less than total).
- Initiative: each unit rolls Mind + Perception dice; most successes acts
  first, ties by higher Mind + Perception, then scenario order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from components.sight import CoverLevel, SightFacts
from components.spatial import Posture
from components.state import Health
from game.core.battle import Battle
from game.core.codec import value
from game.core.commands import Attack, Decision, Defend, Modifier, Option
from game.core.flow import Ask, Call, Done, Frame, Outcome, asks, step
from game.dice.pools import SUCCESS_FACE, count_successes, p_at_least, successes_pmf
from game.rules import mechanics as mech
from game.rules.ap_pool.commands import DodgeMove, PoolDodge
from game.rules.ap_pool.options import ApPoolOptions
from game.rules.base import ReactionRegion, Ruleset, StrictModel, UnitSetup
from game.rules.limits import Reaction, defence_event
from game.rules.sheet import DiceReading, HarmLeft, RangeBand, UnitSheet, WeaponLine

# ---- rule data -------------------------------------------------------------------------

# The numbers (the dodge's cost and move, action costs, dice removed, the success face...) are
# the ruleset's options (game/rules/ap_pool/options.py), read from ``self.options``.

#: Dodge combinations (text): combo -> (attribute, talent).
DODGE_COMBOS: dict[str, tuple[str, str]] = {
    "body": ("body", "acrobatics"),
    "mind": ("mind", "perception"),
    "spirit": ("spirit", "willpower"),
}

#: Attack pools by weapon kind: (attribute, talent, specialization).
ATTACK_POOLS: dict[str, tuple[str, str, str]] = {
    "melee": ("body", "fighting", "melee_spec"),
    "ranged": ("mind", "shooting", "ranged_spec"),
    "thrown": ("body", "shooting", "ranged_spec"),
}

#: Specialization that applies to a dodge against each kind of attack.
DODGE_SPEC: dict[str, str] = {"melee": "melee_spec", "ranged": "ranged_spec", "thrown": "ranged_spec"}

#: Cover levels of a ranged attack's target, in steps of ``cover_dice_step`` dice lost (total
#: cover: no shot).
COVER_STEPS: dict[CoverLevel, int] = {
    CoverLevel.NONE: 0,
    CoverLevel.LIGHT: 1,
    CoverLevel.MEDIUM: 2,
    CoverLevel.HEAVY: 3,
    CoverLevel.NEAR_TOTAL: 4,
}
#: Target postures that cost a ranged attack ``low_target_dice`` dice.
LOW_TARGETS = frozenset({Posture.CRAWLING, Posture.PRONE})
#: Target postures that give a melee attack ``downed_target_dice`` dice.
DOWNED_TARGETS = frozenset({Posture.SITTING, Posture.CRAWLING, Posture.PRONE})
#: Postures that move at ``low_posture_move`` of Move.
LOW_POSTURES = frozenset({Posture.KNEELING, Posture.SITTING, Posture.CRAWLING, Posture.PRONE})
WOUND_TRACK = "wounds"


# ---- stats ---------------------------------------------------------------------------------


class ApWeapon(StrictModel):
    """A weapon: ``damage`` points, ``dice`` bonus attack dice; melee ``reach`` (inches, base
    edge to edge) or ranged/thrown ``short``/``long`` range bands (inches, centre to centre)."""

    name: str = Field(min_length=1)
    kind: Literal["melee", "ranged", "thrown"] = "melee"
    damage: int = Field(ge=0)
    dice: int = Field(default=0, ge=0)
    reach: float = Field(default=1.0, ge=0)
    short: float | None = Field(default=None, gt=0)
    long: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _check(self) -> ApWeapon:
        if self.kind != "melee":
            if self.short is None or self.long is None:
                raise ValueError(f"{self.kind} weapon {self.name!r} needs short and long ranges (inches)")
            if self.long < self.short:
                raise ValueError(f"weapon {self.name!r}: long range {self.long} is below short {self.short}")
        elif self.short is not None or self.long is not None:
            raise ValueError(f"melee weapon {self.name!r} takes reach, not ranges")
        return self


class ApPoolStats(StrictModel):
    """Attributes (dice), talents and specializations (dice), armour, wound track, AP, Move."""

    body: int = Field(ge=1, le=10)
    mind: int = Field(ge=1, le=10)
    spirit: int = Field(ge=1, le=10)
    acrobatics: int = Field(default=0, ge=0, le=10)
    perception: int = Field(default=0, ge=0, le=10)
    willpower: int = Field(default=0, ge=0, le=10)
    fighting: int = Field(default=0, ge=0, le=10)
    shooting: int = Field(default=0, ge=0, le=10)
    melee_spec: int = Field(default=0, ge=0, le=5)
    ranged_spec: int = Field(default=0, ge=0, le=5)
    armour: int = Field(default=0, ge=0)
    wounds: int = Field(default=4, ge=1)
    move: float = Field(default=4.0, gt=0)
    ap: int = Field(default=4, ge=1)
    weapons: tuple[ApWeapon, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> ApPoolStats:
        names = [w.name for w in self.weapons]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"weapon names must be unique: {', '.join(dupes)}")
        return self

    def weapon(self, name: str) -> ApWeapon:
        for w in self.weapons:
            if w.name == name:
                return w
        raise KeyError(name)

    def dodge_dice(self, combo: str, attack_kind: str) -> int:
        """Dice of a dodge with ``combo`` against an attack of ``attack_kind``."""
        attribute, talent = DODGE_COMBOS[combo]
        return int(getattr(self, attribute) + getattr(self, talent) + getattr(self, DODGE_SPEC[attack_kind]))


TROOPER = ApPoolStats(
    body=3,
    mind=2,
    spirit=2,
    acrobatics=1,
    perception=2,
    willpower=1,
    fighting=2,
    shooting=2,
    melee_spec=1,
    ranged_spec=1,
    armour=1,
    wounds=4,
    weapons=(
        ApWeapon(name="sword", kind="melee", damage=2, reach=1.0),
        ApWeapon(name="bow", kind="ranged", damage=2, short=12.0, long=24.0),
    ),
)


# ---- pure odds -----------------------------------------------------------------------------


def hurt_odds(
    pool: int,
    dodge_dice: int,
    damage: int,
    armour: int,
    failed_dodge_reduces: bool = False,
    threshold: int = SUCCESS_FACE,
) -> tuple[float, float]:
    """Exact (P(the attack wounds), E[wounds | a hit, no dodge]).

    ``dodge_dice`` 0 means the target cannot dodge. A hit with ``a`` successes
    deals ``damage + (a - 1) - armour`` when the dodge fails (the text: damage as
    normal); with ``failed_dodge_reduces`` a failed dodge of ``d`` successes makes
    it ``damage + (a - d - 1) - armour``. ``threshold``: the lowest succeeding face.
    """
    att = successes_pmf(pool, threshold)
    dodge = successes_pmf(dodge_dice, threshold) if dodge_dice > 0 else None
    p_hurt = 0.0
    e_num = 0.0
    p_hit = 0.0
    for a in range(1, pool + 1):
        pa = float(att[a])
        p_hit += pa
        e_num += pa * max(0, damage + a - 1 - armour)
        if dodge is None:
            p_hurt += pa * (damage + a - 1 - armour > 0)
            continue
        for d in range(0, min(a, dodge_dice + 1)):  # the dodge fails: fewer successes than a
            net = a - d if failed_dodge_reduces else a
            if damage + (net - 1) - armour > 0:
                p_hurt += pa * float(dodge[d])
    return p_hurt, (e_num / p_hit if p_hit > 0 else 0.0)


def expected_wounds(
    pool: int,
    dodge_dice: int,
    damage: int,
    armour: int,
    failed_dodge_reduces: bool = False,
    threshold: int = SUCCESS_FACE,
) -> float:
    """Exact E[wounds] of an attack of ``pool`` dice, every outcome counted (a miss, a dodge
    made and a glancing hit do none); ``dodge_dice`` 0: the target cannot dodge."""
    att = successes_pmf(pool, threshold)
    return sum(
        float(att[a]) * dodged_wounds(a, dodge_dice, damage, armour, failed_dodge_reduces, threshold)
        for a in range(1, pool + 1)
    )


def dodged_wounds(
    successes: int,
    dodge_dice: int,
    damage: int,
    armour: int,
    failed_dodge_reduces: bool = False,
    threshold: int = SUCCESS_FACE,
) -> float:
    """Exact E[wounds] of a hit of ``successes`` met by a dodge of ``dodge_dice`` (0: no dodge):
    a dodge meeting the successes avoids it, a failed one leaves it (less its successes with
    ``failed_dodge_reduces``)."""
    if dodge_dice <= 0:
        return float(max(0, damage + successes - 1 - armour))
    dodge = successes_pmf(dodge_dice, threshold)
    out = 0.0
    for d in range(0, min(successes, dodge_dice + 1)):  # the dodge fails: fewer successes
        net = successes - d if failed_dodge_reduces else successes
        out += float(dodge[d]) * max(0, damage + net - 1 - armour)
    return out


# ---- the attack flow's data (game.core.flow): frozen, named for snapshots ---------------------


@value("ap-pool.hit")
@dataclass(frozen=True, slots=True)
class HitData:
    """An attack that hit: who, whom, with what, and its successes."""

    attacker: str
    target: str
    weapon: str
    successes: int


@value("ap-pool.dodge")
@dataclass(frozen=True, slots=True)
class DodgeData:
    """A dodge declared against a hit: the dodger, its combination and the hit it answers."""

    unit: str
    combo: str
    attack_kind: str
    vs: int
    attacker: str


#: No unit has dodged yet (the ruleset's battle-wide state: unit -> the period of its last dodge).
_NO_DODGES: Mapping[str, tuple[Any, ...]] = MappingProxyType({})


class ApPoolRuleset(Ruleset[ApPoolStats, ApPoolOptions]):
    """AP pool: d6 success pools (5-6), 4 AP a round, a 2-AP dodge reaction with a 2" move."""

    name: ClassVar[str] = "ap-pool"
    source: ClassVar[str] = "ap-dodge-reaction.txt"
    Stats: ClassVar[type[StrictModel]] = ApPoolStats
    Options: ClassVar[type[StrictModel]] = ApPoolOptions
    # "A unit can only Dodge once per turn": one dodge per activation (the active unit's turn),
    # or per round under the option dodge_once_per_round (see the module docstring).
    reaction_limits: ClassVar[tuple[Reaction, ...]] = (
        Reaction(
            "dodge",
            defence_event("dodge"),
            "activation",
            applies=lambda options: (
                not options.get("dodge_once_per_round") and options.get("dodges_per_turn", 1) == 1
            ),
        ),
        Reaction(
            "dodge",
            defence_event("dodge"),
            "round",
            applies=lambda options: (
                bool(options.get("dodge_once_per_round")) and options.get("dodges_per_turn", 1) == 1
            ),
        ),
    )

    reaction_regions: ClassVar[tuple[str, ...]] = ("dodge",)
    #: Each 5 or 6 of a pool is a success (the text).
    dice_reading: ClassVar[DiceReading] = DiceReading("successes", 5)

    def reaction_region(
        self, battle: Battle, kind: str, uid: str, attacker: str | None = None
    ) -> ReactionRegion:
        """The 2" dodge move of ``uid``: the disc its ``dodge_move`` decision offers."""
        if kind != "dodge":
            return super().reaction_region(battle, kind, uid, attacker)
        reach = self.options.dodge_move_inches
        return ReactionRegion(battle.dodge_region(uid, reach), 0.0, reach)

    @property
    def failed_dodge_reduces(self) -> bool:
        return self.options.failed_dodge_reduces_damage

    @property
    def once_per_round(self) -> bool:
        return self.options.dodge_once_per_round

    @property
    def dodge_moves(self) -> bool:
        """Whether a successful dodge offers a move (the ``dodge_move`` switch, a reach above 0)."""
        return self.options.dodge_move and self.options.dodge_move_inches > 0

    # ---- mechanics: what batch results count per side (game/rules/mechanics.py) ----------------
    mechanics: ClassVar[tuple[mech.Mechanic, ...]] = (
        mech.ATTACKS,
        mech.Mechanic(
            "shots_into_cover",
            "ranged attacks losing dice to the target's cover, by the target",
            mech.event("attack", credit="target", modifiers=mech.has_modifier(pattern=r".* cover")),
        ),
        mech.Mechanic(
            "shots_through_units",
            "ranged attacks losing dice to units in the line of fire, by the attacker",
            mech.event(
                "attack", credit="attacker", modifiers=mech.has_modifier(pattern=r"\d+ in the line of fire")
            ),
        ),
        mech.DODGES,
        mech.Mechanic(
            "dodges_made",
            "dodges meeting or beating the attacker's successes, by the dodger",
            mech.event("defence", kind="dodge", success=True),
        ),
        mech.Mechanic(
            "dodges_body",
            "dodges rolled with Body + Acrobatics",
            mech.command("Defend", kind="dodge", combo="body"),
        ),
        mech.Mechanic(
            "dodges_mind",
            "dodges rolled with Mind + Perception",
            mech.command("Defend", kind="dodge", combo="mind"),
        ),
        mech.Mechanic(
            "dodges_spirit",
            "dodges rolled with Spirit + Willpower",
            mech.command("Defend", kind="dodge", combo="spirit"),
        ),
        mech.DODGE_MOVES,
        mech.Mechanic(
            "dodge_moves_into_cover",
            "dodge moves ending in cover (light or better) from the attacker, more hidden than before",
            mech.moves_into_cover("dodge_move"),
        ),
        mech.Mechanic(
            "glancing_hits",
            "hits that did no wounds (damage at most armour), by the unit hit",
            mech.event("glancing"),
        ),
    )
    # ---- end of mechanics ----------------------------------------------------------------------

    # ---- set-up ------------------------------------------------------------------------------
    @classmethod
    def default_stats(cls) -> ApPoolStats:
        return TROOPER

    def setup_unit(self, stats: Any) -> UnitSetup:
        return UnitSetup(Health({WOUND_TRACK: 0}, {WOUND_TRACK: stats.wounds}), stats.ap)

    # ---- rounds and turns --------------------------------------------------------------------
    def initiative(self, battle: Battle, units: Sequence[str]) -> list[str]:
        order = {u: i for i, u in enumerate(units)}
        face = self.options.success_face
        score: dict[str, tuple[int, int, int]] = {}
        for u in units:
            s = battle.stats(u)
            dice = s.mind + s.perception
            hits = count_successes(battle.dice.roll(dice, 6, "initiative", u), face)
            score[u] = (-hits, -dice, order[u])
        return sorted(units, key=lambda u: score[u])

    def start_turn(self, battle: Battle, uid: str) -> bool:
        return not battle.health(uid).out_of_action

    def inches_per_ap(self, battle: Battle, uid: str) -> float:
        move = float(battle.stats(uid).move)
        return move * self.options.low_posture_move if battle.posture(uid) in LOW_POSTURES else move

    def action_costs(self, battle: Battle, uid: str) -> dict[str, int]:
        o = self.options
        return {"attack": o.attack_ap, "posture": o.posture_ap, "face": o.face_ap}

    # ---- dodging -----------------------------------------------------------------------------
    def _dodges(self, battle: Battle) -> Mapping[str, tuple[Any, ...]]:
        """Per battle: unit -> the (round, active unit) of its last dodge, with a third element
        counting the dodges of that period when there were more than one (``dodges_per_turn``)."""
        table: Mapping[str, tuple[Any, ...]] | None = battle.rules_state
        return _NO_DODGES if table is None else table

    def dodges_made(self, battle: Battle, uid: str) -> int:
        """Dodges ``uid`` made in the current period (turn, or round by option)."""
        last = self._dodges(battle).get(uid)
        if last is None or tuple(last[:2]) != self.dodge_period(battle):
            return 0
        return int(last[2]) if len(last) > 2 else 1

    def _note_dodge(self, battle: Battle, uid: str) -> None:
        table = dict(self._dodges(battle))
        made = self.dodges_made(battle, uid) + 1
        period = self.dodge_period(battle)
        table[uid] = period if made == 1 else (*period, made)
        battle.set_rules_state(MappingProxyType(table))

    def dodge_period(self, battle: Battle) -> tuple[int, str | None]:
        """The span one dodge is limited to: the active unit's turn (or the round, by option)."""
        return (battle.round, None if self.once_per_round else battle.active_unit())

    def can_dodge(self, battle: Battle, uid: str) -> str | None:
        """Why ``uid`` cannot dodge now (None: it can)."""
        if battle.health(uid).out_of_action:
            return "out of action"
        cost = self.options.dodge_ap
        if battle.ap(uid).current < cost:
            return f"needs {cost} AP, has {battle.ap(uid).current}"
        limit = self.options.dodges_per_turn
        if self.dodges_made(battle, uid) >= limit:
            span = "round" if self.once_per_round else "turn"
            if limit == 0:
                return "no dodges allowed (option dodges_per_turn 0)"
            return f"already dodged this {span}" + (f" ({limit} times)" if limit > 1 else "")
        return None

    def best_dodge_dice(self, battle: Battle, uid: str, attack_kind: str) -> int:
        """The largest dodge pool ``uid`` could roll now (0 if it cannot dodge)."""
        if self.can_dodge(battle, uid) is not None:
            return 0
        stats = battle.stats(uid)
        return max(stats.dodge_dice(c, attack_kind) for c in DODGE_COMBOS)

    # ---- for players -------------------------------------------------------------------------
    def reaction_ap(self, battle: Battle, uid: str) -> tuple[str, int] | None:
        return ("dodge", self.options.dodge_ap)

    def sheet(self, battle: Battle, uid: str) -> UnitSheet:
        stats: ApPoolStats = battle.stats(uid)
        o = self.options
        weapons = []
        for w in stats.weapons:
            attribute, talent, spec = ATTACK_POOLS[w.kind]
            pool = getattr(stats, attribute) + getattr(stats, talent) + getattr(stats, spec) + w.dice
            notes = [f"{pool} dice ({attribute} + {talent} + {spec.replace('_', ' ')}"]
            notes[0] += f" + {w.dice} {w.name})" if w.dice else ")"
            damage = (
                f"{w.damage} wound{'' if w.damage == 1 else 's'} + 1 per success past the first, less armour"
            )
            if w.kind == "melee":
                weapons.append(
                    WeaponLine(w.name, w.kind, o.attack_ap, damage, w.reach, True, (), tuple(notes))
                )
            else:
                assert w.short is not None and w.long is not None
                bands = (RangeBand("short", w.short), RangeBand("long", w.long, f"{-o.long_range_dice} dice"))
                weapons.append(
                    WeaponLine(w.name, w.kind, o.attack_ap, damage, w.long, False, bands, tuple(notes))
                )
        combos = ", ".join(
            f"{a.title()} + {t.title()} {stats.dodge_dice(c, 'melee')} dice vs melee, "
            f"{stats.dodge_dice(c, 'ranged')} vs shots"
            for c, (a, t) in DODGE_COMBOS.items()
        )
        cost = self.options.dodge_ap
        times = "once" if o.dodges_per_turn == 1 else f"{o.dodges_per_turn} times"
        after = f"then a {o.dodge_move_inches:g} in move" if self.dodge_moves else "no move after"
        span = "round" if self.once_per_round else "turn"
        dodge = f"dodge ({cost} AP, {times} a {span}, {after}): {combos}"
        why = self.can_dodge(battle, uid)
        defences = (dodge + (f"; not now: {why}" if why else ""),)
        h = battle.health(uid)
        most = h.maxima[WOUND_TRACK]
        return UnitSheet(
            weapons=tuple(weapons),
            defences=defences,
            protection=(f"armour {stats.armour} (off every hit's wounds)",),
            harm=(HarmLeft(WOUND_TRACK, max(0, most - h.tracks[WOUND_TRACK]), most),),
        )

    # ---- attacks -----------------------------------------------------------------------------
    def attack_pool(
        self, battle: Battle, uid: str, target: str, weapon: ApWeapon, sight: SightFacts | None = None
    ) -> tuple[int, tuple[Modifier, ...]] | str:
        """(dice, modifiers) of an attack, or why it is not possible."""
        stats = battle.stats(uid)
        o = self.options
        s = sight if sight is not None else battle.sight(uid, target)
        if not s.visible or s.cover == CoverLevel.TOTAL:
            return "not visible"
        attribute, talent, spec = ATTACK_POOLS[weapon.kind]
        mods = [
            Modifier(attribute, getattr(stats, attribute), "dice"),
            Modifier(talent, getattr(stats, talent), "dice"),
        ]
        if getattr(stats, spec):
            mods.append(Modifier(spec.replace("_", " "), getattr(stats, spec), "dice"))
        if weapon.dice:
            mods.append(Modifier(weapon.name, weapon.dice, "dice"))
        posture = battle.posture(target)
        if weapon.kind == "melee":
            gap = s.distance - battle.body(uid).base - battle.body(target).base
            if gap > weapon.reach + 1e-9:
                return f"out of reach ({gap:.2f} in > {weapon.reach:g} in)"
            if o.downed_target_dice and posture in DOWNED_TARGETS:
                mods.append(Modifier(f"target {posture.value}", o.downed_target_dice, "dice"))
        else:
            assert weapon.short is not None and weapon.long is not None
            if s.distance > weapon.long + 1e-9:
                return f"out of range ({s.distance:.1f} in > {weapon.long:g} in)"
            if s.distance > weapon.short + 1e-9 and o.long_range_dice:
                mods.append(Modifier("long range", -o.long_range_dice, "dice"))
            cover = o.cover_dice_step * COVER_STEPS[s.cover]
            if cover:
                mods.append(Modifier(f"{s.cover.value} cover", -cover, "dice"))
            if s.intervening and o.intervening_dice:
                mods.append(
                    Modifier(
                        f"{len(s.intervening)} in the line of fire",
                        -o.intervening_dice * len(s.intervening),
                        "dice",
                    )
                )
            if o.low_target_dice and posture in LOW_TARGETS:
                mods.append(Modifier(f"target {posture.value}", -o.low_target_dice, "dice"))
        dice = int(sum(m.value for m in mods))
        if dice < 1:
            return "no dice left"
        return dice, tuple(mods)

    def attack_options(self, battle: Battle, uid: str) -> list[Option]:
        if battle.ap(uid).current < self.options.attack_ap:
            return []
        stats = battle.stats(uid)
        face = self.options.success_face
        out: list[Option] = []
        for target in battle.enemies(uid):
            sight = battle.sight(uid, target)
            tstats = battle.stats(target)
            for w in stats.weapons:
                got = self.attack_pool(battle, uid, target, w, sight)
                if isinstance(got, str):
                    continue
                dice, mods = got
                dodge = self.best_dodge_dice(battle, target, w.kind)
                reduces = self.failed_dodge_reduces
                p_hurt, expected = hurt_odds(dice, dodge, w.damage, tstats.armour, reduces, face)
                harm = expected_wounds(dice, dodge, w.damage, tstats.armour, reduces, face)
                out.append(
                    Option(
                        Attack(uid, target, w.name),
                        f"{w.name} -> {target} ({dice} dice)",
                        p_success=p_at_least(dice, 1, face),
                        modifiers=mods,
                        detail={
                            "p_hurt": p_hurt,
                            "expected_damage": expected,
                            "dice": dice,
                            "target_dodge_dice": dodge,
                            "expected_harm": {WOUND_TRACK: harm},
                        },
                    )
                )
        return out

    def dodge_options(
        self, battle: Battle, uid: str, attack_kind: str, successes: int, weapon: ApWeapon | None = None
    ) -> list[Option]:
        """The defence decision's options: no dodge, and one per combination if a dodge is possible.

        With the attacking ``weapon``, each option's ``detail`` tells the wounds expected with it
        and without a dodge (``expected_harm``, ``expected_harm_without``)."""
        stats = battle.stats(uid)
        reduces = self.failed_dodge_reduces
        face = self.options.success_face

        def harm(dice: int) -> dict[str, Any]:
            if weapon is None:
                return {}
            return {
                "expected_harm": {
                    WOUND_TRACK: dodged_wounds(successes, dice, weapon.damage, stats.armour, reduces, face)
                },
                "expected_harm_without": {
                    WOUND_TRACK: dodged_wounds(successes, 0, weapon.damage, stats.armour, reduces, face)
                },
            }

        opts = [Option(Defend(uid, "none"), "no dodge", p_success=0.0, detail=harm(0))]
        if self.can_dodge(battle, uid) is not None:
            return opts
        spec = DODGE_SPEC[attack_kind]
        cost = self.options.dodge_ap
        for combo, (attribute, talent) in DODGE_COMBOS.items():
            dice = stats.dodge_dice(combo, attack_kind)
            mods = (
                Modifier(attribute, getattr(stats, attribute), "dice"),
                Modifier(talent, getattr(stats, talent), "dice"),
                Modifier(spec.replace("_", " "), getattr(stats, spec), "dice"),
            )
            opts.append(
                Option(
                    PoolDodge(uid, "dodge", combo=combo),
                    f"dodge {attribute}+{talent} ({dice} dice vs {successes}, {cost} AP)",
                    p_success=p_at_least(dice, successes, face),
                    modifiers=mods,
                    detail={"dice": dice, "vs": successes, "ap": cost, **harm(dice)},
                )
            )
        return opts

    # ---- the attack flow -------------------------------------------------------------------------
    @step("attack")
    def _attack(self, battle: Battle, cmd: Attack, _: Any) -> Outcome:
        uid, target = cmd.unit, cmd.target
        stats = battle.stats(uid)
        weapon = stats.weapon(cmd.weapon)
        sight = battle.sight(uid, target)
        got = self.attack_pool(battle, uid, target, weapon, sight)
        if isinstance(got, str):
            raise ValueError(f"{uid} cannot attack {target} with {weapon.name}: {got}")
        dice, mods = got
        face = self.options.success_face
        faces = battle.dice.roll(dice, 6, "attack", uid)
        hits = count_successes(faces, face)
        battle.emit(
            "attack",
            attacker=uid,
            target=target,
            weapon=weapon.name,
            dice=dice,
            successes=hits,
            hit=hits > 0,
            p_success=p_at_least(dice, 1, face),
            modifiers=[{"source": m.source, "value": m.value} for m in mods],
        )
        if hits == 0:
            return None
        hit = HitData(uid, target, weapon.name, hits)
        decision = self._ask_defence(battle, hit)
        if len(decision.options) > 1:
            return Ask("defence", hit, Frame("attack.defended", hit), decision)
        self._wound(battle, target, uid, weapon, hits)
        return None

    @asks("defence")
    def _ask_defence(self, battle: Battle, hit: HitData) -> Decision:
        kind = battle.stats(hit.attacker).weapon(hit.weapon).kind
        weapon = battle.stats(hit.attacker).weapon(hit.weapon)
        options = self.dodge_options(battle, hit.target, kind, hit.successes, weapon)
        return Decision(
            hit.target,
            "defence",
            tuple(options),
            context={
                "attacker": hit.attacker,
                "weapon": hit.weapon,
                "kind": kind,
                "successes": hit.successes,
            },
        )

    @step("attack.defended")
    def _defended(self, battle: Battle, hit: HitData, choice: Any) -> Outcome:
        if choice.kind == "dodge":
            kind = battle.stats(hit.attacker).weapon(hit.weapon).kind
            dodge = DodgeData(hit.target, choice.combo, kind, hit.successes, hit.attacker)
            return Call(Frame("dodge", dodge), Frame("attack.dodged", hit))
        self._wound(
            battle, hit.target, hit.attacker, battle.stats(hit.attacker).weapon(hit.weapon), hit.successes
        )
        return None

    @step("attack.dodged")
    def _dodged(self, battle: Battle, hit: HitData, dodged: int | None) -> Outcome:
        """After a dodge: ``dodged`` is None if it succeeded, else its successes."""
        if dodged is None:
            return None
        net = hit.successes - dodged if self.failed_dodge_reduces else hit.successes
        self._wound(battle, hit.target, hit.attacker, battle.stats(hit.attacker).weapon(hit.weapon), net)
        return None

    @step("dodge")
    def _dodge(self, battle: Battle, d: DodgeData, _: Any) -> Outcome:
        """Roll a dodge; on success offer the 2" move and return None, else the dodge's successes."""
        uid, combo, attack_kind, vs, attacker = d.unit, d.combo, d.attack_kind, d.vs, d.attacker
        stats = battle.stats(uid)
        dice = stats.dodge_dice(combo, attack_kind)
        battle.spend_ap(uid, self.options.dodge_ap, "dodge")
        self._note_dodge(battle, uid)
        face = self.options.success_face
        got = count_successes(battle.dice.roll(dice, 6, f"dodge ({combo})", uid), face)
        ok = got >= vs  # meet or beat: the defender wins ties
        attribute, talent = DODGE_COMBOS[combo]
        spec = DODGE_SPEC[attack_kind]
        battle.emit(
            "defence",
            unit=uid,
            kind="dodge",
            combo=combo,
            attacker=attacker,
            dice=dice,
            successes=got,
            vs=vs,
            success=ok,
            p_success=p_at_least(dice, vs, face),
            modifiers=[
                {"source": attribute, "value": getattr(stats, attribute)},
                {"source": talent, "value": getattr(stats, talent)},
                {"source": spec.replace("_", " "), "value": getattr(stats, spec)},
            ],
        )
        if not ok:
            return Done(got)
        if not self.dodge_moves:
            return None
        return Ask("dodge_move", d, Frame("dodge.moved", d))

    @asks("dodge_move")
    def _ask_dodge_move(self, battle: Battle, d: DodgeData) -> Decision:
        reach = self.options.dodge_move_inches
        region = battle.dodge_region(d.unit, reach)
        return Decision(
            d.unit,
            "dodge_move",
            (
                Option(DodgeMove(d.unit, None), "stay"),
                Option(
                    DodgeMove(d.unit, None),
                    f'dodge move (up to {reach:g}")',
                    point_field="to",
                    region=region.geometry,
                    validate=region.validate,
                    detail={"max_len": reach},
                ),
            ),
            context={"attacker": d.attacker},
        )

    @step("dodge.moved")
    def _dodge_moved(self, battle: Battle, d: DodgeData, move: Any) -> Outcome:
        if move.to is not None:
            battle.move_unit(d.unit, move.to, "dodge_move")
        return None

    def _wound(self, battle: Battle, target: str, attacker: str, weapon: ApWeapon, net: int) -> None:
        armour = battle.stats(target).armour
        wounds = weapon.damage + (net - 1) - armour
        if wounds <= 0:
            battle.emit(
                "glancing",
                unit=target,
                attacker=attacker,
                weapon=weapon.name,
                net_successes=net,
                armour=armour,
            )
            return
        battle.damage(
            target,
            {WOUND_TRACK: wounds},
            source=attacker,
            weapon=weapon.name,
            weapon_damage=weapon.damage,
            extra_successes=net - 1,
            armour=armour,
        )
        h = battle.health(target)
        if h.tracks[WOUND_TRACK] >= h.maxima[WOUND_TRACK]:
            battle.set_status(target, "out", True, f"{h.tracks[WOUND_TRACK]} wounds from {attacker}")
