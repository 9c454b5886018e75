"""``skirmish sweep``: the cross product on the same seeds, tidy results, summary, plots, resume."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from game.tools import batch
from game.tools import sweep as sw
from game.tools.stats import wilson
from tests.cli_capture import run

ROOT = Path(__file__).resolve().parents[2]
DUEL = str(ROOT / "scenarios" / "duel.yaml")
STREET = str(ROOT / "scenarios" / "street.yaml")
PNG = b"\x89PNG\r\n\x1a\n"


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


SWEEP = [
    "sweep",
    DUEL,
    "--ruleset",
    "gurps,ap-pool",
    "--red",
    "aggressive,cautious",
    "--blue",
    "random",
    "--option",
    "ground_retreat_roll=true,false",
    "-n",
    "2",
    "--seed",
    "7",
    "--workers",
    "1",
    "--no-progress",
]


def test_sweep_plays_the_cross_product_on_the_same_seeds(tmp_path: Path, capsys) -> None:
    code, out, err = run([*SWEEP, "--out", str(tmp_path)], capsys)
    assert code == 0, err
    rows = _rows(tmp_path / "results.csv")
    # gurps: 2 red policies x 2 option values; ap-pool has no such option: 2 red policies, once.
    reds = [r for r in rows if r["side"] == "red"]
    assert {(r["ruleset"], r["policy"], r["option.ground_retreat_roll"]) for r in reds} == {
        ("gurps", "aggressive", "true"),
        ("gurps", "aggressive", "false"),
        ("gurps", "cautious", "true"),
        ("gurps", "cautious", "false"),
        ("ap-pool", "aggressive", ""),
        ("ap-pool", "cautious", ""),
    }
    assert len(rows) == 6 * 2 * 2  # arms x seeds x sides
    for variant in {r["variant"] for r in rows}:
        mine = [r for r in rows if r["variant"] == variant]
        assert [(r["seed"], r["side"]) for r in mine] == [(s, side) for s in "78" for side in ("red", "blue")]
    gurps = [r for r in rows if r["ruleset"] == "gurps"]
    assert {r["options"] for r in gurps} == {"ground_retreat_roll=true", "ground_retreat_roll=false"}
    assert {r["policy"] for r in rows if r["side"] == "blue"} == {"random"}
    summary = _rows(tmp_path / "summary.csv")
    assert len(summary) == 6 * 2 and {r["side"] for r in summary} == {"red", "blue"}
    for r in summary:
        w = wilson(int(r["wins"]), int(r["battles"]))
        assert float(r["win_low"]) == pytest.approx(w.lo, abs=1e-6)
        assert float(r["win_high"]) == pytest.approx(w.hi, abs=1e-6)
    for factor in ("ruleset", "red", "ground_retreat_roll"):
        assert (tmp_path / f"win_rate_by_{factor}.png").read_bytes()[:8] == PNG
    assert not (tmp_path / "win_rate_by_blue.png").exists()  # blue does not vary
    assert "ground_retreat_roll" in out and "red wins" in out
    assert f"results: {tmp_path / 'results.csv'}" in out
    # The same battle as `skirmish battle` plays: the sweep's rows are batch rows.
    one = next(r for r in gurps if r["policy"] == "cautious" and r["option.ground_retreat_roll"] == "true")
    job = batch.plan(
        seeds=[int(one["seed"])],
        scenario=DUEL,
        policies={"red": "cautious", "blue": "random"},
        ruleset="gurps",
        options={"ground_retreat_roll": True},
    )[0]
    assert batch.run_battle(job)["final_hash"] == one["final_hash"]


def test_two_scenarios_and_swapped_sides(tmp_path: Path, capsys) -> None:
    argv = ["sweep", DUEL, STREET, "--ruleset", "ap-pool", "--red", "aggressive", "--blue", "cautious"]
    argv += ["-n", "1", "--swap-sides", "--workers", "1", "--no-progress", "--out", str(tmp_path)]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    rows = _rows(tmp_path / "results.csv")
    assert {r["variant"] for r in rows} == {"scenario=duel", "scenario=street"}
    assert {(r["swapped"], r["side"], r["policy"]) for r in rows if r["variant"] == "scenario=duel"} == {
        ("0", "red", "aggressive"),
        ("0", "blue", "cautious"),
        ("1", "red", "cautious"),
        ("1", "blue", "aggressive"),
    }
    assert (tmp_path / "win_rate_by_scenario.png").exists()
    assert {r["side"] for r in _rows(tmp_path / "summary.csv")} >= {"either"}  # per policy, swapped


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--option", "no_such=1,2"], "no ruleset of this sweep (gurps) has an option 'no_such'"),
        (
            ["--option", "ground_retreat_roll=maybe"],
            "ruleset gurps: option ground_retreat_roll cannot be 'maybe': "
            "expected ground_retreat_roll (true/false",
        ),
        (["--option", "ground_retreat_roll"], "is not KEY=V1,V2"),
        (["--red", "cautious,nobody"], "unknown AI policy 'nobody'"),
        (["--ruleset", "gurps,chess"], "unknown ruleset 'chess'"),
        (["-n", "0"], "at least 1"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path: Path, capsys, extra: list[str], needle: str) -> None:
    argv = ["sweep", DUEL, "--ruleset", "gurps", "--out", str(tmp_path / "o"), "--no-progress", *extra]
    code, _, err = run(argv, capsys)
    assert code == 2 and needle in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "o" / "results.csv").exists()


def test_interrupted_sweep_resumes_to_the_uninterrupted_results(tmp_path: Path, capsys, monkeypatch) -> None:
    code, _, _ = run([*SWEEP, "--no-plots", "--out", str(tmp_path / "whole")], capsys)
    assert code == 0
    real, played = batch.run_battle, []

    def interrupting(job: batch.BattleJob) -> dict:
        if len(played) == 5:
            raise KeyboardInterrupt
        played.append(job)
        return real(job)

    monkeypatch.setattr(batch, "run_battle", interrupting)
    code, _, err = run([*SWEEP, "--no-plots", "--out", str(tmp_path / "cut")], capsys)
    assert code == 130 and "interrupted: 5 of 12 battles finished and kept" in err
    monkeypatch.setattr(batch, "run_battle", real)
    code, _, err = run([*SWEEP, "--no-plots", "--out", str(tmp_path / "cut"), "--resume"], capsys)
    assert code == 0 and "resumed: 5 of 12" in err
    for name in ("results.csv", "summary.csv"):
        assert (tmp_path / "cut" / name).read_text() == (tmp_path / "whole" / name).read_text()


def test_split_values_keeps_brackets_and_quotes_whole() -> None:
    assert sw.split_values('a, b,[1,2],"x,y",,') == ["a", "b", "[1,2]", '"x,y"']


def test_by_factor_pools_the_arms_of_each_value() -> None:
    spec = type("S", (), {"sides": ("red", "blue")})()

    def arm(label: str, ruleset: str) -> sw.Arm:
        return sw.Arm(label, "", spec, ruleset, {}, {}, {"ruleset": ruleset, "red": "a"})

    arms = [arm("x", "gurps"), arm("y", "gurps"), arm("z", "aff")]
    rows = {"x": [{"winner": "red"}, {"winner": "blue"}], "y": [{"winner": "red"}], "z": [{"winner": "draw"}]}
    assert sw.varied(arms) == ["ruleset"]
    values, series = sw.by_factor(arms, rows, "ruleset")
    assert values == ["gurps", "aff"]
    assert [(p.k, p.n) for p in series["red"]] == [(2, 3), (0, 1)]
    assert [(p.k, p.n) for p in series["draws"]] == [(0, 3), (1, 1)]


def test_plot_ticks_show_paths_by_their_last_part_unless_ambiguous() -> None:
    from game.tools.sweep import tick_labels

    assert tick_labels(["/home/me/policies/mine.py:pick", "cautious"]) == ["mine.py:pick", "cautious"]
    assert tick_labels(["scenarios/duel.yaml", "maps/street.tmj"]) == ["duel.yaml", "street.tmj"]
    assert tick_labels(["a/duel.yaml", "b/duel.yaml"]) == ["a/duel.yaml", "b/duel.yaml"]
