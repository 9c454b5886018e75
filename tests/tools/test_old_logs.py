"""Logs written by earlier code keep replaying, whatever options are added since (issue 25).

``tests/fixtures/logs-2026-11-28`` holds logs recorded by the code of 2026-11-28 (one per
ruleset, plus a 5v5), kept as they were written: each must still verify. A log records the
options it was played with; an option added later (with a default) must not break the replay
of a log that does not name it: the replay fills the defaults in before comparing.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from pydantic import Field, create_model

from game.rules import ruleset_class
from game.tools.replay import load, verify

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "logs-2026-11-28"
LOGS = sorted(FIXTURES.glob("*.jsonl.gz"))


def _unpacked(tmp_path: Path, log: Path) -> Path:
    out = tmp_path / log.name.removesuffix(".gz")
    out.write_bytes(gzip.decompress(log.read_bytes()))
    return out


def test_the_fixtures_cover_every_ruleset_they_name() -> None:
    assert {p.name.split("-1.")[0].removeprefix("duel-") for p in LOGS if p.name.startswith("duel-")} >= {
        "gurps",
        "defence-dice",
        "cortex",
        "aff",
        "ap-pool",
    }


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name)
def test_an_old_log_still_verifies(tmp_path: Path, log: Path) -> None:
    events, spec = load(_unpacked(tmp_path, log))
    result = verify(events, spec)
    assert result.ok, str(result)


@pytest.mark.parametrize("log", [p for p in LOGS if p.name.startswith("duel-")], ids=lambda p: p.name)
def test_an_option_added_with_a_default_does_not_break_an_old_log(
    tmp_path: Path, log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events, spec = load(_unpacked(tmp_path, log))
    cls = ruleset_class(events[0]["ruleset"])
    grown = create_model(
        f"{cls.Options.__name__}Grown",
        __base__=cls.Options,
        brand_new_rule=(int, Field(default=3, ge=0, description="an option added after the log")),
    )
    monkeypatch.setattr(cls, "Options", grown)
    assert "brand_new_rule" not in events[0]["options"]
    result = verify(events, spec)
    assert result.ok, str(result)
