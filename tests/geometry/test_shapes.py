"""Pictures of the cover model: corridor, silhouette parts, arc wedges."""

from __future__ import annotations

import math

import pytest
from shapely.geometry import Point

from components.sight import Arc
from game.geometry import SightIndex, arc_wedges, sight_corridor, silhouette_parts
from tests.geometry.scenes import LOW, MAP_H, MAP_W, box, table

LINE = (("a", (2.0, 6.0), "standing"), ("t", (12.0, 6.0), "standing"))


def test_corridor_is_the_hull_of_the_attacker_and_the_target_base() -> None:
    corridor = sight_corridor(table(*LINE), 0, 1, quad_segs=64)
    assert corridor.covers(Point(2.0, 6.0))
    assert corridor.contains(Point(12.0, 6.4)) and corridor.contains(Point(12.4, 6.0))
    assert not corridor.contains(Point(7.0, 6.5))  # beside the line, outside the narrow fan
    length = math.sqrt(100 - 0.25)
    expected = length * 0.5 + (math.pi - math.acos(0.05)) * 0.25  # two tangent triangles + far cap
    assert corridor.area == pytest.approx(expected, rel=2e-3)


def test_silhouette_parts_of_a_wall_hiding_the_northern_half() -> None:
    parts = silhouette_parts([box("wall", 6, 2, 6.5, 6)], table(*LINE), 0, 1)
    frame = parts.hidden.union(parts.exposed)
    assert parts.hidden.area / frame.area == pytest.approx(0.5, abs=1e-9)
    assert parts.hidden.bounds[2] == pytest.approx(0.0, abs=1e-9)  # hidden part at negative angles
    assert parts.hidden.bounds[3] == pytest.approx(1.0)
    # map space: fully hidden rays go north of the centre line, seen rays south of it
    assert parts.hidden_wedge.centroid.y < 6.0 < parts.exposed_wedge.centroid.y
    assert parts.hidden_wedge.intersection(parts.exposed_wedge).area == pytest.approx(0.0, abs=1e-9)


def test_silhouette_parts_area_matches_the_exact_fraction() -> None:
    units = table(*LINE)
    obstacles = [box("hedge", 10.8, 2, 11.0, 10, LOW), box("wall", 6, 2, 6.5, 5.9)]
    parts = silhouette_parts(obstacles, units, 0, 1)
    exact = SightIndex(obstacles, MAP_W, MAP_H).facts(units, 0, 1).cover_fraction
    frame = parts.hidden.union(parts.exposed)
    assert parts.hidden.area / frame.area == pytest.approx(exact, abs=1e-4)
    assert parts.profile.fraction == pytest.approx(exact, abs=1e-12)
    assert not parts.exposed_wedge.is_empty  # the low hedge leaves the head visible


@pytest.mark.parametrize("facing", [0.0, 90.0, 217.0])
def test_arc_wedges_split_the_circle_60_60_240(facing: float) -> None:
    radius = 3.0
    wedges = arc_wedges((5.0, 4.0), facing, radius)
    disc = math.pi * radius**2
    assert wedges[Arc.FRONT].area == pytest.approx(disc / 2, rel=2e-3)
    assert wedges[Arc.SIDE].area == pytest.approx(disc / 3, rel=2e-3)
    assert wedges[Arc.REAR].area == pytest.approx(disc / 6, rel=2e-3)
    ahead = (5.0 + 2 * math.cos(math.radians(facing)), 4.0 + 2 * math.sin(math.radians(facing)))
    assert wedges[Arc.FRONT].contains(Point(ahead))
    behind = (5.0 - 2 * math.cos(math.radians(facing)), 4.0 - 2 * math.sin(math.radians(facing)))
    assert wedges[Arc.REAR].contains(Point(behind))
