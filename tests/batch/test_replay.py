"""Replays: an untouched log verifies; a changed roll, a deleted line or a changed hash is caught."""

from __future__ import annotations

import json
import sys

import pytest

from game.tools.batch import plan, run_battle
from game.tools.replay import ReplayError, load, verify
from tests.batch.conftest import DUEL
from tests.cli_capture import run


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    path = tmp_path_factory.mktemp("replay") / "battle-4.jsonl"
    run_battle(
        plan(
            seeds=[4], scenario=str(DUEL), policies={"red": "aggressive", "blue": "cautious"}, log_file=path
        )[0]
    )
    return path


def _lines(path):
    return path.read_text().splitlines()


def _write(tmp_path, lines):
    p = tmp_path / "tampered.jsonl"
    p.write_text("".join(line + "\n" for line in lines))
    return p


def test_untouched_log_verifies(log, capsys):
    events, spec = load(log)  # the scenario is found by its sha256
    assert spec.sha256 == events[0]["scenario_sha256"]
    result = verify(events, spec)
    assert result.ok and result.events == len(events) and result.commands > 0
    code, out, _ = run(["replay", str(log)], capsys)
    assert code == 0 and "OK:" in out


def test_changed_roll_is_the_first_divergence(log, tmp_path, capsys):
    lines = _lines(log)
    i = next(k for k, line in enumerate(lines) if '"type":"roll"' in line and k > 2)
    ev = json.loads(lines[i])
    ev["faces"] = [7 if f != 7 else 1 for f in ev["faces"]]
    lines[i] = json.dumps(ev, separators=(",", ":"))
    code, out, _ = run(["replay", str(_write(tmp_path, lines))], capsys)
    assert code == 1
    assert f"DIVERGED at seq {ev['seq']} (roll) faces: expected" in out


def test_deleted_line_is_caught(log, tmp_path, capsys):
    lines = _lines(log)
    k = len(lines) // 2
    seq = json.loads(lines[k])["seq"]
    del lines[k]
    code, out, _ = run(["replay", str(_write(tmp_path, lines))], capsys)
    assert code == 1 and f"DIVERGED at seq {seq}" in out and "deleted" in out


def test_changed_state_hash_is_caught(log, tmp_path, capsys):
    lines = _lines(log)
    i = next(k for k, line in enumerate(lines) if '"type":"round_start"' in line)
    ev = json.loads(lines[i])
    ev["state_hash"] = "0" * 16
    lines[i] = json.dumps(ev, separators=(",", ":"))
    code, out, _ = run(["replay", str(_write(tmp_path, lines))], capsys)
    assert code == 1 and f'seq {ev["seq"]} (round_start) state_hash: expected "{"0" * 16}"' in out


def test_scenario_with_another_hash_is_refused(log, tmp_path, capsys):
    other = tmp_path / "duel.yaml"
    other.write_text(DUEL.read_text() + "\n# a comment changes the hash\n")
    code, _, err = run(["replay", str(log), "--scenario", str(other)], capsys)
    assert code == 2 and "the scenario embedded in the log" in err and f"differs from {other}" in err


def test_not_a_log_is_refused(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    code, _, err = run(["replay", str(bad)], capsys)
    assert code == 2 and "not JSON" in err
    with pytest.raises(ReplayError, match="no such file"):
        load(tmp_path / "missing.jsonl")


def test_view_without_the_viewer_exits_2(log, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "game.render.window", None)  # as if the window module were not installed
    code, _, err = run(["replay", str(log), "--view"], capsys)
    assert code == 2 and "viewer is not available" in err


def test_view_calls_the_viewer(log, capsys, monkeypatch):
    import types

    seen = {}
    fake = types.ModuleType("game.render.window")
    fake.view_replay = lambda path, spec, events: seen.update(path=path, n=len(events), name=spec.name)
    monkeypatch.setitem(sys.modules, "game.render.window", fake)
    code, _, _ = run(["replay", str(log), "--view"], capsys)
    assert code == 0 and seen["path"] == log and seen["n"] == len(_lines(log))
