"""Snapping onto reaction regions (``MatchView.snap_to_region``, the one function the window's
clicks and the AI's fallback use): every snapped point is legal by the engine's own check (what
``skirmish path`` answers), it is the region's point nearest the wanted point, and a point
within the snapping distance of the region always snaps. Property-tested (hypothesis,
derandomized) on GURPS retreats and AP-pool dodge moves of every shipped scenario."""

from __future__ import annotations

import functools
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import Point

from game.cli.reach import build_query
from game.core.commands import Defend, Option
from game.engine.view import MatchView

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = sorted(p for p in (REPO / "scenarios").glob("*.yaml") if p.name != "profiles.yaml")
#: The snapped point may be this much farther than the region's nearest point (the drawn arcs are
#: polylines with chords within 1e-5" of the circle; points are rounded to 1e-6").
NEAR_TOL = 1e-4


def _cases() -> list[tuple[Path, str, str | None]]:
    from game.scenario import load_scenario

    out: list[tuple[Path, str, str | None]] = []
    for path in SCENARIOS:
        units = load_scenario(path).units
        me = units[0]
        foe = min((u for u in units if u.side != me.side), key=lambda u: math.dist(u.at, me.at))
        out.append((path, me.id, foe.id))  # a GURPS retreat from the nearest enemy
        out.append((path, me.id, None))  # an AP-pool dodge move
    return out


CASES = _cases()


@functools.cache
def _setup(i: int):
    path, unit, attacker = CASES[i]
    if attacker is not None:
        q = build_query(path, unit, ruleset="gurps", retreat_from=attacker)
    else:
        q = build_query(path, unit, ruleset="ap-pool", dodge=True)
    assert q.reaction is not None
    opt = Option(
        Defend(unit, "dodge"),
        q.kind,
        point_field="to",
        region=q.reaction.region.geometry,
        validate=q.reaction.region.validate,
    )
    return q, opt, q.region(), MatchView(q.match)


@pytest.mark.parametrize(
    "i", range(len(CASES)), ids=[f"{c[0].stem}-{'dodge' if c[2] is None else 'retreat'}" for c in CASES]
)
@settings(derandomize=True, max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(r=st.floats(0.0, 3.0), a=st.floats(0.0, 2.0 * math.pi), within=st.sampled_from([0.05, 0.3, math.inf]))
def test_every_snapped_point_is_legal_and_nearest(i, r, a, within):
    q, opt, region, view = _setup(i)
    x0, y0 = q.match.pos(q.unit)
    p = (x0 + r * math.cos(a), y0 + r * math.sin(a))
    got = view.snap_to_region(opt, p, within)
    gap = region.distance(Point(p)) if not region.is_empty else math.inf
    if got is None:
        assert not gap < within - NEAR_TOL, (q.unit, p, gap)  # near enough must snap
        return
    assert q.check(got)["legal"], (q.unit, p, got, q.check(got))
    assert math.dist(got, p) <= min(gap, within) + NEAR_TOL, (q.unit, p, got, gap)


def test_the_reach_command_names_no_ruleset():
    # the reaction regions come from the ruleset hook (Ruleset.reaction_region)
    code = (REPO / "game" / "cli" / "reach.py").read_text().split('"""', 2)[2].lower()  # past the docstring
    for word in ("gurps", "ap_pool", "ap-pool", "encumbered", "dodge_move_inches"):
        assert word not in code, word


def test_a_policy_snaps_its_best_wanted_point_when_none_is_legal():
    import numpy as np

    from game.ai.points import SNAP_WITHIN, snap_first

    i = next(k for k, c in enumerate(CASES) if c[0].stem == "duel" and c[2] is not None)
    q, opt, _, view = _setup(i)
    x0, y0 = q.match.pos(q.unit)
    # wanted points just beyond the arc (legal nowhere) and one far from it
    ax, ay = q.match.pos(CASES[i][2])
    ux, uy = (x0 - ax) / math.dist((x0, y0), (ax, ay)), (y0 - ay) / math.dist((x0, y0), (ax, ay))
    wanted = np.array([(x0 + 3.0 * ux, y0 + 3.0 * uy), (x0 + 1.1 * ux, y0 + 1.1 * uy)])
    assert all(opt.validate(tuple(p)) is not None for p in wanted)
    got = snap_first(view, opt, wanted, [0, 1])  # the first is too far to snap: the second snaps
    assert got is not None and q.check(got)["legal"]
    assert math.dist(got, wanted[1]) == pytest.approx(0.1, abs=1e-3)
    assert snap_first(view, opt, wanted, [0]) is None and math.dist(wanted[0], (x0, y0)) - 1.0 > SNAP_WITHIN
