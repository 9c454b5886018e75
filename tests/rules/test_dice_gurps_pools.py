"""Exact dice odds: GURPS 3d6 (game.dice.gurps) and d6 success pools (game.dice.pools).

Numbers from shared/rules/gurps-active-defense.txt (3-4 always succeed, 17-18
always fail, rapid fire vs Dodge, Acrobatic Dodge +2/-2, All-Out Defence) and
shared/rules/ap-dodge-reaction.txt (5-6 succeed, meet or beat, the worked
examples), plus the standard GURPS critical table. Monte Carlo checks use a
seeded numpy Generator and the 99.9% bound |p_hat - p| <= 3.29 sqrt(p(1-p)/n) + 1/n.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from game.dice import gurps as g
from game.dice import pools
from tests.rules.fakes import mc_bound as bound

#: Ways to roll 3..18 on 3d6.
WAYS = {
    3: 1,
    4: 3,
    5: 6,
    6: 10,
    7: 15,
    8: 21,
    9: 25,
    10: 27,
    11: 27,
    12: 25,
    13: 21,
    14: 15,
    15: 10,
    16: 6,
    17: 3,
    18: 1,
}


def test_3d6_pmf_exact() -> None:
    pmf = g.pmf_3d6()
    for total, ways in WAYS.items():
        assert pmf[total] == pytest.approx(ways / 216, abs=1e-15)
        assert g.WAYS_3D6[total] == ways
    assert sum(g.WAYS_3D6) == 216


@pytest.mark.parametrize(
    ("eff", "ways"),
    [
        (-5, 4),  # 3-4 always succeed, even at a score of 1 or 2 (text)
        (1, 4),
        (2, 4),
        (4, 4),
        (5, 10),
        (8, 56),
        (10, 108),
        (11, 135),
        (15, 206),
        (16, 212),
        (17, 212),  # 17-18 always fail (text)
        (25, 212),
    ],
)
def test_p_success_table(eff: int, ways: int) -> None:
    assert g.p_success_exact(eff) == Fraction(ways, 216)
    assert g.p_success(eff) == ways / 216


@pytest.mark.parametrize(
    ("roll", "eff", "success", "critical"),
    [
        (3, 1, True, True),
        (4, 2, True, True),
        (5, 14, True, False),
        (5, 15, True, True),  # critical success on 5 at effective 15+
        (6, 15, True, False),
        (6, 16, True, True),  # on 6 at 16+
        (17, 15, False, True),  # 17 is a critical failure at 15 or less
        (17, 16, False, False),  # ... a plain failure at 16+
        (17, 20, False, False),
        (18, 20, False, True),  # 18 always a critical failure
        (15, 5, False, True),  # 10 or more over the score
        (14, 5, False, False),
    ],
)
def test_judge_criticals(roll: int, eff: int, success: bool, critical: bool) -> None:
    res = g.judge(roll, eff)
    assert (res.success, res.critical, res.margin) == (success, critical, eff - roll)


@pytest.mark.parametrize(
    ("eff", "crit_s", "crit_f"),
    [(10, 4, 4), (14, 4, 4), (15, 10, 4), (16, 20, 1), (5, 4, 20), (6, 4, 10), (7, 4, 4)],
)
def test_critical_probabilities(eff: int, crit_s: int, crit_f: int) -> None:
    assert g.p_critical_success(eff) == pytest.approx(crit_s / 216, abs=1e-15)
    assert g.p_critical_failure(eff) == pytest.approx(crit_f / 216, abs=1e-15)


def test_margin_distribution() -> None:
    m = g.margin_pmf(10)
    assert set(m) == set(range(0, 8))
    assert m[0] == pytest.approx(27 / 216)
    assert m[7] == pytest.approx(1 / 216)
    assert sum(m.values()) == pytest.approx(g.p_success(10))
    assert g.p_margin_at_least(10, 3) == pytest.approx(35 / 216)  # rolls 3..7


def test_rapid_fire_hits() -> None:
    # Skill 12, RoF 3, Recoil 2: one hit + one per full 2 of margin, at most 3.
    assert g.rapid_fire_hits_pmf(12, 3, 2) == pytest.approx((56 / 216, 52 / 216, 52 / 216, 56 / 216))
    assert g.hits_scored(0, 3, 2) == 1
    assert g.hits_scored(5, 3, 2) == 3
    assert g.hits_scored(-1, 3, 2) == 1  # an automatic 3-4 below the score still scores one hit


def test_dodge_against_rapid_fire() -> None:
    # A successful Dodge avoids one hit plus one per point of margin; a critical avoids all (text).
    assert g.hits_after_dodge_pmf(3, 10) == pytest.approx((56 / 216, 25 / 216, 27 / 216, 108 / 216))
    crit = g.judge(4, 3)
    assert crit.critical and g.hits_dodged(10, crit) == 10
    assert g.hits_dodged(5, g.judge(9, 10)) == 2
    assert g.hits_dodged(5, g.judge(11, 10)) == 0


def test_acrobatic_dodge_mixture() -> None:
    # Dodge 9, Acrobatics 12: P(acro) P(<= 11) + P(fail) P(<= 7) (text: +2 / -2).
    expected = Fraction(160, 216) * Fraction(135, 216) + Fraction(56, 216) * Fraction(35, 216)
    assert g.p_acrobatic_dodge(9, 12) == pytest.approx(float(expected), abs=1e-15)
    assert expected == Fraction(2945, 5832)


def test_double_defence() -> None:
    assert g.p_double_defence(0.5, 0.5) == 0.75
    assert g.p_double_defence(g.p_success(10), g.p_success(8)) == pytest.approx(1 - (108 / 216) * (160 / 216))


def test_attack_outcomes_sum_to_success() -> None:
    for eff in range(-2, 22):
        assert sum(p for p, _, _ in g.attack_outcomes(eff, 1, 1)) == pytest.approx(g.p_success(eff))


def test_3d6_monte_carlo() -> None:
    rng = np.random.default_rng(20240601)
    n = 20_000
    totals = rng.integers(1, 7, size=(n, 3)).sum(axis=1)
    for eff in (3, 8, 10, 13, 17):
        p = g.p_success(eff)
        hits = np.where(totals <= 4, True, np.where(totals >= 17, False, totals <= eff))
        assert abs(hits.mean() - p) <= bound(p, n)
    # Acrobatic dodge: two rolls per trial.
    acro = rng.integers(1, 7, size=(n, 3)).sum(axis=1)
    score = np.where(acro <= 12, 11, 7)  # Acrobatics 12 (3-4/17-18 do not matter at 12)
    ok = np.where(totals <= 4, True, np.where(totals >= 17, False, totals <= score))
    p = g.p_acrobatic_dodge(9, 12)
    assert abs(ok.mean() - p) <= bound(p, n)


# ---- pools ----------------------------------------------------------------------------------


def test_successes_pmf_exact() -> None:
    ways8 = [256, 1024, 1792, 1792, 1120, 448, 112, 16, 1]
    assert pools.successes_pmf_exact(8) == tuple(Fraction(w, 6561) for w in ways8)
    assert pools.successes_pmf(8) == pytest.approx([w / 6561 for w in ways8])
    assert pools.success_chance() == Fraction(1, 3)
    assert pools.successes_pmf(0).tolist() == [1.0]


@pytest.mark.parametrize(
    ("dice", "vs", "exact"),
    [
        # Worked examples of shared/rules/ap-dodge-reaction.txt: 8 dice vs 4 and vs 3 successes.
        (8, 4, Fraction(1697, 6561)),
        (8, 3, Fraction(3489, 6561)),
        (8, 0, Fraction(1)),
        (0, 1, Fraction(0)),
        (3, 3, Fraction(1, 27)),
        (1, 1, Fraction(1, 3)),
        (2, 1, Fraction(5, 9)),
        (4, 5, Fraction(0)),
    ],
)
def test_meet_or_beat(dice: int, vs: int, exact: Fraction) -> None:
    assert pools.p_at_least_exact(dice, vs) == exact
    assert pools.p_meet_or_beat(dice, vs) == float(exact)


def test_worked_example_ranged_attack_roll() -> None:
    # The text's 7-dice ranged attack scoring 3 successes: P = C(7,3) 2^4 / 3^7.
    assert pools.successes_pmf_exact(7)[3] == Fraction(560, 2187)


def test_opposed_defender_wins_ties() -> None:
    att, dfn = pools.successes_pmf_exact(9), pools.successes_pmf_exact(8)
    brute = sum(pa * pd for a, pa in enumerate(att) for d, pd in enumerate(dfn) if d >= a)
    assert pools.p_defender_wins(9, 8) == pytest.approx(float(brute), abs=1e-15)
    assert pools.p_defender_wins(0, 0) == 1.0  # 0 vs 0: a tie, the defender wins
    net = pools.net_successes_pmf(4, 8)
    assert sum(net.values()) == pytest.approx(1.0)
    assert net[4] == pytest.approx(256 / 6561)


def test_count_successes() -> None:
    assert pools.count_successes([1, 2, 3, 4, 5, 6, 6]) == 3


def test_pool_monte_carlo() -> None:
    rng = np.random.default_rng(7)
    n = 20_000
    for dice, vs in ((8, 4), (8, 3), (5, 2)):
        hits = (rng.integers(1, 7, size=(n, dice)) >= 5).sum(axis=1)
        p = pools.p_at_least(dice, vs)
        assert abs((hits >= vs).mean() - p) <= bound(p, n)
    a = (rng.integers(1, 7, size=(n, 9)) >= 5).sum(axis=1)
    d = (rng.integers(1, 7, size=(n, 8)) >= 5).sum(axis=1)
    p = pools.p_defender_wins(9, 8)
    assert abs((d >= a).mean() - p) <= bound(p, n)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        pools.successes_pmf(-1)
    with pytest.raises(ValueError):
        pools.success_chance(7)
