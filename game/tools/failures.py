"""The failure of one battle of a batch, apart from the batch so that the process that plays an
isolated battle (game.tools.isolate) can name it without importing the batch."""

from __future__ import annotations

from typing import Any


class BattleFailed(RuntimeError):
    """A battle could not be played to the end; the message names the seed and step."""

    def __init__(self, message: str, seed: int = 0, step: int = 0, detail: str = "") -> None:
        super().__init__(message)
        self.seed = seed
        self.step = step
        self.detail = detail  # the formatted traceback, for --verbose style reports

    def __reduce__(self) -> tuple[Any, ...]:
        # Keep the fields when the exception crosses a process boundary.
        return (type(self), (str(self), self.seed, self.step, self.detail))
