"""Paired comparisons of arms against a baseline: the statistics a rules designer can trust.

Contract:
- Every arm of a sweep or of ``battle --compare`` plays the same seeds, and a match's dice and AI
  streams are seeded from the seed alone (:class:`game.engine.match.Match`): the same seed gives
  every arm the same random numbers, so two arms differ only where their rules draw differently
  (common random numbers). A battle is paired with the baseline's battle of the same seed and
  ``swapped`` flag (:func:`pair_outcomes`); the outcome compared is whether the first side
  (scenario order) won: 1, else 0 (a loss or a draw).
- :func:`compare_arm` gives, for one arm against the baseline on their common pairs: the win
  shares, the difference ``arm - baseline`` with its 95 % paired interval (Agresti & Min 2005:
  the Wald interval of a paired difference after adding 1/2 to each of the four cells, which
  keeps its coverage near 95 % where the plain Wald interval fails, at 0 or 1 and in small
  samples), the discordant pairs (``b``: only the arm's first side won; ``c``: only the
  baseline's), and the two-sided p-value of McNemar's exact test
  (``statsmodels.stats.contingency_tables.mcnemar(exact=True)``: the exact binomial test of
  ``b`` against ``b + c`` trials, which for paired binary outcomes is the same test as the exact
  paired sign/permutation test). Without a discordant pair the p-value is 1.
- :func:`compare_all` compares every other arm with the baseline and adjusts the p-values of the
  family with Holm's step-down method (``statsmodels.stats.multitest.multipletests``), which
  keeps the family-wise error rate at or below ``alpha`` under any dependence between the
  comparisons (they share the baseline). :func:`records` gives the ``summary.csv`` columns
  (:data:`COLUMNS`: ``baseline``, ``diff``, ``diff_lo``, ``diff_hi``, ``p_holm`` ...) and
  :func:`table` the printed lines.
- Pure and deterministic; statsmodels and scipy are imported only when a comparison is made.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: Two-sided 95 % normal quantile.
Z95 = 1.959963984540054
#: Family-wise error rate the ``significant`` flag is judged at.
ALPHA = 0.05

#: A battle's pairing key: (seed, swapped).
PairKey = tuple[int, int]


@dataclass(frozen=True)
class Comparison:
    """One arm against the baseline on ``n`` paired battles (see the module docstring)."""

    arm: str
    baseline: str
    n: int
    share: float
    base_share: float
    diff: float
    lo: float
    hi: float
    b: int
    c: int
    p: float
    p_holm: float = 1.0

    @property
    def significant(self) -> bool:
        """Whether the Holm-adjusted p-value is below :data:`ALPHA`."""
        return self.p_holm < ALPHA

    def __str__(self) -> str:
        return (
            f"{100 * self.diff:+.1f} points [{100 * self.lo:+.1f}, {100 * self.hi:+.1f}], "
            f"p_holm {self.p_holm:.3g}"
        )


def first_side_won(rows: Sequence[Mapping[str, Any]], first_side: str) -> dict[PairKey, int]:
    """Battle rows (one per battle: ``seed``, ``swapped``, ``winner``) -> pair key -> 1 if
    ``first_side`` won, else 0."""
    return {(int(r["seed"]), int(r.get("swapped") or 0)): int(r["winner"] == first_side) for r in rows}


def pair_outcomes(arm: Mapping[PairKey, int], base: Mapping[PairKey, int]) -> list[tuple[int, int]]:
    """(arm outcome, baseline outcome) for every key both have, in key order."""
    return [(arm[k], base[k]) for k in sorted(arm.keys() & base.keys())]


def agresti_min(b: int, c: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Agresti-Min interval of a paired difference of proportions ``(b - c) / n``: the Wald
    interval after adding 1/2 to each of the four cells of the 2x2 table, clamped to [-1, 1]."""
    bb, cc, nn = b + 0.5, c + 0.5, n + 2.0
    d = (bb - cc) / nn
    var = ((bb + cc) - (bb - cc) ** 2 / nn) / nn**2
    half = z * math.sqrt(max(var, 0.0))
    return max(-1.0, d - half), min(1.0, d + half)


