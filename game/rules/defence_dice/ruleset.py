"""Defence-dice ruleset: aim dice, dodge and cover defence dice, Block and Armour memories.

Implements shared/rules/defence-dice-and-cover-units.txt. docs/rulesets/defence-dice.md
lists every number and decision.

From the text (docs/rulesets/defence-dice.md numbers every rule, D1-D21):
- Defence dice are rolled at the start of an encounter; a unit's dodge dice
  (as many as its Vitality) may be rerolled when it moves: the mover's choice.
- An attack die lands on an aim (a face of the aim die). A hit on an aim the
  target shows on one of its defence dice is avoided.
- Cover: a unit between attacker and target grants cover to both, relative to
  each other. A cover roll is made for it when an attack passes; a hit on an
  aim the cover roll shows hits the cover unit instead. One cover roll per
  cover unit serves every attack it covers in the round; it is rerolled only
  once the cover unit has moved or been damaged.
- Hidden (behind cover, adjacent to cover at least its size): +1 attack die
  against foes on the other side, and -1 Insight and Resolve for both units
  on information checks about each other.
- A Block(N) memory is immune to normal damage: a hit on it is blocked. It
  also blocks for N-1 other memories. A blocked attack still hits for control
  attacks and concussive damage: the blocked memory is replaced anyway.
  Armour(a-b) memories block hits on aims a..b; no two pieces of armour may
  cover the same aim (a stat-block error here).

Where the text is silent (decisions):
- Aim die: a d10 (the text's example shows a 10), or a d12 with option
  ``aim_die: 12``.
- Memories are the health track. A landed hit that armour does not stop
  targets one of the unit's intact memories that a hit can target (ordinary
  and Block memories; Armour memories block by aimline instead and are never
  replaced), drawn at random (a logged roll): the text does not say which
  memory a hit replaces, and a random target makes a Block memory's immunity
  matter in proportion to how many memories it shields. A Block(N) memory
  blocks for N-1 other memories a round (the text gives a number of memories,
  not how often; without a limit the last shielded memory would make a unit
  immune to normal damage for good): when a normal hit targets an ordinary
  memory and a block for another memory is left, the defender decides whether
  to block (a ``defence`` decision); against a concussive or control hit such
  a block would change nothing and is not offered. A unit whose ordinary
  memories are all replaced is out of action.
- Attack dice per weapon are stat data (``Weapon.dice``); every attack die is
  one potential hit. Cover dice: one per cover unit of human size (size
  rounded, at least 1). Cover beats dodge: a face shown by a cover die goes to
  the nearest such cover unit even if the target's dodge dice show it too. A
  hit diverted to a cover unit meets that unit's memories (armour, blocks) but
  not its dodge dice (it was not the one attacked). A cover roll is made the
  first time in a round an attack passes the cover unit; a new round, or the
  cover unit moving or taking damage, clears it (option
  ``cover_roll_per_pair``: the old variant, one roll per attacker-target pair).
- Dodge dice are rolled at each unit's first round start (the encounter
  start). Whether a move rerolls them is the unit's standing choice, set with
  a free ``dodge_reroll`` maneuver (default: reroll); the choice is made before
  the move because a move may spend the unit's last AP, which ends its turn.
  Option ``always_reroll_dodge``: the old variant, every move rerolls.
- Insight and Resolve are used for initiative: each round every unit rolls one
  aim die + Insight, highest first; ties go to higher Resolve, then a roll-off.
  Initiative is no information check regarding the other unit, so hiding does
  not change it (``info_scores`` gives the -1 on checks about the other unit);
  option ``hidden_initiative_penalty``: the old reading, -1 on initiative too.
- Every number here is an option (:mod:`game.rules.defence_dice.options`).
- Turn economy: 2 AP a round; moving costs 1 AP per 5 yards, an attack 1 AP
  (one attack a turn), a posture change 1 AP, facing is free. Melee reach is
  measured base edge to base edge (``Weapon.reach`` yards, default 1); ranged
  reach centre to centre (``Weapon.range`` yards). Every target needs a line
  of sight.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import Field, field_validator, model_validator

from components.sight import CoverLevel, SightFacts
from components.state import Health
from game.core.battle import Battle
from game.core.codec import value
from game.core.commands import Attack, Decision, Maneuver, Modifier, Option
from game.core.flow import Ask, Call, Done, Frame, Outcome, asks, step
from game.dice.aims import AIM_DIE_SIZES, AimOdds, land_odds, parse_aimline
from game.rules import mechanics as mech
from game.rules.base import Ruleset, StrictModel, UnitSetup
from game.rules.defence_dice.commands import MemoryBlock
from game.rules.defence_dice.options import DDOptions
from game.rules.sheet import DiceReading, HarmLeft, RangeBand, UnitSheet, WeaponLine, in_inches

# ---- rule data (text) ----------------------------------------------------------------------------

#: The text's numbers and the decisions' (the defaults of the options in
#: :mod:`game.rules.defence_dice.options`; the rules read the options).
#: Extra attack dice for a hidden attacker.
HIDDEN_ATTACK_DICE = 1
#: Insight and Resolve on information checks between a hidden unit and its foe.
HIDDEN_INFO_MODIFIER = -1

# ---- decisions where the text is silent (see the module docstring) -------------------------------

#: Default aim die (the option can choose any of ``AIM_DIE_SIZES``).
DEFAULT_AIM_DIE: Literal[10, 12] = 10
#: The largest aim die: armour aimlines must lie on it.
MAX_AIM_FACE = max(AIM_DIE_SIZES)
#: AP a round, movement and action costs.
MAX_AP = 2
MOVE_YARDS_PER_AP = 5.0
ACTION_COSTS: dict[str, int] = {"attack": 1, "posture": 1, "face": 0}
#: Cover dice per cover unit of size 1.
COVER_DICE_PER_SIZE = 1
#: Health tracks: intact ordinary memories (0 = out) and memories replaced by fight or flight.
MEMORIES = "memories"
FIGHT_OR_FLIGHT = "fight_or_flight"
#: Maneuver that sets whether the unit's moves reroll its dodge dice (``dodge_reroll:on``/``:off``).
REROLL_MANEUVER = "dodge_reroll"
#: A unit's standing choice before it makes one: moves reroll its dodge dice.
DEFAULT_REROLL = True


# ---- stats ---------------------------------------------------------------------------------------


class Memory(StrictModel):
    """A memory: ordinary, ``Block(N)`` (``block: N``) or ``Armour(a-b)`` (``armour: "a-b"``)."""

    name: str
    block: int = Field(default=0, ge=0)
    armour: str | None = None

    @field_validator("armour", mode="before")
    @classmethod
    def _aimline(cls, v: Any) -> str | None:
        if v is None:
            return None
        lo, hi = parse_aimline(str(v))
        if hi > MAX_AIM_FACE:
            raise ValueError(f"aimline {v} is off the largest aim die (d{MAX_AIM_FACE})")
        return f"{lo}-{hi}"

    @model_validator(mode="after")
    def _one_kind(self) -> Memory:
        if self.block and self.armour:
            raise ValueError(f"memory {self.name!r} cannot be both Block(N) and Armour(a-b)")
        return self

    @property
    def aims(self) -> frozenset[int]:
        """Aims an Armour memory covers (empty for other memories)."""
        if self.armour is None:
            return frozenset()
        lo, hi = parse_aimline(self.armour)
        return frozenset(range(lo, hi + 1))

    @property
    def guard(self) -> bool:
        """Block or Armour: immune to normal damage."""
        return bool(self.block) or self.armour is not None

    @property
    def targetable(self) -> bool:
        """Whether a landed hit can target this memory (Armour blocks by aimline instead)."""
        return self.armour is None

    @property
    def blocks_for_others(self) -> int:
        """How many other memories a Block(N) memory blocks for (a round): N - 1."""
        return max(0, self.block - 1)


class DDWeapon(StrictModel):
    """A weapon: attack dice, reach or range (yards), and whether blocked hits still hit."""

    name: str
    kind: Literal["melee", "ranged", "thrown"]
    dice: int = Field(ge=1)
    reach: float = Field(default=1.0, ge=0.0)
    range: float | None = Field(default=None, gt=0.0)
    concussive: bool = False
    control: bool = False

    @model_validator(mode="after")
    def _check(self) -> DDWeapon:
        if self.kind != "melee" and self.range is None:
            raise ValueError(f"{self.kind} weapon {self.name!r} needs range (yards)")
        return self

    @property
    def piercing(self) -> bool:
        """Blocked hits still hit (control attack or concussive damage)."""
        return self.concussive or self.control


class DDStats(StrictModel):
    """A defence-dice stat block: Vitality (dodge dice), Insight, Resolve, memories, weapons."""

    vitality: int = Field(ge=0)
    insight: int = Field(default=0, ge=0)
    resolve: int = Field(default=0, ge=0)
    memories: tuple[Memory, ...] = Field(min_length=1)
    weapons: tuple[DDWeapon, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> DDStats:
        names = [m.name for m in self.memories]
        if len(set(names)) != len(names):
            raise ValueError("memory names must be unique")
        if all(m.guard for m in self.memories):
            raise ValueError("a unit needs at least one ordinary memory (not Block or Armour)")
        seen: dict[int, str] = {}
        for m in self.memories:
            for aim in sorted(m.aims):
                if aim in seen:
                    raise ValueError(f"armour {m.name!r} and {seen[aim]!r} both cover aimline {aim}")
                seen[aim] = m.name
        wnames = [w.name for w in self.weapons]
        if len(set(wnames)) != len(wnames):
            raise ValueError("weapon names must be unique")
        return self

    def weapon(self, name: str) -> DDWeapon:
        for w in self.weapons:
            if w.name == name:
                return w
        raise KeyError(name)


TROOPER = DDStats(
    vitality=2,
    insight=2,
    resolve=2,
    memories=(
        Memory(name="drill yard"),
        Memory(name="home village"),
        Memory(name="first battle"),
        Memory(name="shield wall", block=1),
        Memory(name="mail shirt", armour="8-9"),
    ),
    weapons=(
        DDWeapon(name="short sword", kind="melee", dice=2),
        DDWeapon(name="crossbow", kind="ranged", dice=2, range=40),
    ),
)


# ---- the battle-wide state and the attack flow's data: frozen values, named for snapshots --------

K = TypeVar("K")
V = TypeVar("V")
_EMPTY: Mapping[Any, Any] = MappingProxyType({})
#: A cover roll's key: (cover unit, the attacker-target pair, or None for one roll a round).
CoverKey = tuple[str, frozenset[str] | None]


def _put(mapping: Mapping[K, V], key: K, val: V) -> Mapping[K, V]:
    """A read-only copy of ``mapping`` with ``key`` set to ``val``."""
    out = dict(mapping)
    out[key] = val
    return MappingProxyType(out)


@value("defence-dice.state")
@dataclass(frozen=True, slots=True)
class DDState:
    """What the ruleset remembers of a battle (``Battle.rules_state``), replaced on every change.

    Attributes:
        dodge: each unit's rolled dodge faces (absent: not rolled yet).
        cover: each cover roll's faces (see :data:`CoverKey`).
        lost: each unit's memories replaced by fight or flight.
        block_used: (unit, Block memory) -> blocks for other memories used this round.
        reroll: each unit's standing choice whether its moves reroll its dodge dice (absent: the
            default, :data:`DEFAULT_REROLL`).
    """

    dodge: Mapping[str, tuple[int, ...]] = field(default_factory=lambda: _EMPTY)
    cover: Mapping[CoverKey, tuple[int, ...]] = field(default_factory=lambda: _EMPTY)
    lost: Mapping[str, frozenset[str]] = field(default_factory=lambda: _EMPTY)
    block_used: Mapping[tuple[str, str], int] = field(default_factory=lambda: _EMPTY)
    reroll: Mapping[str, bool] = field(default_factory=lambda: _EMPTY)

    def __post_init__(self) -> None:
        for name in ("dodge", "cover", "lost", "block_used", "reroll"):
            got = getattr(self, name)
            if type(got) is not MappingProxyType:  # e.g. as decoded from a snapshot
                object.__setattr__(self, name, MappingProxyType(dict(got)))


_NO_STATE = DDState()


@value("defence-dice.hits")
@dataclass(frozen=True, slots=True)
class HitsData:
    """The landed hits of an attack still to resolve, in order: (unit hit, aim)."""

    attacker: str
    weapon: str
    landed: tuple[tuple[str, int], ...]


@value("defence-dice.hit")
@dataclass(frozen=True, slots=True)
class HitData:
    """One landed hit: the unit hit, the attacker, its weapon (by name) and the aim."""

    unit: str
    attacker: str
    weapon: str
    aim: int


@value("defence-dice.targeted")
@dataclass(frozen=True, slots=True)
class TargetedHit:
    """A hit past armour (or through it, ``armour`` naming it) that targets the memory ``memory``."""

    hit: HitData
    memory: str
    armour: str | None


@dataclass(frozen=True)
class AttackPlan:
    """Everything an attack's odds and resolution need, read once at its start."""

    dice: int
    modifiers: tuple[Modifier, ...]
    cover_units: tuple[str, ...]
    odds: AimOdds


