"""Property-based fuzzing of the inputs of issue 28: Tiled maps, the CLI's numbers, log headers,
save fields and identifiers.

Each test draws hostile inputs the way a careless or malicious user would write them and runs
them through the console entry point (or the loader a window uses) in process. Whatever is
drawn: exit 0, 1 or 2 with located messages, never a traceback; no claim vouched for that was
edited; no two names that look alike. ``SKIRMISH_FUZZ=long`` draws twenty times as many
(tests/robustness/fuzzing.py); ``SKIRMISH_CI=1`` derandomizes the short form.
"""

from __future__ import annotations

import copy
import json
import unicodedata
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core.errors import ScenarioError
from tests.robustness.cli_run import run
from tests.robustness.fuzzing import examples
from tests.robustness.test_fuzz_files import assert_clean, mutated

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios" / "duel.yaml"
TMJ = ROOT / "scenarios" / "maps" / "crossroads.tmj"
TMX = ROOT / "scenarios" / "maps" / "crossroads.tmx"


def fuzz(short: int) -> settings:
    return settings(
        max_examples=examples(short),
        deadline=timedelta(seconds=60),
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


HOSTILE_NUMBERS = st.one_of(
    st.sampled_from([0, -1, 1, 2**31, 2**53 + 1, 2**63, 2**64, 10**400, -(10**30)]),
    st.sampled_from([float("nan"), float("inf"), -float("inf"), 1e308, 5e-324, -0.0, 1e-7]),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
)
#: Text a name could hold: letters in both spellings, compatibility forms, invisible and control
#: characters, bidi overrides.
NAME_CHARS = st.sampled_from(
    [
        *"abcdeé",
        *["e\u0301", "\uff41", "\ufb01", "\u00aa", "\u200b", "\u200d", "\u202e", "\u2066", "\u3164"],
        *["\u034f", "\ufe0f", "\x00", "\x1b", "\n", "\t", " ", "\u00a0", "\u2800", "\U000e0041", "\u0301"],
    ]
)
NAMES = st.lists(NAME_CHARS, min_size=0, max_size=6).map("".join)
HOSTILE_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), HOSTILE_NUMBERS, NAMES, st.text(max_size=20)),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(NAMES, kids, max_size=3),
    max_leaves=6,
)


