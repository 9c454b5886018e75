"""Run ``skirmish`` in process as its console script does, with pytest's ``capsys`` capturing.

``run(argv, capsys)`` returns (exit status, stdout, stderr): the status ``main`` exits with (0
when it returns; a non-numeric ``SystemExit`` code is 1, as for the console script).
"""

from __future__ import annotations

import pytest

from game.cli import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err
