"""``skirmish battle``: outputs, summary, compare, and one-line exit-2 errors for bad input."""

from __future__ import annotations

import csv
import os

import pytest

from tests.batch.conftest import DUEL
from tests.cli_capture import run


def test_battle_writes_csv_plots_logs_and_a_summary(tmp_path, capsys):
    out = tmp_path / "out"
    logs = tmp_path / "logs"
    argv = ["battle", str(DUEL), "-n", "3", "--seed", "5", "--red", "aggressive", "--blue", "cautious"]
    code, stdout, _ = run(
        [*argv, "--out", str(out), "--log", str(logs), "--workers", "1", "--no-progress"], capsys
    )
    assert code == 0
    with open(out / "battles.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["seed"], r["side"]) for r in rows] == [(s, side) for s in "567" for side in ("red", "blue")]
    assert {(r["side"], r["policy"], r["opponent"]) for r in rows} == {
        ("red", "aggressive", "cautious"),
        ("blue", "cautious", "aggressive"),
    }
    for seed in "567":  # one winner or a draw per battle, and damage dealt is the other's taken
        red, blue = (r for r in rows if r["seed"] == seed)
        assert sorted((red["result"], blue["result"])) in (["loss", "win"], ["draw", "draw"])
        assert red["damage_dealt"] == blue["damage_taken"] and red["variant"] == "duel"
    with open(out / "summary.csv", newline="") as fh:
        summary = list(csv.DictReader(fh))
    assert [(r["variant"], r["side"], r["battles"]) for r in summary] == [
        ("duel", "red", "3"),
        ("duel", "blue", "3"),
    ]
    assert sum(int(r["wins"]) for r in summary) + int(summary[0]["draws"]) == 3
    for name in ("win_rates.png", "battle_length.png", "running_win_rate.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in logs.iterdir()) == ["battle-5.jsonl", "battle-6.jsonl", "battle-7.jsonl"]
    assert "red (aggressive)" in stdout and "draws" in stdout and "mean rounds" in stdout
    assert f"battles: {out / 'battles.csv'}" in stdout and "plots:" in stdout and "logs:" in stdout


def test_single_battle_log_file(tmp_path, capsys):
    log = tmp_path / "one.jsonl"
    code, stdout, _ = run(
        [
            "battle",
            str(DUEL),
            "--seed",
            "3",
            "--log",
            str(log),
            "--out",
            str(tmp_path),
            "--no-plots",
            "--no-progress",
        ],
        capsys,
    )
    assert code == 0 and log.exists() and f"log: {log}" in stdout
    assert log.read_text().splitlines()[0].startswith('{"seq":0,"round":0,"type":"match_start"')


def test_compare_two_rulesets_reports_the_difference(tmp_path, capsys):
    argv = [
        "battle",
        str(DUEL),
        "-n",
        "2",
        "--compare",
        "aff",
        "gurps",
        "--red",
        "aggressive",
        "--blue",
        "aggressive",
    ]
    code, stdout, _ = run(
        [*argv, "--out", str(tmp_path), "--no-plots", "--no-progress", "--workers", "1"], capsys
    )
    assert code == 0
    # gurps paired against the baseline, aff (the first arm), on the same two seeds
    assert "paired against the baseline 'aff'" in stdout and "McNemar exact" in stdout
    assert [line.split()[:2] for line in stdout.splitlines() if line.startswith("gurps ")] == [["gurps", "2"]]
    with open(tmp_path / "summary.csv", newline="") as fh:
        summary = {(r["variant"], r["side"]): r for r in csv.DictReader(fh)}
    assert summary[("gurps", "red")]["baseline"] == "aff" and summary[("gurps", "red")]["pairs"] == "2"
    assert summary[("aff", "red")]["diff"] == "" and summary[("gurps", "blue")]["p_holm"] == ""
    with open(tmp_path / "battles.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["variant"], r["ruleset"], r["seed"], r["side"]) for r in rows] == [
        (rs, rs, seed, side) for rs in ("aff", "gurps") for seed in "12" for side in ("red", "blue")
    ]
    # Each ruleset's own mechanics are counted in its rows and left empty in the other's.
    assert {r["ripostes"] != "" for r in rows if r["ruleset"] == "aff"} == {True}
    assert {r["ripostes"] for r in rows if r["ruleset"] == "gurps"} == {""}


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--red", "nobody"], "unknown AI policy 'nobody'"),
        (["--ruleset", "chess"], "unknown ruleset 'chess'"),
        (["-n", "0"], "-n: the number of battles must be at least 1"),
        (["--policy", "green=random"], "no side 'green'"),
        (["--policy", "red"], "not KEY=VALUE"),
        (["--option", "no_such_option=1"], "--option"),
        (["-n", "2", "--log", "x.jsonl"], "FILE.jsonl keeps one battle"),
        (["--compare", "aff", "nothing.yaml"], "neither a ruleset"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, extra, needle):
    code, _, err = run(["battle", str(DUEL), "--out", str(tmp_path / "o"), "--no-progress", *extra], capsys)
    assert code == 2
    assert needle in err
    assert len(err.strip().splitlines()) == 1, err  # one line, no usage dump, no traceback
    assert not (tmp_path / "o" / "battles.csv").exists()


def test_missing_scenario_exits_2(tmp_path, capsys):
    code, _, err = run(["battle", str(tmp_path / "none.yaml"), "--out", str(tmp_path)], capsys)
    assert code == 2 and "no such file" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_out_dir_exits_2(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    code, _, err = run(["battle", str(DUEL), "--out", str(ro / "x")], capsys)
    assert code == 2 and "cannot write" in err


def test_out_dir_that_is_a_file_exits_2(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    code, _, err = run(["battle", str(DUEL), "--out", str(f / "sub"), "--no-progress"], capsys)
    assert code == 2 and "cannot write to" in err


def test_invariant_violation_exits_1_naming_seed_and_step(tmp_path, capsys, monkeypatch):
    from game.tools import invariants

    monkeypatch.setattr(
        invariants, "check", lambda match: ["[ap-negative] vasco: made up"] if match.commands else []
    )
    argv = ["battle", str(DUEL), "-n", "2", "--seed", "4", "--check-invariants", "--workers", "1"]
    code, _, err = run([*argv, "--out", str(tmp_path), "--no-progress"], capsys)
    assert code == 1
    assert "battle seed 4 step 1: invariant violated: [ap-negative] vasco: made up" in err
    assert not (tmp_path / "battles.csv").exists()


def test_dask_missing_is_a_clear_error(tmp_path, capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # as if the extra were not installed
    code, _, err = run(
        ["battle", str(DUEL), "--dask", "local", "--out", str(tmp_path), "--no-progress"], capsys
    )
    assert code == 2 and "pip install 'skirmish-tabletop-sim[distributed]'" in err
