"""Defence-dice ruleset: aim dice, dodge and cover defence dice, Block and Armour memories.

Implements shared/rules/defence-dice-and-cover-units.txt. docs/rulesets/defence-dice.md
lists every number and decision.

From the text:
- Defence dice are rolled at the start of an encounter; a unit's dodge dice
  (as many as its Vitality) are rerolled when it moves.
- An attack die lands on an aim (a face of the aim die). A hit on an aim the
  target shows on one of its defence dice is avoided.
- Cover: a unit between attacker and target grants cover to both, relative to
  each other. A cover roll is made for it when an attack passes; a hit on an
  aim the cover roll shows hits the cover unit instead. The roll is kept for
  later attacks between the same pair and rerolled only when the cover unit
  moves or is damaged.
- Hidden (behind cover, adjacent to cover at least its size): +1 attack die
  against foes on the other side, and -1 Insight and Resolve for both units
  on information checks about each other.
- Block(N) memories are immune to normal damage and block the attack, for
  themselves and N-1 other memories; a blocked attack still hits for control
  attacks and concussive damage. Armour(a-b) memories block hits on aims a..b;
  no two pieces of armour may cover the same aim (a stat-block error here).

Where the text is silent (decisions):
- Aim die: a d10 (the text's example shows a 10), or a d12 with option
  ``aim_die: 12``.
- Memories are the health track. A landed hit is aimed at the first intact
  ordinary memory in the stat block's order and replaces it with "fight or
  flight", unless it is blocked: first by an intact Armour memory covering the
  aim, else by a Block(N) memory with a charge left (N charges a round: the
  block for itself and for N-1 other memories; charges return each round).
  Block and Armour memories are immune and never replaced. Against a control
  or concussive attack the block still happens (a charge is used) but the
  hit still lands: the blocked memory is replaced anyway. A unit whose
  ordinary memories are all replaced is out of action.
- Attack dice per weapon are stat data (``Weapon.dice``); every attack die is
  one potential hit. Cover dice: one per cover unit of human size (size
  rounded, at least 1). Cover beats dodge: a face shown by a cover die goes to
  the nearest such cover unit even if the target's dodge dice show it too. A
  hit diverted to a cover unit meets that unit's Armour and Block memories
  but not its dodge dice (it was not the one attacked). Cover rolls are made
  the first time an attack passes a cover unit in a round and kept for that
  round, for the pair in both directions; a new round, or the cover unit
  moving or taking damage, clears them.
- Dodge dice are rolled at each unit's first round start (the encounter
  start) and rerolled after any movement of the unit (moves, steps, retreats).
- No defence decision is posed: every defence here is a die already rolled
  (or rolled by the referee), so the attack resolves without a reaction.
- Insight and Resolve are used for initiative, the one information check of a
  battle: each round every unit rolls one aim die + Insight, highest first;
  ties go to higher Resolve, then a roll-off. A unit hidden from an enemy, or
  with an enemy hidden from it, is at -1 Insight and -1 Resolve.
- Turn economy: 2 AP a round; moving costs 1 AP per 5 yards, an attack 1 AP
  (one attack a turn), a posture change 1 AP, facing is free. Melee reach is
  measured base edge to base edge (``Weapon.reach`` yards, default 1); ranged
  reach centre to centre (``Weapon.range`` yards). Every target needs a line
  of sight.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from components.sight import CoverLevel, SightFacts
from components.state import Health
from game.core.battle import Battle, Flow
from game.core.commands import Attack, Modifier, Option
from game.dice.aims import AIM_DIE_SIZES, AimOdds, land_odds, parse_aimline
from game.rules.base import Ruleset, StrictModel, UnitSetup

# ---- rule data (text) ----------------------------------------------------------------------------

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


class DDOptions(StrictModel):
    """``aim_die``: faces of the aim die (10 or 12)."""

    aim_die: Literal[10, 12] = DEFAULT_AIM_DIE


# ---- per-battle state ----------------------------------------------------------------------------


@dataclass
class _State:
    dodge: dict[str, tuple[int, ...]] = field(default_factory=dict)  # rolled dodge faces per unit
    cover: dict[tuple[str, frozenset[str]], tuple[int, ...]] = field(
        default_factory=dict
    )  # (cover, pair) -> faces
    lost: dict[str, set[str]] = field(default_factory=dict)  # replaced memories per unit
    block_used: dict[tuple[str, str], int] = field(default_factory=dict)  # (unit, memory) -> charges used


@dataclass(frozen=True)
class AttackPlan:
    """Everything an attack's odds and resolution need, read once at its start."""

    dice: int
    modifiers: tuple[Modifier, ...]
    cover_units: tuple[str, ...]
    odds: AimOdds


