"""Killed runs leave no process behind and resume to the very bytes of an uninterrupted run, and two
runs never share an output folder (issue 28).

Everything here is real: ``skirmish`` runs as a separate process, is killed with ``kill -9`` or
SIGTERM while its workers play, and its worker processes are looked for in ``/proc`` afterwards;
the second run on a folder is a second process started while the first plays.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "skirmish-5v5.yaml"
EXAMPLE = ROOT / "examples" / "policies" / "closest_first.py"

pytestmark = pytest.mark.skipif(
    not Path("/proc").is_dir() or sys.platform != "linux", reason="kills processes and reads /proc (Linux)"
)


def _cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "game", *args]


def _env() -> dict[str, str]:
    return {**os.environ, "SDL_VIDEODRIVER": "dummy", "PYTHONPATH": str(ROOT)}


def _children(pid: int) -> set[int]:
    """Live (not zombie) processes whose parent is ``pid``."""
    out = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.add(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _rows(csv: Path) -> int:
    try:
        return max(0, len(csv.read_bytes().splitlines()) - 1)
    except OSError:
        return 0


def _start(args: list[str], cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        _cmd(*args),
        cwd=cwd,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def _wait_for_rows(proc: subprocess.Popen[bytes], csv: Path, rows: int, limit: float = 120) -> None:
    deadline = time.monotonic() + limit
    while _rows(csv) < rows:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run wrote no rows in time"
        time.sleep(0.1)


#: Every output is compared: profiles.csv too, appended battle by battle as battles.csv is
#: (issue 26), so a run killed with kill -9 and resumed ends with the same file.
NOT_RESUMED: set[str] = set()


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name not in NOT_RESUMED
    }


def _args(out: Path, logs: Path, *extra: str, n: int = 16) -> list[str]:
    return [
        "battle", str(SCENARIO), "-n", str(n), "--seed", "5", "--workers", "2",
        "--out", str(out), "--log", str(logs), "--no-progress", *extra,
    ]  # fmt: skip


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, bytes]]:
    """The outputs of the same run played through without interruption."""
    folder = tmp_path_factory.mktemp("reference")
    done = subprocess.run(_cmd(*_args(Path("o"), Path("l"))), cwd=folder, env=_env(), capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    return {"o": _files(folder / "o"), "l": _files(folder / "l")}


@pytest.mark.parametrize("how", ["kill-9", "sigterm"])
def test_a_killed_battle_leaves_no_worker_and_resumes_byte_identical(
    tmp_path: Path, reference: dict[str, dict[str, bytes]], how: str
) -> None:
    out, logs = tmp_path / "o", tmp_path / "l"
    proc = _start(_args(Path("o"), Path("l")), tmp_path)  # relative: the CSV and run.json name them
    try:
        _wait_for_rows(proc, out / "battles.csv", 6)  # a few battles in, both workers busy
        workers = _children(proc.pid)
        assert len(workers) >= 2, workers
        proc.send_signal(signal.SIGKILL if how == "kill-9" else signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    if how == "sigterm":
        assert proc.returncode == 143 and b"interrupted: " in err and b"Traceback" not in err, err
    else:
        assert proc.returncode == -signal.SIGKILL
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [w for w in workers if _alive(w)], "worker processes outlived the run"
    (logs / ".battle-9.jsonl.abcd1234.tmp").write_text("half a log")  # what a killed writer leaves
    done = subprocess.run(
        _cmd(*_args(Path("o"), Path("l"), "--resume")), cwd=tmp_path, env=_env(), capture_output=True
    )
    assert done.returncode == 0, done.stderr.decode()
    assert _files(out) == reference["o"]
    assert _files(logs) == reference["l"]


def test_a_killed_batch_of_user_policies_leaves_no_process(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(EXAMPLE.read_text())
    out = tmp_path / "o"
    args = [
        "battle", str(SCENARIO), "-n", "40", "--workers", "2", "--red", "mine.py:closest_first",
        "--out", str(out), "--no-progress", "--no-plots",
    ]  # fmt: skip
    proc = _start(args, tmp_path)
    try:
        _wait_for_rows(proc, out / "battles.csv", 4)
        seen: set[int] = set()
        for _ in range(20):  # each battle's process lives for one battle: collect a few
            seen |= _children(proc.pid)
            time.sleep(0.05)
        proc.kill()
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in seen) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert seen and not [w for w in seen if _alive(w)]


def test_a_second_run_on_the_same_folder_refuses_and_the_first_finishes(tmp_path: Path) -> None:
    out = tmp_path / "o"
    first = _start(_args(out, tmp_path / "l1", n=150), tmp_path)  # long enough to outlast two refusals
    try:
        _wait_for_rows(first, out / "battles.csv", 2)
        started = time.monotonic()
        second = subprocess.run(
            _cmd(*_args(out, tmp_path / "l2")), cwd=tmp_path, env=_env(), capture_output=True, timeout=120
        )
        assert time.monotonic() - started < 60
        err = second.stderr.decode()
        assert second.returncode == 2 and f"--out: {out} is in use by pid {first.pid}" in err, err
        assert len(err.strip().splitlines()) == 1
        # the same --log folder under another --out is refused too
        third = subprocess.run(
            _cmd(*_args(tmp_path / "o3", tmp_path / "l1")),
            cwd=tmp_path,
            env=_env(),
            capture_output=True,
            timeout=120,
        )
        assert third.returncode == 2 and b"--log: " in third.stderr and b"is in use by pid" in third.stderr
        _, ferr = first.communicate(timeout=900)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0, ferr.decode()
    assert _rows(out / "battles.csv") == 150 * 2  # every battle: a row per side
    assert not (out / ".skirmish.lock").exists() and not (tmp_path / "o3").joinpath("battles.csv").exists()


def test_a_lock_left_by_a_killed_run_is_taken(tmp_path: Path) -> None:
    out = tmp_path / "o"
    proc = _start(_args(out, tmp_path / "l"), tmp_path)
    try:
        _wait_for_rows(proc, out / "battles.csv", 2)
        proc.kill()
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert (out / ".skirmish.lock").exists()  # left behind, but its lock died with the run
    done = subprocess.run(
        _cmd(*_args(out, tmp_path / "l", "--resume")),
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr.decode()


def _sweep(*extra: str) -> list[str]:
    return [
        "sweep", str(SCENARIO), "--ruleset", "aff,ap-pool", "-n", "8", "--seed", "2", "--workers", "2",
        "--out", "s", "--no-progress", *extra,
    ]  # fmt: skip


def test_a_killed_sweep_leaves_no_worker_and_resumes_byte_identical(tmp_path: Path) -> None:
    ref, run_dir = tmp_path / "ref", tmp_path / "run"
    ref.mkdir()
    run_dir.mkdir()
    done = subprocess.run(_cmd(*_sweep()), cwd=ref, env=_env(), capture_output=True, timeout=600)
    assert done.returncode == 0, done.stderr.decode()
    proc = _start(_sweep(), run_dir)
    try:
        _wait_for_rows(proc, run_dir / "s" / "results.csv", 6)
        workers = _children(proc.pid)
        proc.kill()
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert workers and not [w for w in workers if _alive(w)]
    done = subprocess.run(
        _cmd(*_sweep("--resume")), cwd=run_dir, env=_env(), capture_output=True, timeout=600
    )
    assert done.returncode == 0, done.stderr.decode()
    assert _files(run_dir / "s") == _files(ref / "s")
