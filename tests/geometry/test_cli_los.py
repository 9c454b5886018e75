"""``skirmish los``: JSON contract, human report, unknown ids (scenario loading is faked)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import game.scenario
from components.specs import ScenarioSpec, UnitSpec
from game.cli.los import los
from tests.geometry.scenes import LOW, box

SPEC = ScenarioSpec(
    name="lane",
    ruleset="gurps",
    width=30.0,
    height=12.0,
    obstacles=(box("wall", 6, 2, 6.5, 6), box("hedge", 10.8, 6, 11.0, 10, LOW)),
    units=(
        UnitSpec("red-1", "red", (2.0, 6.0)),
        UnitSpec("blue-1", "blue", (12.0, 6.0), facing=180.0),
        UnitSpec("blue-2", "blue", (9.0, 6.1)),
    ),
)


@pytest.fixture(autouse=True)
def fake_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(game.scenario, "load_scenario", lambda path: SPEC, raising=False)


def test_json_output_has_exactly_the_contract_keys() -> None:
    result = CliRunner().invoke(los, ["lane.yaml", "red-1", "blue-1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert list(data) == [
        "from",
        "to",
        "visible",
        "cover_fraction",
        "cover",
        "intervening",
        "hidden",
        "arc",
        "distance",
    ]
    assert data["from"] == "red-1" and data["to"] == "blue-1"
    assert data["visible"] is True
    assert 0.5 < data["cover_fraction"] < 0.75 and data["cover"] == "medium"
    assert data["intervening"] == ["blue-2"]
    assert data["arc"] == "front"
    assert data["distance"] == 10.0
    assert isinstance(data["hidden"], bool)


def test_human_report_names_the_obstacles_and_units_responsible() -> None:
    result = CliRunner().invoke(los, ["lane.yaml", "red-1", "blue-1"])
    assert result.exit_code == 0, result.output
    assert "wall 50.0%" in result.output
    assert "hedge" in result.output
    assert "blue-2" in result.output


@pytest.mark.parametrize("ids", [["red-1", "nobody"], ["ghost", "blue-1"], ["red-1", "red-1"]])
def test_bad_unit_ids_are_usage_errors(ids: list[str]) -> None:
    result = CliRunner().invoke(los, ["lane.yaml", *ids, "--json"])
    assert result.exit_code == 2
    if ids[0] != ids[1]:
        assert "valid ids: red-1, blue-1, blue-2" in result.output
