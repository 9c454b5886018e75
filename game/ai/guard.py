"""Running a user's code: a CPU-time limit per call, and nothing it does gets out but one error.

A user policy (``FILE.py:FUNCTION``, :mod:`game.ai.loader`) is the one piece of code skirmish
runs that it did not write. Whatever it does (loop forever, ``sys.exit``, raise
``KeyboardInterrupt``, swallow every exception, print) must end as a
:class:`~game.ai.errors.PolicyFailed` naming the policy and what it was deciding, or end its own
worker process, never the program or the batch.

Contract:

- :func:`limit` ``(seconds)`` sets the process's CPU-time limit per call of user code
  (``--policy-timeout``; default :data:`DEFAULT_SECONDS`; loading a file or making a class gets
  at least :data:`LOAD_SECONDS`; None: no limit) and :func:`harden` makes the process a battle's
  worker (:mod:`game.tools.isolate`): there a call that ignores its stop is ended with the
  process, and a shared :class:`Slot` tells the parent what is being decided.
- :func:`running` ``(what)`` is the context every call of user code runs in (making the policy,
  each decision, loading its file): a ``SIGPROF`` timer (``setitimer(ITIMER_PROF)``, CPU time
  of the process) raises :class:`PolicyTimeout` in the user's frame when the limit is spent;
  it is a ``BaseException``, so ``except Exception`` in the user's code does not swallow it.
  In a worker the timer then repeats: a call that catches the stop anyway and runs on is
  ended with its process (exit status :data:`EXIT_TIMEOUT`) once it has taken twice its limit,
  and ``RLIMIT_CPU`` ends one stuck in C code that never returns to Python (``SIGXCPU``).
  The timer is used only in the main thread (Python delivers signals there); elsewhere the
  call runs without a limit.
- :func:`contained` turns what escapes a call into one line: ``PolicyTimeout`` becomes "took
  more than N s of CPU time", any other ``BaseException`` (``SystemExit``, ``GeneratorExit``,
  ``KeyboardInterrupt`` raised by the code itself in a worker, a class of its own) "raised
  X", located in the user's code by the caller.
- Built-in policies never run here: they are trusted and a batch's hot path.
"""

from __future__ import annotations

import contextlib
import json
import math
import mmap
import os
import signal
import struct
import threading
import time
from collections.abc import Iterator
from typing import Any

#: Exit status of a worker whose user code ignored its stop (it caught PolicyTimeout and ran on).
EXIT_TIMEOUT = 86
#: CPU seconds a decision may take unless :func:`limit` says otherwise (``--policy-timeout``).
DEFAULT_SECONDS = 10.0
#: CPU seconds loading a policy's file or making its class may take at least (imports of big
#: libraries take a while, once).
LOAD_SECONDS = 30.0
#: After the first stop, the timer fires again every this fraction of the limit; the second
#: fire in a worker ends the process.
_REPEAT = 1.0


class PolicyTimeout(BaseException):
    """Raised in user code whose call spent its CPU-time limit (a BaseException on purpose)."""


class Slot:
    """A small shared memory a worker writes what its user code is deciding into, and since
    when (``time.monotonic``), for its parent to name (and time out) a call that never returns.

    Made before the fork (an anonymous shared map), read by the parent, written by the child.
    """

    SIZE = 1024
    _HEAD = struct.Struct("=dI")

    def __init__(self) -> None:
        self.mem = mmap.mmap(-1, self.SIZE)

    def enter(self, what: dict[str, Any]) -> None:
        data = json.dumps(what, ensure_ascii=True).encode()[: self.SIZE - self._HEAD.size]
        self.mem[self._HEAD.size : self._HEAD.size + len(data)] = data
        self.mem[: self._HEAD.size] = self._HEAD.pack(time.monotonic(), len(data))

    def leave(self) -> None:
        self.mem[: self._HEAD.size] = self._HEAD.pack(0.0, 0)

    def read(self) -> tuple[float, dict[str, Any]]:
        """(monotonic time the current call started or 0.0, what it decides)."""
        since, n = self._HEAD.unpack(self.mem[: self._HEAD.size])
        if not since or n > self.SIZE:
            return 0.0, {}
        try:
            what = json.loads(self.mem[self._HEAD.size : self._HEAD.size + n].decode())
        except ValueError:
            what = {}
        return since, what if isinstance(what, dict) else {}

    def close(self) -> None:
        self.mem.close()


