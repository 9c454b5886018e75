"""GURPS active defences: which are possible against an attack, and at what score.

Implements the defence side of shared/rules/gurps-active-defense.txt (see
:mod:`game.rules.gurps.ruleset` for the whole ruleset and docs/rulesets/gurps.md for the
decisions). This module only reads the battle; rolling and moving happen in the
ruleset's attack flow.

A :class:`DefenceChoice` is one defence the defender could pick (Dodge, a
Parry with one weapon or bare-handed, Block; with or without retreat, Acrobatic
Dodge, dodge-and-drop). Its ``effs`` is the exact distribution of its effective
score: a single score normally, a mixture when a roll comes first (the
Acrobatics roll of an Acrobatic Dodge; under the ``ground_retreat_roll`` option,
the DX/Acrobatics roll of a retreat while lying down).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import MISSING, dataclass, fields
from functools import lru_cache
from typing import Any

from components.sight import Arc, SightFacts
from components.spatial import LYING_DOWN, Posture
from game.core.battle import Battle
from game.core.commands import Modifier
from game.dice.gurps import dodge_success_removed, p_success
from game.rules.base import BlockMemo
from game.rules.gurps.options import DEFAULTS, GurpsOptions
from game.rules.gurps.state import GurpsDefence, defence_record
from game.rules.gurps.stats import (
    JUDO_KARATE,
    POSTURES,
    RETREAT_PLUS3_UNARMED,
    Derived,
    GurpsStats,
    GurpsWeapon,
    ScoreRules,
    derived,
)

# The rule numbers are options (game.rules.gurps.options): every function here that applies one
# takes the ruleset's options as ``opts`` (the text's numbers by default).


def score_rules(opts: GurpsOptions) -> ScoreRules:
    """The rule numbers the derived scores of a stat block depend on (:func:`stats.derived`)."""
    return (
        opts.dodge_base,
        opts.vehicle_skill_divisor,
        opts.vehicular_dodge,
        opts.parry_base,
        opts.block_base,
    )


def scores(stats: GurpsStats, opts: GurpsOptions = DEFAULTS) -> Derived:
    """The derived scores of ``stats`` under ``opts``."""
    return derived(stats, score_rules(opts))


def multiple_parry(opts: GurpsOptions, fencing: bool, master: bool) -> int:
    """Cumulative modifier per parry after the first with the same weapon or hand in a turn."""
    if fencing and master:
        return opts.multiple_parry_fencing_master
    if fencing or master:
        return opts.multiple_parry_trained
    return opts.multiple_parry


def is_vehicle(stats: GurpsStats, opts: GurpsOptions = DEFAULTS) -> bool:
    """Whether ``stats`` dodges as a vehicle (Vehicular Dodge, if the rule is in force)."""
    return opts.vehicular_dodge and stats.vehicle_skill is not None


#: Status flags that leave no active defence (text: unconscious, immobilized).
NO_DEFENCE_STATUS = frozenset({"unconscious", "immobilized", "dead", "out"})
#: Melee reach: the base-edge gap (yards) a reach-R weapon covers is R - 1 + this slack
#: (adjacent GURPS hexes have touching 1-yard bases; half a hex of slack for free placement).
REACH_SLACK_YARDS = 0.5
BARE_HANDS = "bare hands"


def reach_limit_yards(reach: int) -> float:
    """Largest base-edge gap, in yards, a weapon of ``reach`` covers (C counts as 1: no close combat)."""
    return max(reach, 1) - 1 + REACH_SLACK_YARDS


def gap_yards(battle: Battle, a: str, b: str, distance: float | None = None) -> float:
    """Base-edge to base-edge distance between two units, in yards."""
    d = battle.distance(a, b) if distance is None else distance
    return max(0.0, d - battle.body(a).base - battle.body(b).base) * battle.yards_per_inch


def in_reach(battle: Battle, a: str, b: str, weapon: GurpsWeapon, distance: float | None = None) -> bool:
    return gap_yards(battle, a, b, distance) <= reach_limit_yards(weapon.reach) + 1e-9


@dataclass(frozen=True)
class AttackInfo:
    """What a defender needs to know about the attack it answers."""

    attacker: str
    weapon: GurpsWeapon
    sight: SightFacts  # attacker -> defender, read when the attack began
    hits: int = 1

    @property
    def ranged(self) -> bool:
        return self.weapon.kind != "melee"

    @property
    def unarmed(self) -> bool:
        return self.weapon.unarmed

    @property
    def judo_karate(self) -> bool:
        return self.weapon.unarmed and self.weapon.skill in JUDO_KARATE

    @property
    def kind(self) -> str:
        return self.weapon.kind


@dataclass(frozen=True)
class DefenceChoice:
    """One possible active defence with its exact odds."""

    kind: str  # dodge | parry | block
    weapon: str | None  # parrying weapon (or BARE_HANDS)
    eff: int  # effective score, before rolls that come first
    modifiers: tuple[Modifier, ...]
    retreat: bool = False
    drop: bool = False
    acrobatic: bool = False
    retreat_roll: int | None = None  # skill rolled to retreat while lying down
    acrobatics: int | None = None  # Acrobatics skill for an acrobatic dodge
    acrobatic_bonus: int = 2  # + on a made Acrobatics roll, - on a failed one (option)
    retreat_bonus: int = 0
    parry_skill: str | None = None  # skill a bare-handed parry uses
    repeat_penalty: int = 0  # a parry: what a further parry with the same weapon this turn takes

    @property
    def effs(self) -> tuple[tuple[float, int], ...]:
        """Exact distribution of the score, ((probability, score), ...)."""
        return _mixture(
            self.eff, self.acrobatics, self.retreat_roll, self.retreat_bonus, self.acrobatic_bonus
        )

    @property
    def p_success(self) -> float:
        return _p_mixture(self.effs)

    @property
    def key(self) -> tuple[str, str | None]:
        """Which defence this is, for All-Out Defence's "different defence"."""
        return (self.kind, self.weapon if self.kind == "parry" else None)

    def label(self) -> str:
        parts = [self.kind if self.weapon is None else f"parry ({self.weapon})"]
        if self.acrobatic:
            parts.insert(0, "acrobatic")
        if self.drop:
            parts.append("and drop")
        if self.retreat:
            parts.append("and retreat" + (" (roll)" if self.retreat_roll is not None else ""))
        return " ".join(parts) + f" {self.eff} ({self.p_success:.1%})"


