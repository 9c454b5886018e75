"""Appending CSV rows battle by battle, so a killed run leaves whole battles only.

:class:`Appender` is used for ``battles.csv``/``results.csv`` (:mod:`game.tools.results`) and
its companions such as ``profiles.csv`` (:mod:`game.tools.profiles`); :func:`to_text` renders
rows under a header with formula-like text neutralised. It depends on nothing of the batch
runner, so both can import it without a cycle.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from game.core.events import atomic_write_text, naming
from game.tools.csvtext import neutralised


def to_text(rows: Sequence[Mapping[str, Any]], header: Sequence[str], with_header: bool) -> str:
    """Rows as CSV text under ``header`` (missing cells empty, formula-like text neutralised)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(header), restval="", lineterminator="\n")
    if with_header:
        writer.writeheader()
    for row in rows:
        writer.writerow({k: neutralised(v) for k, v in row.items()})
    return buf.getvalue()


class Appender:
    """Appends rows to the CSV as battles finish.

    A fresh run's first rows replace the file atomically (header and rows into a temp file,
    renamed over it), so an older file survives a run that fails before its first battle. Later
    rows are appended, one write per battle, unbuffered; a write that fails (a full disk) is cut
    back to the last whole battle (truncating frees space, so it works on a full disk too), so
    the file never keeps half a battle, and the error is raised.
    """

    def __init__(
        self, path: Path, header: Sequence[str], fresh: bool, first: Callable[[], object] | None = None
    ) -> None:
        self.path, self.header, self.fresh = path, list(header), fresh
        self.fd: int | None = None
        self.first = first  # called before a fresh run's first rows replace the file

    def write(self, rows: Sequence[Mapping[str, Any]]) -> None:
        if self.fresh:
            # The manifest is written once the rows are safely in the temp file: both change, or
            # (a full disk) neither.
            atomic_write_text(self.path, to_text(rows, self.header, with_header=True), self.first)
            self.first = None
            self.fresh = False
            return
        data = to_text(rows, self.header, with_header=False).encode("utf-8")
        try:
            if self.fd is None:
                self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_CLOEXEC", 0))
            fd = self.fd
            before = os.lseek(fd, 0, os.SEEK_END)
        except OSError as e:
            raise naming(e, self.path) from None
        try:
            view = memoryview(data)
            while view:  # one battle's rows: a kill tears at most these
                view = view[os.write(fd, view) :]
        except BaseException as e:
            with contextlib.suppress(OSError):  # else the resume drops a torn last line anyway
                os.ftruncate(fd, before)
            self.close()
            if isinstance(e, OSError):
                raise naming(e, self.path) from None
            raise

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)
