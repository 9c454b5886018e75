"""docs/scenarios.md's fairness table is what the command it records prints (`make scenarios-doc`)."""

from __future__ import annotations

import shlex

from click.testing import CliRunner

from game.cli import cli
from game.tools.fairness import BEGIN, END, recorded_command
from tests.batch.conftest import ROOT


def test_the_duel_rows_of_the_doc_table_reproduce():
    text = (ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8")
    command = recorded_command(text)
    assert command is not None, "docs/scenarios.md lacks its generated fairness table"
    args = shlex.split(command)
    assert args[:2] == ["skirmish", "fairness"]
    flags = args[next(i for i, a in enumerate(args) if a.startswith("-")) :]
    assert "scenarios/duel.yaml" in args
    # The rows are a pure function of the arguments: the duel's AFF rows alone, played again
    # (the cheapest cells), must be the doc's lines exactly.
    i = flags.index("--ruleset")
    flags[i + 1] = "aff"
    res = CliRunner().invoke(
        cli, ["fairness", str(ROOT / "scenarios" / "duel.yaml"), *flags, "--no-progress"]
    )
    assert res.exit_code == 0, res.output
    rows = [ln for ln in res.stdout.splitlines() if ln.startswith("| duel ")]
    assert len(rows) >= 1
    lines = text.splitlines()
    begin = next(i for i, ln in enumerate(lines) if ln.startswith(BEGIN))
    doc_lines = lines[begin : lines.index(END)]  # the generated table only
    for row in rows:
        assert row in doc_lines, f"{row!r} is not in docs/scenarios.md: run make scenarios-doc"
