"""Cortex ruleset: step dice, actions with a multiple-action penalty, rolled Difficulties.

Implements shared/rules/cortex-actions-defense-damage.txt (initiative, actions,
movement, innate/block/dodge/all-out defence, cover, poor visibility, range,
armour, damage, passing out, shock, seriously wounded, dying). Numbers and
procedures from the text are named constants below; docs/rulesets/cortex.md
lists them with every decision.

From the text:
- Traits are step dice (``game.dice.cortex``); a roll is attribute + skill.
- Initiative: Agility + Alertness each round, highest first.
- One action a turn; every extra action is a cumulative -1 skill step.
- Movement: 15 ft a turn free, hustle to 30 ft for 1 action, run 30 ft +
  an Agility + Athletics/Running roll in feet for 2 actions.
- Defence sets the Difficulty the attack must meet: innate (an unskilled
  Agility roll if the target sees it coming and is moving around, else 3),
  dodge (Agility + Athletics/Dodge), block (Agility + skill, opposed), all-out
  defence (+2 steps to dodge and block). Cover adds +4/+8/+12/+16 (light,
  medium, heavy, near-total); dim light/fog +4, dark/thick fog +8; in pitch
  black every potential target rolls an innate defence and the lowest is hit.
- Range: point-blank +1 step, short 0, medium -2, long -4.
- Damage: (attack - Difficulty) split stun/wounds, plus the weapon's damage;
  armour reduces wounds. Stun + wounds > life points: Vitality + Willpower at
  Difficulty 7 to stay conscious, again each turn the unit acts at +4 a turn.
  Stun taken while unconscious is shock. Wounds >= half life points: -2 steps
  to every action. Wounds >= life points: dying, Vitality + Willpower at
  Difficulty 3, again every minute at +4 each; a failure kills.

Where the text is silent (standard Cortex Classic / Serenity practice):
- Life points = Vitality + Willpower die maxima. Below d2 a trait adds no die.
  Step penalties come off the skill die first, then the attribute die; bonuses
  raise the skill die. A roll meets the Difficulty on a tie (attacks hit on a
  tie); a block is the Difficulty the attack must meet, so ties go to the
  attacker there too.
- A Cortex "turn" is the engine's round (every unit acts once, actions refresh).
  Actions: 3 a round (AP = actions). The multiple-action penalty applies to
  all actions of the round, so a unit **declares** its number of actions N
  with its first action of the round: a free ``declare:N`` maneuver on its
  turn, or an active defence that declares N when it is attacked first. The
  AP beyond N are forfeit; every action of the round is at -(N-1) steps.
  Before declaring, a unit may only face and walk its free 15 ft. Attacks,
  posture changes, hustling and running are actions; facing and the free 15 ft
  are not. Several attacks a round are allowed, each an action. Option
  ``prospective_penalty``: the old reading, no declaration, each action at -1
  step per action already taken this round.
- Movement adds up over a turn's moves; the tier the total reaches is paid
  once (a later move only pays the difference); a path within
  ``TIER_TOLERANCE`` of a tier's limit is in it. The run roll (Agility +
  Athletics/Running, in feet) is made once the unit's actions are declared on
  its turn, and only if it can afford a run, so pricing a move never rolls; it
  carries the round's penalty.
- Active defences (dodge, block) are reactions costing one declared action
  of the current round; with no action left only the innate defence applies.
  They need the attacker outside the defender's rear arc ("sees it coming").
  Block works against melee only, with the defender's best melee skill.
  All-out defence is the alternative declaration (only while undeclared): it
  spends every action; until the unit's next turn its dodges and blocks are
  free, at +2 steps and without the multiple-action penalty.
- The attack is rolled first; the defender sees the total and then chooses
  (each defence option carries the exact chance it makes the attack miss).
- "Moving around": on its feet (not sitting, crawling or prone). A target lying
  down counts as at least light cover against ranged and thrown attacks (the
  text's "prone" light cover); the geometric cover level applies otherwise.
  Total cover (no line of sight) allows no attack.
- Damage types: W weapons add their die to wounds, S weapons make all damage
  stun, B weapons add their die before the split. Splits give the odd point
  to stun. The weapon's damage rating is a die expression (normally one step
  die) rolled on a hit, as Cortex weapon damage dice are. Armour removes wound points only.
- Reach (melee) is measured base edge to base edge, in yards
  (``Weapon.reach``, default 1). Ranged bands use the centre-to-centre
  distance and the weapon's range increment: point-blank within 3 yards,
  short within 1 increment, medium within 2, long within 4; beyond that no
  attack.
- Pitch black (``visibility: pitch_black``): potential targets are the chosen
  target and every other unit within 2 yards of it (base edge to base edge)
  the weapon could reach; each rolls unskilled Agility (its innate defence);
  the lowest (ties broken by a die roll) is hit if the attack meets that roll
  plus its cover. Nobody can actively defend in the dark.
- Passing out: the first roll comes when stun + wounds first exceed life
  points; then one roll in each round the unit takes an action, with its
  first action (the declaration or all-out defence), at +4 per earlier roll;
  failing it on an active defence leaves the attack against Difficulty 3.
  Further damage while already reeling adds no extra roll.
- Dying and unconsciousness take the unit out of action. A minute is 20
  rounds (a Cortex turn is about 3 seconds): a dying unit rolls when it
  starts dying and again every 20 rounds, +4 each time. The hourly shock
  recovery roll is outside a battle's span and is not modelled.
- Seriously wounded applies to actions (attacks, active defences, runs), not
  to the innate defence, initiative or Vitality + Willpower rolls.
- Initiative ties: higher Agility, then higher Alertness, then a roll-off of
  Agility + Alertness among the still-tied units (repeated until they differ).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from components.sight import Arc, CoverLevel, SightFacts
from components.spatial import LYING_DOWN, Posture
from components.state import Health
from game.core.battle import Battle, Flow
from game.core.commands import Attack, Decision, Defend, Maneuver, Modifier, Option
from game.dice.cortex import (
    Pool,
    format_pool,
    hit_damage,
    lowest_value_pmf,
    p_meet_or_beat,
    parse_pool,
    parse_step,
    split_damage,
    step_dice,
    trait_pool,
)
from game.rules import mechanics as mech
from game.rules.base import BlockMemo, Ruleset, StrictModel, UnitSetup
from game.rules.limits import Reaction
from game.rules.sheet import HarmLeft, RangeBand, UnitSheet, WeaponLine, in_inches
from game.rules.unit_state import own_record

# ---- rule data (text) ----------------------------------------------------------------------------

#: Difficulty when the target does not see it coming or is not moving around.
STATIC_DIFFICULTY = 3
#: Step penalty per action beyond the first in a turn.
EXTRA_ACTION_STEPS = -1
#: All-out defence bonus to dodge and block, in steps.
ALL_OUT_DEFENCE_STEPS = 2
#: Difficulty added by cover (from the cover model's level).
COVER_DIFFICULTY: dict[CoverLevel, int] = {
    CoverLevel.NONE: 0,
    CoverLevel.LIGHT: 4,
    CoverLevel.MEDIUM: 8,
    CoverLevel.HEAVY: 12,
    CoverLevel.NEAR_TOTAL: 16,
}
#: Difficulty added by poor visibility (``pitch_black`` has its own procedure).
VISIBILITY_DIFFICULTY: dict[str, int] = {"clear": 0, "dim": 4, "dark": 8}
#: Skill steps by range band.
RANGE_STEPS: dict[str, int] = {"point-blank": 1, "short": 0, "medium": -2, "long": -4}
#: Free movement a turn, and the hustle limit for one action, in feet.
BASE_MOVE_FEET = 15.0
HUSTLE_FEET = 30.0
#: Actions a hustle and a run cost.
HUSTLE_ACTIONS = 1
RUN_ACTIONS = 2
#: Passing out: Difficulty of the first roll and the increase per later roll.
CONSCIOUS_DIFFICULTY = 7
CONSCIOUS_STEP = 4
#: Dying: Difficulty of the first roll and the increase per later roll.
DYING_DIFFICULTY = 3
DYING_STEP = 4
#: Seriously wounded penalty, in steps.
SERIOUS_WOUND_STEPS = -2

# ---- decisions where the text is silent (see the module docstring) -------------------------------

#: Actions (AP) a turn.
MAX_ACTIONS = 3
#: Movement tiers: a path within this many inches of a tier's limit is in the tier (commands carry
#: points rounded to 6 decimals, so a path aimed at a limit may end up to ~7e-7 in beyond it).
TIER_TOLERANCE = 1e-6
#: Maneuvers: declaring the round's actions (``declare:N``) and all-out defence.
DECLARE = "declare"
ALL_OUT_DEFENCE = "all_out_defence"
#: Action costs of the engine's turn commands (facing is free).
ACTION_COSTS: dict[str, int] = {"attack": 1, "posture": 1, "face": 0}
#: Rounds in a "minute" (a Cortex turn is about three seconds).
ROUNDS_PER_MINUTE = 20
#: Range bands: point-blank within this many yards; otherwise by range increments.
POINT_BLANK_YARDS = 3.0
RANGE_BAND_INCREMENTS: tuple[tuple[str, float], ...] = (("short", 1.0), ("medium", 2.0), ("long", 4.0))
#: Pitch black: other units this close (yards, base edge to base edge) to the target may be hit.
PITCH_BLACK_SPREAD_YARDS = 2.0
#: Feet per yard.
FEET_PER_YARD = 3.0
#: Skill used to block without a melee weapon.
UNARMED_SKILL = "unarmed_combat"

Attribute = Literal["agility", "strength", "vitality", "alertness", "intelligence", "willpower"]

#: Status flags this ruleset sets.
REELING = "reeling"  # over life points and still conscious
DYING = "dying"
SERIOUSLY_WOUNDED = "seriously_wounded"


# ---- stats ---------------------------------------------------------------------------------------


def _step_text(v: Any) -> str:
    parse_step(str(v))
    return str(v)


class CortexWeapon(StrictModel):
    """A weapon: the skill it uses (``general`` or ``general/specialty``) and its damage.

    ``damage`` is a step die rolled on a hit; ``reach`` (melee) and
    ``range_increment`` (ranged, thrown) are yards.
    """

    name: str
    kind: Literal["melee", "ranged", "thrown"]
    skill: str
    attribute: Attribute = "agility"
    damage: str
    damage_type: Literal["W", "S", "B"]
    reach: float = Field(default=1.0, ge=0.0)
    range_increment: float | None = Field(default=None, gt=0.0)

    @field_validator("damage")
    @classmethod
    def _damage_die(cls, v: str) -> str:
        parse_pool(v)
        return v

    @model_validator(mode="after")
    def _check(self) -> CortexWeapon:
        if self.kind != "melee" and self.range_increment is None:
            raise ValueError(f"{self.kind} weapon {self.name!r} needs range_increment (yards)")
        return self

    @property
    def damage_dice(self) -> Pool:
        return parse_pool(self.damage)


class CortexStats(StrictModel):
    """A Cortex stat block: six attribute dice, skill dice, armour and weapons."""

    agility: str
    strength: str
    vitality: str
    alertness: str
    intelligence: str
    willpower: str
    skills: dict[str, str] = Field(default_factory=dict)
    armour: int = Field(default=0, ge=0)
    weapons: tuple[CortexWeapon, ...] = Field(min_length=1)

    @field_validator("agility", "strength", "vitality", "alertness", "intelligence", "willpower")
    @classmethod
    def _attribute_die(cls, v: str) -> str:
        if parse_step(str(v)) < 1:
            raise ValueError("an attribute is at least d2")
        return str(v)

    @field_validator("skills")
    @classmethod
    def _skill_dice(cls, v: dict[str, str]) -> dict[str, str]:
        for name, die in v.items():
            if not name or name.count("/") > 1:
                raise ValueError(f"skill name {name!r}: write general or general/specialty")
            _step_text(die)
        return v

    @model_validator(mode="after")
    def _unique_weapons(self) -> CortexStats:
        names = [w.name for w in self.weapons]
        if len(set(names)) != len(names):
            raise ValueError("weapon names must be unique")
        return self

    def attr(self, name: str) -> int:
        """Step of an attribute."""
        return _ATTR_STEPS.get(self, name, lambda: parse_step(getattr(self, name)))

    def skill(self, name: str) -> int:
        """Step of ``general/specialty`` (the better of the specialty and its general skill)."""

        def step() -> int:
            general = name.split("/")[0]
            return max((parse_step(self.skills[k]) for k in (name, general) if k in self.skills), default=0)

        return _SKILL_STEPS.get(self, name, step)

    def weapon(self, name: str) -> CortexWeapon:
        for w in self.weapons:
            if w.name == name:
                return w
        raise KeyError(name)

    @property
    def life_points(self) -> int:
        return sum(step_dice(self.attr("vitality"))) + sum(step_dice(self.attr("willpower")))

    def block_skill(self) -> int:
        """Best melee skill step for a block (unarmed combat without a melee weapon)."""
        melee = [self.skill(w.skill) for w in self.weapons if w.kind == "melee"]
        return max([*melee, self.skill(UNARMED_SKILL)])


#: Trait steps per stat block: every attack option and defence of every decision reads them
#: again, and a frozen block never changes them.
_ATTR_STEPS = BlockMemo()
_SKILL_STEPS = BlockMemo()

TROOPER = CortexStats(
    agility="d8",
    strength="d6",
    vitality="d6",
    alertness="d6",
    intelligence="d6",
    willpower="d6",
    skills={"melee_weapons": "d6", "ranged_weapons": "d4", "athletics": "d4"},
    armour=2,
    weapons=(
        CortexWeapon(
            name="short sword", kind="melee", skill="melee_weapons/swords", damage="d4", damage_type="W"
        ),
        CortexWeapon(
            name="crossbow",
            kind="ranged",
            skill="ranged_weapons/crossbows",
            damage="d6",
            damage_type="W",
            range_increment=20,
        ),
    ),
)


class CortexOptions(StrictModel):
    """``visibility``: clear, dim (or light fog), dark (or thick fog), pitch_black;
    ``prospective_penalty``: the old reading of the multiple-action penalty."""

    visibility: Literal["clear", "dim", "dark", "pitch_black"] = Field(
        default="clear", description="dim = dim light or light fog, dark = darkness or thick fog"
    )
    prospective_penalty: bool = Field(
        default=False,
        description="no declaration: each action is at -1 step per action already taken this round "
        "(the text: every action of the turn carries the penalty of all of them)",
    )


# ---- per-battle state ----------------------------------------------------------------------------


@dataclass
class _Track:
    """Rolls owed by units over life points or dying."""

    conscious_rolls: dict[str, int] = field(default_factory=dict)  # rolls made so far while reeling
    dying_since: dict[str, int] = field(default_factory=dict)  # round dying started
    dying_rolls: dict[str, int] = field(default_factory=dict)
    declared: dict[str, tuple[int, int]] = field(default_factory=dict)  # unit -> (round, actions)
    turn_round: dict[str, int] = field(default_factory=dict)  # unit -> round of its last turn start


@dataclass(slots=True)
class CortexTurn:
    """A unit's movement this turn (kept on its ``TurnState``, see game.rules.unit_state)."""

    run_feet: float | None = None  # the run distance rolled at the turn's start
    moved: float = 0.0  # inches of Move commands this turn (steps and reactions are free)
    move_paid: int = 0  # actions paid for movement this turn


