"""Cover levels, arcs, bearings and the unit table (game.geometry.model)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from components.sight import Arc, CoverLevel
from components.spatial import Posture
from components.specs import UnitSpec
from game.geometry import UnitTable, attack_arc, bearing_deg, cover_level
from game.geometry.model import arc_codes, level_codes, snap_fraction, snap_fractions


@pytest.mark.parametrize(
    ("fraction", "level"),
    [
        (0.0, CoverLevel.NONE),
        (0.0999, CoverLevel.NONE),
        (0.10, CoverLevel.LIGHT),
        (0.3, CoverLevel.LIGHT),
        (0.50, CoverLevel.LIGHT),
        (0.5001, CoverLevel.MEDIUM),
        (0.75, CoverLevel.MEDIUM),
        (0.7501, CoverLevel.HEAVY),
        (0.90, CoverLevel.HEAVY),
        (0.9001, CoverLevel.NEAR_TOTAL),
        (0.999999, CoverLevel.NEAR_TOTAL),
        (1.0, CoverLevel.TOTAL),
    ],
)
def test_cover_level_thresholds(fraction: float, level: CoverLevel) -> None:
    assert cover_level(fraction) == level
    assert level_codes(np.array([fraction]))[0] == list(CoverLevel).index(level)


def test_fractions_near_a_threshold_snap_onto_it() -> None:
    assert snap_fraction(0.5 + 1e-12) == 0.5
    assert cover_level(0.5 + 1e-12) == CoverLevel.LIGHT
    assert cover_level(0.1 - 1e-12) == CoverLevel.LIGHT
    assert cover_level(1.0 - 1e-12) == CoverLevel.TOTAL
    assert snap_fraction(-0.2) == 0.0 and snap_fraction(1.3) == 1.0
    np.testing.assert_array_equal(snap_fractions(np.array([0.75 - 1e-11, 0.3])), [0.75, 0.3])


def test_bearings_grow_clockwise_with_y_south() -> None:
    assert bearing_deg((0, 0), (5, 0)) == 0.0
    assert bearing_deg((0, 0), (0, 5)) == 90.0  # south
    assert bearing_deg((0, 0), (-5, 0)) == 180.0
    assert bearing_deg((0, 0), (0, -5)) == 270.0  # north
    assert bearing_deg((1, 1), (1, 1)) == 0.0


@pytest.mark.parametrize(
    ("attacker", "facing", "arc"),
    [
        ((10.0, 0.0), 0.0, Arc.FRONT),  # dead ahead
        ((0.0, 10.0), 0.0, Arc.FRONT),  # exactly 90° to the right: the boundary is front
        ((0.0, -10.0), 0.0, Arc.FRONT),  # exactly 90° to the left
        ((-0.001, 10.0), 0.0, Arc.SIDE),  # just past 90°
        ((10 * math.cos(math.radians(150)), 10 * math.sin(math.radians(150))), 0.0, Arc.SIDE),  # exactly 150°
        ((10 * math.cos(math.radians(-150)), 10 * math.sin(math.radians(-150))), 0.0, Arc.SIDE),
        ((10 * math.cos(math.radians(150.01)), 10 * math.sin(math.radians(150.01))), 0.0, Arc.REAR),
        ((-10.0, 0.0), 0.0, Arc.REAR),
        ((0.0, -10.0), 90.0, Arc.REAR),  # facing south, attacker due north
        ((0.0, 10.0), 90.0, Arc.FRONT),
        ((10.0, 0.0), 270.0, Arc.FRONT),  # facing north, attacker due east: 90° right
        ((10.0, 0.1), 270.0, Arc.SIDE),
        ((0.0, 0.0), 123.0, Arc.FRONT),  # on the defender's centre
    ],
)
def test_attack_arcs_at_their_boundaries(attacker: tuple[float, float], facing: float, arc: Arc) -> None:
    assert attack_arc((0.0, 0.0), facing, attacker) == arc
    code = arc_codes(np.zeros((1, 2)), np.array([facing]), np.array([attacker]))[0]
    assert code == list(Arc).index(arc)


def test_arc_codes_vectorized_match_scalar() -> None:
    rng = np.random.default_rng(3)
    d = rng.uniform(-10, 10, (200, 2))
    a = rng.uniform(-10, 10, (200, 2))
    f = rng.uniform(0, 360, 200)
    codes = arc_codes(d, f, a)
    for k in range(200):
        assert list(Arc)[codes[k]] == attack_arc(tuple(d[k]), f[k], tuple(a[k]))


def test_unit_table_build_heights_eyes_and_copies() -> None:
    units = UnitTable.build(
        [
            ("a", (1.0, 2.0), "standing"),
            ("b", (3.0, 4.0), Posture.PRONE, 450.0, 0.6, 2.0),
            ("c", (5.0, 6.0), 0.4),
        ]
    )
    assert units.ids == ("a", "b", "c")
    np.testing.assert_allclose(units.height, [1.0, 0.5, 0.4])
    np.testing.assert_allclose(units.eye, [0.9, 0.45, 0.36])
    np.testing.assert_allclose(units.facing, [0.0, 90.0, 0.0])
    np.testing.assert_allclose(units.base, [0.5, 0.6, 0.5])
    assert units.index("b") == 1
    moved = units.with_unit(1, xy=(7.0, 8.0), height=0.25, facing=-90.0)
    np.testing.assert_allclose(moved.xy[1], [7.0, 8.0])
    assert moved.height[1] == 0.25 and moved.facing[1] == 270.0
    np.testing.assert_allclose(units.xy[1], [3.0, 4.0])  # the original is untouched
    with pytest.raises(ValueError):
        units.xy[0, 0] = 9.0  # read-only arrays


def test_with_unit_equals_building_the_changed_table() -> None:
    units = UnitTable.build(
        [("a", (1.0, 2.0), "standing", 10.0), ("b", (3.0, 4.0), "prone", 350.0, 0.6, 2.0)]
    )
    moved = units.with_unit(1, xy=(5.5, 6.5), height=0.3, facing=725.0)
    built = UnitTable(
        units.ids,
        np.array([[1.0, 2.0], [5.5, 6.5]]),
        units.base,
        np.array([units.height[0], 0.3]),
        units.size,
        np.array([units.facing[0], 725.0]),
    )
    for name in ("xy", "base", "height", "size", "facing"):
        np.testing.assert_array_equal(getattr(moved, name), getattr(built, name))
        assert not getattr(moved, name).flags.writeable
    assert moved.index("b") == 1 and moved.ids == units.ids
    assert units.with_unit(0).xy is units.xy  # nothing changed: nothing copied
    with pytest.raises(ValueError):
        units.with_unit(0, height=-0.1)


def test_unit_table_from_specs_and_validation() -> None:
    specs = [
        UnitSpec("x", "red", (1.0, 1.0), facing=45.0, posture=Posture.KNEELING, base=0.4, size=1.5),
        UnitSpec("y", "blue", (9.0, 3.0)),
    ]
    units = UnitTable.from_specs(specs)
    assert units.height[0] == pytest.approx(0.6 * 1.5)
    assert units.facing[0] == 45.0 and units.base[0] == 0.4
    with pytest.raises(ValueError):
        UnitTable.build([("a", (0, 0), "standing"), ("a", (1, 1), "standing")])
    with pytest.raises(ValueError):
        UnitTable.build([("a", (0, 0), "standing", 0.0, 0.0)])
