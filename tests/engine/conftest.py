"""Fixtures for engine tests: small scenarios built in code, run under the test ruleset."""

from __future__ import annotations

import pytest

import tests.engine.simple_rules  # noqa: F401  (registers "test-simple")
from components.specs import ScenarioSpec, UnitSpec
from components.terrain import ObstacleSpec


def make_spec(n_per_side: int = 2, ruleset: str = "test-simple") -> ScenarioSpec:
    units = []
    for i in range(n_per_side):
        units.append(UnitSpec(f"red-{i + 1}", "red", (3.0, 3.0 + 3 * i), facing=0.0))
        units.append(UnitSpec(f"blue-{i + 1}", "blue", (17.0, 3.0 + 3 * i), facing=180.0))
    wall = ObstacleSpec("wall", ((9.0, 1.0), (10.0, 1.0), (10.0, 4.0), (9.0, 4.0)), 2.0)
    return ScenarioSpec(
        name="engine test",
        ruleset=ruleset,
        width=20.0,
        height=12.0,
        obstacles=(wall,),
        units=tuple(units),
        sides=("red", "blue"),
        round_limit=30,
        sha256="0" * 64,
    )


@pytest.fixture
def spec() -> ScenarioSpec:
    return make_spec()
