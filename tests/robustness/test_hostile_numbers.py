"""Absurd numbers and wrong types where scenarios, logs, saves and the CLI read them (issue 18).

Each is refused by ``check``/``replay``/``play --load`` with exit 2 and one line, or (for a
scenario that passes ``check``) ``render`` and ``battle`` succeed quickly. Never a traceback.
"""

from __future__ import annotations

import copy
import gzip
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from game.core.commands import Move
from game.core.errors import IllegalCommand, ScenarioError
from game.engine.match import Match
from game.scenario import load_scenario
from tests.robustness.cli_run import run

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "skirmish-5v5.yaml"
GOLDEN_LOG = ROOT / "tests" / "golden" / "logs" / "skirmish-5v5-aff-1.jsonl.gz"
GOLDEN_SAVE = ROOT / "tests" / "golden" / "saved-game.json"


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def with_map(tmp_path: Path, map_line: str) -> Path:
    text = re.sub(r"(?m)^map:.*(\n  .*)*", map_line, SCENARIO.read_text(), count=1)
    f = tmp_path / "s.yaml"
    f.write_text(text)
    return f


@pytest.mark.parametrize(
    "map_line",
    [
        "map: {width: 48, height: 48, cell: 1e-7}",
        "map: {width: 48, height: 48, cell: 5e-324}",
        "map: {width: 48, height: 48, cell: 0.01}",
        "map: {width: 48, height: 48, cell: 49}",
        "map: {width: 48, height: 48, cell: .inf}",
        "map: {width: 1e6, height: 48}",
        "map: {width: 48, height: 5e-324}",
        "map: {width: 48, height: 48, cell: 0.05}",
        "map: {width: 1000, height: 1000, cell: 0.05}",
        "map: {width: 48, height: 48, cell: 48}",
    ],
)
def test_map_numbers_refused_or_harmless(tmp_path: Path, map_line: str) -> None:
    f = with_map(tmp_path, map_line)
    code, _, err = run("check", str(f))
    if code != 0:
        assert code == 2 and "Traceback" not in err
        assert all(re.match(r".*s\.yaml:\d+: [\w.]+: ", line) for line in err.splitlines()), err
        assert re.match(r".*s\.yaml:\d+: map\.\w+: ", err), err
        return
    start = time.process_time()  # CPU, not wall: a busy machine must not fail the test
    code, _, err = run("render", str(f), "--out", str(tmp_path / "s.png"), "--size", "640x420")
    assert code == 0, err
    code, _, err = run("battle", str(f), "--ruleset", "aff", "--seed", "3")
    assert code == 0, err
    assert time.process_time() - start < 60


@pytest.mark.parametrize("seed", ["-1", "abc", "1.5", str(2**63), "9" * 400])
@pytest.mark.parametrize("command", ["battle", "render"])
def test_cli_seeds_range_checked(tmp_path: Path, seed: str, command: str) -> None:
    code, _, err = run(command, str(SCENARIO), "--seed", seed)
    assert code == 2 and "--seed" in err and "Traceback" not in err


def test_match_apply_refuses_a_huge_integer_point() -> None:
    match = Match(load_scenario(SCENARIO), seed=1)
    try:
        unit = match.pending.unit  # type: ignore[union-attr]
        for point in [(10**400, 1), (1, -(10**400)), (float("nan"), 1), (True, 2), ("1", 2)]:
            with pytest.raises(IllegalCommand):
                match.apply(Move(unit=unit, to=point))  # type: ignore[arg-type]
    finally:
        match.close()


def golden_log(tmp_path: Path) -> list[str]:
    return gzip.decompress(GOLDEN_LOG.read_bytes()).decode().splitlines()


Edit = Callable[[dict[str, Any]], object]
HEADER_EDITS: dict[str, tuple[str, Edit]] = {
    "seed -1": ("seed", lambda h: h.update(seed=-1)),
    "seed text": ("seed", lambda h: h.update(seed="abc")),
    "seed null": ("seed", lambda h: h.update(seed=None)),
    "seed list": ("seed", lambda h: h.update(seed=[1])),
    "seed bool": ("seed", lambda h: h.update(seed=True)),
    "seed float": ("seed", lambda h: h.update(seed=1.0)),
    "seed huge": ("seed", lambda h: h.update(seed=10**400)),
    "options unknown": ("options", lambda h: h["options"].update(zzz=1)),
    "options list": ("options", lambda h: h.update(options=[1])),
    "options bad value": ("options", lambda h: h["options"].update(riposte="x")),
    "controllers list": ("controllers", lambda h: h.update(controllers=[1])),
    "controllers policy": ("controllers", lambda h: h["controllers"].update(red="nobody")),
    "round_limit text": ("round_limit", lambda h: h.update(round_limit="x")),
    "round_limit 0": ("round_limit", lambda h: h.update(round_limit=0)),
    "round_limit huge": ("round_limit", lambda h: h.update(round_limit=10**12)),
    "ruleset": ("ruleset", lambda h: h.update(ruleset=7)),
    "sha256": ("scenario_sha256", lambda h: h.update(scenario_sha256=None)),
}


