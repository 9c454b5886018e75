"""Advanced Fighting Fantasy ruleset: opposed 2d6 melee, roll-under missiles, damage tracks.

Implements shared/rules/aff-dodge-protection.md (Dodge as protection, its
standard restrictions, the Ubiquitous Dodging alternative and the Dodge
protection track) inside the standard AFF combat frame the text leaves to the
game. docs/rulesets/aff.md lists every number and decision.

From the text:
- Dodge works like armour: on a hit, roll the weapon's damage track, then the
  Dodge protection track (row = Dodge special skill, ``game.dice.aff``), and
  subtract; zero or less harms nothing.
- Standard rules: only a unit with the Swashbuckler talent may dodge, never
  while wearing armour or while actively using a shield; carrying a shield it
  does not use is allowed and adds nothing.
- Ubiquitous Dodging (option ``ubiquitous``): any unit with a Dodge skill may
  dodge; Swashbuckler adds +1 to the Dodge protection roll; armour and dodge
  do not stack and the choice holds for a whole round; a shield's bonus adds to
  the dodge roll as it does to the armour roll.

Where the text is silent (standard AFF practice; decisions marked so):
- Melee: attacker and defender each roll 2d6 + SKILL + the special skill of
  their weapon (the defender uses its best melee skill); the higher total
  wins, a tie harms nobody. Decision for a turn-based activation: a defender
  who wins strikes back (option ``riposte``, default on) when one of its melee
  weapons reaches the attacker and the attack did not come from its rear arc;
  otherwise its win only wards off the blow. An attack from the rear arc
  gives the defender -2 (decision: a surprised defender).
- Missiles and thrown weapons: hit on 2d6 <= SKILL + special skill + range
  and cover modifiers; a double 1 always hits and a double 6 always misses.
  Decisions: range bands come from the weapon's ``ranges`` (short, medium,
  long, yards, centre to centre) at 0 / -1 / -2; cover light -1, medium -2,
  heavy -3, near-total -4; total cover (no line of sight) allows no attack.
- Damage: STAMINA is the damage track; at 0 the unit is out of action.
  Weapon damage tracks and armour tracks are profile data (seven columns,
  rolls 1-6 and 7+). A shield adds ``shield_bonus`` (default 1) to the armour
  roll (and, under Ubiquitous Dodging, to the dodge roll); the Armour Training
  talent adds +1 to armour rolls. A unit without armour rolls no armour track
  (its "armour" choice is the shield bonus on an all-zero track).
- The protection choice is the defence decision: when a hit lands the
  defender picks among the protections it may use (armour with its shield,
  dodge), each option showing the exact chance of no damage. Worn armour is
  not optional (the text makes armour and Dodge alternatives only under
  Ubiquitous Dodging): "no protection" is offered only to a unit with no
  protection it may use (a unit with one protection at hand is still asked, a
  decision of one option). Option ``optional_protection`` restores the old variant in which
  "no protection" is always offered. Under Ubiquitous Dodging the text's choice
  "at the start of each round" is a ``protection`` decision at the start of
  each round (``start_round``) for every unit in action that may both armour and
  dodge, in scenario order; it binds the whole round (its hits then offer only
  the chosen protection). Each option's ``p_success`` is the exact chance of no
  damage from one hit, averaged over the attacks the unit can expect (each enemy
  alike; of an enemy, its weapons that reach the unit now, or all its weapons if
  none of any enemy does). Option ``ubiquitous_dodging_choice=first_hit``
  restores the old reading: the choice is made at the unit's first hit of the
  round and binds the rest of it.
- Turn economy (decision): 2 AP a round; moving costs 1 AP per 5 yards, an
  attack 1 AP (one attack a turn, as AFF allows one attack a round), a posture
  change 1 AP, facing is free. Reach is measured base edge to base edge in
  yards (``Weapon.reach``, default 1).
- Initiative (decision; AFF fights are simultaneous): 2d6 + SKILL each round,
  highest first; ties by higher SKILL, then a 1d6 roll-off.
- The "Defensive" combat option the text points to (+2 to the combat total, no damage dealt)
  is the melee defender's stance, a ``defence`` decision asked before the dice (option
  ``defensive``, default on; ``defensive_bonus``): fighting defensively, a win wards off the
  blow and never strikes back.
- LUCK and talents other than Swashbuckler and Armour Training are not modelled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from components.sight import Arc, CoverLevel, SightFacts
from components.state import Health
from game.core.battle import Battle
from game.core.codec import value
from game.core.commands import Attack, Decision, Defend, Maneuver, Modifier, Option
from game.core.flow import Ask, Call, Frame, Outcome, asks, step
from game.dice.aff import (
    NO_PROTECTION,
    Track,
    check_track,
    dodge_track,
    expected_damage,
    p_no_damage,
    p_opposed,
    p_roll_under,
    roll_under_succeeds,
    track_value,
)
from game.rules import mechanics as mech
from game.rules.aff.options import AffOptions
from game.rules.base import BlockMemo, Ruleset, StrictModel, UnitSetup
from game.rules.limits import Binding
from game.rules.sheet import HarmLeft, RangeBand, UnitSheet, WeaponLine, in_inches

# ---- rule data (text) ----------------------------------------------------------------------------

#: Swashbuckler talent: required to dodge (standard), +1 to dodge rolls (ubiquitous).
SWASHBUCKLER = "swashbuckler"
#: The special skill that dodges.
DODGE_SKILL = "dodge"

# ---- decisions where the text is silent (see the module docstring) -------------------------------

# The numbers (talent bonuses, AP and costs, range, cover and rear modifiers) are the ruleset's
# options (game/rules/aff/options.py), read from ``self.options``.

#: Armour Training talent: a bonus to armour rolls (option ``armour_training_bonus``).
ARMOUR_TRAINING = "armour training"
#: Missile range bands.
RANGE_BANDS: tuple[str, ...] = ("short", "medium", "long")
#: Cover levels, in steps of ``cover_penalty_step`` off a missile's target.
COVER_STEPS: dict[CoverLevel, int] = {
    CoverLevel.NONE: 0,
    CoverLevel.LIGHT: 1,
    CoverLevel.MEDIUM: 2,
    CoverLevel.HEAVY: 3,
    CoverLevel.NEAR_TOTAL: 4,
}
#: The damage track.
STAMINA = "stamina"

Protection = Literal["none", "armour", "dodge"]


# ---- stats ---------------------------------------------------------------------------------------


class AffWeapon(StrictModel):
    """A weapon: its special skill, its damage track, its reach or ranges (yards)."""

    name: str
    kind: Literal["melee", "missile", "thrown"]
    skill: str
    track: tuple[int, ...]
    reach: float = Field(default=1.0, ge=0.0)
    ranges: tuple[float, float, float] | None = None

    @field_validator("track")
    @classmethod
    def _track(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        return check_track(v)

    @field_validator("skill")
    @classmethod
    def _lower(cls, v: str) -> str:
        return v.strip().lower()

    @model_validator(mode="after")
    def _check(self) -> AffWeapon:
        if self.kind != "melee":
            if self.ranges is None:
                raise ValueError(
                    f"{self.kind} weapon {self.name!r} needs ranges: [short, medium, long] yards"
                )
            if not 0 < self.ranges[0] <= self.ranges[1] <= self.ranges[2]:
                raise ValueError("ranges must be positive and increasing: [short, medium, long]")
        return self


class AffArmour(StrictModel):
    """Worn armour: a protection track."""

    name: str
    track: tuple[int, ...]

    @field_validator("track")
    @classmethod
    def _track(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        return check_track(v)


class AffStats(StrictModel):
    """An AFF stat block: SKILL, STAMINA, special skills, talents, armour, shield, weapons."""

    skill: int = Field(ge=1)
    stamina: int = Field(ge=1)
    special_skills: dict[str, int] = Field(default_factory=dict)
    talents: tuple[str, ...] = ()
    armour: AffArmour | None = None
    shield: bool = False
    shield_bonus: int = Field(default=1, ge=0)
    weapons: tuple[AffWeapon, ...] = Field(min_length=1)

    @field_validator("special_skills")
    @classmethod
    def _skills(cls, v: dict[str, int]) -> dict[str, int]:
        out = {k.strip().lower(): int(n) for k, n in v.items()}
        if any(n < 0 for n in out.values()):
            raise ValueError("special skills cannot be negative")
        return out

    @field_validator("talents")
    @classmethod
    def _talents(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(t.strip().lower() for t in v)

    @model_validator(mode="after")
    def _unique_weapons(self) -> AffStats:
        names = [w.name for w in self.weapons]
        if len(set(names)) != len(names):
            raise ValueError("weapon names must be unique")
        return self

    def special(self, name: str) -> int:
        return self.special_skills.get(name.lower(), 0)

    def has(self, talent: str) -> bool:
        return talent in self.talents

    def weapon(self, name: str) -> AffWeapon:
        for w in self.weapons:
            if w.name == name:
                return w
        raise KeyError(name)

    def melee_weapons(self) -> list[AffWeapon]:
        return [w for w in self.weapons if w.kind == "melee"]


TROOPER = AffStats(
    skill=7,
    stamina=14,
    special_skills={"sword": 2, "crossbow": 1},
    armour=AffArmour(name="leather", track=(0, 0, 0, 1, 1, 1, 2)),
    weapons=(
        AffWeapon(name="short sword", kind="melee", skill="sword", track=(1, 2, 2, 3, 3, 3, 4)),
        AffWeapon(
            name="crossbow",
            kind="missile",
            skill="crossbow",
            track=(2, 2, 3, 3, 4, 4, 5),
            ranges=(10, 30, 60),
        ),
    ),
)


@dataclass(frozen=True)
class ProtectionRoll:
    """One protection choice: the track rolled and the bonus added to the roll."""

    kind: Protection
    track: Track
    bonus: int
    modifiers: tuple[Modifier, ...]
    label: str


NO_PROTECTION_ROLL = ProtectionRoll("none", NO_PROTECTION, 0, (), "no protection roll")


def protections(
    stats: AffStats,
    ubiquitous: bool,
    locked: str | None = None,
    optional: bool = False,
    bonuses: tuple[int, int] = (1, 1),
) -> tuple[list[ProtectionRoll], dict[str, str]]:
    """The protection choices a unit has, and why any other is forbidden.

    Args:
        stats: the unit.
        ubiquitous: the Ubiquitous Dodging option.
        locked: under Ubiquitous Dodging, the armour-or-dodge choice this round binds to.
        optional: the ``optional_protection`` option: ``none`` is always a choice.
        bonuses: (Armour Training's armour bonus, Swashbuckler's dodge bonus): the options
            ``armour_training_bonus`` and ``swashbuckler_dodge_bonus``.

    Returns:
        ``(choices, forbidden)``: the protections the unit may roll (armour, then dodge),
        preceded by ``none`` only with ``optional`` or when there is no other;
        ``forbidden`` maps ``armour``/``dodge`` (and ``none``, when it is not offered) to a
        reason when not allowed.
    """
    out: list[ProtectionRoll] = []
    forbidden: dict[str, str] = {}
    training_bonus, swash_bonus = bonuses

    # Armour (with the shield actively used, when carried).
    arm_mods: list[Modifier] = []
    if stats.shield and stats.shield_bonus:
        arm_mods.append(Modifier("shield", stats.shield_bonus, "protection roll"))
    if stats.armour is not None and stats.has(ARMOUR_TRAINING) and training_bonus:
        arm_mods.append(Modifier("armour training", training_bonus, "protection roll"))
    if stats.armour is None and not stats.shield:
        forbidden["armour"] = "no armour and no shield"
    elif locked == "dodge":
        forbidden["armour"] = "chose dodge this round"
    else:
        name = stats.armour.name if stats.armour is not None else "no armour"
        track = stats.armour.track if stats.armour is not None else NO_PROTECTION
        bonus = int(sum(m.value for m in arm_mods))
        label = f"armour ({name}" + (" + shield" if stats.shield else "") + ")"
        out.append(ProtectionRoll("armour", track, bonus, tuple(arm_mods), label))

    # Dodge.
    skill = stats.special(DODGE_SKILL)
    row = dodge_track(skill)
    dodge_mods: list[Modifier] = []
    if row is None:
        forbidden["dodge"] = "no Dodge special skill"
    elif ubiquitous:
        if locked == "armour":
            forbidden["dodge"] = "chose armour this round"
        else:
            if stats.has(SWASHBUCKLER) and swash_bonus:
                dodge_mods.append(Modifier("swashbuckler", swash_bonus, "protection roll"))
            if stats.shield and stats.shield_bonus:
                dodge_mods.append(Modifier("shield", stats.shield_bonus, "protection roll"))
    elif not stats.has(SWASHBUCKLER):
        forbidden["dodge"] = "needs the Swashbuckler talent"
    elif stats.armour is not None:
        forbidden["dodge"] = f"wearing armour ({stats.armour.name})"
    if "dodge" not in forbidden and row is not None:
        bonus = int(sum(m.value for m in dodge_mods))
        label = f"dodge (skill {skill}" + (f", +{bonus}" if bonus else "") + ")"
        out.append(ProtectionRoll("dodge", row, bonus, tuple(dodge_mods), label))
    if optional or not out:
        out.insert(0, NO_PROTECTION_ROLL)
    elif stats.armour is not None:
        forbidden["none"] = f"wearing armour ({stats.armour.name}): it always protects"
    else:
        forbidden["none"] = "a protection is at hand: it is always used"
    return out, forbidden


# ---- the attack flow's data (game.core.flow) and the battle-wide state: frozen, named ------------


@value("aff.hit")
@dataclass(frozen=True, slots=True)
class HitData:
    """A landed hit: the unit hit, who hit it, and with which of the hitter's weapons (by name)."""

    target: str
    attacker: str
    weapon: str


