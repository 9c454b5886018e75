"""A user policy cannot stop, hang or corrupt a batch (issue 28).

Each hostile policy plays ``closest_first`` except in the battle of seed 2, where it misbehaves
at its first decision: loops, ignores its stop, exits, kills its process, sleeps, reads stdin,
prints, changes the match, returns junk, raises what it should not. The batch of four battles
(two workers, or one) must finish: three ordinary rows, one error row naming the policy, the
unit and the decision, exit status 1, no traceback, nothing printed on stdout by the policy,
and no process left behind.
"""

from __future__ import annotations

import csv
import os
import textwrap
import time
from pathlib import Path

import pytest

from game.ai import guard
from tests.robustness.cli_run import run

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios" / "duel.yaml"
EXAMPLE = ROOT / "examples" / "policies" / "closest_first.py"
TIMEOUT = "0.5"

TEMPLATE = """\
import os, re, signal, sys, time
from closest import closest_first


def policy(view, decision, rng):
    if view._m.seed == 2:
{body}
    return closest_first(view, decision, rng)
"""

#: case -> (what the policy does on seed 2, what the error row's reason says, or says one of)
HOSTILE: dict[str, tuple[str, str | tuple[str, ...]]] = {
    "loops": ("while True:\n    pass", "took more than 0.5 s of CPU time"),
    "ignores-its-stop": (
        "while True:\n    try:\n        while True:\n            pass\n"
        "    except BaseException:\n        pass",
        "ignored the stop and was ended with its process",
    ),
    "sys-exit": ("sys.exit(0)", "called sys.exit(0): a policy may not end the program"),
    "os-exit": ("os._exit(0)", "ended its worker process (exit status 0)"),
    "kills-itself": ("os.kill(os.getpid(), signal.SIGKILL)", "ended its worker process (signal 9)"),
    "sleeps": ("time.sleep(10**6)", "did not return within 6 s (wall clock"),
    "reads-stdin": ("input()", "EOFError"),
    # RLIMIT_CPU or the wall clock, whichever comes first on a busy machine
    "stuck-in-c": ("sum(range(10**15))", ("without returning to Python", "did not return within 6 s")),
    "catastrophic-regex": ('re.match(r"(a|aa)+$", "a" * 64 + "b")', "took more than 0.5 s of CPU time"),
    "changes-the-match": (
        "view._m.set_status(decision.unit, 'dead', True, 'hostile')",
        "changed the match it was shown",
    ),
    "returns-junk": ("return object()", "returned an illegal command"),
    "returns-a-subclass": (
        "cmd = decision.options[0].command\n"
        "class Sneaky(type(cmd)):\n    pass\n"
        "return Sneaky(**{f: getattr(cmd, f) for f in cmd.__dataclass_fields__})",
        "returned an illegal command",
    ),
    "keyboard-interrupt": ("raise KeyboardInterrupt", "raised KeyboardInterrupt"),
    "own-base-exception": (
        "class Boom(BaseException):\n    pass\nraise Boom('no')",
        "raised Boom: no",
    ),
    "generator-exit": ("raise GeneratorExit", "raised GeneratorExit"),
}


def _policy(folder: Path, body: str) -> None:
    (folder / "closest.py").write_text(EXAMPLE.read_text())
    (folder / "hostile.py").write_text(TEMPLATE.format(body=textwrap.indent(body, " " * 8)))


