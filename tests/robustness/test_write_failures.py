"""Writing can fail: a full disk, a read-only folder, a name that is not UTF-8 (issue 28).

The file systems are real: a small tmpfs filled up, the same tmpfs remounted read-only (root can
write anywhere else, whatever the permissions say). Where the machine allows no mount the tests
are skipped, saying so. Every failure must be one line naming the path and the reason, exit 2,
no traceback, the older outputs intact and no temp file left.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.robustness.cli_run import run

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios" / "duel.yaml"
QUIET = ("--no-progress", "--no-plots")


def _mount(where: Path, size: str) -> bool:
    where.mkdir(parents=True, exist_ok=True)
    if sys.platform != "linux" or shutil.which("mount") is None:
        return False
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True
    )
    return done.returncode == 0


def _umount(where: Path) -> None:
    subprocess.run(["umount", "-l", str(where)], capture_output=True)


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A real 1 MiB tmpfs (skipped where this machine cannot mount one)."""
    where = tmp_path / "fs"
    if not _mount(where, "1m"):
        pytest.skip("cannot mount a tmpfs here (not root, or no mount in this container)")
    try:
        yield where
    finally:
        _umount(where)


def _fill(fs: Path, leave: int) -> None:
    """Fill ``fs`` up to ``leave`` bytes free (a few KiB more or less: tmpfs counts pages)."""
    free = os.statvfs(fs).f_bavail * os.statvfs(fs).f_frsize
    with open(fs / "ballast", "wb") as fh:
        fh.write(b"\0" * max(0, free - leave))
        fh.flush()
        try:
            while os.statvfs(fs).f_bavail * os.statvfs(fs).f_frsize > leave:
                fh.write(b"\0" * 4096)
                fh.flush()
        except OSError:
            pass


