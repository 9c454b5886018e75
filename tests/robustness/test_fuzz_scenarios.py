"""Broken scenario files: ``skirmish check`` answers file:line messages and exit 2, never a traceback.

Hypothesis builds broken files from a valid one (issue 8, part 3): wrong types, missing
keys, unknown keys, self-intersecting polygons, units off the map or inside walls,
unknown profiles, huge numbers, non-UTF-8 bytes, YAML tags that try to build objects
(``!!python/object/apply:os.system``), duplicate keys, alias bombs and syntax errors.
Most runs are in-process with click's ``CliRunner`` (fast); a few go through the
installed ``skirmish`` script in a subprocess.
"""

from __future__ import annotations

import copy
import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from game.cli import cli
from tests.robustness.fuzzing import examples

BASE: dict[str, Any] = {
    "name": "fuzz base",
    "ruleset": "ap-pool",
    "map": {"width": 20, "height": 12},
    "rounds": 10,
    "obstacles": [
        {"id": "wall", "polygon": [[9, 1], [10, 1], [10, 4], [9, 4]], "height": "high"},
        {"id": "hedge", "polygon": [[4, 8], [8, 8], [8, 9], [4, 9]], "height": 0.5},
    ],
    "units": [
        {"id": "red-1", "side": "red", "at": [3, 3], "facing": 0, "posture": "standing"},
        {"id": "red-2", "side": "red", "at": [3, 6]},
        {"id": "blue-1", "side": "blue", "at": [17, 3], "facing": 180},
        {"id": "blue-2", "side": "blue", "at": [17, 6], "base": 0.5},
    ],
}

MARKER = "SKIRMISH_FUZZ_PWNED"

#: Paths to numbers, texts and lists of the base file, with values of a wrong type for each.
NUMBER_PATHS = [
    ("map", "width"),
    ("map", "height"),
    ("rounds",),
    ("units", 0, "facing"),
    ("units", 3, "base"),
    ("obstacles", 1, "height"),
    ("units", 0, "at", 0),
    ("obstacles", 0, "polygon", 2, 1),
]
TEXT_PATHS = [("units", 0, "id"), ("units", 1, "side"), ("obstacles", 0, "id"), ("units", 0, "posture")]
LIST_PATHS = [("units",), ("obstacles", 0, "polygon"), ("units", 2, "at")]
REQUIRED = [
    ("map",),
    ("units",),
    ("map", "width"),
    ("map", "height"),
    ("units", 0, "id"),
    ("units", 1, "side"),
    ("units", 2, "at"),
    ("obstacles", 0, "polygon"),
    ("obstacles", 1, "id"),
    ("obstacles", 0, "height"),
]
NOT_A_NUMBER = st.sampled_from(["ten", [1, 2], {"k": 1}, True, None, "3"])
NOT_A_TEXT = st.sampled_from([[1], {"k": 1}, 3.5, True, None, 7])
NOT_A_LIST = st.sampled_from(["list", 5, {"k": 1}, True, None])
HUGE = st.sampled_from([1e308, -1e308, 10**40, float("inf"), float("-inf"), float("nan"), 2**63, 1e7])
HUGE_PATHS = [
    ("map", "width"),
    ("map", "height"),
    ("rounds",),
    ("units", 0, "facing"),
    ("units", 1, "at", 1),
    ("obstacles", 0, "polygon", 0, 0),
    ("units", 3, "base"),
]


def _set(data: Any, path: tuple[Any, ...], value: Any) -> None:
    for p in path[:-1]:
        data = data[p]
    data[path[-1]] = value


def _delete(data: Any, path: tuple[Any, ...]) -> None:
    for p in path[:-1]:
        data = data[p]
    del data[path[-1]]


def _dump(data: dict[str, Any]) -> str:
    y = YAML(typ="safe", pure=True)
    y.default_flow_style = None  # block mappings, short lists inline: realistic line numbers
    buf = io.StringIO()
    y.dump(data, buf)
    return buf.getvalue()


# ---- structural mutations (on the data) -------------------------------------------------------


