"""Worker processes: they die with their parent, and a user's policy plays in one of its own.

Contract:

- :func:`worker_start` ``(parent)`` is the first thing every worker process runs (the batch's
  process pool, the processes below): it ignores SIGINT (Ctrl-C reaches the parent only, which
  stops the workers itself), asks the kernel to kill it when its parent dies, even by
  ``kill -9`` (Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)``; elsewhere a thread watching the
  parent's pid), and closes its copies of the parent's folder locks
  (:func:`game.tools.outlock.close_inherited`). No worker outlives the run.
- :func:`run_isolated` ``(jobs, workers, play)`` plays battles whose sides include a user
  policy, each in a fresh process forked for it (at most ``workers`` at once): whatever the
  user's code does there (loop, ``sys.exit``, ``os._exit``, print, read stdin, change the
  program's own modules, leak memory) ends at most its own battle. Its standard streams are
  ``/dev/null``, it leads a process group of its own (what the policy starts there is killed
  with the group when the battle ends); the CPU-time limit per decision is the job's
  ``policy_timeout``
  (:mod:`game.ai.guard`, hard mode). The parent also times each call of user code by the wall
  clock (:func:`wall_limit`: a call blocked in ``sleep``, ``input`` or a lock uses no CPU) and
  kills the process of one that takes longer. It yields ``(index, row)`` in completion order;
  a battle that fails yields ``(index, {"error": message})``: the message names the seed, the
  policy, the unit, the decision and the round, and what happened (its exception, its stop,
  the exit status of the process it ended). A scenario problem (bad input, not a failed
  battle) is raised. Closing the generator (Ctrl-C, a failure elsewhere) kills the processes
  still playing.
- :func:`probe` ``(spec, options)`` loads a user policy and makes it in a throwaway process (the
  same limits): the program that checks a command line never runs the user's code itself, so a
  file that loops, exits or kills its process while loading is one located line
  (:class:`~game.ai.errors.PolicyLoadError`), never a hung or vanished run.
- Fork only: where ``fork`` is missing (Windows) the battles play in this process and the probe
  loads in it, with the CPU limit but without the process boundary.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from game.ai import guard

#: ``prctl`` option: the signal a process gets when its parent dies.
PR_SET_PDEATHSIG = 1
#: How often the parent looks at its children's calls of user code (seconds).
TICK = 0.2


def can_fork() -> bool:
    return "fork" in mp.get_all_start_methods()


# --------------------------------------------------------------------------- dying with the parent
def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)


def die_with_parent(parent: int) -> None:
    """End this process when ``parent`` dies, however it dies (see the module docstring)."""
    done = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            done = libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
        except (OSError, AttributeError):
            done = False
    if not done:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="parent-watch").start()
    if os.getppid() != parent:  # the parent died before we asked
        os._exit(1)


def worker_start(parent: int) -> None:
    """What every worker process does first (see the module docstring)."""
    from game.tools.outlock import close_inherited

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler
    die_with_parent(parent)
    close_inherited()


def _silence() -> None:
    """Standard streams to /dev/null: a policy's prints and reads touch nothing of the run's."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - for the life of the process
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    sys.stderr = sys.stdout


def wall_limit(cpu: float | None) -> float:
    """Wall-clock seconds one call of user code may take before its process is killed."""
    return 2 * (cpu if cpu is not None else guard.DEFAULT_SECONDS) + 5.0


# --------------------------------------------------------------------------- one battle per process
@dataclass
class _Child:
    index: int
    job: Any
    proc: Any
    conn: Connection
    slot: guard.Slot
    message: Any = None
    killed: str = ""


def _play_in_child(
    play: Callable[[Any], dict[str, Any]], job: Any, conn: Connection, slot: guard.Slot, parent: int
) -> None:
    worker_start(parent)
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)  # a group of its own: what the policy starts is ended with it
    _silence()
    guard.limit(getattr(job, "policy_timeout", None) or guard.DEFAULT_SECONDS)
    guard.harden(slot)
    try:
        reply: tuple[str, Any] = ("row", play(job))
    except BaseException as e:  # everything: the parent must hear how the battle ended
        reply = _reply_for(e)
    try:
        conn.send(reply)
    except BaseException:  # an unpicklable row: say so instead
        with contextlib.suppress(BaseException):
            conn.send(("error", "the battle's result could not be sent back"))
    finally:
        os._exit(0)  # no atexit, no finally of the parent's copied stack


