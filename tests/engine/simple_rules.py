"""A tiny ruleset used only to test the engine independently of the real five.

d6 attack hits on 4+; the target may dodge (d6 5+) optionally retreating, and a
successful dodge grants a 2" dodge move; each hit removes 1 of 3 hp.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from components.spatial import Posture
from components.state import Health
from game.core.battle import Battle
from game.core.commands import Attack, Decision, Defend, Modifier, Option
from game.core.flow import Ask, Frame, Outcome, asks, step
from game.rules import REGISTRY
from game.rules.ap_pool.commands import DodgeMove
from game.rules.base import Ruleset, StrictModel, UnitSetup


class SimpleStats(StrictModel):
    hp: int = 3
    ap: int = 2
    reach: float = 1.5
    range: float = 30.0


class SimpleRuleset(Ruleset):
    """Engine-test ruleset."""

    name = "test-simple"
    source = "tests"
    Stats = SimpleStats

    @classmethod
    def default_stats(cls) -> SimpleStats:
        return SimpleStats()

    def setup_unit(self, stats: Any) -> UnitSetup:
        return UnitSetup(Health({"hp": stats.hp}, {"hp": stats.hp}), stats.ap)

    def initiative(self, battle: Battle, units: Sequence[str]) -> list[str]:
        rolls = {u: battle.dice.total(1, 6, "initiative", u) for u in units}
        return sorted(units, key=lambda u: (-rolls[u], u))

    def start_turn(self, battle: Battle, uid: str) -> bool:
        return True

    def inches_per_ap(self, battle: Battle, uid: str) -> float:
        return 0.0 if battle.posture(uid) == Posture.PRONE else 4.0

    def action_costs(self, battle: Battle, uid: str) -> dict[str, int]:
        return {"attack": 1, "posture": 1, "face": 0}

    def attack_options(self, battle: Battle, uid: str) -> list[Option]:
        out = []
        for t in battle.enemies(uid):
            s = battle.sight(uid, t)
            if s.visible and s.distance <= battle.stats(uid).range:
                out.append(
                    Option(
                        Attack(uid, t, "gun"),
                        f"shoot {t}",
                        p_success=0.5,
                        modifiers=(Modifier("base", 0),),
                        detail={"p_hurt": 0.5 * 2 / 3, "expected_damage": 1.0},
                    )
                )
        return out

    # The attack flow as steps (game.core.flow): the frames' data are the Attack command.
    @step("attack")
    def _attack(self, battle: Battle, cmd: Attack, _: Any) -> Outcome:
        t = cmd.target
        roll = battle.dice.total(1, 6, "attack", cmd.unit)
        battle.emit("attack", attacker=cmd.unit, target=t, weapon=cmd.weapon, roll=roll, hit=roll >= 4)
        if roll < 4:
            return None
        return Ask("defence", cmd, Frame("attack.defended", cmd))

    @asks("defence")
    def _ask_defence(self, battle: Battle, cmd: Attack) -> Decision:
        t = cmd.target
        region = battle.retreat_region(t, cmd.unit, 1.0, 1.0)
        return Decision(
            t,
            "defence",
            (
                Option(Defend(t, "none"), "no defence", p_success=0.0),
                Option(Defend(t, "dodge"), "dodge", p_success=1 / 3),
                Option(
                    Defend(t, "dodge"),
                    "dodge and retreat",
                    p_success=1 / 3,
                    point_field="retreat_to",
                    region=region.geometry,
                    validate=region.validate,
                ),
            ),
            {"attacker": cmd.unit},
        )

    @step("attack.defended")
    def _defended(self, battle: Battle, cmd: Attack, choice: Any) -> Outcome:
        t = cmd.target
        if choice.retreat_to is not None:
            battle.move_unit(t, choice.retreat_to, "retreat")
        if choice.kind == "dodge":
            ok = battle.dice.total(1, 6, "dodge", t) >= 5
            battle.emit("defence", unit=t, kind="dodge", success=ok)
            if ok:
                return Ask("dodge_move", t, Frame("attack.dodge_moved", t))
        battle.damage(t, {"hp": -1}, cmd.unit)
        if battle.health(t).tracks["hp"] <= 0:
            battle.set_status(t, "dead", True, f"shot by {cmd.unit}")
        return None

    @asks("dodge_move")
    def _ask_dodge_move(self, battle: Battle, t: str) -> Decision:
        disc = battle.dodge_region(t, 2.0)
        return Decision(
            t,
            "dodge_move",
            (
                Option(DodgeMove(t, None), "stay"),
                Option(
                    DodgeMove(t, None),
                    "dodge move",
                    point_field="to",
                    region=disc.geometry,
                    validate=disc.validate,
                ),
            ),
        )

    @step("attack.dodge_moved")
    def _dodge_moved(self, battle: Battle, t: str, mv: Any) -> Outcome:
        if mv.to is not None:
            battle.move_unit(t, mv.to, "dodge_move")
        return None


REGISTRY.setdefault("test-simple", "tests.engine.simple_rules:SimpleRuleset")
