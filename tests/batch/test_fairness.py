"""``skirmish fairness``: mirror-AI battles per scenario and a well-formed Markdown table."""

from __future__ import annotations

import re

from click.testing import CliRunner

from game.cli import cli
from game.tools.fairness import Fairness, _next_chunk, markdown_table, measure
from tests.batch.conftest import DUEL, SCENARIOS, STREET

ROW = re.compile(
    r"^\| (?P<scenario>[\w-]+) \| (?P<ruleset>[\w-]+) \| (?P<policy>\w+) \| (?P<battles>\d+) "
    r"\| (?P<decisive>\d+) \| (?P<red>\d+) \| (?P<blue>\d+) "
    r"\| (?:(?P<weaker>\w+) (?P<share>\d+\.\d)% \[(?P<lo>\d+\.\d), (?P<hi>\d+\.\d)\]|no winner) "
    r"\| (?P<ok>yes|NO) \|$"
)


def _rows(output: str) -> list[dict[str, str]]:
    lines = [ln for ln in output.splitlines() if ln.startswith("|")]
    assert lines[0].startswith("| scenario | ruleset | policy | battles | decisive | red wins | blue wins |")
    assert re.fullmatch(r"\|(---|---:|:-:)(\|(---|---:|:-:))+\|", lines[1])
    out = []
    for ln in lines[2:]:
        m = ROW.match(ln)
        assert m, f"malformed row: {ln}"
        out.append(m.groupdict())
    return out


def test_fairness_prints_a_well_formed_table_for_a_small_n():
    res = CliRunner().invoke(
        cli,
        [
            "fairness",
            str(DUEL),
            str(SCENARIOS / "profiles.yaml"),  # skipped: not a scenario
            str(STREET),
            "-n",
            "3",
            "--min-decisive",
            "0",
            "--policy",
            "aggressive",
            "--no-progress",
        ],
    )
    assert res.exit_code == 0, res.output
    rows = _rows(res.output)
    assert [(r["scenario"], r["ruleset"], r["policy"]) for r in rows] == [
        ("duel", "aff", "aggressive"),
        ("street", "cortex", "aggressive"),
    ]
    for r in rows:
        assert int(r["battles"]) == 3
        assert int(r["decisive"]) == int(r["red"]) + int(r["blue"]) <= 3
        if r["share"] is not None:
            k = min(int(r["red"]), int(r["blue"]))
            assert abs(float(r["share"]) - 100 * k / int(r["decisive"])) < 0.06
            assert float(r["lo"]) <= float(r["share"]) <= float(r["hi"])
            assert r["ok"] == ("yes" if float(r["share"]) >= 30.0 else "NO")


def test_fairness_plays_more_seeds_until_enough_battles_are_decisive():
    got = measure(str(DUEL), "aggressive", n=2, min_decisive=4, max_battles=40)
    assert got.decisive >= 4 and got.battles >= 2
    # Deterministic: the same arguments give the same result, workers or not.
    assert measure(str(DUEL), "aggressive", n=2, min_decisive=4, max_battles=40, workers=2) == got


def test_chunks_stop_at_the_cap_and_once_enough_are_decisive():
    assert _next_chunk(0, 0, 200, 100, 2000) == 200
    assert _next_chunk(200, 150, 200, 100, 2000) == 0
    assert _next_chunk(200, 50, 200, 100, 2000) == 220  # 50 more at a 25 % rate, +10 %
    assert _next_chunk(200, 99, 200, 100, 2000) == 20  # at least a small chunk
    assert _next_chunk(1990, 10, 200, 100, 2000) == 10  # never past the cap
    assert _next_chunk(2000, 10, 200, 100, 2000) == 0
    assert _next_chunk(200, 0, 200, 100, 2000) == 200  # no decisive battle yet: double


def test_the_weaker_side_and_its_share():
    even = Fairness("x", "X", "aff", "cautious", ("red", "blue"), 10, (4, 4))
    assert even.weaker == "blue" and even.share.p == 0.5 and even.passes()
    lopsided = Fairness("x", "X", "aff", "cautious", ("red", "blue"), 120, (100, 10))
    assert lopsided.weaker == "blue" and not lopsided.passes()
    assert lopsided.share.lo < lopsided.share.p < lopsided.share.hi
    none = Fairness("x", "X", "aff", "cautious", ("red", "blue"), 5, (0, 0))
    assert not none.passes()
    table = markdown_table([even, lopsided, none])
    assert "| blue 50.0% [" in table and "| no winner | NO |" in table


def test_fairness_refuses_bad_input_before_playing():
    runner = CliRunner()
    for args in (
        [str(DUEL), "--policy", "nobody"],
        [str(DUEL), "-n", "0"],
        [str(SCENARIOS / "profiles.yaml")],
    ):
        res = runner.invoke(cli, ["fairness", *args, "--no-progress"])
        assert res.exit_code == 2, (args, res.output)
