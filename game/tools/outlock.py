"""One run per output folder: a lock that the kernel drops when its holder dies.

Contract:

- :func:`hold` ``(folder, what)`` is a context manager that takes the folder's lock file
  (:data:`LOCK_NAME`, an exclusive ``flock`` taken without waiting) for the run inside it, or
  raises :class:`FolderBusy` (a :class:`~game.core.errors.SkirmishError`: one line, exit 2)
  naming the folder and the process holding it (``pid`` and command, written in the lock file).
  Two ``skirmish battle --out SAME`` at once: the second refuses at once; nothing of the first's
  is touched.
- The kernel releases a ``flock`` when every descriptor of it is closed, so a holder killed
  with ``kill -9`` leaves no stale lock: the next run takes it. The lock file is removed when the
  run ends normally; one left by a killed run is empty of meaning (its lock is free) and reused.
  A removed-and-recreated lock file is detected (the inode taken must be the one at the path).
- Worker processes forked while the lock is held share its open file description;
  :func:`close_inherited` (called by every worker at start) closes their copies, so the lock
  lives exactly as long as the run's own process and its workers die with it.
- :func:`clear_temps` removes the temp files (``.NAME.<random>.tmp``, :func:`game.core.events
  .atomic_write_text`'s pattern) a killed writer left in a folder: safe only while holding the
  folder's lock, since no other run writes there then.
- Locks are POSIX ``flock``; where ``fcntl`` is missing (Windows) :func:`hold` does nothing.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from game.core.errors import SkirmishError

#: The lock file's name inside a locked folder.
LOCK_NAME = ".skirmish.lock"
#: File descriptors of the locks this process holds (closed in forked workers).
_HELD: set[int] = set()
#: The temp files :func:`game.core.events.atomic_write_text` (and the other atomic writers) make:
#: ``.`` + the target's name + ``.`` + mkstemp's 8 random characters + a suffix.
_TEMP = re.compile(r"^\..+\.[a-z0-9_]{8}(\.tmp|\.[A-Za-z0-9]{1,5})$|^\.skirmish-write-test\.[a-z0-9_]{8}$")


class FolderBusy(SkirmishError):
    """Another run holds the folder's lock."""


def _holder(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return "another skirmish run"
    return text.splitlines()[0][:200] if text else "another skirmish run"


@contextlib.contextmanager
def hold(folder: Path, what: str, name: str = LOCK_NAME) -> Iterator[None]:
    """Hold ``folder``'s lock while the body runs (see the module docstring).

    Args:
        folder: the output folder (created if missing).
        what: the option naming it in messages (``--out``, ``--log``).
        name: the lock file's name (another one locks one file of the folder, not all of it).

    Raises:
        FolderBusy: another process holds it.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no flock
        yield
        return
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise FolderBusy(
                f"{what}: {folder} is in use by {_holder(path)}; wait for it to finish, or give "
                "another folder"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # the holder removed it between our open and our lock: take the new one
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} ({' '.join(sys.argv[:3])[:120]})\n".encode(errors="replace"))
    except OSError:
        pass  # a full disk: the lock holds without the note
    _HELD.add(fd)
    try:
        yield
    finally:
        _HELD.discard(fd)
        with contextlib.suppress(OSError):
            path.unlink()  # before closing: whoever opens the old inode now sees it replaced
        os.close(fd)


def close_inherited() -> None:
    """Close this (forked) process's copies of its parent's lock descriptors."""
    for fd in list(_HELD):
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


def clear_temps(folder: Path, only: str | None = None) -> list[Path]:
    """Remove the temp files killed writers left in ``folder`` (only while holding its lock), or
    only those of the file named ``only`` (while holding that file's lock)."""
    removed: list[Path] = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return removed
    for p in entries:
        if only is not None and not p.name.startswith(f".{only}."):
            continue
        if not p.name.endswith(".lock") and _TEMP.match(p.name):
            with contextlib.suppress(OSError):
                if p.is_file() and not p.is_symlink():
                    p.unlink()
                    removed.append(p)
    return removed
