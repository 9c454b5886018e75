"""Saves and logs are checked as a whole: any edit is refused naming the first field (issue 18).

Saves (version 3) carry a sha256 of every field that decides how the game continues; logs are
re-simulated with their controllers' AI policies re-deriving the AI sides' commands, and a
log of an unknown format is refused up front while another package version replays.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from game.core.errors import ScenarioError
from game.tools.saves import DIGESTED, SAVE_VERSION, load_match, save_match
from tests.robustness.cli_run import run

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
GOLDEN_LOG = GOLDEN / "logs" / "skirmish-5v5-aff-1.jsonl.gz"


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # golden files record scenario paths relative to the root


@pytest.fixture
def v3_save(tmp_path: Path, at_root: None) -> dict[str, Any]:
    """A save with digests (version 3 and later) of the golden saved game, saved again."""
    match = load_match(GOLDEN / "saved-game.json")
    try:
        data: dict[str, Any] = json.loads(save_match(match, tmp_path / "v3.json").read_text())
    finally:
        match.close()
    assert data["version"] == SAVE_VERSION >= 3 and set(data["check"]["digests"]) == set(DIGESTED)
    return data


def _first_move(data: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in data["commands"] if "to" in c)


Edit = Callable[[dict[str, Any]], object]
SAVE_EDITS: dict[str, tuple[str, Edit]] = {
    "round_limit": ("round_limit", lambda d: d.update(round_limit=d["round_limit"] + 1)),
    "seed": ("seed", lambda d: d.update(seed=d["seed"] + 1)),
    "controller swapped": ("controllers", lambda d: d["controllers"].update(red="random")),
    "ai_rng": ("ai_rng", lambda d: d["ai_rng"]["state"].update(state=d["ai_rng"]["state"]["state"] + 2)),
    "ai_memory dropped": ("ai_memory", lambda d: d["ai_memory"]["quarry"].clear()),
    "move nudged": (
        "commands",
        lambda d: _first_move(d).update(to=[_first_move(d)["to"][0] + 1e-9, _first_move(d)["to"][1]]),
    ),
    "command dropped": ("commands", lambda d: d["commands"].pop()),
    "options": ("options", lambda d: d.update(options={"retreat": False})),
}


@pytest.mark.parametrize("name", sorted(SAVE_EDITS))
def test_any_edit_of_a_save_is_refused_naming_the_field(
    tmp_path: Path, v3_save: dict[str, Any], name: str
) -> None:
    key, edit = SAVE_EDITS[name]
    edit(v3_save)
    f = tmp_path / "edited.json"
    f.write_text(json.dumps(v3_save, indent=1))
    with pytest.raises(ScenarioError) as info:
        load_match(f).close()
    problem = info.value.problems[0]
    assert problem.path.split(".")[0] == key, str(info.value)


def test_an_unedited_v3_save_loads(tmp_path: Path, v3_save: dict[str, Any]) -> None:
    f = tmp_path / "same.json"
    f.write_text(json.dumps(v3_save))  # layout changes are not edits
    load_match(f).close()


def test_duplicate_keys_in_a_save_are_refused(tmp_path: Path, v3_save: dict[str, Any]) -> None:
    text = json.dumps(v3_save, indent=1).replace('"seed": ', '"seed": 1,\n "seed": ', 1)
    f = tmp_path / "dup.json"
    f.write_text(text)
    with pytest.raises(ScenarioError, match="duplicate key 'seed'"):
        load_match(f)


def test_a_version_3_save_without_digests_is_refused(tmp_path: Path, v3_save: dict[str, Any]) -> None:
    del v3_save["check"]["digests"]
    f = tmp_path / "nodigest.json"
    f.write_text(json.dumps(v3_save))
    with pytest.raises(ScenarioError, match=r"must have check\.digests"):
        load_match(f)


def _log(tmp_path: Path, edit: Edit) -> Path:
    lines = gzip.decompress(GOLDEN_LOG.read_bytes()).decode().splitlines()
    start = json.loads(lines[0])
    edit(start)
    f = tmp_path / "edited.jsonl"
    f.write_text("\n".join([json.dumps(start, separators=(",", ":")), *lines[1:]]) + "\n")
    return f


def test_a_log_with_edited_controllers_diverges(tmp_path: Path, at_root: None) -> None:
    log = _log(tmp_path, lambda h: h.update(controllers={"red": "random", "blue": "aggressive"}))
    code, out, err = run("replay", str(log))
    assert code == 1 and "Traceback" not in err
    assert "DIVERGED" in out and " controllers: " in out and "controllers or commands edited" in out


def test_a_log_from_another_version_replays_if_its_format_is_known(tmp_path: Path, at_root: None) -> None:
    log = _log(tmp_path, lambda h: h.update(version="9.9.9", log_format=1))
    code, out, err = run("replay", str(log))
    assert code == 0, out + err
    assert "OK:" in out and "recorded with version 9.9.9" in err


@pytest.mark.parametrize("fmt", [2, 99, "1", None, 1.0])
def test_a_log_of_an_unknown_format_is_refused_up_front(tmp_path: Path, at_root: None, fmt: object) -> None:
    log = _log(tmp_path, lambda h: h.update(version="9.9.9", log_format=fmt))
    code, _, err = run("replay", str(log))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"{log}:1: log_format: " in err and "cannot be replayed" in err