@value("aff.melee")
@dataclass(frozen=True, slots=True)
class MeleeData:
    """A melee attack waiting for the defender's stance: who, whom, with which weapon (by name)."""

    attacker: str
    target: str
    weapon: str


_NO_LOCKS: Mapping[str, tuple[int, str]] = MappingProxyType({})


@value("aff.state")
@dataclass(frozen=True, slots=True)
class AffState:
    """The ruleset's battle-wide state (``Battle.rules_state``): under Ubiquitous Dodging, each
    unit's armour-or-dodge choice and the round it binds (unit -> (round, choice))."""

    locks: Mapping[str, tuple[int, str]] = field(default_factory=lambda: _NO_LOCKS)

    def __post_init__(self) -> None:
        if type(self.locks) is not MappingProxyType:  # e.g. as decoded from a snapshot
            object.__setattr__(self, "locks", MappingProxyType(dict(self.locks)))

    def locked(self, uid: str, round_: int, choice: str) -> AffState:
        """This state with ``uid`` bound to ``choice`` for round ``round_``."""
        return AffState(MappingProxyType({**self.locks, uid: (round_, choice)}))


@value("aff.round")
@dataclass(frozen=True, slots=True)
class RoundChoices:
    """The units still to choose armour or dodge at the start of this round (Ubiquitous Dodging)."""

    units: tuple[str, ...]


