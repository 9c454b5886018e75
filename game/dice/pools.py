"""Exact odds of d6 success pools (each die showing 5 or 6 is one success).

Contract: ``successes_pmf(n)[k]`` is P(exactly ``k`` successes on ``n`` dice),
computed exactly with rational arithmetic and returned as floats; every other
function is a sum over it. Opposed checks follow the meet-or-beat convention of
shared/rules/ap-dodge-reaction.txt: the defender wins ties.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb

import numpy as np

#: Lowest face that counts as a success on a d6 (5-6: one chance in three).
SUCCESS_FACE = 5
SIDES = 6


def success_chance(threshold: int = SUCCESS_FACE, sides: int = SIDES) -> Fraction:
    """P(one die shows ``threshold`` or more), exactly."""
    if not 1 <= threshold <= sides:
        raise ValueError(f"threshold {threshold} is not a face of a d{sides}")
    return Fraction(sides - threshold + 1, sides)


@lru_cache(maxsize=512)
def successes_pmf_exact(n: int, threshold: int = SUCCESS_FACE, sides: int = SIDES) -> tuple[Fraction, ...]:
    """Exact binomial distribution of successes on ``n`` dice (index = successes)."""
    if n < 0:
        raise ValueError(f"cannot roll {n} dice")
    p = success_chance(threshold, sides)
    q = 1 - p
    return tuple(comb(n, k) * p**k * q ** (n - k) for k in range(n + 1))


@lru_cache(maxsize=512)
def successes_pmf(n: int, threshold: int = SUCCESS_FACE, sides: int = SIDES) -> np.ndarray:
    """P(exactly k successes) for k = 0..n, as a read-only float array."""
    out = np.array([float(x) for x in successes_pmf_exact(n, threshold, sides)])
    out.setflags(write=False)
    return out


@lru_cache(maxsize=4096)
def p_at_least(n: int, s: int, threshold: int = SUCCESS_FACE, sides: int = SIDES) -> float:
    """P(``n`` dice score at least ``s`` successes); 1 for ``s <= 0``."""
    if s <= 0:
        return 1.0
    if s > n:
        return 0.0
    return float(sum(successes_pmf_exact(n, threshold, sides)[s:]))


def p_meet_or_beat(dice: int, vs: int) -> float:
    """P(a pool of ``dice`` meets or beats ``vs`` successes already rolled by the other side)."""
    return p_at_least(dice, vs)


def p_defender_wins(attack_dice: int, defence_dice: int) -> float:
    """P(defender's successes >= attacker's) when both pools are still to roll."""
    att = successes_pmf_exact(attack_dice)
    return float(sum(pa * Fraction(p_at_least_exact(defence_dice, a)) for a, pa in enumerate(att)))


@lru_cache(maxsize=4096)
def p_at_least_exact(n: int, s: int) -> Fraction:
    """Exact P(at least ``s`` successes on ``n`` dice at 5-6)."""
    if s <= 0:
        return Fraction(1)
    if s > n:
        return Fraction(0)
    return sum(successes_pmf_exact(n)[s:], Fraction(0))


def net_successes_pmf(attack_successes: int, defence_dice: int) -> dict[int, float]:
    """Distribution of attacker successes minus defender successes, given the attacker's roll."""
    out: dict[int, float] = {}
    for d, pd in enumerate(successes_pmf(defence_dice)):
        k = attack_successes - d
        out[k] = out.get(k, 0.0) + float(pd)
    return out


def count_successes(faces: list[int], threshold: int = SUCCESS_FACE) -> int:
    """Successes among rolled faces."""
    return sum(1 for f in faces if f >= threshold)
