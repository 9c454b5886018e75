"""Defence-dice aims: where attack dice land and how many hits get through, exactly.

Contract:
- Every die here is an *aim die* with ``aim_die`` faces (the ruleset's
  option, 10 or 12). An attack die lands on the aim it shows.
- A face is *defended* for the target if one of its rolled dodge dice shows
  it (the hit is avoided) or a rolled cover die of a unit in between shows it
  (the hit goes to that cover unit). Either way the target is not hit on that
  aim, so for the target's odds only the union of those faces matters.
- Dice not rolled yet (a unit's dodge dice before the encounter starts, a
  cover roll not made yet for this pair) are averaged over exactly: each
  removes a uniformly random face, possibly one already removed
  (:func:`land_odds` runs an occupancy recursion over them).
- A landed die on an *armoured* aim (an intact ``Armour(a-b)`` memory) is
  blocked. Every other landed die targets one of the target's memories that
  a hit can target, drawn uniformly: ``replaceable`` ordinary memories and
  ``block_memories`` Block(N) memories. A Block memory is immune: the hit is
  blocked. A hit on an ordinary memory is blocked while the target has
  ``blocks`` left (its Block(N) memories block for N-1 other memories a round;
  the defender always uses one: a certain hit now is worth a possible one
  later), else it replaces that memory. A *piercing* attack (concussive or
  control) is blocked but still hits: every landed die, armoured or not,
  replaces the memory it targets, a Block memory included. Once no ordinary
  memory is left the unit is out of action and further hits change nothing.
- Costs: a few hundred microseconds for any realistic case (aim die <= 12,
  attack dice <= 8, unrolled dice <= 6).

Implements the odds side of ``shared/rules/defence-dice-and-cover-units.txt``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb

import numpy as np

from game.dice import dot

#: Aim die sizes the rules support (the text's example shows a 10, so d10 is the least).
AIM_DIE_SIZES: tuple[int, ...] = (10, 12)


@dataclass(frozen=True)
class AimOdds:
    """Exact outcome of one attack of ``attack_dice`` aim dice at one target.

    Attributes:
        p_land: P(at least one die lands on the target: not dodged, not diverted to cover).
        land_pmf: ``land_pmf[n]`` = P(exactly n dice land on the target).
        p_hurt: P(at least one memory (of any kind) is replaced).
        damage_pmf: ``damage_pmf[n]`` = P(exactly n memories are replaced).
        expected_damage: E[memories replaced | at least one die lands] (0 if none can land).
        p_per_die: P(one given die lands on the target), averaged over unrolled dice.
    """

    p_land: float
    land_pmf: tuple[float, ...]
    p_hurt: float
    damage_pmf: tuple[float, ...]
    expected_damage: float
    p_per_die: float


def _check(aim_die: int, faces: frozenset[int], what: str) -> None:
    bad = sorted(f for f in faces if not 1 <= f <= aim_die)
    if bad:
        raise ValueError(f"{what} {bad} are not faces of a d{aim_die}")


@lru_cache(maxsize=8192)
def land_odds(
    aim_die: int,
    attack_dice: int,
    defended: frozenset[int] = frozenset(),
    unrolled: int = 0,
    armoured: frozenset[int] = frozenset(),
    blocks: int = 0,
    replaceable: int = 1_000,
    piercing: bool = False,
    block_memories: int = 0,
) -> AimOdds:
    """Exact odds of ``attack_dice`` aim dice against one target.

    Args:
        aim_die: faces of the aim die.
        attack_dice: number of attack dice rolled.
        defended: faces the target's rolled dodge dice and rolled cover dice show.
        unrolled: dodge/cover dice not rolled yet (each removes a random face).
        armoured: faces covered by the target's intact Armour memories.
        blocks: blocks for other memories the target's Block(N) memories have left this round.
        replaceable: intact ordinary memories.
        piercing: concussive or control: blocked hits still hit.
        block_memories: intact Block(N) memories (hits may target them; immune to normal hits).
    """
    if aim_die < 2:
        raise ValueError("an aim die needs at least two faces")
    if attack_dice < 0 or unrolled < 0 or blocks < 0 or block_memories < 0 or replaceable < 0:
        raise ValueError("dice counts, memories and blocks cannot be negative")
    _check(aim_die, defended, "defended faces")
    _check(aim_die, armoured, "armoured faces")
    free = set(range(1, aim_die + 1)) - defended
    n_arm = len(free & armoured) if not piercing else 0
    n_harm = len(free) - n_arm
    s = float(aim_die)

    # Occupancy recursion over the unrolled dice: P(they take jh unarmoured and ja armoured faces of
    # the free ones). A die takes a new face of a kind with P(untaken faces of that kind / s).
    states: dict[tuple[int, int], float] = {(0, 0): 1.0}
    for _ in range(unrolled):
        nxt: dict[tuple[int, int], float] = {}
        for (jh, ja), weight in states.items():
            p_h, p_a = (n_harm - jh) / s, (n_arm - ja) / s
            for key, p in (((jh + 1, ja), p_h), ((jh, ja + 1), p_a), ((jh, ja), 1.0 - p_h - p_a)):
                if p > 0.0:
                    nxt[key] = nxt.get(key, 0.0) + weight * p
        states = nxt

    # Multinomial over the attack dice (h unarmoured, a armoured landings) for every state at once.
    k = attack_dice
    q = np.array(list(states.values()))
    taken = np.array(list(states.keys()), dtype=float).reshape(-1, 2)
    ph = (n_harm - taken[:, 0]) / s
    pa = (n_arm - taken[:, 1]) / s
    pm = np.maximum(1.0 - ph - pa, 0.0)
    hs, as_, coef = _multinomial(k)

    # Powers as running products (``multiply.accumulate`` multiplies in order) and the matrix
    # product as correctly rounded sums: these odds are logged, and numpy's vector power and
    # BLAS differ in the last bit between CPUs.
    def powers(x: np.ndarray) -> np.ndarray:
        table = np.ones((len(x), k + 1))
        table[:, 1:] = x[:, None]
        return np.multiply.accumulate(table, axis=1)

    terms = powers(ph)[:, hs] * powers(pa)[:, as_] * powers(pm)[:, k - hs - as_]
    joint = coef * np.array([dot(q, col) for col in terms.T])  # one per (h, a) with h + a <= k
    total = hs + as_
    land = np.bincount(total, weights=joint, minlength=k + 1)
    # Hits that reach a memory: all landed dice if piercing, else those off the armoured aims.
    reach = np.bincount(total if piercing else hs, weights=joint, minlength=k + 1)
    dmg = np.zeros(k + 1)
    for n in range(k + 1):
        if reach[n] > 0.0:
            dmg[: n + 1] += reach[n] * memory_damage(n, replaceable, block_memories, blocks, piercing)
    p_land = float(land[1:].sum())
    exp = dot(np.arange(k + 1), dmg)
    return AimOdds(
        p_land=p_land,
        land_pmf=tuple(land.tolist()),
        p_hurt=float(dmg[1:].sum()),
        damage_pmf=tuple(dmg.tolist()),
        expected_damage=exp / p_land if p_land > 0 else 0.0,
        p_per_die=dot(q, ph + pa),
    )


@lru_cache(maxsize=4096)
def memory_damage(hits: int, ordinary: int, block_memories: int, blocks: int, piercing: bool) -> np.ndarray:
    """``out[n]`` = P(``hits`` hits that reach the memories replace exactly ``n`` of them).

    Each hit targets one of the intact ordinary and Block memories uniformly (see the module
    docstring); the chain stops once no ordinary memory is left (the unit is out of action).
    """
    states: dict[tuple[int, int, int, int], float] = {(ordinary, block_memories, blocks, 0): 1.0}
    for _ in range(hits):
        nxt: dict[tuple[int, int, int, int], float] = {}
        for (o, b, c, lost), w in states.items():
            if o == 0:
                steps: list[tuple[tuple[int, int, int, int], float]] = [((o, b, c, lost), 1.0)]
            else:
                p_block = b / (o + b)
                if piercing:  # blocked or not, the targeted memory is replaced
                    steps = [((o - 1, b, c, lost + 1), 1.0 - p_block)]
                    if b:
                        steps.append(((o, b - 1, c, lost + 1), p_block))
                else:
                    steps = [((o, b, c, lost), p_block)] if b else []
                    if c:  # an ordinary memory: a Block(N) memory blocks for it
                        steps.append(((o, b, c - 1, lost), 1.0 - p_block))
                    else:
                        steps.append(((o - 1, b, c, lost + 1), 1.0 - p_block))
            for key, p in steps:
                if p > 0.0:
                    nxt[key] = nxt.get(key, 0.0) + w * p
        states = nxt
    out = np.zeros(hits + 1)
    for (_, _, _, lost), w in states.items():
        out[lost] += w
    out.setflags(write=False)
    return out


@lru_cache(maxsize=64)
def _multinomial(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (h, a) with h + a <= k, and its multinomial coefficient k! / (h! a! (k-h-a)!)."""
    pairs = [(h, a) for h in range(k + 1) for a in range(k - h + 1)]
    hs = np.array([h for h, _ in pairs], dtype=int)
    as_ = np.array([a for _, a in pairs], dtype=int)
    coef = np.array([comb(k, h) * comb(k - h, a) for h, a in pairs], dtype=float)
    for arr in (hs, as_, coef):
        arr.setflags(write=False)
    return hs, as_, coef


def parse_faces(text: str) -> frozenset[int]:
    """``"6,10"`` -> ``frozenset({6, 10})``; ``""`` is empty."""
    text = text.replace(" ", "")
    if not text:
        return frozenset()
    try:
        return frozenset(int(v) for v in text.split(","))
    except ValueError:
        raise ValueError(f"faces are comma-separated integers, not {text!r}") from None


def parse_aimline(text: str) -> tuple[int, int]:
    """``"8-9"`` -> ``(8, 9)``; ``"10"`` -> ``(10, 10)`` (an Armour(a-b) aimline)."""
    parts = str(text).replace(" ", "").split("-")
    try:
        lo, hi = (int(parts[0]), int(parts[-1])) if len(parts) in (1, 2) else (0, -1)
    except ValueError:
        raise ValueError(f"an aimline is a-b (e.g. 8-9), not {text!r}") from None
    if lo < 1 or hi < lo:
        raise ValueError(f"an aimline is a-b with 1 <= a <= b, not {text!r}")
    return lo, hi
