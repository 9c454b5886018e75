"""game.scenario.locate: one rule finds the scenario of a log or a save (and replays and saves use it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from game.core.errors import ScenarioError
from game.engine.match import Match
from game.scenario import load_scenario
from game.scenario.locate import SHIPPED_SCENARIOS, ScenarioNotFound, find_scenario, sha256_of
from game.tools.batch import plan, run_battle
from game.tools.replay import ReplayError, load, verify
from game.tools.saves import load_match, save_match
from tests.tools.aged import age_log, age_save

SHIPPED_DUEL = SHIPPED_SCENARIOS / "duel.yaml"


@pytest.fixture
def away(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with no scenarios in or above it."""
    cwd = tmp_path / "a" / "b" / "c" / "d" / "e" / "cwd"
    cwd.mkdir(parents=True)
    monkeypatch.chdir(cwd)
    return cwd


@pytest.fixture
def own(tmp_path: Path) -> Path:
    """A scenario whose bytes no shipped scenario has."""
    path = tmp_path / "own.yaml"
    path.write_text(SHIPPED_DUEL.read_text() + "# own bytes\n")
    return path


def _record(tmp_path: Path) -> Path:
    return tmp_path / "deep" / "er" / "st" / "il" / "l" / "battle.jsonl"


def test_the_stored_path_is_returned_as_recorded(away: Path, own: Path) -> None:
    found = find_scenario(str(own), sha256=sha256_of(own), relative_to=away / "x.jsonl")
    assert found == own and str(found) == str(own)


def test_a_given_file_is_the_answer_or_an_error(away: Path, own: Path, tmp_path: Path) -> None:
    sha = sha256_of(own)
    assert find_scenario("/nowhere.yaml", sha256=sha, relative_to=away / "x", given=own) == own
    with pytest.raises(ScenarioNotFound) as info:
        find_scenario(str(own), sha256=sha, relative_to=away / "x", given=SHIPPED_DUEL, since="then")
    assert info.value.key == "sha256" and "has changed since then: sha256" in info.value.message
    with pytest.raises(ScenarioNotFound) as info:
        find_scenario(str(own), sha256=sha, relative_to=away / "x", given=tmp_path / "missing.yaml")
    assert info.value.key == "path" and "cannot read scenario" in info.value.message


def test_next_to_the_file_relative_path_or_recorded_relative_path(
    away: Path, own: Path, tmp_path: Path
) -> None:
    sha = sha256_of(own)
    save = tmp_path / "saves" / "s.json"
    (save.parent / "maps").mkdir(parents=True)
    moved = save.parent / "maps" / "m.yaml"
    own.rename(moved)
    assert find_scenario("/gone/own.yaml", sha256=sha, relative_to=save, relative="maps/m.yaml") == moved
    assert find_scenario("maps/m.yaml", sha256=sha, relative_to=save) == save.parent / "maps" / "m.yaml"


def test_found_by_sha256_in_the_folders_around_the_file(away: Path, own: Path, tmp_path: Path) -> None:
    sha = sha256_of(own)
    log = _record(tmp_path)
    (log.parent.parent / "scenarios").mkdir(parents=True)
    there = log.parent.parent / "scenarios" / "renamed.yaml"
    own.rename(there)
    assert find_scenario("/gone/own.yaml", sha256=sha, relative_to=log) == there


def test_found_in_the_shipped_scenarios(away: Path) -> None:
    found = find_scenario("/gone/duel.yaml", sha256=sha256_of(SHIPPED_DUEL), relative_to=away / "x.json")
    assert found == SHIPPED_DUEL


def test_an_edited_file_is_skipped_and_reported_when_nothing_matches(away: Path, own: Path) -> None:
    sha = sha256_of(own)
    own.write_text(own.read_text() + "# edited\n")
    with pytest.raises(ScenarioNotFound) as info:
        find_scenario(str(own), sha256=sha, relative_to=away / "x", since="the game was saved", hint="h")
    assert info.value.key == "sha256"
    assert info.value.message.startswith(f"scenario {own} has changed since the game was saved: sha256")
    assert info.value.message.endswith("no other file has those bytes; h")


def test_nothing_found(away: Path) -> None:
    with pytest.raises(ScenarioNotFound) as info:
        find_scenario("/gone/x.yaml", sha256="ab" * 32, relative_to=away / "x.jsonl", hint="pass it")
    assert info.value.key == "path"
    assert info.value.message.startswith("scenario /gone/x.yaml not found (nor next to x.jsonl")
    assert info.value.message.endswith("; pass it")


# ------------------------------------------------------------------------- replays and saves
def test_replay_finds_a_moved_scenario_by_the_same_rule(away: Path, own: Path, tmp_path: Path) -> None:
    log = tmp_path / "logs" / "battle.jsonl"
    run_battle(
        plan(seeds=[3], scenario=str(own), policies={"red": "random", "blue": "random"}, log_file=log)[0]
    )
    events, spec = load(log)
    assert verify(events, spec).ok
    old = age_log(log, tmp_path / "logs" / "old.jsonl")  # as written before logs embedded it
    events, spec = load(old)
    assert verify(events, spec).ok
    own.unlink()
    events, spec = load(log)  # the log embeds its scenario: nothing to find
    assert verify(events, spec).ok
    with pytest.raises(ReplayError) as info:
        load(old)
    assert str(info.value).startswith(f"{old}:1: scenario_path: scenario {own} not found")
    assert "pass --scenario PATH" in str(info.value)


def test_a_save_finds_its_scenario_by_sha256_next_to_it(away: Path, own: Path, tmp_path: Path) -> None:
    m = Match(load_scenario(own), seed=2)
    save = save_match(m, tmp_path / "saves" / "s.json")
    m.close()
    (save.parent / "scenarios").mkdir()
    own.rename(save.parent / "scenarios" / "kept.yaml")
    data = age_save(json.loads(save.read_text()))  # as written before saves embedded it
    data["scenario"]["relative"] = None
    save.write_text(json.dumps(data))
    load_match(save).close()
    (save.parent / "scenarios" / "kept.yaml").unlink()
    with pytest.raises(ScenarioError) as info:
        load_match(save)
    assert str(info.value).startswith(f"{save}:1: scenario.path: scenario {own} not found")
