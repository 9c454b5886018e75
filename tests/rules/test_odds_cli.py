"""``skirmish odds`` (DESIGN §4) with click's CliRunner: exact JSON values and exit codes.

GURPS numbers from shared/rules/gurps-active-defense.txt (3d6 <= score, 3-4 /
17-18, retreat +3 Dodge / +1 Parry and Block / +3 fencing Parry, dodge-and-drop
+3 against ranged only, retreat against melee only, Acrobatic Dodge +2/-2);
ap-pool numbers from shared/rules/ap-dodge-reaction.txt (5-6, meet or beat).
"""

from __future__ import annotations

import json
from fractions import Fraction

import click
import pytest
from click.testing import CliRunner

from game.cli import cli
from game.cli.odds import odds
from game.rules import ODDS_QUERIES, REGISTRY, RULESET_NAMES, odds_query
from game.rules.odds import OddsAnswer, OddsForbidden, OddsParam, OddsQuery, OddsUsageError
from tests.engine.simple_rules import SimpleRuleset

CUM = {2: 4, 4: 4, 8: 56, 9: 81, 10: 108, 11: 135, 12: 160, 16: 212, 20: 212}


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(odds, list(args))
    return res.exit_code, res.stdout, res.stderr


def p_json(*args: str) -> float:
    code, out, err = run(*args, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert list(data) == ["p_success"]
    return float(data["p_success"])


@pytest.mark.parametrize(
    ("args", "exact"),
    [
        (["--defense", "8"], Fraction(56, 216)),
        (["--defense", "2"], Fraction(4, 216)),  # 3-4 always succeed
        (["--defense", "20"], Fraction(212, 216)),  # 17-18 always fail
        (["--defense", "8", "--retreat"], Fraction(135, 216)),  # Dodge +3
        (["--defense", "9", "--kind", "parry", "--retreat"], Fraction(108, 216)),  # Parry +1
        (["--defense", "9", "--kind", "parry", "--retreat", "--fencing"], Fraction(160, 216)),  # fencing +3
        (["--defense", "9", "--kind", "parry", "--fencing"], Fraction(81, 216)),
        (["--defense", "9", "--kind", "block", "--retreat"], Fraction(108, 216)),  # Block +1
        (["--defense", "8", "--drop", "--ranged"], Fraction(135, 216)),  # dodge and drop +3
        (["--defense", "8", "--ranged"], Fraction(56, 216)),
        (["--defense", "9", "--kind", "block", "--ranged"], Fraction(81, 216)),
        (["--defense", "9", "--acrobatic", "12"], Fraction(2945, 5832)),  # +2 / -2 after the roll
        (
            ["--defense", "9", "--acrobatic", "12", "--retreat"],
            Fraction(160, 216) * Fraction(196, 216) + Fraction(56, 216) * Fraction(108, 216),
        ),
    ],
)
def test_gurps_json_exact(args: list[str], exact: Fraction) -> None:
    assert p_json("gurps", *args) == float(exact)


@pytest.mark.parametrize(
    "args",
    [
        ["--defense", "8", "--drop"],  # dodge-and-drop only against ranged attacks
        ["--defense", "8", "--drop", "--ranged", "--kind", "parry"],
        ["--defense", "8", "--drop", "--ranged", "--kind", "block"],
        ["--defense", "8", "--retreat", "--ranged"],  # retreat only against melee attacks
        ["--defense", "8", "--fencing"],  # fencing is a parry matter
        ["--defense", "8", "--fencing", "--kind", "block"],
        ["--defense", "8", "--acrobatic", "12", "--kind", "parry"],
        ["--defense", "8", "--acrobatic", "12", "--kind", "block"],
    ],
)
def test_gurps_forbidden_combinations(args: list[str]) -> None:
    code, out, err = run("gurps", *args, "--json")
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("Error: ")


@pytest.mark.parametrize(
    "args",
    [
        ["--kind", "dodge"],
        ["--defense", "x"],
        ["--defense", "8", "--kind", "shove"],
        ["--defense", "8", "--acrobatic", "0"],
    ],
)
def test_gurps_bad_arguments_exit_2(args: list[str]) -> None:
    assert run("gurps", *args)[0] == 2


def test_gurps_readable_output() -> None:
    code, out, _ = run("gurps", "--defense", "8", "--retreat")
    assert code == 0
    assert "effective dodge: 11" in out and "+3 retreat" in out and "135/216" not in out  # reduced: 5/8
    assert "(5/8)" in out
    code, out, _ = run("gurps", "--defense", "9", "--acrobatic", "12")
    assert "11 if it succeeds, 7 if it fails" in out


@pytest.mark.parametrize(
    ("dice", "vs", "exact"),
    [
        ("8", "4", Fraction(1697, 6561)),  # melee worked example
        ("8", "3", Fraction(3489, 6561)),  # ranged worked example
        ("8", "0", Fraction(1)),
        ("0", "1", Fraction(0)),
        ("3", "2", Fraction(7, 27)),
    ],
)
def test_ap_pool_json_exact(dice: str, vs: str, exact: Fraction) -> None:
    assert p_json("ap-pool", "--dice", dice, "--vs", vs) == float(exact)


def test_ap_pool_readable_and_errors() -> None:
    code, out, _ = run("ap-pool", "--dice", "8", "--vs", "4")
    assert code == 0 and "1697/6561" in out and "8 dice" in out
    assert run("ap-pool", "--dice", "-1", "--vs", "2")[0] == 2
    assert run("ap-pool", "--dice", "3")[0] == 2


def test_through_the_top_level_cli() -> None:
    res = CliRunner().invoke(cli, ["odds", "gurps", "--defense", "8", "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout) == {"p_success": 56 / 216}
    res = CliRunner().invoke(cli, ["odds", "gurps", "--defense", "8", "--drop", "--json"])
    assert res.exit_code == 2


def _double(n: int, loud: bool, side: str, tag: tuple[str, ...]) -> OddsAnswer:
    if n > 9:
        raise OddsForbidden("the rules stop at 9")
    if n < 0:
        raise OddsUsageError("--n must not be negative")
    return OddsAnswer({"p_success": n / 10, "side": side, "tags": list(tag)}, (f"n={n}", f"loud={loud}"))


class _WithOdds(SimpleRuleset):
    """A ruleset whose odds query is declared here."""

    name = "test-odds"


QUERY = OddsQuery(
    "Fake odds: n tenths.",
    (
        OddsParam("n", ("--n", "--number"), int, required=True, help="How many tenths."),
        OddsParam("loud", ("--loud",), bool),
        OddsParam("side", ("--side",), default="left", choices=("left", "right"), show_default=True),
        OddsParam("tag", ("--tag",), multiple=True, metavar="T"),
    ),
    _double,
)


def test_a_rulesets_odds_query_becomes_its_subcommand(monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = click.Context(odds)
    assert odds.list_commands(ctx) == ["aff", "ap-pool", "cortex", "defence-dice", "gurps"]
    monkeypatch.setitem(REGISTRY, "test-odds", f"{__name__}:_WithOdds")
    monkeypatch.setitem(ODDS_QUERIES, "test-odds", f"{__name__}:QUERY")
    monkeypatch.setitem(REGISTRY, "test-simple", "tests.engine.simple_rules:SimpleRuleset")
    names = odds.list_commands(ctx)
    assert "test-odds" in names and "test-simple" not in names  # no query, no subcommand
    assert odds.get_command(ctx, "test-simple") is None and odds.get_command(ctx, "nope") is None
    assert run("test-odds", "--number", "3", "--side", "right", "--tag", "a", "--tag", "b", "--json") == (
        0,
        '{"p_success": 0.3, "side": "right", "tags": ["a", "b"]}\n',
        "",
    )
    assert run("test-odds", "--n", "4", "--loud") == (0, "n=4\nloud=True\n", "")
    code, out, err = run("test-odds", "--n", "12")
    assert (code, out, err) == (2, "", "Error: the rules stop at 9\n")  # forbidden: one line
    code, _, err = run("test-odds", "--n", "-1")
    assert code == 2 and err.startswith("Usage: ") and "--n must not be negative" in err
    assert run("test-odds")[0] == 2 and "Missing option '--n'" in run("test-odds")[2]
    assert run("test-odds", "--n", "1", "--side", "up")[0] == 2
    code, out, _ = run("test-odds", "--help")
    assert code == 0 and "Fake odds: n tenths." in out and "[default: left]" in out and "--tag T" in out


def test_every_shipped_ruleset_answers_odds() -> None:
    for name in RULESET_NAMES:
        query = odds_query(name)
        assert query is not None, name
        assert len({p.name for p in query.params}) == len(query.params)
        assert all(p.flags and all(f.startswith("--") for f in p.flags) for p in query.params)
