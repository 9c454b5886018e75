"""``benchmarks/sidebyside.py``: ``--ref`` checkouts made beside a repository and reused, the
rulesets read from the checkouts' registries, the table and the last line, bad input.

No timing is asserted (benchmarks are never timed tests): only that the script plays what it
says and compares the logs."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "sidebyside.py"


def _module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("sidebyside", SCRIPT)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["sidebyside"] = mod  # its dataclass looks its module up
    spec.loader.exec_module(mod)
    return mod


def _git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def test_ref_checkouts_are_made_at_the_commit_reused_and_dropped(tmp_path: Path) -> None:
    sbs = _module()
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / ".gitignore").write_text("__pycache__/\n")
    (repo / "a.txt").write_text("one\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "one")
    first = _git(repo, "rev-parse", "HEAD")
    (repo / "a.txt").write_text("two\n")
    _git(repo, "commit", "-qam", "two")
    root = tmp_path / "cache"

    old = sbs.checkout_ref(repo, "HEAD~1", root)
    assert old == (root / first).resolve()
    assert (old / "a.txt").read_text() == "one\n"
    # A compiled cache (ignored files) survives: the next run reuses the checkout as it is.
    (old / "__pycache__").mkdir()
    (old / "__pycache__" / "kernel.nbi").write_text("x")
    assert sbs.checkout_ref(repo, first[:7], root) == old
    assert (old / "__pycache__" / "kernel.nbi").exists()
    # A checkout someone changed is made again, clean.
    (old / "a.txt").write_text("edited\n")
    assert sbs.checkout_ref(repo, first, root) == old
    assert (old / "a.txt").read_text() == "one\n"

    new = sbs.checkout_ref(repo, "HEAD", root)
    assert new != old and (new / "a.txt").read_text() == "two\n"
    sbs.drop_checkout(repo, old)
    assert not old.exists() and str(old) not in _git(repo, "worktree", "list")
    with pytest.raises(sbs.BenchError, match=r"--ref nope: no such commit") as err:
        sbs.checkout_ref(repo, "nope", root)
    assert err.value.status == 2


def test_seed_lists() -> None:
    sbs = _module()
    assert sbs._seeds("1-3,7") == [1, 2, 3, 7]
    assert sbs._seeds("4") == [4]
    for bad in ("", "a", "3-x", "-1"):
        with pytest.raises(Exception, match="not a seed list"):
            sbs._seeds(bad)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "SDL_VIDEODRIVER": "dummy"},
    )


def test_a_tree_against_itself_plays_identical_battles() -> None:
    """The rulesets come from the registry (here narrowed to two), one row each plus 'all',
    CPU per battle and per command, and identical logs for the same code."""
    got = _run(
        "--old", ".", "--new", ".", "--scenario", "duel", "--policies", "aggressive,cautious",
        "--seeds", "1-2", "--rounds", "1", "--ruleset", "aff", "--ruleset", "ap-pool",
    )  # fmt: skip
    assert got.returncode == 0, got.stderr
    lines = got.stdout.strip().splitlines()
    rows = [ln for ln in lines if ln.startswith("| ")][1:]
    assert [r.split(" | ")[0] for r in rows] == ["| aff", "| ap-pool", "| all"]
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[1] == ("4" if cells[0] == "all" else "2")  # battles
        assert cells[2] == cells[3] and float(cells[2]) > 0  # same commands per battle
        assert cells[-1] == "identical"
    assert re.fullmatch(
        r"sidebyside: old [\d.]+ ms/battle \(\d+ us/command\), new [\d.]+ ms/battle \(\d+ us/command\), "
        r"ratio [\d.]+x per battle, [\d.]+x per command, logs identical",
        lines[-1],
    ), lines[-1]


def test_bad_input_is_one_line_and_status_2() -> None:
    for args, want in (
        (["--ref", "no-such-ref-xyz"], "sidebyside: --ref no-such-ref-xyz: no such commit"),
        (["--old", ".", "--scenario", "nowhere"], "sidebyside: --scenario nowhere: no such scenario"),
        (["--old", ".", "--ruleset", "chess"], "sidebyside: --ruleset chess: not in both registries"),
        (["--old", ".", "--seeds", "x"], "not a seed list"),
    ):
        got = _run(*args)
        assert got.returncode == 2, (args, got.stderr)
        assert want in got.stderr, (args, got.stderr)
        assert got.stdout == ""
