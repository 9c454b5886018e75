"""GURPS reactions: sacrificial dodge, active defences, retreat and follow, parry injuries.

Part of the GURPS ruleset (:mod:`game.rules.gurps.ruleset`): the attack flow's reaction
steps from shared/rules/gurps-active-defense.txt. After a successful attack
roll (not a critical hit) each eligible friend of the target, nearest first,
may announce a Sacrificial Dodge; then the target picks one active defence
(a second one under All-Out Defence if the first fails), with retreat,
acrobatics or dodge-and-drop as allowed; a retreating defender moves to the
retreat point snapped onto the legal band (exactly one yard with Move under
10 yd: :func:`game.movement.regions.snap_retreat`) and may be followed by the
attacker's unused step. Which defences exist and their scores come from
:mod:`game.rules.gurps.defence`; the rule variants from
:mod:`game.rules.gurps.options`.

The reactions are steps of the attack flow (:mod:`game.core.flow`), each given a frozen value
registered with :mod:`game.core.codec`: :class:`AttackData` (the attack roll and the sight facts
read when the attack began, which stand even after a drop or retreat), :class:`InterposeData`
(the friends offered a sacrificial dodge, nearest first, and which one is asked),
:class:`DefendData` (the stage of the defence, two under All-Out Defence, and the defences tried),
:class:`RolledData` (a defence rolled, waiting for the attacker's follow-up step) and
:class:`FollowData`. Weapons are kept by name; what a step needs beyond the data (the
:class:`~game.rules.gurps.defence.AttackInfo`, the defence choices a decision offered) is
re-derived from the battle, which has not changed between a decision and its answer.

Steps: ``attack.interpose`` asks each eligible friend in turn (``interpose`` decisions),
``attack.interposed`` resolves a sacrificial dodge or asks the next friend; ``defence`` (a
sub-flow whose value is the hits that still land) asks the target (``defence`` decisions),
``defence.chosen`` rolls the chosen defence, ``defence.rolled`` ends it or asks for the second
defence; ``follow`` (a sub-flow) offers the attacker its unused step after a retreat
(``follow`` decision), ``follow.moved`` takes it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from components.sight import SightFacts
from components.spatial import LYING_DOWN, Posture
from game.core.battle import Battle, Region
from game.core.codec import value
from game.core.commands import Decision, Defend, LazyRegion, Modifier, Option
from game.core.flow import Ask, Call, Done, Frame, Outcome, asks, step
from game.dice.gurps import (
    RollResult,
    hits_dodged,
    judge,
    p_gated,
    p_margin_at_least,
    p_success,
)
from game.movement.regions import snap_retreat
from game.rules.gurps.commands import Follow, Interpose, defence_flags, defend
from game.rules.gurps.damage import HP, GurpsCore
from game.rules.gurps.defence import (
    BARE_HANDS,
    AttackInfo,
    DefenceChoice,
    best_stages,
    common_modifiers,
    defence_choices,
    dodge_base,
    gap_yards,
    landing_odds,
    landing_pmf,
    may_repeat,
    no_defence_reason,
)
from game.rules.gurps.options import GurpsOptions
from game.rules.gurps.state import defence_record, turn_record, update_defence
from game.rules.gurps.stats import GurpsStats, GurpsWeapon

AOD = "all_out_defence"
AIM = "aim"
#: Maneuvers that allow a step (Attack, All-Out Defence, Aim).
STEP_MANEUVERS = frozenset({"attack", AOD, AIM})


def region_is_empty(geometry: Any) -> bool:
    """Whether a region geometry (shapely, or a :class:`LazyRegion` of an object answering
    ``is_empty`` without being built, like a retreat's arcs) holds no point."""
    if isinstance(geometry, LazyRegion):
        geometry = geometry.build
    return geometry is None or bool(geometry.is_empty)


# ---- the attack flow's data (game.core.flow): frozen, named for snapshots ---------------------


@value("gurps.attack")
@dataclass(frozen=True, slots=True)
class AttackData:
    """A successful attack roll: who attacks whom with which weapon (by name), the sight facts
    read when the attack began (they stand even after a drop or retreat), the 3d6 ``roll``
    against effective skill ``eff`` and the ``hits`` it scores."""

    attacker: str
    target: str
    weapon: str
    sight: SightFacts
    roll: int
    eff: int
    hits: int

    @property
    def result(self) -> RollResult:
        """The judged attack roll."""
        return judge(self.roll, self.eff)


@value("gurps.interpose")
@dataclass(frozen=True, slots=True)
class InterposeData:
    """The sacrificial dodges offered against ``attack``: the target's ``friends``, nearest
    first, and the index ``i`` of the one asked (or to look at next)."""

    attack: AttackData
    friends: tuple[str, ...]
    i: int = 0

    @property
    def friend(self) -> str:
        return self.friends[self.i]


@value("gurps.defend")
@dataclass(frozen=True, slots=True)
class DefendData:
    """The target's active defence against ``attack``: defence ``stage`` of ``stages`` (two under
    All-Out Defence) and the defences ``tried`` that may not be tried again."""

    attack: AttackData
    stages: int
    stage: int = 1
    tried: frozenset[tuple[str, str | None]] = frozenset()


@value("gurps.rolled")
@dataclass(frozen=True, slots=True)
class RolledData:
    """A defence rolled at ``defend``'s stage: its ``kind`` and parrying ``weapon``, whether it
    ``success``\\ ful, the hits it ``removed``."""

    defend: DefendData
    kind: str
    weapon: str | None
    success: bool
    removed: int


@value("gurps.follow")
@dataclass(frozen=True, slots=True)
class FollowData:
    """The ``attacker`` may follow the retreating ``defender`` with its unused step."""

    attacker: str
    defender: str


class GurpsReactions(GurpsCore):
    """The reaction half of the GURPS attack flow."""

    if TYPE_CHECKING:  # provided by game.rules.base.Ruleset; this class is its mixin
        options: GurpsOptions

    def step_inches(self, battle: Battle, uid: str) -> float:
        """A GURPS step: 1 yard or 1/10 of Move (option ``step_move_divisor``), whichever is more,
        in inches."""
        move = battle.stats(uid).encumbered_move
        return max(1.0, move / float(self.options.step_move_divisor)) / battle.yards_per_inch

    def retreat_band(self, battle: Battle, uid: str) -> tuple[float, float]:
        """(shortest, longest) retreat in inches: at least one yard, at most a step (text)."""
        return 1.0 / battle.yards_per_inch, self.step_inches(battle, uid)

    def defences(
        self,
        battle: Battle,
        uid: str,
        info: AttackInfo,
        exclude: frozenset[tuple[str, str | None]] = frozenset(),
    ) -> list[DefenceChoice]:
        """:func:`~game.rules.gurps.defence.defence_choices` under this ruleset's options."""
        return defence_choices(battle, uid, info, exclude=exclude, opts=self.options)

    def best_defences(self, battle: Battle, uid: str, info: AttackInfo) -> list[DefenceChoice]:
        """The defence (two under All-Out Defence) ``uid`` would best take against ``info``."""
        return best_stages(
            self.defences(battle, uid, info),
            turn_record(battle, uid).maneuver == AOD,
            self.options.double_defence_different,
        )

    def attack_info(
        self, battle: Battle, uid: str, w: GurpsWeapon, sight: SightFacts, hits: int = 1
    ) -> AttackInfo:
        return AttackInfo(uid, w, sight, hits)

    def _weapon(self, battle: Battle, a: AttackData) -> GurpsWeapon:
        w: GurpsWeapon = battle.stats(a.attacker).weapon(a.weapon)
        return w

    def _info(self, battle: Battle, a: AttackData, sight: SightFacts | None = None) -> AttackInfo:
        """What a defender knows of the attack ``a`` (the target, or one seeing it as ``sight``)."""
        seen = a.sight if sight is None else sight
        return self.attack_info(battle, a.attacker, self._weapon(battle, a), seen, a.hits)

    def _defend_then_land(self, a: AttackData) -> Call:
        """The target defends (the sub-flow ``defence``); the hits left land (``attack.land``)."""
        return Call(Frame("defence", a), Frame("attack.land", a))

    @step("attack.land")
    def _land(self, battle: Battle, a: AttackData, hits: int) -> Outcome:
        """The ``hits`` that got through hurt the target one by one, while it stands."""
        w = self._weapon(battle, a)
        for _ in range(hits):
            if battle.health(a.target).out_of_action:
                break
            self._hit(battle, a.attacker, a.target, w, a.sight)
        return None

    # ---- sacrificial dodge ------------------------------------------------------------------------
    def _sacrificial(self, battle: Battle, a: AttackData) -> Outcome:
        """Offer each eligible friend of the target, nearest first, to interpose (then the target
        defends, unless a friend took the attack); none with the option ``sacrificial_dodge`` off."""
        if not self.options.sacrificial_dodge:
            return self._defend_then_land(a)
        friends = sorted(battle.friends(a.target), key=lambda f: battle.distance(f, a.target))
        return self._next_interposer(battle, InterposeData(a, tuple(friends)), None)

    @step("attack.interpose")
    def _next_interposer(self, battle: Battle, p: InterposeData, _: Any) -> Outcome:
        """Ask the first eligible friend from ``p.i`` on; none left: the target defends."""
        for i in range(p.i, len(p.friends)):
            region = self._interpose_region(battle, p.attack, p.friends[i])
            if region is None:
                continue
            asked = replace(p, i=i)
            decision = self._interpose_decision(battle, asked, region)
            return Ask("interpose", asked, Frame("attack.interposed", asked), decision)
        return self._defend_then_land(p.attack)

    def _interpose_region(self, battle: Battle, a: AttackData, f: str) -> Region | None:
        """Where ``f`` may step to take the attack ``a`` (None: it cannot interpose)."""
        step_len = self.step_inches(battle, f)
        # Cheap pre-filter: a step must bring the friend's base into the line of fire.
        reach = step_len + battle.body(f).base + battle.body(a.target).base
        if _segment_distance(battle.pos(f), battle.pos(a.attacker), battle.pos(a.target)) > reach + 1e-9:
            return None
        if no_defence_reason(battle, f, self._info(battle, a, battle.sight(a.attacker, f))) is not None:
            return None
        region = battle.interpose_region(f, a.target, a.attacker, step_len)
        return None if region_is_empty(region.geometry) else region

    @asks("interpose")
    def _ask_interpose(self, battle: Battle, p: InterposeData) -> Decision:
        a = p.attack
        region = battle.interpose_region(p.friend, a.target, a.attacker, self.step_inches(battle, p.friend))
        return self._interpose_decision(battle, p, region)

    def _interpose_decision(self, battle: Battle, p: InterposeData, region: Region) -> Decision:
        a, f = p.attack, p.friend
        info = self._info(battle, a, battle.sight(a.attacker, f))
        # The target's own defence, if nobody takes the attack for it.
        tinfo = self._info(battle, a, battle.sight(a.attacker, a.target))
        p_friend = landing_pmf(a.hits, self.best_defences(battle, a.target, tinfo))[0]
        step_len = self.step_inches(battle, f)
        options = self._interpose_options(battle, f, a.target, info, region, step_len, p_friend)
        return Decision(
            f,
            "interpose",
            tuple(options),
            context={
                "attacker": a.attacker,
                "target": a.target,
                "weapon": a.weapon,
                "roll": a.roll,
                "hits": a.hits,
            },
        )

    def _interpose_options(
        self,
        battle: Battle,
        f: str,
        target: str,
        info: AttackInfo,
        region: Any,
        step: float,
        p_friend: float,
    ) -> list[Option]:
        """Not interposing, and each sacrificial dodge ``f`` may make: the ordinary rules for a
        dodge (Acrobatic Dodge if unused this turn; dodge-and-drop against a ranged attack with
        the friend no more than a step away), never with a retreat (text)."""
        options = [Option(Interpose(f, target, None), "do not interpose", p_success=0.0)]
        attacker, w, hits = info.attacker, info.weapon, info.hits
        p_down_self = self.p_down(battle, attacker, f, w, info.sight, hits)
        p_down_friend = self.p_down(battle, attacker, target, w, battle.sight(attacker, target), hits)
        opts = self.options
        drop_dodge, bonus, margin = opts.drop_dodge, opts.acrobatic_bonus, opts.sacrificial_drop_margin
        mods = (*dodge_base(battle, f, opts), *common_modifiers(battle, f, info, opts))
        eff = int(sum(m.value for m in mods))
        acro = battle.stats(f).skills.get("Acrobatics")
        can_drop = (
            opts.dodge_and_drop
            and info.ranged
            and battle.posture(f) not in LYING_DOWN
            and gap_yards(battle, f, target) <= step * battle.yards_per_inch + 1e-9
        )
        acrobatics = opts.acrobatic_dodge and acro is not None and not defence_record(battle, f).acrobatic
        for acrobatic in (False, True) if acrobatics else (False,):
            for drop in (False, True) if can_drop else (False,):
                deff = eff + (drop_dodge if drop else 0)
                extra = (Modifier("dodge and drop", drop_dodge, "defence"),) if drop else ()
                if acrobatic:
                    assert acro is not None
                    pa = p_success(acro)
                    p = p_gated(pa, deff + bonus, deff - bonus)
                    p_clear = pa * p_margin_at_least(deff + bonus, margin) + (1.0 - pa) * p_margin_at_least(
                        deff - bonus, margin
                    )
                else:
                    p = p_success(deff)
                    p_clear = p_margin_at_least(deff, margin)
                name = "acrobatic sacrificial dodge" if acrobatic else "sacrificial dodge"
                detail: dict[str, Any] = {
                    "eff": deff,
                    "p_friend_defends": p_friend,
                    "p_down_self": p_down_self,
                    "p_down_friend": p_down_friend,
                }
                if acrobatic:
                    detail["acrobatics"] = acro
                if drop:
                    detail["p_nobody_hit"] = p_clear
                options.append(
                    Option(
                        Interpose(f, target, None, drop=drop, acrobatic=acrobatic),
                        f"{name}{' and drop' if drop else ''} {deff} ({p:.0%})",
                        p_success=p,
                        modifiers=(*mods, *extra),
                        point_field="to",
                        region=region.geometry,
                        validate=region.validate,
                        detail=detail,
                    )
                )
        return options

    @step("attack.interposed")
    def _interposed(self, battle: Battle, p: InterposeData, choice: Interpose) -> Outcome:
        """The asked friend's answer: not interposing, ask the next; else resolve its dodge (a
        friend who takes the attack takes its hits; one who fails leaves the target to defend)."""
        if choice.to is None:
            return self._next_interposer(battle, replace(p, i=p.i + 1), None)
        a = p.attack
        info = self._info(battle, a, battle.sight(a.attacker, p.friend))  # read before it moves
        who, taken = self._resolve_interpose(battle, p.friend, a.target, a.attacker, choice, info, a.hits)
        if who is None:
            return self._defend_then_land(a)
        w = self._weapon(battle, a)
        for _ in range(taken):
            self._hit(battle, a.attacker, who, w, a.sight)
        return None

    def _resolve_interpose(
        self,
        battle: Battle,
        f: str,
        target: str,
        attacker: str,
        choice: Interpose,
        info: AttackInfo,
        hits: int,
    ) -> tuple[str | None, int]:
        """Move ``f`` into the line of fire and roll its sacrificial dodge: (who takes the hits,
        how many), ``(None, 0)`` if it failed."""
        battle.move_unit(f, choice.to, "interpose")  # type: ignore[arg-type]
        update_defence(battle, f, interposed=True)  # it moved: no retreat until its next turn
        opts = self.options
        mods = [*dodge_base(battle, f, opts), *common_modifiers(battle, f, info, opts)]
        eff = int(sum(m.value for m in mods))
        if choice.drop:
            eff += opts.drop_dodge
            mods.append(Modifier("dodge and drop", opts.drop_dodge, "defence"))
        p = p_success(eff)
        if choice.acrobatic:
            acro = battle.stats(f).skills["Acrobatics"]
            p = p_gated(p_success(acro), eff + opts.acrobatic_bonus, eff - opts.acrobatic_bonus)
            update_defence(battle, f, acrobatic=True)
            made = self._roll(battle, f, acro, "Acrobatics roll (acrobatic dodge)").success
            bonus = opts.acrobatic_bonus if made else -opts.acrobatic_bonus
            eff += bonus
            mods.append(Modifier("Acrobatics roll " + ("made" if made else "failed"), bonus, "defence"))
        res = judge(battle.dice.total(3, 6, "sacrificial dodge", f), eff)
        battle.emit(
            "defence",
            unit=f,
            kind="sacrificial dodge",
            protects=target,
            attacker=attacker,
            drop=choice.drop,
            acrobatic=choice.acrobatic,
            eff=eff,
            roll=res.roll,
            success=res.success,
            margin=res.margin,
            p_success=p,
            modifiers=[{"source": m.source, "value": m.value} for m in mods],
        )
        if choice.drop:
            battle.set_posture(f, Posture.PRONE, kind="drop_prone")
        if not res.success:
            return None, 0
        if choice.drop:
            if battle.posture(target) != Posture.PRONE:
                battle.set_posture(target, Posture.PRONE, kind="drop_prone")
            if res.margin >= opts.sacrificial_drop_margin:
                battle.emit(
                    "defence",
                    unit=target,
                    kind="none",
                    attacker=attacker,
                    reason="nobody hit (sacrificial drop)",
                )
                return f, 0
        return f, hits

    # ---- active defence ---------------------------------------------------------------------------
    @step("defence")
    def _defend(self, battle: Battle, a: AttackData, _: Any) -> Outcome:
        """Let the target defend (twice with All-Out Defence); the sub-flow's value is the hits
        that still land."""
        uid = a.target
        reason = no_defence_reason(battle, uid, self._info(battle, a))
        if reason is not None:
            battle.emit("defence", unit=uid, kind="none", attacker=a.attacker, reason=reason)
            return Done(a.hits)
        stages = 2 if turn_record(battle, uid).maneuver == AOD else 1
        return self._defence_stage(battle, DefendData(a, stages))

    def _defence_stage(self, battle: Battle, d: DefendData) -> Outcome:
        """Ask for the defence of stage ``d.stage`` (the hits land if none is left)."""
        a = d.attack
        decision = self._ask_defence(battle, d)
        if len(decision.options) == 1:  # only "no defence" is left
            battle.emit("defence", unit=a.target, kind="none", attacker=a.attacker, reason="no defence left")
            return Done(a.hits)
        return Ask("defence", d, Frame("defence.chosen", d), decision)

    def _choices(
        self, battle: Battle, d: DefendData
    ) -> tuple[AttackInfo, list[Option], dict[tuple[Any, ...], DefenceChoice]]:
        """The attack as the target knows it, and the options and choices of stage ``d``."""
        info = self._info(battle, d.attack)
        choices = self.defences(battle, d.attack.target, info, exclude=d.tried)
        return (info, *self._defence_options(battle, d.attack.target, info, choices))

    @asks("defence")
    def _ask_defence(self, battle: Battle, d: DefendData) -> Decision:
        a = d.attack
        info, options, _ = self._choices(battle, d)
        return Decision(
            a.target,
            "defence",
            tuple(options),
            context={
                "attacker": a.attacker,
                "weapon": a.weapon,
                "attack_kind": info.kind,
                "attack_roll": a.roll,
                "attack_eff": a.eff,
                "hits": a.hits,
                "stage": d.stage,
            },
        )

    def _defence_options(
        self, battle: Battle, uid: str, info: AttackInfo, choices: list[DefenceChoice]
    ) -> tuple[list[Option], dict[tuple[Any, ...], DefenceChoice]]:
        options = [Option(Defend(uid, "none"), "no defence", p_success=0.0)]
        table: dict[tuple[Any, ...], DefenceChoice] = {}
        region = None
        if any(c.retreat for c in choices):
            region = battle.retreat_region(uid, info.attacker, *self.retreat_band(battle, uid))
            if region_is_empty(region.geometry):
                region = None
        per_hit = self.injury_per_hit(battle, info.attacker, uid, info.weapon, info.sight)
        options[0].detail.update(
            expected_harm={HP: info.hits * per_hit}, expected_harm_without={HP: info.hits * per_hit}
        )
        for c in choices:
            if c.retreat and region is None:
                continue
            cmd = defend(uid, c.kind, c.weapon, c.drop, c.acrobatic)
            landing = landing_odds(info.hits, ((c.kind == "dodge", c.effs),))
            detail = {
                "eff": c.eff,
                "effs": [list(x) for x in c.effs],
                "expected_harm": {HP: sum(k * q for k, q in enumerate(landing)) * per_hit},
                "expected_harm_without": {HP: info.hits * per_hit},
            }
            if c.retreat:
                assert region is not None
                opt = Option(
                    cmd,
                    c.label(),
                    c.p_success,
                    c.modifiers,
                    "retreat_to",
                    region.geometry,
                    region.validate,
                    detail,
                )
            else:
                opt = Option(cmd, c.label(), c.p_success, c.modifiers, detail=detail)
            options.append(opt)
            table[(c.kind, c.weapon, c.drop, c.acrobatic, c.retreat)] = c
        return options, table

    @step("defence.chosen")
    def _defence_chosen(self, battle: Battle, d: DefendData, cmd: Defend) -> Outcome:
        """Roll the chosen defence (the choices are those the decision offered: the battle has not
        changed since); after a retreat the attacker may follow (the sub-flow ``follow``)."""
        info, _, table = self._choices(battle, d)
        chosen = table.get((cmd.kind, cmd.weapon, *defence_flags(cmd), cmd.retreat_to is not None))
        if chosen is None:
            battle.emit(
                "defence",
                unit=d.attack.target,
                kind="none",
                attacker=info.attacker,
                reason="chose no defence",
            )
            return Done(d.attack.hits)
        rolled, retreated = self._roll_defence(battle, d, info, chosen, cmd)
        if retreated:
            return Call(
                Frame("follow", FollowData(info.attacker, d.attack.target)), Frame("defence.rolled", rolled)
            )
        return self._defence_rolled(battle, rolled, None)

    def _roll_defence(
        self, battle: Battle, d: DefendData, info: AttackInfo, c: DefenceChoice, cmd: Defend
    ) -> tuple[RolledData, bool]:
        """Retreat, roll Acrobatics, roll the defence ``c``; (what it did, whether it retreated)."""
        uid, hits = d.attack.target, d.attack.hits
        eff = c.eff
        mods = list(c.modifiers)
        retreated = False
        if c.retreat:
            update_defence(
                battle, uid, retreated=True, retreats=defence_record(battle, uid).retreat_count + 1
            )
            retreated = True
            if c.retreat_roll is not None:
                retreated = self._roll(battle, uid, c.retreat_roll, "roll to retreat from the ground").success
                if retreated:
                    eff += c.retreat_bonus
                else:
                    mods = [m for m in mods if not m.source.startswith("retreat")]
            if retreated:
                rec = defence_record(battle, uid)
                update_defence(battle, uid, retreat_bonus_vs=rec.retreat_bonus_vs | {info.attacker})
                assert cmd.retreat_to is not None
                # The validator judged the point snapped onto the band: the unit goes there.
                to = snap_retreat(
                    cmd.retreat_to,
                    battle.pos(uid),
                    battle.pos(info.attacker),
                    *self.retreat_band(battle, uid),
                )
                battle.move_unit(uid, to, "retreat")
        if c.acrobatic:
            assert c.acrobatics is not None
            update_defence(battle, uid, acrobatic=True)
            made = self._roll(battle, uid, c.acrobatics, "Acrobatics roll (acrobatic dodge)").success
            bonus = c.acrobatic_bonus if made else -c.acrobatic_bonus
            eff += bonus
            mods.append(Modifier("Acrobatics roll " + ("made" if made else "failed"), bonus, "defence"))
        res = judge(battle.dice.total(3, 6, f"{c.kind} defence", uid), eff)
        if c.kind == "dodge":
            removed = hits_dodged(hits, res)
        else:
            removed = min(hits, 1) if res.success else 0
            if c.kind == "parry":
                assert c.weapon is not None
                parries = defence_record(battle, uid).parries
                update_defence(battle, uid, parries={**parries, c.weapon: parries.get(c.weapon, 0) + 1})
            else:
                update_defence(battle, uid, blocked=True, blocks=defence_record(battle, uid).block_count + 1)
        battle.emit(
            "defence",
            unit=uid,
            kind=c.kind,
            weapon=c.weapon,
            attacker=info.attacker,
            retreat=c.retreat,
            retreated=retreated,
            drop=c.drop,
            acrobatic=c.acrobatic,
            eff=eff,
            roll=res.roll,
            success=res.success,
            critical=res.critical,
            margin=res.margin,
            hits_stopped=removed,
            p_success=c.p_success,
            modifiers=[{"source": m.source, "value": m.value} for m in mods],
        )
        if c.drop:
            rec = defence_record(battle, uid)
            update_defence(battle, uid, drop_bonus_vs=rec.drop_bonus_vs | {info.attacker})
            battle.set_posture(uid, Posture.PRONE, kind="drop_prone")
        return RolledData(d, c.kind, c.weapon, res.success, removed), retreated

    @step("defence.rolled")
    def _defence_rolled(self, battle: Battle, r: RolledData, _: Any) -> Outcome:
        """After the defence (and the attacker's follow-up step): a weapon parry may injure an
        unarmed attacker; a success ends the defence, a failure leads to the next stage."""
        d = r.defend
        a = d.attack
        info = self._info(battle, a)
        if (
            r.kind == "parry"
            and r.success
            and r.weapon != BARE_HANDS
            and info.unarmed
            and self.options.parry_injures_unarmed
        ):
            assert r.weapon is not None
            stats: GurpsStats = battle.stats(a.target)
            self._parry_injures(battle, a.target, info, stats.weapon(r.weapon))
        if r.success:
            return Done(a.hits - r.removed)
        tried = d.tried
        if not may_repeat(r.kind, self.options.double_defence_different):
            tried = tried | {(r.kind, r.weapon if r.kind == "parry" else None)}
        if d.stage >= d.stages:
            return Done(a.hits)
        return self._defence_stage(battle, replace(d, stage=d.stage + 1, tried=tried))

    # ---- following a retreat ----------------------------------------------------------------------
    @step("follow")
    def _follow(self, battle: Battle, f: FollowData, _: Any) -> Outcome:
        """The attacker may take its unused step after a retreating defender (unless the option
        ``follow_retreat`` is off)."""
        turn = battle.turn(f.attacker)
        if (
            not self.options.follow_retreat
            or turn.stepped
            or battle.active_unit() != f.attacker
            or turn_record(battle, f.attacker).maneuver not in STEP_MANEUVERS
        ):
            return None
        return Ask("follow", f, Frame("follow.moved", f))

    @asks("follow")
    def _ask_follow(self, battle: Battle, f: FollowData) -> Decision:
        region = battle.step_region(f.attacker, 1.0 / battle.yards_per_inch)
        return Decision(
            f.attacker,
            "follow",
            (
                Option(Follow(f.attacker, None), "stay"),
                Option(
                    Follow(f.attacker, None),
                    "follow (step)",
                    point_field="to",
                    region=region.geometry,
                    validate=region.validate,
                ),
            ),
            context={"defender": f.defender},
        )

    @step("follow.moved")
    def _followed(self, battle: Battle, f: FollowData, choice: Follow) -> Outcome:
        if choice.to is not None:
            battle.set_turn(f.attacker, replace(battle.turn(f.attacker), stepped=True))
            battle.move_unit(f.attacker, choice.to, "step")
        return None

    def _parry_injures(self, battle: Battle, uid: str, info: AttackInfo, w: GurpsWeapon) -> None:
        """A weapon parry of an unarmed attack may strike the attacker's limb (no defence)."""
        stats: GurpsStats = battle.stats(uid)
        eff = stats.skills[w.skill] + (self.options.parry_injury_judo_karate if info.judo_karate else 0)
        res = self._roll(battle, uid, eff, f"{w.skill} roll: parry injures the unarmed attacker")
        if res.success:
            self._hit(battle, uid, info.attacker, w, battle.sight(uid, info.attacker))


def _segment_distance(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    """Distance from point ``p`` to the segment ``a``-``b``."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)