@lru_cache(maxsize=4096)
def _p_mixture(effs: tuple[tuple[float, int], ...]) -> float:
    return sum(p * p_success(e) for p, e in effs)


@lru_cache(maxsize=4096)
def _mixture(
    eff: int, acrobatics: int | None, retreat_roll: int | None, retreat_bonus: int, acrobatic_bonus: int = 2
) -> tuple[tuple[float, int], ...]:
    """Distribution of the score when an Acrobatics roll and/or a retreat roll come first.

    ``eff`` already holds the retreat bonus when ``retreat_roll`` is None (no roll needed).
    """
    gates: list[list[tuple[float, int]]] = []
    if acrobatics is not None:
        pa = p_success(acrobatics)
        gates.append([(pa, acrobatic_bonus), (1.0 - pa, -acrobatic_bonus)])
    if retreat_roll is not None:
        pr = p_success(retreat_roll)
        gates.append([(pr, retreat_bonus), (1.0 - pr, 0)])
    if not gates:
        return ((1.0, eff),)
    out: dict[int, float] = {}
    for combo in itertools.product(*gates):
        p = 1.0
        e = eff
        for q, d in combo:
            p *= q
            e += d
        out[e] = out.get(e, 0.0) + p
    return tuple((p, e) for e, p in sorted(out.items()))


def no_defence_reason(battle: Battle, uid: str, info: AttackInfo) -> str | None:
    """Why ``uid`` gets no active defence against this attack (None: it may defend)."""
    status = battle.health(uid).status
    hit = sorted(status & NO_DEFENCE_STATUS)
    if hit:
        return hit[0]
    if info.sight.arc == Arc.REAR:
        return "unaware (attacked from the rear arc)"
    if not battle.sight(uid, info.attacker).visible:
        return "unaware (cannot see the attacker)"
    return None


