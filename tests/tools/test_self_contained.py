"""Self-contained logs (issue 15): ``match_start`` embeds the scenario's text and the profiles its
units use, so a log replays from any folder, after the scenario moved or changed and after
``profiles.yaml`` was edited; logs written before still replay, and say when the profiles changed."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from game.core.shipped import PROFILES_PATH, SCENARIOS_DIR
from game.scenario import load_scenario
from game.scenario.embed import FIELDS, EmbeddedMismatch, embedded, profiles_digest, profiles_used, rebuild
from game.tools.batch import plan, run_battle
from game.tools.replay import ReplayError, explain, load, verify
from tests.cli_capture import run
from tests.tools.aged import age_log


def _edit_rounds(scenario: Path) -> None:
    """Change the scenario's round limit to 3 (its bytes and its sha256 change)."""
    text = scenario.read_text()
    edited = re.sub(r"^rounds: \d+$", "rounds: 3", text, count=1, flags=re.M)
    assert edited != text
    scenario.write_text(edited)


@pytest.fixture
def recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A battle on a copy of the shipped duel, recorded in one folder: (scenario copy, log)."""
    home = tmp_path / "recorded"
    (home / "scenarios").mkdir(parents=True)
    scenario = home / "scenarios" / "duel.yaml"
    shutil.copy(SCENARIOS_DIR / "duel.yaml", scenario)
    with scenario.open("a") as fh:
        fh.write("# a copy of our own: no shipped file has these bytes\n")
    monkeypatch.chdir(home)
    log = home / "logs" / "battle-5.jsonl"
    policies = {"red": "aggressive", "blue": "cautious"}
    run_battle(plan(seeds=[5], scenario="scenarios/duel.yaml", policies=policies, log_file=log)[0])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return scenario, log


def test_the_header_embeds_the_scenario_text_and_the_profiles_used(recorded: tuple[Path, Path]) -> None:
    scenario, log = recorded
    start = json.loads(log.read_text().splitlines()[0])
    assert set(FIELDS) <= set(start)
    assert start["scenario_text"] == scenario.read_text()
    assert start["scenario_path"] == "scenarios/duel.yaml"  # as given when played
    assert set(start["profiles"]) == {"swashbuckler", "veteran"}  # the duel's two units
    assert all(set(per) == {start["ruleset"]} for per in start["profiles"].values())
    assert start["profiles_sha256"] == profiles_digest(start["profiles"])


def test_a_log_replays_from_any_folder_after_its_scenario_moved_and_changed(
    recorded: tuple[Path, Path], capsys
) -> None:
    scenario, log = recorded
    code, out, err = run(["replay", str(log)], capsys)
    assert code == 0 and ": OK: " in out, out + err
    _edit_rounds(scenario)
    scenario.rename(scenario.with_name("renamed.yaml"))
    code, out, err = run(["replay", str(log)], capsys)
    assert code == 0 and ": OK: " in out, out + err


def test_a_given_scenario_other_than_the_embedded_one_is_named(recorded: tuple[Path, Path], capsys) -> None:
    scenario, log = recorded
    code, _, err = run(["replay", str(log), "--scenario", "duel"], capsys)  # the shipped duel
    assert code == 2
    line = err.strip()
    assert line.startswith(f"error: {log}:1: scenario_sha256: the scenario embedded in the log (sha256 ")
    assert "recorded from scenarios/duel.yaml" in line
    assert f"differs from {SCENARIOS_DIR / 'duel.yaml'} (sha256 " in line
    assert len(err.strip().splitlines()) == 1
    code, out, _ = run(["replay", str(log), "--scenario", str(scenario)], capsys)  # the same bytes: fine
    assert code == 0 and ": OK: " in out


def test_an_edited_embedded_scenario_or_profiles_is_refused(
    recorded: tuple[Path, Path], tmp_path: Path
) -> None:
    _, log = recorded
    lines = log.read_text().splitlines()
    start = json.loads(lines[0])
    for key, change in (
        ("scenario_text", lambda s: s.update(scenario_text=s["scenario_text"].replace("12", "13"))),
        ("profiles", lambda s: s["profiles"]["veteran"][s["ruleset"]].update(edited=True)),
    ):
        edited = json.loads(json.dumps(start))
        change(edited)
        bad = tmp_path / f"{key}.jsonl"
        bad.write_text("\n".join([json.dumps(edited, separators=(",", ":")), *lines[1:]]) + "\n")
        with pytest.raises(ReplayError) as info:
            load(bad)
        assert str(info.value).startswith(f"{bad}:1: {key}: the embedded ") and "the log was edited" in str(
            info.value
        )


def _edited_profiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """profiles.yaml edited since the battle: the veteran (hendrik) has other stamina under aff."""
    text = PROFILES_PATH.read_text()
    edited = tmp_path / "profiles.yaml"
    edited.write_text(text.replace("stamina: 18", "stamina: 11", 1))
    assert edited.read_text() != text
    monkeypatch.setattr("game.scenario.profiles.DEFAULT_PROFILES_PATH", edited)


def test_after_profiles_yaml_is_edited_a_log_replays_from_its_embedded_profiles(
    recorded: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    scenario, log = recorded
    old = age_log(log, tmp_path / "old.jsonl")  # the same battle, as logged before embedding
    _edited_profiles(tmp_path, monkeypatch)
    code, out, _ = run(["replay", str(log)], capsys)
    assert code == 0 and ": OK: " in out
    # the old log replays with today's profiles: its match starts differently, and it says why
    code, out, _ = run(["replay", str(old), "--scenario", str(scenario)], capsys)
    assert code == 1
    diverged, why = out.strip().splitlines()
    assert diverged.startswith(f"{old}: DIVERGED at seq 0 (match_start) units: ")
    assert why == (
        f"{old}: this log embeds no profiles (it was recorded before logs carried them) and its match "
        "starts differently (units): the shared profiles (profiles.yaml) or the rules changed since the "
        "battle was played"
    )


def test_an_old_log_still_replays_from_another_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: 'DIVERGED at seq 0 (match_start) scenario_path' when replayed from elsewhere."""
    monkeypatch.chdir(SCENARIOS_DIR.parent)
    log = tmp_path / "battle.jsonl"
    run_battle(
        plan(
            seeds=[2],
            scenario="scenarios/duel.yaml",
            policies={"red": "random", "blue": "random"},
            log_file=log,
        )[0]
    )
    old = age_log(log)
    monkeypatch.chdir(tmp_path)
    events, spec = load(old)  # found among the shipped scenarios by its sha256
    assert spec.source == "scenarios/duel.yaml"  # named as recorded
    result = verify(events, spec)
    assert result.ok, str(result)
    assert explain(result, events) is None


def test_rebuild_gives_the_spec_the_match_was_played_on() -> None:
    spec = load_scenario(SCENARIOS_DIR / "street.yaml", ruleset="gurps")
    header = {
        "scenario_sha256": spec.sha256,
        "scenario_path": "somewhere/street.yaml",
        "ruleset": "gurps",
        **embedded(spec, "gurps"),
    }
    again = rebuild(header, "log.jsonl")
    assert again.units == spec.units and again.obstacles == spec.obstacles and again.sha256 == spec.sha256
    assert again.source == "somewhere/street.yaml" and again.ruleset == "gurps"
    used = profiles_used(spec, "gurps")
    assert used == {name: {"gurps": spec.profiles[name]["gurps"]} for name in used}
    assert {
        name: per["gurps"] for name, per in again.profiles.items() if "gurps" in per and name in used
    } == {name: per["gurps"] for name, per in used.items()}
    header["profiles_sha256"] = "0" * 64
    with pytest.raises(EmbeddedMismatch) as info:
        rebuild(header, "log.jsonl")
    assert info.value.key == "profiles"


def test_a_spec_built_in_code_embeds_nothing() -> None:
    from tests.engine.conftest import make_spec

    assert embedded(make_spec(), "gurps") == {}
