"""The rule ledgers of docs/rulesets/<ruleset>.md hold together, for every registered ruleset.

Each ledger numbers the rules of its text without gaps with one letter (G1, G2, ... for GURPS,
C for Cortex, ...), gives every row the text, its enforcement and its test, and every test it
names exists; every option of the ruleset's ``Options`` model is documented in the ledger's
options table. The rulesets come from the registry: a new ruleset needs its ledger.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from game.rules import RULESET_NAMES, ruleset_class

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| ([A-Z])(\d+) \|")
TEST = re.compile(r"`(?:(test_\w+)\.py::)?(test_\w+)(?:\[[^\]]*\])?`")


def _defined_tests() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        names |= set(re.findall(r"^def (test_\w+)\(", path.read_text(), flags=re.MULTILINE))
    return names


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
def test_ledger_numbers_rows_and_tests(ruleset: str) -> None:
    text = (ROOT / "docs" / "rulesets" / f"{ruleset}.md").read_text()
    rows = [line for line in text.splitlines() if ROW.match(line)]
    assert rows, f"docs/rulesets/{ruleset}.md has no numbered rule rows"
    prefix = ROW.match(rows[0]).group(1)  # type: ignore[union-attr]
    numbers = [int(ROW.match(r).group(2)) for r in rows if ROW.match(r).group(1) == prefix]  # type: ignore[union-attr]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 15, numbers
    defined = _defined_tests()
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 4 and all(cells[:3]), row
        for module, name in TEST.findall(row):
            assert name in defined, f"{ruleset}.md names a test that does not exist: {name}"
            if module:
                assert (ROOT / "tests" / "rules" / f"{module}.py").exists(), module


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
def test_every_option_is_documented(ruleset: str) -> None:
    text = (ROOT / "docs" / "rulesets" / f"{ruleset}.md").read_text()
    for name in ruleset_class(ruleset).Options.model_fields:
        assert f"| `{name}` |" in text, f"{ruleset}.md does not document option {name}"