def retreat_block_reason(
    battle: Battle, uid: str, info: AttackInfo, opts: GurpsOptions = DEFAULTS
) -> str | None:
    """Why ``uid`` may not retreat from this attack (None: it may)."""
    d = defence_record(battle, uid)
    if not opts.retreat:
        return "retreat is switched off (option retreat)"
    if info.ranged:
        return "retreat only against melee attacks"
    if d.retreat_count >= opts.retreats_per_turn:
        return "already retreated this turn"
    if d.interposed:
        return "moved to interpose (sacrificial dodge) this turn"
    posture = battle.posture(uid)
    if posture in (Posture.SITTING, Posture.KNEELING):
        return f"cannot retreat while {posture.value}"
    if "stunned" in battle.health(uid).status:
        return "cannot retreat while stunned"
    return None


def common_modifiers(
    battle: Battle, uid: str, info: AttackInfo, opts: GurpsOptions = DEFAULTS
) -> list[Modifier]:
    """Modifiers to every active defence: posture, stun, side arc, shield DB."""
    mods: list[Modifier] = []
    posture = battle.posture(uid)
    if POSTURES[posture].defence:
        mods.append(Modifier(f"posture {posture.value}", POSTURES[posture].defence, "defence"))
    if "stunned" in battle.health(uid).status:
        mods.append(Modifier("stunned", opts.stunned_defence, "defence"))
    if info.sight.arc == Arc.SIDE:
        mods.append(Modifier("side arc", opts.side_arc_defence, "defence"))
    stats: GurpsStats = battle.stats(uid)
    if stats.shield is not None and stats.shield.db and info.sight.arc == Arc.FRONT:
        mods.append(Modifier(f"{stats.shield.name} DB", stats.shield.db, "defence"))
    return mods


