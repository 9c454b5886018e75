"""Exact odds of GURPS 3d6 success rolls.

Contract: every function is exact (integer counts out of 216, or sums and
products of them). A success roll succeeds when 3d6 <= the effective score,
except that 3 and 4 always succeed and 17 and 18 always fail
(shared/rules/gurps-active-defense.txt for defence rolls; GURPS uses the same
rule for every success roll). Criticals follow the standard GURPS table:
critical success on 3-4, on 5 at effective 15+, on 6 at 16+; critical failure
on 18, on 17 at effective 15 or less, and on any roll of effective + 10 or more.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from game.dice import sum_pmf

#: Ways to roll each total on 3d6 (index = total, 0..18); they sum to 216.
WAYS_3D6: tuple[int, ...] = tuple(round(float(x) * 216) for x in sum_pmf(3, 6))
OUTCOMES_3D6 = 216
ROLLS = range(3, 19)
ALWAYS_SUCCEED = 4  # 3-4 always succeed
ALWAYS_FAIL = 17  # 17-18 always fail


def pmf_3d6() -> np.ndarray:
    """P(3d6 == k) for k = 0..18."""
    return sum_pmf(3, 6)


def p_success_exact(eff: int) -> Fraction:
    """P(success) against ``eff`` as an exact fraction of 216."""
    return Fraction(sum(WAYS_3D6[: success_limit(eff) + 1]), OUTCOMES_3D6)


def success_limit(eff: int) -> int:
    """Highest roll that succeeds against effective score ``eff`` (4 <= limit <= 16)."""
    return max(ALWAYS_SUCCEED, min(int(eff), ALWAYS_FAIL - 1))


def succeeds(roll: int, eff: int) -> bool:
    return roll <= success_limit(eff)


@lru_cache(maxsize=256)
def p_success(eff: int) -> float:
    """P(a success roll against effective score ``eff`` succeeds)."""
    return float(p_success_exact(eff))


def critical_success_limit(eff: int) -> int:
    """Highest roll that is a critical success (4, 5 at 15+, 6 at 16+)."""
    return 6 if eff >= 16 else 5 if eff >= 15 else 4


def is_critical_success(roll: int, eff: int) -> bool:
    return roll <= critical_success_limit(eff)


def is_critical_failure(roll: int, eff: int) -> bool:
    return roll == 18 or (roll == 17 and eff <= 15) or roll >= eff + 10


@lru_cache(maxsize=256)
def p_critical_success(eff: int) -> float:
    return sum(WAYS_3D6[: critical_success_limit(eff) + 1]) / OUTCOMES_3D6


@lru_cache(maxsize=256)
def p_critical_failure(eff: int) -> float:
    return sum(WAYS_3D6[r] for r in ROLLS if is_critical_failure(r, eff)) / OUTCOMES_3D6


@dataclass(frozen=True)
class RollResult:
    """One judged success roll."""

    roll: int
    eff: int
    success: bool
    critical: bool  # critical success if success, else critical failure
    margin: int  # eff - roll (negative on a failure, or on an automatic 3-4)

    @property
    def label(self) -> str:
        kind = "success" if self.success else "failure"
        return f"critical {kind}" if self.critical else kind


def judge(roll: int, eff: int) -> RollResult:
    """Judge a 3d6 ``roll`` against ``eff``."""
    ok = succeeds(roll, eff)
    crit = is_critical_success(roll, eff) if ok else is_critical_failure(roll, eff)
    return RollResult(roll, eff, ok, crit, eff - roll)


@lru_cache(maxsize=256)
def margin_pmf(eff: int) -> dict[int, float]:
    """Distribution of the margin of success (``eff - roll``) over successful rolls only.

    The probabilities sum to :func:`p_success`; failures are left out.
    """
    out: dict[int, float] = {}
    for r in ROLLS:
        if succeeds(r, eff):
            out[eff - r] = out.get(eff - r, 0.0) + WAYS_3D6[r] / OUTCOMES_3D6
    return out


def p_margin_at_least(eff: int, m: int) -> float:
    """P(the roll succeeds with a margin of at least ``m``)."""
    return sum(p for k, p in margin_pmf(eff).items() if k >= m)


@lru_cache(maxsize=1024)
def rapid_fire_hits_pmf(eff: int, rof: int, recoil: int) -> tuple[float, ...]:
    """P(k hits) for k = 0..rof: a success scores 1 + margin // recoil hits, at most ``rof``."""
    out = [0.0] * (rof + 1)
    for r in ROLLS:
        if succeeds(r, eff):
            out[hits_scored(eff - r, rof, recoil)] += WAYS_3D6[r] / OUTCOMES_3D6
        else:
            out[0] += WAYS_3D6[r] / OUTCOMES_3D6
    return tuple(out)


