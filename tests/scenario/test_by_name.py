"""Shipped scenarios are package data and can be named without a path (issue 15)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from game.core.errors import ScenarioError
from game.core.shipped import ASSETS_DIR, PROFILES_PATH, SCENARIOS_DIR, shipped_scenarios
from game.scenario import DEFAULT_PROFILES_PATH, load_scenario
from game.scenario.locate import find_scenario, resolve_scenario, sha256_of
from tests.cli_capture import run

REPO = Path(__file__).resolve().parents[2]


def test_the_shipped_folders_are_the_repository_top_level_ones() -> None:
    assert SCENARIOS_DIR == REPO / "scenarios" and ASSETS_DIR == REPO / "assets"
    assert PROFILES_PATH == DEFAULT_PROFILES_PATH == REPO / "scenarios" / "profiles.yaml"
    names = shipped_scenarios()
    assert list(names) == sorted(names) and "profiles" not in names
    assert names["duel"] == REPO / "scenarios" / "duel.yaml"
    assert set(names) == {p.stem for p in (REPO / "scenarios").glob("*.yaml")} - {"profiles"}


def test_a_bare_name_is_the_shipped_scenario_unless_a_file_of_that_name_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_scenario("duel") == SCENARIOS_DIR / "duel.yaml"
    assert resolve_scenario("duel.yaml") == SCENARIOS_DIR / "duel.yaml"
    assert resolve_scenario("street.yml") == SCENARIOS_DIR / "street.yaml"
    # a path with a folder, another suffix, or an unknown name stays what it is
    assert resolve_scenario("maps/duel") == Path("maps/duel")
    assert resolve_scenario("duel.txt") == Path("duel.txt")
    assert resolve_scenario("nowhere") == Path("nowhere")
    # a file in the working folder wins over the shipped one
    (tmp_path / "duel").write_text("x")
    assert resolve_scenario("duel") == Path("duel")
    (tmp_path / "duel.yaml").write_text("x")
    assert resolve_scenario("duel.yaml") == Path("duel.yaml")


def test_load_scenario_takes_a_name_and_says_which_names_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    spec = load_scenario("duel")
    assert spec.source == str(SCENARIOS_DIR / "duel.yaml") and spec.name == "Duel in the square"
    with pytest.raises(ScenarioError) as e:
        load_scenario("dual")
    assert "no such file (nor a shipped scenario: duel, firing-line" in str(e.value)


def test_a_given_scenario_may_be_a_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    sha = sha256_of(SCENARIOS_DIR / "duel.yaml")
    got = find_scenario(None, sha256=sha, relative_to=tmp_path / "x.jsonl", given="duel")
    assert got == SCENARIOS_DIR / "duel.yaml"


def test_commands_accept_a_shipped_name_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["check", "duel"], capsys)
    assert code == 0, err
    assert out.strip() == f"ok: {SCENARIOS_DIR / 'duel.yaml'} (2 units, 2 obstacles, ruleset aff)"
    code, out, err = run(["los", "duel", "vasco", "hendrik", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["visible"] is True


def test_skirmish_scenarios_lists_name_ruleset_units_description(capsys) -> None:
    code, out, _ = run(["scenarios"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["name", "ruleset", "units", "description"]
    rows = {ln.split()[0]: ln.split() for ln in lines[1:] if ln.strip() and not ln.startswith("files:")}
    assert set(rows) == set(shipped_scenarios())
    assert rows["duel"][1:3] == ["aff", "2"] and "Duel in the square:" in " ".join(rows["duel"])
    assert lines[-1] == f"files: {SCENARIOS_DIR}"
    code, out, _ = run(["scenarios", "--json"], capsys)
    data = {r["name"]: r for r in json.loads(out)}
    assert data["street"]["ruleset"] == "cortex" and data["street"]["path"] == str(
        SCENARIOS_DIR / "street.yaml"
    )
    assert data["duel"]["description"].startswith("Dawn in a quiet village square.")
