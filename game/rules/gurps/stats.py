"""GURPS stat blocks and the GURPS tables the ruleset reads (data only, no flow).

Implements the character data behind shared/rules/gurps-active-defense.txt: the
scores the text derives the active defences from (Basic Speed, encumbrance,
Enhanced Dodge, weapon and Shield/Cloak skill, a vehicle operator's skill and
Handling) plus the standard GURPS 4e data the text relies on but does not
print: the thrust/swing damage table (ST 1-20), wound modifiers by damage type,
the Size and Speed/Range table, the posture table and the encumbrance table.

A profile block (``scenarios/profiles.yaml``, key ``gurps``) looks like::

    st: 11
    dx: 11
    ht: 11
    encumbrance: 1
    dr: 2
    skills: {Broadsword: 12, Bow: 12}
    weapons:
      - {name: broadsword, skill: Broadsword, damage: sw+1 cut, reach: 1}
      - {name: bow, skill: Bow, kind: missile, damage: thr+1 imp, acc: 2,
         half_damage: 165, max_range: 220}

Weapons are single attack modes (a sword's swing and thrust would be two
entries); every melee weapon and the shield count as ready (the skirmish has
no Ready maneuver), missile weapons are slung while not shooting.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from pydantic import Field, model_validator

from components.spatial import Posture
from game.rules.base import BlockMemo, StrictModel

# ---- standard GURPS tables -------------------------------------------------------

#: Basic damage by ST (B16): ST -> ((thrust dice, adds), (swing dice, adds)).
DAMAGE_BY_ST: dict[int, tuple[tuple[int, int], tuple[int, int]]] = {
    1: ((1, -6), (1, -5)),
    2: ((1, -6), (1, -5)),
    3: ((1, -5), (1, -4)),
    4: ((1, -5), (1, -4)),
    5: ((1, -4), (1, -3)),
    6: ((1, -4), (1, -3)),
    7: ((1, -3), (1, -2)),
    8: ((1, -3), (1, -2)),
    9: ((1, -2), (1, -1)),
    10: ((1, -2), (1, 0)),
    11: ((1, -1), (1, 1)),
    12: ((1, -1), (1, 2)),
    13: ((1, 0), (2, -1)),
    14: ((1, 0), (2, 0)),
    15: ((1, 1), (2, 1)),
    16: ((1, 1), (2, 2)),
    17: ((1, 2), (3, -1)),
    18: ((1, 2), (3, 0)),
    19: ((2, -1), (3, 1)),
    20: ((2, -1), (3, 2)),
}

#: Wound modifiers by damage type (B379): injury = penetrating damage x this, rounded down.
WOUND_MULTIPLIER: dict[str, float] = {
    "cr": 1.0,
    "cut": 1.5,
    "imp": 2.0,
    "pi-": 0.5,
    "pi": 1.0,
    "pi+": 1.5,
    "pi++": 2.0,
    "burn": 1.0,
}

#: Damage types that are thrusts when the weapon gives fixed dice (imp and pi are thrusts).
THRUST_TYPES = frozenset({"imp", "pi-", "pi", "pi+", "pi++"})

#: Size and Speed/Range table (B550), linear column: (up to this many yards, modifier).
RANGE_TABLE: tuple[tuple[float, int], ...] = (
    (2, 0),
    (3, -1),
    (5, -2),
    (7, -3),
    (10, -4),
    (15, -5),
    (20, -6),
    (30, -7),
    (50, -8),
    (70, -9),
    (100, -10),
    (150, -11),
    (200, -12),
    (300, -13),
    (500, -14),
    (700, -15),
    (1000, -16),
    (1500, -17),
    (2000, -18),
    (3000, -19),
    (5000, -20),
)

#: Rapid-fire bonus to hit by RoF (B373): (RoF at least, bonus).
ROF_BONUS: tuple[tuple[int, int], ...] = ((5, 1), (9, 2), (13, 3), (17, 4), (25, 5), (50, 6), (100, 7))


@dataclass(frozen=True)
class PostureRow:
    """One row of the posture table (B551)."""

    melee_attack: int  # to the attacker's melee attacks
    defence: int  # to the unit's active defences
    target: int  # to ranged attacks against the unit
    move: float  # fraction of Move (0: cannot move; lying down is a flat 1 yard)


POSTURES: dict[Posture, PostureRow] = {
    Posture.STANDING: PostureRow(0, 0, 0, 1.0),
    Posture.CROUCHING: PostureRow(-2, 0, -2, 2 / 3),
    Posture.KNEELING: PostureRow(-2, -2, -2, 1 / 3),
    Posture.SITTING: PostureRow(-2, -2, -2, 0.0),
    Posture.CRAWLING: PostureRow(-4, -3, -2, 1 / 3),
    Posture.PRONE: PostureRow(-4, -3, -2, 0.0),
}

#: Move multiplier by encumbrance level 0-4 (B17).
ENCUMBRANCE_MOVE: tuple[float, ...] = (1.0, 0.8, 0.6, 0.4, 0.2)

#: Fencing skills (B208): better multiple parries and a +3 retreat.
FENCING_SKILLS = frozenset({"Main-Gauche", "Rapier", "Saber", "Smallsword"})

#: Unarmed skills that parry bare-handed with one hand (text: Boxing, Brawling, Judo, Karate);
#: DX may stand in.
UNARMED_PARRY_SKILLS: tuple[str, ...] = ("Brawling", "Boxing", "Judo", "Karate")

#: Unarmed skills that parry bare-handed with both hands free (text: Sumo Wrestling, Wrestling).
TWO_HANDED_PARRY_SKILLS: tuple[str, ...] = ("Sumo Wrestling", "Wrestling")

#: Skill rolled by a lying-down defender to retreat under the ``ground_retreat_roll`` option:
#: the better of DX and Acrobatics.
RETREAT_FROM_GROUND_SKILLS: tuple[str, ...] = ("Acrobatics",)

#: Unarmed skills with a +3 retreat on a parry (text: Boxing, Judo, Karate).
RETREAT_PLUS3_UNARMED = frozenset({"Boxing", "Judo", "Karate"})

#: Unarmed skills that parry weapons without the -3 and penalise a weapon's injuring parry.
JUDO_KARATE = frozenset({"Judo", "Karate"})


def range_penalty(yards: float) -> int:
    """The Size and Speed/Range modifier for a distance in yards (round up to the next row)."""
    for limit, mod in RANGE_TABLE:
        if yards <= limit + 1e-9:
            return mod
    # Beyond the table: the progression continues -1 per x1.5 / x2 alternately (~x sqrt(3)).
    extra = math.ceil(math.log(yards / RANGE_TABLE[-1][0]) / math.log(math.sqrt(3.0)) - 1e-9)
    return RANGE_TABLE[-1][1] - extra


def rof_bonus(rof: int) -> int:
    """To-hit bonus for a rapid-fire weapon (0 below RoF 5)."""
    bonus = 0
    for at_least, b in ROF_BONUS:
        if rof >= at_least:
            bonus = b
    return bonus


# ---- damage expressions -------------------------------------------------------------

_DAMAGE_RE = re.compile(
    r"^\s*(?:(?P<base>thr|sw)|(?P<dice>\d+)d)\s*(?P<adds>[+-]\s*\d+)?\s+(?P<type>\S+)\s*$"
)


@dataclass(frozen=True)
class Damage:
    """A parsed damage expression: ``base`` (thr/sw/None) or fixed ``dice``, ``adds``, ``type``."""

    base: str | None
    dice: int
    adds: int
    type: str

    def dice_adds(self, st: int) -> tuple[int, int]:
        """Dice and adds for a wielder of strength ``st``."""
        if self.base is None:
            return self.dice, self.adds
        thr, sw = DAMAGE_BY_ST[st]
        d, a = thr if self.base == "thr" else sw
        return d, a + self.adds


@lru_cache(maxsize=512)
def parse_damage(text: str) -> Damage:
    """Parse ``"sw+1 cut"``, ``"thr imp"``, ``"2d-1 cr"``...; raises ``ValueError``."""
    m = _DAMAGE_RE.match(text)
    if m is None:
        raise ValueError(f"damage {text!r} is not like 'sw+1 cut', 'thr imp' or '2d-1 pi'")
    dtype = m.group("type")
    if dtype not in WOUND_MULTIPLIER:
        raise ValueError(f"damage type {dtype!r} is not one of {', '.join(WOUND_MULTIPLIER)}")
    adds = int(m.group("adds").replace(" ", "")) if m.group("adds") else 0
    if m.group("base"):
        return Damage(m.group("base"), 0, adds, dtype)
    dice = int(m.group("dice"))
    if dice < 1:
        raise ValueError(f"damage {text!r} needs at least 1 die")
    return Damage(None, dice, adds, dtype)


# ---- stat models ---------------------------------------------------------------------


class GurpsWeapon(StrictModel):
    """One attack mode of a weapon.

    ``kind``: ``melee``, ``missile`` (bows, guns: ``projectile`` says muscle-powered,
    bullet or beam) or ``thrown``. ``reach`` is the melee reach in yards (0 = C).
    ``parry`` is the weapon's parry bonus, ``None`` for a weapon that cannot parry.
    Ranges are yards. ``weight`` (lb) matters for parrying it when thrown.
    """

    name: str = Field(min_length=1)
    skill: str = Field(min_length=1)
    kind: Literal["melee", "missile", "thrown"] = "melee"
    damage: str
    reach: int = Field(default=1, ge=0, le=7)
    parry: int | None = 0
    unbalanced: bool = False
    hands: int = Field(default=1, ge=1, le=2)
    off_hand: bool = False
    unarmed: bool = False
    thrust: bool | None = None  # None: from the damage (thr or impaling/piercing = thrust)
    acc: int = Field(default=0, ge=0)
    half_damage: float | None = Field(default=None, gt=0)
    max_range: float | None = Field(default=None, gt=0)
    rof: int = Field(default=1, ge=1)
    recoil: int = Field(default=1, ge=1)
    projectile: Literal["muscle", "bullet", "beam"] = "muscle"
    weight: float = Field(default=2.0, ge=0)

    @model_validator(mode="after")
    def _check(self) -> GurpsWeapon:
        parse_damage(self.damage)
        if self.kind != "melee" and self.max_range is None:
            raise ValueError(f"{self.kind} weapon {self.name!r} needs max_range (yards)")
        if self.kind == "melee" and (self.max_range is not None or self.half_damage is not None):
            raise ValueError(f"melee weapon {self.name!r} takes reach, not ranges")
        return self

    @property
    def dmg(self) -> Damage:
        return parse_damage(self.damage)

    @property
    def is_thrust(self) -> bool:
        if self.thrust is not None:
            return self.thrust
        d = self.dmg
        return d.base == "thr" if d.base is not None else d.type in THRUST_TYPES

    @property
    def fencing(self) -> bool:
        return self.skill in FENCING_SKILLS

    @property
    def ranged(self) -> bool:
        return self.kind != "melee"


class GurpsShield(StrictModel):
    """A ready shield or cloak: blocks with ``skill`` (Shield or Cloak); ``db`` its Defence Bonus."""

    name: str = "shield"
    skill: str = "Shield"
    db: int = Field(default=0, ge=0, le=4)


class GurpsStats(StrictModel):
    """A GURPS character: attributes, skills, advantages, gear.

    ``hp``, ``basic_speed`` and ``basic_move`` default to ST, (DX+HT)/4 and
    floor(Basic Speed). ``vehicle_skill``/``vehicle_handling`` make the unit the
    operator of an evasively manoeuvring vehicle (Vehicular Dodge).
    """

    st: int = Field(default=10, ge=1, le=20)
    dx: int = Field(default=10, ge=1, le=30)
    iq: int = Field(default=10, ge=1, le=30)
    ht: int = Field(default=10, ge=1, le=30)
    hp: int | None = Field(default=None, ge=1)
    basic_speed: float | None = Field(default=None, gt=0)
    basic_move: int | None = Field(default=None, ge=0)
    encumbrance: int = Field(default=0, ge=0, le=4)
    dr: int = Field(default=0, ge=0)
    skills: dict[str, int] = Field(default_factory=dict)
    enhanced_dodge: int = Field(default=0, ge=0, le=3)
    trained_by_a_master: bool = False
    weapon_master: bool = False
    ambidexterity: bool = False
    shield: GurpsShield | None = None
    vehicle_skill: int | None = Field(default=None, ge=0)
    vehicle_handling: int = 0
    weapons: tuple[GurpsWeapon, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> GurpsStats:
        names = [w.name for w in self.weapons]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"weapon names must be unique: {', '.join(dupes)}")
        for w in self.weapons:
            if w.skill not in self.skills:
                raise ValueError(f"weapon {w.name!r} uses skill {w.skill!r}, which is not in skills")
        if self.shield is not None and self.shield.skill not in self.skills:
            raise ValueError(f"shield uses skill {self.shield.skill!r}, which is not in skills")
        return self

    # ---- derived scores ----------------------------------------------------------------
    @property
    def hp_max(self) -> int:
        return self.hp if self.hp is not None else self.st

    @property
    def speed(self) -> float:
        return self.basic_speed if self.basic_speed is not None else (self.dx + self.ht) / 4.0

    @property
    def move(self) -> int:
        """Basic Move (yards per second)."""
        return self.basic_move if self.basic_move is not None else math.floor(self.speed)

    @property
    def encumbered_move(self) -> int:
        """Move at the unit's encumbrance level (B17: rounded down, at least 1 if Basic Move > 0)."""
        if self.move == 0:
            return 0
        return max(1, math.floor(self.move * ENCUMBRANCE_MOVE[self.encumbrance]))

    @property
    def dodge(self) -> int:
        """Dodge score before situational modifiers (Vehicular Dodge for a vehicle operator), by
        the text's numbers (:meth:`dodge_score` takes them as arguments)."""
        return self.dodge_score()

    def dodge_score(self, base: int = 3, vehicle_divisor: int = 2, vehicular: bool = True) -> int:
        """Dodge = Basic Speed + ``base`` - encumbrance + Enhanced Dodge; a vehicle operator
        (``vehicular``: the Vehicular Dodge rule in force) dodges with its skill divided by
        ``vehicle_divisor`` plus Handling instead."""
        if vehicular and self.vehicle_skill is not None:
            # the vehicle dodges: the operator's Enhanced Dodge does not apply
            return self.vehicle_skill // vehicle_divisor + self.vehicle_handling
        return math.floor(self.speed) + base - self.encumbrance + self.enhanced_dodge

    def skill(self, name: str) -> int | None:
        return self.skills.get(name)

    def weapon(self, name: str) -> GurpsWeapon:
        for w in self.weapons:
            if w.name == name:
                return w
        raise KeyError(name)

    def block_score(self, base: int = 3) -> int | None:
        """Block = ``base`` (3) + half Shield/Cloak skill (None without a shield)."""
        if self.shield is None:
            return None
        return base + self.skills[self.shield.skill] // 2

    def bare_hand_parry(self, base: int = 3) -> list[tuple[str, int]]:
        """(skill used, Parry) for each way to parry bare-handed (Parry = ``base`` (3) + half the
        skill): DX and the one-handed unarmed skills with a hand free, Sumo Wrestling and
        Wrestling only with both hands free."""
        out = [("DX", base + self.dx // 2)]
        usable = UNARMED_PARRY_SKILLS + (TWO_HANDED_PARRY_SKILLS if self.hands_in_use() == 0 else ())
        for s in usable:
            if s in self.skills:
                out.append((s, base + self.skills[s] // 2))
        return out

    def ground_retreat_skill(self) -> int:
        """Skill rolled to retreat while lying down: the better of DX and Acrobatics."""
        return max([self.dx, *(self.skills[s] for s in RETREAT_FROM_GROUND_SKILLS if s in self.skills)])

    def hands_in_use(self) -> int:
        """Hands holding ready melee weapons and the shield (missile weapons are slung)."""
        used = sum(w.hands for w in self.weapons if w.kind == "melee" and not w.unarmed)
        return used + (1 if self.shield is not None else 0)

    @property
    def has_free_hand(self) -> bool:
        return self.hands_in_use() < 2


@dataclass(frozen=True, slots=True)
class Derived:
    """The derived scores of one stat block that the rules read per option priced."""

    dodge: int
    encumbered_move: int
    has_free_hand: bool
    bare_hand_parry: tuple[tuple[str, int], ...]
    block: int | None
    ground_retreat_skill: int


#: Derived scores per stat block and rule numbers: every defence_choices call (the AI prices each
#: attack option with one) and every move cost re-read them, and a frozen block never changes them.
_DERIVED = BlockMemo()

#: The rule numbers the derived scores depend on: (dodge base, vehicle skill divisor, Vehicular
#: Dodge in force, parry base, block base); the text's by default.
ScoreRules = tuple[int, int, bool, int, int]
TEXT_SCORES: ScoreRules = (3, 2, True, 3, 3)


def derived(stats: GurpsStats, rules: ScoreRules = TEXT_SCORES) -> Derived:
    """The derived scores of ``stats`` under the rule numbers ``rules``, worked out once."""
    dodge_base, vehicle_divisor, vehicular, parry_base, block_base = rules
    return _DERIVED.get(
        stats,
        rules,
        lambda: Derived(
            stats.dodge_score(dodge_base, vehicle_divisor, vehicular),
            stats.encumbered_move,
            stats.has_free_hand,
            tuple(stats.bare_hand_parry(parry_base)),
            stats.block_score(block_base),
            stats.ground_retreat_skill(),
        ),
    )
