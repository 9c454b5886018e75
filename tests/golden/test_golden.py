"""Golden event logs: the same seeds, scenarios and policies give byte-identical logs.

The fixtures were recorded by ``python -m tests.golden.record`` (every ruleset x every shipped
scenario x 3 seeds, with all three built-in policies playing, plus one saved game). A refactoring
must leave every one of them unchanged; a change of behaviour re-records them on purpose.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from tests.golden.play import continue_saved, play_log
from tests.golden.record import HERE, LOGS, ROOT, SAVE, cases, name, scenario_path


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    # The logs carry the scenario path as given: play from where they were recorded.
    monkeypatch.chdir(ROOT)


def _first_difference(expected: str, got: str) -> str:
    for i, (a, b) in enumerate(zip(expected.splitlines(), got.splitlines(), strict=False), 1):
        if a != b:
            return f"line {i}:\n  expected {a[:400]}\n  got      {b[:400]}"
    return f"lengths differ: {len(expected.splitlines())} vs {len(got.splitlines())} lines"


@pytest.mark.parametrize(("scenario", "ruleset", "seed", "policies"), cases(), ids=lambda v: str(v))
def test_log_is_byte_identical(scenario: str, ruleset: str, seed: int, policies: tuple[str, str]) -> None:
    expected = gzip.decompress((LOGS / name(scenario, ruleset, seed)).read_bytes()).decode()
    got = play_log(scenario_path(scenario), ruleset, seed, policies)
    assert got == expected, _first_difference(expected, got)


def test_saved_game_loads_and_continues_identically(tmp_path: Path) -> None:
    scenario = SAVE[0]
    expected = gzip.decompress((HERE / "saved-game-full.jsonl.gz").read_bytes()).decode()
    got = continue_saved(HERE / "saved-game.json", scenario_path(scenario))
    assert got == expected, _first_difference(expected, got)


def test_every_case_has_a_fixture() -> None:
    recorded = {p.name for p in LOGS.iterdir()}
    assert recorded == {name(sc, rs, seed) for sc, rs, seed, _ in cases()}
    assert os.path.getsize(HERE / "saved-game.json") > 0


def test_a_log_written_before_the_defence_rename_still_verifies(tmp_path: Path) -> None:
    # Recorded before the event type ``defense`` became ``defence``: reading renames it, and the
    # battle replays to the same events.
    from game.core.events import read_log
    from game.tools.replay import load, verify

    old = gzip.decompress((HERE / "before-rename" / "duel-gurps-1.jsonl.gz").read_bytes()).decode()
    assert '"type":"defense"' in old
    path = tmp_path / "old.jsonl"
    path.write_text(old)
    assert all(e["type"] != "defense" for e in read_log(path))
    # The log predates embedded scenarios: it names the duel by its sha256, and the shipped duel has
    # changed since (issue 26), so it replays against the duel as it was, kept beside it.
    events, spec = load(path, HERE / "before-rename" / "duel.yaml")
    assert verify(events, spec).ok
