"""Run ``skirmish`` in process through :func:`game.cli.main`, the console entry point itself.

``run(*args)`` returns (exit status, stdout, stderr): the status ``main`` exits with (0 when it
returns), and what it printed. Anything but ``SystemExit`` escaping ``main`` is a bug the
caller's test reports (a traceback the user would have seen).
"""

from __future__ import annotations

import contextlib
import io

from game.cli import main


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code: int = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return code, out.getvalue(), err.getvalue()
