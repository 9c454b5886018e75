"""``skirmish rulesets`` lists all five rulesets with their sources and options."""

from __future__ import annotations

import json

from click.testing import CliRunner

from game.cli import cli
from game.rules import RULESET_NAMES


def test_rulesets_json_lists_every_ruleset_with_its_rule_file():
    res = CliRunner().invoke(cli, ["rulesets", "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.output)
    assert list(info) == list(RULESET_NAMES)
    assert info["gurps"]["source"] == "gurps-active-defense.txt"
    assert any(o["name"] == "ubiquitous" for o in info["aff"]["options"])


def test_rulesets_text_mentions_options():
    res = CliRunner().invoke(cli, ["rulesets"])
    assert res.exit_code == 0
    assert "ubiquitous" in res.output and "ap-pool" in res.output


def test_unknown_subcommand_exits_2():
    res = CliRunner().invoke(cli, ["frobnicate"])
    assert res.exit_code == 2
