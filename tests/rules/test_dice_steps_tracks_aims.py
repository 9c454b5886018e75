"""Exact odds of game.dice.cortex (step dice), game.dice.aff (tracks) and game.dice.aims (aims).

Rule texts: shared/rules/cortex-actions-defense-damage.txt,
shared/rules/aff-dodge-protection.md, shared/rules/defence-dice-and-cover-units.txt.
Every exact function is checked against brute-force enumeration, against a
seeded Monte Carlo run within the 99.9 % bound
|p_hat - p| <= 3.29 sqrt(p (1 - p) / n) + 1/n, and for speed (<= 1 ms a query).
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from game.dice.aff import (
    DODGE_TRACK,
    damage_pmf,
    dodge_track,
    expected_damage,
    p_no_damage,
    p_opposed,
    p_roll_under,
    parse_track,
    roll_under_succeeds,
    track_pmf,
    track_value,
)
from game.dice.aims import land_odds, parse_aimline, parse_faces
from game.dice.cortex import (
    format_pool,
    halves,
    hit_damage,
    lowest_value_pmf,
    margin_pmf,
    p_lowest,
    p_meet_or_beat,
    parse_pool,
    parse_step,
    pool_pmf,
    split_damage,
    step_dice,
    trait_pool,
)
from tests.rules.fakes import mc_ok

N_MC = 20_000


def fast(fn, *args, repeat: int = 20) -> float:  # type: ignore[no-untyped-def]
    """Median seconds of one cold call: every cache of the dice modules is cleared first."""
    import game.dice as base
    import game.dice.aff as aff
    import game.dice.aims as aims
    import game.dice.cortex as cortex

    caches = [f for m in (base, aff, aims, cortex) for f in vars(m).values() if hasattr(f, "cache_clear")]
    times = []
    for _ in range(repeat):
        for f in caches:
            f.cache_clear()
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


# ---- Cortex step dice (cortex-actions-defense-damage.txt) ----------------------------------------

LADDER_CASES = [
    (0, ()),
    (1, (2,)),
    (2, (4,)),
    (3, (6,)),
    (4, (8,)),
    (5, (10,)),
    (6, (12,)),
    (7, (12, 2)),
    (8, (12, 4)),
    (11, (12, 10)),
    (12, (12, 12)),
    (13, (12, 12, 2)),
    (-3, ()),
]


@pytest.mark.parametrize(("step", "dice"), LADDER_CASES)
def test_step_ladder(step: int, dice: tuple[int, ...]) -> None:
    assert step_dice(step) == dice
    if step >= 0:
        assert parse_step(format_pool(dice)) == max(step, 0)


@pytest.mark.parametrize("text", ["d8+d6", "d7", "d12+d12+d4+d2", "x", "2d6", "d"])
def test_parse_step_rejects_non_ladder(text: str) -> None:
    with pytest.raises(ValueError):
        parse_step(text)


def test_parse_pool() -> None:
    assert parse_pool("d8+d6") == (8, 6)
    assert parse_pool(" D12 + d2 ") == (12, 2)
    assert parse_pool("d0") == ()
    assert parse_step("d2+d12") == 7
    for bad in ("d8+", "8", "d-2", "d8*2"):
        with pytest.raises(ValueError):
            parse_pool(bad)


TRAIT_CASES = [
    # (attribute step, skill step, modifier steps, dice): penalties come off the skill die first.
    (4, 3, 0, (8, 6)),
    (4, 3, -1, (8, 4)),
    (4, 3, -3, (8,)),
    (4, 3, -4, (6,)),
    (4, 0, -1, (6,)),
    (4, 0, 1, (8, 2)),
    (4, 3, 2, (8, 10)),
    (6, 6, 1, (12, 12, 2)),
    (1, 0, -2, ()),
]


@pytest.mark.parametrize(("attr", "skill", "steps", "dice"), TRAIT_CASES)
def test_trait_pool(attr: int, skill: int, steps: int, dice: tuple[int, ...]) -> None:
    assert trait_pool(attr, skill, steps) == dice


def _brute_totals(pool: tuple[int, ...]) -> Counter[int]:
    return Counter(sum(f) for f in itertools.product(*[range(1, s + 1) for s in pool]))


@pytest.mark.parametrize("pool", [(), (2,), (8, 6), (12, 2), (12, 12, 4)])
def test_pool_pmf_matches_enumeration(pool: tuple[int, ...]) -> None:
    c = _brute_totals(pool)
    n = sum(c.values())
    pmf = pool_pmf(pool)
    for t in range(len(pmf)):
        assert pmf[t] == pytest.approx(c.get(t, 0) / n, abs=1e-12)


@pytest.mark.parametrize(
    ("attack", "defence", "const"),
    [((8, 6), (), 7), ((8, 6), (8,), 0), ((12, 2), (6, 4), 4), ((4,), (12,), 0)],
)
def test_meet_or_beat_matches_enumeration(
    attack: tuple[int, ...], defence: tuple[int, ...], const: int
) -> None:
    wins = total = 0
    for a in itertools.product(*[range(1, s + 1) for s in attack]):
        for d in itertools.product(*[range(1, s + 1) for s in defence]):
            total += 1
            wins += sum(a) >= sum(d) + const  # ties go to the attacker
    assert p_meet_or_beat(attack, defence, const) == pytest.approx(wins / total, abs=1e-12)
    pmf, low = margin_pmf(attack, defence, const)
    assert pmf.sum() == pytest.approx(1.0)
    assert low == -(sum(defence) + const)


def test_worked_example_d8_d6_vs_7() -> None:
    # 48 outcomes of d8+d6, 15 of them below 7.
    assert p_meet_or_beat((8, 6), (), 7) == pytest.approx(33 / 48)


SPLIT_CASES = [
    # (margin, weapon, type, armour, stun, wounds)
    (0, 4, "W", 0, 0, 4),
    (5, 4, "W", 0, 3, 6),
    (5, 4, "W", 3, 3, 3),
    (5, 4, "W", 9, 3, 0),
    (5, 4, "S", 2, 9, 0),
    (5, 4, "B", 0, 5, 4),
    (5, 4, "B", 1, 5, 3),
    (1, 0, "W", 0, 1, 0),
]


@pytest.mark.parametrize(("m", "w", "t", "arm", "stun", "wounds"), SPLIT_CASES)
def test_split_damage(m: int, w: int, t: str, arm: int, stun: int, wounds: int) -> None:
    assert split_damage(m, w, t, arm) == (stun, wounds)


def test_split_damage_errors_and_halves() -> None:
    assert halves(7) == (4, 3)
    with pytest.raises(ValueError):
        split_damage(-1, 3, "W")
    with pytest.raises(ValueError):
        split_damage(1, 3, "X")


@pytest.mark.parametrize("dtype", ["W", "S", "B"])
def test_hit_damage_matches_enumeration(dtype: str) -> None:
    attack, defence, const, weapon, armour = (8, 6), (6,), 1, (4,), 3
    hit = hurt = stun = wounds = total = 0
    for a in itertools.product(*[range(1, s + 1) for s in attack]):
        for d in itertools.product(*[range(1, s + 1) for s in defence]):
            for w in range(1, 5):
                total += 1
                m = sum(a) - sum(d) - const
                if m >= 0:
                    hit += 1
                    s, wd = split_damage(m, w, dtype, armour)
                    stun += s
                    wounds += wd
                    hurt += s + wd > 0
    got = hit_damage(attack, defence, const, weapon, dtype, armour)
    assert got == pytest.approx((hit / total, hurt / total, stun / hit, wounds / hit))


def test_lowest_value_pmf_matches_enumeration() -> None:
    pools = ((6,), (4,), (6,))
    share: list[dict[int, float]] = [{} for _ in pools]
    n = 0
    for rolls in itertools.product(range(1, 7), range(1, 5), range(1, 7)):
        n += 1
        low = min(rolls)
        tied = [i for i, r in enumerate(rolls) if r == low]
        for i in tied:
            share[i][low] = share[i].get(low, 0.0) + 1 / len(tied)
    for i in range(3):
        pmf = lowest_value_pmf(pools, i)
        for v in range(len(pmf)):
            assert pmf[v] == pytest.approx(share[i].get(v, 0) / n, abs=1e-12)
    assert sum(p_lowest(pools, i) for i in range(3)) == pytest.approx(1.0)


def test_cortex_monte_carlo() -> None:
    rng = np.random.default_rng(20240501)
    attack, defence, const = (10, 6), (8, 4), 2
    a = rng.integers(1, 11, N_MC) + rng.integers(1, 7, N_MC)
    d = rng.integers(1, 9, N_MC) + rng.integers(1, 5, N_MC) + const
    p = p_meet_or_beat(attack, defence, const)
    assert mc_ok(float(np.mean(a >= d)), p, N_MC)


def test_cortex_query_speed() -> None:
    assert fast(hit_damage, (12, 12, 8), (12, 10), 4, (8,), "B", 3) <= 1e-3
    assert fast(p_meet_or_beat, (12, 12), (12, 12), 16) <= 1e-3


# ---- AFF tracks (aff-dodge-protection.md) --------------------------------------------------------

#: The Dodge protection table, row by row, as printed in the rule text.
DODGE_TABLE = {
    1: [0, 0, 0, 0, 0, 1, 2],
    2: [0, 0, 0, 0, 1, 1, 2],
    3: [0, 0, 0, 1, 1, 2, 3],
    4: [0, 0, 1, 1, 2, 2, 3],
    5: [0, 1, 1, 2, 2, 3, 4],
    6: [0, 1, 2, 2, 3, 4, 5],
}


@pytest.mark.parametrize(("skill", "row"), sorted(DODGE_TABLE.items()))
def test_dodge_track_rows_exactly(skill: int, row: list[int]) -> None:
    assert list(DODGE_TRACK[skill]) == row
    assert dodge_track(skill) == tuple(row)
    for roll in range(1, 8):
        assert track_value(DODGE_TRACK[skill], roll) == row[roll - 1]


def test_dodge_track_edges() -> None:
    assert set(DODGE_TRACK) == set(range(1, 7))
    assert dodge_track(0) is None  # no Dodge skill: no row, no dodge
    assert dodge_track(9) == tuple(DODGE_TABLE[6])  # above 6 reads row 6 (decision)
    assert track_value(DODGE_TRACK[3], 9) == 3  # 7+ column
    assert track_value(DODGE_TRACK[3], 0) == 0  # below 1 reads column 1


def test_parse_track() -> None:
    assert parse_track("2,3,3,3,4,4,5") == (2, 3, 3, 3, 4, 4, 5)
    for bad in ("1,2,3", "a,b,c,d,e,f,g", "0,0,0,0,0,0,-1"):
        with pytest.raises(ValueError):
            parse_track(bad)


SWORD = (2, 3, 3, 3, 4, 4, 5)


@pytest.mark.parametrize(("row", "bonus"), [(1, 0), (3, 0), (3, 1), (6, 2), (4, 5)])
def test_damage_pmf_matches_enumeration(row: int, bonus: int) -> None:
    prot = DODGE_TRACK[row]
    c: Counter[int] = Counter()
    for w, p in itertools.product(range(1, 7), range(1, 7)):
        c[max(0, track_value(SWORD, w) - track_value(prot, p + bonus))] += 1
    pmf = damage_pmf(SWORD, prot, 0, bonus)
    for v in range(len(pmf)):
        assert pmf[v] == pytest.approx(c.get(v, 0) / 36, abs=1e-12)
    assert p_no_damage(SWORD, prot, 0, bonus) == pytest.approx(c[0] / 36)
    assert expected_damage(SWORD, prot, 0, bonus) == pytest.approx(sum(k * v for k, v in c.items()) / 36)
    assert track_pmf(prot, bonus).sum() == pytest.approx(1.0)


def test_aff_worked_example_sword_vs_dodge_3() -> None:
    # Sword (2,3,3,3,4,4,5) vs Dodge 3 (0,0,0,1,1,2,3): without a bonus the dodge reads at most 2 (a 6),
    # which only stops the sword's 2 (a 1): 1/36. Mean damage (20/6) - (5/6) = 2.5.
    assert p_no_damage(SWORD, DODGE_TRACK[3]) == pytest.approx(1 / 36)
    assert expected_damage(SWORD, DODGE_TRACK[3]) == pytest.approx(2.5)


@pytest.mark.parametrize(("a", "d"), [(10, 10), (12, 9), (7, 11), (0, 20)])
def test_p_opposed_matches_enumeration(a: int, d: int) -> None:
    win = tie = 0
    for r in itertools.product(range(1, 7), repeat=4):
        at, de = r[0] + r[1] + a, r[2] + r[3] + d
        win += at > de
        tie += at == de
    w, t, lose = p_opposed(a, d)
    assert (w, t) == pytest.approx((win / 1296, tie / 1296))
    assert w + t + lose == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("target", "p"),
    [(1, 1 / 36), (2, 1 / 36), (7, 21 / 36), (9, 30 / 36), (11, 35 / 36), (12, 35 / 36), (20, 35 / 36)],
)
def test_roll_under_with_automatic_results(target: int, p: float) -> None:
    assert p_roll_under(target) == pytest.approx(p)
    assert roll_under_succeeds(2, -5) and not roll_under_succeeds(12, 30)


def test_aff_monte_carlo() -> None:
    rng = np.random.default_rng(7)
    w = rng.integers(1, 7, N_MC)
    pr = rng.integers(1, 7, N_MC) + 1
    dmg = np.array([track_value(SWORD, int(x)) for x in w]) - np.array(
        [track_value(DODGE_TRACK[5], int(y)) for y in pr]
    )
    assert mc_ok(float(np.mean(dmg <= 0)), p_no_damage(SWORD, DODGE_TRACK[5], 0, 1), N_MC)
    a = rng.integers(1, 7, (N_MC, 2)).sum(1) + 9
    d = rng.integers(1, 7, (N_MC, 2)).sum(1) + 8
    assert mc_ok(float(np.mean(a > d)), p_opposed(9, 8)[0], N_MC)


def test_aff_query_speed() -> None:
    assert fast(damage_pmf, SWORD, DODGE_TRACK[4], 0, 2) <= 1e-3


# ---- aims (defence-dice-and-cover-units.txt) -----------------------------------------------------


def test_text_example_two_dodge_dice_show_10_and_6() -> None:
    # Dodge dice (Vitality 2) rolled 10 and 6: the unit cannot be hit on a 10 or a 6.
    one = land_odds(10, 1, frozenset({6, 10}))
    assert one.p_land == pytest.approx(8 / 10)
    assert land_odds(10, 2, frozenset({6, 10})).p_land == pytest.approx(1 - (2 / 10) ** 2)
    assert land_odds(12, 1, frozenset({6, 10})).p_land == pytest.approx(10 / 12)


def _targets(hits: int, o: int, bm: int, c: int, piercing: bool) -> dict[int, Fraction]:
    """Memories replaced by ``hits`` hits, every target draw enumerated (uniform over the intact
    ordinary and Block memories): a Block memory is immune to normal hits, a block for another
    memory is used while one is left, piercing hits replace whatever they target."""
    out: dict[int, Fraction] = {}

    def go(h: int, o: int, bm: int, c: int, lost: int, p: Fraction) -> None:
        if h == 0 or o == 0:
            out[lost] = out.get(lost, Fraction(0)) + p
            return
        n = o + bm
        for i in range(n):
            q = p / n
            if i >= o:
                go(h - 1, o, bm - (1 if piercing else 0), c, lost + (1 if piercing else 0), q)
            elif not piercing and c:
                go(h - 1, o, bm, c - 1, lost, q)
            else:
                go(h - 1, o - 1, bm, c, lost + 1, q)

    go(hits, o, bm, c, 0, Fraction(1))
    return out


def _brute_aims(s, k, defended, unrolled, armoured, blocks, replaceable, piercing, block_memories=0):  # type: ignore[no-untyped-def]
    land: Counter[int] = Counter()
    dmg: dict[int, Fraction] = {}
    n = 0
    for extra in itertools.product(range(1, s + 1), repeat=unrolled):
        shown = set(defended) | set(extra)
        for aims in itertools.product(range(1, s + 1), repeat=k):
            n += 1
            landed = [a for a in aims if a not in shown]
            land[len(landed)] += 1
            reach = len(landed) if piercing else sum(1 for a in landed if a not in armoured)
            for lost, p in _targets(reach, replaceable, block_memories, blocks, piercing).items():
                dmg[lost] = dmg.get(lost, Fraction(0)) + p
    return land, {i: float(p) for i, p in dmg.items()}, n


AIM_CASES = [
    (10, 2, frozenset({3}), 2, frozenset({8, 9}), 1, 3, False, 0),
    (6, 3, frozenset(), 2, frozenset({1, 2}), 0, 2, False, 0),
    (6, 3, frozenset({1}), 1, frozenset({1, 2}), 1, 2, True, 0),
    (10, 3, frozenset({6, 10}), 0, frozenset({7, 8, 9}), 2, 5, False, 0),
    (12, 2, frozenset(range(1, 13)), 0, frozenset(), 0, 3, False, 0),
    (10, 0, frozenset(), 1, frozenset(), 0, 3, False, 0),
    (6, 3, frozenset({2}), 1, frozenset({5, 6}), 1, 3, False, 1),  # a Block(2) memory
    (6, 3, frozenset(), 1, frozenset({5, 6}), 0, 2, True, 2),  # two Block memories, concussive
    (10, 2, frozenset({4}), 0, frozenset(), 2, 1, False, 2),
]


@pytest.mark.parametrize("case", AIM_CASES)
def test_land_odds_matches_enumeration(case: tuple) -> None:  # type: ignore[type-arg]
    s, k, defended, unrolled, armoured, blocks, repl, piercing, bm = case
    land, dmg, n = _brute_aims(s, k, defended, unrolled, armoured, blocks, repl, piercing, bm)
    o = land_odds(s, k, defended, unrolled, armoured, blocks, repl, piercing, bm)
    for i, p in enumerate(o.land_pmf):
        assert p == pytest.approx(land.get(i, 0) / n, abs=1e-12)
    for i, p in enumerate(o.damage_pmf):
        assert p == pytest.approx(dmg.get(i, 0) / n, abs=1e-12)
    assert o.p_land == pytest.approx(1 - land.get(0, 0) / n, abs=1e-12)
    p_land = 1 - land.get(0, 0) / n
    exp = sum(v * c for v, c in dmg.items()) / n / p_land if p_land else 0.0
    assert o.expected_damage == pytest.approx(exp)


def test_land_odds_errors_and_parsers() -> None:
    with pytest.raises(ValueError):
        land_odds(10, 1, frozenset({11}))
    with pytest.raises(ValueError):
        land_odds(10, -1)
    assert parse_faces("6,10") == frozenset({6, 10})
    assert parse_faces("") == frozenset()
    assert parse_aimline("8-9") == (8, 9)
    assert parse_aimline("10") == (10, 10)
    for bad in ("9-8", "0-2", "a-b", "1-2-3"):
        with pytest.raises(ValueError):
            parse_aimline(bad)
    with pytest.raises(ValueError):
        parse_faces("6;10")


def test_aims_monte_carlo_with_unrolled_cover() -> None:
    rng = np.random.default_rng(99)
    s, k, defended = 10, 3, {2, 7}
    cover = rng.integers(1, s + 1, (N_MC, 2))  # two cover dice not rolled yet
    attack = rng.integers(1, s + 1, (N_MC, k))
    hits = 0
    for c, a in zip(cover, attack, strict=True):
        shown = defended | set(c.tolist())
        hits += any(x not in shown for x in a.tolist())
    p = land_odds(s, k, frozenset(defended), 2).p_land
    assert mc_ok(hits / N_MC, p, N_MC)


def test_aims_query_speed() -> None:
    assert fast(land_odds, 12, 8, frozenset({1, 5}), 6, frozenset({7, 8, 9}), 2, 5, False) <= 1e-3