def hits_scored(margin: int, rof: int, recoil: int) -> int:
    """Hits of a successful rapid-fire attack with ``margin``."""
    return min(rof, 1 + max(0, margin) // recoil)


def hits_dodged(hits: int, result: RollResult) -> int:
    """Hits a dodge removes from a rapid-fire attack: all on a critical, else 1 + margin."""
    if not result.success:
        return 0
    if result.critical:
        return hits
    return min(hits, 1 + max(0, result.margin))


@lru_cache(maxsize=1024)
def hits_after_dodge_pmf(hits: int, dodge_eff: int) -> tuple[float, ...]:
    """P(k hits still land) for k = 0..hits after a dodge against a ``hits``-hit attack."""
    out = [0.0] * (hits + 1)
    for r in ROLLS:
        out[hits - hits_dodged(hits, judge(r, dodge_eff))] += WAYS_3D6[r] / OUTCOMES_3D6
    return tuple(out)


@lru_cache(maxsize=1024)
def dodge_success_removed(hits: int, dodge_eff: int) -> tuple[float, ...]:
    """P(the dodge succeeds and removes exactly k hits), k = 0..hits (sums to P(success))."""
    out = [0.0] * (hits + 1)
    for r in ROLLS:
        res = judge(r, dodge_eff)
        if res.success:
            out[hits_dodged(hits, res)] += WAYS_3D6[r] / OUTCOMES_3D6
    return tuple(out)


@lru_cache(maxsize=1024)
def attack_outcomes(eff: int, rof: int, recoil: int) -> tuple[tuple[float, int, bool], ...]:
    """Successful attack outcomes: (probability, hits scored, critical hit), merged by kind."""
    out: dict[tuple[int, bool], float] = {}
    for r in ROLLS:
        res = judge(r, eff)
        if res.success:
            k = (hits_scored(res.margin, rof, recoil), res.critical)
            out[k] = out.get(k, 0.0) + WAYS_3D6[r] / OUTCOMES_3D6
    return tuple((p, h, c) for (h, c), p in sorted(out.items()))


def p_gated(p_gate: float, eff_pass: int, eff_fail: int) -> float:
    """P(success) of a roll whose score depends on a prior roll (probability ``p_gate``)."""
    return p_gate * p_success(eff_pass) + (1.0 - p_gate) * p_success(eff_fail)


#: Acrobatic Dodge: +2 to the Dodge on a made Acrobatics roll, -2 on a failed one (text).
ACROBATIC_BONUS = 2


def p_acrobatic_dodge(dodge_eff: int, acrobatics: int) -> float:
    """P(an acrobatic dodge succeeds): Acrobatics roll first, then Dodge +2 or -2."""
    return p_gated(p_success(acrobatics), dodge_eff + ACROBATIC_BONUS, dodge_eff - ACROBATIC_BONUS)


def p_double_defence(p_first: float, p_second: float) -> float:
    """All-Out Defence (Double Defence): a second, different defence if the first fails."""
    return 1.0 - (1.0 - p_first) * (1.0 - p_second)
