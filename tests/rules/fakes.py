"""An in-memory :class:`game.core.battle.Battle` for ruleset unit tests.

Open ground, no obstacles: sight facts are computed from positions and facing
(distance, arc) and can be overridden per pair with ``set_sight``. Events are
collected in ``events``; decisions yielded by a ruleset flow are answered by
``run_flow`` with a chooser function. Regions are simple shapely discs. A unit's
components are frozen values, as in the engine: a change replaces them (a test does too).
Owned by the lead; ruleset tests may subclass it but should not edit it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from shapely.geometry import Point as SPoint

from components.sight import Arc, CoverLevel, SightFacts
from components.spatial import Body, Posture
from components.state import ActionPoints, DefenceState, Health, TurnState
from game.core.battle import Flow, Region
from game.core.commands import Decision
from game.dice import Dice
from game.rules.base import Ruleset


@dataclass
class FakeUnit:
    uid: str
    side: str
    stats: Any
    pos: tuple[float, float]
    facing: float = 0.0
    posture: Posture = Posture.STANDING
    body: Body = field(default_factory=Body)
    health: Health = field(default_factory=Health)
    ap: ActionPoints = field(default_factory=lambda: ActionPoints(0, 0))
    defence: DefenceState = field(default_factory=DefenceState)
    turn: TurnState = field(default_factory=TurnState)
    profile: str = "trooper"


def _arc(defender: FakeUnit, attacker_pos: tuple[float, float]) -> Arc:
    bearing = math.degrees(math.atan2(attacker_pos[1] - defender.pos[1], attacker_pos[0] - defender.pos[0]))
    rel = (bearing - defender.facing + 180.0) % 360.0 - 180.0
    if abs(rel) <= 90.0:
        return Arc.FRONT
    if abs(rel) <= 150.0:
        return Arc.SIDE
    return Arc.REAR


class FakeBattle:
    """Implements the Battle protocol over a dict of :class:`FakeUnit`."""

    def __init__(self, ruleset: Ruleset, seed: int = 0, yards_per_inch: float = 1.0) -> None:
        self.ruleset = ruleset
        self.events: list[dict[str, Any]] = []
        self.dice = Dice(np.random.default_rng(seed), lambda e: self.emit("roll", **e))
        self.round = 1
        self.yards_per_inch = yards_per_inch
        self.u: dict[str, FakeUnit] = {}
        self._sight: dict[tuple[str, str], SightFacts] = {}
        self.active: str | None = None
        self._rules_state: Any = None

    # ---- set-up helpers for tests -------------------------------------------
    def add(self, uid: str, side: str, pos: tuple[float, float], stats: Any = None, **kw: Any) -> FakeUnit:
        stats = stats if stats is not None else self.ruleset.default_stats()
        setup = self.ruleset.setup_unit(stats)
        unit = FakeUnit(
            uid, side, stats, pos, health=setup.health, ap=ActionPoints(setup.ap_max, setup.ap_max), **kw
        )
        self.u[uid] = unit
        return unit

    def set_sight(self, attacker: str, target: str, **changes: Any) -> None:
        self._sight[(attacker, target)] = replace(self._default_sight(attacker, target), **changes)

    # ---- reading ---------------------------------------------------------------
    def units(self, alive: bool = True) -> list[str]:
        return [k for k, v in self.u.items() if not (alive and v.health.out_of_action)]

    def side(self, uid: str) -> str:
        return self.u[uid].side

    def stats(self, uid: str) -> Any:
        return self.u[uid].stats

    def profile(self, uid: str) -> str:
        return self.u[uid].profile

    def pos(self, uid: str) -> tuple[float, float]:
        return self.u[uid].pos

    def facing(self, uid: str) -> float:
        return self.u[uid].facing

    def posture(self, uid: str) -> Posture:
        return self.u[uid].posture

    def body(self, uid: str) -> Body:
        return self.u[uid].body

    def health(self, uid: str) -> Health:
        return self.u[uid].health

    def ap(self, uid: str) -> ActionPoints:
        return self.u[uid].ap

    def defence(self, uid: str) -> DefenceState:
        return self.u[uid].defence

    def turn(self, uid: str) -> TurnState:
        return self.u[uid].turn

    def active_unit(self) -> str | None:
        return self.active

    @property
    def rules_state(self) -> Any:
        return self._rules_state

    def set_rules_state(self, value: Any) -> None:
        self._rules_state = value

    def set_turn(self, uid: str, state: TurnState) -> None:
        self.u[uid].turn = state

    def set_defence(self, uid: str, state: DefenceState) -> None:
        self.u[uid].defence = state

    def distance(self, a: str, b: str) -> float:
        pa, pb = self.u[a].pos, self.u[b].pos
        return math.hypot(pb[0] - pa[0], pb[1] - pa[1])

    def _default_sight(self, attacker: str, target: str) -> SightFacts:
        return SightFacts(
            attacker=attacker,
            target=target,
            visible=True,
            cover_fraction=0.0,
            cover=CoverLevel.NONE,
            intervening=(),
            hidden=False,
            arc=_arc(self.u[target], self.u[attacker].pos),
            distance=self.distance(attacker, target),
        )

    def sight(self, attacker: str, target: str) -> SightFacts:
        if (attacker, target) in self._sight:
            s = self._sight[(attacker, target)]
            return replace(
                s, arc=_arc(self.u[target], self.u[attacker].pos), distance=self.distance(attacker, target)
            )
        return self._default_sight(attacker, target)

    def enemies(self, uid: str) -> list[str]:
        return [k for k in self.units() if self.u[k].side != self.u[uid].side]

    def friends(self, uid: str) -> list[str]:
        return [k for k in self.units() if self.u[k].side == self.u[uid].side and k != uid]

    # ---- regions (open ground) ---------------------------------------------------
    def _disc(self, uid: str, max_len: float) -> Region:
        c = self.u[uid].pos

        def ok(p: tuple[float, float]) -> str | None:
            return None if math.dist(p, c) <= max_len + 1e-9 else f"more than {max_len:g} in away"

        return Region(SPoint(c).buffer(max_len), ok)

    def step_region(self, uid: str, max_len: float) -> Region:
        return self._disc(uid, max_len)

    def dodge_region(self, uid: str, max_len: float) -> Region:
        return self._disc(uid, max_len)

    def move_region(self, uid: str, max_len: float) -> Region:
        return self._disc(uid, max_len)

    def interpose_region(self, uid: str, friend: str, attacker: str, step_len: float) -> Region:
        return self._disc(uid, step_len)

    def retreat_region(self, uid: str, attacker: str, min_len: float, max_len: float) -> Region:
        c, a = self.u[uid].pos, self.u[attacker].pos

        def ok(p: tuple[float, float]) -> str | None:
            d = math.dist(p, c)
            if d < min_len - 1e-6 or d > max_len + 1e-6:
                return f"retreat must be {min_len:g}-{max_len:g} in"
            if math.dist(p, a) <= math.dist(c, a):
                return "retreat must move away from the attacker"
            return None

        return Region(SPoint(c).buffer(max_len), ok)

    def path_length(self, uid: str, to: tuple[float, float]) -> float | None:
        return math.dist(self.u[uid].pos, to)

    # ---- changing --------------------------------------------------------------------
    def emit(self, type: str, **fields: Any) -> None:
        self.events.append({"type": type, **fields})

    def damage(self, uid: str, deltas: dict[str, int], source: str | None, **detail: Any) -> None:
        self.u[uid].health = self.u[uid].health.plus(deltas)
        self.emit("damage", unit=uid, deltas=dict(deltas), source=source, **detail)
        self.ruleset.on_damaged(self, uid)

    def set_status(self, uid: str, flag: str, on: bool, reason: str) -> None:
        self.u[uid].health = self.u[uid].health.flagged(flag, on)
        self.emit("status", unit=uid, flag=flag, on=on, reason=reason)
        if on and flag in ("dead", "unconscious", "out"):
            self.emit("casualty", unit=uid, reason=reason)

    def spend_ap(self, uid: str, n: int, reason: str) -> None:
        ap = self.u[uid].ap
        if n > ap.current:
            raise AssertionError(f"{uid} spends {n} AP with {ap.current}")
        self.u[uid].ap = replace(ap, current=ap.current - n)
        self.emit("ap", unit=uid, spent=n, reason=reason)

    def move_unit(self, uid: str, to: tuple[float, float], kind: str, ap: int = 0) -> None:
        frm = self.u[uid].pos
        if ap:
            self.spend_ap(uid, ap, kind)
        self.u[uid].pos = (float(to[0]), float(to[1]))
        self.emit(kind, unit=uid, **{"from": list(frm), "to": list(to), "ap": ap})
        self.ruleset.on_moved(self, uid, kind, math.dist(frm, to))

    def set_posture(self, uid: str, posture: Posture, kind: str = "posture", ap: int = 0) -> None:
        if ap:
            self.spend_ap(uid, ap, kind)
        old = self.u[uid].posture
        self.u[uid].posture = posture
        self.emit(kind, unit=uid, **{"from": str(old), "to": str(posture), "ap": ap})

    def set_facing(self, uid: str, degrees: float, ap: int = 0) -> None:
        if ap:
            self.spend_ap(uid, ap, "facing")
        old = self.u[uid].facing
        self.u[uid].facing = degrees % 360.0
        self.emit("facing", unit=uid, **{"from": old, "to": self.u[uid].facing, "ap": ap})


def mc_bound(p: float, n: int) -> float:
    """The 99.9 % Monte Carlo agreement bound of the test standards: 3.29 sigma + 1/n."""
    return 3.29 * math.sqrt(p * (1 - p) / n) + 1 / n


def mc_ok(p_hat: float, p: float, n: int) -> bool:
    """Whether a Monte Carlo estimate agrees with the exact ``p`` within :func:`mc_bound`."""
    return abs(p_hat - p) <= mc_bound(p, n)


class ScriptedDice(Dice):
    """Dice that return scripted faces in order (and log like the real ones)."""

    def __init__(self, faces: list[int], log: Any) -> None:
        super().__init__(np.random.default_rng(0), log)
        self.faces: Iterator[int] = iter(faces)

    def roll(self, n: int, sides: int, purpose: str, unit: str | None = None) -> list[int]:
        out = [next(self.faces) for _ in range(n)]
        assert all(1 <= f <= sides for f in out), (purpose, out, sides)
        if self._log is not None:
            self._log({"purpose": purpose, "unit": unit, "dice": f"{n}d{sides}", "faces": out})
        return out


Chooser = Callable[[Decision], Any]


def run_flow(flow: Flow, choose: Chooser) -> list[Decision]:
    """Drive a ruleset generator to the end, answering each decision with ``choose``.

    Returns the decisions seen, in order.
    """
    seen: list[Decision] = []
    try:
        decision = next(flow)
        while True:
            seen.append(decision)
            decision = flow.send(choose(decision))
    except StopIteration:
        pass
    return seen


def pick(label_part: str) -> Chooser:
    """A chooser taking the first option whose label contains ``label_part`` (else the first)."""

    def choose(d: Decision) -> Any:
        for o in d.options:
            if label_part in o.label:
                return o.command
        return d.options[0].command

    return choose
