"""``skirmish reach`` / ``skirmish path``: the region the window draws is exactly the set of
legal moves (away from a thin band at its boundary), on every shipped scenario; and the
firing-line holes of issue 19 are gone."""

from __future__ import annotations

import functools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, shape

from game.cli.reach import build_query
from game.movement.regions import RETREAT_SNAP_TOL
from tests.render.conftest import REPO, SCENARIOS
from tests.render.test_cli import run_cli

#: Points closer than this to the region's boundary are not checked (chords of the polygonal
#: discs: 16" * (1 - cos(pi / 128)) < 0.005").
BAND = 0.01
FIRING = REPO / "scenarios" / "firing-line.yaml"
DUEL = REPO / "scenarios" / "duel.yaml"


def _cases():
    out = []
    for path in SCENARIOS:
        from game.scenario import load_scenario

        spec = load_scenario(path)
        out.append((path, spec.units[0].id, None, None, False))
        out.append((path, spec.units[-1].id, None, None, False))
    out.append((DUEL, "hendrik", "gurps", "vasco", False))
    out.append((DUEL, "hendrik", "ap-pool", None, True))
    return out


CASES = _cases()


@functools.cache
def _query(i: int):
    path, unit, ruleset, retreat_from, dodge = CASES[i]
    q = build_query(path, unit, ruleset=ruleset, retreat_from=retreat_from, dodge=dodge)
    return q, q.region()


@pytest.mark.parametrize("i", range(len(CASES)), ids=[f"{c[0].stem}-{c[1]}-{c[2] or 'own'}" for c in CASES])
@settings(derandomize=True, max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(u=st.floats(0.0, 1.0), v=st.floats(0.0, 1.0))
def test_inside_region_exactly_when_path_is_legal(i, u, v):
    q, region = _query(i)
    spec = q.match.spec
    # half the points near the unit (where the region's detail is), half anywhere on the table
    sx, sy = q.match.pos(q.unit)
    if u < 0.5:
        r = q.max_len * 1.2
        x, y = sx - r + 4 * r * u, sy - r + 2 * r * v
    else:
        x, y = spec.width * (2 * u - 1), spec.height * v
    p = Point(x, y)
    if region.geom_type in ("LineString", "MultiLineString"):
        # Retreat arcs: a point counts as on them within the engine's snap tolerance.
        d = region.distance(p) if not region.is_empty else float("inf")
        if 0.5 * RETREAT_SNAP_TOL < d < 2 * RETREAT_SNAP_TOL:
            return
        inside = d <= RETREAT_SNAP_TOL
    else:
        if not region.is_empty and region.boundary.distance(p) < BAND:
            return
        inside = region.contains(p)
    got = q.check((x, y))
    assert got["legal"] == inside, (q.unit, (x, y), got)


def test_firing_line_reach_has_no_holes_where_moves_are_legal():
    q = build_query(FIRING, "red-m2")
    region = q.region()
    # the only holes are the other units' bases and the obstacles inside the reach
    holes = [h for g in getattr(region, "geoms", [region]) for h in g.interiors]
    assert len(holes) <= 4  # was 240
    assert region.contains(Point(2.1, 2.45))
    assert q.check((2.1, 2.45))["legal"]
    q.match.close()


def test_reach_and_path_json(capsys):
    code, out, err = run_cli(["reach", str(FIRING), "red-m2", "--json"], capsys)
    assert code == 0, err
    got = json.loads(out)
    assert set(got) == {"unit", "kind", "ap", "max_len", "region"}
    assert got["unit"] == "red-m2" and got["ap"] == 2 and got["max_len"] == 10.0
    region = shape(got["region"])
    assert region.contains(Point(2.1, 2.45))
    code, out, _ = run_cli(["path", str(FIRING), "red-m2", "2.1", "2.45", "--json"], capsys)
    got = json.loads(out)
    assert code == 0 and got["legal"] is True and got["reason"] is None
    assert got["length"] == pytest.approx(7.7856, abs=1e-3) and got["path"][0] == [4.0, 10.0]
    code, out, _ = run_cli(["path", str(FIRING), "red-m2", "20", "8", "--json"], capsys)
    got = json.loads(out)
    assert got["legal"] is False and "longer than 10.00 in" in got["reason"]
    code, out, _ = run_cli(["path", str(FIRING), "red-m2", "2.1", "2.45", "--ap", "1", "--json"], capsys)
    assert json.loads(out)["legal"] is False


def test_retreat_and_dodge_regions(capsys):
    code, out, _ = run_cli(
        ["reach", str(DUEL), "hendrik", "--ruleset", "gurps", "--retreat-from", "vasco", "--json"], capsys
    )
    got = json.loads(out)
    assert (
        code == 0 and got["kind"] == "retreat" and got["ap"] is None and got["max_len"] == pytest.approx(1.0)
    )
    # exactly one yard straight back is legal; half a yard is not
    code, out, _ = run_cli(
        [
            "path",
            str(DUEL),
            "hendrik",
            "14",
            "5.5",
            "--ruleset",
            "gurps",
            "--retreat-from",
            "vasco",
            "--json",
        ],
        capsys,
    )
    assert json.loads(out)["legal"] is True
    code, out, _ = run_cli(
        [
            "path",
            str(DUEL),
            "hendrik",
            "13.5",
            "5.5",
            "--ruleset",
            "gurps",
            "--retreat-from",
            "vasco",
            "--json",
        ],
        capsys,
    )
    assert json.loads(out)["legal"] is False
    code, out, _ = run_cli(
        ["reach", str(DUEL), "hendrik", "--ruleset", "ap-pool", "--dodge", "--json"], capsys
    )
    assert code == 0 and shape(json.loads(out)["region"]).area == pytest.approx(3.14159 * 4, rel=0.01)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["reach", str(DUEL), "nobody"], "no unit 'nobody'"),
        (["reach", str(DUEL), "hendrik", "--dodge"], "has no dodge move"),
        (
            ["reach", str(DUEL), "hendrik", "--ruleset", "ap-pool", "--retreat-from", "vasco"],
            "has no retreat",
        ),
        (
            ["reach", str(DUEL), "hendrik", "--retreat-from", "ghost", "--ruleset", "gurps"],
            "--retreat-from: no other unit",
        ),
        (["path", str(DUEL), "hendrik", "1", "2", "--dodge", "--retreat-from", "vasco"], "give one"),
        (["path", str(DUEL), "hendrik", "1", "nan"], "finite"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, args, message):
    code, _, err = run_cli(args, capsys)
    assert code == 2 and message in err and "Traceback" not in err
