"""Paired comparisons against a baseline: the family-wise error rate, the interval, the CLI."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import numpy as np
import pytest

from game.tools import paired
from tests.cli_capture import run

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios" / "duel.yaml"


def _discordant(
    rng: np.random.Generator, families: int, arms: int, n: int, p: float, share: float, shift: float
) -> tuple[np.ndarray, np.ndarray, list[dict[str, dict[tuple[int, int], int]]]]:
    """Synthetic families: ``arms`` arms against a baseline on ``n`` paired battles each.

    The baseline's first side wins with probability ``p``; each arm keeps the baseline's outcome of
    a pair with probability ``share`` (common random numbers: most battles go the same way), else
    draws its own with probability ``p + shift``. ``shift = 0``: every arm is the baseline.
    Returns the discordant counts ``b``, ``c`` (families x arms) and the first families' outcomes
    as :func:`game.tools.paired.compare_all` takes them.
    """
    base = rng.random((families, 1, n)) < p
    same = rng.random((families, arms, n)) < share
    own = rng.random((families, arms, n)) < p + shift
    arm = np.where(same, base, own)
    b = np.sum(arm & ~base, axis=2)
    c = np.sum(base & ~arm, axis=2)
    shown = []
    for f in range(min(families, 20)):
        outcomes = {"base": {(s, 0): int(x) for s, x in enumerate(base[f, 0])}}
        for a in range(arms):
            outcomes[f"arm{a}"] = {(s, 0): int(x) for s, x in enumerate(arm[f, a])}
        shown.append(outcomes)
    return b, c, shown


def _rejects(
    b: np.ndarray, c: np.ndarray, examples: list[dict[str, dict[tuple[int, int], int]]]
) -> np.ndarray:
    """Whether Holm rejects any hypothesis of each family at 5 %, McNemar exact per arm, computed
    for all families at once; checked against :func:`game.tools.paired.compare_all` (statsmodels)
    on the first families. Holm's first step is Bonferroni's: the family rejects something exactly
    when ``arms * min(p) < 0.05``."""
    from scipy.stats import binom

    k = np.minimum(b, c)
    p = np.where(b + c == 0, 1.0, np.minimum(1.0, 2 * binom.cdf(k, b + c, 0.5)))
    m = b.shape[1]
    reject = m * p.min(axis=1) < 0.05
    for f, outcomes in enumerate(examples):
        got = paired.compare_all(outcomes, "base")
        assert [x.p for x in got] == pytest.approx(list(p[f]))
        assert (min(x.p_holm for x in got) < 0.05) == bool(reject[f])
    return reject


@pytest.mark.parametrize("share", [0.0, 0.6, 0.9])
def test_identical_arms_keep_the_family_wise_false_positive_rate_at_most_5_percent(share: float) -> None:
    rng = np.random.default_rng(20261128)
    families = 20_000
    b, c, examples = _discordant(rng, families, 5, 80, 0.45, share, 0.0)
    rate = _rejects(b, c, examples).mean()
    # McNemar's exact test is conservative and Holm controls the family: the rate stays under 5 %
    # (the Monte Carlo error of 20,000 families is about 0.15 points)
    assert rate <= 0.05


def test_a_real_difference_is_found_most_of_the_time() -> None:
    rng = np.random.default_rng(7)
    b, c, examples = _discordant(rng, 2000, 3, 120, 0.3, 0.5, 0.3)
    assert _rejects(b, c, examples).mean() > 0.8


def test_the_paired_interval_covers_the_true_difference_about_95_percent() -> None:
    rng = np.random.default_rng(3)
    n, covered, trials = 60, 0, 2000
    p_base, p_arm = 0.4, 0.55
    for _ in range(trials):
        u = rng.random(n)
        base = u < p_base
        arm = u < p_arm  # perfectly coupled: what common random numbers aim at
        arm ^= rng.random(n) < 0.1  # plus some noise of the rule change
        truth = p_arm + 0.1 * (1 - 2 * p_arm) - p_base
        b = int(np.sum(arm & ~base))
        c = int(np.sum(base & ~arm))
        lo, hi = paired.agresti_min(b, c, n)
        covered += lo <= truth <= hi
    assert 0.93 <= covered / trials <= 0.99


def test_compare_arm_counts_discordant_pairs_and_mcnemar() -> None:
    pairs = [(1, 0)] * 9 + [(0, 1)] * 1 + [(1, 1)] * 5 + [(0, 0)] * 5
    c = paired.compare_arm("a", "b", pairs)
    assert (c.n, c.b, c.c) == (20, 9, 1)
    assert c.diff == pytest.approx(0.4)
    assert c.p == pytest.approx(0.021484375)  # exact binomial: 2 * P(X <= 1), X ~ Bin(10, 1/2)
    assert c.lo < 0.4 < c.hi
    same = paired.compare_arm("a", "b", [(1, 1), (0, 0)])
    assert (same.diff, same.p) == (0.0, 1.0)


def test_holm_is_statsmodels_holm() -> None:
    assert paired.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


def _summary(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_a_sweep_of_two_identical_arms_finds_no_difference(tmp_path: Path, capsys) -> None:
    # The same scenario under two names: common random numbers make every pair agree.
    a, b = tmp_path / "a" / "duel.yaml", tmp_path / "b" / "duel.yaml"
    for p in (a, b):
        p.parent.mkdir()
        shutil.copy(DUEL, p)
    out_dir = tmp_path / "out"
    code, out, err = run(
        [
            *("sweep", str(a), str(b), "-n", "6", "--red", "cautious", "--blue", "aggressive"),
            *("--workers", "1", "--no-progress", "--no-plots", "--out", str(out_dir), "--baseline", "b-duel"),
        ],
        capsys,
    )
    assert code == 0, err
    assert "diff [95% paired CI]" in out and "baseline" in out
    summary = _summary(out_dir / "summary.csv")
    rows = [r for r in summary if r["variant"] == "scenario=a-duel" and r["side"] == "red"]
    assert len(rows) == 1
    row = rows[0]
    assert row["baseline"] == "scenario=b-duel"
    assert (float(row["diff"]), float(row["p_holm"]), row["discordant_arm"], row["pairs"]) == (
        0.0,
        1.0,
        "0",
        "6",
    )
    assert float(row["diff_lo"]) < 0 < float(row["diff_hi"])


def test_an_unknown_baseline_is_one_line_exit_2(tmp_path: Path, capsys) -> None:
    code, _, err = run(
        [
            "sweep",
            str(DUEL),
            "--ruleset",
            "aff,gurps",
            "-n",
            "1",
            "--baseline",
            "nope",
            "--out",
            str(tmp_path),
        ],
        capsys,
    )
    assert code == 2 and "--baseline: no arm 'nope'" in err
    code, _, err = run(
        ["battle", str(DUEL), "--compare", "aff", "gurps", "--baseline", "cortex", "--out", str(tmp_path)],
        capsys,
    )
    assert code == 2 and "--baseline: no arm 'cortex'" in err