class _State:
    seconds: float | None = DEFAULT_SECONDS
    hard: bool = False
    slot: Slot | None = None
    fired: int = 0
    current: float | None = None  # the limit of the call running now (for the message)


_STATE = _State()


def limit(seconds: float | None) -> None:
    """The CPU seconds one call of user code may take in this process (None: no limit)."""
    _STATE.seconds = seconds


def harden(slot: Slot | None) -> None:
    """Make this process a battle's worker: a call ignoring its stop ends the process, and
    ``slot`` (if any) tells the parent what each call decides."""
    _STATE.hard = True
    _STATE.slot = slot
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a SIGXCPU end writes no core file


def seconds() -> float | None:
    """The current per-call limit."""
    return _STATE.seconds


def is_worker() -> bool:
    """Whether this process is a battle's worker (:func:`harden`)."""
    return _STATE.hard


def _on_sigprof(signum: int, frame: Any) -> None:
    _STATE.fired += 1
    if _STATE.fired == 1 or not _STATE.hard:
        raise PolicyTimeout()
    # The first stop was caught and the code ran on for as long again: end it with the process
    # (its slot still says what it was deciding, for the parent).
    os._exit(EXIT_TIMEOUT)


def _cpu_now() -> float:
    t = os.times()
    return t.user + t.system


@contextlib.contextmanager
def running(what: dict[str, Any]) -> Iterator[None]:
    """Run the body (a call of user code) under the limits (see the module docstring).

    ``what`` (policy, unit, kind, round) goes to the worker's slot for its parent.
    """
    secs = _STATE.seconds
    if secs is not None and what.get("kind") in ("load", "make"):
        secs = max(secs, LOAD_SECONDS)
    timed = secs is not None and threading.current_thread() is threading.main_thread()
    _STATE.current = secs
    slot = _STATE.slot
    if slot is not None:
        slot.enter(what)
    old_handler: Any = None
    old_cpu: Any = None
    if timed:
        assert secs is not None
        _STATE.fired = 0
        old_handler = signal.signal(signal.SIGPROF, _on_sigprof)
        signal.setitimer(signal.ITIMER_PROF, secs, secs * _REPEAT)
        if _STATE.hard:
            old_cpu = _cpu_ceiling(secs)
    try:
        yield
    finally:
        if timed:
            signal.setitimer(signal.ITIMER_PROF, 0.0, 0.0)
            signal.signal(signal.SIGPROF, old_handler if old_handler is not None else signal.SIG_DFL)
            if old_cpu is not None:
                _restore_ceiling(old_cpu)
        if slot is not None:
            slot.leave()


def _cpu_ceiling(secs: float) -> Any:
    """Set RLIMIT_CPU a few limits above the CPU used so far (the end for code stuck in C);
    returns the limit to restore."""
    try:
        import resource

        old = resource.getrlimit(resource.RLIMIT_CPU)
        ceiling = math.ceil(_cpu_now() + 3 * secs + 2)
        hard = old[1]
        if hard != resource.RLIM_INFINITY and ceiling > hard:
            return None
        resource.setrlimit(resource.RLIMIT_CPU, (ceiling, hard))
        return old
    except (ImportError, ValueError, OSError):
        return None


def _restore_ceiling(old: Any) -> None:
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource

        resource.setrlimit(resource.RLIMIT_CPU, old)


def contained(e: BaseException) -> str:
    """What escaped a call of user code, as the middle of a one-line error (see the module docstring)."""
    if isinstance(e, PolicyTimeout):
        secs = _STATE.current
        return f"took more than {secs:g} s of CPU time (--policy-timeout)" if secs else "was stopped"
    if isinstance(e, SystemExit):
        return f"called sys.exit({e.code!r}): a policy may not end the program"
    text = str(e).splitlines()[0] if str(e) else ""
    return f"raised {type(e).__name__}" + (f": {text}" if text else "")