@dataclass(slots=True)
class CortexDefence:
    """A unit's defence since its turn began (kept on its ``DefenceState``)."""

    all_out_defence: bool = False  # chose All-Out Defence: free dodges and blocks at +2 steps


def _turn(battle: Battle, uid: str) -> CortexTurn:
    return own_record(battle.turn(uid), CortexTurn)


def _defence(battle: Battle, uid: str) -> CortexDefence:
    return own_record(battle.defence(uid), CortexDefence)


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


class CortexRuleset(Ruleset):
    """Cortex: step dice, multi-action penalty, rolled Difficulties, stun and wounds."""

    name: ClassVar[str] = "cortex"
    source: ClassVar[str] = "cortex-actions-defense-damage.txt"
    Stats: ClassVar[type[StrictModel]] = CortexStats
    Options: ClassVar[type[StrictModel]] = CortexOptions
    # A unit declares its actions once a round (unless prospective_penalty: no declarations).
    reaction_limits: ClassVar[tuple[Reaction, ...]] = (
        Reaction(
            "actions declaration",
            lambda e: e.get("type") == "actions_declared",
            "round",
            applies=lambda options: not options.get("prospective_penalty"),
        ),
    )

    # ---- mechanics: what batch results count per side (game/rules/mechanics.py) ----------------
    mechanics: ClassVar[tuple[mech.Mechanic, ...]] = (
        mech.ATTACKS,
        mech.Mechanic(
            "multi_action_turns",
            "turns in which the unit took two or more actions (forfeits and all-out defence aside)",
            mech.turns(
                "ap",
                amount=lambda e: e["spent"],
                at_least=2,
                reason=lambda r: r != "all-out defence" and not str(r).startswith("declared"),
            ),
        ),
        mech.Mechanic(
            "multi_action_declarations",
            "rounds the unit declared two or more actions (-1 step to all of them per extra one)",
            mech.event("actions_declared", actions=lambda n: isinstance(n, int) and n >= 2),
        ),
        mech.Mechanic(
            "declared_in_defence",
            "declarations made by an active defence, attacked before the unit's turn",
            mech.event("actions_declared", reason="defence"),
        ),
        mech.Mechanic(
            "multi_action_penalties",
            "attack and defence rolls at the multiple-action step penalty",
            mech.combined(
                mech.event("attack", credit="attacker", modifiers=mech.has_modifier("multiple actions")),
                mech.event("defence", modifiers=mech.has_modifier("multiple actions")),
            ),
        ),
        mech.Mechanic(
            "hustles",
            "turns moving beyond 15 ft up to 30 ft (hustle: 1 action)",
            mech.turns(
                "move", amount=lambda e: e.get("ap", 0), at_least=HUSTLE_ACTIONS, at_most=HUSTLE_ACTIONS
            ),
        ),
        mech.Mechanic(
            "runs",
            "turns moving beyond 30 ft (run: 2 actions)",
            mech.turns("move", amount=lambda e: e.get("ap", 0), at_least=RUN_ACTIONS),
        ),
        mech.Mechanic(
            "range_point_blank",
            "attacks at point-blank range (+1 step), by the attacker",
            mech.event("attack", credit="attacker", modifiers=mech.has_modifier("range: point-blank")),
        ),
        mech.Mechanic(
            "range_medium",
            "attacks at medium range (-2 steps), by the attacker",
            mech.event("attack", credit="attacker", modifiers=mech.has_modifier("range: medium")),
        ),
        mech.Mechanic(
            "range_long",
            "attacks at long range (-4 steps), by the attacker",
            mech.event("attack", credit="attacker", modifiers=mech.has_modifier("range: long")),
        ),
        mech.Mechanic(
            "cover_light",
            "attacks on a target in light cover or lying down (+4), by the target",
            mech.event(
                "attack", credit="target", modifiers=mech.has_modifier("cover: light", "cover: lying down")
            ),
        ),
        mech.Mechanic(
            "cover_medium",
            "attacks on a target in medium cover (+8), by the target",
            mech.event("attack", credit="target", modifiers=mech.has_modifier("cover: medium")),
        ),
        mech.Mechanic(
            "cover_heavy",
            "attacks on a target in heavy cover (+12), by the target",
            mech.event("attack", credit="target", modifiers=mech.has_modifier("cover: heavy")),
        ),
        mech.Mechanic(
            "cover_near_total",
            "attacks on a target in near-total cover (+16), by the target",
            mech.event("attack", credit="target", modifiers=mech.has_modifier("cover: near-total")),
        ),
        mech.Mechanic(
            "poor_visibility_attacks",
            "attacks in dim light or fog (+4/+8 Difficulty), by the attacker",
            mech.event("attack", credit="attacker", modifiers=mech.has_modifier(pattern=r"visibility: .*")),
        ),
        mech.Mechanic(
            "pitch_black_attacks",
            "attacks in pitch black (the lowest innate roll nearby is hit)",
            mech.event("defence", credit="attacker", kind="pitch_black"),
        ),
        mech.Mechanic(
            "innate_defences",
            "attacks met by the innate defence (unskilled Agility roll), by the target",
            mech.event("defence", kind="none", dice=mech.present),
        ),
        mech.Mechanic(
            "static_defences",
            "attacks at Difficulty 3 (rear attack, or not moving around), by the target",
            mech.event("defence", kind="none", dice=None),
        ),
        mech.DODGES,
        mech.BLOCKS,
        mech.Mechanic(
            "defences_made",
            "dodges and blocks that made the attack miss, by the defender",
            mech.event("defence", kind={"dodge", "block"}, success=True),
        ),
        mech.Mechanic(
            "all_out_defences",
            "all-out defence maneuvers (+2 steps, free defences)",
            mech.event("maneuver", name="all_out_defence"),
        ),
        mech.Mechanic(
            "armoured_hits",
            "hits on a target whose armour reduces Wound damage, by the target",
            mech.event("damage", armour=lambda a: isinstance(a, int) and a > 0),
        ),
        mech.Mechanic(
            "stun_hits",
            "hits dealing Stun, by the unit hit",
            mech.event("damage", deltas=mech.field_above("stun")),
        ),
        mech.Mechanic(
            "wound_hits",
            "hits dealing Wounds, by the unit hit",
            mech.event("damage", deltas=mech.field_above("wounds")),
        ),
        mech.Mechanic(
            "shock_hits",
            "Stun taken while unconscious (Shock Points), by the unit hit",
            mech.event("damage", deltas=mech.field_above("shock")),
        ),
        mech.Mechanic(
            "seriously_wounded",
            "units becoming seriously wounded (-2 steps)",
            mech.event("status", flag=SERIOUSLY_WOUNDED, on=True),
        ),
        mech.Mechanic(
            "conscious_rolls",
            "Vitality + Willpower rolls to stay conscious",
            mech.event("check", kind="stay conscious"),
        ),
        mech.Mechanic("passed_out", "units passing out", mech.event("status", flag="unconscious", on=True)),
        mech.Mechanic(
            "dying",
            "units starting to die (Wounds >= Life Points)",
            mech.event("status", flag=DYING, on=True),
        ),
        mech.Mechanic("deaths", "units dead of their wounds", mech.event("status", flag="dead", on=True)),
    )
    # ---- end of mechanics ----------------------------------------------------------------------

    @property
    def visibility(self) -> str:
        return str(getattr(self.options, "visibility", "clear"))

    @property
    def prospective(self) -> bool:
        return bool(getattr(self.options, "prospective_penalty", False))

    def _track(self, battle: Battle) -> _Track:
        return self.battle_state(battle, _Track)

    # ---- set-up ----------------------------------------------------------------------------------
    @classmethod
    def default_stats(cls) -> CortexStats:
        return TROOPER

    def setup_unit(self, stats: Any) -> UnitSetup:
        lp = stats.life_points
        return UnitSetup(
            Health({"stun": 0, "wounds": 0, "shock": 0}, {"stun": lp, "wounds": lp, "shock": lp}), MAX_ACTIONS
        )

    # ---- rounds and turns ------------------------------------------------------------------------
    def initiative(self, battle: Battle, units: Sequence[str]) -> list[str]:
        keys: dict[str, list[int]] = {}
        for u in units:
            s = battle.stats(u)
            keys[u] = [
                self._roll_total(battle, self._init_pool(s), "initiative", u),
                s.attr("agility"),
                s.attr("alertness"),
            ]
        # Roll-offs among units still tied on every key, until none are.
        while True:
            groups: dict[tuple[int, ...], list[str]] = {}
            for u in units:
                groups.setdefault(tuple(keys[u]), []).append(u)
            tied = [g for g in groups.values() if len(g) > 1]
            if not tied:
                break
            for g in tied:
                for u in g:
                    keys[u].append(
                        self._roll_total(battle, self._init_pool(battle.stats(u)), "initiative roll-off", u)
                    )
        return sorted(units, key=lambda u: [-k for k in keys[u]])

    @staticmethod
    def _init_pool(stats: CortexStats) -> Pool:
        return step_dice(stats.attr("agility")) + step_dice(stats.attr("alertness"))

    @staticmethod
    def _roll(battle: Battle, pool: Pool, purpose: str, uid: str | None) -> list[int]:
        faces: list[int] = []
        for sides in pool:
            faces.extend(battle.dice.roll(1, sides, purpose, uid))
        return faces

    def _roll_total(self, battle: Battle, pool: Pool, purpose: str, uid: str | None) -> int:
        return sum(self._roll(battle, pool, purpose, uid))

    def start_round(self, battle: Battle) -> None:
        track = self._track(battle)
        for uid, since in sorted(track.dying_since.items()):
            h = battle.health(uid)
            if "dead" in h.status or DYING not in h.status:
                continue
            elapsed = battle.round - since
            if elapsed > 0 and elapsed % ROUNDS_PER_MINUTE == 0:
                self._dying_roll(battle, uid)

    def start_turn(self, battle: Battle, uid: str) -> bool:
        if battle.health(uid).out_of_action:
            return False
        self._track(battle).turn_round[uid] = battle.round
        if self.prospective:
            if REELING in battle.health(uid).status and not self._conscious_roll(battle, uid):
                return False
            self._roll_run(battle, uid)
        elif self.declared(battle, uid) is not None:
            self._roll_run(battle, uid)  # declared already (by an active defence this round)
        return True

    def _roll_run(self, battle: Battle, uid: str) -> None:
        """The run distance of this turn (30 ft + Agility + Athletics/Running, in feet), rolled
        up front so that pricing a move (a query the engine repeats) never rolls dice; only when
        a run is affordable (two actions), except under ``prospective_penalty`` (always)."""
        if not self.prospective and battle.ap(uid).current < RUN_ACTIONS:
            return
        pool = self._run_pool(battle, uid)
        feet = HUSTLE_FEET + self._roll_total(battle, pool, "run distance", uid)
        _turn(battle, uid).run_feet = feet

    # ---- declaring the round's actions ----------------------------------------------------------
    def declared(self, battle: Battle, uid: str) -> int | None:
        """The actions ``uid`` declared this round (0: all-out defence), None if not yet."""
        got = self._track(battle).declared.get(uid)
        return got[1] if got is not None and got[0] == battle.round else None

    def can_act(self, battle: Battle, uid: str) -> bool:
        """Whether ``uid`` may spend actions now: declared, or under ``prospective_penalty``."""
        return self.prospective or self.declared(battle, uid) is not None

    def _acting(self, battle: Battle, uid: str) -> bool:
        """The unit takes its first action of the round: a reeling unit rolls to stay conscious
        (the text: again each turn it takes any action). False if it passes out."""
        if REELING in battle.health(uid).status and "unconscious" not in battle.health(uid).status:
            return self._conscious_roll(battle, uid)
        return True

    def declare(self, battle: Battle, uid: str, actions: int, reason: str) -> bool:
        """Commit ``uid`` to ``actions`` actions this round (the rest of its AP is forfeit), each
        at the multiple-action penalty of them all. False if it passed out instead."""
        if self.declared(battle, uid) is not None:
            raise ValueError(f"{uid} has declared its actions this round already")
        ap = battle.ap(uid).current
        if not 1 <= actions <= ap:
            raise ValueError(f"{uid} can declare 1 to {ap} actions, not {actions}")
        track = self._track(battle)
        if not self._acting(battle, uid):
            track.declared[uid] = (battle.round, 0)
            return False
        battle.spend_ap(uid, ap - actions, f"declared {actions} actions")
        track.declared[uid] = (battle.round, actions)
        battle.emit(
            "actions_declared",
            unit=uid,
            actions=actions,
            steps=EXTRA_ACTION_STEPS * (actions - 1),
            forfeited=ap - actions,
            reason=reason,
        )
        if battle.active_unit() == uid:
            self._roll_run(battle, uid)
        return True

    def forfeits(self, battle: Battle, uid: str, actions: int) -> int:
        """Actions of its own turn still to come this round that declaring ``actions`` gives up."""
        if self._track(battle).turn_round.get(uid) == battle.round:
            return 0  # its turn is past: the rest of its actions only serve defences
        return max(0, battle.ap(uid).current - actions)

    # ---- movement --------------------------------------------------------------------------------
    def _yards(self, battle: Battle, inches: float) -> float:
        return inches * battle.yards_per_inch

    def _inches(self, battle: Battle, yards: float) -> float:
        return yards / battle.yards_per_inch

    def move_tiers(self, battle: Battle, uid: str) -> list[tuple[float, int]]:
        """(total inches this turn, actions that distance costs): walk, hustle and (once rolled) run."""
        tiers = [
            (self._inches(battle, BASE_MOVE_FEET / FEET_PER_YARD), 0),
            (self._inches(battle, HUSTLE_FEET / FEET_PER_YARD), HUSTLE_ACTIONS),
        ]
        run_feet = _turn(battle, uid).run_feet
        if run_feet is not None:
            tiers.append((self._inches(battle, float(run_feet) / FEET_PER_YARD), RUN_ACTIONS))
        return tiers

    def move_allowance(self, battle: Battle, uid: str) -> float:
        """The furthest total distance (inches) this turn the unit can still pay for (an
        undeclared unit pays no action: the free 15 ft)."""
        paid = _turn(battle, uid).move_paid
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
        left = self.move_allowance(battle, uid) - _turn(battle, uid).moved
        return max(0.0, left) / ap

    def move_ap_cost(self, battle: Battle, uid: str, length: float) -> int | None:
        """Actions for ``length`` more inches this turn: 15 ft free, 30 ft 1 action, a run 2.

        Moves add up over the turn; actions already paid for movement this turn
        count toward the tier reached. Beyond the run distance: not this turn.
        """
        turn = _turn(battle, uid)
        total = turn.moved + length
        paid = turn.move_paid
        ap = battle.ap(uid).current if self.can_act(battle, uid) else 0
        for limit, actions in self.move_tiers(battle, uid):
            if total <= limit + TIER_TOLERANCE:
                cost = max(0, actions - paid)
                return cost if cost <= ap else None
        return None

    def on_moved(self, battle: Battle, uid: str, kind: str, length: float) -> None:
        if kind != "move":
            return
        turn = _turn(battle, uid)
        moved = turn.moved = turn.moved + length
        tier = next(
            (a for limit, a in self.move_tiers(battle, uid) if moved <= limit + TIER_TOLERANCE), RUN_ACTIONS
        )
        turn.move_paid = max(turn.move_paid, tier)

    def action_costs(self, battle: Battle, uid: str) -> dict[str, int]:
        """Attack and posture are actions: an undeclared unit may only face (and walk)."""
        if not self.can_act(battle, uid):
            return {"face": ACTION_COSTS["face"]}
        return dict(ACTION_COSTS)

    # ---- for players -----------------------------------------------------------------------------
    def reaction_ap(self, battle: Battle, uid: str) -> tuple[str, int] | None:
        return ("dodge or block", 1)

    def sheet(self, battle: Battle, uid: str) -> UnitSheet:
        stats: CortexStats = battle.stats(uid)
        ypi = battle.yards_per_inch
        weapons = []
        kinds = {"W": "wounds", "S": "stun", "B": "split into stun and wounds"}
        for w in stats.weapons:
            pool = trait_pool(stats.attr(w.attribute), stats.skill(w.skill), 0)
            damage = (
                f"margin split into stun and wounds + {w.damage} ({w.damage_type}: {kinds[w.damage_type]})"
            )
            notes = (f"{format_pool(pool)} ({w.attribute} + {w.skill.replace('_', ' ')})",)
            if w.kind == "melee":
                reach = in_inches(w.reach, ypi)
                weapons.append(
                    WeaponLine(w.name, w.kind, ACTION_COSTS["attack"], damage, reach, True, (), notes)
                )
                continue
            inc = w.range_increment or 0.0
            bands = [RangeBand("point-blank", in_inches(POINT_BLANK_YARDS, ypi), "+1 step")]
            for band, mult in RANGE_BAND_INCREMENTS:
                steps = RANGE_STEPS[band]
                bands.append(
                    RangeBand(band, in_inches(inc * mult, ypi), f"{steps:+d} steps" if steps else "")
                )
            weapons.append(
                WeaponLine(
                    w.name, w.kind, ACTION_COSTS["attack"], damage, bands[-1].upto, False, tuple(bands), notes
                )
            )
        agility = stats.attr("agility")
        defences = [
            f"innate: Agility {format_pool(step_dice(agility))} (3 when attacked from behind or not moving)",
            f"dodge: {format_pool(trait_pool(agility, stats.skill('athletics/dodge'), 0))}, one action",
        ]
        if any(w.kind == "melee" for w in stats.weapons):
            defences.append(
                f"block (melee): {format_pool(trait_pool(agility, stats.block_skill(), 0))}, one action"
            )
        if _defence(battle, uid).all_out_defence:
            defences.append("all-out defence: dodges and blocks free, +2 steps, until its next turn")
        h = battle.health(uid)
        lp = h.maxima["wounds"]
        stun, wounds = h.tracks.get("stun", 0), h.tracks.get("wounds", 0)
        declared = self.declared(battle, uid)
        limit = None
        if not self.can_act(battle, uid):
            limit = "declare its actions this round first (a free choice in the panel)"
        elif declared == 0:
            limit = "in all-out defence this round"
        return UnitSheet(
            weapons=tuple(weapons),
            defences=tuple(defences),
            protection=(f"armour {stats.armour} (off wounds)",),
            harm=(
                HarmLeft("wounds", max(0, lp - wounds), lp),
                HarmLeft("stun", max(0, lp - wounds - stun), lp),
            ),
            attack_limit=limit,
        )

    # ---- step modifiers --------------------------------------------------------------------------
    @staticmethod
    def actions_taken(battle: Battle, uid: str) -> int:
        """Actions spent this round (AP refreshes to the maximum at round start)."""
        ap = battle.ap(uid)
        return max(0, ap.maximum - ap.current)

    def extra_actions(self, battle: Battle, uid: str) -> int:
        """The multiple-action count of ``uid``'s actions now: its declared actions less one
        (under ``prospective_penalty``: the actions it already took this round)."""
        if self.prospective:
            return self.actions_taken(battle, uid)
        return max(0, (self.declared(battle, uid) or 1) - 1)

    def action_steps(self, battle: Battle, uid: str, extra_actions: int) -> list[Modifier]:
        """Step modifiers on an action of ``uid`` with ``extra_actions`` other actions counted."""
        mods: list[Modifier] = []
        if extra_actions > 0:
            mods.append(Modifier("multiple actions", EXTRA_ACTION_STEPS * extra_actions, "skill steps"))
        if self.seriously_wounded(battle, uid):
            mods.append(Modifier("seriously wounded", SERIOUS_WOUND_STEPS, "skill steps"))
        return mods

    @staticmethod
    def seriously_wounded(battle: Battle, uid: str) -> bool:
        h = battle.health(uid)
        return 2 * h.tracks.get("wounds", 0) >= h.maxima.get("wounds", 0) > 0

    @staticmethod
    def _steps(mods: Sequence[Modifier]) -> int:
        net: float = 0  # a plain loop: the same additions in the same order as sum(), for less overhead
        for m in mods:
            if m.applies_to == "skill steps":
                net += m.value
        return int(net)

    # ---- attacks ---------------------------------------------------------------------------------
    def range_band(self, battle: Battle, weapon: CortexWeapon, distance_in: float) -> str | None:
        """The range band of a ranged/thrown attack at ``distance_in`` inches (None: out of range)."""
        yards = self._yards(battle, distance_in)
        if yards <= POINT_BLANK_YARDS + 1e-9:
            return "point-blank"
        inc = weapon.range_increment or 0.0
        for band, mult in RANGE_BAND_INCREMENTS:
            if yards <= inc * mult + 1e-9:
                return band
        return None

    def edge_gap_yards(self, battle: Battle, a: str, b: str) -> float:
        """Gap between two bases, yards."""
        gap = battle.distance(a, b) - battle.body(a).base - battle.body(b).base
        return self._yards(battle, max(0.0, gap))

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
        if weapon.kind != "melee" and battle.posture(target) in LYING_DOWN and level == CoverLevel.NONE:
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
            if RANGE_STEPS[band]:
                steps.append(Modifier(f"range: {band}", RANGE_STEPS[band], "skill steps"))
        pool = trait_pool(stats.attr(weapon.attribute), stats.skill(weapon.skill), self._steps(steps))
        const_mods: list[Modifier] = []
        level = self.cover_level(battle, target, weapon, sight)
        if COVER_DIFFICULTY.get(level, 0):
            src = f"cover: {level.value}" if level == sight.cover else "cover: lying down"
            const_mods.append(Modifier(src, COVER_DIFFICULTY[level], "difficulty"))
        vis = VISIBILITY_DIFFICULTY.get(self.visibility, 0)
        if vis:
            const_mods.append(Modifier(f"visibility: {self.visibility}", vis, "difficulty"))
        return pool, steps, int(sum(m.value for m in const_mods)), const_mods

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
                    "none", (), STATIC_DIFFICULTY, constant, cm, f"no defence (Difficulty 3, {why})", False
                )
            )
        if not sees:
            return out
        aod = _defence(battle, target).all_out_defence
        ap = battle.ap(target).current
        if aod:
            steps = [Modifier("all-out defence", ALL_OUT_DEFENCE_STEPS, "skill steps")]
            if self.seriously_wounded(battle, target):
                steps.append(Modifier("seriously wounded", SERIOUS_WOUND_STEPS, "skill steps"))
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
        net = self._steps(steps)
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

    @staticmethod
    def _defence_odds(
        attack: Pool, d: Defence, weapon: CortexWeapon, armour: int
    ) -> tuple[float, float, float, float]:
        fixed = (d.fixed or 0) + d.constant
        return hit_damage(
            attack, d.pool if d.fixed is None else (), fixed, weapon.damage_dice, weapon.damage_type, armour
        )

    def attack_options(self, battle: Battle, uid: str) -> list[Option]:
        """Every attack now (none before the unit declares its actions)."""
        if not self.can_act(battle, uid):
            return []
        return self.attack_options_at(battle, uid, self.extra_actions(battle, uid))

    def attack_options_at(self, battle: Battle, uid: str, extra_actions: int) -> list[Option]:
        """Every attack as it would be priced with ``extra_actions`` other actions this round."""
        stats: CortexStats = battle.stats(uid)
        out: list[Option] = []
        for target in battle.enemies(uid):
            sight = battle.sight(uid, target)
            for weapon in stats.weapons:
                if self.in_reach(battle, uid, target, weapon, sight) is not None:
                    continue
                out.append(self._attack_option(battle, uid, target, weapon, sight, extra_actions))
        return out

    def _attack_option(
        self,
        battle: Battle,
        uid: str,
        target: str,
        weapon: CortexWeapon,
        sight: SightFacts,
        extra_actions: int,
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
            defs = self.defences(battle, target, uid, weapon, sight, constant, const_mods)
            innate = self._defence_odds(pool, defs[0], weapon, armour)
            best = min(
                (self._defence_odds(pool, d, weapon, armour) for d in defs), key=lambda o: (o[1], o[0])
            )
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
        cover = COVER_DIFFICULTY.get(self.cover_level(battle, target, weapon, battle.sight(uid, target)), 0)
        return sum(
            pv * p_meet_or_beat(pool, (), v + cover)
            for v, pv in enumerate(lowest_value_pmf(pools, 0).tolist())
            if pv
        )

    def potential_targets(self, battle: Battle, uid: str, target: str, weapon: CortexWeapon) -> list[str]:
        """Pitch black: the target and every unit near it that this weapon could reach."""
        out = [target]
        for other in battle.units():
            if other in (uid, target):
                continue
            if self.edge_gap_yards(battle, other, target) > PITCH_BLACK_SPREAD_YARDS + 1e-9:
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
            COVER_DIFFICULTY.get(self.cover_level(battle, u, weapon, battle.sight(uid, u)), 0) for u in units
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

    def attack(self, battle: Battle, cmd: Attack) -> Flow:
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
        pool, _, constant, const_mods = self.attack_setup(battle, uid, target, weapon, sight, extra)
        option = self._attack_option(battle, uid, target, weapon, sight, extra)
        total = self._roll_total(battle, pool, "attack", uid)
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
            return
        defs = self.defences(battle, target, uid, weapon, sight, constant, const_mods)
        context = {
            "attacker": uid,
            "weapon": weapon.name,
            "attack_dice": format_pool(pool),
            "roll": total,
            "difficulty_bonus": constant,
            "modifiers": [str(m) for m in option.modifiers],
        }
        chosen: Defence | None = None
        if any(d.declare is not None for d in defs):
            # Not declared yet: first the innate defence, or declaring actions for an active one.
            choice = yield Decision(
                unit=target,
                kind="defence",
                options=self._declaring_options(battle, defs, target, total, weapon),
                context=context,
            )
            if not isinstance(choice, Maneuver):
                chosen = defs[0]
            elif self.declare(battle, target, int(choice.name.partition(":")[2]), "defence"):
                defs = self.defences(battle, target, uid, weapon, sight, constant, const_mods)
            else:  # passed out on taking the action: no defence, not moving around
                chosen = Defence(
                    "none",
                    (),
                    STATIC_DIFFICULTY,
                    constant,
                    tuple(const_mods),
                    "no defence (passed out)",
                    False,
                )
        if chosen is None:
            options = tuple(self._defence_option(battle, d, target, total, weapon, defs[0]) for d in defs)
            choice = yield Decision(unit=target, kind="defence", options=options, context=context)
            chosen = next(d for d in defs if d.kind == choice.kind)
        if chosen.costs_action:
            battle.spend_ap(target, 1, chosen.kind)
        if chosen.fixed is not None:
            base = chosen.fixed
        else:
            base = self._roll_total(battle, chosen.pool, f"defence: {chosen.kind}", target)
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
            self._damage(battle, target, uid, weapon, total - difficulty)

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
            detail["expected_harm"] = self._known_total_harm(d, total, weapon, armour)
            detail["expected_harm_without"] = self._known_total_harm(baseline or d, total, weapon, armour)
        return Option(
            Defend(target, d.kind),
            d.label,
            p_success=p,
            modifiers=d.modifiers,
            detail=detail,
        )

    @staticmethod
    def _known_total_harm(d: Defence, total: int, weapon: CortexWeapon, armour: int) -> dict[str, float]:
        """E[stun] and E[wounds] an attack of the known ``total`` does against defence ``d``."""
        constant = (d.fixed or 0) + d.constant - total  # margin = total - (D + constant)
        p_hit, _, e_stun, e_wounds = hit_damage(
            (), d.pool if d.fixed is None else (), constant, weapon.damage_dice, weapon.damage_type, armour
        )
        return {"stun": p_hit * e_stun, "wounds": p_hit * e_wounds}

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

    def _resolve_pitch_black(
        self, battle: Battle, uid: str, target: str, weapon: CortexWeapon, total: int
    ) -> None:
        units = self.potential_targets(battle, uid, target, weapon)
        rolls = {
            u: self._roll_total(battle, step_dice(battle.stats(u).attr("agility")), "defence: innate", u)
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
        cover = COVER_DIFFICULTY.get(self.cover_level(battle, struck, weapon, sight), 0)
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

    # ---- damage ----------------------------------------------------------------------------------
    def _damage(self, battle: Battle, target: str, attacker: str, weapon: CortexWeapon, margin: int) -> None:
        w = self._roll_total(battle, weapon.damage_dice, "damage", attacker)
        armour = battle.stats(target).armour
        stun, wounds = split_damage(margin, w, weapon.damage_type, armour)
        h = battle.health(target)
        deltas = {"shock" if "unconscious" in h.status else "stun": stun, "wounds": wounds}
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
        if self.seriously_wounded(battle, uid) and SERIOUSLY_WOUNDED not in h.status:
            battle.set_status(uid, SERIOUSLY_WOUNDED, True, f"wounds {wounds} >= half of {lp} life points")
        if wounds >= lp and DYING not in h.status:
            battle.set_status(uid, DYING, True, f"wounds {wounds} >= {lp} life points")
            self._track(battle).dying_since[uid] = battle.round
            if self._dying_roll(battle, uid):
                battle.set_status(uid, "out", True, "dying")
            return
        if stun + wounds > lp and REELING not in h.status and "unconscious" not in h.status:
            battle.set_status(uid, REELING, True, f"stun + wounds {stun + wounds} > {lp} life points")
            self._conscious_roll(battle, uid)

    def _vw_pool(self, battle: Battle, uid: str) -> Pool:
        s = battle.stats(uid)
        return step_dice(s.attr("vitality")) + step_dice(s.attr("willpower"))

    def _conscious_roll(self, battle: Battle, uid: str) -> bool:
        """Roll to stay conscious; True if the unit stays up."""
        counts = self._track(battle).conscious_rolls
        return self._vw_check(
            battle,
            uid,
            counts,
            CONSCIOUS_DIFFICULTY,
            CONSCIOUS_STEP,
            "stay conscious",
            "unconscious",
            "passed out",
        )

    def _dying_roll(self, battle: Battle, uid: str) -> bool:
        """Roll to stay alive; True if the unit survives this minute."""
        counts = self._track(battle).dying_rolls
        return self._vw_check(
            battle, uid, counts, DYING_DIFFICULTY, DYING_STEP, "stay alive", "dead", "died of wounds"
        )

    def _vw_check(
        self,
        battle: Battle,
        uid: str,
        counts: dict[str, int],
        base: int,
        step: int,
        kind: str,
        flag: str,
        failure: str,
    ) -> bool:
        """A Vitality + Willpower roll whose Difficulty grows by ``step`` with each earlier roll;
        on a failure the unit gets status ``flag``."""
        n = counts.get(uid, 0)
        difficulty = base + step * n
        counts[uid] = n + 1
        roll = self._roll_total(battle, self._vw_pool(battle, uid), kind, uid)
        ok = roll >= difficulty
        battle.emit("check", unit=uid, kind=kind, roll=roll, difficulty=difficulty, success=ok)
        if not ok:
            battle.set_status(uid, flag, True, f"{failure} (rolled {roll} vs {difficulty})")
        return ok

    # ---- maneuvers -------------------------------------------------------------------------------
    def maneuver_options(self, battle: Battle, uid: str) -> list[Option]:
        """Declaring the round's actions (``declare:N``, N = 1 up to the AP left) and all-out
        defence, while the unit has not declared; under ``prospective_penalty`` all-out defence
        only (while it has an action left and is not in all-out defence already).

        A declaration's ``detail``: ``declare_actions`` N, ``steps`` its penalty, ``attacks``
        (the attack options as they would be priced at it), ``move_tiers`` (per movement tier it
        makes affordable: inches still to go this turn and the actions that costs, a run at its
        expected roll), ``ap`` (AP it forfeits).
        """
        ap = battle.ap(uid).current
        if ap < 1:
            return []
        aod = Option(
            Maneuver(uid, ALL_OUT_DEFENCE),
            f"all-out defence ({ap} actions: free dodges/blocks at +2 steps until next turn)",
            modifiers=(Modifier("all-out defence", ALL_OUT_DEFENCE_STEPS, "skill steps"),),
            detail={"ap": ap},
        )
        if self.prospective:
            return [] if _defence(battle, uid).all_out_defence else [aod]
        if self.declared(battle, uid) is not None:
            return []
        out: list[Option] = []
        for n in range(1, ap + 1):
            steps = self.action_steps(battle, uid, n - 1)
            out.append(
                Option(
                    Maneuver(uid, f"{DECLARE}:{n}"),
                    f"declare {n} action{'s' if n > 1 else ''} this round"
                    + (f" ({EXTRA_ACTION_STEPS * (n - 1)} step on every action)" if n > 1 else ""),
                    modifiers=tuple(steps),
                    detail={
                        "declare_actions": n,
                        "steps": EXTRA_ACTION_STEPS * (n - 1),
                        "attacks": tuple(self.attack_options_at(battle, uid, n - 1)),
                        "move_tiers": self.expected_move_tiers(battle, uid, n),
                        "ap": ap - n,
                    },
                )
            )
        out.append(aod)
        return out

    def expected_move_tiers(self, battle: Battle, uid: str, actions: int) -> tuple[tuple[float, int], ...]:
        """(inches still to go this turn, actions it costs) per movement tier ``actions`` declared
        actions make affordable: the free 15 ft, the hustle, and with two or more a run at its
        expected roll (at their penalty)."""
        moved = _turn(battle, uid).moved
        feet = [(BASE_MOVE_FEET, 0), (HUSTLE_FEET, HUSTLE_ACTIONS)]
        if actions >= RUN_ACTIONS:
            stats: CortexStats = battle.stats(uid)
            steps = self._steps(self.action_steps(battle, uid, actions - 1))
            pool = trait_pool(stats.attr("agility"), stats.skill("athletics/running"), steps)
            feet.append((HUSTLE_FEET + sum((d + 1) / 2 for d in pool), RUN_ACTIONS))
        return tuple(
            (max(0.0, self._inches(battle, f / FEET_PER_YARD) - moved), cost)
            for f, cost in feet
            if cost <= actions
        )

    def _run_pool(self, battle: Battle, uid: str) -> Pool:
        stats: CortexStats = battle.stats(uid)
        steps = self.action_steps(battle, uid, self.extra_actions(battle, uid))
        return trait_pool(stats.attr("agility"), stats.skill("athletics/running"), self._steps(steps))

    def maneuver(self, battle: Battle, cmd: Maneuver) -> Flow:
        uid = cmd.unit
        legal = {o.command.name for o in self.maneuver_options(battle, uid)}
        if cmd.name not in legal:
            raise ValueError(f"{uid} cannot {cmd.name!r} now (legal: {', '.join(sorted(legal)) or 'none'})")
        if cmd.name.startswith(f"{DECLARE}:"):
            self.declare(battle, uid, int(cmd.name.partition(":")[2]), "turn")
            return
        if not self.prospective:
            if not self._acting(battle, uid):
                self._track(battle).declared[uid] = (battle.round, 0)
                return
            self._track(battle).declared[uid] = (battle.round, 0)
        battle.spend_ap(uid, battle.ap(uid).current, "all-out defence")
        _defence(battle, uid).all_out_defence = True
        battle.emit("maneuver", unit=uid, name=ALL_OUT_DEFENCE, steps=ALL_OUT_DEFENCE_STEPS)
        return
        yield  # pragma: no cover - makes this a generator