@pytest.mark.parametrize("name", sorted(HEADER_EDITS))
def test_replay_refuses_bad_header_fields(tmp_path: Path, name: str) -> None:
    key, edit = HEADER_EDITS[name]
    lines = golden_log(tmp_path)
    start = json.loads(lines[0])
    edit(start)
    log = tmp_path / "t.jsonl"
    log.write_text("\n".join([json.dumps(start), *lines[1:]]) + "\n")
    code, _, err = run("replay", str(log), "--scenario", str(SCENARIO))
    assert code == 2
    assert one_line(err).startswith(f"error: {log}:1: {key}: "), err


def test_replay_refuses_deep_and_huge_lines(tmp_path: Path) -> None:
    lines = golden_log(tmp_path)
    log = tmp_path / "t.jsonl"
    log.write_text("\n".join([lines[0], "[" * 100_000 + "]" * 100_000, *lines[1:]]) + "\n")
    code, _, err = run("replay", str(log), "--scenario", str(SCENARIO))
    assert code == 2 and "nested too deep" in one_line(err)
    log.write_text("\n".join([lines[0], '{"seq":1,"round":1,"type":"x","a":' + "[" * 40 + "]" * 40 + "}"]))
    code, _, err = run("replay", str(log), "--scenario", str(SCENARIO))
    assert code == 2 and "nested too deep" in one_line(err)


def test_replay_of_a_400_digit_point_diverges_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the golden logs record the scenario's path relative to the root
    lines = golden_log(tmp_path)
    i = next(i for i, line in enumerate(lines) if '"type":"command"' in line and '"to":' in line)
    ev = json.loads(lines[i])
    ev["command"]["to"] = [int("9" * 400), 1]
    lines[i] = json.dumps(ev)
    log = tmp_path / "t.jsonl"
    log.write_text("\n".join(lines) + "\n")
    code, out, err = run("replay", str(log), "--scenario", "scenarios/skirmish-5v5.yaml")
    assert code == 1 and "Traceback" not in err
    assert "DIVERGED" in out and "expected a finite number" in out


SAVE_EDITS: dict[str, tuple[str, Edit]] = {
    "seed -1": ("seed", lambda s: s.update(seed=-1)),
    "seed huge": ("seed", lambda s: s.update(seed=10**400)),
    "seed inf": ("seed", lambda s: s.update(seed=float("inf"))),
    "round_limit huge": ("round_limit", lambda s: s.update(round_limit=10**9)),
    "controllers side": ("controllers", lambda s: s["controllers"].update(green="random")),
    "controllers policy": ("controllers", lambda s: s["controllers"].update(red="nobody")),
    "options": ("options", lambda s: s["options"].update(zzz=1)),
}


@pytest.mark.parametrize(
    "text",
    [
        '{"seed": 1, "seed": 2}',
        '{"format": "skirmish-save", "seed": ' + "9" * 5000 + "}",
        "[" * 100_000 + "]" * 100_000,
    ],
)
def test_play_load_refuses_junk_saves_in_one_line(tmp_path: Path, text: str) -> None:
    f = tmp_path / "save.json"
    f.write_text(text)
    code, _, err = run("play", str(SCENARIO), "--load", str(f))
    assert code == 2
    one_line(err)


@pytest.mark.parametrize("name", sorted(SAVE_EDITS))
def test_load_refuses_bad_save_numbers(tmp_path: Path, name: str) -> None:
    from game.tools.saves import load_match

    key, edit = SAVE_EDITS[name]
    data = json.loads(GOLDEN_SAVE.read_text())
    data = copy.deepcopy(data)
    edit(data)
    f = tmp_path / "save.json"
    f.write_text(json.dumps(data))
    with pytest.raises(ScenarioError) as info:
        load_match(f, scenario_path=ROOT / data["scenario"]["path"])
    assert len(info.value.problems) == 1
    assert info.value.problems[0].path.split(".")[0] == key, info.value
