"""Shared helpers for render tests: a small non-square test scenario and a driver for the window."""

from __future__ import annotations

import math

import tests.engine.simple_rules  # noqa: F401  (registers the "test-simple" ruleset)
from components.specs import ScenarioSpec, UnitSpec
from components.terrain import ObstacleSpec

#: Pixels per inch of the test camera: 0.25 in = 10 px, so grid points are exact pixels.
SCALE = 40.0


def duel_spec(round_limit: int = 6) -> ScenarioSpec:
    """24 x 14 inches, a wall in the north, two units a side within shooting range (12 in)."""
    units = (
        UnitSpec("red-1", "red", (4.0, 5.0), facing=0.0),
        UnitSpec("red-2", "red", (4.0, 9.0), facing=0.0),
        UnitSpec("blue-1", "blue", (13.0, 5.0), facing=180.0),
        UnitSpec("blue-2", "blue", (13.0, 9.0), facing=180.0),
    )
    wall = ObstacleSpec("wall", ((8.0, 0.5), (9.0, 0.5), (9.0, 3.5), (8.0, 3.5)), 2.0)
    return ScenarioSpec(
        name="render test",
        ruleset="test-simple",
        width=24.0,
        height=14.0,
        obstacles=(wall,),
        units=units,
        sides=("red", "blue"),
        round_limit=round_limit,
        sha256="1" * 64,
    )


def pin_camera(renderer) -> None:
    """Make the camera exact: origin at the map corner, :data:`SCALE` pixels per inch."""
    cam = renderer.camera
    cam.scale = SCALE
    cam.origin_x = 0.0
    cam.origin_y = 0.0


def px(renderer, p) -> tuple[int, int]:
    """Pixel of a world point (exact for 0.25-inch grid points under :func:`pin_camera`)."""
    x, y = renderer.camera.world_to_screen(*p)
    assert x == round(x) and y == round(y), p
    return (round(x), round(y))


def axis_points(centre, dist):
    x, y = centre
    return [(x + dist, y), (x - dist, y), (x, y + dist), (x, y - dist)]


def toward(a, b, dist):
    """A 0.25-inch grid point about ``dist`` inches from ``a`` toward ``b``."""
    d = math.dist(a, b)
    t = min(1.0, dist / d) if d else 0.0
    return (round((a[0] + (b[0] - a[0]) * t) * 4) / 4, round((a[1] + (b[1] - a[1]) * t) * 4) / 4)
