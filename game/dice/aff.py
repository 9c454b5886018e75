"""Advanced Fighting Fantasy tracks: damage/protection tracks, 2d6 rolls, exact odds.

Contract:
- A *track* is seven integers: the results for a 1d6 roll of 1, 2, 3, 4, 5,
  6 and "7+" (:data:`TRACK_LEN`). A modified roll below 1 reads column 1, a
  roll of 7 or more reads the last column (:func:`track_value`).
- :data:`DODGE_TRACK` is the Dodge protection table of
  ``shared/rules/aff-dodge-protection.md`` cell for cell (rows = Dodge special
  skill 1..6). A skill above 6 reads row 6 (:func:`dodge_track`); the table has
  no row for 0, so a skill of 0 cannot dodge.
- Damage of a hit = weapon track result - protection track result; zero or
  less harms nothing. :func:`damage_pmf` gives its exact distribution.
- 2d6 odds: :func:`p_opposed_win` (melee: both sides roll 2d6 + score, higher
  total wins) and :func:`p_roll_under` (missile test: 2d6 <= target, where a
  double 1 always succeeds and a double 6 always fails).
- Every odds function is pure and memoised by its arguments (each decision
  prices every attack option again with the same few scores and tracks).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from game.dice import convolve, dot, sum_pmf

#: Columns of a track: rolls 1..6 and "7+".
TRACK_LEN = 7

Track = tuple[int, ...]

#: Dodge protection track (rules table), row = Dodge special skill 1..6.
DODGE_TRACK: dict[int, Track] = {
    1: (0, 0, 0, 0, 0, 1, 2),
    2: (0, 0, 0, 0, 1, 1, 2),
    3: (0, 0, 0, 1, 1, 2, 3),
    4: (0, 0, 1, 1, 2, 2, 3),
    5: (0, 1, 1, 2, 2, 3, 4),
    6: (0, 1, 2, 2, 3, 4, 5),
}
#: The table's top row; better Dodge skills read this row.
DODGE_TOP_ROW = max(DODGE_TRACK)

#: A protection of nothing (no armour, or choosing no protection).
NO_PROTECTION: Track = (0,) * TRACK_LEN

#: 2d6 always succeeds on this total and always fails on that one (roll-under tests).
AUTO_SUCCESS_2D6 = 2
AUTO_FAIL_2D6 = 12


def check_track(track: Track) -> Track:
    """Validate a track (seven non-negative integers) and return it as a tuple."""
    t = tuple(int(v) for v in track)
    if len(t) != TRACK_LEN:
        raise ValueError(f"a track has {TRACK_LEN} entries (rolls 1-6 and 7+), not {len(t)}")
    if any(v < 0 for v in t):
        raise ValueError("track entries cannot be negative")
    return t


def parse_track(text: str) -> Track:
    """``"2,3,3,3,4,4,5"`` -> a checked track."""
    try:
        values = tuple(int(v) for v in text.replace(" ", "").split(","))
    except ValueError:
        raise ValueError(f"a track is seven comma-separated integers, not {text!r}") from None
    return check_track(values)


def dodge_track(skill: int) -> Track | None:
    """The Dodge protection row for a Dodge special skill (``None``: no skill, no dodge)."""
    if skill < 1:
        return None
    return DODGE_TRACK[min(skill, DODGE_TOP_ROW)]


def track_value(track: Track, roll: int) -> int:
    """The result for a (modified) 1d6 roll: below 1 reads column 1, 7+ the last column."""
    return track[min(max(roll, 1), TRACK_LEN) - 1]


@lru_cache(maxsize=4096)
def track_pmf(track: Track, bonus: int = 0) -> np.ndarray:
    """Distribution of a track result for 1d6 + ``bonus`` (index = result)."""
    values = [track_value(track, face + bonus) for face in range(1, 7)]
    out = np.zeros(max(values) + 1)
    for v in values:
        out[v] += 1.0 / 6.0
    out.setflags(write=False)
    return out


@lru_cache(maxsize=4096)
def damage_pmf(
    weapon: Track, protection: Track, weapon_bonus: int = 0, protection_bonus: int = 0
) -> np.ndarray:
    """Exact distribution of damage = max(0, weapon result - protection result) (index = damage)."""
    w = track_pmf(weapon, weapon_bonus)
    p = track_pmf(protection, protection_bonus)
    diff = convolve(w, p[::-1])  # index i <-> difference i - (len(p) - 1)
    zero = len(p) - 1
    out = diff[zero:].copy()
    out[0] += float(diff[:zero].sum())
    out.setflags(write=False)
    return out


@lru_cache(maxsize=4096)
def p_no_damage(weapon: Track, protection: Track, weapon_bonus: int = 0, protection_bonus: int = 0) -> float:
    """P(the hit harms nothing: weapon result - protection result <= 0)."""
    return float(damage_pmf(weapon, protection, weapon_bonus, protection_bonus)[0])


@lru_cache(maxsize=4096)
def expected_damage(
    weapon: Track, protection: Track, weapon_bonus: int = 0, protection_bonus: int = 0
) -> float:
    """E[damage] of a hit, with damage floored at zero."""
    pmf = damage_pmf(weapon, protection, weapon_bonus, protection_bonus)
    return dot(np.arange(len(pmf)), pmf)


@lru_cache(maxsize=1)
def _diff_2d6() -> np.ndarray:
    """Distribution of 2d6 - 2d6 (index i <-> difference i - 12)."""
    two = sum_pmf(2, 6)
    out = convolve(two, two[::-1])
    out.setflags(write=False)
    return out


@lru_cache(maxsize=1024)
def p_opposed(attack_score: int, defence_score: int) -> tuple[float, float, float]:
    """(P(attacker wins), P(tie), P(defender wins)) for 2d6 + score each, higher total winning."""
    diff = _diff_2d6()
    offset = len(sum_pmf(2, 6)) - 1
    need = defence_score - attack_score  # attacker wins iff (a - d) > need
    idx = np.arange(len(diff)) - offset
    win = float(diff[idx > need].sum())
    tie = float(diff[idx == need].sum())
    return win, tie, 1.0 - win - tie


def p_opposed_win(attack_score: int, defence_score: int) -> float:
    """P(the attacker's 2d6 + score beats the defender's 2d6 + score)."""
    return p_opposed(attack_score, defence_score)[0]


@lru_cache(maxsize=256)
def p_roll_under(target: int) -> float:
    """P(2d6 <= ``target``), with 2 always succeeding and 12 always failing."""
    pmf = sum_pmf(2, 6)
    total = 0.0
    for t in range(2, 13):
        if t == AUTO_SUCCESS_2D6 or (t != AUTO_FAIL_2D6 and t <= target):
            total += float(pmf[t])
    return total


def roll_under_succeeds(total: int, target: int) -> bool:
    """Whether a rolled 2d6 ``total`` passes a roll-under test at ``target``."""
    if total == AUTO_SUCCESS_2D6:
        return True
    if total == AUTO_FAIL_2D6:
        return False
    return total <= target
