"""Tiled maps from the command line: ``skirmish import-tiled`` and maps wherever a scenario goes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.cli_capture import run
from tests.scenario.test_tiled import TMJ, TMX, small_map


def test_import_writes_a_scenario_check_accepts(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["import-tiled", "crossroads.tmj"], capsys)  # a shipped map, by name
    assert code == 0 and err.strip() == "wrote crossroads.yaml (8 units, 7 obstacles, ruleset gurps)"
    code, out, _ = run(["check", "crossroads.yaml"], capsys)
    assert code == 0 and out.strip() == "ok: crossroads.yaml (8 units, 7 obstacles, ruleset gurps)"
    assert not list(tmp_path.glob(".*.tmp"))  # written through a temp file, renamed


def test_import_refuses_to_overwrite_without_force(tmp_path: Path, capsys) -> None:
    out = tmp_path / "mine.yaml"
    out.write_text("# hand-edited\n")
    code, _, err = run(["import-tiled", str(TMX), "--out", str(out)], capsys)
    assert (
        code == 2
        and f"{out} exists; pass --force to replace it" in err
        and len(err.strip().splitlines()) == 1
    )
    assert out.read_text() == "# hand-edited\n"
    code, _, _ = run(["import-tiled", str(TMX), "--out", str(out), "--force", "--ruleset", "cortex"], capsys)
    assert code == 0 and "ruleset: cortex" in out.read_text()


def test_import_to_stdout(capsys) -> None:
    code, out, _ = run(["import-tiled", str(TMJ), "--out", "-"], capsys)
    assert code == 0 and out.startswith("# Converted from the Tiled map crossroads.tmj")


def test_a_bad_map_is_located_lines_exit_2_and_nothing_written(tmp_path: Path, capsys) -> None:
    data = small_map()
    data["layers"][1]["objects"][0]["properties"] = [{"name": "height", "type": "string", "value": "tall"}]
    data["layers"][2]["objects"][0]["properties"] = []
    bad = tmp_path / "bad.tmj"
    bad.write_text(json.dumps(data))
    code, _, err = run(["import-tiled", str(bad), "--out", str(tmp_path / "bad.yaml")], capsys)
    assert code == 2 and not (tmp_path / "bad.yaml").exists()
    assert err.splitlines() == [
        f"{bad}: object 1 (wall): property 'height': expected low, high or a number > 0, got 'tall'",
        f"{bad}: object 2 (red-1): missing property 'side' (text: units with the same side are friends)",
    ]
    code, _, err = run(["check", str(bad)], capsys)
    assert code == 2 and len(err.splitlines()) == 2
    scenario = tmp_path / "scenario.json"
    scenario.write_text('{"map": {"width": 5, "height": 5}}')
    code, _, err = run(["import-tiled", str(scenario)], capsys)
    assert code == 2 and err.strip() == f'{scenario}: expected a Tiled map (a JSON object with "type": "map")'


def test_battle_los_and_replay_of_a_moved_map(tmp_path: Path, capsys) -> None:
    """A battle played from a map logs the map's text: the log replays after the map is gone."""
    spot = tmp_path / "maps" / "field.tmj"
    spot.parent.mkdir()
    spot.write_text(json.dumps(small_map()))
    code, out, _ = run(["los", str(spot), "red-1", "blue-1", "--json"], capsys)
    assert code == 0 and json.loads(out)["visible"] is False  # the wall stands between them
    logs = tmp_path / "logs"
    argv = ["battle", str(spot), "-n", "1", "--workers", "1", "--no-plots", "--no-progress"]
    code, _, err = run([*argv, "--out", str(tmp_path / "out"), "--log", str(logs)], capsys)
    assert code == 0, err
    (log,) = logs.glob("*.jsonl")
    start = json.loads(log.read_text().splitlines()[0])
    assert start["scenario_text"] == spot.read_text()
    shutil.rmtree(spot.parent)
    code, out, err = run(["replay", str(log)], capsys)
    assert code == 0 and ": OK:" in out, err


def test_a_game_saved_on_a_map_loads_after_the_map_is_gone(tmp_path: Path) -> None:
    from game.engine.match import Match
    from game.scenario import load_scenario
    from game.tools.saves import load_match, save_match
    from game.tools.session import Session

    spot = tmp_path / "field.tmx"
    shutil.copy(TMX, spot)
    original = Match(load_scenario(spot), ruleset="gurps", seed=3)
    Session(original, "random").play(steps=6)
    save = save_match(original, tmp_path / "game.json")
    spot.unlink()
    loaded = load_match(save)
    try:
        assert loaded.log.to_text() == original.log.to_text()
        assert loaded.spec.obstacles == original.spec.obstacles
    finally:
        original.close()
        loaded.close()
