"""GURPS retreats in a real match: the exact retreat arcs, the AI's choice on them, the snapped move.

shared/rules/gurps-active-defense.txt, "Retreat": the defender moves away from the attacker by
at least one yard and at most a tenth of its Move. With Move under 10 yd that is exactly one
yard. The region handed to the AI is the arc of legal points at that distance
(:func:`game.movement.regions.retreat_arcs`); a point within the snapping tolerance of it is
legal and the unit moves to the point snapped onto it, exactly one yard away.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from components.specs import ScenarioSpec, UnitSpec
from game.ai.points import sample_in, sampling_region
from game.ai.reactions import react
from game.core.commands import Attack, Decision, Defend, EndTurn
from game.engine.match import Match
from game.engine.view import MatchView
from game.movement.regions import RETREAT_SNAP_TOL, ArcRegion
from game.rules.gurps.commands import Interpose

DEFENDER = (6.0, 7.0)


def _spec(flanked: bool) -> ScenarioSpec:
    units = [
        UnitSpec("red-1", "red", (5.0, 7.0), facing=0.0),
        UnitSpec("blue-1", "blue", DEFENDER, facing=180.0),
    ]
    if flanked:  # bases touching the defender's on both flanks
        units += [
            UnitSpec("blue-2", "blue", (6.0, 8.0), facing=180.0),
            UnitSpec("blue-3", "blue", (6.0, 6.0)),
        ]
    return ScenarioSpec(
        name="retreat test",
        ruleset="gurps",
        width=20.0,
        height=14.0,
        obstacles=(),
        units=tuple(units),
        sides=("red", "blue"),
        round_limit=10,
        sha256="0" * 64,
    )


def _defence_with_retreat(flanked: bool) -> tuple[Match, Decision]:
    """A match in which red-1 hit blue-1 with its broadsword and blue-1 may dodge and retreat."""
    for seed in range(100):
        m = Match(_spec(flanked), ruleset="gurps", seed=seed)
        for _ in range(20):
            d = m.pending
            if d.kind == "turn" and d.unit == "red-1":
                break
            m.apply(EndTurn(d.unit))
        m.apply(Attack("red-1", "blue-1", "broadsword"))
        while m.pending is not None and m.pending.kind == "interpose":
            m.apply(Interpose(m.pending.unit, "blue-1", None))  # nobody steps in
        d = m.pending
        if d is not None and d.kind == "defence" and any(o.point_field == "retreat_to" for o in d.options):
            return m, d
        m.close()
    raise AssertionError("no seed gave a hit to defend against")


def _retreat_option(d: Decision) -> Any:
    return next(o for o in d.options if o.point_field == "retreat_to" and o.command.kind == "dodge")


def test_a_flanked_defender_gets_the_straight_back_arc_and_moves_exactly_one_yard() -> None:
    m, d = _defence_with_retreat(flanked=True)
    try:
        opt = _retreat_option(d)
        assert opt.validate((7.0, 7.0)) is None  # straight back is legal ...
        arcs = sampling_region(opt)
        assert type(arcs) is ArcRegion and not arcs.is_empty  # ... and so the region is not empty
        assert not opt.region.is_empty and opt.region.geom_type == "MultiLineString"
        (rho, start, end), *_ = arcs.arcs
        assert rho == 1.0 and start < 0.0 < end  # the arc about straight back (east)
        # A point a little past the arc is accepted and snapped: the unit ends exactly 1 yd away.
        m.apply(opt.with_point((7.0 + 0.5 * RETREAT_SNAP_TOL, 7.0)))
        assert m.pos("blue-1") == (7.0, 7.0)
        retreat = next(e for e in reversed(m.log.events) if e["type"] == "retreat")
        assert retreat["length"] == 1.0
    finally:
        m.close()


def test_the_ai_samples_on_the_arc_and_chooses_a_legal_retreat() -> None:
    m, d = _defence_with_retreat(flanked=False)
    try:
        opt = _retreat_option(d)
        pts = sample_in(sampling_region(opt), 50, np.random.default_rng(0))
        assert len(pts) == 50
        assert np.abs(np.hypot(pts[:, 0] - DEFENDER[0], pts[:, 1] - DEFENDER[1]) - 1.0).max() < 1e-12
        cmd = react(MatchView(m), d, m.ai_rng)
        assert isinstance(cmd, Defend) and cmd.retreat_to is not None  # +3 to the Dodge: worth it
        assert any(o.point_field == "retreat_to" and o.validate(cmd.retreat_to) is None for o in d.options)
        frm = m.pos("blue-1")
        m.apply(cmd)
        assert math.isclose(math.dist(frm, m.pos("blue-1")), 1.0, abs_tol=1e-12)
        assert math.dist(m.pos("blue-1"), m.pos("red-1")) > math.dist(frm, m.pos("red-1"))
    finally:
        m.close()