def dodge_base(battle: Battle, uid: str, opts: GurpsOptions = DEFAULTS) -> list[Modifier]:
    """Dodge and its reduction when reeling (below 1/3 HP: halved, rounded up)."""
    stats: GurpsStats = battle.stats(uid)
    dodge = scores(stats, opts).dodge
    vehicle = is_vehicle(stats, opts)
    mods = [Modifier("Vehicular Dodge" if vehicle else "Dodge", dodge, "defence")]
    h = battle.health(uid)
    hp = h.tracks.get("hp", stats.hp_max)
    if not vehicle and opts.reeling_divisor * hp < stats.hp_max:
        mods.append(Modifier(f"below 1/{opts.reeling_divisor} HP (Dodge halved)", -(dodge // 2), "defence"))
    return mods


def _carried(
    d: GurpsDefence, info: AttackInfo, kind: str, retreat_value: int, drop_value: int
) -> list[Modifier]:
    """Bonuses an earlier retreat / dodge-and-drop against the same foe still gives."""
    mods = []
    if _retreat_carries(d, info):
        mods.append(Modifier("retreat (earlier, same foe)", retreat_value, "defence"))
    if kind == "dodge" and info.ranged and info.attacker in d.drop_bonus_vs:
        mods.append(Modifier("dodge and drop (earlier, same foe)", drop_value, "defence"))
    return mods


def _retreat_carries(d: GurpsDefence, info: AttackInfo) -> bool:
    """An earlier retreat from this attacker still gives its bonus (the text: to every defence
    against every attack of that foe until the defender's next turn)."""
    return info.attacker in d.retreat_bonus_vs


def _with_retreat_variants(
    base: DefenceChoice,
    can_retreat: bool,
    retreat_value: int,
    lying: bool,
    roll_skill: int,
) -> list[DefenceChoice]:
    """``base`` and, if allowed, its retreating variant (``lying``: the ``ground_retreat_roll``
    option applies, a roll against ``roll_skill`` comes first)."""
    out = [base]
    if can_retreat:
        if lying:
            mod = Modifier(
                "retreat (if the roll to retreat from the ground succeeds)", retreat_value, "defence"
            )
            out.append(
                _make(
                    base,
                    retreat=True,
                    retreat_roll=roll_skill,
                    retreat_bonus=retreat_value,
                    extra=(mod,),
                    add=0,
                )
            )
        else:
            mod = Modifier("retreat", retreat_value, "defence")
            out.append(
                _make(base, retreat=True, retreat_bonus=retreat_value, extra=(mod,), add=retreat_value)
            )
    return out


#: Every field of :class:`DefenceChoice` in order, at its default (None for the required ones).
_BLANK: dict[str, Any] = {f.name: None if f.default is MISSING else f.default for f in fields(DefenceChoice)}


def _build(values: dict[str, Any], **changes: Any) -> DefenceChoice:
    """A DefenceChoice with the fields ``values`` updated by ``changes``, built without the frozen
    dataclass's ``object.__setattr__`` per field: that made construction 4x dearer, and
    defence_choices builds about ten choices per call (the AI prices every attack option with it)."""
    assert changes.keys() <= _BLANK.keys()
    c = object.__new__(DefenceChoice)
    c.__dict__.update(values, **changes)
    return c


def _make(
    base: DefenceChoice, *, extra: tuple[Modifier, ...] = (), add: int = 0, **changes: Any
) -> DefenceChoice:
    """A variant of ``base``: more modifiers (worth ``add``) and changed flags."""
    return _build(base.__dict__, eff=base.eff + add, modifiers=base.modifiers + extra, **changes)


def _choice(
    kind: str,
    weapon: str | None,
    mods: list[Modifier],
    parry_skill: str | None = None,
    repeat_penalty: int = 0,
) -> DefenceChoice:
    eff = int(sum(m.value for m in mods))
    return _build(
        _BLANK,
        kind=kind,
        weapon=weapon,
        eff=eff,
        modifiers=tuple(mods),
        parry_skill=parry_skill,
        repeat_penalty=repeat_penalty,
    )


def defence_choices(
    battle: Battle,
    uid: str,
    info: AttackInfo,
    exclude: frozenset[tuple[str, str | None]] = frozenset(),
    allow_retreat: bool = True,
    ground_roll: bool | None = None,
    opts: GurpsOptions = DEFAULTS,
) -> list[DefenceChoice]:
    """Every active defence ``uid`` may attempt against ``info`` now (empty: none).

    ``exclude`` lists defences that may not be tried again against this attack (All-Out
    Defence: the Dodge, or under ``double_defence_different`` every defence tried);
    ``allow_retreat`` False drops the retreat variants (e.g. when the caller knows no retreat
    point exists); ``ground_roll`` overrides the ``ground_retreat_roll`` option (a lying defender
    rolls to retreat); ``opts`` are the ruleset's options (the rule numbers and mechanics).
    """
    if no_defence_reason(battle, uid, info) is not None:
        return []
    stats: GurpsStats = battle.stats(uid)
    d = defence_record(battle, uid)
    common = common_modifiers(battle, uid, info, opts)
    can_retreat = allow_retreat and retreat_block_reason(battle, uid, info, opts) is None
    lying = battle.posture(uid) in LYING_DOWN
    rolls_to_retreat = lying and (opts.ground_retreat_roll if ground_roll is None else ground_roll)
    dv = scores(stats, opts)
    retreat_dodge, retreat_parry, retreat_fencing = (
        opts.retreat_dodge,
        opts.retreat_parry_block,
        opts.retreat_parry_fencing,
    )
    drop_dodge = opts.drop_dodge
    roll_skill = dv.ground_retreat_skill
    out: list[DefenceChoice] = []

    # Dodge, Acrobatic Dodge, dodge-and-drop.
    if ("dodge", None) not in exclude:
        mods = dodge_base(battle, uid, opts) + common + _carried(d, info, "dodge", retreat_dodge, drop_dodge)
        plain = _choice("dodge", None, mods)
        variants = [plain]
        acro = stats.skills.get("Acrobatics")
        if opts.acrobatic_dodge and acro is not None and not d.acrobatic:
            variants.append(
                _make(plain, acrobatic=True, acrobatics=acro, acrobatic_bonus=opts.acrobatic_bonus)
            )
        for v in variants:
            out += _with_retreat_variants(v, can_retreat, retreat_dodge, rolls_to_retreat, roll_skill)
        if opts.dodge_and_drop and info.ranged and not lying:
            drop = Modifier("dodge and drop", drop_dodge, "defence")
            out += [_make(v, drop=True, extra=(drop,), add=drop_dodge) for v in variants]

    # Parries with each ready melee weapon.
    master = stats.trained_by_a_master or stats.weapon_master
    for w in stats.weapons:
        if w.kind != "melee" or w.unarmed or w.parry is None or ("parry", w.name) in exclude:
            continue
        if w.unbalanced and w.name in battle.turn(uid).attacked_with:
            continue  # an unbalanced weapon cannot parry after attacking this turn
        if info.kind == "missile" and not in_reach(battle, uid, info.attacker, w, info.sight.distance):
            continue
        mods = [
            Modifier(
                f"Parry ({w.skill}-{stats.skills[w.skill]})",
                opts.parry_base + stats.skills[w.skill] // 2,
                "defence",
            )
        ]
        if w.parry:
            mods.append(Modifier(f"{w.name} parry bonus", w.parry, "defence"))
        mods += _parry_situational(stats, d, info, w.name, w.fencing, master, w.off_hand, opts)
        retreat_value = retreat_fencing if w.fencing else retreat_parry
        mods += common + _carried(d, info, "parry", retreat_value, drop_dodge)
        repeat = multiple_parry(opts, w.fencing, master)
        out += _with_retreat_variants(
            _choice("parry", w.name, mods, repeat_penalty=repeat),
            can_retreat,
            retreat_value,
            rolls_to_retreat,
            roll_skill,
        )

    # Bare-handed parry: the best of the unarmed skills and DX.
    if (
        dv.has_free_hand
        and ("parry", BARE_HANDS) not in exclude
        and (info.kind != "missile" or gap_yards(battle, uid, info.attacker) <= reach_limit_yards(1))
    ):
        shared = _parry_situational(stats, d, info, BARE_HANDS, False, master, False, opts) + common
        vs_weapon = not info.unarmed and not info.weapon.is_thrust
        bare_repeat = multiple_parry(opts, False, master)
        vs_weapon_mod = opts.bare_hands_vs_weapon

        def bare_hand(skill: str, score: int) -> list[DefenceChoice]:
            mods = [Modifier(f"Parry ({skill}, bare-handed)", score, "defence")]
            if vs_weapon and skill not in JUDO_KARATE:
                mods.append(Modifier("bare hands vs weapon", vs_weapon_mod, "defence"))
            retreat_value = retreat_fencing if skill in RETREAT_PLUS3_UNARMED else retreat_parry
            mods += shared + _carried(d, info, "parry", retreat_value, drop_dodge)
            return _with_retreat_variants(
                _choice("parry", BARE_HANDS, mods, parry_skill=skill, repeat_penalty=bare_repeat),
                can_retreat,
                retreat_value,
                rolls_to_retreat,
                roll_skill,
            )

        # Which skill wins depends on the block and these alone (each skill's score is its own
        # Parry, its -3, the shared sum and its carried retreat): find it once, build only it.
        key = (
            "bare hands",
            vs_weapon,
            _retreat_carries(d, info),
            sum(m.value for m in shared),
            can_retreat,
            rolls_to_retreat,
            opts.parry_base,
            vs_weapon_mod,
            retreat_fencing,
            retreat_parry,
        )
        out += bare_hand(
            *_BARE_HAND_BEST.get(stats, key, lambda: _best_bare_hand(dv.bare_hand_parry, bare_hand))
        )

    # Block: once per turn, never against bullets or beams.
    fast = info.kind == "missile" and info.weapon.projectile in ("bullet", "beam")
    block = dv.block
    if (
        stats.shield is not None
        and block is not None
        and d.block_count < opts.blocks_per_turn
        and not fast
        and ("block", None) not in exclude
    ):
        skill = stats.shield.skill
        mods = [Modifier(f"Block ({skill}-{stats.skills[skill]})", block, "defence")]
        mods += common + _carried(d, info, "block", retreat_parry, drop_dodge)
        out += _with_retreat_variants(
            _choice("block", None, mods), can_retreat, retreat_parry, rolls_to_retreat, roll_skill
        )
    return out


#: The winning bare-handed parry (skill, score) per stat block and situation, see defence_choices.
_BARE_HAND_BEST = BlockMemo()


def _best_bare_hand(
    options: tuple[tuple[str, int], ...], build: Callable[[str, int], list[DefenceChoice]]
) -> tuple[str, int]:
    """The (skill, score) whose choices give the best chance, the first on a tie."""
    best: tuple[str, int] | None = None
    best_p = 0.0
    for option in options:
        p = max(c.p_success for c in build(*option))
        if best is None or p > best_p:
            best, best_p = option, p
    assert best is not None, "DX always parries bare-handed"
    return best


def _parry_situational(
    stats: GurpsStats,
    d: GurpsDefence,
    info: AttackInfo,
    name: str,
    fencing: bool,
    master: bool,
    off_hand: bool,
    opts: GurpsOptions,
) -> list[Modifier]:
    mods = []
    used = d.parries.get(name, 0)
    if used:
        mods.append(
            Modifier(f"parry #{used + 1} this turn", multiple_parry(opts, fencing, master) * used, "defence")
        )
    if off_hand and not stats.ambidexterity:
        mods.append(Modifier("off hand", opts.off_hand_parry, "defence"))
    if info.kind == "thrown":
        small = info.weapon.weight <= opts.small_thrown_lb
        mods.append(
            Modifier(
                "small thrown weapon" if small else "thrown weapon",
                opts.small_thrown_parry if small else opts.thrown_parry,
                "defence",
            )
        )
    return mods


# ---- exact landing odds (for attack options) -----------------------------------------------


def landing_pmf(hits: int, stages: list[DefenceChoice]) -> list[float]:
    """P(k of ``hits`` land) after the defender tries ``stages`` in turn (the next only if one fails).

    A successful Dodge removes 1 + margin hits (all on a critical); a successful
    Parry or Block stops one hit.
    """
    return list(_landing(hits, tuple((c.kind == "dodge", c.effs) for c in stages)))


def landing_odds(
    hits: int, stages: tuple[tuple[bool, tuple[tuple[float, int], ...]], ...]
) -> tuple[float, ...]:
    """:func:`landing_pmf` for stages given as ``((is a dodge, score distribution), ...)``."""
    return _landing(hits, stages)


@lru_cache(maxsize=4096)
def _landing(hits: int, stages: tuple[tuple[bool, tuple[tuple[float, int], ...]], ...]) -> tuple[float, ...]:
    out = [0.0] * (hits + 1)
    if not stages:
        out[hits] = 1.0
        return tuple(out)
    (dodge, effs), rest = stages[0], stages[1:]
    after_fail = _landing(hits, rest)
    for pe, eff in effs:
        p_ok = p_success(eff)
        for k, q in enumerate(after_fail):
            out[k] += pe * (1.0 - p_ok) * q
        if dodge:
            for removed, q in enumerate(dodge_success_removed(hits, eff)):
                out[hits - removed] += pe * q
        else:
            out[hits - min(hits, 1)] += pe * p_ok
    return tuple(out)


def may_repeat(kind: str, different: bool) -> bool:
    """Whether All-Out Defence's second defence may be the same as the first: never a second
    Dodge (the text: one Dodge roll per attack) nor Block (one block per turn);
    a parry with the same weapon unless ``different`` (the ``double_defence_different`` option)."""
    return kind == "parry" and not different


def best_stages(choices: list[DefenceChoice], double: bool, different: bool = False) -> list[DefenceChoice]:
    """The defender's best defence (and, with All-Out Defence, its best second one: see
    :func:`may_repeat`; a repeated parry takes its multiple-parry penalty)."""
    if not choices:
        return []
    first = max(choices, key=lambda c: c.p_success)
    if not double:
        return [first]
    # After a retreat its bonus carries to the second defence: the retreat variants price that.
    others = []
    for c in choices:
        if c.retreat != first.retreat or (first.acrobatic and c.acrobatic):
            continue
        if c.key == first.key:
            if not may_repeat(c.kind, different):
                continue
            penalty = Modifier("same weapon again (All-Out Defence)", c.repeat_penalty, "defence")
            c = _make(c, extra=(penalty,), add=c.repeat_penalty)
        others.append(c)
    if not others:
        return [first]
    return [first, max(others, key=lambda c: c.p_success)]