def _reply_for(e: BaseException) -> tuple[str, Any]:
    from game.ai.errors import PolicyFailed
    from game.core.errors import SkirmishError
    from game.tools.failures import BattleFailed

    if isinstance(e, (PolicyFailed, BattleFailed)):
        return "error", str(e)
    if isinstance(e, SkirmishError):  # a scenario or option problem: bad input for the whole run
        return "input", f"{type(e).__name__}\n{e}"
    text = str(e).splitlines()[0] if str(e) else ""
    return "error", f"{type(e).__name__}: {text}" if text else type(e).__name__


def _about(what: dict[str, Any]) -> str:
    """``policy 'x.py:f' (vasco's turn decision, round 3)`` from a slot (or a vaguer phrase)."""
    policy = what.get("policy")
    if not policy:
        return "the battle"
    kind = what.get("kind")
    if kind in ("load", "make"):
        return f"policy {policy!r} (while {'loading' if kind == 'load' else 'making'} it)"
    return f"policy {policy!r} ({what.get('unit')}'s {kind} decision, round {what.get('round')})"


def _death(child: _Child, exitcode: int | None, seed: int) -> str:
    _, what = child.slot.read()
    who = _about(what)
    limit = getattr(child.job, "policy_timeout", None) or guard.DEFAULT_SECONDS
    if child.killed:
        how = child.killed
    elif exitcode == guard.EXIT_TIMEOUT:
        how = f"took more than {limit:g} s of CPU time, ignored the stop and was ended with its process"
    elif exitcode is not None and exitcode == -int(getattr(signal, "SIGXCPU", 24)):
        how = f"took more than {limit:g} s of CPU time without returning to Python; its process was ended"
    elif exitcode is not None and exitcode < 0:
        how = f"ended its worker process (signal {-exitcode})"
    else:
        how = f"ended its worker process (exit status {exitcode}): a policy may not end the program"
    return f"battle seed {seed}: {who} {how}"


def run_isolated(
    jobs: Sequence[Any], workers: int, play: Callable[[Any], dict[str, Any]]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Play ``jobs`` each in a process of its own (see the module docstring).

    Raises:
        SkirmishError: a battle's scenario or options were refused (bad input).
    """
    if not can_fork():  # pragma: no cover - Windows
        for i, job in enumerate(jobs):
            try:
                yield i, play(job)
            except BaseException as e:
                kind, message = _reply_for(e)
                if kind == "input":
                    raise
                yield i, {"error": message}
        return
    ctx = mp.get_context("fork")
    parent = os.getpid()
    gc.collect()
    gc.freeze()  # the heap every child shares: its pages are not copied by the collector's writes
    upcoming = iter(enumerate(jobs))
    running: dict[int, _Child] = {}
    try:
        while True:
            while len(running) < workers:
                nxt = next(upcoming, None)
                if nxt is None:
                    break
                i, job = nxt
                recv, send = ctx.Pipe(duplex=False)
                slot = guard.Slot()
                proc = ctx.Process(target=_play_in_child, args=(play, job, send, slot, parent), daemon=True)
                proc.start()
                send.close()
                running[proc.sentinel] = _Child(i, job, proc, recv, slot)
            if not running:
                return
            ready = wait([c.conn for c in running.values()] + list(running), timeout=TICK)
            for c in list(running.values()):
                if c.conn in ready and c.message is None:
                    try:
                        c.message = c.conn.recv()
                    except (EOFError, OSError):
                        c.message = None
            now = time.monotonic()
            for key, c in list(running.items()):
                if c.message is None and c.proc.is_alive():
                    since, _ = c.slot.read()
                    limit = wall_limit(getattr(c.job, "policy_timeout", None))
                    if since and now - since > limit:
                        c.killed = f"did not return within {limit:g} s (wall clock; its process was ended)"
                        c.proc.kill()
                    continue
                c.proc.join()
                _end_group(c.proc.pid)
                if c.message is None:  # it may have written and ended since wait() returned
                    c.message = _last_words(c.conn)
                del running[key]
                yield _outcome(c)
    finally:
        for c in running.values():
            with contextlib.suppress(Exception):
                c.proc.kill()
        for c in running.values():
            with contextlib.suppress(Exception):
                c.proc.join(5)
            _end_group(c.proc.pid)
            _close(c)


def _end_group(pid: int | None) -> None:
    """Kill what a battle's process left running in its process group (programs its policy started)."""
    if pid is not None:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)