def _children() -> set[int]:
    """Pids of this process's live children (procfs), to see that none is left behind."""
    me = os.getpid()
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == me and fields[0] != "Z":
                out.add(int(entry.name))
    return out


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs procfs to look for processes left behind")
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_policy_breaks_only_its_own_battle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    monkeypatch.chdir(tmp_path)
    body, says = HOSTILE[case]
    _policy(tmp_path, body)
    before = _children()
    started = time.monotonic()
    code, out, err = run(
        "battle", str(DUEL), "-n", "4", "--red", "hostile.py:policy", "--workers", "2",
        "--policy-timeout", TIMEOUT, "--out", "o", "--log", "logs", "--no-plots", "--no-progress",
    )  # fmt: skip
    took = time.monotonic() - started
    assert code == 1 and "Traceback" not in err, out + err
    assert took < 60, f"the batch took {took:.0f} s"
    with (tmp_path / "o" / "battles.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    by_seed = {r["seed"]: r for r in rows if r["side"] == "red"}
    assert sorted(by_seed) == ["1", "2", "3", "4"]
    assert [by_seed[s]["result"] for s in "134"] == [by_seed[s]["result"] for s in "134"]
    assert all(by_seed[s]["result"] in ("win", "loss", "draw") for s in "134"), rows
    broken = by_seed["2"]
    alternatives = (says,) if isinstance(says, str) else says
    assert broken["result"] == "error" and any(a in broken["reason"] for a in alternatives), broken["reason"]
    assert broken["reason"].startswith("battle seed 2") and "hostile.py" in broken["reason"]
    if case not in ("returns-junk", "returns-a-subclass", "changes-the-match"):
        assert "'s turn decision, round 1" in broken["reason"] or "decision, round" in broken["reason"]
    assert "error: 1 of 4 battles ended in an error" in err
    assert "Duel in the square" in out and "x" * 100 not in out
    assert _children() <= before, "a worker process was left behind"


def test_prints_and_writes_to_the_terminal_reach_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _policy(tmp_path, "print('x' * 10000); os.write(1, b'RAW'); os.write(2, b'RAW'); sys.stderr.write('ERR')")
    code, out, err = run(
        "battle", str(DUEL), "-n", "2", "--red", "hostile.py:policy", "--workers", "1",
        "--out", "o", "--no-plots", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    assert "xxxx" not in out and "RAW" not in out + err and "ERR" not in err


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("while True:\n    pass", "took more than 1 s of CPU time"),
        ("import os\nos._exit(0)", "ended its process (exit status 0) while loading"),
        ("import sys\nsys.exit(3)", "called sys.exit(3)"),
        ("raise SystemExit", "called sys.exit(None)"),
        (
            "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
            "ended its process (signal 9) while loading",
        ),
    ],
    ids=["loops", "os-exit", "sys-exit", "system-exit", "kills-itself"],
)
def test_a_policy_file_that_misbehaves_while_loading_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str, says: str
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(guard, "LOAD_SECONDS", 1.0)  # the probe's process inherits it
    (tmp_path / "bad.py").write_text(body + "\n\ndef policy(view, decision, rng):\n    return None\n")
    started = time.monotonic()
    code, out, err = run(
        "battle", str(DUEL), "-n", "2", "--red", "bad.py:policy", "--out", "o", "--no-progress"
    )
    assert code == 2 and not out and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1 and says in err and "bad.py" in err, err
    assert time.monotonic() - started < 30
    assert not (tmp_path / "o" / "battles.csv").exists()


def test_a_looping_policy_in_the_window_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(guard._STATE, "seconds", 0.5)
    _policy(tmp_path, "while True:\n    pass")
    (tmp_path / "script.txt").write_text("wait\n" * 40)
    code, _, err = run(
        "play", str(DUEL), "--headless", "--script", "script.txt", "--red", "hostile.py:policy",
        "--blue", "random", "--seed", "2",
    )  # fmt: skip
    assert code == 2 and "took more than 0.5 s of CPU time" in err and "Traceback" not in err, err


def test_user_policy_batches_do_not_run_on_dask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _policy(tmp_path, "pass")
    code, _, err = run(
        "battle", str(DUEL), "-n", "2", "--red", "hostile.py:policy", "--dask", "local", "--out", "o"
    )
    assert code == 2 and "--dask: battles of user policies" in err


def _running(cmdline: bytes) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes().replace(b"\0", b" ").strip() == cmdline:
                    state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                    if state != "Z":
                        found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs procfs")
def test_a_program_a_policy_starts_ends_with_its_battle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    marker = f"{os.getpid() % 1000 + 1000}.25"  # sleep's argument, unique to this test run
    _policy(tmp_path, f"import subprocess\nsubprocess.Popen(['sleep', '{marker}'])")
    code, _, err = run(
        "battle", str(DUEL), "-n", "3", "--red", "hostile.py:policy", "--workers", "1",
        "--out", "o", "--no-plots", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    deadline = time.monotonic() + 5
    while _running(f"sleep {marker}".encode()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(f"sleep {marker}".encode()), "the program the policy started outlived its battle"
