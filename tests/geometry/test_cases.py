"""Hand-made scenes with answers worked out by hand; each runs through every engine.

Frame used below: the attacker stands at (2, 6), the target east of it, so a sight ray at
angle u from the centre line reaches y = 6 + (x − 2)·tan u (u > 0 is south, y grows south).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from components.sight import Arc, CoverLevel, SightFacts
from game.geometry import SightIndex
from tests.geometry.scenes import HIGH, LOW, MAP_H, MAP_W, box, poly, table

Sight = Callable[..., SightFacts]

#: Standing attacker at (2, 6) and a standing target 10 inches east, facing back west.
LINE = (("a", (2.0, 6.0), "standing"), ("t", (12.0, 6.0), "standing", 180.0))
ALPHA = math.asin(0.05)  # half-angle of a 0.5-inch base seen from 10 inches


def test_clear_sight(sight: Sight) -> None:
    units = table(*LINE)
    f = sight([box("rock", 20, 1, 22, 3)], units, 0, 1)
    assert (f.attacker, f.target) == ("a", "t")
    assert f.visible and f.cover_fraction == 0.0 and f.cover == CoverLevel.NONE
    assert f.intervening == () and not f.hidden
    assert f.arc == Arc.FRONT and f.distance == pytest.approx(10.0)


def test_high_wall_hides_everything(sight: Sight) -> None:
    f = sight([box("wall", 6, 3, 6.5, 9)], table(*LINE), 0, 1)
    assert not f.visible and f.cover_fraction == 1.0 and f.cover == CoverLevel.TOTAL


def test_wall_hides_a_known_angular_part(sight: Sight) -> None:
    # The wall's inner edge ends at y = 5.9; a ray passes through it iff it is north of the
    # wall's far corner (6.5, 5.9): tan u < −0.1 / 4.5. Everything on such a ray is hidden.
    f = sight([box("wall", 6, 2, 6.5, 5.9)], table(*LINE), 0, 1)
    expected = (ALPHA - math.atan(0.1 / 4.5)) / (2 * ALPHA)
    assert f.cover_fraction == pytest.approx(expected, abs=1e-9)
    assert f.cover == CoverLevel.LIGHT and f.visible


def test_wall_edge_on_the_centre_line_hides_exactly_half(sight: Sight) -> None:
    f = sight([box("wall", 6, 2, 6.5, 6)], table(*LINE), 0, 1)
    assert f.cover_fraction == 0.5
    assert f.cover == CoverLevel.LIGHT  # 0.50 is the top of light


def _low_wall_fraction(height: float) -> float:
    # Exit through x = 11 at d = 9 / cos u: z = 0.9 − 0.4·10·cos u / 9, between 0 and H here.
    mean_z = 0.9 - (4.0 / 9.0) * math.sin(ALPHA) / ALPHA
    return min(1.0, mean_z / height) if height > 0.4562 else 1.0


@pytest.mark.parametrize(
    ("posture", "height", "level"),
    [
        ("standing", 1.0, CoverLevel.LIGHT),
        ("crouching", 0.75, CoverLevel.MEDIUM),
        ("kneeling", 0.6, CoverLevel.HEAVY),
        ("prone", 0.25, CoverLevel.TOTAL),
    ],
)
def test_low_wall_in_front_of_targets_of_each_posture(
    sight: Sight, posture: str, height: float, level: CoverLevel
) -> None:
    units = table(("a", (2.0, 6.0), "standing"), ("t", (12.0, 6.0), posture))
    f = sight([box("hedge", 10.8, 2, 11.0, 10, LOW)], units, 0, 1)
    assert f.cover_fraction == pytest.approx(_low_wall_fraction(height), abs=1e-9)
    assert f.cover == level
    assert f.visible == (level != CoverLevel.TOTAL)


def test_attacker_prone_behind_a_low_wall_sees_over_nothing(sight: Sight) -> None:
    wall = box("hedge", 2.6, 2, 2.8, 10, LOW)
    prone = table(("a", (2.0, 6.0), "prone"), ("t", (12.0, 6.0), "standing"))
    f = sight([wall], prone, 0, 1)
    assert not f.visible and f.cover == CoverLevel.TOTAL
    # standing behind the same wall, the attacker's eye is above it and it hides nothing
    standing = table(("a", (2.0, 6.0), "standing"), ("t", (12.0, 6.0), "standing"))
    assert sight([wall], standing, 0, 1).cover_fraction == 0.0


# With the target at (12, 6.5) and base 0.5, the line y = 6 from the attacker is tangent to
# the target's base at (12, 6): it is the northern edge of the silhouette's window.
TANGENT = (("a", (2.0, 6.0), "standing"), ("t", (12.0, 6.5), "standing"))


def test_running_along_an_edge_does_not_block(sight: Sight) -> None:
    f = sight([box("wall", 5, 4, 8, 6)], table(*TANGENT), 0, 1)
    assert f.cover_fraction == 0.0 and f.visible and not f.hidden


def test_grazing_a_corner_does_not_block(sight: Sight) -> None:
    f = sight([poly("spike", [(4, 5), (6, 5), (5, 6)])], table(*TANGENT), 0, 1)
    assert f.cover_fraction == 0.0 and f.visible


def test_an_obstacle_only_touching_the_corridor_is_no_screen(sight: Sight) -> None:
    # "far" hides the southern third of the window (cover), "slab" is within 0.5" of the
    # target's base but only touches the corridor along its top edge.
    far = box("far", 6, 6.3, 6.5, 9)
    slab = box("slab", 10, 4, 13, 6)
    f = sight([far, slab], table(*TANGENT), 0, 1)
    assert f.cover_fraction >= 0.1
    assert not f.hidden
    # raised by 0.01" the slab's interior enters the corridor: now it screens the target
    raised = box("slab", 10, 4, 13, 6.01)
    assert sight([far, raised], table(*TANGENT), 0, 1).hidden


def test_intervening_units_nearest_the_attacker_first(sight: Sight) -> None:
    units = table(
        ("a", (2.0, 6.0), "standing"),
        ("t", (14.0, 6.0), "standing"),
        ("far", (10.0, 6.2), "standing"),
        ("near", (5.0, 5.8), "kneeling"),
        ("off", (8.0, 9.0), "standing"),
        ("behind", (0.0, 6.0), "standing"),
    )
    f = sight([], units, 0, 1)
    assert f.intervening == ("near", "far")
    assert f.cover_fraction == 0.0  # units are not obstacles for the fraction


def test_a_unit_tangent_to_the_corridor_does_not_intervene(sight: Sight) -> None:
    touching = table(*TANGENT, ("m", (7.0, 5.5), "standing"))
    assert sight([], touching, 0, 1).intervening == ()
    overlapping = table(*TANGENT, ("m", (7.0, 5.51), "standing"))
    assert sight([], overlapping, 0, 1).intervening == ("m",)


@pytest.mark.parametrize(
    ("wall", "hidden"),
    [
        (box("wall", 11.0, 3, 11.3, 6), True),  # 0.2" from the base, size 1
        (box("wall", 11.0, 3, 11.3, 6, size=0.5), False),  # too small to hide a size-1 unit
        (box("wall", 10.0, 3, 10.3, 6), False),  # 1.2" from the base
        (box("wall", 11.0, 3, 11.3, 6, size=2.0), True),
    ],
)
def test_hidden_next_to_a_large_enough_obstacle(sight: Sight, wall: object, hidden: bool) -> None:
    f = sight([wall], table(*LINE), 0, 1)
    assert f.cover_fraction == 0.5
    assert f.hidden is hidden


@pytest.mark.parametrize(
    ("screen", "size", "hidden"),
    [
        ((10.8, 6.0), 1.0, True),  # intervening, base edge 0.2" from the target's
        ((10.8, 6.0), 0.5, False),  # smaller than the target
        ((9.0, 6.0), 2.0, False),  # big enough but 2" away
    ],
)
def test_hidden_behind_a_cover_unit(
    sight: Sight, screen: tuple[float, float], size: float, hidden: bool
) -> None:
    units = table(*LINE, ("m", screen, "standing", 0.0, 0.5, size))
    f = sight([], units, 0, 1)
    assert f.intervening == ("m",)
    assert f.hidden is hidden


def test_attacker_inside_high_woods_sees_nothing_and_target_inside_is_unseen(sight: Sight) -> None:
    woods = box("woods", 4, 5, 6, 7)
    inside = table(("a", (5.0, 6.0), "standing"), ("t", (12.0, 6.0), "standing"))
    assert sight([woods], inside, 0, 1).cover == CoverLevel.TOTAL
    assert sight([woods], inside, 1, 0).cover == CoverLevel.TOTAL


def test_attacker_on_the_edge_of_high_woods(sight: Sight) -> None:
    woods = box("woods", 4, 5, 6, 7)
    into = table(("a", (4.0, 6.0), "standing"), ("t", (12.0, 6.0), "standing"))
    assert sight([woods], into, 0, 1).cover == CoverLevel.TOTAL
    away = table(("a", (4.0, 6.0), "standing"), ("t", (0.5, 6.0), "standing"))
    assert sight([woods], away, 0, 1).cover_fraction == 0.0


def test_contributions_name_the_obstacles_and_sum_to_the_fraction() -> None:
    units = table(*LINE)
    obstacles = [box("north", 6, 2, 6.5, 6), box("hedge", 10.8, 6, 11.0, 10, LOW), box("far", 25, 1, 26, 2)]
    index = SightIndex(obstacles, MAP_W, MAP_H)
    shares = index.contributions(units, 0, 1)
    assert set(shares) == {"north", "hedge"}
    assert shares["north"] == pytest.approx(0.5)
    assert sum(shares.values()) == pytest.approx(index.facts(units, 0, 1).cover_fraction)


def test_the_highest_obstacle_on_each_ray_counts() -> None:
    # A high obstacle behind a low one: on each ray the highest z counts.
    units = table(*LINE)
    both = [box("hedge", 10.8, 2, 11.0, 10, LOW), box("wall", 6, 2, 6.5, 6, HIGH)]
    f = SightIndex(both, MAP_W, MAP_H).facts(units, 0, 1)
    expected = 0.5 + 0.5 * _low_wall_fraction(1.0)
    assert f.cover_fraction == pytest.approx(expected, abs=1e-9)
