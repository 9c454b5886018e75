"""game.tools.saves: atomic saves, strict loading, and a loaded game continuing exactly (issue 8, part 4)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from game.core.errors import ScenarioError, SkirmishError
from game.engine.match import Match
from game.scenario import load_scenario
from game.tools.saves import DIGESTED, SAVE_VERSION, digests, load_match, read_save, save_match
from game.tools.session import Session
from tests.engine.conftest import make_spec
from tests.robustness.conftest import RULESETS, SCENARIOS
from tests.tools.aged import age_save


def _advance(m: Match, n: int) -> int:
    """Apply up to ``n`` random-policy commands (drawing from ``m.ai_rng``); returns how many."""
    session = Session(m, "random")
    session.play(steps=n)
    return session.applied


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    """A private copy of the duel (tests may edit it), with bytes of its own: the shipped duel
    does not have its sha256, so a search by sha256 never finds that instead."""
    dst = tmp_path / "duel.yaml"
    dst.write_text((SCENARIOS / "duel.yaml").read_text() + "# a private copy\n")
    return dst


@pytest.mark.parametrize("ruleset", RULESETS)
def test_loaded_game_continues_exactly_like_the_original(tmp_path: Path, scenario: Path, ruleset: str):
    spec = load_scenario(scenario, ruleset=ruleset)
    original = Match(spec, ruleset=ruleset, seed=17)
    _advance(original, 9)
    save = save_match(original, tmp_path / "game.json")
    loaded = load_match(save)
    try:
        assert loaded.log.to_text() == original.log.to_text()
        assert loaded.commands == original.commands
        assert loaded.ai_rng.bit_generator.state == original.ai_rng.bit_generator.state
        # Both continue with the same policy, each drawing from its own restored stream.
        _advance(original, 10_000)
        _advance(loaded, 10_000)
        assert original.outcome is not None and loaded.outcome == original.outcome
        assert loaded.log.to_text() == original.log.to_text()
    finally:
        original.close()
        loaded.close()


def test_save_file_holds_what_the_issue_lists(tmp_path: Path, scenario: Path):
    m = Match(load_scenario(scenario), seed=3, controllers={"red": "human"})
    _advance(m, 3)
    data = json.loads(save_match(m, tmp_path / "s.json").read_text())
    assert data["format"] == "skirmish-save" and data["version"] == SAVE_VERSION
    assert data["scenario"]["path"] == str(scenario.resolve())
    assert data["scenario"]["sha256"] == m.spec.sha256 and len(data["scenario"]["sha256"]) == 64
    assert data["ruleset"] == "aff" and data["seed"] == 3
    assert data["controllers"] == {"red": "human", "blue": m.spec.controllers["blue"]}
    assert data["commands"] == m.commands and len(data["commands"]) == 3
    assert data["options"] == m.rules.options.model_dump(mode="json")
    assert data["ai_rng"]["bit_generator"] == "PCG64"
    digests = data["check"].pop("digests")
    assert data["check"] == {"events": len(m.log), "state_hash": m.state_hash()}
    assert sorted(digests) == sorted(DIGESTED) and all(len(d) == 64 for d in digests.values())
    m.close()


def test_a_game_with_no_commands_round_trips(tmp_path: Path, scenario: Path):
    m = Match(load_scenario(scenario, ruleset="cortex"), ruleset="cortex", seed=8)
    loaded = load_match(save_match(m, tmp_path / "fresh.json"))
    assert loaded.log.to_text() == m.log.to_text() and loaded.pending == m.pending
    m.close()
    loaded.close()


def test_a_save_embeds_its_scenario_and_loads_after_the_file_changed(tmp_path: Path, scenario: Path):
    m = Match(load_scenario(scenario), seed=1)
    _advance(m, 3)
    save = save_match(m, tmp_path / "s.json")
    m.close()
    scenario.write_text(scenario.read_text().replace("rounds: 16", "rounds: 13"))
    loaded = load_match(save)
    assert loaded.round_limit == 16 and len(loaded.commands) == 3
    loaded.close()
    # naming the changed file says the embedded scenario differs from it
    with pytest.raises(ScenarioError) as info:
        load_match(save, scenario_path=scenario)
    msg = str(info.value)
    assert msg.startswith(f"{save}:") and "scenario.sha256" in msg
    assert "the scenario embedded in the save (sha256" in msg and f"differs from {scenario}" in msg


def test_scenario_changed_since_an_old_save_is_refused(tmp_path: Path, scenario: Path):
    m = Match(load_scenario(scenario), seed=1)
    save = save_match(m, tmp_path / "s.json")
    m.close()
    save.write_text(json.dumps(age_save(json.loads(save.read_text()))))
    scenario.write_text(scenario.read_text().replace("rounds: 16", "rounds: 13"))
    with pytest.raises(ScenarioError) as info:
        load_match(save)
    msg = str(info.value)
    assert (
        msg.startswith(f"{save}:")
        and "scenario.sha256" in msg
        and "has changed since the game was saved" in msg
    )


def test_moved_scenario_is_found_next_to_the_save_or_given(tmp_path: Path, scenario: Path):
    m = Match(load_scenario(scenario), seed=2)
    _advance(m, 2)
    save = save_match(m, tmp_path / "s.json")
    m.close()
    save.write_text(json.dumps(age_save(json.loads(save.read_text()))))  # as before version 3
    moved = tmp_path / "elsewhere" / "duel.yaml"
    moved.parent.mkdir()
    scenario.rename(moved)
    with pytest.raises(ScenarioError, match="not found"):
        load_match(save)
    load_match(save, scenario_path=moved).close()
    # Relative fallback: the scenario moved together with the save.
    both = tmp_path / "both"
    both.mkdir()
    shutil.copy(moved, both / "duel.yaml")
    data = json.loads(save.read_text())
    data["scenario"]["path"] = "/nonexistent/duel.yaml"
    data["scenario"]["relative"] = "duel.yaml"
    (both / "s.json").write_text(json.dumps(data))
    load_match(both / "s.json").close()


def _save_data(tmp_path: Path, scenario: Path) -> dict:
    m = Match(load_scenario(scenario), seed=4)
    _advance(m, 4)
    data = json.loads(save_match(m, tmp_path / "good.json").read_text())
    m.close()
    return data


def _broken(tmp_path: Path, data: dict, name: str = "bad.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(data, indent=1))
    return p


@pytest.mark.parametrize(
    ("change", "where", "what"),
    [
        (lambda d: d.update(version=99), "version", "unknown save version 99"),
        (lambda d: d.update(format="zip"), "format", "not a skirmish save"),
        (lambda d: d.pop("seed"), "seed", "missing key"),
        (lambda d: d.update(seed="4"), "seed", "Input should be a valid integer"),
        (lambda d: d.update(extra=1), "extra", "unknown key"),
        (lambda d: d["scenario"].update(sha256="xyz"), "scenario.sha256", "String should match pattern"),
        (
            lambda d: d["ai_rng"].update(bit_generator="MT19937"),
            "ai_rng.bit_generator",
            "Input should be 'PCG64'",
        ),
        (lambda d: d["commands"].append({"type": "Explode", "unit": "vasco"}), "commands.4", "not a command"),
        (
            lambda d: d["commands"].insert(0, {"type": "EndTurn", "unit": "nobody"}),
            "commands.0",
            "refused on replay",
        ),
        (lambda d: d["check"].update(events=d["check"]["events"] + 1), "check", "the commands replay to"),
        (lambda d: d.update(ruleset="chess"), "ruleset", "unknown ruleset 'chess'"),
        (
            lambda d: d["ai_memory"]["quarry"].update(vasco="nobody"),
            "ai_memory.quarry.vasco",
            "no unit 'nobody'",
        ),
        (lambda d: d.update(version=1), "ai_memory", "version 1 saves have no ai_memory"),
        (lambda d: d.update(version=True), "version", "unknown save version True"),
    ],
    ids=[
        "version",
        "format",
        "missing",
        "type",
        "unknown-key",
        "sha-shape",
        "rng",
        "bad-command",
        "illegal-command",
        "diverged",
        "ruleset",
        "ai-memory-unit",
        "ai-memory-in-v1",
        "version-bool",
    ],
)
def test_bad_saves_name_file_line_key_and_cause(
    tmp_path: Path, scenario: Path, change, where: str, what: str
):
    data = _save_data(tmp_path, scenario)
    if what in ("refused on replay", "the commands replay to"):
        data = age_save(data, 5)  # a save rebuilt by replay (version 6 is restored from its snapshot)
    change(data)
    if isinstance(data.get("check"), dict) and isinstance(data.get("version"), int):
        # Digests recomputed, as a careful forger would: each deeper check must still refuse.
        version = data["version"] if data["version"] in (3, 4, 5, 6) else SAVE_VERSION
        data["check"]["digests"] = digests(data, version)
    bad = _broken(tmp_path, data)
    with pytest.raises(ScenarioError) as info:
        load_match(bad)
    problem = info.value.problems[0]
    assert problem.source == str(bad)
    assert problem.path == where
    assert what in problem.message, problem.message
    assert problem.line > 0, f"{problem} has no line"


@pytest.mark.parametrize(
    ("content", "what"),
    [
        (b"", "not JSON"),
        (b'{"format": "skirmish-save",', "not JSON"),
        (b"[1, 2]", "expected a JSON object"),
        (b"\xff\xfe{}", "expected UTF-8"),
        (b"null", "expected a JSON object"),
    ],
)
def test_unreadable_saves(tmp_path: Path, content: bytes, what: str):
    p = tmp_path / "junk.json"
    p.write_bytes(content)
    with pytest.raises(ScenarioError, match=what):
        read_save(p)


def test_missing_save(tmp_path: Path):
    with pytest.raises(ScenarioError, match="no such save file"):
        load_match(tmp_path / "nope.json")


def test_in_memory_scenario_cannot_be_saved(tmp_path: Path):
    m = Match(make_spec(), seed=1)
    with pytest.raises(SkirmishError, match="neither a file on disk nor a loaded text"):
        save_match(m, tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()
    m.close()


def test_a_failed_write_leaves_the_old_save_intact(tmp_path: Path, scenario: Path, monkeypatch):
    m = Match(load_scenario(scenario), seed=6)
    target = save_match(m, tmp_path / "slot.json")
    before = target.read_bytes()
    _advance(m, 3)

    def crash(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(OSError):
        save_match(m, target)
    monkeypatch.undo()
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".slot.json")] == []
    m.close()


def test_ai_stream_is_restored_not_rederived(tmp_path: Path, scenario: Path):
    """A human side makes the AI stream depend on who decided: only the saved state reproduces it."""
    m = Match(load_scenario(scenario), seed=12, controllers={"red": "human"})
    _advance(m, 5)
    m.ai_rng.integers(10, size=7)  # draws no replay could know about
    loaded = load_match(save_match(m, tmp_path / "s.json"))
    assert np.array_equal(loaded.ai_rng.integers(1 << 30, size=5), m.ai_rng.integers(1 << 30, size=5))
    m.close()
    loaded.close()


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_loaded_game_keeps_what_the_ai_remembers(tmp_path: Path, ruleset: str):
    """``aggressive`` keeps its quarry from turn to turn (memory no log event holds): the save
    carries it, so the loaded game's AI chases whom the original's would."""
    spec = load_scenario(SCENARIOS / "skirmish-5v5.yaml", ruleset=ruleset)
    original = Match(spec, ruleset=ruleset, seed=5)
    session = Session(original, "aggressive")  # one session (and view) throughout, as the window keeps
    session.play(steps=40)
    assert original.ai_memory.get("quarry"), "the aggressive AI chose quarries"
    loaded = load_match(save_match(original, tmp_path / "game.json"))
    try:
        assert loaded.ai_memory == original.ai_memory
        session.play()
        Session(loaded, "aggressive").play()
        assert loaded.log.to_text() == original.log.to_text()
    finally:
        original.close()
        loaded.close()


def test_a_version_1_save_still_loads(tmp_path: Path, scenario: Path):
    data = age_save(_save_data(tmp_path, scenario), version=1)
    m = load_match(_broken(tmp_path, data, "v1.json"))
    try:
        assert len(m.commands) == 4 and not m.ai_memory.get("quarry")
    finally:
        m.close()
