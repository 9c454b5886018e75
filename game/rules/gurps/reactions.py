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
"""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from components.sight import SightFacts
from components.spatial import LYING_DOWN, Posture
from game.core.battle import Battle
from game.core.commands import Decision, Defend, LazyRegion, Modifier, Option
from game.dice.gurps import (
    ACROBATIC_BONUS,
    RollResult,
    hits_dodged,
    judge,
    p_acrobatic_dodge,
    p_margin_at_least,
    p_success,
)
from game.movement.regions import snap_retreat
from game.rules.gurps.commands import Follow, Interpose, defence_flags, defend
from game.rules.gurps.damage import HP, GurpsCore
from game.rules.gurps.defence import (
    BARE_HANDS,
    DROP_DODGE,
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
from game.rules.gurps.state import defence_record, turn_record
from game.rules.gurps.stats import GurpsStats, GurpsWeapon

AOD = "all_out_defence"
AIM = "aim"
#: Maneuvers that allow a step (Attack, All-Out Defence, Aim).
STEP_MANEUVERS = frozenset({"attack", AOD, AIM})
JUDO_KARATE_INJURY_PENALTY = -4  # the parrier's injuring roll against a Judo/Karate attack
SACRIFICIAL_DROP_MARGIN = 3  # a sacrificial dodge-and-drop made by this much: nobody is hit


def region_is_empty(geometry: Any) -> bool:
    """Whether a region geometry (shapely, or a :class:`LazyRegion` of an object answering
    ``is_empty`` without being built, like a retreat's arcs) holds no point."""
    if isinstance(geometry, LazyRegion):
        geometry = geometry.build
    return geometry is None or bool(geometry.is_empty)


class GurpsReactions(GurpsCore):
    """The reaction half of the GURPS attack flow."""

    if TYPE_CHECKING:  # provided by game.rules.base.Ruleset; this class is its mixin
        options: GurpsOptions

    def step_inches(self, battle: Battle, uid: str) -> float:
        """A GURPS step: 1 yard or 1/10 of Move, whichever is more, in inches."""
        return max(1.0, battle.stats(uid).encumbered_move / 10.0) / battle.yards_per_inch

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
        return defence_choices(
            battle, uid, info, exclude=exclude, ground_roll=self.options.ground_retreat_roll
        )

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

    # ---- sacrificial dodge ------------------------------------------------------------------------
    def _sacrificial(
        self, battle: Battle, attacker: str, target: str, w: GurpsWeapon, res: RollResult, hits: int
    ) -> Generator[Decision, Any, tuple[str | None, int]]:
        """Offer each eligible friend of ``target`` to interpose; (who takes the hits, how many)."""
        friends = sorted(battle.friends(target), key=lambda f: battle.distance(f, target))
        a_pos, t_pos = battle.pos(attacker), battle.pos(target)
        p_friend: float | None = None
        for f in friends:
            step = self.step_inches(battle, f)
            # Cheap pre-filter: a step must bring the friend's base into the line of fire.
            reach = step + battle.body(f).base + battle.body(target).base
            if _segment_distance(battle.pos(f), a_pos, t_pos) > reach + 1e-9:
                continue
            fsight = battle.sight(attacker, f)
            info = self.attack_info(battle, attacker, w, fsight, hits)
            if no_defence_reason(battle, f, info) is not None:
                continue
            region = battle.interpose_region(f, target, attacker, step)
            if region_is_empty(region.geometry):
                continue
            if p_friend is None:  # the target's own defence, if nobody takes the attack for it
                tinfo = self.attack_info(battle, attacker, w, battle.sight(attacker, target), hits)
                p_friend = landing_pmf(hits, self.best_defences(battle, target, tinfo))[0]
            options = self._interpose_options(battle, f, target, info, region, step, p_friend)
            choice = yield Decision(
                f,
                "interpose",
                tuple(options),
                context={
                    "attacker": attacker,
                    "target": target,
                    "weapon": w.name,
                    "roll": res.roll,
                    "hits": hits,
                },
            )
            if choice.to is None:
                continue
            return self._resolve_interpose(battle, f, target, attacker, choice, info, hits)
        return None, 0

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
        mods = (*dodge_base(battle, f), *common_modifiers(battle, f, info))
        eff = int(sum(m.value for m in mods))
        acro = battle.stats(f).skills.get("Acrobatics")
        can_drop = (
            info.ranged
            and battle.posture(f) not in LYING_DOWN
            and gap_yards(battle, f, target) <= step * battle.yards_per_inch + 1e-9
        )
        acrobatics = acro is not None and not defence_record(battle, f).acrobatic
        for acrobatic in (False, True) if acrobatics else (False,):
            for drop in (False, True) if can_drop else (False,):
                deff = eff + (DROP_DODGE if drop else 0)
                extra = (Modifier("dodge and drop", DROP_DODGE, "defence"),) if drop else ()
                if acrobatic:
                    assert acro is not None
                    p = p_acrobatic_dodge(deff, acro)
                    pa = p_success(acro)
                    p_clear = pa * p_margin_at_least(deff + ACROBATIC_BONUS, SACRIFICIAL_DROP_MARGIN) + (
                        1.0 - pa
                    ) * p_margin_at_least(deff - ACROBATIC_BONUS, SACRIFICIAL_DROP_MARGIN)
                else:
                    p = p_success(deff)
                    p_clear = p_margin_at_least(deff, SACRIFICIAL_DROP_MARGIN)
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
        battle.move_unit(f, choice.to, "interpose")  # type: ignore[arg-type]
        d = defence_record(battle, f)
        d.interposed = True  # it moved: no retreat until its next turn
        mods = [*dodge_base(battle, f), *common_modifiers(battle, f, info)]
        eff = int(sum(m.value for m in mods))
        if choice.drop:
            eff += DROP_DODGE
            mods.append(Modifier("dodge and drop", DROP_DODGE, "defence"))
        p = p_success(eff)
        if choice.acrobatic:
            acro = battle.stats(f).skills["Acrobatics"]
            p = p_acrobatic_dodge(eff, acro)
            d.acrobatic = True
            made = self._roll(battle, f, acro, "Acrobatics roll (acrobatic dodge)").success
            bonus = ACROBATIC_BONUS if made else -ACROBATIC_BONUS
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
            if res.margin >= SACRIFICIAL_DROP_MARGIN:
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
    def _defend(
        self, battle: Battle, uid: str, info: AttackInfo, attack: RollResult
    ) -> Generator[Decision, Any, int]:
        """Let ``uid`` defend (twice with All-Out Defence); return the hits that still land."""
        hits = info.hits
        reason = no_defence_reason(battle, uid, info)
        if reason is not None:
            battle.emit("defence", unit=uid, kind="none", attacker=info.attacker, reason=reason)
            return hits
        tried: set[tuple[str, str | None]] = set()
        stages = 2 if turn_record(battle, uid).maneuver == AOD else 1
        for stage in range(1, stages + 1):
            choices = self.defences(battle, uid, info, exclude=frozenset(tried))
            options, table = self._defence_options(battle, uid, info, choices)
            if len(options) == 1:  # only "no defence" is left
                battle.emit(
                    "defence", unit=uid, kind="none", attacker=info.attacker, reason="no defence left"
                )
                return hits
            cmd = yield Decision(
                uid,
                "defence",
                tuple(options),
                context={
                    "attacker": info.attacker,
                    "weapon": info.weapon.name,
                    "attack_kind": info.kind,
                    "attack_roll": attack.roll,
                    "attack_eff": attack.eff,
                    "hits": hits,
                    "stage": stage,
                },
            )
            chosen = table.get((cmd.kind, cmd.weapon, *defence_flags(cmd), cmd.retreat_to is not None))
            if chosen is None:
                battle.emit(
                    "defence", unit=uid, kind="none", attacker=info.attacker, reason="chose no defence"
                )
                return hits
            removed, res = yield from self._roll_defence(battle, uid, info, chosen, cmd, hits)
            if res.success:
                return hits - removed
            if not may_repeat(chosen.kind, self.options.double_defence_different):
                tried.add(chosen.key)
        return hits

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

    def _roll_defence(
        self, battle: Battle, uid: str, info: AttackInfo, c: DefenceChoice, cmd: Defend, hits: int
    ) -> Generator[Decision, Any, tuple[int, RollResult]]:
        d = defence_record(battle, uid)
        stats: GurpsStats = battle.stats(uid)
        eff = c.eff
        mods = list(c.modifiers)
        retreated = False
        if c.retreat:
            d.retreated = True
            retreated = True
            if c.retreat_roll is not None:
                retreated = self._roll(battle, uid, c.retreat_roll, "roll to retreat from the ground").success
                if retreated:
                    eff += c.retreat_bonus
                else:
                    mods = [m for m in mods if not m.source.startswith("retreat")]
            if retreated:
                d.retreat_bonus_vs.add(info.attacker)
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
            d.acrobatic = True
            made = self._roll(battle, uid, c.acrobatics, "Acrobatics roll (acrobatic dodge)").success
            bonus = 2 if made else -2
            eff += bonus
            mods.append(Modifier("Acrobatics roll " + ("made" if made else "failed"), bonus, "defence"))
        res = judge(battle.dice.total(3, 6, f"{c.kind} defence", uid), eff)
        if c.kind == "dodge":
            removed = hits_dodged(hits, res)
        else:
            removed = min(hits, 1) if res.success else 0
            if c.kind == "parry":
                assert c.weapon is not None
                d.parries[c.weapon] = d.parries.get(c.weapon, 0) + 1
            else:
                d.blocked = True
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
            d.drop_bonus_vs.add(info.attacker)
            battle.set_posture(uid, Posture.PRONE, kind="drop_prone")
        if retreated:
            yield from self._follow(battle, info.attacker, uid)
        if c.kind == "parry" and res.success and c.weapon != BARE_HANDS and info.unarmed:
            assert c.weapon is not None
            self._parry_injures(battle, uid, info, stats.weapon(c.weapon))
        return removed, res

    def _follow(self, battle: Battle, attacker: str, defender: str) -> Generator[Decision, Any, None]:
        """The attacker may take its unused step after a retreating defender."""
        turn = battle.turn(attacker)
        if (
            turn.stepped
            or battle.active_unit() != attacker
            or turn_record(battle, attacker).maneuver not in STEP_MANEUVERS
        ):
            return
        region = battle.step_region(attacker, 1.0 / battle.yards_per_inch)
        choice = yield Decision(
            attacker,
            "follow",
            (
                Option(Follow(attacker, None), "stay"),
                Option(
                    Follow(attacker, None),
                    "follow (step)",
                    point_field="to",
                    region=region.geometry,
                    validate=region.validate,
                ),
            ),
            context={"defender": defender},
        )
        if choice.to is not None:
            turn.stepped = True
            battle.move_unit(attacker, choice.to, "step")

    def _parry_injures(self, battle: Battle, uid: str, info: AttackInfo, w: GurpsWeapon) -> None:
        """A weapon parry of an unarmed attack may strike the attacker's limb (no defence)."""
        stats: GurpsStats = battle.stats(uid)
        eff = stats.skills[w.skill] + (JUDO_KARATE_INJURY_PENALTY if info.judo_karate else 0)
        res = self._roll(battle, uid, eff, f"{w.skill} roll: parry injures the unarmed attacker")
        if res.success:
            self._hit(battle, uid, info.attacker, w, battle.sight(uid, info.attacker))


def _segment_distance(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    """Distance from point ``p`` to the segment ``a``-``b``."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)
