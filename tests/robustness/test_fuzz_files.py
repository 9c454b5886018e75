"""Fuzzing real files: mutated scenarios, logs and saves never crash, hang or balloon (issue 18).

Hypothesis mutates a shipped scenario (``scenarios/duel.yaml``), a golden battle log and the
golden saved game (as written, version 2, and saved again, version 3) with byte flips,
truncation, duplicated or dropped lines, number swaps (``-1``, ``1e308``, ``5e-324``, a
400-digit integer, ``NaN``...) and type swaps (a number becomes text, null, a list, a
mapping, ``true``). Each mutant goes through the CLI in process (:func:`game.cli.main`:
``check``, ``replay``) or, for saves, through :func:`game.tools.saves.load_match` (what
``play --load`` and F9 run before any window opens), and must:

- exit 0 with the original result (a log that verifies replays the same events; a save that
  loads holds the same commands), or exit 1/2 with located lines on stderr, never a traceback
  nor an "internal error";
- finish within the per-example deadline and grow the process by at most a few hundred MB.

``SKIRMISH_CI=1`` (tests/conftest.py) derandomizes the examples; ``SKIRMISH_FUZZ=long``
(tests/robustness/fuzzing.py) draws twenty times as many.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import resource
import shutil
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core.errors import ScenarioError
from tests.robustness.cli_run import run
from tests.robustness.fuzzing import examples

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "duel.yaml"
LOG = ROOT / "tests" / "golden" / "logs" / "duel-cortex-1.jsonl.gz"
#: A save of an older format (version 4, a GURPS duel), kept as written: the mutations start here.
SAVE_V2 = ROOT / "tests" / "fixtures" / "saves" / "saved-game-v4.json"

#: Largest growth of the process's peak memory one example may cause.
MAX_GROWTH_MB = 300
FUZZ = settings(
    max_examples=examples(int(os.environ.get("FUZZ_EXAMPLES", "25"))),
    deadline=timedelta(seconds=30),  # the machine may be shared; a hang would take minutes
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

NUMBERS = ["-1", "0", "1e308", "-1e308", "5e-324", "1e-7", "9" * 400, "NaN", "Infinity", "2.5", "true"]
TYPES = ['"x"', "null", "[]", "{}", "[1, 2]", '{"a": 1}', "false", '""']
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


@st.composite
def mutated(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` with one to three mutations."""
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["flip", "truncate", "dup-line", "drop-line", "number", "type"]))
        if kind == "flip" and data:
            i = draw(st.integers(0, len(data) - 1))
            data = data[:i] + bytes([data[i] ^ (1 << draw(st.integers(0, 7)))]) + data[i + 1 :]
        elif kind == "truncate" and data:
            data = data[: draw(st.integers(0, len(data) - 1))]
        elif kind in ("dup-line", "drop-line"):
            lines = data.split(b"\n")
            i = draw(st.integers(0, len(lines) - 1))
            if kind == "dup-line":
                lines.insert(i, lines[i])
            else:
                del lines[i]
            data = b"\n".join(lines)
        else:
            spans = [m.span() for m in _NUMBER.finditer(data)]
            if spans:
                a, b = draw(st.sampled_from(spans))
                new = draw(st.sampled_from(NUMBERS if kind == "number" else TYPES)).encode()
                data = data[:a] + new + data[b:]
    return data


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def assert_clean(code: int, out: str, err: str, name: str) -> None:
    """Exit 0/1/2, and every line of a failure located: never a traceback."""
    assert code in (0, 1, 2), (code, out, err)
    assert "Traceback" not in err + out and "internal error" not in err, err
    if code == 2:
        lines = err.strip().splitlines()
        assert lines, "exit 2 without a message"
        for line in lines:
            assert (
                line.startswith(name)
                or line.startswith(f"error: {name}")
                or line.startswith(("error: ", "Error: ", "Usage: ", "Try "))
                or not line.strip()
            ), line


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("fuzz")
    shutil.copy(SCENARIO, d / "duel.yaml")
    return d


@given(data=mutated(SCENARIO.read_bytes()))
@FUZZ
def test_mutated_scenarios(workdir: Path, data: bytes) -> None:
    f = workdir / "s.yaml"
    f.write_bytes(data)
    before = _peak_mb()
    code, out, err = run("check", str(f))
    assert_clean(code, out, err, str(f))
    assert code in (0, 2)
    if code == 0:
        assert out.startswith(f"ok: {f}")
    assert _peak_mb() - before < MAX_GROWTH_MB


def _events(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        if line.strip():
            event = json.loads(line)
            event.pop("version", None)
            # Where the scenario was is a hint: replay finds it by its sha256 when the path is wrong.
            event.pop("scenario_path", None)
            out.append(event)
    return out


LOG_TEXT = gzip.decompress(LOG.read_bytes())


@pytest.fixture(scope="module")
def at_root() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)  # the golden logs record the scenario's path relative to the root
        yield


@given(data=mutated(LOG_TEXT))
@FUZZ
def test_mutated_logs(workdir: Path, at_root: None, data: bytes) -> None:
    f = workdir / "log.jsonl"
    f.write_bytes(data)
    before = _peak_mb()
    code, out, err = run("replay", str(f))
    assert_clean(code, out, err, str(f))
    if code == 0:  # it verified: the events are those of the battle, or a first part of them
        assert "OK:" in out
        got, whole = _events(data.decode()), _events(LOG_TEXT.decode())
        if got != whole:
            assert got == whole[: len(got)] and "the log ends before the match did" in out
    elif code == 1:
        assert "DIVERGED" in out
    assert _peak_mb() - before < MAX_GROWTH_MB


@pytest.fixture(scope="module")
def saves(workdir: Path) -> dict[str, bytes]:
    from game.tools.saves import load_match, save_match

    data = json.loads(SAVE_V2.read_text())
    scenario = workdir / "saved-duel.yaml"  # the scenario as the save embeds it (shipped one changed)
    scenario.write_text(data["scenario"]["text"], encoding="utf-8")
    data["scenario"]["path"] = str(scenario)
    v2 = json.dumps(data, indent=1).encode()
    (workdir / "v2.json").write_bytes(v2)
    match = load_match(workdir / "v2.json")
    try:
        v3 = save_match(match, workdir / "v3.json").read_bytes()
    finally:
        match.close()
    return {"v2": v2, "v3": v3}


@pytest.mark.parametrize("version", ["v2", "v3"])
@given(draw=st.data())
@FUZZ
def test_mutated_saves(workdir: Path, saves: dict[str, bytes], version: str, draw: st.DataObject) -> None:
    from game.tools.saves import load_match

    original = saves[version]
    data = draw.draw(mutated(original), label="save")
    f = workdir / "save.json"
    f.write_bytes(data)
    before = _peak_mb()
    try:
        match = load_match(f)
    except ScenarioError as e:
        lines = str(e).splitlines()
        assert lines and all(line.startswith(str(f)) for line in lines), str(e)
    else:
        match.close()
        if version == "v3":  # saved again today: every field is covered by a digest
            assert json.loads(data) == json.loads(original)
    assert _peak_mb() - before < MAX_GROWTH_MB
