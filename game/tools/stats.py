"""Statistics for batches of battles: win rates with honest intervals.

Contract:
- :func:`wilson` gives the Wilson score interval of a binomial proportion
  (``k`` successes in ``n`` trials); it stays inside [0, 1] and is sensible at
  ``k = 0`` and ``k = n``, where the plain normal interval collapses. ``n = 0``
  gives the uninformative interval (0, 1).
- :func:`newcombe` gives the difference of two independent proportions with
  Newcombe's hybrid score interval (Newcombe 1998, method 10), built from the two
  Wilson intervals.
- :func:`summarize` turns battle rows (see :mod:`game.tools.batch`) into a
  :class:`Summary`: per-side wins, draws, mean rounds and, when the policies were
  swapped between sides, per-policy wins. :func:`summary_table` formats it as
  plain text for the terminal.
- :func:`mechanic_totals` adds up the ``<mechanic>_<side>`` columns of the rows (how often
  each side fired each mechanic of the ruleset); :func:`mechanics_table` formats them with
  the mean per battle.
- :func:`summary_records` gives a summary as tidy rows (the ``summary.csv`` of ``battle`` and
  ``sweep``: one row per variant and side, rates and Wilson bounds as fractions).
- Everything here is pure and deterministic; nothing draws random numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: Two-sided 95 % normal quantile.
Z95 = 1.959963984540054

#: The value of ``winner`` in a battle row when nobody won.
DRAW = "draw"


@dataclass(frozen=True)
class Proportion:
    """``k`` of ``n`` with its point estimate and interval (``lo``, ``hi``)."""

    k: int
    n: int
    p: float
    lo: float
    hi: float

    def __str__(self) -> str:
        return f"{100 * self.p:5.1f}% [{100 * self.lo:5.1f}, {100 * self.hi:5.1f}]"


@dataclass(frozen=True)
class Difference:
    """``a.p - b.p`` with its interval; ``significant`` if the interval excludes 0."""

    a: Proportion
    b: Proportion
    diff: float
    lo: float
    hi: float

    @property
    def significant(self) -> bool:
        return self.lo > 0.0 or self.hi < 0.0

    def __str__(self) -> str:
        return f"{100 * self.diff:+.1f} points [{100 * self.lo:+.1f}, {100 * self.hi:+.1f}]"


def wilson(k: int, n: int, z: float = Z95) -> Proportion:
    """Wilson score interval for ``k`` successes in ``n`` trials.

    Args:
        k: successes, ``0 <= k <= n``.
        n: trials (0 gives the interval (0, 1) around p = 0).
        z: normal quantile of the confidence level (default 95 %).

    Returns:
        The proportion with its interval, clamped to [0, 1].

    Raises:
        ValueError: ``k`` or ``n`` out of range.
    """
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return Proportion(0, 0, 0.0, 0.0, 1.0)
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
    # At k = 0 or k = n one bound is exactly p; rounding must not push it past p.
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return Proportion(k, n, p, lo, hi)


def newcombe(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> Difference:
    """Difference ``k1/n1 - k2/n2`` with Newcombe's hybrid score interval (method 10).

    The interval combines the two Wilson intervals: the lower bound is
    ``d - sqrt((p1 - l1)^2 + (u2 - p2)^2)``, the upper ``d + sqrt((u1 - p1)^2 + (p2 - l2)^2)``.
    """
    a, b = wilson(k1, n1, z), wilson(k2, n2, z)
    d = a.p - b.p
    lo = d - math.sqrt((a.p - a.lo) ** 2 + (b.hi - b.p) ** 2)
    hi = d + math.sqrt((a.hi - a.p) ** 2 + (b.p - b.lo) ** 2)
    return Difference(a, b, d, max(-1.0, lo), min(1.0, hi))


@dataclass(frozen=True)
class Summary:
    """What a batch says about who wins.

    Attributes:
        n: battles.
        sides: side names in scenario order.
        wins: side -> wins of that side.
        draws: battles nobody won.
        policy_wins: policy -> wins of whichever side it played (only when the
            rows hold more than one assignment of policies to sides, i.e. ``--swap-sides``).
        mean_rounds: mean battle length in rounds.
        sd_rounds: its sample standard deviation (0 for fewer than two battles).
        label: the variant these rows belong to ("" for a plain batch).
    """

    n: int
    sides: tuple[str, ...]
    wins: dict[str, Proportion]
    draws: Proportion
    policy_wins: dict[str, Proportion]
    mean_rounds: float
    sd_rounds: float
    label: str = ""


def sides_of(rows: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """Side names in column order, from the ``policy_<side>`` columns of the rows."""
    seen: dict[str, None] = {}
    for row in rows:
        for key in row:
            if key.startswith("policy_"):
                seen.setdefault(key[len("policy_") :], None)
    return tuple(seen)


def summarize(
    rows: Sequence[Mapping[str, Any]], sides: Sequence[str] | None = None, label: str = ""
) -> Summary:
    """Summarize battle rows (``winner``, ``rounds``, ``policy_<side>`` columns).

    Args:
        rows: one mapping per battle.
        sides: side names (default: taken from the ``policy_<side>`` columns).
        label: carried into the summary (the compared variant's name).
    """
    names = tuple(sides) if sides is not None else sides_of(rows)
    n = len(rows)
    wins = {s: wilson(sum(1 for r in rows if r["winner"] == s), n) for s in names}
    draws = wilson(sum(1 for r in rows if r["winner"] == DRAW), n)
    rounds = [float(r["rounds"]) for r in rows]
    mean = sum(rounds) / n if n else 0.0
    sd = math.sqrt(sum((x - mean) ** 2 for x in rounds) / (n - 1)) if n > 1 else 0.0
    assignments = {tuple(str(r.get(f"policy_{s}", "")) for s in names) for r in rows}
    policy_wins: dict[str, Proportion] = {}
    if len(assignments) > 1:
        policies = sorted({p for a in assignments for p in a})
        for pol in policies:
            k = sum(1 for r in rows if r["winner"] != DRAW and r.get(f"policy_{r['winner']}") == pol)
            policy_wins[pol] = wilson(k, n)
    return Summary(n, names, wins, draws, policy_wins, mean, sd, label)


def running_rate(rows: Iterable[Mapping[str, Any]], side: str) -> list[float]:
    """The win rate of ``side`` after each battle, in row order."""
    out: list[float] = []
    k = 0
    for i, row in enumerate(rows, 1):
        k += row["winner"] == side
        out.append(k / i)
    return out


def summary_table(summary: Summary, policies: Mapping[str, str] | None = None) -> str:
    """The summary as an aligned plain-text table (95 % Wilson intervals).

    Args:
        summary: from :func:`summarize`.
        policies: side -> policy, shown beside each side when given.
    """
    title = f"{summary.n} battles" + (f" ({summary.label})" if summary.label else "")
    lines = [title, f"{'':<22}{'wins':>6}  {'win rate [95% CI]':<24}"]
    for side in summary.sides:
        pol = f" ({policies[side]})" if policies and side in policies else ""
        w = summary.wins[side]
        lines.append(f"{(side + pol)[:22]:<22}{w.k:>6}  {w}")
    lines.append(f"{'draws':<22}{summary.draws.k:>6}  {summary.draws}")
    for pol, w in summary.policy_wins.items():
        lines.append(f"{('policy ' + pol)[:22]:<22}{w.k:>6}  {w}")
    lines.append(f"mean rounds {summary.mean_rounds:.2f} (sd {summary.sd_rounds:.2f})")
    return "\n".join(lines)


@dataclass(frozen=True)
class MechanicTotal:
    """How often each side fired one mechanic over ``n`` battles."""

    name: str
    totals: dict[str, int]
    n: int

    def mean(self, side: str) -> float:
        """Times per battle for ``side`` (0 for no battles)."""
        return self.totals.get(side, 0) / self.n if self.n else 0.0


def mechanic_totals(
    rows: Sequence[Mapping[str, Any]], sides: Sequence[str], names: Sequence[str]
) -> list[MechanicTotal]:
    """Sum the ``<name>_<side>`` columns over ``rows`` for each mechanic name (empty cells: 0)."""
    out = []
    for name in names:
        totals = {s: sum(int(r.get(f"{name}_{s}") or 0) for r in rows) for s in sides}
        out.append(MechanicTotal(name, totals, len(rows)))
    return out


def mechanics_table(totals: Sequence[MechanicTotal], sides: Sequence[str]) -> str:
    """Mechanic counts as aligned plain text: one line per mechanic, per side total and mean."""
    width = max([len("mechanic"), *(len(t.name) for t in totals)]) + 2
    head = f"{'mechanic (total, per battle)':<{width}}"
    if len(head) > width:
        width = len(head)
    lines = [head + "".join(f"{s[:16]:>18}" for s in sides)]
    for t in totals:
        cells = "".join(f"{t.totals[s]:>9} ({t.mean(s):6.2f})" for s in sides)
        lines.append(f"{t.name:<{width}}{cells}")
    return "\n".join(lines)


#: Columns of :func:`summary_records` after the variant's own.
SUMMARY_COLUMNS = (
    "side",
    "policy",
    "battles",
    "wins",
    "win_rate",
    "win_low",
    "win_high",
    "draws",
    "draw_rate",
    "draw_low",
    "draw_high",
    "mean_rounds",
    "sd_rounds",
)


def summary_records(
    summary: Summary, policies: Mapping[str, str], variant: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The summary as tidy rows (one per side, then one per policy under ``--swap-sides``).

    Each row starts with ``variant``'s columns (what the variant is), then :data:`SUMMARY_COLUMNS`;
    win rates and their 95 % Wilson bounds are fractions in [0, 1]. A policy row's ``side`` is
    ``either`` (the policy's wins on whichever side it played).
    """
    head = dict(variant or {})
    d = summary.draws

    def rec(side: str, policy: str, w: Proportion) -> dict[str, Any]:
        return {
            **head,
            "side": side,
            "policy": policy,
            "battles": summary.n,
            "wins": w.k,
            "win_rate": round(w.p, 6),
            "win_low": round(w.lo, 6),
            "win_high": round(w.hi, 6),
            "draws": d.k,
            "draw_rate": round(d.p, 6),
            "draw_low": round(d.lo, 6),
            "draw_high": round(d.hi, 6),
            "mean_rounds": round(summary.mean_rounds, 4),
            "sd_rounds": round(summary.sd_rounds, 4),
        }

    out = [rec(s, policies.get(s, ""), summary.wins[s]) for s in summary.sides]
    out += [rec("either", pol, w) for pol, w in summary.policy_wins.items()]
    return out