# --------------------------------------------------------------------------- Tiled maps
def _tiled_values(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every value in a parsed JSON map."""
    out = [path]
    if isinstance(data, dict):
        for k, v in data.items():
            out += _tiled_values(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += _tiled_values(v, (*path, i))
    return out


def _set(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    holder = data
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value
    return data


@st.composite
def edited_map(draw: st.DrawFn) -> bytes:
    """crossroads.tmj with one to four values replaced by hostile ones (names too)."""
    data = json.loads(TMJ.read_text())
    paths = _tiled_values(data)
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(paths))
        try:
            data = _set(data, path, draw(HOSTILE_JSON))
        except (KeyError, IndexError, TypeError):
            continue
        paths = _tiled_values(data)
    try:
        return json.dumps(data, allow_nan=True).encode()
    except ValueError:  # a number JSON cannot write
        return json.dumps(data, default=str).encode()


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _map_round_trip(folder: Path, name: str, data: bytes) -> None:
    f = folder / name
    f.write_bytes(data)
    code, out, err = run("check", str(f))
    assert_clean(code, out, err, str(f))
    assert code in (0, 2)
    target = folder / "imported.yaml"
    target.unlink(missing_ok=True)
    icode, iout, ierr = run("import-tiled", str(f), "--out", str(target), "--force")
    assert_clean(icode, iout, ierr, str(f))
    if icode == 0:  # what the importer writes is a scenario that loads
        code, out, err = run("check", str(target))
        assert code == 0, out + err
    else:
        assert not target.exists()


@given(data=edited_map())
@fuzz(30)
def test_edited_tiled_maps_import_or_are_refused_cleanly(here: Path, data: bytes) -> None:
    _map_round_trip(here, "map.tmj", data)


@given(data=mutated(TMX.read_bytes()))
@fuzz(20)
def test_mutated_tmx_maps_import_or_are_refused_cleanly(here: Path, data: bytes) -> None:
    _map_round_trip(here, "map.tmx", data)


# --------------------------------------------------------------------------- the CLI's numbers
NUMBER_TEXT = st.one_of(
    st.integers().map(str),
    st.sampled_from(
        ["10**12", "1e3", "0x10", "-0", "+5", " 7", "", "nan", "inf", "-inf", "1_000", "\u0663", "9" * 5000]
    ),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(2**62, 2**64).map(str),
)
#: (command words, option) whose value is a number; the scenario is missing, so a value that is
#: accepted ends with "no such file" (exit 2) after every number was checked.
NUMERIC = [
    (["battle", "nope.yaml"], "-n"),
    (["battle", "nope.yaml"], "--seed"),
    (["battle", "nope.yaml"], "--workers"),
    (["battle", "nope.yaml"], "--policy-timeout"),
    (["sweep", "nope.yaml"], "-n"),
    (["sweep", "nope.yaml"], "--seed"),
    (["tournament", "nope.yaml"], "-n"),
    (["tournament", "nope.yaml"], "--seed"),
    (["tournament", "nope.yaml"], "--round-limit"),
    (["fairness", "nope.yaml"], "-n"),
    (["fairness", "nope.yaml"], "--max-battles"),
    (["fairness", "nope.yaml"], "--min-decisive"),
    (["fairness", "nope.yaml"], "--threshold"),
    (["fairness", "nope.yaml"], "--workers"),
    (["balance", "nope.yaml", "--vary", "option.x=1..2"], "-n"),
    (["balance", "nope.yaml", "--vary", "option.x=1..2"], "--seed"),
    (["balance", "nope.yaml", "--vary", "option.x=1..2"], "--target"),
    (["balance", "nope.yaml", "--vary", "option.x=1..2"], "--points"),
    (["balance", "nope.yaml", "--vary", "option.x=1..2"], "--workers"),
    (["render", "nope.yaml", "--out", "x.png"], "--seed"),
    (["render", "nope.yaml", "--out", "x.png"], "--steps"),
    (["render", "nope.yaml", "--out", "x.png"], "--dpi"),
    (["render", "nope.yaml", "--animate", "x.gif"], "--fps"),
    (["render", "nope.yaml", "--animate", "x.gif"], "--max-frames"),
    (["reach", "nope.yaml", "u1"], "--ap"),
]


@given(case=st.sampled_from(NUMERIC), value=NUMBER_TEXT, seed=st.integers(0, 2**63 - 1))
@fuzz(60)
def test_every_number_is_in_its_range_or_refused_in_one_line(
    here: Path, case: tuple[list[str], str], value: str, seed: int
) -> None:
    words, option = case
    extra = ["--seed", str(seed)] if option == "-n" and words[0] in ("battle", "sweep", "tournament") else []
    code, out, err = run(*words, option, value, *extra)
    assert code == 2 and "Traceback" not in err + out, out + err
    line = err.strip().splitlines()
    assert len(line) == 1, err
    # the option itself, or one it must agree with (--seed with -n, --max-battles with -n), or the
    # missing scenario once every number was accepted
    assert option in line[0] or "nope.yaml" in line[0] or line[0].startswith("Error: --"), line[0]


@given(
    command=st.sampled_from(["ap-pool", "gurps", "defence-dice", "aff", "cortex"]),
    value=NUMBER_TEXT,
)
@fuzz(40)
def test_odds_numbers_are_bounded_and_answer_quickly(command: str, value: str) -> None:
    args = {
        "ap-pool": ["--dice", value, "--vs", "3"],
        "gurps": ["--defence", value],
        "defence-dice": ["--attack-dice", value],
        "aff": ["--weapon-track", "1,2,3,4,5,6,7", "--dodge-skill", value],
        "cortex": ["--attribute", "d8", "--steps", value, "--difficulty", "11"],
    }[command]
    code, out, err = run("odds", command, *args)
    assert code in (0, 2) and "Traceback" not in err + out, out + err
    if code == 2:
        assert len(err.strip().splitlines()) == 1, err


# --------------------------------------------------------------------------- log headers
@pytest.fixture(scope="module")
def battle_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("log")
    code, _, err = run(
        "battle", str(DUEL), "-n", "1", "--seed", "8", "--log", str(folder / "b.jsonl"),
        "--out", str(folder / "o"), "--no-plots", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    return folder / "b.jsonl"


#: Header fields a replay cannot re-derive and says so, or that inform only.
INFORMATIONAL = {"version", "scenario_path"}
HEADER_KEYS = [
    "seed", "ruleset", "options", "controllers", "round_limit", "version", "scenario_path",
    "scenario", "scenario_sha256", "log_format", "units", "profiles_sha256",
]  # fmt: skip


@given(key=st.sampled_from(HEADER_KEYS), value=HOSTILE_JSON, inner=st.booleans())
@fuzz(60)
def test_an_edited_log_header_is_never_vouched_for(
    tmp_path: Path, battle_log: Path, key: str, value: Any, inner: bool
) -> None:
    lines = battle_log.read_text().splitlines()
    start = json.loads(lines[0])
    edited = copy.deepcopy(start)
    if inner and isinstance(edited.get(key), dict) and edited[key]:
        sub = sorted(edited[key])[0]
        edited[key][sub] = value
    else:
        edited[key] = value
    f = tmp_path / "edited.jsonl"
    try:
        head = json.dumps(edited, separators=(",", ":"), allow_nan=True)
    except ValueError:
        return
    f.write_text("\n".join([head, *lines[1:]]) + "\n")
    code, out, err = run("replay", str(f))
    assert_clean(code, out, err, str(f))
    if code == 0 and edited != start:
        changed = {k for k in set(start) | set(edited) if start.get(k) != edited.get(k)}
        vouched = "claim(s) not verified" not in out
        assert not vouched or changed <= INFORMATIONAL or _same_meaning(start, edited), (changed, out)


def _same_meaning(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """JSON values Python compares equal but that are spelled alike in a log (1 and 1.0, True and 1)."""
    return json.loads(json.dumps(a)) == json.loads(json.dumps(b))


# --------------------------------------------------------------------------- save fields
@pytest.fixture(scope="module")
def save_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    from game.scenario import load_scenario
    from game.tools.saves import save_match
    from game.tools.session import Session, Setup

    folder = tmp_path_factory.mktemp("save")
    match = Setup(seed=5, controllers={"red": "human", "blue": "cautious"}).build(load_scenario(DUEL))
    try:
        Session(match, "random").play(steps=20)
        return save_match(match, folder / "s.json").read_text()
    finally:
        match.close()


def _all_paths(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    return _tiled_values(data, path)


@given(draw=st.data())
@fuzz(60)
def test_an_edited_save_field_never_loads_unchanged(
    tmp_path: Path, save_text: str, draw: st.DataObject
) -> None:
    from game.tools.saves import load_match

    data = json.loads(save_text)
    path = draw.draw(st.sampled_from([p for p in _all_paths(data) if p]), label="path")
    value = draw.draw(HOSTILE_JSON, label="value")
    try:
        _set(data, path, value)
        text = json.dumps(data, allow_nan=True)
    except (KeyError, IndexError, TypeError, ValueError):
        return
    f = tmp_path / "s.json"
    f.write_text(text)
    try:
        match = load_match(f)
    except ScenarioError as e:
        assert all(line.startswith(str(f)) for line in str(e).splitlines()), str(e)
        return
    match.close()
    assert _same_meaning(json.loads(text), json.loads(save_text)), path  # loaded: nothing changed


# --------------------------------------------------------------------------- identifiers
@given(ids=st.lists(NAMES, min_size=2, max_size=4), sides=st.lists(NAMES, min_size=2, max_size=4))
@fuzz(80)
def test_ids_and_sides_load_in_one_spelling_or_are_refused(
    tmp_path: Path, ids: list[str], sides: list[str]
) -> None:
    from game.scenario import load_scenario_text
    from game.scenario.idents import invisible, lookalike

    units = "\n".join(
        f"  - {{id: {json.dumps(uid)}, side: {json.dumps(sides[i % len(sides)])}, at: [{2 + 3 * i}, 3]}}"
        for i, uid in enumerate(ids)
    )
    text = f"ruleset: aff\nmap: {{width: 20, height: 10}}\nunits:\n{units}\n"
    try:
        spec = load_scenario_text(text, str(tmp_path / "ids.yaml"))
    except ScenarioError as e:
        assert all(line.startswith(str(tmp_path / "ids.yaml")) for line in str(e).splitlines()), str(e)
        return
    names = [u.id for u in spec.units]
    for name in [*names, *spec.sides]:
        assert unicodedata.is_normalized("NFC", name) and invisible(name) is None, name
    assert len({lookalike(n) for n in names}) == len(names)
    assert len({lookalike(s) for s in spec.sides}) == len(spec.sides)
