"""A seeded random stream that a match can fork: one numpy ``Generator`` (PCG64), copied cheaply.

Contract:
- :class:`Stream` wraps one ``numpy.random.Generator`` over a PCG64 bit generator, the only
  kind of draw a match makes (every roll of the dice stream is logged). ``generator`` is that
  Generator: draws from it are the very draws of ``numpy.random.default_rng``.
- :meth:`Stream.fork` is an independent stream at the same point: the two then draw the same
  numbers, and drawing from one never moves the other. It copies the bit generator's state
  (a few integers), not the Generator: the fork makes its Generator when it first draws,
  reusing the Generator of a stream that died (making one seeds a PCG64 afresh, ~35 µs, which
  would be most of the cost of cloning a match). A Generator is reused only when nothing but
  its dead stream held it.
- :meth:`Stream.state` / :meth:`Stream.from_state` are the bit generator's state as plain JSON
  data (the 128-bit integers as strings), for snapshots.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

#: Generators of dead streams, ready for a fork's first draw (bounded).
_SPARE: list[np.random.Generator] = []
_SPARE_MAX = 64


class Stream:
    """One seeded random stream (see the module docstring)."""

    __slots__ = ("_gen", "_state")

    def __init__(self, generator: np.random.Generator | None = None, state: dict[str, Any] | None = None):
        if (generator is None) == (state is None):
            raise ValueError("a stream starts from a generator or from a state, not both")
        if generator is not None and not isinstance(generator.bit_generator, np.random.PCG64):
            raise ValueError("a stream draws from PCG64")
        self._gen = generator
        self._state = state

    @classmethod
    def seeded(cls, seed: np.random.SeedSequence) -> Stream:
        return cls(np.random.Generator(np.random.PCG64(seed)))

    @property
    def generator(self) -> np.random.Generator:
        """The Generator every draw of this stream comes from."""
        gen = self._gen
        if gen is None:
            gen = _SPARE.pop() if _SPARE else np.random.Generator(np.random.PCG64())
            gen.bit_generator.state = self._state  # type: ignore[assignment]
            self._gen = gen
            self._state = None
        return gen

    def _raw_state(self) -> dict[str, Any]:
        if self._gen is not None:
            state: dict[str, Any] = self._gen.bit_generator.state  # type: ignore[assignment]
            return state
        assert self._state is not None
        return self._state

    def fork(self) -> Stream:
        """An independent stream at the same point (see the module docstring)."""
        return Stream(state=self._raw_state())

    def state(self) -> dict[str, Any]:
        """The state as JSON data: ``{"state": str, "inc": str, "has_uint32": int, "uinteger": int}``."""
        raw = self._raw_state()
        return {
            "state": str(raw["state"]["state"]),
            "inc": str(raw["state"]["inc"]),
            "has_uint32": int(raw["has_uint32"]),
            "uinteger": int(raw["uinteger"]),
        }

    @classmethod
    def from_state(cls, data: dict[str, Any]) -> Stream:
        """The stream whose :meth:`state` is ``data`` (``ValueError`` if it is not one)."""
        try:
            state, inc = int(data["state"]), int(data["inc"])
            has, spare = int(data["has_uint32"]), int(data["uinteger"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"not a random stream's state: {e}") from None
        if not (0 <= state < 2**128 and 0 <= inc < 2**128 and inc % 2 == 1):
            raise ValueError("a PCG64 state and increment are 128-bit integers, the increment odd")
        if has not in (0, 1) or not 0 <= spare < 2**32:
            raise ValueError("a PCG64 spare word is a 32-bit integer")
        return cls(
            state={
                "bit_generator": "PCG64",
                "state": {"state": state, "inc": inc},
                "has_uint32": has,
                "uinteger": spare,
            }
        )

    def __del__(self) -> None:
        gen = self._gen
        # Reused only if nothing else holds it (the attribute and getrefcount's argument).
        if gen is not None and len(_SPARE) < _SPARE_MAX and sys.getrefcount(gen) <= 3:
            self._gen = None
            _SPARE.append(gen)