class DefenceDiceRuleset(Ruleset):
    """Defence dice: aim dice against rolled dodge and cover dice; memories as health."""

    name: ClassVar[str] = "defence-dice"
    source: ClassVar[str] = "defence-dice-and-cover-units.txt"
    Stats: ClassVar[type[StrictModel]] = DDStats
    Options: ClassVar[type[StrictModel]] = DDOptions

    @property
    def aim_die(self) -> int:
        return int(getattr(self.options, "aim_die", DEFAULT_AIM_DIE))

    def state(self, battle: Battle) -> _State:
        return self.battle_state(battle, _State)

    # ---- set-up ----------------------------------------------------------------------------------
    @classmethod
    def default_stats(cls) -> DDStats:
        return TROOPER

    def setup_unit(self, stats: Any) -> UnitSetup:
        ordinary = sum(1 for m in stats.memories if not m.guard)
        return UnitSetup(
            Health({MEMORIES: ordinary, FIGHT_OR_FLIGHT: 0}, {MEMORIES: ordinary, FIGHT_OR_FLIGHT: ordinary}),
            MAX_AP,
        )

    # ---- memories --------------------------------------------------------------------------------
    def intact(self, battle: Battle, uid: str) -> list[Memory]:
        lost = self.state(battle).lost.get(uid, set())
        return [m for m in battle.stats(uid).memories if m.name not in lost]

    def armoured_aims(self, battle: Battle, uid: str) -> frozenset[int]:
        out: set[int] = set()
        for m in self.intact(battle, uid):
            out |= m.aims
        return frozenset(out)

    def block_charges(self, battle: Battle, uid: str) -> int:
        used = self.state(battle).block_used
        return sum(max(0, m.block - used.get((uid, m.name), 0)) for m in self.intact(battle, uid) if m.block)

    # ---- rounds and turns ------------------------------------------------------------------------
    def hidden_with_enemy(self, battle: Battle, uid: str) -> bool:
        """Whether ``uid`` hides from an enemy or an enemy hides from it (information checks at -1)."""
        return any(battle.sight(uid, e).hidden or battle.sight(e, uid).hidden for e in battle.enemies(uid))

    def info_scores(self, battle: Battle, uid: str) -> tuple[int, int, list[Modifier]]:
        """(Insight, Resolve, modifiers) for an information check such as initiative."""
        s: DDStats = battle.stats(uid)
        if self.hidden_with_enemy(battle, uid):
            mods = [Modifier("hidden", HIDDEN_INFO_MODIFIER, "insight/resolve")]
            return s.insight + HIDDEN_INFO_MODIFIER, s.resolve + HIDDEN_INFO_MODIFIER, mods
        return s.insight, s.resolve, []

    def initiative(self, battle: Battle, units: Sequence[str]) -> list[str]:
        keys: dict[str, list[int]] = {}
        for u in units:
            insight, resolve, _ = self.info_scores(battle, u)
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
        st.cover.clear()
        st.block_used.clear()
        for uid in battle.units():
            if uid not in st.dodge:  # the encounter starts for this unit: roll its dodge dice
                self.roll_dodge(battle, uid, "encounter start")

    def roll_dodge(self, battle: Battle, uid: str, why: str) -> tuple[int, ...]:
        n = battle.stats(uid).vitality
        faces = tuple(battle.dice.roll(n, self.aim_die, f"dodge dice ({why})", uid))
        self.state(battle).dodge[uid] = faces
        battle.emit("defence_dice", unit=uid, kind="dodge", faces=list(faces), reason=why)
        return faces

    def start_turn(self, battle: Battle, uid: str) -> bool:
        return not battle.health(uid).out_of_action

    def inches_per_ap(self, battle: Battle, uid: str) -> float:
        return MOVE_YARDS_PER_AP / battle.yards_per_inch

    def action_costs(self, battle: Battle, uid: str) -> dict[str, int]:
        return dict(ACTION_COSTS)

    def _drop_cover(self, battle: Battle, uid: str) -> None:
        cover = self.state(battle).cover
        for key in [k for k in cover if k[0] == uid]:
            del cover[key]

    def on_moved(self, battle: Battle, uid: str, kind: str, length: float) -> None:
        if length <= 0:
            return
        self._drop_cover(battle, uid)
        if uid in self.state(battle).dodge and not battle.health(uid).out_of_action:
            self.roll_dodge(battle, uid, kind)

    def on_damaged(self, battle: Battle, uid: str) -> None:
        self._drop_cover(battle, uid)

    # ---- attacks ---------------------------------------------------------------------------------
    def cover_dice(self, battle: Battle, cover_uid: str) -> int:
        return max(1, round(battle.body(cover_uid).size)) * COVER_DICE_PER_SIZE

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
        if battle.sight(target, uid).hidden:
            mods.append(Modifier("hidden", HIDDEN_ATTACK_DICE, "attack dice"))
        dice = int(sum(m.value for m in mods))
        pair = frozenset((uid, target))
        defended: set[int] = set(st.dodge.get(target, ()))
        unrolled = 0 if target in st.dodge else battle.stats(target).vitality
        cover_units = tuple(c for c in sight.intervening if c not in (uid, target))
        for c in cover_units:
            known = st.cover.get((c, pair))
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
                        },
                    )
                )
        return out

    def cover_faces(self, battle: Battle, cover_uid: str, uid: str, target: str) -> tuple[int, ...]:
        """The cover roll of ``cover_uid`` between this pair, rolled now if not yet rolled."""
        st = self.state(battle)
        key = (cover_uid, frozenset((uid, target)))
        if key not in st.cover:
            n = self.cover_dice(battle, cover_uid)
            faces = tuple(battle.dice.roll(n, self.aim_die, "cover dice", cover_uid))
            st.cover[key] = faces
            battle.emit(
                "defence_dice", unit=cover_uid, kind="cover", faces=list(faces), between=sorted((uid, target))
            )
        return st.cover[key]

    def attack(self, battle: Battle, cmd: Attack) -> Flow:
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
        for unit, aim in landed:
            if not battle.health(unit).out_of_action:
                self._hit(battle, unit, uid, weapon, aim)
        return
        yield  # pragma: no cover - makes this a generator

    def _hit(self, battle: Battle, uid: str, attacker: str, weapon: DDWeapon, aim: int) -> None:
        """One landed hit on ``uid`` at ``aim``: armour, then a block, then the first ordinary memory."""
        st = self.state(battle)
        intact = self.intact(battle, uid)
        victim = next((m for m in intact if not m.guard), None)
        if victim is None:
            return
        blocker = next((m for m in intact if aim in m.aims), None)
        if blocker is None:
            for m in intact:
                if m.block and st.block_used.get((uid, m.name), 0) < m.block:
                    blocker = m
                    st.block_used[(uid, m.name)] = st.block_used.get((uid, m.name), 0) + 1
                    break
        if blocker is not None:
            battle.emit(
                "block",
                unit=uid,
                attacker=attacker,
                memory=blocker.name,
                aim=aim,
                protects=victim.name,
                still_hits=weapon.piercing,
            )
            if not weapon.piercing:
                return
        st.lost.setdefault(uid, set()).add(victim.name)
        battle.damage(
            uid,
            {MEMORIES: -1, FIGHT_OR_FLIGHT: 1},
            source=attacker,
            weapon=weapon.name,
            aim=aim,
            memory=victim.name,
            blocked_by=blocker.name if blocker is not None else None,
        )
        if battle.health(uid).tracks[MEMORIES] <= 0 and not battle.health(uid).out_of_action:
            battle.set_status(uid, "out", True, "every memory replaced by fight or flight")


__all__ = ["DDOptions", "DDStats", "DDWeapon", "DefenceDiceRuleset", "Memory"]
