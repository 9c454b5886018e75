"""Fixtures for the scenario tests: fake rulesets and the test profiles files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenario import fakerules

HERE = Path(__file__).parent
BAD = HERE / "bad"
#: Profiles for the bad-file tests: trooper, veteran (all rulesets), duelist (gurps only).
TEST_PROFILES = HERE / "profiles-test.yaml"


@pytest.fixture
def fake_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the ruleset registry at the fake rulesets (stats: skill, hp, weapon)."""
    fakerules.install(monkeypatch)
