"""Compiled kernels (numba): where their machine code is cached, and what the first compile says.

Contract:

- :func:`setup` runs once per process, when this module is imported; every module that
  defines cached numba kernels (:mod:`game.geometry.jit`, :mod:`game.movement._kernels`)
  imports it before decorating them. It sets numba's cache folder to :func:`cache_dir_for`'s
  choice and listens to numba's compile events.
- :func:`cache_dir_for` chooses the folder: ``NUMBA_CACHE_DIR`` if the user set it; else
  numba's default (``__pycache__`` next to each kernel module: ``None``) when the installed
  package can be written; else, for a read-only install, the user's cache folder
  ``$XDG_CACHE_HOME/skirmish/numba`` (``~/.cache/skirmish/numba``), so each user compiles
  once, not every run; else a per-user folder in the system's temporary directory.
  :func:`cache_description` says which, in words (and that the installation is read-only
  when that is why the user's folder is used).
- The first time in a process that numba *compiles* one of skirmish's kernels (the cache
  holds no machine code for it: a new install, another numba, an edited kernel), one line
  goes to stderr before the compile starts: ``skirmish: compiling geometry and path kernels,
  once, about N s (cache: ...)``. N is the last full compile measured on this machine
  (:func:`record_compile`, written by ``skirmish warmup``), else :data:`ESTIMATE_S`.
  Loading kernels from the cache says nothing.
- :func:`compile_seconds` is the wall time spent compiling skirmish kernels in this process
  (outermost compiles only), :func:`compiled_kernels` how many were compiled.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

#: Seconds a full compile took on the reference machine (2 cores, shared with other work:
#: ``skirmish warmup`` on a fresh install), said before the first compile when this machine
#: has not measured its own yet.
ESTIMATE_S = 35
#: Modules whose numba functions are skirmish's kernels.
KERNEL_PACKAGES = ("game.",)
#: The installed package folder (``game``'s parent holds it).
PACKAGE_DIR = Path(__file__).resolve().parents[1]

_state: dict[str, Any] = {
    "setup": False,
    "read_only": False,
    "told": False,
    "depth": 0,
    "start": 0.0,
    "seconds": 0.0,
    "n": 0,
}


def user_cache_root(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/skirmish``, or ``~/.cache/skirmish``."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".cache")
    return Path(base) / "skirmish"


def can_write(path: Path) -> bool:
    """Whether a file can be created in ``path`` (made if missing); tried, not guessed from modes."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def cache_dir_for(
    package_dir: Path,
    environ: Mapping[str, str] | None = None,
    writable: Callable[[Path], bool] = can_write,
) -> Path | None:
    """numba's cache folder for kernels installed in ``package_dir`` (None: numba's default,
    ``__pycache__`` next to each module); see the module docstring for the order."""
    env = os.environ if environ is None else environ
    if env.get("NUMBA_CACHE_DIR"):
        return Path(env["NUMBA_CACHE_DIR"])
    if writable(package_dir / "geometry" / "__pycache__"):
        return None
    user = user_cache_root(env) / "numba"
    if writable(user):
        return user
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"skirmish-numba-{uid}"


def cache_description() -> str:
    """Where the kernels' machine code is cached, in words."""
    import numba

    config: Any = numba.config  # no stubs: its settings are set at runtime
    if config.CACHE_DIR:
        return str(config.CACHE_DIR) + (" (the installation is read-only)" if _state["read_only"] else "")
    return f"{PACKAGE_DIR}{os.sep}*{os.sep}__pycache__"


def _record_path() -> Path:
    return user_cache_root() / "compile-seconds.json"


def estimate_seconds() -> int:
    """Seconds a full compile is expected to take here (see the module docstring)."""
    try:
        data = json.loads(_record_path().read_text())
        return max(1, round(float(data["seconds"])))
    except (OSError, ValueError, KeyError, TypeError):
        return ESTIMATE_S


def record_compile(seconds: float) -> None:
    """Remember how long a full compile took on this machine (ignored if it cannot be written)."""
    try:
        path = _record_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"seconds": round(seconds, 1)}) + "\n")
    except OSError:
        pass


def compile_seconds() -> float:
    """Wall seconds spent compiling skirmish kernels in this process (outermost compiles)."""
    return float(_state["seconds"])


def compiled_kernels() -> int:
    """Skirmish kernels compiled (not loaded from the cache) in this process."""
    return int(_state["n"])


def _ours(event: Any) -> bool:
    dispatcher = (event.data or {}).get("dispatcher")
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
    return module.startswith(KERNEL_PACKAGES)


def _on_start(event: Any) -> None:
    if not _ours(event):
        return
    if not _state["told"]:
        _state["told"] = True
        print(
            f"skirmish: compiling geometry and path kernels, once, about {estimate_seconds()} s "
            f"(cache: {cache_description()})",
            file=sys.stderr,
            flush=True,
        )
    if _state["depth"] == 0:
        _state["start"] = time.perf_counter()
    _state["depth"] += 1
    _state["n"] += 1


def _on_end(event: Any) -> None:
    if not _ours(event):
        return
    _state["depth"] = max(0, _state["depth"] - 1)
    if _state["depth"] == 0:
        _state["seconds"] += time.perf_counter() - _state["start"]


def setup() -> None:
    """Choose numba's cache folder and listen to its compile events (once per process)."""
    if _state["setup"]:
        return
    _state["setup"] = True
    import numba
    from numba.core import event

    config: Any = numba.config  # no stubs: its settings are set at runtime
    if not config.CACHE_DIR:
        chosen = cache_dir_for(PACKAGE_DIR)
        if chosen is not None:
            config.CACHE_DIR = str(chosen)
            _state["read_only"] = True

    class _Listener(event.Listener):  # type: ignore[misc]  # numba has no stubs
        def on_start(self, ev: Any) -> None:
            _on_start(ev)

        def on_end(self, ev: Any) -> None:
            _on_end(ev)

    event.register("numba:compile", _Listener())


setup()
