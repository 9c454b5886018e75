"""Wilson and Newcombe intervals, summaries: checked against published values and invariants."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from game.tools.stats import DRAW, newcombe, running_rate, summarize, summary_table, wilson


def test_wilson_matches_published_values():
    # Newcombe (1998), Table I: 81/263 -> 0.2553 to 0.3662; 15/148 -> 0.0624 to 0.1605.
    a = wilson(81, 263)
    assert a.lo == pytest.approx(0.2553, abs=5e-5) and a.hi == pytest.approx(0.3662, abs=5e-5)
    b = wilson(15, 148)
    assert b.lo == pytest.approx(0.0624, abs=5e-5) and b.hi == pytest.approx(0.1605, abs=5e-5)


def test_wilson_edges_stay_sensible():
    zero = wilson(0, 10)
    assert zero.lo == 0.0 and 0.25 < zero.hi < 0.35  # 0.2775 published
    full = wilson(10, 10)
    assert full.hi == 1.0 and full.lo == pytest.approx(1 - zero.hi)
    assert (wilson(0, 0).lo, wilson(0, 0).hi) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson(3, 2)


@given(st.integers(1, 2000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_contains_the_estimate(kn):
    k, n = kn
    w = wilson(k, n)
    assert 0.0 <= w.lo <= w.p <= w.hi <= 1.0
    assert w.hi - w.lo <= 2 * 1.96 * math.sqrt(0.25 / n) + 1e-12 + 1.96**2 / n


def test_newcombe_matches_published_example():
    # Newcombe (1998) method 10, example (a): 56/70 - 48/80 = 0.2000, CI 0.0524 to 0.3339.
    d = newcombe(56, 70, 48, 80)
    assert d.diff == pytest.approx(0.2)
    assert d.lo == pytest.approx(0.0524, abs=5e-5) and d.hi == pytest.approx(0.3339, abs=5e-5)
    assert d.significant
    same = newcombe(5, 10, 5, 10)
    assert same.lo < 0 < same.hi and not same.significant


def _rows(winners, rounds, swapped=None):
    out = []
    for i, (w, r) in enumerate(zip(winners, rounds, strict=True)):
        s = bool(swapped and swapped[i])
        out.append(
            {
                "seed": i,
                "policy_red": "cautious" if not s else "random",
                "policy_blue": "random" if not s else "cautious",
                "winner": w,
                "rounds": r,
            }
        )
    return out


def test_summarize_counts_sides_draws_and_policies():
    rows = _rows(["red", "red", "blue", DRAW], [3, 5, 4, 20], swapped=[0, 1, 0, 1])
    sm = summarize(rows)
    assert sm.sides == ("red", "blue")
    assert (sm.wins["red"].k, sm.wins["blue"].k, sm.draws.k, sm.n) == (2, 1, 1, 4)
    assert sm.mean_rounds == pytest.approx(8.0)
    # red won as cautious (seed 0) and as random (seed 1); blue won as random (seed 2).
    assert sm.policy_wins["cautious"].k == 1 and sm.policy_wins["random"].k == 2
    text = summary_table(sm, {"red": "cautious", "blue": "random"})
    assert "red (cautious)" in text and "draws" in text and "mean rounds 8.00" in text


def test_summarize_without_swaps_has_no_policy_rows():
    sm = summarize(_rows(["red", "blue"], [1, 2]))
    assert sm.policy_wins == {}
    assert running_rate(_rows(["red", "blue", "red"], [1, 1, 1]), "red") == [1.0, 0.5, pytest.approx(2 / 3)]