@st.composite
def wrong_type(draw: st.DrawFn) -> tuple[str, Any]:
    kind = draw(st.sampled_from(["number", "text", "list"]))
    if kind == "number":
        return "wrong type", (draw(st.sampled_from(NUMBER_PATHS)), draw(NOT_A_NUMBER))
    if kind == "text":
        return "wrong type", (draw(st.sampled_from(TEXT_PATHS)), draw(NOT_A_TEXT))
    return "wrong type", (draw(st.sampled_from(LIST_PATHS)), draw(NOT_A_LIST))


def _apply(data: dict[str, Any], mutation: tuple[str, Any]) -> None:
    kind, arg = mutation
    if kind in ("wrong type", "huge"):
        path, value = arg
        _set(data, path, value)
    elif kind == "missing":
        _delete(data, arg)
    elif kind == "unknown key":
        path, key = arg
        target = data
        for p in path:
            target = target[p]
        target[key] = 1
    elif kind == "bow-tie":
        i, (x, y) = arg
        data["obstacles"][i]["polygon"] = [[x, y], [x + 2, y + 2], [x + 2, y], [x, y + 2]]
    elif kind == "off map":
        i, at = arg
        data["units"][i]["at"] = at
    elif kind == "in wall":
        data["units"][arg]["at"] = [9.5, 2.5]
    elif kind == "unknown profile":
        i, name = arg
        data["units"][i]["profile"] = name
    elif kind == "overlap":
        data["units"][1]["at"] = [3.2, 3.1]
    else:  # pragma: no cover - every strategy below names one of the kinds above
        raise AssertionError(kind)


MUTATIONS = st.one_of(
    wrong_type(),
    st.tuples(st.just("missing"), st.sampled_from(REQUIRED)),
    st.tuples(
        st.just("unknown key"),
        st.tuples(
            st.sampled_from([(), ("map",), ("units", 1), ("obstacles", 0)]),
            st.sampled_from(["colour", "x", "Units"]),
        ),
    ),
    st.tuples(
        st.just("bow-tie"), st.tuples(st.integers(0, 1), st.tuples(st.integers(1, 15), st.integers(1, 8)))
    ),
    st.tuples(
        st.just("off map"),
        st.tuples(
            st.integers(0, 3),
            st.sampled_from([[-1, 3], [3, -0.2], [25, 3], [3, 12.3], [19.8, 5], [0.1, 0.1]]),
        ),
    ),
    st.tuples(st.just("in wall"), st.integers(0, 3)),
    st.tuples(
        st.just("unknown profile"),
        st.tuples(st.integers(0, 3), st.sampled_from(["nosuch", "Veteran", "xx-1"])),
    ),
    st.tuples(st.just("huge"), st.tuples(st.sampled_from(HUGE_PATHS), HUGE)),
    st.just(("overlap", None)),
)


# ---- textual / byte-level corruptions ---------------------------------------------------------


def _tagged(text: str, marker_dir: Path, draw: st.DrawFn) -> str:
    tag = draw(
        st.sampled_from(
            [
                f'!!python/object/apply:os.system ["touch {marker_dir / MARKER}"]',
                f"!!python/object/apply:subprocess.check_output [[touch, {marker_dir / MARKER}]]",
                "!!python/name:os.system",
                "!!python/object:builtins.dict {}",
                "!custom 3",
                "!!binary aGVsbG8=",
                "!!set {a, b}",
            ]
        )
    )
    key = draw(st.sampled_from(["name: fuzz base", "rounds: 10", "ruleset: ap-pool"]))
    return text.replace(key, f"{key.split(':')[0]}: {tag}", 1)


def _bad_bytes(text: str, draw: st.DrawFn) -> bytes:
    raw = text.encode()
    at = draw(st.integers(0, len(raw)))
    junk = draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\x80abc", b"\xed\xa0\x80", b"\xfe\xfe"]))
    return raw[:at] + junk + raw[at:]


def _duplicate_key(text: str, draw: st.DrawFn) -> str:
    line = draw(st.sampled_from(["rounds: 10", "name: fuzz base"]))
    return text.replace(line, f"{line}\n{line}", 1)


BOMB = (
    "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
    "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
)


