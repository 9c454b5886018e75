"""Stand-in rulesets for the scenario tests (the loader only uses a class's
``Stats``, ``Options``, ``parse_stats`` and ``default_stats``; it never builds one).

Using fakes keeps the bad-file tests' expected messages independent of the real
rulesets' stat blocks, which their authors may change.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import Field

from game.rules import REGISTRY, RULESET_NAMES
from game.rules.base import Ruleset, StrictModel


class FakeWeapon(StrictModel):
    name: str
    reach: int = Field(1, ge=1, le=5)


class FakeStats(StrictModel):
    skill: int = Field(10, ge=3, le=20)
    hp: int = Field(10, gt=0)
    weapon: FakeWeapon = FakeWeapon(name="sword")


class FakeOptions(StrictModel):
    house_rule: bool = False
    bonus: int = Field(0, ge=0, le=3)


class FakeRuleset(Ruleset):
    """A ruleset that only validates stat blocks."""

    name = "fake"
    source = "none"
    Stats = FakeStats
    Options = FakeOptions

    @classmethod
    def default_stats(cls) -> StrictModel:
        return FakeStats()


def _make(rs: str) -> type[Ruleset]:
    return type(f"Fake_{rs.replace('-', '_')}", (FakeRuleset,), {"name": rs})


#: One fake class per ruleset name, looked up by the registry entries below.
for _rs in RULESET_NAMES:
    globals()[f"Fake_{_rs.replace('-', '_')}"] = _make(_rs)


def install(monkeypatch: pytest.MonkeyPatch, missing: tuple[str, ...] = ()) -> None:
    """Point every registry entry at a fake class (``missing`` ones at a module that does not exist)."""
    for rs in RULESET_NAMES:
        target: Any = f"{__name__}:Fake_{rs.replace('-', '_')}"
        if rs in missing:
            target = f"tests.scenario.no_such_module_{rs.replace('-', '_')}:X"
        monkeypatch.setitem(REGISTRY, rs, target)
