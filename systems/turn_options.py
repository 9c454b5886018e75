"""Legal commands of the active unit's turn, as a :class:`~game.core.commands.Decision`.

Part of the turns system. Contract: ``turn_decision(battle, rules, arena, uid)`` (``arena``
synced by the sight system) is a pure read of the match: it lists every legal turn command
with its AP cost in the label and the ruleset's odds on attacks: Move (free point, validated
by the exact shortest path and the ruleset's AP cost), Step (one yard, once per turn, if the
ruleset prices a step), Face, ChangePosture (each posture the ruleset allows), the
ruleset's attacks and maneuvers, and EndTurn. It returns ``None`` when the turn should end
by itself (no AP and no free step). The decision is a value: its validators keep the values
they check against (the mover's place, the other bases, the AP price), never the match, so
a clone shares it. The move's validator is a :class:`MoveCheck`, whose ``legal_many`` judges
many points at once with the same verdicts (a learning agent's action mask asks dozens).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from components.spatial import Posture
from game.battlefield.arena import LEGAL_SLACK, Arena, Mover
from game.core.battle import Battle, Region
from game.core.commands import ChangePosture, Decision, EndTurn, Face, Move, Option, Step
from game.rules.base import Ruleset

#: A routed path is never shorter than the straight line; rounding could only shave ~1e-13 in.
_DETOUR_MARGIN = 1e-6

#: Every posture with its name (reading an enum member's value is a descriptor call).
_POSTURES = tuple((p, p.value) for p in Posture)

_Templates = tuple[Move, Step, Face, EndTurn, tuple[tuple[Posture, ChangePosture], ...]]

#: Per unit id, the fixed commands of its turn options. Commands are frozen values, so every
#: decision of every match shares them: building them was a third of a decision's own cost.
_TEMPLATES: dict[str, _Templates] = {}

#: Per posture cost (with its type: ``1`` and ``1.0`` print differently), the posture labels.
_POSTURE_LABELS: dict[tuple[type, Any], tuple[str, ...]] = {}


def _templates(uid: str) -> _Templates:
    got = _TEMPLATES.get(uid)
    if got is None:
        if len(_TEMPLATES) >= 4096:  # ids are a scenario's few units; this only bounds memory
            _TEMPLATES.clear()
        got = _TEMPLATES[uid] = (
            Move(uid, (0.0, 0.0)),
            Step(uid, (0.0, 0.0)),
            Face(uid, 0.0),
            EndTurn(uid),
            tuple((p, ChangePosture(uid, name)) for p, name in _POSTURES),
        )
    return got


def _posture_labels(cost: Any) -> tuple[str, ...]:
    key = (type(cost), cost)
    got = _POSTURE_LABELS.get(key)
    if got is None:
        if len(_POSTURE_LABELS) >= 256:
            _POSTURE_LABELS.clear()
        got = _POSTURE_LABELS[key] = tuple(f"posture {name} ({cost} AP)" for _, name in _POSTURES)
    return got


def _finite_degrees(v: Any) -> str | None:
    if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
        return None
    return "degrees must be a finite number"


@dataclass(frozen=True, eq=False)
class MoveCheck:
    """A turn's move validator: ``check(to)`` is None if a move to ``to`` is legal, else why not
    (inside the move region, whose validator is the exact shortest path within ``max_len``, and
    priced by the ruleset within the AP left). :meth:`legal_many` gives the same verdicts for
    many points at once (a learning agent's action mask asks dozens per decision)."""

    region: Region
    mover: Mover
    price: Callable[[float], int | None]
    ap: int
    max_len: float

    def __call__(self, to: Any) -> str | None:
        why: str | None = self.region.validate(to)
        if why:
            return str(why)
        path = self.mover.path(to)
        if path is None:
            return "no free path there"
        if self.price(path.length) is None:
            return f"path of {path.length:.2f} in is too far with {self.ap} AP"
        return None

    def legal_many(self, points: list[tuple[float, float]]) -> list[bool]:
        """``[self(p) is None for p in points]``, mostly without a path search per point.

        The mesh's first verdict (:meth:`Mover.straight_codes`, the very one ``path`` starts
        with) settles a point whose base may not stand there (illegal) or whose straight move
        is clear (the path is the segment: its length decides); a blocked straight line longer
        than the reach is illegal too (any path is at least as long; the margin dwarfs
        rounding). Only the rest are validated one by one.
        """
        if not points:
            return []
        codes = self.mover.straight_codes(np.array(points, dtype=np.float64)).tolist()
        start, limit, price = self.mover.start, self.max_len + LEGAL_SLACK, self.price
        out: list[bool] = []
        for p, code in zip(points, codes, strict=True):
            if code == 0:
                out.append(False)
                continue
            d = math.dist(start, p)
            if code == 1:
                out.append(d <= limit and price(d) is not None)
            elif code == 2 and d > limit + _DETOUR_MARGIN:
                out.append(False)
            else:
                out.append(self(p) is None)
        return out


def turn_decision(battle: Battle, rules: Ruleset, arena: Arena, uid: str) -> Decision | None:
    """The turn decision of ``uid`` now, or ``None`` when its turn should end by itself."""
    ap = battle.ap(uid)
    turn = battle.turn(uid)
    costs = rules.action_costs(battle, uid)
    options: list[Option] = []
    move, step, face, end, postures = _templates(uid)

    step_cost = costs.get("step")
    can_step = step_cost is not None and not turn.stepped and step_cost <= ap.current
    if ap.current <= 0 and not (can_step and step_cost == 0):
        return None

    per_ap = rules.inches_per_ap(battle, uid)
    if per_ap > 0 and ap.current > 0:
        max_len = per_ap * ap.current
        # The region's geometry is only built if someone reads it (sampling, drawing).
        region = arena.move_region(uid, max_len, lazy=True)
        # The validator keeps values, not the match: a decision is a value its clones share.
        validate_move = MoveCheck(
            region, arena.mover(uid), rules.move_pricer(battle, uid), ap.current, max_len
        )
        options.append(
            Option(
                move,
                f"move (up to {max_len:.1f} in)",
                point_field="to",
                region=region.geometry,
                validate=validate_move,
                detail={"inches_per_ap": per_ap, "max_len": max_len},
            )
        )
    if can_step:
        step_len = 1.0 / battle.yards_per_inch  # one yard, in inches
        region = arena.step_region(uid, step_len, lazy=True)
        options.append(
            Option(
                step,
                f"step (1 yd, {step_cost} AP)",
                point_field="to",
                region=region.geometry,
                validate=region.validate,
            )
        )
    face_cost = costs.get("face")
    if face_cost is not None and face_cost <= ap.current:
        options.append(
            Option(face, f"face ({face_cost} AP)", point_field="degrees", validate=_finite_degrees)
        )
    posture_cost = costs.get("posture")
    if posture_cost is not None and posture_cost <= ap.current:
        current = battle.posture(uid)
        allowed = rules.posture_allowed
        for (p, cmd), label in zip(postures, _posture_labels(posture_cost), strict=True):
            if p != current and allowed(battle, uid, p):
                options.append(Option(cmd, label))
    attack_cost = costs.get("attack")
    if attack_cost is not None and attack_cost <= ap.current:
        options.extend(rules.attack_options(battle, uid))
    options.extend(rules.maneuver_options(battle, uid))
    options.append(Option(end, "end turn"))
    return Decision(uid, "turn", tuple(options), context={"ap": ap.current, "round": battle.round})
