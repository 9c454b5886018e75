"""Dice: exact distributions and seeded, logged rolls.

Contract:
- Every random draw of a match goes through one :class:`Dice` bound to the
  match's single seeded ``numpy.random.Generator``; each call logs one ``roll``
  event (purpose, unit, dice, faces), so a log replays byte for byte.
- Exact distributions are plain numpy arrays indexed by total (``pmf[k]`` =
  P(total == k)), built by convolution; no sampling anywhere in odds code.
- Odds are logged, so they must come out the same to the last bit on every machine:
  convolutions and dot products go through :func:`convolve` and :func:`dot`, never
  ``np.convolve``/``np.dot``/``@`` (those sum through the CPU's BLAS kernel, whose order of
  additions differs between CPUs), and integer powers as running products (numpy's vector
  ``power`` differs between CPUs too).
  Family-specific distributions live in sibling modules (``game.dice.gurps``,
  ``game.dice.pools``, ``game.dice.cortex``, ``game.dice.aff``,
  ``game.dice.aims``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

RollLogger = Callable[[dict[str, Any]], None]


def convolve(a: Any, b: Any) -> np.ndarray:
    """``np.convolve(a, b)`` with the same last bits on every machine.

    Each output is summed in index order of ``a`` from elementwise products (elementwise numpy
    arithmetic rounds every operation on its own, whatever the CPU).
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    out = np.zeros(len(a) + len(b) - 1)
    n = len(b)
    for i, ai in enumerate(a.tolist()):
        out[i : i + n] += ai * b
    return out


def dot(a: Any, b: Any) -> float:
    """The dot product of two vectors, correctly rounded (``math.fsum``): the same on every CPU."""
    return math.fsum((np.asarray(a, dtype=float) * np.asarray(b, dtype=float)).tolist())


@lru_cache(maxsize=256)
def die_pmf(sides: int) -> np.ndarray:
    """P(face == k) for k in 0..sides (index 0 is impossible)."""
    if sides < 1:
        raise ValueError(f"a die needs at least one side, not {sides}")
    p = np.zeros(sides + 1)
    p[1:] = 1.0 / sides
    p.setflags(write=False)
    return p


@lru_cache(maxsize=256)
def sum_pmf(n: int, sides: int) -> np.ndarray:
    """Exact distribution of the total of ``n`` dice with ``sides`` faces (index = total)."""
    if n < 0:
        raise ValueError(f"cannot roll {n} dice")
    # Counts of ways in exact integers, then one correctly rounded division each: P(total == k)
    # is the float nearest to ways / sides**n.
    ways = [1]
    for _ in range(n):
        nxt = [0] * (len(ways) + sides)
        for i, w in enumerate(ways):
            for face in range(1, sides + 1):
                nxt[i + face] += w
        ways = nxt
    out = np.array([w / sides**n for w in ways], dtype=float)
    out.setflags(write=False)
    return out


def convolve_all(pmfs: list[np.ndarray]) -> np.ndarray:
    """Distribution of the sum of independent totals given by ``pmfs``."""
    out = np.array([1.0])
    for p in pmfs:
        out = convolve(out, p)
    return out


class Dice:
    """Seeded, logged dice for one match.

    Args:
        rng: the match's one ``numpy.random.Generator``.
        log: called with a ``roll`` event payload for every draw.
    """

    def __init__(self, rng: np.random.Generator, log: RollLogger | None = None) -> None:
        self.rng = rng
        self._log = log

    def roll(self, n: int, sides: int, purpose: str, unit: str | None = None) -> list[int]:
        """Roll ``n`` dice with ``sides`` faces; returns the faces in order."""
        # One scalar draw per die: the very faces of ``integers(1, sides + 1, size=n)`` (each
        # bounded draw takes its own words from the bit generator, whose spare 32-bit half is
        # kept in the generator, not per call), at a quarter of the cost of the array call.
        draw, high = self.rng.integers, sides + 1
        faces = [int(draw(1, high)) for _ in range(n)]
        if self._log is not None:
            self._log({"purpose": purpose, "unit": unit, "dice": f"{n}d{sides}", "faces": faces})
        return faces

    def total(self, n: int, sides: int, purpose: str, unit: str | None = None) -> int:
        return sum(self.roll(n, sides, purpose, unit))
