"""Cortex step dice: the die ladder, roll pools and exact odds.

Contract:
- A *step* is an index on the die ladder d2, d4, d6, d8, d10, d12, d12+d2,
  d12+d4, ... d12+d12, d12+d12+d2, ...; step 1 is d2, step 6 is d12, each step
  above 6 adds the next die to a d12 (:func:`step_dice`). Step 0 or below is
  no die at all: a trait lowered past d2 adds nothing to the roll.
- A *pool* is a tuple of die sizes rolled and summed (attribute + skill, with
  any step modifiers already applied by :func:`trait_pool`).
- Every probability here is exact (convolution of uniform dice), cached on the
  pool, and costs microseconds once warm; nothing samples.
- Damage arithmetic (:func:`split_damage`) is the single source of truth for
  how an attack margin and a weapon die become stun and wounds; the ruleset and
  the odds both call it.

Implements the dice side of ``shared/rules/cortex-actions-defense-damage.txt``.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from game.dice import convolve, convolve_all, die_pmf, dot

#: Die sizes of the first six steps (step 1 = d2 ... step 6 = d12).
LADDER: tuple[int, ...] = (2, 4, 6, 8, 10, 12)
#: The biggest single die; steps past it stack another die on top of it.
TOP_DIE = LADDER[-1]
#: Highest step accepted by the parsers (d12+d12+d12+d12+d12 is plenty).
MAX_STEP = 30

Pool = tuple[int, ...]

_DIE_RE = re.compile(r"^d(\d+)$")


@lru_cache(maxsize=256)  # pools are rebuilt for every attack option and defence priced
def step_dice(step: int) -> Pool:
    """The dice of ladder step ``step`` (``()`` for step 0 or below).

    >>> step_dice(4), step_dice(7), step_dice(12)
    ((8,), (12, 2), (12, 12))
    """
    if step <= 0:
        return ()
    full, rest = divmod(step, len(LADDER))
    dice = (TOP_DIE,) * full
    if rest:
        dice += (LADDER[rest - 1],)
    return dice


@lru_cache(maxsize=1024)  # every attack option's label and defence labels format the same few pools
def format_pool(dice: Pool) -> str:
    """``(12, 2)`` -> ``"d12+d2"``; the empty pool is ``"d0"``."""
    return "+".join(f"d{s}" for s in dice) if dice else "d0"


@lru_cache(maxsize=1024)
def parse_pool(text: str) -> Pool:
    """Parse ``"d8+d6"`` (any dice, any order) into a pool; ``"d0"`` or ``""`` is empty.

    Raises:
        ValueError: on anything that is not ``dN`` terms joined by ``+``.
    """
    text = text.strip().lower().replace(" ", "")
    if text in ("", "d0", "0"):
        return ()
    dice: list[int] = []
    for term in text.split("+"):
        m = _DIE_RE.match(term)
        if not m or int(m.group(1)) < 1:
            raise ValueError(f"not a die expression: {text!r} (write e.g. d8 or d12+d2)")
        dice.append(int(m.group(1)))
    return tuple(dice)


@lru_cache(maxsize=1024)
def parse_step(text: str) -> int:
    """Parse one trait die on the ladder (``"d8"`` -> 4, ``"d12+d2"`` -> 7, ``"d0"`` -> 0).

    Raises:
        ValueError: if the expression is not exactly a ladder step.
    """
    dice = parse_pool(text)
    if not dice:
        return 0
    # Big dice first so "d2+d12" reads as the ladder's d12+d2.
    canon = tuple(sorted(dice, reverse=True))
    for step in range(1, MAX_STEP + 1):
        if step_dice(step) == canon:
            return step
    raise ValueError(f"{text!r} is not a die step (d2, d4, d6, d8, d10, d12, d12+d2, ...)")


@lru_cache(maxsize=4096)
def trait_pool(attribute: int, skill: int, steps: int = 0) -> Pool:
    """Attribute + skill dice after a net step modifier.

    Step penalties come off the skill die first and, once it is gone, off the
    attribute die; step bonuses raise the skill die (an unskilled roll gains a
    d2 first). This is the usual Cortex reading: the modifier is a skill step.

    Args:
        attribute: attribute step (>= 0).
        skill: skill step (0 = unskilled).
        steps: net step modifier (negative = penalty).
    """
    if steps >= 0:
        return step_dice(attribute) + step_dice(skill + steps)
    skill_left = skill + steps
    if skill_left >= 0:
        return step_dice(attribute) + step_dice(skill_left)
    return step_dice(attribute + skill_left)


@lru_cache(maxsize=4096)
def pool_pmf(dice: Pool) -> np.ndarray:
    """Exact distribution of a pool's total (index = total; the empty pool is always 0)."""
    out = convolve_all([die_pmf(s) for s in sorted(dice)])
    out.setflags(write=False)
    return out


@lru_cache(maxsize=8192)
def margin_pmf(attack: Pool, defence: Pool, constant: int = 0) -> tuple[np.ndarray, int]:
    """Distribution of ``attack total - (defence total + constant)``.

    Returns:
        ``(pmf, low)``: ``pmf[i]`` = P(margin == low + i).
    """
    a = pool_pmf(attack)
    d = pool_pmf(defence)
    pmf = convolve(a, d[::-1])
    low = -(len(d) - 1) - constant
    pmf.setflags(write=False)
    return pmf, low