#: Protection choices and the best protection, priced for every attack option of every decision
#: from the same few stat blocks: worked out once per block and key.
_BY_STATS = BlockMemo()


# ---- the ruleset ---------------------------------------------------------------------------------


def _protection_chosen(e: dict[str, Any]) -> str | None:
    """The protection (armour or dodge) a ``defence`` event shows the unit rolled, or the one a
    ``command`` event shows it chose at the start of the round."""
    if e.get("type") == "defence" and e.get("kind") in ("armour", "dodge"):
        return str(e["kind"])
    if e.get("type") == "command" and e.get("decision") == "protection":
        kind = (e.get("command") or {}).get("kind")
        return str(kind) if kind in ("armour", "dodge") else None
    return None


def _protection_option(
    uid: str, p: ProtectionRoll, label: str, safe: float, mean: float, **extra: Any
) -> Option:
    """A protection decision's option (round-start choice or a hit's): its odds and track."""
    detail = {"expected_damage": mean, "track": list(p.track), "expected_harm": {STAMINA: mean}, **extra}
    return Option(Defend(uid, p.kind), label, p_success=safe, modifiers=p.modifiers, detail=detail)


class AffRuleset(Ruleset[AffStats, AffOptions]):
    """Advanced Fighting Fantasy: opposed 2d6 melee, damage tracks, armour or dodge protection."""

    name: ClassVar[str] = "aff"
    source: ClassVar[str] = "aff-dodge-protection.md"
    Stats: ClassVar[type[StrictModel]] = AffStats
    Options: ClassVar[type[StrictModel]] = AffOptions
    # Ubiquitous Dodging: "choose at the start of each round whether to reduce damage with
    # their armour or their Dodge".
    choice_bindings: ClassVar[tuple[Binding, ...]] = (
        Binding("armour-or-dodge", _protection_chosen, "round", lambda o: bool(o.get("ubiquitous"))),
    )

    # ---- mechanics: what batch results count per side (game/rules/mechanics.py) ----------------
    mechanics: ClassVar[tuple[mech.Mechanic, ...]] = (
        mech.ATTACKS,
        mech.Mechanic(
            "missile_attacks",
            "missile and thrown attacks (2d6 roll-under), by the attacker",
            mech.event("attack", credit="attacker", kind={"missile", "thrown"}),
        ),
        mech.Mechanic(
            "shots_into_cover",
            "missile and thrown attacks on a target in cover, by the target",
            mech.event("attack", credit="target", modifiers=mech.has_modifier(pattern=r"cover: .*")),
        ),
        mech.Mechanic(
            "melee_wards",
            "melee attacks the defender's total met or beat (no hit), by the defender",
            mech.event("defence", kind="melee", success=True),
        ),
        mech.Mechanic(
            "ripostes",
            "defenders who won a melee exchange and struck back",
            mech.event("defence", riposte=True),
        ),
        mech.Mechanic(
            "defensive_stances",
            "melee defences fought defensively (a bonus, no damage dealt), by the defender",
            mech.command("Defend", kind="defensive"),
        ),
        mech.Mechanic(
            "rear_attacks",
            "melee attacks from the defender's rear arc (-2), by the defender",
            mech.event("defence", kind="melee", modifiers=mech.has_modifier("attacked from the rear")),
        ),
        mech.Mechanic(
            "armour_protections",
            "hits met with an armour (and shield) roll, by the unit hit",
            mech.command("Defend", kind="armour"),
        ),
        mech.DODGES,
        mech.Mechanic(
            "unprotected_hits",
            "hits taken with no protection roll, by the unit hit",
            mech.command("Defend", kind="none"),
        ),
        mech.Mechanic(
            "shield_bonuses",
            "protection rolls with a shield's bonus, by the unit hit",
            mech.event("defence", modifiers=mech.has_modifier("shield")),
        ),
        mech.Mechanic(
            "armour_training_bonuses",
            "armour rolls with the Armour Training talent's +1, by the unit hit",
            mech.event("defence", modifiers=mech.has_modifier("armour training")),
        ),
        mech.Mechanic(
            "swashbuckler_bonuses",
            "dodge rolls with Swashbuckler's +1 (Ubiquitous Dodging), by the unit hit",
            mech.event("defence", modifiers=mech.has_modifier("swashbuckler")),
        ),
        mech.Mechanic(
            "harmless_hits",
            "hits whose damage the protection roll cancelled (zero or less), by the unit hit",
            mech.event("defence", kind={"none", "armour", "dodge"}, success=True),
        ),
    )
    # ---- end of mechanics ----------------------------------------------------------------------

    @property
    def ubiquitous(self) -> bool:
        return self.options.ubiquitous

    @property
    def riposte(self) -> bool:
        return self.options.riposte

    @property
    def optional_protection(self) -> bool:
        return self.options.optional_protection

    @property
    def bonuses(self) -> tuple[int, int]:
        """(Armour Training's armour bonus, Swashbuckler's dodge bonus), from the options."""
        return (self.options.armour_training_bonus, self.options.swashbuckler_dodge_bonus)

    def range_modifier(self, band: str) -> int:
        """The roll-under target modifier of a missile range band."""
        o = self.options
        return {"short": 0, "medium": -o.medium_range_penalty, "long": -o.long_range_penalty}[band]

    def state(self, battle: Battle) -> AffState:
        """The battle-wide state (no choice bound yet: an empty one)."""
        st: AffState | None = battle.rules_state
        return AffState() if st is None else st

    def locked_choice(self, battle: Battle, uid: str) -> str | None:
        """The armour-or-dodge choice binding ``uid`` this round (Ubiquitous Dodging only)."""
        if not self.ubiquitous:
            return None
        entry = self.state(battle).locks.get(uid)
        return entry[1] if entry and entry[0] == battle.round else None

    @property
    def choose_at_round_start(self) -> bool:
        """Ubiquitous Dodging's armour-or-dodge choice is a decision at the start of the round."""
        return self.ubiquitous and self.options.ubiquitous_dodging_choice == "round_start"

    def protection_choices(self, battle: Battle, uid: str) -> list[ProtectionRoll]:
        stats: AffStats = battle.stats(uid)
        ubiquitous, locked, optional, bonuses = (
            self.ubiquitous,
            self.locked_choice(battle, uid),
            self.optional_protection,
            self.bonuses,
        )
        key = ("choices", ubiquitous, locked, optional, bonuses)
        return list(
            _BY_STATS.get(
                stats, key, lambda: tuple(protections(stats, ubiquitous, locked, optional, bonuses)[0])
            )
        )

    # ---- set-up ----------------------------------------------------------------------------------
    @classmethod
    def default_stats(cls) -> AffStats:
        return TROOPER

    def setup_unit(self, stats: Any) -> UnitSetup:
        health = Health({STAMINA: stats.stamina}, {STAMINA: stats.stamina})
        return UnitSetup(health, self.options.ap_per_round)

    # ---- rounds and turns ------------------------------------------------------------------------
    def initiative(self, battle: Battle, units: Sequence[str]) -> list[str]:
        keys: dict[str, list[int]] = {}
        for u in units:
            s: AffStats = battle.stats(u)
            keys[u] = [sum(battle.dice.roll(2, 6, "initiative", u)) + s.skill, s.skill]
        while True:
            groups: dict[tuple[int, ...], list[str]] = {}
            for u in units:
                groups.setdefault(tuple(keys[u]), []).append(u)
            tied = [g for g in groups.values() if len(g) > 1]
            if not tied:
                break
            for g in tied:
                for u in g:
                    keys[u].append(battle.dice.roll(1, 6, "initiative roll-off", u)[0])
        return sorted(units, key=lambda u: [-k for k in keys[u]])

    def start_turn(self, battle: Battle, uid: str) -> bool:
        return not battle.health(uid).out_of_action

    def start_round(self, battle: Battle) -> Frame | None:
        """Under Ubiquitous Dodging (``round_start``): the armour-or-dodge choice of every unit in
        action that has both, one ``protection`` decision each."""
        if not self.choose_at_round_start:
            return None
        units = tuple(u for u in battle.units(alive=True) if len(self._round_options(battle, u)) > 1)
        return Frame("aff.round", RoundChoices(units)) if units else None

    def _round_options(self, battle: Battle, uid: str) -> list[ProtectionRoll]:
        """The protections ``uid`` may bind this round: armour and dodge, as far as it has them."""
        return [p for p in self.protection_choices(battle, uid) if p.kind in ("armour", "dodge")]

    def expected_threats(self, battle: Battle, uid: str) -> list[list[AffWeapon]]:
        """The attacks ``uid`` can expect this round, by enemy: each enemy's weapons that reach it
        now, or, when no enemy's does, every enemy's weapons (anything may come this round)."""
        foes = [(e, battle.stats(e)) for e in battle.enemies(uid)]
        reaching = [
            [w for w in s.weapons if self.reaches(battle, e, uid, w, battle.sight(e, uid)) is None]
            for e, s in foes
        ]
        if any(reaching):
            return [ws for ws in reaching if ws]
        return [list(s.weapons) for _, s in foes]

    def round_protection_options(self, battle: Battle, uid: str) -> tuple[Option, ...]:
        """The round's armour-or-dodge options, each priced exactly against the expected attacks:
        ``p_success`` the mean chance of no damage from one hit (each enemy alike, each of its
        weapons alike), ``expected_damage`` the mean damage of one hit."""
        threats = self.expected_threats(battle, uid)
        out = []
        for p in self._round_options(battle, uid):
            safe = mean = 0.0
            for weapons in threats:
                safe += sum(p_no_damage(w.track, p.track, 0, p.bonus) for w in weapons) / len(weapons)
                mean += sum(expected_damage(w.track, p.track, 0, p.bonus) for w in weapons) / len(weapons)
            if threats:
                safe, mean = safe / len(threats), mean / len(threats)
            label = f"{p.label} this round: {100 * safe:.0f}% no damage a hit, {mean:.2f} expected"
            out.append(_protection_option(uid, p, label, safe, mean, threats=sum(len(ws) for ws in threats)))
        return tuple(out)

    @step("aff.round")
    def _round_choices(self, battle: Battle, left: RoundChoices, _: Any) -> Outcome:
        """Ask the next unit to choose armour or dodge for the round (skipping one no longer able
        to choose: out of action)."""
        units = tuple(u for u in left.units if not battle.health(u).out_of_action)
        if not units:
            return None
        return Ask("round_protection", units[0], Frame("aff.round.chosen", RoundChoices(units)))

    @asks("round_protection")
    def _ask_round_protection(self, battle: Battle, uid: str) -> Decision:
        return Decision(
            unit=uid,
            kind="protection",
            options=self.round_protection_options(battle, uid),
            context={"round": battle.round, "binds": "armour or dodge for the whole round"},
        )

    @step("aff.round.chosen")
    def _round_chosen(self, battle: Battle, left: RoundChoices, choice: Any) -> Outcome:
        """Bind the answer for this round; then the next unit."""
        battle.set_rules_state(self.state(battle).locked(left.units[0], battle.round, choice.kind))
        return Call(Frame("aff.round", RoundChoices(left.units[1:])))

    def inches_per_ap(self, battle: Battle, uid: str) -> float:
        return self.options.move_yards_per_ap / battle.yards_per_inch

    def action_costs(self, battle: Battle, uid: str) -> dict[str, int]:
        o = self.options
        return {"attack": o.attack_ap, "posture": o.posture_ap, "face": o.face_ap}

    # ---- for players -----------------------------------------------------------------------------
    def sheet(self, battle: Battle, uid: str) -> UnitSheet:
        stats: AffStats = battle.stats(uid)
        ypi = battle.yards_per_inch
        weapons = []
        for w in stats.weapons:
            damage = "track " + ", ".join(str(v) for v in w.track) + " (1d6: 1-6, 7+), less protection"
            notes = (f"SKILL {stats.skill} + {w.skill} {stats.special(w.skill)}",)
            if w.kind == "melee":
                weapons.append(
                    WeaponLine(
                        w.name,
                        w.kind,
                        self.options.attack_ap,
                        damage,
                        in_inches(w.reach, ypi),
                        True,
                        (),
                        notes,
                    )
                )
                continue
            assert w.ranges is not None
            bands = tuple(
                RangeBand(
                    band,
                    in_inches(limit, ypi),
                    f"{self.range_modifier(band):+d}" if self.range_modifier(band) else "",
                )
                for band, limit in zip(RANGE_BANDS, w.ranges, strict=True)
            )
            weapons.append(
                WeaponLine(
                    w.name, w.kind, self.options.attack_ap, damage, bands[-1].upto, False, bands, notes
                )
            )
        choices = self.protection_choices(battle, uid)
        _, forbidden = protections(
            stats, self.ubiquitous, self.locked_choice(battle, uid), self.optional_protection, self.bonuses
        )
        protection = tuple(
            f"{p.label}: track "
            + ", ".join(str(v) for v in p.track)
            + (f", +{p.bonus} to the roll" if p.bonus else "")
            for p in choices
            if p.kind != "none"
        ) + tuple(f"no {k}: {why}" for k, why in forbidden.items() if k == "dodge")
        melee = stats.melee_weapons()
        best = max(melee, key=lambda w: stats.special(w.skill), default=None)
        parry = f"melee defence 2d6 + {stats.skill}" + (
            f" + {best.skill} {stats.special(best.skill)}" if best is not None else ""
        )
        parry += " (the higher total wins a blow" + (
            "; a win strikes back)" if self.riposte and melee else ")"
        )
        if self.options.defensive:
            parry += f"; or defensively: +{self.options.defensive_bonus}, a win deals no damage"
        h = battle.health(uid)
        left = h.tracks[STAMINA]
        attacked = bool(battle.turn(uid).attacked_with)
        return UnitSheet(
            weapons=tuple(weapons),
            defences=(parry,),
            protection=protection or ("no protection",),
            harm=(HarmLeft(STAMINA, max(0, left), h.maxima[STAMINA]),),
            attack_limit="one attack a turn: it has attacked" if attacked else None,
        )

    # ---- geometry --------------------------------------------------------------------------------
    def edge_gap_yards(self, battle: Battle, a: str, b: str) -> float:
        gap = battle.distance(a, b) - battle.body(a).base - battle.body(b).base
        return max(0.0, gap) * battle.yards_per_inch

    def range_band(self, battle: Battle, weapon: AffWeapon, distance_in: float) -> str | None:
        """Band of a missile/thrown attack at ``distance_in`` inches (None: beyond long range)."""
        yards = distance_in * battle.yards_per_inch
        for band, limit in zip(RANGE_BANDS, weapon.ranges or (), strict=False):
            if yards <= limit + 1e-9:
                return band
        return None

    def reaches(
        self, battle: Battle, uid: str, target: str, weapon: AffWeapon, sight: SightFacts
    ) -> str | None:
        """Why ``weapon`` cannot be used on ``target`` now (None: it can)."""
        if not sight.visible or sight.cover == CoverLevel.TOTAL:
            return "no line of sight"
        if weapon.kind == "melee":
            return None if self.edge_gap_yards(battle, uid, target) <= weapon.reach + 1e-9 else "out of reach"
        return None if self.range_band(battle, weapon, sight.distance) is not None else "out of range"

    # ---- attack odds -----------------------------------------------------------------------------
    def melee_scores(
        self,
        battle: Battle,
        uid: str,
        target: str,
        weapon: AffWeapon,
        sight: SightFacts,
        defensive: bool = False,
    ) -> tuple[int, list[Modifier], int, list[Modifier], AffWeapon | None]:
        """(attack score, its modifiers, defence score, its modifiers, the defender's weapon);
        ``defensive``: the defender fights defensively (``defensive_bonus`` to its total)."""
        a: AffStats = battle.stats(uid)
        d: AffStats = battle.stats(target)
        a_mods = [
            Modifier("SKILL", a.skill, "combat total"),
            Modifier(f"{weapon.skill} skill", a.special(weapon.skill), "combat total"),
        ]
        melee = d.melee_weapons()
        parry = max(melee, key=lambda w: d.special(w.skill), default=None)
        d_mods = [Modifier("SKILL", d.skill, "combat total")]
        if parry is not None:
            d_mods.append(Modifier(f"{parry.skill} skill", d.special(parry.skill), "combat total"))
        if sight.arc == Arc.REAR and self.options.rear_defence_penalty:
            d_mods.append(
                Modifier("attacked from the rear", -self.options.rear_defence_penalty, "combat total")
            )
        if defensive and self.options.defensive_bonus:
            d_mods.append(Modifier("defensive", self.options.defensive_bonus, "combat total"))
        return (
            int(sum(m.value for m in a_mods)),
            a_mods,
            int(sum(m.value for m in d_mods)),
            d_mods,
            parry,
        )

    def missile_target(
        self, battle: Battle, uid: str, weapon: AffWeapon, sight: SightFacts
    ) -> tuple[int, list[Modifier]]:
        """(roll-under target number, its modifiers) of a missile or thrown attack."""
        a: AffStats = battle.stats(uid)
        mods = [
            Modifier("SKILL", a.skill, "target"),
            Modifier(f"{weapon.skill} skill", a.special(weapon.skill), "target"),
        ]
        band = self.range_band(battle, weapon, sight.distance) or "long"
        if self.range_modifier(band):
            mods.append(Modifier(f"range: {band}", self.range_modifier(band), "target"))
        cover = COVER_STEPS.get(sight.cover, 0) * self.options.cover_penalty_step
        if cover:
            mods.append(Modifier(f"cover: {sight.cover.value}", -cover, "target"))
        return int(sum(m.value for m in mods)), mods

    def best_protection(self, battle: Battle, uid: str, weapon: AffWeapon) -> ProtectionRoll:
        """The defender's protection with the best chance of no damage (then the least expected)."""
        key = (
            "best",
            self.ubiquitous,
            self.locked_choice(battle, uid),
            self.optional_protection,
            self.bonuses,
            weapon.track,
        )
        return _BY_STATS.get(
            battle.stats(uid),
            key,
            lambda: min(
                self.protection_choices(battle, uid),
                key=lambda p: (
                    -p_no_damage(weapon.track, p.track, 0, p.bonus),
                    expected_damage(weapon.track, p.track, 0, p.bonus),
                ),
            ),
        )

    def attack_options(self, battle: Battle, uid: str) -> list[Option]:
        if battle.turn(uid).attacked_with:
            return []  # one attack a turn
        stats: AffStats = battle.stats(uid)
        out: list[Option] = []
        for target in battle.enemies(uid):
            sight = battle.sight(uid, target)
            for weapon in stats.weapons:
                if self.reaches(battle, uid, target, weapon, sight) is None:
                    out.append(self._attack_option(battle, uid, target, weapon, sight))
        return out

    def _attack_option(
        self, battle: Battle, uid: str, target: str, weapon: AffWeapon, sight: SightFacts
    ) -> Option:
        if weapon.kind == "melee":
            att, a_mods, dfn, d_mods, _ = self.melee_scores(battle, uid, target, weapon, sight)
            p_hit = p_opposed(att, dfn)[0]
            mods = tuple(a_mods) + tuple(
                Modifier(f"defender {m.source}", -m.value, m.applies_to) for m in d_mods
            )
            label = f"{weapon.name} -> {target} (2d6+{att} vs 2d6+{dfn}; {100 * p_hit:.0f}%)"
        else:
            tn, t_mods = self.missile_target(battle, uid, weapon, sight)
            p_hit = p_roll_under(tn)
            mods = tuple(t_mods)
            label = f"{weapon.name} -> {target} (2d6 <= {tn}; {100 * p_hit:.0f}%)"
        best = self.best_protection(battle, target, weapon)
        p_harm = 1.0 - p_no_damage(weapon.track, best.track, 0, best.bonus)
        mean = expected_damage(weapon.track, best.track, 0, best.bonus)
        return Option(
            Attack(uid, target, weapon.name, ()),
            label,
            p_success=p_hit,
            modifiers=mods,
            detail={
                "p_hurt": p_hit * p_harm,
                "expected_damage": mean,
                "best_protection": best.kind,
                "expected_harm": {STAMINA: p_hit * mean},
            },
        )

    # ---- attack flow (game.core.flow) ------------------------------------------------------------
    @step("attack")
    def _attack(self, battle: Battle, cmd: Attack, _: Any) -> Outcome:
        uid, target = cmd.unit, cmd.target
        stats: AffStats = battle.stats(uid)
        weapon = stats.weapon(cmd.weapon)
        sight = battle.sight(uid, target)
        why = self.reaches(battle, uid, target, weapon, sight)
        if why is not None:
            raise ValueError(f"{uid} cannot attack {target} with {weapon.name}: {why}")
        option = self._attack_option(battle, uid, target, weapon, sight)
        mods = [{"source": m.source, "value": m.value, "applies_to": m.applies_to} for m in option.modifiers]
        if weapon.kind != "melee":
            tn, _ = self.missile_target(battle, uid, weapon, sight)
            total = sum(battle.dice.roll(2, 6, "missile", uid))
            hit = roll_under_succeeds(total, tn)
            battle.emit(
                "attack",
                attacker=uid,
                target=target,
                weapon=weapon.name,
                kind=weapon.kind,
                roll=total,
                target_number=tn,
                hit=hit,
                modifiers=mods,
                p_success=option.p_success,
                p_hurt=option.detail["p_hurt"],
            )
            return Call(Frame("hit", HitData(target, uid, weapon.name))) if hit else None

        if self.options.defensive:
            melee = MeleeData(uid, target, weapon.name)
            return Ask("stance", melee, Frame("attack.melee", melee))
        return self._melee(battle, uid, target, weapon, sight, option, False)

    def can_riposte(self, battle: Battle, uid: str, target: str, sight: SightFacts) -> bool:
        """Whether ``target``, winning a melee exchange against ``uid``, may strike back."""
        return (
            self.riposte
            and bool(battle.stats(target).melee_weapons())
            and sight.arc != Arc.REAR
            and any(
                self.edge_gap_yards(battle, target, uid) <= w.reach + 1e-9
                for w in battle.stats(target).melee_weapons()
            )
        )

    def stance_options(self, battle: Battle, melee: MeleeData) -> tuple[Option, ...]:
        """The melee defender's choice: fight normally, or defensively (a bonus to its total, no
        damage dealt). Each option's ``p_success`` is P(the blow does not land); ``forfeits`` the
        chance of a strike-back the stance gives up (the AI prices it as a lost action)."""
        uid, target = melee.attacker, melee.target
        weapon = battle.stats(uid).weapon(melee.weapon)
        sight = battle.sight(uid, target)
        riposte = self.can_riposte(battle, uid, target, sight)
        out = []
        given_up = 0.0  # the chance of a strike-back fighting normally
        for defensive in (False, True):
            att, _, dfn, d_mods, _ = self.melee_scores(battle, uid, target, weapon, sight, defensive)
            _, tie, lose = p_opposed(att, dfn)
            strike = lose if riposte and not defensive else 0.0
            given_up = given_up or strike
            bonus = f" (+{self.options.defensive_bonus}, deals no damage)" if defensive else ""
            label = (
                f"{'fight defensively' if defensive else 'fight normally'}{bonus}: "
                f"2d6+{dfn} vs 2d6+{att}, {100 * (tie + lose):.0f}% not hit"
            )
            out.append(
                Option(
                    Defend(target, "defensive" if defensive else "normal"),
                    label,
                    p_success=tie + lose,
                    modifiers=tuple(d_mods),
                    detail={
                        "total": dfn,
                        "p_strike_back": strike,
                        "forfeits": given_up if defensive else 0.0,
                    },
                )
            )
        return tuple(out)

    @asks("stance")
    def _ask_stance(self, battle: Battle, melee: MeleeData) -> Decision:
        return Decision(
            unit=melee.target,
            kind="defence",
            options=self.stance_options(battle, melee),
            context={"attacker": melee.attacker, "weapon": melee.weapon, "melee": True},
        )

    @step("attack.melee")
    def _melee_answered(self, battle: Battle, melee: MeleeData, choice: Any) -> Outcome:
        uid, target = melee.attacker, melee.target
        weapon = battle.stats(uid).weapon(melee.weapon)
        sight = battle.sight(uid, target)
        option = self._attack_option(battle, uid, target, weapon, sight)
        return self._melee(battle, uid, target, weapon, sight, option, choice.kind == "defensive")

    def _melee(
        self,
        battle: Battle,
        uid: str,
        target: str,
        weapon: AffWeapon,
        sight: SightFacts,
        option: Option,
        defensive: bool,
    ) -> Outcome:
        """The melee exchange: both rolls, the winner; a defender's win strikes back unless it
        fought defensively."""
        mods = [{"source": m.source, "value": m.value, "applies_to": m.applies_to} for m in option.modifiers]
        att, _, dfn, d_mods, parry = self.melee_scores(battle, uid, target, weapon, sight, defensive)
        a_total = sum(battle.dice.roll(2, 6, "melee", uid)) + att
        d_total = sum(battle.dice.roll(2, 6, "melee defence", target)) + dfn
        winner = uid if a_total > d_total else target if d_total > a_total else None
        battle.emit(
            "attack",
            attacker=uid,
            target=target,
            weapon=weapon.name,
            kind="melee",
            total=a_total,
            defender_total=d_total,
            winner=winner,
            modifiers=mods,
            p_success=option.p_success,
            p_hurt=option.detail["p_hurt"],
        )
        p_opp = p_opposed(att, dfn)
        can_riposte = parry is not None and not defensive and self.can_riposte(battle, uid, target, sight)
        battle.emit(
            "defence",
            unit=target,
            attacker=uid,
            kind="melee",
            total=d_total,
            success=winner != uid,
            modifiers=[{"source": m.source, "value": m.value, "applies_to": m.applies_to} for m in d_mods],
            p_success=p_opp[1] + p_opp[2],
            riposte=can_riposte and winner == target,
        )
        if winner == uid:
            return Call(Frame("hit", HitData(target, uid, weapon.name)))
        if winner == target and can_riposte:
            d_stats: AffStats = battle.stats(target)
            reach = [
                w
                for w in d_stats.melee_weapons()
                if self.edge_gap_yards(battle, target, uid) <= w.reach + 1e-9
            ]
            strike = max(reach, key=lambda w: (d_stats.special(w.skill), sum(w.track)))
            return Call(Frame("hit", HitData(uid, target, strike.name)))
        return None

    @step("maneuver")
    def _maneuver(self, battle: Battle, cmd: Maneuver, _: Any) -> Outcome:
        """AFF has no maneuvers (``maneuver_options`` offers none)."""
        raise ValueError(f"{self.name} has no maneuver {cmd.name!r}")

    def protection_options(self, battle: Battle, uid: str, weapon: AffWeapon) -> tuple[Option, ...]:
        """The defence decision's options: each protection with P(no damage) and E[damage]."""
        out = []
        bare = expected_damage(weapon.track, NO_PROTECTION, 0, 0)
        for p in self.protection_choices(battle, uid):
            safe = p_no_damage(weapon.track, p.track, 0, p.bonus)
            mean = expected_damage(weapon.track, p.track, 0, p.bonus)
            label = f"{p.label}: {100 * safe:.0f}% no damage, {mean:.2f} expected"
            out.append(_protection_option(uid, p, label, safe, mean, expected_harm_without={STAMINA: bare}))
        return tuple(out)

    @step("hit")
    def _hit(self, battle: Battle, hit: HitData, _: Any) -> Outcome:
        """A landed hit (a sub-flow: the attacker's hit, or the defender's riposte): the protection
        decision, then :meth:`_protected`."""
        # A decision even with one protection at hand: the log then records every protection
        # roll as a Defend command, as it does under the other rulesets.
        return Ask("defence", hit, Frame("hit.protected", hit))

    @asks("defence")
    def _ask_protection(self, battle: Battle, hit: HitData) -> Decision:
        weapon = battle.stats(hit.attacker).weapon(hit.weapon)
        return Decision(
            unit=hit.target,
            kind="defence",
            options=self.protection_options(battle, hit.target, weapon),
            context={
                "attacker": hit.attacker,
                "weapon": weapon.name,
                "weapon_track": list(weapon.track),
                "hit": True,
            },
        )

    @step("hit.protected")
    def _protected(self, battle: Battle, hit: HitData, choice: Any) -> Outcome:
        """The chosen protection: the damage and protection rolls, the damage."""
        target, attacker = hit.target, hit.attacker
        weapon = battle.stats(attacker).weapon(hit.weapon)
        chosen = next(p for p in self.protection_choices(battle, target) if p.kind == choice.kind)
        if self.ubiquitous and not self.choose_at_round_start and chosen.kind in ("armour", "dodge"):
            # first_hit: the first protection rolled binds the rest of the round
            battle.set_rules_state(self.state(battle).locked(target, battle.round, chosen.kind))
        w_roll = battle.dice.roll(1, 6, "damage", attacker)[0]
        raw = track_value(weapon.track, w_roll)
        prot = 0
        p_roll = None
        if chosen.kind != "none":
            p_roll = battle.dice.roll(1, 6, f"protection: {chosen.kind}", target)[0]
            prot = track_value(chosen.track, p_roll + chosen.bonus)
        dmg = max(0, raw - prot)
        battle.emit(
            "defence",
            unit=target,
            attacker=attacker,
            kind=chosen.kind,
            roll=p_roll,
            protection=prot,
            modifiers=[
                {"source": m.source, "value": m.value, "applies_to": m.applies_to} for m in chosen.modifiers
            ],
            p_success=p_no_damage(weapon.track, chosen.track, 0, chosen.bonus),
            success=dmg <= 0,
        )
        if dmg <= 0:
            return None
        battle.damage(
            target,
            {STAMINA: -dmg},
            source=attacker,
            weapon=weapon.name,
            weapon_roll=w_roll,
            weapon_damage=raw,
            protection=prot,
            protection_kind=chosen.kind,
        )
        if battle.health(target).tracks[STAMINA] <= 0 and not battle.health(target).out_of_action:
            battle.set_status(target, "out", True, "STAMINA 0")
        return None


__all__ = [
    "AffOptions",
    "AffRuleset",
    "AffState",
    "AffStats",
    "AffWeapon",
    "HitData",
    "RoundChoices",
    "protections",
]
