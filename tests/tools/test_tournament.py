"""The round robin (game.tools.tournament), its ratings (game.tools.ratings) and its command."""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path

import pytest

from game.cli import main
from game.tools import tournament as tm
from game.tools.ratings import bradley_terry, results

ROOT = Path(__file__).resolve().parents[2]
DUEL = str(ROOT / "scenarios" / "duel.yaml")


def test_every_pair_meets_on_the_same_battles():
    jobs = tm.plan_tournament(
        policies=["random", "aggressive", "cautious"],
        scenarios=[DUEL],
        rulesets=["ap-pool", "aff"],
        seeds=[1, 2],
    )
    assert len(jobs) == 3 * 2 * 2 * 2  # pairs x rulesets x seeds x both side assignments
    by_pair: dict[frozenset[str], set[tuple[str | None, int, bool]]] = {}
    for j in jobs:
        by_pair.setdefault(frozenset(p for _, p in j.policies), set()).add((j.ruleset, j.seed, j.swapped))
    assert len(by_pair) == 3
    assert len({frozenset(v) for v in by_pair.values()}) == 1  # the same battles for every pair


def test_needs_two_policies():
    with pytest.raises(ValueError, match="two"):
        tm.plan_tournament(policies=["random", "random"], scenarios=[DUEL], rulesets=["aff"], seeds=[1])


@pytest.fixture(scope="module")
def played() -> tm.Tournament:
    jobs = tm.plan_tournament(
        policies=["random", "aggressive"], scenarios=[DUEL], rulesets=["ap-pool"], seeds=[1, 2, 3]
    )
    return tm.run_tournament(jobs, ["random", "aggressive"], workers=1, progress=False)


def test_tidy_rows_one_per_battle_and_side(played):
    assert len(played.rows) == 6 and len(played.tidy) == 12
    for row in played.tidy:
        assert set(row) >= set(tm.TIDY_COLUMNS)
        assert row["result"] in ("win", "loss", "draw")
    for k in range(0, 12, 2):
        a, b = played.tidy[k], played.tidy[k + 1]
        assert a["policy"] == b["opponent"] and a["score"] + b["score"] == 1.0
        assert a["damage_dealt"] == b["damage_taken"]


def test_cross_table_counts_both_ways(played):
    table = tm.cross_table(played)
    ab, ba = table[("aggressive", "random")], table[("random", "aggressive")]
    assert ab.games == ba.games == 6
    assert (ab.wins, ab.losses, ab.draws) == (ba.losses, ba.wins, ba.draws)
    standing = tm.standings(played)
    assert standing["aggressive"].wins == ab.wins


def test_outputs_are_written(played, tmp_path):
    written = tm.write_outputs(played, tmp_path)
    names = {p.name for p in written}
    assert names == {"crosstable.md", "crosstable.csv", "ratings.csv", "battles.csv", "tournament.png"}
    with open(tmp_path / "battles.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 12 and tuple(rows[0]) == tm.TIDY_COLUMNS
    with open(tmp_path / "crosstable.csv", newline="") as fh:
        assert len(list(csv.DictReader(fh))) == 2
    md = (tmp_path / "crosstable.md").read_text()
    assert "| **aggressive** |" in md and "Bradley-Terry" in md
    assert (tmp_path / "tournament.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    umask = os.umask(0)
    os.umask(umask)
    assert all(p.stat().st_mode & 0o777 == 0o666 & ~umask for p in written)  # not mkstemp's 0600


def test_workers_do_not_change_the_rows(played):
    jobs = tm.plan_tournament(
        policies=["random", "aggressive"], scenarios=[DUEL], rulesets=["ap-pool"], seeds=[1, 2, 3]
    )
    again = tm.run_tournament(jobs, ["random", "aggressive"], workers=2, progress=False)
    assert again.rows == played.rows


# --------------------------------------------------------------------------- ratings
def test_even_results_rate_even():
    res = results(["a", "b"], [("a", "b", "a"), ("a", "b", "b"), ("a", "b", None)])
    ra, rb = bradley_terry(res)
    assert abs(ra.rating) < 1e-6 and abs(rb.rating) < 1e-6
    assert ra.lo < 0 < ra.hi


def test_ratings_recover_known_strengths():
    # p(a beats b) = 0.75 exactly in the counts: 300 of 400; Elo difference 400 log10(3) = 190.8
    games = [("a", "b", "a")] * 300 + [("a", "b", "b")] * 100
    ra, rb = bradley_terry(results(["a", "b"], games), prior=0.0)
    assert ra.rating - rb.rating == pytest.approx(400 * math.log10(3), rel=1e-6)
    assert ra.rating + rb.rating == pytest.approx(0.0, abs=1e-9)
    assert ra.lo < ra.rating < ra.hi and ra.hi - ra.lo < 80


def test_the_prior_keeps_an_unbeaten_player_finite():
    games = [("a", "b", "a")] * 10 + [("b", "c", "b")] * 5 + [("a", "c", None)]
    got = {r.player: r for r in bradley_terry(results(["a", "b", "c"], games))}
    assert all(math.isfinite(r.rating) and math.isfinite(r.hi) for r in got.values())
    assert got["a"].rating > got["b"].rating


def test_a_player_who_never_played_has_no_interval():
    got = {r.player: r for r in bradley_terry(results(["a", "b", "c"], [("a", "b", "a")]))}
    assert got["c"].games == 0 and math.isnan(got["c"].lo)


# --------------------------------------------------------------------------- the command
def test_tournament_command_writes_everything(tmp_path, capsys):
    out = tmp_path / "t"
    main(
        [
            "tournament",
            DUEL,
            "--policies",
            "random,aggressive,planner",
            "--ruleset",
            "ap-pool",
            "-n",
            "1",
            "--round-limit",
            "3",
            "--policy-option",
            "planner.budget=4",
            "--workers",
            "1",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    text = capsys.readouterr().out
    assert "| **planner** |" in text and "6 battles" in text
    for name in ("crosstable.md", "crosstable.csv", "ratings.csv", "battles.csv", "tournament.png"):
        assert (out / name).is_file(), name


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--policies", "random,nosuch"], "unknown AI policy"),
        (["--policies", "random"], "at least two"),
        (["--ruleset", "chess"], "unknown ruleset"),
        (["--policy-option", "cautious.x=1"], "takes no options"),
        (["-n", "0"], "at least 1"),
    ],
)
def test_bad_input_exits_2(args, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["tournament", DUEL, "--out", str(tmp_path / "x"), "--no-progress", *args])
    assert e.value.code == 2
    assert message in capsys.readouterr().err