def p_meet_or_beat(attack: Pool, defence: Pool = (), constant: int = 0) -> float:
    """P(attack total >= defence total + constant): Cortex hits on meeting the Difficulty."""
    pmf, low = margin_pmf(attack, defence, constant)
    start = max(0, -low)
    return float(pmf[start:].sum()) if start < len(pmf) else 0.0


#: Damage types of weapons: all to wounds, all to stun, or split ("basic").
DAMAGE_TYPES = ("W", "S", "B")


def halves(points: int) -> tuple[int, int]:
    """Split ``points`` into (stun, wounds), the odd point going to stun."""
    wounds = points // 2
    return points - wounds, wounds


def split_damage(margin: int, weapon: int, damage_type: str, armour: int = 0) -> tuple[int, int]:
    """(stun, wounds) of a hit with attack margin ``margin`` >= 0 and weapon die ``weapon``.

    Basic damage (the margin) is half stun, half wounds (odd point to stun)
    for ``W`` and ``B`` weapons and all stun for ``S``; the weapon's own damage
    goes to wounds (``W``), stun (``S``) or is added before the split (``B``).
    Armour then removes up to ``armour`` wound points.
    """
    if margin < 0:
        raise ValueError("a miss does no damage")
    if damage_type == "S":
        stun, wounds = margin + weapon, 0
    elif damage_type == "W":
        stun, wounds = halves(margin)
        wounds += weapon
    elif damage_type == "B":
        stun, wounds = halves(margin + weapon)
    else:
        raise ValueError(f"damage type must be one of {DAMAGE_TYPES}, not {damage_type!r}")
    return stun, max(0, wounds - armour)


@lru_cache(maxsize=8192)
def hit_damage(
    attack: Pool, defence: Pool, constant: int, weapon: Pool, damage_type: str, armour: int
) -> tuple[float, float, float, float]:
    """Exact odds of one attack against a Difficulty of ``defence`` roll + ``constant``.

    Returns:
        ``(p_hit, p_hurt, expected_stun_given_hit, expected_wounds_given_hit)``
        where a hit meets or beats the Difficulty and "hurt" means at least one
        point of stun or wounds after armour.
    """
    pmf, low = margin_pmf(attack, defence, constant)
    start = max(0, -low)
    if start >= len(pmf):
        return 0.0, 0.0, 0.0, 0.0
    hit = pmf[start:]
    margins = np.arange(len(hit)) + (low + start)
    w = pool_pmf(weapon)
    p_hit = float(hit.sum())
    if p_hit <= 0.0:
        return 0.0, 0.0, 0.0, 0.0
    faces = np.nonzero(w)[0]
    m = margins[:, None]
    f = faces[None, :]
    prob = hit[:, None] * w[faces][None, :]
    stun, wounds = _split_arrays(m, f, damage_type)
    wounds = np.maximum(0, wounds - armour)
    p_hurt = float(prob[(stun + wounds) > 0].sum())
    e_stun = float((prob * stun).sum()) / p_hit
    e_wounds = float((prob * wounds).sum()) / p_hit
    return p_hit, p_hurt, e_stun, e_wounds


def _split_arrays(m: np.ndarray, f: np.ndarray, damage_type: str) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`split_damage` before armour (margins ``m`` x weapon faces ``f``)."""
    if damage_type == "S":
        return m + f + 0 * f, np.zeros(np.broadcast_shapes(m.shape, f.shape), dtype=int)
    if damage_type == "W":
        return (m - m // 2) + 0 * f, m // 2 + f
    if damage_type == "B":
        t = m + f
        return t - t // 2, t // 2
    raise ValueError(f"damage type must be one of {DAMAGE_TYPES}, not {damage_type!r}")


@lru_cache(maxsize=1024)
def lowest_value_pmf(pools: tuple[Pool, ...], index: int) -> np.ndarray:
    """``out[v]`` = P(pool ``index`` rolls v and is the lowest roll), ties shared fairly.

    Used for pitch-black attacks: every potential target rolls and the lowest
    takes the hit; a tie among k lowest rolls is broken uniformly at random,
    so each tied pool gets 1/k of that outcome.
    """
    pmfs = [pool_pmf(p) for p in pools]
    top = max(len(p) for p in pmfs)
    own = np.pad(pmfs[index], (0, top - len(pmfs[index])))
    others = [np.pad(p, (0, top - len(p))) for j, p in enumerate(pmfs) if j != index]
    out = np.zeros(top)
    for v in range(top):
        if own[v] == 0.0:
            continue
        # Distribution of how many other pools tie at v, given all others are >= v.
        ties = np.array([1.0])
        for p in others:
            ties = convolve(ties, np.array([float(p[v + 1 :].sum()), float(p[v])]))
        out[v] = float(own[v]) * dot(ties, 1.0 / np.arange(1, len(ties) + 1))
    out.setflags(write=False)
    return out


def p_lowest(pools: tuple[Pool, ...], index: int) -> float:
    """P(pool ``index`` is the lowest roll, with a fair tie-break)."""
    return float(lowest_value_pmf(pools, index).sum())
