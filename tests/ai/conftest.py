"""Fixtures for the AI tests: headless; the engine's test ruleset is registered."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import tests.engine.simple_rules  # noqa: F401  (registers "test-simple")