def _last_words(conn: Connection) -> Any:
    """The message a process that ended left in its pipe, or None."""
    try:
        return conn.recv() if conn.poll() else None
    except (EOFError, OSError):
        return None


def _close(c: _Child) -> None:
    with contextlib.suppress(Exception):
        c.conn.close()
    with contextlib.suppress(Exception):
        c.slot.close()


def _outcome(c: _Child) -> tuple[int, dict[str, Any]]:
    seed = int(getattr(c.job, "seed", 0))
    try:
        msg = c.message
        if isinstance(msg, tuple) and len(msg) == 2:
            kind, body = msg
            if kind == "row" and isinstance(body, dict):
                return c.index, body
            if kind == "error":
                return c.index, {"error": str(body)}
            if kind == "input":
                from game.core.errors import SkirmishError

                raise SkirmishError(str(body).partition("\n")[2])
        return c.index, {"error": _death(c, c.proc.exitcode, seed)}
    finally:
        _close(c)


# --------------------------------------------------------------------------- checking a policy
def _probe_in_child(
    spec: str, options: dict[str, Any], conn: Connection, slot: guard.Slot, parent: int
) -> None:
    worker_start(parent)
    _silence()
    guard.limit(guard.LOAD_SECONDS)
    guard.harden(slot)
    try:
        from game.ai import get_policy

        get_policy(spec, **options)
        reply: tuple[str, str] = ("ok", "")
    except BaseException as e:
        from game.ai.errors import PolicyOptionError

        reply = ("option" if isinstance(e, PolicyOptionError) else "load", str(e))
    with contextlib.suppress(BaseException):
        conn.send(reply)
    os._exit(0)


def probe(spec: str, options: dict[str, Any] | None = None) -> None:
    """Load and make the user policy ``spec`` in a throwaway process (see the module docstring).

    Raises:
        PolicyLoadError: it does not load (or loops, exits, is killed while loading).
        PolicyOptionError: it does not take these options.
    """
    from game.ai import get_policy
    from game.ai.errors import PolicyLoadError, PolicyOptionError

    if not can_fork():  # pragma: no cover - Windows
        get_policy(spec, **(options or {}))
        return
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    slot = guard.Slot()
    proc = ctx.Process(
        target=_probe_in_child, args=(spec, dict(options or {}), send, slot, os.getpid()), daemon=True
    )
    proc.start()
    send.close()
    child = _Child(0, None, proc, recv, slot)
    limit = wall_limit(guard.LOAD_SECONDS)
    try:
        deadline = time.monotonic() + limit
        while child.message is None and proc.is_alive():
            if wait([recv, proc.sentinel], timeout=TICK) and recv.poll():
                with contextlib.suppress(EOFError, OSError):
                    child.message = recv.recv()
            if time.monotonic() > deadline:
                child.killed = f"took more than {limit:g} s (wall clock) to load; its process was ended"
                proc.kill()
                break
        if child.message is None and recv.poll(0.1):
            with contextlib.suppress(EOFError, OSError):
                child.message = recv.recv()
        proc.join(5)
        msg = child.message
        if isinstance(msg, tuple) and msg[0] == "ok":
            return
        if isinstance(msg, tuple) and msg[0] == "option":
            raise PolicyOptionError(msg[1])
        if isinstance(msg, tuple) and msg[0] == "load":
            raise PolicyLoadError(msg[1])
        how = child.killed or (
            f"ended its process (exit status {proc.exitcode})"
            if (proc.exitcode or 0) >= 0
            else f"ended its process (signal {-(proc.exitcode or 0)})"
        )
        raise PolicyLoadError(
            f"policy {spec!r}: {how} while loading; a policy's file may not end the program"
        )
    finally:
        if proc.is_alive():
            proc.kill()
            proc.join(5)
        _close(child)
