"""Shared helpers for the GURPS ruleset tests (no tests here).

The tests check game.rules.gurps.ruleset against shared/rules/gurps-active-defense.txt
and the standard GURPS mechanics documented in docs/rulesets/gurps.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from ruamel.yaml import YAML

from components.state import Health
from game.core.commands import Decision, Option
from game.dice import Dice
from game.rules.gurps.defence import AttackInfo, DefenceChoice, defence_choices
from game.rules.gurps.ruleset import GurpsRuleset
from game.rules.gurps.stats import GurpsStats
from tests.rules.fakes import FakeBattle

PROFILES_PATH = Path(__file__).resolve().parents[2] / "scenarios" / "profiles.yaml"

SWORD = {"name": "sword", "skill": "Broadsword", "damage": "sw+1 cut", "reach": 1}
BOW = {
    "name": "bow",
    "skill": "Bow",
    "kind": "missile",
    "damage": "thr+1 imp",
    "acc": 2,
    "half_damage": 150,
    "max_range": 200,
    "hands": 2,
    "parry": None,
}


@cache
def profiles() -> dict[str, GurpsStats]:
    data = YAML(typ="safe").load(PROFILES_PATH.read_text())
    return {name: GurpsStats.model_validate(per["gurps"]) for name, per in data.items()}


def mk(**kw: Any) -> GurpsStats:
    """A GURPS stat block: ST/DX/IQ/HT 10, Broadsword-12 and Bow-12, overridable."""
    base: dict[str, Any] = {
        "st": 10,
        "dx": 10,
        "iq": 10,
        "ht": 10,
        "skills": {"Broadsword": 12, "Bow": 12},
        "weapons": [SWORD, BOW],
    }
    skills = kw.pop("extra_skills", {})
    base.update(kw)
    base["skills"] = {**base["skills"], **skills}
    return GurpsStats.model_validate(base)


class ScriptedDice(Dice):
    """Dice that return scripted 3d6 totals (or faces) in order, logging like the real ones."""

    def __init__(self, battle: FakeBattle, script: list[Any]) -> None:
        super().__init__(np.random.default_rng(0), lambda e: battle.emit("roll", **e))
        self.script = list(script)

    def roll(self, n: int, sides: int, purpose: str, unit: str | None = None) -> list[int]:
        if not self.script:
            raise AssertionError(f"unscripted roll: {purpose} for {unit}")
        v = self.script.pop(0)
        if isinstance(v, list):
            faces = v
        else:  # a total: spread it over n dice
            faces = [1] * n
            rest = int(v) - n
            for i in range(n):
                add = min(sides - 1, rest)
                faces[i] += add
                rest -= add
            assert rest == 0, f"cannot roll {v} on {n}d{sides}"
        if self._log is not None:
            self._log({"purpose": purpose, "unit": unit, "dice": f"{n}d{sides}", "faces": faces})
        return faces


def duel(
    a: GurpsStats | None = None,
    d: GurpsStats | None = None,
    dist: float = 1.0,
    seed: int = 0,
    d_facing: float = 180.0,
    ypi: float = 1.0,
) -> tuple[GurpsRuleset, FakeBattle]:
    """Attacker ``a`` at the origin facing east, defender ``d`` ``dist`` inches east facing it."""
    rules = GurpsRuleset()
    b = FakeBattle(rules, seed=seed, yards_per_inch=ypi)
    b.add("a", "red", (0.0, 0.0), a or mk())
    b.add("d", "blue", (dist, 0.0), d or mk(), facing=d_facing)
    b.active = "a"
    return rules, b


def set_hp(b: FakeBattle, uid: str, hp: int) -> None:
    """Put ``uid`` at ``hp`` HP (its health is a frozen value: replace it)."""
    h = b.u[uid].health
    b.u[uid].health = Health({**h.tracks, "hp": hp}, h.maxima, h.status)


def set_status(b: FakeBattle, uid: str, flag: str, on: bool = True) -> None:
    """Set (``on``) or clear ``uid``'s status ``flag``."""
    b.u[uid].health = b.u[uid].health.flagged(flag, on)


def heal(b: FakeBattle, uid: str) -> None:
    """Full HP and no status flag, as at the start of a battle."""
    h = b.u[uid].health
    b.u[uid].health = Health(h.maxima, h.maxima)


def attack_info(b: FakeBattle, attacker: str, target: str, weapon: str, hits: int = 1) -> AttackInfo:
    w = b.stats(attacker).weapon(weapon)
    return AttackInfo(attacker, w, b.sight(attacker, target), hits)


def choices_by_label(b: FakeBattle, uid: str, info: AttackInfo) -> dict[str, DefenceChoice]:
    return {c.label().rsplit(" ", 2)[0]: c for c in defence_choices(b, uid, info)}


def first_valid_point(opt: Option, centre: tuple[float, float]) -> tuple[float, float] | None:
    """A legal point for a point option: scan a small grid around ``centre``."""
    for r in (1.0, 0.9, 0.6, 1.2, 0.3, 1.5, 2.0):
        for k in range(16):
            ang = 2 * math.pi * k / 16
            p = (centre[0] + r * math.cos(ang), centre[1] + r * math.sin(ang))
            if opt.validate is None or opt.validate(p) is None:
                return p
    return None


def chooser(rules: dict[str, str], b: FakeBattle) -> Callable[[Decision], Any]:
    """Answer each decision kind with the first option whose label starts with ``rules[kind]``;
    ``"best"`` takes the highest ``p_success``; point options get a legal point."""

    def choose(d: Decision) -> Any:
        want = rules.get(d.kind, "")
        if want == "best":
            opt = max(d.options, key=lambda o: o.p_success or 0.0)
        else:
            opt = next((o for o in d.options if o.label.startswith(want)), d.options[0])
        if opt.point_field is None:
            return opt.command
        p = first_valid_point(opt, b.pos(d.unit))
        assert p is not None, f"no legal point for {opt.label}"
        return opt.with_point(p)

    return choose
