"""The first compile of the kernels talks, and a read-only install caches per user (issue 15)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from game.core import compiled
from game.core.compiled import ESTIMATE_S, cache_dir_for, user_cache_root
from game.tools.warmup import KERNEL_MODULES

REPO = Path(__file__).resolve().parents[2]
PKG = REPO / "game"


def test_the_cache_folder_is_the_users_when_the_install_is_read_only(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home")}
    writable = {"package": True, "user": True}

    def can(path: Path) -> bool:
        return writable["package"] if PKG in path.parents else writable["user"]

    assert cache_dir_for(PKG, env, can) is None  # numba's default: __pycache__ next to the code
    writable["package"] = False
    assert cache_dir_for(PKG, env, can) == tmp_path / "home" / ".cache" / "skirmish" / "numba"
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    assert cache_dir_for(PKG, env, can) == tmp_path / "xdg" / "skirmish" / "numba"
    writable["user"] = False  # no home either: a per-user folder under the temporary directory
    got = cache_dir_for(PKG, env, can)
    assert got is not None and got.name.startswith("skirmish-numba-")
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")  # the user's choice wins
    assert cache_dir_for(PKG, env, can) == tmp_path / "mine"
    assert user_cache_root({"XDG_CACHE_HOME": "/x"}) == Path("/x/skirmish")


KERNEL = """
import numba

@numba.njit(cache=True)
def probe(x):
    return x + 1.0
"""
PROBE = """
import sys
from game.core import compiled
compiled.KERNEL_PACKAGES = ("probe_kernel",)  # counted as one of skirmish's kernels
import probe_kernel
print("compiling", file=sys.stderr, flush=True)
probe_kernel.probe(1.0)
print(compiled.compiled_kernels(), round(compiled.compile_seconds(), 3) > 0)
"""


def _probe(tmp_path: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    (tmp_path / "probe_kernel.py").write_text(KERNEL)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    env["PYTHONPATH"] = f"{REPO}{os.pathsep}{tmp_path}"
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path
    )


def test_the_first_compile_says_so_before_compiling_and_a_cached_one_says_nothing(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _probe(tmp_path, cache)
    assert first.returncode == 0, first.stderr
    lines = first.stderr.strip().splitlines()
    notice = f"skirmish: compiling geometry and path kernels, once, about {ESTIMATE_S} s (cache: {cache})"
    assert lines == ["compiling", notice]  # said once, when the compile starts
    assert first.stdout.split() == ["1", "True"]
    again = _probe(tmp_path, cache)
    assert again.returncode == 0 and again.stderr.strip() == "compiling"  # loaded: silent
    assert again.stdout.split() == ["0", "False"]


def test_the_estimate_is_this_machines_last_full_compile(tmp_path: Path) -> None:
    record = tmp_path / "xdg" / "skirmish" / "compile-seconds.json"
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"seconds": 71.6}))
    done = _probe(tmp_path, tmp_path / "cache")
    assert "once, about 72 s" in done.stderr


def test_warmup_knows_every_module_that_defines_kernels() -> None:
    defining = set()
    for path in PKG.rglob("*.py"):
        tree = ast.parse(path.read_text())
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        if names & {"numba", "game.geometry.jit"} or any(m.startswith("numba.") for m in names):
            rel = path.relative_to(REPO).with_suffix("")
            defining.add(".".join(rel.parts))
    helpers = {"game.core.compiled", "game.geometry.jit", "game.tools.warmup"}
    assert defining - helpers == set(KERNEL_MODULES)


def test_compiled_is_set_up_once_per_process() -> None:
    compiled.setup()
    compiled.setup()
    import numba

    assert numba.config.CACHE_DIR == "" or Path(numba.config.CACHE_DIR).is_absolute()
