"""Fixtures for the batch, CLI and replay tests: headless, Agg plots, the shipped scenarios."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("MPLBACKEND", "Agg")

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"
DUEL = SCENARIOS / "duel.yaml"
STREET = SCENARIOS / "street.yaml"
FIVE = SCENARIOS / "skirmish-5v5.yaml"


@pytest.fixture
def duel() -> Path:
    return DUEL
