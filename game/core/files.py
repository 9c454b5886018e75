"""Reading user-named files safely: regular files only, size-capped before anything parses them.

Contract:

- :func:`read_capped` ``(path, kind, limit) -> bytes`` stats ``path`` (following symlinks)
  *before* opening it and refuses, by type, anything that is not a regular file: a directory,
  a device (``/dev/zero``), a named pipe, a socket, a symlink loop. It then opens the file
  with ``O_NONBLOCK`` (so a pipe swapped in after the stat cannot block), checks the opened
  descriptor is still a regular file, and reads at most ``limit + 1`` bytes: a file larger
  than ``limit`` is refused without reading the rest, whatever its size claims.
- Every refusal is a :class:`FileRefused` (a :class:`~game.core.errors.SkirmishError`) whose
  message is one line, ``PATH: why`` (``too large (N bytes; the limit for a scenario is M)``,
  ``is a named pipe, expected a scenario file``, ``no such file``...). Callers turn it into
  their own located error with :meth:`FileRefused.problem`.
- :data:`LIMITS` holds the documented limit of each kind of file (``docs/robustness.md``).
"""

from __future__ import annotations

import errno
import os
import stat

from game.core.errors import Problem, SkirmishError

MB = 1024 * 1024

#: The largest file of each kind read (bytes): far above any real file, small enough to
#: refuse junk in milliseconds.
LIMITS: dict[str, int] = {
    "scenario": 256 * 1024,
    "profiles": 256 * 1024,
    "map": 4 * MB,
    "save": 64 * MB,
    "log": 256 * MB,
}


class FileRefused(SkirmishError):
    """A file that is not read: missing, not a regular file, unreadable or too large."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.source = str(path)
        self.reason = reason
        super().__init__(f"{self.source}: {reason}")

    def problem(self) -> Problem:
        """The refusal as an unlocated problem of the file."""
        return Problem(self.source, 0, "", self.reason)


def _kind_of(mode: int) -> str | None:
    """What a non-regular file is, for messages (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"  # pragma: no cover - no other file types on POSIX


def _refuse_os_error(path: str | os.PathLike[str], e: OSError) -> FileRefused:
    if e.errno == errno.ENOENT:
        return FileRefused(path, "no such file")
    if e.errno == errno.ELOOP:
        return FileRefused(path, "is a symlink loop")
    if e.errno == errno.ENAMETOOLONG:
        return FileRefused(path, "file name too long")
    return FileRefused(path, f"cannot read: {e.strerror or e}")


def check_regular(path: str | os.PathLike[str], kind: str) -> os.stat_result:
    """``os.stat(path)`` of a regular file; :class:`FileRefused` for anything else."""
    try:
        st = os.stat(path)
    except (OSError, RuntimeError, ValueError) as e:  # ELOOP; ValueError: a NUL in the name
        if isinstance(e, OSError):
            raise _refuse_os_error(path, e) from None
        why = "cannot read: not a usable file name" if isinstance(e, ValueError) else "is a symlink loop"
        raise FileRefused(path, why) from None
    what = _kind_of(st.st_mode)
    if what is not None:
        if what == "not a regular file":
            raise FileRefused(path, f"not a regular file, expected a {kind} file")
        raise FileRefused(path, f"is {what}, expected a {kind} file")
    return st


def too_large(path: str | os.PathLike[str], kind: str, size: int, limit: int) -> FileRefused:
    """The refusal of a file over its limit."""
    return FileRefused(path, f"too large ({size} bytes; the limit for a {kind} is {limit})")


def read_capped(path: str | os.PathLike[str], kind: str, limit: int | None = None) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (default ``LIMITS[kind]``).

    Raises:
        FileRefused: missing, not a regular file, unreadable, or larger than ``limit``.
    """
    cap = LIMITS[kind] if limit is None else limit
    st = check_regular(path, kind)
    if st.st_size > cap:
        raise too_large(path, kind, st.st_size, cap)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise _refuse_os_error(path, e) from None
    try:
        what = _kind_of(os.fstat(fd).st_mode)  # swapped for a pipe or device since the stat
        if what is not None:
            raise FileRefused(path, f"is {what}, expected a {kind} file")
        chunks: list[bytes] = []
        got = 0
        while got <= cap:
            try:
                chunk = os.read(fd, min(cap + 1 - got, MB))
            except OSError as e:
                raise _refuse_os_error(path, e) from None
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    finally:
        os.close(fd)
    if got > cap:
        raise too_large(path, kind, max(got, st.st_size), cap)
    return b"".join(chunks)


def read_capped_text(path: str | os.PathLike[str], kind: str, limit: int | None = None) -> str:
    """:func:`read_capped` decoded as UTF-8; :class:`FileRefused` naming the line if it is not."""
    raw = read_capped(path, kind, limit)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise FileRefused(f"{path}:{line}", f"not UTF-8 text (byte 0x{raw[e.start]:02x})") from None


def is_regular(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a regular file (following symlinks); never raises."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, RuntimeError, ValueError):
        return False


__all__ = ["LIMITS", "FileRefused", "check_regular", "is_regular", "read_capped", "read_capped_text"]


def readable_name(text: str) -> str:
    """``text`` (a file name) as valid Unicode: bytes that were not UTF-8 (kept by Python as lone
    surrogates) become U+FFFD, so the name can be written to a UTF-8 file or a terminal."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
