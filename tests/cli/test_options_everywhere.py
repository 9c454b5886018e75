"""``--option KEY=VALUE`` on every command; recorded in CSV columns, logs and profiles.csv; replayed."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from game.cli.params import parse_options, ruleset_options
from tests.cli_capture import run

ROOT = Path(__file__).resolve().parents[2]
DUEL = str(ROOT / "scenarios" / "duel.yaml")

#: A command line of each command that takes ruleset options (the ruleset is aff).
COMMANDS = {
    "battle": ["battle", DUEL, "-n", "1"],
    "sweep": ["sweep", DUEL, "-n", "1"],
    "fairness": ["fairness", DUEL, "-n", "1"],
    "tournament": ["tournament", DUEL, "--ruleset", "aff", "--policies", "random,cautious"],
    "play": ["play", DUEL, "--headless", "--script", str(ROOT / "tests" / "cli" / "quit.txt")],
    "reach": ["reach", DUEL, "vasco"],
    "path": ["path", DUEL, "vasco", "5", "5"],
    "odds": ["odds", "aff", "--weapon-track", "2/3/3/3/4/4/5", "--dodge-skill", "5"],
}


@pytest.mark.parametrize("name", list(COMMANDS))
@pytest.mark.parametrize(
    ("option", "words"),
    [
        ("ubiquitous=7", "ruleset aff: option ubiquitous cannot be '7': expected ubiquitous (true/false"),
        ("ubiquitos=true", "no option 'ubiquitos' (did you mean 'ubiquitous'?)"),
    ],
)
def test_a_bad_option_is_one_line_naming_it_its_range_and_the_ruleset(
    name: str, option: str, words: str, tmp_path: Path, capsys
) -> None:
    argv = [*COMMANDS[name], "--option", option]
    if name in ("battle", "sweep", "tournament"):
        argv += ["--out", str(tmp_path / "out")]
    code, _, err = run(argv, capsys)
    assert code == 2, err
    lines = [line for line in err.splitlines() if line.strip()]
    if name == "sweep" and option.startswith("ubiquitos="):  # a sweep's key: which ruleset has it
        words = "has an option 'ubiquitos' (did you mean 'ubiquitous'?)"
    assert len(lines) == 1 and words in lines[0], err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())  # nothing written


def test_the_shared_helpers_merge_over_the_scenario_and_refuse_in_one_line() -> None:
    assert parse_options(("a=1", "b=true", "c=x")) == {"a": 1, "b": True, "c": "x"}
    assert ruleset_options("aff", {"riposte": True}, base={"ubiquitous": True}) == {
        "ubiquitous": True,
        "riposte": True,
    }
    with pytest.raises(Exception, match="given twice"):
        parse_options(("a=1", "a=2"))


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_options_are_columns_logged_replayed_and_profiles_written(tmp_path: Path, capsys) -> None:
    out, logs = tmp_path / "out", tmp_path / "logs"
    code, stdout, err = run(
        [
            *("battle", DUEL, "-n", "2", "--red", "cautious", "--blue", "aggressive", "--no-plots"),
            *("--no-progress", "--option", "ubiquitous=true", "--out", str(out), "--log", str(logs)),
        ],
        capsys,
    )
    assert code == 0, err
    rows = _rows(out / "battles.csv")
    assert {r["option.ubiquitous"] for r in rows} == {"true"}
    assert {r["options"] for r in rows} == {"ubiquitous=true"}
    start = json.loads((logs / "battle-1.jsonl").read_text().splitlines()[0])
    assert start["options"]["ubiquitous"] is True and "riposte" in start["options"]  # every option
    code, said, err = run(["replay", str(logs / "battle-1.jsonl")], capsys)
    assert code == 0, err
    assert "OK" in said
    profiles = _rows(out / "profiles.csv")
    assert f"profiles: {out / 'profiles.csv'}" in stdout
    # one row per battle, side and profile: the duel has a swashbuckler (red) and a veteran (blue)
    assert [(r["seed"], r["side"], r["profile"]) for r in profiles] == [
        ("1", "red", "swashbuckler"),
        ("1", "blue", "veteran"),
        ("2", "red", "swashbuckler"),
        ("2", "blue", "veteran"),
    ]
    by_battle = {(r["seed"], r["side"]): r for r in rows}
    for p in profiles:
        side_row = by_battle[(p["seed"], p["side"])]
        # one unit a side: the profile's numbers are the side's
        assert p["damage_dealt"] == side_row["damage_dealt"]
        assert p["damage_taken"] == side_row["damage_taken"]
        assert p["survived"] == side_row["survivors"]
        assert p["won"] == side_row["won"]
        assert p["attacks"] == side_row["attacks"]
    # a resumed run keeps the profiles of the battles it did not play again
    code, _, err = run(
        [
            *("battle", DUEL, "-n", "3", "--red", "cautious", "--blue", "aggressive", "--no-plots"),
            *("--no-progress", "--option", "ubiquitous=true", "--out", str(out), "--log", str(logs)),
            "--resume",
        ],
        capsys,
    )
    assert code == 0, err
    again = _rows(out / "profiles.csv")
    assert again[:4] == profiles and [r["seed"] for r in again[4:]] == ["3", "3"]
