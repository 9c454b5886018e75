"""Render tests run headless: SDL's dummy video driver, no window, pygame-ce only."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = sorted(p for p in (REPO / "scenarios").glob("*.yaml") if p.stem != "profiles")


@pytest.fixture(scope="session")
def pg():
    """pygame-ce with its video (dummy driver) and font modules started, as the window does."""
    import pygame

    from game.render.window import init_video

    init_video(pygame)
    yield pygame
