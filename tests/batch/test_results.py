"""Tidy results: one row per battle and side, read back whole, kept on Ctrl-C, resumed exactly."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from game.tools import batch, results
from tests.batch.conftest import DUEL, FIVE, ROOT
from tests.batch.test_cli_battle import run


def _planned(rulesets=("gurps", "ap-pool"), seeds=(1, 2)) -> list[results.Planned]:
    out = []
    for rs in rulesets:
        spec = batch.load_spec(str(DUEL), rs)
        for job in batch.plan(
            seeds=seeds,
            scenario=str(DUEL),
            spec=spec,
            ruleset=rs,
            policies={"red": "aggressive", "blue": "cautious"},
            variant=rs,
        ):
            out.append(results.Planned(job, rs, spec.name, rs, tuple(spec.sides)))
    return out


def test_tidy_rows_read_back_give_the_battle_rows(tmp_path: Path) -> None:
    planned = _planned()
    rows = batch.run_batch([p.job for p in planned], progress=False)
    header = results.columns(["gurps", "ap-pool"])
    tidy = [t for p, row in zip(planned, rows, strict=True) for t in results.side_rows(row, p)]
    assert len(tidy) == 2 * len(rows) and {t["side"] for t in tidy} == {"red", "blue"}
    assert not any(c.endswith(("_red", "_blue")) for c in header)  # no side names in column names
    path = tmp_path / "r.csv"
    path.write_text(results.to_text(tidy, header, with_header=True))
    back = results.read_results(path)
    assert back.header == header and back.dropped_lines == 0
    for p, row, rows_back in zip(planned, rows, back.battles, strict=True):
        # the tidy rows hold every cell of the battle row but the profiles (profiles.csv has them)
        assert results.battle_row(rows_back, p) == {k: v for k, v in row.items() if k != "profiles"}
        assert results.rows_key(rows_back) == results.job_key(p)


def test_results_load_with_pandas_without_reshaping(tmp_path: Path, capsys) -> None:
    argv = ["battle", str(DUEL), "-n", "2", "--compare", "aff", "gurps", "--red", "aggressive"]
    code, _, err = run(
        [*argv, "--out", str(tmp_path), "--no-plots", "--no-progress", "--workers", "1"], capsys
    )
    assert code == 0, err
    path = tmp_path / "battles.csv"
    try:
        import pandas as pd
    except ImportError:  # the same checks on the plain CSV
        with open(path, newline="") as fh:
            rows = list(csv.DictReader(fh))
        assert len(rows) == 8 and {r["side"] for r in rows} == {"red", "blue"}
        assert sorted({int(r["won"]) for r in rows}) <= [0, 1]
        assert {(r["variant"], r["seed"]) for r in rows} == {(v, s) for v in ("aff", "gurps") for s in "12"}
        return
    df = pd.read_csv(path)
    assert len(df) == 8 and set(df["side"]) == {"red", "blue"}
    assert (
        df["won"].dtype.kind == "i" and df["seed"].dtype.kind == "i" and df["damage_dealt"].dtype.kind == "i"
    )
    rates = df.groupby(["variant", "side"])["won"].mean()  # a win rate per variant and side, as it is
    assert set(rates.index) == {(v, s) for v in ("aff", "gurps") for s in ("red", "blue")}
    per_battle = df.groupby(["variant", "seed"])
    assert (per_battle["won"].sum() <= 1).all() and (per_battle.size() == 2).all()
    assert df.loc[df["ruleset"] == "aff", "ripostes"].notna().all()
    assert df.loc[df["ruleset"] == "gurps", "ripostes"].isna().all()  # not a gurps mechanic


def test_a_torn_last_line_and_a_half_written_battle_are_dropped(tmp_path: Path) -> None:
    planned = _planned(("ap-pool",), seeds=(1, 2, 3))
    rows = batch.run_batch([p.job for p in planned], progress=False)
    header = results.columns(["ap-pool"])
    tidy = [results.side_rows(row, p) for p, row in zip(planned, rows, strict=True)]
    text = results.to_text([t for b in tidy[:2] for t in b], header, with_header=True)
    third = results.to_text(tidy[2], header, with_header=False)
    path = tmp_path / "r.csv"
    path.write_text(text + third.splitlines(keepends=True)[0] + third[:40])  # one row whole, one torn
    sides = {results.job_key(p)[:-1]: 2 for p in planned}
    back = results.read_results(path, sides)
    assert back.dropped_lines == 2
    assert [results.rows_key(b) for b in back.battles] == [results.job_key(p) for p in planned[:2]]


def _csv_text(folder: Path) -> str:
    return (folder / "battles.csv").read_text()


def test_interrupted_battle_keeps_its_work_and_resume_finishes_it(tmp_path, capsys, monkeypatch) -> None:
    argv = ["battle", str(DUEL), "-n", "5", "--swap-sides", "--red", "aggressive", "--blue", "cautious"]
    argv += ["--no-plots", "--no-progress", "--workers", "1"]
    code, _, _ = run([*argv, "--out", str(tmp_path / "whole")], capsys)
    assert code == 0
    played = []
    real = batch.run_battle

    def interrupting(job: batch.BattleJob) -> dict:
        if len(played) == 4:
            raise KeyboardInterrupt  # Ctrl-C in the middle of the fifth battle
        played.append(job.seed)
        return real(job)

    monkeypatch.setattr(batch, "run_battle", interrupting)
    code, stdout, err = run([*argv, "--out", str(tmp_path / "cut")], capsys)
    assert code == 130
    assert "interrupted: 4 of 10 battles finished and kept" in err and "--resume" in err
    assert "4 battles" in stdout  # the summary of the finished ones
    assert _csv_text(tmp_path / "cut").count("\n") == 1 + 8 and (tmp_path / "cut" / "summary.csv").exists()
    monkeypatch.setattr(batch, "run_battle", real)
    code, _, err = run([*argv, "--out", str(tmp_path / "cut"), "--resume"], capsys)
    assert code == 0, err
    assert "resumed: 4 of 10 battles" in err
    assert _csv_text(tmp_path / "cut") == _csv_text(tmp_path / "whole")
    assert (tmp_path / "cut" / "summary.csv").read_text() == (tmp_path / "whole" / "summary.csv").read_text()


def test_resume_refuses_other_parameters_and_unplanned_battles(tmp_path, capsys) -> None:
    argv = ["battle", str(DUEL), "-n", "2", "--red", "aggressive", "--out", str(tmp_path), "--no-plots"]
    argv += ["--no-progress", "--workers", "1"]
    assert run(argv, capsys)[0] == 0
    code, _, err = run([*argv, "--blue", "random", "--resume"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert 'variants[0].policies.blue was "cautious", now "random"' in err
    code, _, err = run([*argv[:3], "1", *argv[4:], "--resume"], capsys)  # -n 1: seed 2 is not planned
    assert code == 2 and "holds a battle this command does not plan" in err
    code, _, err = run([*argv[:3], "3", *argv[4:], "--resume"], capsys)  # a larger -n adds seeds
    assert code == 0 and "resumed: 2 of 3 battles" in err


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_ctrl_c_with_worker_processes_then_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    """SIGINT to the command (its workers ignore it) after the first rows appear; exit 130."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), SDL_VIDEODRIVER="dummy", MPLBACKEND="Agg")
    base = [sys.executable, "-m", "game", "battle", str(FIVE), "-n", "40", "--red", "cautious"]
    base += ["--blue", "aggressive", "--no-plots", "--no-progress", "--workers", "2"]
    cut = tmp_path / "cut"
    proc = subprocess.Popen(
        [*base, "--out", str(cut)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # A suite started in the background by a shell without job control (`make test &`)
        # ignores SIGINT, and a child inherits that: Python then never raises KeyboardInterrupt.
        # The command is tested as a user's terminal starts it, with SIGINT at its default.
        preexec_fn=_default_sigint,
    )
    csv_path = cut / "battles.csv"
    deadline = time.monotonic() + 300  # a loaded CI host: worker start-up can take minutes
    sent = False
    while proc.poll() is None and time.monotonic() < deadline:
        if csv_path.exists() and csv_path.read_text().count("\n") >= 3:  # the header and a battle
            proc.send_signal(signal.SIGINT)
            sent = True
            break
        time.sleep(0.02)
    _, err = proc.communicate(timeout=300)
    rows = csv_path.read_text().count("\n") - 1 if csv_path.exists() else 0
    assert sent, f"no battle row within the deadline (exit {proc.returncode}, {rows} rows): {err.decode()}"
    assert proc.returncode == 130, f"{rows} rows when interrupted: {err.decode()}"
    assert b"interrupted:" in err
    kept = csv_path.read_text().count("\n") - 1
    assert 2 <= kept < 80 and kept % 2 == 0  # 40 battles: the signal lands mid-run even on a busy host
    done = subprocess.run([*base, "--out", str(cut), "--resume"], env=env, capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    whole = tmp_path / "whole"
    done = subprocess.run([*base, "--out", str(whole)], env=env, capture_output=True, timeout=300)
    assert done.returncode == 0
    assert _csv_text(cut) == _csv_text(whole)


def test_every_tidy_column_is_documented() -> None:
    assert set(results.LEADING + results.TRAILING) <= set(results.COLUMN_DOC)
    doc = (ROOT / "docs" / "batch.md").read_text()
    for name in results.COLUMN_DOC:
        assert f"`{name}`" in doc, f"docs/batch.md does not describe the column {name}"
