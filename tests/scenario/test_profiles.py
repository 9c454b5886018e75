"""Profiles: merging with the shared file, defaults, rulesets not installed, the profiles file itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from game.core.errors import ScenarioError, UnknownName
from game.scenario import check_profiles, load_scenario_text, resolve_stats
from tests.scenario import fakerules
from tests.scenario.conftest import TEST_PROFILES

pytestmark = pytest.mark.usefixtures("fake_rules")

BASE = """\
name: Profiles
ruleset: gurps
map: {width: 30, height: 12}
units:
  - {id: r1, side: red, at: [3, 3], profile: veteran}
  - {id: b1, side: blue, at: [20, 3]}
"""


def load(text: str, **kw: object) -> object:
    return load_scenario_text(text, "s.yaml", profiles_path=TEST_PROFILES, **kw)  # type: ignore[arg-type]


def test_scenario_block_wins_per_ruleset_and_others_come_from_the_shared_file() -> None:
    spec = load(BASE + "profiles:\n  veteran:\n    gurps: {skill: 15}\n")
    assert spec.profiles["veteran"]["gurps"] == {"skill": 15}  # type: ignore[attr-defined]
    assert spec.profiles["veteran"]["cortex"] == {"skill": 12}  # type: ignore[attr-defined]
    stats = resolve_stats(spec, spec.unit("r1"))  # type: ignore[attr-defined]
    assert stats.skill == 15  # type: ignore[attr-defined]


def test_null_blocks_are_dropped_and_new_profiles_are_added() -> None:
    spec = load(BASE + "profiles:\n  scout: {gurps: {skill: 11}, cortex: null}\n")
    assert spec.profiles["scout"] == {"gurps": {"skill": 11}}  # type: ignore[attr-defined]
    assert "cortex" not in spec.profiles["duelist"]  # type: ignore[attr-defined]


def test_unit_without_profile_uses_trooper_or_the_builtin_default(tmp_path: Path) -> None:
    spec = load(BASE)
    assert spec.unit("b1").profile is None  # type: ignore[attr-defined]
    assert resolve_stats(spec, spec.unit("b1")).skill == 10  # type: ignore[attr-defined]
    # Without a trooper block the ruleset's default_stats() stands in.
    no_trooper = tmp_path / "p.yaml"
    no_trooper.write_text("veteran: {gurps: {skill: 13}}\n")
    spec = load_scenario_text(BASE, "s.yaml", profiles_path=no_trooper)
    assert resolve_stats(spec, spec.unit("b1")) == fakerules.FakeStats()


def test_resolve_stats_refuses_a_missing_block() -> None:
    spec = load(BASE.replace("profile: veteran", "profile: duelist"))
    with pytest.raises(UnknownName):
        resolve_stats(spec, spec.unit("r1"), "cortex")  # type: ignore[attr-defined]


def test_all_rulesets_requires_a_block_everywhere() -> None:
    text = BASE.replace("profile: veteran", "profile: duelist")
    with pytest.raises(ScenarioError) as info:
        load(text, check_rulesets=("gurps", "cortex", "aff"))
    missing = [p.message.split(";")[0] for p in info.value.problems]
    assert missing == [
        "expected profile 'duelist' to have a stat block for ruleset 'cortex'",
        "expected profile 'duelist' to have a stat block for ruleset 'aff'",
    ]


def test_ruleset_argument_overrides_the_file() -> None:
    assert load(BASE, ruleset="aff").ruleset == "aff"  # type: ignore[attr-defined]
    with pytest.raises(UnknownName):
        load(BASE, ruleset="chess")


def test_ruleset_not_installed_is_a_located_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    fakerules.install(monkeypatch, missing=("gurps",))
    with pytest.raises(ScenarioError) as info:
        load(BASE)
    [p] = info.value.problems
    assert (p.line, p.path) == (2, "ruleset")
    assert p.message.startswith("ruleset 'gurps' is not available yet")
    # Options of a ruleset that is not installed are not judged yet.
    load(BASE.replace("gurps", "cortex") + "options:\n  gurps: {anything: 1}\n")


def test_problems_in_the_shared_file_name_that_file(tmp_path: Path) -> None:
    shared = tmp_path / "shared.yaml"
    shared.write_text(
        "veteran:\n"
        "  gurps:\n"
        "    skill: 2\n"
        "  cortex: {skil: 12}\n"  # only checked when cortex is in play
        "trooper: {gurpz: {}}\n"
    )
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(BASE, "s.yaml", profiles_path=shared)
    got = [(p.source, p.line, p.path) for p in info.value.problems]
    assert got == [(str(shared), 3, "veteran.gurps.skill"), (str(shared), 5, "trooper.gurpz")]


def test_missing_explicit_profiles_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(BASE, "s.yaml", profiles_path=tmp_path / "none.yaml")
    assert "cannot read profiles file" in info.value.problems[0].message


def test_check_profiles() -> None:
    assert check_profiles(TEST_PROFILES) == 3
    with pytest.raises(ScenarioError) as info:
        check_profiles(TEST_PROFILES, ["gurps", "cortex"])
    [p] = info.value.problems
    assert (p.line, p.path) == (14, "duelist")
    assert p.message == "expected a stat block for ruleset 'cortex', got none"


def test_a_ruleset_validator_bug_is_a_located_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(cls: type, block: dict[str, object]) -> object:
        raise TypeError("unhashable type: 'list'")

    monkeypatch.setattr(fakerules.FakeRuleset, "parse_stats", classmethod(broken))
    with pytest.raises(ScenarioError) as info:
        load(BASE + "profiles:\n  veteran:\n    gurps: {skill: 15}\n")
    mine = [p for p in info.value.problems if p.source == "s.yaml"]
    assert [(p.line, p.path) for p in mine] == [(9, "profiles.veteran.gurps")]
    assert "TypeError: unhashable type" in mine[0].message
