"""Synchronized dice for a search's sampled worlds: a roll's faces are a pure function of what it is.

Contract:
- :func:`synced_faces` ``(seed, key, n, sides)`` gives ``n`` faces of ``sides`` from a 64-bit mix
  (SplitMix64) of ``seed``, the roll's ``key`` and the die's index: the same arguments give the
  same faces in any process, on any machine (no Python ``hash``; strings are keyed by CRC-32).
- :class:`SyncedRolls` keys each roll by *what it is*: the round, the unit rolling, the roll's
  purpose and how many rolls of that (round, unit, purpose) came before it in this world. Two
  worlds with the same seed that differ only by one decision roll the same faces for every roll
  the decision did not change: the brute's attack next round, the guard's defence against it.
  That is the simulation technique of *synchronized common random numbers*: when a search
  compares candidate commands in the same sampled world, a positional stream (the k-th draw)
  would give the brute's blow different dice after a candidate that rolled one die more, which
  drowns the candidates' difference in the dice's noise.
- Only clones made for a search use it (``Match.clone(dice_seed, synced=True)``); a real match
  always draws from its one seeded stream, as the event log records.
"""

from __future__ import annotations

import zlib

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _mix(x: int) -> int:
    """SplitMix64's finalizer: a bijection of 64-bit integers with full avalanche."""
    x = (x + _GOLDEN) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def key_of(round_no: int, unit: str | None, purpose: str, count: int) -> int:
    """A 64-bit key for the ``count``-th roll for ``purpose`` by ``unit`` in round ``round_no``."""
    text = f"{unit or ''}\x1f{purpose}".encode()
    return _mix((zlib.crc32(text) << 32) ^ (round_no << 16) ^ count)


def synced_faces(seed: int, key: int, n: int, sides: int) -> list[int]:
    """``n`` faces of a ``sides``-sided die for the roll ``key`` in the world ``seed``."""
    base = _mix((seed & _MASK) ^ key)
    # 64-bit words modulo a die's sides: the bias is below 2**-58, far under any odds shown.
    return [_mix(base + i) % sides + 1 for i in range(n)]


class SyncedRolls:
    """The faces of each roll of one sampled world (see the module doc)."""

    __slots__ = ("_counts", "_seed")

    def __init__(self, seed: int) -> None:
        self._seed = int(seed)
        self._counts: dict[tuple[int, str | None, str], int] = {}

    def faces(self, round_no: int, unit: str | None, purpose: str, n: int, sides: int) -> list[int]:
        k = (round_no, unit, purpose)
        count = self._counts.get(k, 0)
        self._counts[k] = count + 1
        return synced_faces(self._seed, key_of(round_no, unit, purpose, count), n, sides)
