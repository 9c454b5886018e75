"""Frozen specs of a loaded scenario (what ``game.scenario`` produces).

These are immutable values: the match engine copies them into mutable
components when it builds a world, so one spec can seed many matches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from components.spatial import Posture
from components.terrain import ObstacleSpec


@dataclass(frozen=True, slots=True)
class UnitSpec:
    """One unit as placed by the scenario."""

    id: str
    side: str
    at: tuple[float, float]
    facing: float = 0.0
    posture: Posture = Posture.STANDING
    profile: str | None = None  # None: the ruleset's standard trooper
    base: float = 0.5
    size: float = 1.0
    line: int = 0  # line in the scenario file, for messages


@dataclass(frozen=True, slots=True)
class ScenarioSpec:
    """A validated scenario.

    ``profiles`` maps profile name -> ruleset name -> raw stat block (a plain
    mapping, validated by that ruleset's stats model when the scenario loads).
    It merges ``scenarios/profiles.yaml`` with the scenario's own ``profiles:``
    (the scenario's blocks win).
    """

    name: str
    ruleset: str
    width: float
    height: float
    cell: float = 1.0
    yards_per_inch: float = 1.0
    round_limit: int = 20
    obstacles: tuple[ObstacleSpec, ...] = ()
    units: tuple[UnitSpec, ...] = ()
    profiles: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)  # ruleset name -> its options
    sides: tuple[str, ...] = ()  # side names in order of first appearance
    controllers: dict[str, str] = field(default_factory=dict)  # side -> policy name
    source: str = "<memory>"
    sha256: str = ""
    description: str = ""
    text: str = ""  # the file as loaded (its sha256 is ``sha256``); "" for a spec built in code

    def unit(self, uid: str) -> UnitSpec:
        for u in self.units:
            if u.id == uid:
                return u
        raise KeyError(uid)
