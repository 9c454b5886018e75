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
from game.cli import odds as odds_mod
from game.cli.odds import odds

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


@click.command("fake")
def fake_cmd() -> None:
    click.echo("fake odds")


def test_external_subcommands_are_optional(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        odds_mod,
        "EXTERNAL",
        {
            "fake": ("tests.rules.test_odds_cli", "fake_cmd"),
            "missing": ("game.cli.odds_no_such_module", "missing"),
        },
    )
    ctx = click.Context(odds)
    names = odds.list_commands(ctx)
    assert "fake" in names and "missing" not in names and {"gurps", "ap-pool"} <= set(names)
    assert odds.get_command(ctx, "missing") is None
    assert run("fake") == (0, "fake odds\n", "")
    assert run("missing")[0] == 2