def _readonly(fs: Path) -> None:
    done = subprocess.run(["mount", "-o", "remount,ro", str(fs)], capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot remount the tmpfs read-only here")


def _temps(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob(".*") if p.name.endswith(".tmp") or ".skirmish-write-test" in p.name]


def _one_line(code: int, out: str, err: str, path: Path, why: str) -> None:
    assert code == 2 and "Traceback" not in err, out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and why in lines[0], err


def _whole_battles(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    per_seed: dict[str, int] = {}
    for r in rows:
        per_seed[r["seed"]] = per_seed.get(r["seed"], 0) + 1
    assert all(n == 2 for n in per_seed.values()), per_seed  # never half a battle
    return rows


def test_a_full_disk_is_one_line_and_keeps_the_older_run(small_fs: Path, tmp_path: Path) -> None:
    out, logs = small_fs / "o", small_fs / "l"
    code, _, err = run("battle", str(DUEL), "-n", "2", "--out", str(out), "--log", str(logs), *QUIET)
    assert code == 0, err
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    _fill(small_fs, 2048)
    code, stdout, err = run(
        "battle", str(DUEL), "-n", "8", "--seed", "40", "--out", str(out), "--log", str(logs), *QUIET
    )
    _one_line(code, stdout, err, small_fs, "No space left on device")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # the older run, untouched
    assert not _temps(small_fs)


def test_a_disk_that_fills_mid_run_keeps_whole_battles_and_resumes(small_fs: Path, tmp_path: Path) -> None:
    out = small_fs / "o"
    args = ("battle", str(DUEL), "-n", "30", "--seed", "3", "--workers", "1", "--out", str(out), *QUIET)
    _fill(small_fs, 16 * 1024)  # room for a few battles' rows, not thirty
    code, stdout, err = run(*args)
    _one_line(code, stdout, err, out / "battles.csv", "No space left on device")
    kept = _whole_battles(out / "battles.csv")
    assert 0 < len(kept) < 60 and not _temps(small_fs)
    (small_fs / "ballast").unlink()  # space again: the run goes on where it stopped
    code, _, err = run(*args, "--resume")
    assert code == 0, err
    reference = tmp_path / "ref"
    code, _, err = run(
        "battle", str(DUEL), "-n", "30", "--seed", "3", "--workers", "1", "--out", str(reference), *QUIET
    )
    assert code == 0, err
    assert (out / "battles.csv").read_bytes() == (reference / "battles.csv").read_bytes()


def test_a_full_disk_under_a_save_keeps_the_older_save(small_fs: Path) -> None:
    from game.scenario import load_scenario
    from game.tools.saves import load_match, save_match
    from game.tools.session import Session, Setup

    match = Setup(seed=1).build(load_scenario(DUEL))
    try:
        slot = save_match(match, small_fs / "slot.json")
        before = slot.read_bytes()
        Session(match, "random").play(steps=30)
        _fill(small_fs, 0)
        with pytest.raises(OSError) as info:
            save_match(match, slot)
        assert info.value.filename == str(slot) and "No space left" in str(info.value)
    finally:
        match.close()
    assert slot.read_bytes() == before and not _temps(small_fs)
    load_match(slot).close()


def test_a_read_only_folder_is_one_line_for_every_writer(small_fs: Path) -> None:
    code, _, err = run("battle", str(DUEL), "-n", "1", "--out", str(small_fs / "o"), *QUIET)
    assert code == 0, err
    before = {p.name: p.read_bytes() for p in (small_fs / "o").iterdir()}
    _readonly(small_fs)
    cases = [
        (("battle", str(DUEL), "-n", "2", "--out", str(small_fs / "o"), *QUIET), small_fs / "o"),
        (
            ("battle", str(DUEL), "-n", "1", "--out", "elsewhere", "--log", str(small_fs / "logs"), *QUIET),
            small_fs,
        ),
        (("render", str(DUEL), "--out", str(small_fs / "x.png")), small_fs / "x.png"),
        (
            (
                "import-tiled",
                str(ROOT / "scenarios" / "maps" / "crossroads.tmj"),
                "--out",
                str(small_fs / "x.yaml"),
            ),
            small_fs,
        ),
        (("sweep", str(DUEL), "-n", "1", "--out", str(small_fs / "s"), *QUIET), small_fs / "s"),
    ]
    for args, path in cases:
        code, out, err = run(*args)
        _one_line(code, out, err, path, "Read-only file system")
    assert {p.name: p.read_bytes() for p in (small_fs / "o").iterdir()} == before


def test_f5_to_a_read_only_folder_says_so_in_the_window(small_fs: Path) -> None:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from game.render.window import App, init_video
    from game.scenario import load_scenario
    from game.tools.session import Setup

    init_video(pygame)
    _readonly(small_fs)
    app = App(
        Setup(seed=1).build(load_scenario(DUEL)),
        {"red": "human", "blue": "human"},
        save_path=small_fs / "slot.json",
        screen=pygame.Surface((1180, 720)),
    )
    try:
        app.save()
        assert app.ui.message_error and "Read-only file system" in app.ui.message
        assert str(small_fs / "slot.json") in app.ui.message
    finally:
        app.close()


# --------------------------------------------------------------------------- names that are not UTF-8
NOT_UTF8 = os.fsdecode(b"caf\xe9")  # Latin-1 bytes: not UTF-8


def test_a_log_name_that_is_not_utf8_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run("battle", str(DUEL), "-n", "1", "--log", f"{NOT_UTF8}.jsonl", "--out", "o", *QUIET)
    assert code == 2 and "Traceback" not in err and "is not valid UTF-8" in err, out + err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "o" / "battles.csv").exists()


def test_a_scenario_and_out_folder_named_in_latin1_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    text = DUEL.read_text().replace("name: Duel in the square\n", "")
    (tmp_path / f"{NOT_UTF8}.yaml").write_text(text)
    code, out, err = run("battle", f"{NOT_UTF8}.yaml", "-n", "2", "--out", NOT_UTF8, "--log", "logs", *QUIET)
    assert code == 0 and "Traceback" not in err, out + err
    rows = _whole_battles(tmp_path / NOT_UTF8 / "battles.csv")
    assert rows[0]["scenario"] == "caf\ufffd" and rows[0]["variant"] == "caf\ufffd"
    code, out, err = run("replay", "logs/battle-1.jsonl")
    assert code == 0 and "OK" in out, out + err
    code, out, err = run("check", f"{NOT_UTF8}.yaml")
    assert code == 0 and "Traceback" not in err
