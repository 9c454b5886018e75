"""Fixtures for the robustness tests: headless, the engine's test ruleset registered, shipped scenarios."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from game.rules import RULESET_NAMES

# Headless: nothing here may open a window (and nothing should import pygame at all).
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import tests.engine.simple_rules  # noqa: F401  (registers the "test-simple" ruleset)

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"
SHIPPED = sorted(p for p in SCENARIOS.glob("*.yaml") if p.name != "profiles.yaml")
RULESETS = RULESET_NAMES  # the registry: a new ruleset is tested here at once
#: Rulesets without reaction decisions to count on (defence dice are rolled up front; a block for
#: another memory needs a Block(2) memory, its block left and a hit on an ordinary memory).
NO_REACTIONS = frozenset({"defence-dice"})


@pytest.fixture
def duel() -> Path:
    return SCENARIOS / "duel.yaml"