@st.composite
def broken_files(draw: st.DrawFn, marker_dir: Path) -> tuple[str, bytes]:
    """(what was broken, file bytes) for a scenario that must be refused."""
    kind = draw(
        st.sampled_from(["data", "data", "data", "tag", "bytes", "duplicate", "syntax", "bomb", "root"])
    )
    data = copy.deepcopy(BASE)
    if kind == "data":
        muts = draw(st.lists(MUTATIONS, min_size=1, max_size=3))
        applied = []
        for m in muts:
            try:
                _apply(data, m)
                applied.append(m[0])
            except (KeyError, IndexError, TypeError):
                continue  # an earlier mutation removed or retyped what this one edits
        if not applied:
            _apply(data, ("missing", ("units",)))
            applied = ["missing"]
        return "+".join(applied), _dump(data).encode()
    text = _dump(data)
    if kind == "tag":
        return "tag", _tagged(text, marker_dir, draw).encode()
    if kind == "bytes":
        return "non-utf8", _bad_bytes(text, draw)
    if kind == "duplicate":
        return "duplicate key", _duplicate_key(text, draw).encode()
    if kind == "syntax":
        broken = draw(st.sampled_from(["units: [", "map: {width: 3", "  - : :", "\tname: tab", "key: 'open"]))
        return "syntax", (text + broken + "\n").encode()
    if kind == "bomb":
        return "alias bomb", (text + BOMB).encode()
    root = draw(st.sampled_from([b"", b"- a\n- b\n", b"just text\n", b"42\n", b"~\n", b"---\n---\n"]))
    return "root", root


LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+): ")


def _assert_refused(path: Path, code: int, stdout: str, stderr: str, what: str) -> None:
    assert code == 2, f"{what}: exit {code}\n{stdout}{stderr}"
    assert "ok:" not in stdout, f"{what}: accepted"
    assert "Traceback" not in stdout + stderr, f"{what}: traceback\n{stderr}"
    assert "internal error" not in stderr, f"{what}: a bug surfaced\n{stderr}"
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert lines, f"{what}: no message"
    for ln in lines:
        m = LINE.match(ln)
        assert m, f"{what}: message without file:line: {ln!r}"
        assert int(m["line"]) >= 1, f"{what}: {ln!r}"
    assert any(LINE.match(ln)["file"] == str(path) for ln in lines), f"{what}: no message names {path}"


@settings(
    max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_broken_scenarios_are_refused_cleanly(tmp_path: Path, data: st.DataObject):
    what, content = data.draw(broken_files(tmp_path))
    path = tmp_path / "broken.yaml"
    path.write_bytes(content)
    result = CliRunner().invoke(cli, ["check", str(path)])
    assert isinstance(result.exception, SystemExit), f"{what}: {result.exception!r}"
    _assert_refused(path, result.exit_code, result.stdout, result.stderr, what)
    assert not (tmp_path / MARKER).exists(), f"{what}: a YAML tag ran code"


def test_the_base_file_is_valid(tmp_path: Path):
    path = tmp_path / "base.yaml"
    path.write_text(_dump(BASE))
    result = CliRunner().invoke(cli, ["check", str(path)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"ok: {path}")


SUBPROCESS_CASES = {
    "os-system-tag": (
        f'name: !!python/object/apply:os.system ["touch {MARKER}"]\nmap: {{width: 5, height: 5}}\nunits: []\n'
    ),
    "not-utf8": None,
    "wrong-type": _dump({**BASE, "map": {"width": "wide", "height": 12}}),
    "in-wall": _dump(
        {**BASE, "units": [*BASE["units"][:3], {"id": "blue-2", "side": "blue", "at": [9.5, 2.5]}]}
    ),
}


@pytest.mark.parametrize("case", sorted(SUBPROCESS_CASES))
def test_installed_script_refuses_without_traceback(tmp_path: Path, case: str):
    text = SUBPROCESS_CASES[case]
    path = tmp_path / f"{case}.yaml"
    if text is None:
        path.write_bytes(_dump(BASE).encode().replace(b"fuzz base", b"fuzz \xff base"))
    else:
        path.write_text(text)
    script = Path(sys.executable).with_name("skirmish")
    out = subprocess.run(
        [str(script), "check", str(path)], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    _assert_refused(path, out.returncode, out.stdout, out.stderr, case)
    assert not (tmp_path / MARKER).exists()