def mcnemar_p(b: int, c: int) -> float:
    """Two-sided p-value of McNemar's exact test on ``b`` and ``c`` discordant pairs."""
    if b + c == 0:
        return 1.0
    from statsmodels.stats.contingency_tables import mcnemar

    return float(min(1.0, mcnemar([[0, b], [c, 0]], exact=True).pvalue))


def compare_arm(arm: str, baseline: str, pairs: Sequence[tuple[int, int]]) -> Comparison:
    """``arm`` against ``baseline`` on its paired outcomes (``p_holm`` is the raw p-value until
    :func:`compare_all` adjusts it)."""
    n = len(pairs)
    b = sum(1 for x, y in pairs if x and not y)
    c = sum(1 for x, y in pairs if y and not x)
    share = sum(x for x, _ in pairs) / n if n else 0.0
    base = sum(y for _, y in pairs) / n if n else 0.0
    lo, hi = agresti_min(b, c, n) if n else (-1.0, 1.0)
    p = mcnemar_p(b, c)
    return Comparison(arm, baseline, n, share, base, share - base, lo, hi, b, c, p, p)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values (statsmodels ``multipletests(method="holm")``)."""
    if not pvalues:
        return []
    from statsmodels.stats.multitest import multipletests

    return [float(x) for x in multipletests(list(pvalues), alpha=ALPHA, method="holm")[1]]


def compare_all(outcomes: Mapping[str, Mapping[PairKey, int]], baseline: str) -> list[Comparison]:
    """Every arm of ``outcomes`` (label -> pair key -> first side won) but ``baseline`` against it,
    in ``outcomes`` order, with Holm-adjusted p-values over the family.

    Raises:
        KeyError: ``baseline`` is not an arm.
    """
    base = outcomes[baseline]
    raw = [compare_arm(a, baseline, pair_outcomes(o, base)) for a, o in outcomes.items() if a != baseline]
    adjusted = holm([c.p for c in raw])
    return [
        Comparison(c.arm, c.baseline, c.n, c.share, c.base_share, c.diff, c.lo, c.hi, c.b, c.c, c.p, q)
        for c, q in zip(raw, adjusted, strict=True)
    ]


#: ``summary.csv`` columns of a comparison (on the first side's row of each arm).
COLUMNS = (
    "baseline",
    "pairs",
    "diff",
    "diff_lo",
    "diff_hi",
    "discordant_arm",
    "discordant_base",
    "p",
    "p_holm",
)


def cells(c: Comparison | None, baseline: str) -> dict[str, Any]:
    """The :data:`COLUMNS` cells of an arm's row (``c`` None: the baseline itself, or a row that is
    not the first side's: only ``baseline`` is filled)."""
    if c is None:
        return {"baseline": baseline, **dict.fromkeys(COLUMNS[1:], "")}
    return {
        "baseline": baseline,
        "pairs": c.n,
        "diff": round(c.diff, 6),
        "diff_lo": round(c.lo, 6),
        "diff_hi": round(c.hi, 6),
        "discordant_arm": c.b,
        "discordant_base": c.c,
        "p": round(c.p, 6),
        "p_holm": round(c.p_holm, 6),
    }


def table(comparisons: Sequence[Comparison], first_side: str) -> str:
    """The comparisons as aligned text: arm, pairs, win shares, difference [95 %], p, Holm p."""
    if not comparisons:
        return ""
    base = comparisons[0].baseline
    head = ["arm", "pairs", f"{first_side} wins", "baseline", "diff [95% paired CI]", "p", "p_holm", ""]
    body = []
    for c in comparisons:
        body.append(
            [
                c.arm,
                str(c.n),
                f"{100 * c.share:.1f}%",
                f"{100 * c.base_share:.1f}%",
                f"{100 * c.diff:+.1f} [{100 * c.lo:+.1f}, {100 * c.hi:+.1f}]",
                f"{c.p:.3g}",
                f"{c.p_holm:.3g}",
                "*" if c.significant else "",
            ]
        )
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    lines = [
        f"paired against the baseline {base!r} (same seeds; McNemar exact, Holm over {len(comparisons)})"
    ]
    lines += ["  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)).rstrip() for r in [head, *body]]
    lines.append(f"* family-wise significant at {ALPHA:g} (Holm); diff in points of {first_side}'s win share")
    return "\n".join(lines)
