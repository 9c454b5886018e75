"""Compile (or load) every numba kernel ahead of time: ``skirmish warmup``, and before a batch forks.

Contract:

- :func:`warm` imports the kernel modules (:data:`KERNEL_MODULES`; kernels with an explicit
  signature compile when imported) and plays :data:`STEPS` commands of every shipped scenario
  under every ruleset, seed 1, headless (the path kernels compile on their first call, for
  the argument types they meet, so playing is what reaches them), asks what the window asks
  besides (a move's exact reach, a threat map's cover), then calls the entry points battles
  reach only rarely with scalar arguments. A cold cache prints the
  one line of :mod:`game.core.compiled` before compiling. It returns a :class:`Warmup` (wall
  seconds, kernels compiled, compile seconds, the cache folder), records a full compile's
  time for the next estimate and writes this installation's stamp.
- :func:`is_warm` tells whether the stamp exists: it is keyed by the Python, numba and
  skirmish versions, the cache folder, and each kernel module's path, size and modification
  time (what numba's own cache index checks), so a new numba or an edited kernel is cold again.
- :func:`ensure_warm` warms unless :func:`is_warm`. ``skirmish battle`` calls it before it
  starts worker processes: the kernels compile once, in the parent, and forked workers inherit
  them (spawned ones load them from the cache) instead of each compiling its own.
"""

from __future__ import annotations

import hashlib
import importlib
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from game import __version__
from game.core import compiled
from game.core.shipped import shipped_scenarios

if TYPE_CHECKING:
    from game.tools.session import Session

#: Modules that define numba kernels (a test checks that no other module imports numba).
KERNEL_MODULES = (
    "game.geometry.envelope",
    "game.geometry.kernel.common",
    "game.geometry.kernel.pieces",
    "game.geometry.kernel.cover",
    "game.geometry.kernel.units",
    "game.geometry.kernel.assembly",
    "game.movement._kernels",
)
#: Commands played on each shipped scenario: enough to move, see and fight on every map.
STEPS = 80
#: Seed of the warm-up matches.
SEED = 1


@dataclass(frozen=True)
class Warmup:
    """What :func:`warm` did."""

    seconds: float
    compiled: int
    compile_seconds: float
    cache: str

    def __str__(self) -> str:
        if self.compiled:
            return (
                f"kernels ready: {self.compiled} compiled in {self.compile_seconds:.1f} s "
                f"({self.seconds:.1f} s in all), cached in {self.cache}"
            )
        return f"kernels ready: loaded from the cache in {self.seconds:.1f} s ({self.cache})"


def _stamp() -> Path:
    import numba

    parts = [sys.version, platform.machine(), numba.__version__, __version__, compiled.cache_description()]
    for name in KERNEL_MODULES:
        spec = importlib.util.find_spec(name)
        origin = Path(spec.origin) if spec is not None and spec.origin else None
        if origin is not None and origin.is_file():
            st = origin.stat()
            parts.append(f"{origin}:{st.st_size}:{st.st_mtime_ns}")
    key = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]
    return compiled.user_cache_root() / "kernels" / f"{key}.stamp"


def _window_queries(session: Session) -> None:
    """What the window asks besides the battle: the exact reach of a move, a threat map's cover."""
    import numpy as np

    view, decision = session.view, session.match.pending
    if decision is None:
        return
    uid = decision.unit
    view.reach(uid, 6.0)()
    if view.enemies(uid):
        x, y = view.pos(uid)
        view.exposure(uid).at(np.array([[x, y], [view.width / 2, view.height / 2]], dtype=np.float64))


def _scalar_calls() -> None:
    """Entry points that battles reach rarely with scalar arguments (a kernel per argument types)."""
    import numpy as np

    from game.movement.navmesh import point_segment_distance

    point_segment_distance(np.zeros(2), np.zeros(2), np.ones(2))


def _cache_hits() -> int:
    """Kernels of :data:`KERNEL_MODULES` loaded from the cache in this process."""
    from numba.core.dispatcher import Dispatcher

    hits = 0
    for name in KERNEL_MODULES:
        for value in vars(sys.modules[name]).values():
            if isinstance(value, Dispatcher):
                hits += sum(value.stats.cache_hits.values())
    return hits


def is_warm() -> bool:
    """Whether this installation's kernels were compiled and cached already (see the module docstring)."""
    try:
        return _stamp().is_file()
    except OSError:
        return False


def warm() -> Warmup:
    """Compile or load every kernel now (see the module docstring)."""
    t0 = time.perf_counter()
    before_n, before_s = compiled.compiled_kernels(), compiled.compile_seconds()
    for name in KERNEL_MODULES:
        importlib.import_module(name)
    from game.rules import RULESET_NAMES
    from game.tools.session import Session, Setup

    for path in shipped_scenarios().values():
        for ruleset in RULESET_NAMES:
            with Session.start(path, Setup(ruleset=ruleset, seed=SEED)) as session:
                session.play(steps=STEPS)
                _window_queries(session)
    _scalar_calls()
    result = Warmup(
        seconds=time.perf_counter() - t0,
        compiled=compiled.compiled_kernels() - before_n,
        compile_seconds=compiled.compile_seconds() - before_s,
        cache=compiled.cache_description(),
    )
    if result.compiled and _cache_hits() == 0:  # a full compile: the next estimate
        compiled.record_compile(result.seconds)
    try:
        stamp = _stamp()
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(str(result) + "\n")
    except OSError:
        pass
    return result


def ensure_warm() -> Warmup | None:
    """:func:`warm` unless :func:`is_warm`; None when nothing was needed."""
    return None if is_warm() else warm()
