"""The documented example loads; the schema matches the docs; no input ever escapes as a traceback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core.errors import ScenarioError
from game.rules import RULESET_NAMES
from game.scenario import available_ruleset, load_scenario_text, scenario_schema
from tests.scenario.conftest import BAD, TEST_PROFILES

DOC = Path(__file__).resolve().parents[2] / "docs" / "scenario-format.md"


def _example() -> str:
    text = DOC.read_text()
    section = text[text.index("## Full example") :]
    match = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert match
    return match.group(1)


def test_documented_example_is_valid() -> None:
    if available_ruleset("gurps") is None or available_ruleset("cortex") is None:
        pytest.skip("the example needs the gurps and cortex rulesets installed")
    spec = load_scenario_text(_example(), "example.yaml")
    assert spec.name == "Hedgerow ambush"
    assert spec.unit("blue-2").facing == 225.0
    assert spec.obstacles[0].height == 0.5 and spec.obstacles[1].height == 2.0
    assert spec.controllers == {"red": "aggressive", "blue": "cautious"}


def test_docs_list_every_key_of_the_schema() -> None:
    text = DOC.read_text()
    schema = scenario_schema()
    keys = set(schema["properties"])
    for model in schema["$defs"].values():
        keys |= set(model.get("properties", {}))
    missing = [k for k in sorted(keys) if f"`{k}`" not in text]
    assert not missing, f"undocumented keys: {missing}"
    assert all(f"`{r}`" in text for r in RULESET_NAMES)


# ---- fuzz: mutations of real files and arbitrary text --------------------------------

SEEDS = [p.read_bytes() for p in sorted(BAD.glob("*.yaml"))]
VALID = b"""name: F
ruleset: gurps
map: {width: 30, height: 12}
obstacles:
  - {id: w, height: low, polygon: [[10, 1], [11, 1], [11, 5], [10, 5]]}
units:
  - {id: r1, side: red, at: [3, 3], profile: veteran}
  - {id: b1, side: blue, at: [20, 3]}
"""


def _check(data: bytes) -> None:
    try:
        load_scenario_text(data, "fuzz.yaml", profiles_path=TEST_PROFILES, policies=["random"])
    except ScenarioError as e:
        assert e.problems
        for p in e.problems:
            assert p.source in ("fuzz.yaml", str(TEST_PROFILES))
            assert p.line >= 0 and p.message


@pytest.mark.usefixtures("fake_rules")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.sampled_from([VALID, *SEEDS]),
    cut=st.integers(min_value=0, max_value=2000),
    insert=st.binary(max_size=12)
    | st.sampled_from([b"[", b"]", b"{", b": ", b"\n  - ", b"&a", b"*a", b"!!", b"~"]),
)
def test_mutated_files_never_raise_anything_else(seed: bytes, cut: int, insert: bytes) -> None:
    at = cut % (len(seed) + 1)
    _check(seed[:at] + insert + seed[at:])


@pytest.mark.usefixtures("fake_rules")
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_arbitrary_text_never_raises_anything_else(text: str) -> None:
    _check(text.encode())
