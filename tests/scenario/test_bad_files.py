"""Every bad scenario under ``bad/`` reports exactly the problems its header expects.

Each fixture starts with ``# expect: LINE PATH MESSAGE`` lines (PATH ``-`` for the
file as a whole; MESSAGE a prefix of the expected message). The test asserts the
problems are exactly those, in that file, at those lines and key paths.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from game.core.errors import ScenarioError
from game.scenario import load_scenario
from tests.scenario.conftest import BAD, TEST_PROFILES

EXPECT = re.compile(rb"^# expect: (\d+) (\S+) (.+)$", re.MULTILINE)

BAD_FILES = sorted(BAD.glob("*.yaml"))


@dataclass(frozen=True)
class Expected:
    line: int
    path: str
    message: str


def expectations(path: Path) -> list[Expected]:
    # Read bytes: one fixture is deliberately not UTF-8 (its header is ASCII).
    found = EXPECT.findall(path.read_bytes())
    return [Expected(int(n), "" if p == b"-" else p.decode(), m.decode().strip()) for n, p, m in found]


def test_enough_distinct_bad_files() -> None:
    assert len(BAD_FILES) >= 25
    for path in BAD_FILES:
        assert expectations(path), f"{path.name} has no '# expect:' header"


@pytest.mark.usefixtures("fake_rules")
@pytest.mark.parametrize("path", BAD_FILES, ids=[p.stem for p in BAD_FILES])
def test_bad_file_reports_exactly_the_expected_problems(path: Path) -> None:
    with pytest.raises(ScenarioError) as info:
        load_scenario(path, profiles_path=TEST_PROFILES, policies=["random"])
    problems = info.value.problems
    got = [(p.line, p.path, p.message) for p in problems]
    want = expectations(path)
    assert len(problems) == len(want), f"got {got}"
    for exp in want:
        assert any(
            p.line == exp.line and p.path == exp.path and p.message.startswith(exp.message) for p in problems
        ), f"missing {exp} in {got}"
    assert all(p.source == str(path) for p in problems)
    # Messages say what was expected (or what is wrong with the bytes/syntax).
    for p in problems:
        assert p.message.startswith(
            ("expected", "unknown key", "missing", "duplicate", "tag", "YAML", "empty")
        )


@pytest.mark.usefixtures("fake_rules")
def test_several_mistakes_are_all_reported_in_line_order() -> None:
    path = BAD / "several-mistakes.yaml"
    with pytest.raises(ScenarioError) as info:
        load_scenario(path, profiles_path=TEST_PROFILES)
    lines = [p.line for p in info.value.problems]
    assert len(lines) >= 10
    assert lines == sorted(lines)
    # The exception text is the CLI's output: one "file:line: path: message" per problem.
    text = str(info.value).splitlines()
    assert text[0].startswith(f"{path}:16: scale.yard_per_inch: unknown key")