class DefenceDiceRuleset(Ruleset[DDStats, DDOptions]):
    """Defence dice: aim dice against rolled dodge and cover dice; memories as health."""

    name: ClassVar[str] = "defence-dice"
    source: ClassVar[str] = "defence-dice-and-cover-units.txt"
    Stats: ClassVar[type[StrictModel]] = DDStats
    Options: ClassVar[type[StrictModel]] = DDOptions
    #: Each aim die's face is an aim of its own: faces are never summed.
    dice_reading: ClassVar[DiceReading] = DiceReading("faces")

    # ---- mechanics: what batch results count per side (game/rules/mechanics.py) ----------------
    mechanics: ClassVar[tuple[mech.Mechanic, ...]] = (
        mech.ATTACKS,
        mech.Mechanic(
            "hidden_attacks",
            "attacks with the extra die for a hidden attacker",
            mech.event("attack", credit="attacker", modifiers=mech.has_modifier("hidden")),
        ),
        mech.Mechanic(
            "dodge_saves",
            "attack dice on an aim the target's dodge dice show (no hit), by the target",
            mech.items("defence", "outcome", result="dodged"),
        ),
        mech.Mechanic(
            "cover_saves",
            "attack dice on an aim a cover roll shows (sent to the cover unit), by the target",
            mech.items("defence", "outcome", result="cover"),
        ),
        mech.Mechanic(
            "cover_unit_hits",
            "hits a unit took for standing in the way (cover unit), by the cover unit",
            mech.items("defence", "outcome", item_credit="unit", result="cover"),
        ),
        mech.Mechanic(
            "armour_saves",
            "hits an Armour(a-b) memory on the aimline blocked, by the unit hit",
            mech.event("block", kind="armour", still_hits=False),
        ),
        mech.Mechanic(
            "block_saves",
            "hits on a Block memory it blocked itself (immune), by the unit hit",
            mech.event("block", kind="itself", still_hits=False),
        ),
        mech.Mechanic(
            "blocks_for_others",
            "hits on an ordinary memory a Block(N) memory blocked for it, by the unit hit",
            mech.event("block", kind="another", still_hits=False),
        ),
        mech.Mechanic(
            "blocked_still_hit",
            "blocks a control or concussive attack went through anyway, by the unit hit",
            mech.event("block", still_hits=True),
        ),
        mech.Mechanic(
            "dodge_rerolls",
            "dodge dice rerolled after moving, by the mover",
            mech.event("defence_dice", kind="dodge", reason=lambda r: r != "encounter start"),
        ),
        mech.Mechanic(
            "dodge_dice_kept",
            "moves after which the unit kept its dodge dice (it may reroll, not must), by the mover",
            mech.event("dodge_kept"),
        ),
        mech.Mechanic(
            "cover_rolls",
            "cover dice rolled for a unit standing in the way, by the cover unit",
            mech.event("defence_dice", kind="cover"),
        ),
        mech.Mechanic(
            "memories_lost",
            "memories replaced by fight or flight, by the unit that lost them",
            mech.event("damage"),
        ),
    )
    # ---- end of mechanics ----------------------------------------------------------------------

    @property
    def aim_die(self) -> int:
        return self.options.aim_die

    @property
    def cover_per_pair(self) -> bool:
        return self.options.cover_roll_per_pair

    @property
    def always_reroll(self) -> bool:
        return self.options.always_reroll_dodge

    def state(self, battle: Battle) -> DDState:
        """The battle-wide state (nothing rolled or chosen yet: an empty one)."""
        st: DDState | None = battle.rules_state
        return _NO_STATE if st is None else st

    def _update(self, battle: Battle, **changes: Any) -> None:
        """Replace the battle-wide state with ``changes`` made."""
        battle.set_rules_state(replace(self.state(battle), **changes))

    # ---- set-up ----------------------------------------------------------------------------------
    @classmethod
    def default_stats(cls) -> DDStats:
        return TROOPER

    def setup_unit(self, stats: Any) -> UnitSetup:
        ordinary = sum(1 for m in stats.memories if not m.guard)
        replaceable = sum(1 for m in stats.memories if m.targetable)
        return UnitSetup(
            Health(
                {MEMORIES: ordinary, FIGHT_OR_FLIGHT: 0}, {MEMORIES: ordinary, FIGHT_OR_FLIGHT: replaceable}
            ),
            self.options.max_ap,
        )

    # ---- memories --------------------------------------------------------------------------------
    def intact(self, battle: Battle, uid: str) -> list[Memory]:
        lost = self.state(battle).lost.get(uid, frozenset())
        return [m for m in battle.stats(uid).memories if m.name not in lost]

    def armoured_aims(self, battle: Battle, uid: str) -> frozenset[int]:
        out: set[int] = set()
        for m in self.intact(battle, uid):
            out |= m.aims
        return frozenset(out)

    def block_charges(self, battle: Battle, uid: str) -> int:
        """Blocks for other memories ``uid``'s intact Block(N) memories have left this round."""
        return sum(self.blocks_left(battle, uid, m) for m in self.intact(battle, uid) if m.block)

    def blocks_for_others(self, memory: Memory) -> int:
        """How many other memories a Block(N) memory blocks for a round: N less option
        ``block_for_others_offset`` (the text: Block(2) blocks for itself and one other)."""
        return max(0, memory.block - self.options.block_for_others_offset) if memory.block else 0

    def blocks_left(self, battle: Battle, uid: str, memory: Memory) -> int:
        """Blocks for other memories the Block(N) ``memory`` has left this round."""
        return max(
            0, self.blocks_for_others(memory) - self.state(battle).block_used.get((uid, memory.name), 0)
        )

    # ---- rounds and turns ------------------------------------------------------------------------
    def hidden_with_enemy(self, battle: Battle, uid: str) -> bool:
        """Whether ``uid`` hides from an enemy or an enemy hides from it (information checks at -1)."""
        return any(battle.sight(uid, e).hidden or battle.sight(e, uid).hidden for e in battle.enemies(uid))

    def hidden_between(self, battle: Battle, uid: str, other: str) -> bool:
        """Whether ``uid`` hides from ``other`` or ``other`` hides from it."""
        return battle.sight(uid, other).hidden or battle.sight(other, uid).hidden

    def info_scores(self, battle: Battle, uid: str, about: str) -> tuple[int, int, list[Modifier]]:
        """(Insight, Resolve, modifiers) of ``uid`` on an information check regarding ``about``.

        defence-dice-and-cover-units.txt, the paragraph on being hidden: the -1 (option
        ``hidden_info_modifier``) falls on both units' information checks regarding the opposing
        unit, so only when one of the two hides from the other.
        """
        s: DDStats = battle.stats(uid)
        opts = self.options
        if opts.hiding and opts.hidden_info_modifier and self.hidden_between(battle, uid, about):
            m = opts.hidden_info_modifier
            return s.insight + m, s.resolve + m, [Modifier("hidden", m, "insight/resolve")]
        return s.insight, s.resolve, []

    def initiative_scores(self, battle: Battle, uid: str) -> tuple[int, int]:
        """(Insight, Resolve) ``uid`` rolls initiative with.

        Initiative is no information check regarding an opposing unit (the hidden paragraph of
        defence-dice-and-cover-units.txt names only those), so being hidden does not change it;
        option ``hidden_initiative_penalty`` restores the old reading (-1 when the unit hides from
        an enemy or an enemy hides from it).
        """
        s: DDStats = battle.stats(uid)
        opts = self.options
        if opts.hidden_initiative_penalty and opts.hiding and self.hidden_with_enemy(battle, uid):
            m = opts.hidden_info_modifier
            return s.insight + m, s.resolve + m
        return s.insight, s.resolve

    def initiative(self, battle: Battle, units: Sequence[str]) -> list[str]:
        keys: dict[str, list[int]] = {}
        for u in units:
            insight, resolve = self.initiative_scores(battle, u)
            keys[u] = [battle.dice.roll(1, self.aim_die, "initiative", u)[0] + insight, resolve]
        while True:
            groups: dict[tuple[int, ...], list[str]] = {}
            for u in units:
                groups.setdefault(tuple(keys[u]), []).append(u)
            tied = [g for g in groups.values() if len(g) > 1]
            if not tied:
                break
            for g in tied:
                for u in g:
                    keys[u].append(battle.dice.roll(1, self.aim_die, "initiative roll-off", u)[0])
        return sorted(units, key=lambda u: [-k for k in keys[u]])

    def start_round(self, battle: Battle) -> None:
        st = self.state(battle)
        if st.cover or st.block_used:
            self._update(battle, cover=_EMPTY, block_used=_EMPTY)
        for uid in battle.units():
            if uid not in self.state(battle).dodge:  # the encounter starts for this unit: roll its dodge dice
                self.roll_dodge(battle, uid, "encounter start")

    def roll_dodge(self, battle: Battle, uid: str, why: str) -> tuple[int, ...]:
        n = self.dodge_dice(battle, uid)
        faces = tuple(battle.dice.roll(n, self.aim_die, f"dodge dice ({why})", uid))
        self._update(battle, dodge=_put(self.state(battle).dodge, uid, faces))
        battle.emit("defence_dice", unit=uid, kind="dodge", faces=list(faces), reason=why)
        return faces

    def start_turn(self, battle: Battle, uid: str) -> bool:
        return not battle.health(uid).out_of_action

    def inches_per_ap(self, battle: Battle, uid: str) -> float:
        return self.options.move_yards_per_ap / battle.yards_per_inch

    def action_costs(self, battle: Battle, uid: str) -> dict[str, int]:
        return {**ACTION_COSTS, "attack": self.options.attack_ap, "posture": self.options.posture_ap}

    def _cover_key(self, cover_uid: str, uid: str, target: str) -> CoverKey:
        return (cover_uid, frozenset((uid, target)) if self.cover_per_pair else None)

    def _drop_cover(self, battle: Battle, uid: str) -> None:
        cover = self.state(battle).cover
        if any(k[0] == uid for k in cover):
            self._update(battle, cover=MappingProxyType({k: f for k, f in cover.items() if k[0] != uid}))

    def rerolls_on_move(self, battle: Battle, uid: str) -> bool:
        """Whether a move of ``uid`` rerolls its dodge dice (its standing choice, or the options:
        ``always_reroll_dodge``, ``dodge_rerolls`` off: never)."""
        if not self.options.dodge_rerolls:
            return False
        return self.always_reroll or self.state(battle).reroll.get(uid, DEFAULT_REROLL)

    def on_moved(self, battle: Battle, uid: str, kind: str, length: float) -> None:
        if length <= 0:
            return
        self._drop_cover(battle, uid)
        dodge = self.state(battle).dodge
        if uid not in dodge or battle.health(uid).out_of_action or not self.dodge_dice(battle, uid):
            return
        if self.rerolls_on_move(battle, uid):
            self.roll_dodge(battle, uid, kind)
        else:
            battle.emit("dodge_kept", unit=uid, faces=list(dodge[uid]), reason=kind)

    def reroll_value(self, battle: Battle, uid: str) -> tuple[int, float]:
        """(aims the unit's dodge dice defend now, the expected number after a reroll).

        Only aims its intact armour does not already block count: a dodge face there adds
        nothing. A reroll of n dice on a dK shows each such aim with P = 1 - (1 - 1/K)^n.
        """
        armoured = self.armoured_aims(battle, uid)
        now = len(set(self.state(battle).dodge.get(uid, ())) - armoured)
        k = self.aim_die
        n = self.dodge_dice(battle, uid)
        return now, (k - len(armoured)) * (1.0 - (1.0 - 1.0 / k) ** n)

    def maneuver_options(self, battle: Battle, uid: str) -> list[Option]:
        """The free standing choice whether moves reroll the unit's dodge dice (the flip of the
        current one), with the value of each: ``detail["value_gain"]`` = expected defended aims
        after the switch minus now."""
        if self.always_reroll or not self.options.dodge_rerolls or not self.dodge_dice(battle, uid):
            return []
        now, expected = self.reroll_value(battle, uid)
        if self.rerolls_on_move(battle, uid):
            return [
                Option(
                    Maneuver(uid, f"{REROLL_MANEUVER}:off"),
                    f"keep dodge dice when moving (they defend {now} aims; a reroll {expected:.2f})",
                    detail={
                        "ap": 0,
                        "defended_now": now,
                        "expected_reroll": expected,
                        "value_gain": now - expected,
                    },
                )
            ]
        return [
            Option(
                Maneuver(uid, f"{REROLL_MANEUVER}:on"),
                f"reroll dodge dice when moving (they defend {now} aims; a reroll {expected:.2f})",
                detail={
                    "ap": 0,
                    "defended_now": now,
                    "expected_reroll": expected,
                    "value_gain": expected - now,
                },
            )
        ]

    @step("maneuver")
    def _maneuver(self, battle: Battle, cmd: Maneuver, _: Any) -> Outcome:
        """The free standing choice whether moves reroll the unit's dodge dice (no decision)."""
        legal = {o.command.name for o in self.maneuver_options(battle, cmd.unit)}
        if cmd.name not in legal:
            raise ValueError(
                f"{cmd.unit} cannot {cmd.name!r} now (legal: {', '.join(sorted(legal)) or 'none'})"
            )
        on = cmd.name.endswith(":on")
        self._update(battle, reroll=_put(self.state(battle).reroll, cmd.unit, on))
        battle.emit("reroll_choice", unit=cmd.unit, reroll=on)
        return None

    def on_damaged(self, battle: Battle, uid: str) -> None:
        self._drop_cover(battle, uid)

    # ---- for players -----------------------------------------------------------------------------
    def sheet(self, battle: Battle, uid: str) -> UnitSheet:
        stats: DDStats = battle.stats(uid)
        ypi = battle.yards_per_inch
        weapons = []
        for w in stats.weapons:
            what = "control attack" if w.control else "concussive" if w.concussive else ""
            damage = "each die landing replaces a memory" + (
                f" ({what}: blocks do not stop it)" if what else ""
            )
            hid = self.options.hidden_attack_dice if self.options.hiding else 0
            notes = (
                f"{w.dice}d{self.aim_die} aim dice"
                + (f" (+{hid} when hidden from the target)" if hid else ""),
            )
            cost = self.options.attack_ap
            if w.kind == "melee":
                reach = in_inches(w.reach, ypi)
                weapons.append(WeaponLine(w.name, w.kind, cost, damage, reach, True, (), notes))
            else:
                reach = in_inches(w.range or 0.0, ypi)
                bands = (RangeBand("range", reach),)
                weapons.append(WeaponLine(w.name, w.kind, cost, damage, reach, False, bands, notes))
        st = self.state(battle)
        faces = st.dodge.get(uid)
        dodge = f"{self.dodge_dice(battle, uid)} dodge dice" + (
            ": showing aims " + ", ".join(str(f) for f in faces)
            if faces
            else " (rolled at the encounter start)"
        )
        dodge += "; a move rerolls them" if self.rerolls_on_move(battle, uid) else "; a move keeps them"
        protection = []
        for m in self.intact(battle, uid):
            if m.armour:
                protection.append(f"{m.name}: Armour({m.armour}), blocks hits on aims {m.armour}")
            elif m.block:
                left = self.blocks_left(battle, uid, m)
                protection.append(
                    f"{m.name}: Block({m.block}), immune; {left} block for others left this round"
                )
        h = battle.health(uid)
        attacked = bool(battle.turn(uid).attacked_with)
        return UnitSheet(
            weapons=tuple(weapons),
            defences=(dodge, "cover units between it and the attacker roll cover dice that take hits"),
            protection=tuple(protection) or ("no Armour or Block memories",),
            harm=(HarmLeft(MEMORIES, max(0, h.tracks[MEMORIES]), h.maxima[MEMORIES]),),
            attack_limit="one attack a turn: it has attacked" if attacked else None,
        )

    # ---- attacks ---------------------------------------------------------------------------------
    def cover_dice(self, battle: Battle, cover_uid: str) -> int:
        """Cover dice of a cover unit: option ``cover_dice_per_size`` per size (rounded, at least 1)."""
        return max(1, round(battle.body(cover_uid).size)) * self.options.cover_dice_per_size

    def cover_units_between(self, sight: SightFacts, uid: str, target: str) -> tuple[str, ...]:
        """The units in the way that roll cover (none with option ``cover_units`` off, or
        whose cover rolls no dice)."""
        if not self.options.cover_units or not self.options.cover_dice_per_size:
            return ()
        return tuple(c for c in sight.intervening if c not in (uid, target))

    def dodge_dice(self, battle: Battle, uid: str) -> int:
        """Dodge dice: option ``dodge_dice_per_vitality`` per point of Vitality."""
        return int(battle.stats(uid).vitality) * self.options.dodge_dice_per_vitality

    def reaches(
        self, battle: Battle, uid: str, target: str, weapon: DDWeapon, sight: SightFacts
    ) -> str | None:
        """Why ``weapon`` cannot be used on ``target`` now (None: it can)."""
        if not sight.visible or sight.cover == CoverLevel.TOTAL:
            return "no line of sight"
        ypi = battle.yards_per_inch
        if weapon.kind == "melee":
            gap = max(0.0, battle.distance(uid, target) - battle.body(uid).base - battle.body(target).base)
            return None if gap * ypi <= weapon.reach + 1e-9 else "out of reach"
        return None if sight.distance * ypi <= (weapon.range or 0.0) + 1e-9 else "out of range"

    def plan(self, battle: Battle, uid: str, target: str, weapon: DDWeapon, sight: SightFacts) -> AttackPlan:
        """Dice, modifiers and exact odds of an attack, given what is rolled so far."""
        st = self.state(battle)
        mods: list[Modifier] = [Modifier(weapon.name, weapon.dice, "attack dice")]
        opts = self.options
        if opts.hiding and opts.hidden_attack_dice and battle.sight(target, uid).hidden:
            mods.append(Modifier("hidden", opts.hidden_attack_dice, "attack dice"))
        dice = int(sum(m.value for m in mods))
        defended: set[int] = set(st.dodge.get(target, ()))
        unrolled = 0 if target in st.dodge else self.dodge_dice(battle, target)
        cover_units = self.cover_units_between(sight, uid, target)
        for c in cover_units:
            known = st.cover.get(self._cover_key(c, uid, target))
            if known is None:
                unrolled += self.cover_dice(battle, c)
            else:
                defended |= set(known)
        intact = self.intact(battle, target)
        odds = land_odds(
            self.aim_die,
            dice,
            frozenset(defended),
            unrolled,
            self.armoured_aims(battle, target),
            self.block_charges(battle, target),
            sum(1 for m in intact if not m.guard),
            weapon.piercing,
            sum(1 for m in intact if m.block),
        )
        return AttackPlan(dice, tuple(mods), cover_units, odds)

    def attack_options(self, battle: Battle, uid: str) -> list[Option]:
        if battle.turn(uid).attacked_with:
            return []  # one attack a turn
        out: list[Option] = []
        for target in battle.enemies(uid):
            sight = battle.sight(uid, target)
            for weapon in battle.stats(uid).weapons:
                if self.reaches(battle, uid, target, weapon, sight) is not None:
                    continue
                plan = self.plan(battle, uid, target, weapon, sight)
                pct = 100 * plan.odds.p_land
                out.append(
                    Option(
                        Attack(uid, target, weapon.name, ()),
                        f"{weapon.name} -> {target} ({plan.dice}d{self.aim_die}, {pct:.0f}% land)",
                        p_success=plan.odds.p_land,
                        modifiers=plan.modifiers,
                        detail={
                            "p_hurt": plan.odds.p_hurt,
                            "expected_damage": plan.odds.expected_damage,
                            "cover_units": list(plan.cover_units),
                            "expected_harm": {
                                MEMORIES: sum(n * p for n, p in enumerate(plan.odds.damage_pmf))
                            },
                        },
                    )
                )
        return out

    def cover_faces(self, battle: Battle, cover_uid: str, uid: str, target: str) -> tuple[int, ...]:
        """The cover roll of ``cover_uid`` between this pair, rolled now if not yet rolled."""
        key = self._cover_key(cover_uid, uid, target)
        known = self.state(battle).cover.get(key)
        if known is not None:
            return known
        n = self.cover_dice(battle, cover_uid)
        faces = tuple(battle.dice.roll(n, self.aim_die, "cover dice", cover_uid))
        self._update(battle, cover=_put(self.state(battle).cover, key, faces))
        battle.emit(
            "defence_dice", unit=cover_uid, kind="cover", faces=list(faces), between=sorted((uid, target))
        )
        return faces

    # ---- the attack flow (game.core.flow) --------------------------------------------------------
    @step("attack")
    def _attack(self, battle: Battle, cmd: Attack, _: Any) -> Outcome:
        uid, target = cmd.unit, cmd.target
        weapon = battle.stats(uid).weapon(cmd.weapon)
        sight = battle.sight(uid, target)
        why = self.reaches(battle, uid, target, weapon, sight)
        if why is not None:
            raise ValueError(f"{uid} cannot attack {target} with {weapon.name}: {why}")
        plan = self.plan(battle, uid, target, weapon, sight)
        aims = battle.dice.roll(plan.dice, self.aim_die, "attack", uid)
        battle.emit(
            "attack",
            attacker=uid,
            target=target,
            weapon=weapon.name,
            aims=aims,
            modifiers=[
                {"source": m.source, "value": m.value, "applies_to": m.applies_to} for m in plan.modifiers
            ],
            p_success=plan.odds.p_land,
            p_hurt=plan.odds.p_hurt,
        )
        covers = [(c, self.cover_faces(battle, c, uid, target)) for c in plan.cover_units]
        dodge = self.state(battle).dodge.get(target, ())
        outcome: list[dict[str, Any]] = []
        landed: list[tuple[str, int]] = []
        for aim in aims:
            struck = next((c for c, faces in covers if aim in faces), None)
            if struck is not None:
                outcome.append({"aim": aim, "result": "cover", "unit": struck})
                landed.append((struck, aim))
            elif aim in dodge:
                outcome.append({"aim": aim, "result": "dodged"})
            else:
                outcome.append({"aim": aim, "result": "hit"})
                landed.append((target, aim))
        battle.emit(
            "defence",
            unit=target,
            attacker=uid,
            kind="defence dice",
            dodge=list(dodge),
            cover={c: list(f) for c, f in covers},
            outcome=outcome,
            p_success=1.0 - plan.odds.p_land,
            success=all(o["result"] != "hit" for o in outcome),
        )
        return Call(Frame("attack.hits", HitsData(uid, weapon.name, tuple(landed))))

    @step("attack.hits")
    def _hits(self, battle: Battle, data: HitsData, _: Any) -> Outcome:
        """The landed hits in turn, each on a unit still in action when its turn comes."""
        for i, (unit, aim) in enumerate(data.landed):
            if not battle.health(unit).out_of_action:
                rest = replace(data, landed=data.landed[i + 1 :])
                return Call(
                    Frame("hit", HitData(unit, data.attacker, data.weapon, aim)), Frame("attack.hits", rest)
                )
        return None

    @step("hit")
    def _hit(self, battle: Battle, hit: HitData, _: Any) -> Outcome:
        """One landed hit on ``hit.unit`` at ``hit.aim``: armour on its aimline, else the targeted
        memory (drawn at random): a Block memory blocks, a Block(N) may block for an ordinary one."""
        uid, attacker, aim = hit.unit, hit.attacker, hit.aim
        weapon = battle.stats(attacker).weapon(hit.weapon)
        intact = self.intact(battle, uid)
        armour = next((m for m in intact if aim in m.aims), None)
        if armour is not None:
            battle.emit(
                "block",
                unit=uid,
                attacker=attacker,
                memory=armour.name,
                kind="armour",
                aim=aim,
                target=None,
                still_hits=weapon.piercing,
            )
            if not weapon.piercing:
                return None
        targets = [m for m in intact if m.targetable]
        roll = battle.dice.roll(1, len(targets), "target memory", uid)[0] if len(targets) > 1 else 1
        target = targets[roll - 1]
        struck = TargetedHit(hit, target.name, armour.name if armour is not None else None)
        if target.block:
            return self._land(battle, struck, target.name)
        if weapon.piercing:
            return self._land(battle, struck, None)
        return Call(Frame("block_for_other", struck), Frame("hit.blocked", struck))

    @step("hit.blocked")
    def _blocked(self, battle: Battle, struck: TargetedHit, blocker: str | None) -> Outcome:
        """After the decision whether a Block(N) memory blocks for the target (``blocker``)."""
        return self._land(battle, struck, blocker)

    def _land(self, battle: Battle, struck: TargetedHit, blocker: str | None) -> Outcome:
        """The hit meets the Block memory ``blocker`` (None: none); unless blocked, the targeted
        memory is replaced by fight or flight."""
        hit = struck.hit
        uid, attacker = hit.unit, hit.attacker
        weapon = battle.stats(attacker).weapon(hit.weapon)
        if blocker is not None:
            battle.emit(
                "block",
                unit=uid,
                attacker=attacker,
                memory=blocker,
                kind="itself" if blocker == struck.memory else "another",
                aim=hit.aim,
                target=struck.memory,
                still_hits=weapon.piercing,
            )
            if not weapon.piercing:
                return None
        target = next(m for m in battle.stats(uid).memories if m.name == struck.memory)
        lost = self.state(battle).lost
        self._update(battle, lost=_put(lost, uid, lost.get(uid, frozenset()) | {target.name}))
        deltas = {MEMORIES: -1, FIGHT_OR_FLIGHT: 1} if not target.guard else {FIGHT_OR_FLIGHT: 1}
        battle.damage(
            uid,
            deltas,
            source=attacker,
            weapon=weapon.name,
            aim=hit.aim,
            memory=target.name,
            blocked_by=blocker if blocker is not None else struck.armour,
        )
        if battle.health(uid).tracks[MEMORIES] <= 0 and not battle.health(uid).out_of_action:
            battle.set_status(uid, "out", True, "every memory replaced by fight or flight")
        return None

    def _blockers(self, battle: Battle, uid: str) -> list[Memory]:
        """``uid``'s intact Block(N) memories with a block for another memory left this round."""
        return [m for m in self.intact(battle, uid) if m.block and self.blocks_left(battle, uid, m)]

    @step("block_for_other")
    def _block_for_other(self, battle: Battle, struck: TargetedHit, _: Any) -> Outcome:
        """A sub-flow: whether a Block(N) memory blocks for the targeted memory; its value is the
        blocking memory's name (None: no block, or none left to offer)."""
        decision = self._ask_block(battle, struck)
        if len(decision.options) == 1:  # no block for others left: nothing to decide
            return Done(None)
        return Ask("block", struck, Frame("block_for_other.chosen", struck), decision)

    @asks("block")
    def _ask_block(self, battle: Battle, struck: TargetedHit) -> Decision:
        hit = struck.hit
        uid = hit.unit
        lose = {"expected_harm": {MEMORIES: 1}, "expected_harm_without": {MEMORIES: 1}}
        keep = {"expected_harm": {MEMORIES: 0}, "expected_harm_without": {MEMORIES: 1}}
        options = [
            Option(
                MemoryBlock(uid, None),
                f"take the hit: {struck.memory} is replaced",
                p_success=0.0,
                detail=lose,
            )
        ]
        for m in self._blockers(battle, uid):
            left = self.blocks_left(battle, uid, m)
            options.append(
                Option(
                    MemoryBlock(uid, m.name),
                    f"block with {m.name} (Block({m.block}); {left} block for others left this round)",
                    p_success=1.0,
                    detail={"ap": 0, "blocks_left": left, **keep},
                )
            )
        return Decision(
            unit=uid,
            kind="defence",
            options=tuple(options),
            context={"attacker": hit.attacker, "weapon": hit.weapon, "aim": hit.aim, "memory": struck.memory},
        )

    @step("block_for_other.chosen")
    def _block_chosen(self, battle: Battle, struck: TargetedHit, choice: Any) -> Outcome:
        if choice.memory is None:
            return Done(None)
        uid = struck.hit.unit
        blocker = next(m for m in self._blockers(battle, uid) if m.name == choice.memory)
        key = (uid, blocker.name)
        used = self.state(battle).block_used
        self._update(battle, block_used=_put(used, key, used.get(key, 0) + 1))
        return Done(blocker.name)


__all__ = [
    "DDOptions",
    "DDState",
    "DDStats",
    "DDWeapon",
    "DefenceDiceRuleset",
    "HitData",
    "HitsData",
    "Memory",
    "TargetedHit",
]
