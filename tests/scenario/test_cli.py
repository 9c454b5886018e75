"""``skirmish check`` / ``skirmish schema`` through click's runner (in process).

Bad files are checked with the fake rulesets (stable messages); the shipped files
with the real ones (skipped while a ruleset module is missing).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from game.cli import cli
from game.core.errors import ScenarioError
from game.rules import RULESET_NAMES
from game.scenario import available_ruleset, load_scenario
from tests.scenario.conftest import BAD, TEST_PROFILES
from tests.scenario.test_shipped import SHIPPED_PATHS

fake = pytest.mark.usefixtures("fake_rules")


def _real_rulesets() -> None:
    """Skip a test of the shipped files while a ruleset is missing."""
    missing = [r for r in RULESET_NAMES if available_ruleset(r) is None]
    if missing:
        pytest.skip(f"rulesets not installed yet: {', '.join(missing)}")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_good_files_print_ok_and_exit_0() -> None:
    _real_rulesets()
    code, out, err = run("check", *map(str, SHIPPED_PATHS))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == len(SHIPPED_PATHS)
    assert lines[-1] == f"ok: {SHIPPED_PATHS[-1]} (10 units, 25 obstacles, ruleset ap-pool)"


def test_ruleset_override_and_all_rulesets() -> None:
    path = str(SHIPPED_PATHS[0])
    code, out, _ = run("check", path, "--ruleset", "cortex", "--all-rulesets")
    assert code == 0
    assert out.strip().endswith("ruleset cortex)")


@fake
@pytest.mark.parametrize("name", ["several-mistakes", "python-tag", "non-utf8", "syntax-error", "empty"])
def test_bad_file_lists_every_problem_on_stderr_and_exits_2(name: str) -> None:
    path = BAD / f"{name}.yaml"
    code, out, err = run("check", str(path), "--profiles", str(TEST_PROFILES))
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    with pytest.raises(ScenarioError) as info:
        load_scenario(path, profiles_path=TEST_PROFILES, policies=["random"])
    assert err.splitlines() == [str(p) for p in info.value.problems]
    assert all(line.startswith(f"{path}:") for line in err.splitlines())


def test_mixed_good_bad_and_missing_files() -> None:
    _real_rulesets()
    good, bad = SHIPPED_PATHS[0], BAD / "one-side.yaml"
    code, out, err = run("check", str(good), str(bad), "nowhere.yaml")
    assert code == 2
    assert out.startswith(f"ok: {good} ")
    assert err.splitlines() == [
        f"{bad}:6: units: expected units on at least 2 sides, got only side 'red'",
        "nowhere.yaml: no such file",
    ]


@fake
def test_directory_argument_checks_every_yaml_file_and_the_profiles_file(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_bytes((BAD / "one-side.yaml").read_bytes())
    (tmp_path / "profiles.yaml").write_text("trooper: {gurps: {skill: 99}}\n")
    code, _, err = run("check", str(tmp_path), "--profiles", str(TEST_PROFILES))
    assert code == 2
    lines = err.splitlines()
    assert lines[0].startswith(f"{tmp_path / 'a.yaml'}:6: units:")
    assert lines[1] == f"{tmp_path / 'profiles.yaml'}:1: trooper.gurps.skill: expected a number <= 20, got 99"


@fake
def test_profiles_file_problems_are_printed_once(tmp_path: Path) -> None:
    broken = tmp_path / "shared.yaml"
    broken.write_text("trooper:\n  gurps: {skill: 1}\nveteran: {gurps: {}}\n")
    files = [str(p) for p in SHIPPED_PATHS[:2]]
    code, _, err = run("check", *files, "--ruleset", "gurps", "--profiles", str(broken))
    assert code == 2
    skill = [line for line in err.splitlines() if "trooper.gurps.skill" in line]
    assert skill == [f"{broken}:2: trooper.gurps.skill: expected a number >= 3, got 1"]


def test_unknown_ruleset_option_is_a_usage_error() -> None:
    code, _, err = run("check", str(SHIPPED_PATHS[0]), "--ruleset", "chess")
    assert code == 2
    assert "Invalid value for '--ruleset'" in err


@fake
def test_internal_errors_are_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import game.cli.check as check_module

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("kaput")

    monkeypatch.setattr(check_module, "load_scenario", boom)
    code, _, err = run("check", str(SHIPPED_PATHS[0]))
    assert code == 2
    assert err.count("\n") == 1 and "internal error" in err and "kaput" in err


def test_schema_is_json_with_every_top_level_key() -> None:
    code, out, _ = run("schema")
    assert code == 0
    schema = json.loads(out)
    assert out.startswith('{\n  "')  # indent 2
    assert set(schema["properties"]) == {
        "name", "description", "ruleset", "scale", "map", "rounds",
        "obstacles", "units", "profiles", "options", "controllers",
    }  # fmt: skip
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == {"map", "units"}


@fake
def test_console_script_exits_2_without_traceback() -> None:
    # The real entry point (game.cli:main), in a fresh interpreter: a bad file.
    proc = subprocess.run(
        [sys.executable, "-m", "game", "check", str(BAD / "syntax-error.yaml")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"{BAD / 'syntax-error.yaml'}:7: <root>: YAML syntax error")
    assert "Traceback" not in proc.stderr
