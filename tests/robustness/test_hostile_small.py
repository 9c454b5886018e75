"""The small hostile-input fixes of issue 18: compare labels, stale temp files, CSV formulas,
invisible characters in ids, a duplicate merge key."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from game.cli.battle import compare_labels
from game.core.events import STALE_TEMP_SECONDS, atomic_write_text
from game.scenario.yaml_source import parse_yaml
from game.tools.batch import read_csv, rows_to_csv, write_csv
from tests.robustness.cli_run import run

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios" / "duel.yaml"


def test_compare_labels_are_distinct_file_names() -> None:
    assert compare_labels("a/duel.yaml", "b/street.yaml") == ("duel", "street")
    assert compare_labels("/x/old/duel.yaml", "/x/new/duel.yaml") == ("old-duel", "new-duel")
    assert compare_labels("/x/d/duel.yaml", "/y/d/duel.yaml") == ("duel-1", "duel-2")
    for label in compare_labels("../../etc/pa ss.yaml", "/tmp/../pa ss.yaml"):
        assert "/" not in label and ".." not in label and " " not in label


def test_compare_of_two_files_of_one_name_stays_in_its_folders(tmp_path: Path) -> None:
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        shutil.copy(DUEL, tmp_path / d / "duel.yaml")
    logs, out = tmp_path / "logs", tmp_path / "out"
    code, _, err = run(
        "battle",
        "--compare",
        str(tmp_path / "a" / "duel.yaml"),
        str(tmp_path / "b" / "duel.yaml"),
        "-n",
        "1",
        "--log",
        str(logs),
        "--out",
        str(out),
        "--no-plots",
    )
    assert code == 0, err
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert written == [
        "a/duel.yaml",
        "b/duel.yaml",
        "logs/a-duel/battle-1.jsonl",
        "logs/b-duel/battle-1.jsonl",
        "out/battles.csv",
        "out/profiles.csv",
        "out/run.json",
        "out/summary.csv",
    ]


def test_stale_temp_files_are_removed_and_fresh_ones_kept(tmp_path: Path) -> None:
    target = tmp_path / "save.json"
    stale = tmp_path / ".save.json.abc123.tmp"
    fresh = tmp_path / ".save.json.def456.tmp"
    other = tmp_path / ".other.json.abc123.tmp"
    for f in (stale, fresh, other):
        f.write_text("half a save")
    old = time.time() - STALE_TEMP_SECONDS - 60
    os.utime(stale, (old, old))
    os.utime(other, (old, old))
    atomic_write_text(target, "{}")
    assert target.read_text() == "{}"
    assert not stale.exists() and fresh.exists() and other.exists()


def test_the_folder_is_fsynced_after_the_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[bool] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        import stat

        synced.append(stat.S_ISDIR(os.fstat(fd).st_mode))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    atomic_write_text(tmp_path / "f.txt", "x")
    assert synced == [False, True]  # the file, then its folder


def test_csv_text_cells_that_look_like_formulas_are_neutralised(tmp_path: Path) -> None:
    rows = [
        {"scenario": '=HYPERLINK("http://x")', "side": "+red", "a": "-x", "b": "@sum", "n": -3, "f": -1.5},
        {"scenario": "duel", "side": "red", "a": "a-b", "b": "", "n": 2, "f": 0.5},
    ]
    text = rows_to_csv(rows)
    assert "'=HYPERLINK" in text and ",'+red,'-x,'@sum,-3,-1.5" in text
    back = read_csv(write_csv(rows, tmp_path / "battles.csv"))
    assert back[1] == {"scenario": "duel", "side": "red", "a": "a-b", "b": "", "n": "2", "f": "0.5"}


@pytest.mark.parametrize(
    ("char", "name"),
    [
        ("\u202e", "RIGHT-TO-LEFT OVERRIDE"),
        ("\u202d", "LEFT-TO-RIGHT OVERRIDE"),
        ("\u200b", "ZERO WIDTH SPACE"),
        ("\u2066", "LEFT-TO-RIGHT ISOLATE"),
        ("\u200d", "ZERO WIDTH JOINER"),
    ],
)
def test_ids_with_invisible_or_bidi_characters_are_refused(tmp_path: Path, char: str, name: str) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(DUEL.read_text().replace("id: vasco", f'id: "vas{char}co"'), encoding="utf-8")
    code, _, err = run("check", str(f))
    assert code == 2
    why = "expected printable text without invisible or bidi characters"
    assert f"units.0.id: {why}, got U+{ord(char):04X} ({name})" in err


def test_a_duplicate_merge_key_is_refused() -> None:
    doc = parse_yaml("a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: *a\n  <<: *b\n  z: 3\n", "f.yaml")
    assert [(p.line, p.path) for p in doc.problems] == [(5, "c")]
    assert "duplicate merge key '<<' (first given on line 4)" in doc.problems[0].message
    assert parse_yaml("a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: [*a, *b]\n", "f.yaml").problems == []
