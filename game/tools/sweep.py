"""Sweeps: the full cross product of scenarios, rulesets, policies and option values, and its report.

Contract:
- An :class:`Arm` is one variant of a sweep: a scenario under a ruleset with its options and the
  policy of each side, and its value of every factor (:data:`FACTORS` then one
  ``option.<key>`` per swept option; ``""`` where the arm's ruleset has no such option).
  Its label names the factors that vary in the sweep (``ruleset=gurps red=cautious
  ground_retreat_roll=true``), or is the scenario's stem when nothing varies.
- :func:`split_values` reads a comma-separated list of values (commas inside brackets or quotes
  do not split); :func:`option_grid` gives every combination of option values.
- :func:`varied` names the factors with more than one value; :func:`by_factor` pools the arms'
  battles by the value of one factor (the other factors' arms all play the same seeds) into
  win rates per side position with 95 % Wilson intervals; :func:`factor_plot` draws them
  (matplotlib Agg, written atomically); :func:`table` formats the per-arm summaries.
- Pure and deterministic; nothing here plays a battle.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from game.tools.stats import DRAW, Proportion, Summary, wilson

#: The factors every arm has, in column order (then ``option.<key>`` per swept option).
FACTORS = ("scenario", "ruleset", "red", "blue")


@dataclass(frozen=True)
class Arm:
    """One variant of a sweep (see the module docstring)."""

    label: str
    path: str
    spec: Any
    ruleset: str
    options: dict[str, Any]
    policies: dict[str, str]
    factors: dict[str, str]

    @property
    def sides(self) -> tuple[str, ...]:
        return tuple(self.spec.sides)


def split_values(text: str) -> list[str]:
    """``a,b,[1,2],"x,y"`` -> ``["a", "b", "[1,2]", '"x,y"']`` (blank items dropped)."""
    out: list[str] = []
    cur: list[str] = []
    depth, quote = 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur).strip())
    return [x for x in out if x]


def option_grid(values: Mapping[str, Sequence[Any]]) -> Iterator[dict[str, Any]]:
    """Every combination of the option values, the first key varying slowest."""
    keys = list(values)
    for combo in itertools.product(*(values[k] for k in keys)):
        yield dict(zip(keys, combo, strict=True))


def varied(arms: Sequence[Arm]) -> list[str]:
    """The factors with more than one value among ``arms``, in column order."""
    names = list(dict.fromkeys(f for a in arms for f in a.factors))
    return [f for f in names if len({a.factors.get(f, "") for a in arms}) > 1]


def label(factors: Mapping[str, str], varying: Sequence[str], fallback: str) -> str:
    """An arm's label: ``name=value`` of its varying factors (options without ``option.``)."""
    parts = [f"{f.removeprefix('option.')}={factors[f]}" for f in varying if factors.get(f, "") != ""]
    return " ".join(parts) or fallback


def side_names(arms: Sequence[Arm]) -> list[str]:
    """A name per side position: the side's name, or the names at that position '/'-joined."""
    width = max(len(a.sides) for a in arms)
    out = []
    for i in range(width):
        names = list(dict.fromkeys(a.sides[i] for a in arms if i < len(a.sides)))
        out.append("/".join(names))
    return out


def by_factor(
    arms: Sequence[Arm], rows: Mapping[str, Sequence[Mapping[str, Any]]], factor: str
) -> tuple[list[str], dict[str, list[Proportion]]]:
    """Pool the battle rows (arm label -> rows) by the value of ``factor``.

    Returns the factor's values (first-seen order, arms without it left out) and, per series
    (each side position by :func:`side_names`, then ``draws``), the proportion at each value.
    """
    values = list(dict.fromkeys(a.factors[factor] for a in arms if a.factors.get(factor, "") != ""))
    names = side_names(arms)
    series: dict[str, list[Proportion]] = {n: [] for n in [*names, "draws"]}
    for value in values:
        pool = [(a, r) for a in arms if a.factors.get(factor) == value for r in rows.get(a.label, ())]
        n = len(pool)
        for i, name in enumerate(names):
            k = sum(1 for a, r in pool if i < len(a.sides) and r["winner"] == a.sides[i])
            series[name].append(wilson(k, n))
        series["draws"].append(wilson(sum(1 for _, r in pool if r["winner"] == DRAW), n))
    return values, series


def factor_plot(
    factor: str, values: Sequence[str], series: Mapping[str, Sequence[Proportion]], path: Path
) -> Path:
    """Win rates (and draws) against the factor's values, with 95 % Wilson error bars."""
    # The figure and the atomic save of the batch plots, so every PNG is made the same way.
    from game.tools.plots import new_figure, save_figure

    fig = new_figure(width=max(6.0, 1.2 * len(values) + 3))
    ax = fig.add_subplot()
    width = 0.6 / max(1, len(series))
    for j, (name, props) in enumerate(series.items()):
        xs = [x + (j - (len(series) - 1) / 2) * width for x in range(len(values))]
        ps = [p.p for p in props]
        err = [[p.p - p.lo for p in props], [p.hi - p.p for p in props]]
        shown = name if name == "draws" else f"{name} wins"
        ax.errorbar(xs, ps, yerr=err, fmt="o", capsize=4, label=shown)
    name = factor.removeprefix("option.")
    counts = [p.n for p in next(iter(series.values()), [])]
    shown_values = tick_labels(values)
    ax.set_xticks(
        range(len(values)), [f"{v}\n{k} battles" for v, k in zip(shown_values, counts, strict=True)]
    )
    ax.set_xlabel(name)
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of battles (95% Wilson interval)")
    ax.set_title(f"Win rate by {name}")
    ax.legend(loc="best")
    return save_figure(fig, path)


def tick_labels(values: Sequence[str]) -> list[str]:
    """The values as a plot shows them: paths (scenario files, ``FILE.py:FUNCTION`` policies) by
    their last part, unless two would then read the same."""
    short = [v.replace("\\", "/").rsplit("/", 1)[-1] for v in values]
    return short if len(set(short)) == len(set(values)) else list(values)


def plot_name(factor: str) -> str:
    """File name of a factor's plot: ``win_rate_by_<factor>.png`` (options by their key)."""
    safe = "".join(ch if ch.isalnum() or ch in "_-" else "-" for ch in factor.removeprefix("option."))
    return f"win_rate_by_{safe}.png"


def table(
    arms: Sequence[Arm],
    summaries: Mapping[str, Summary],
    varying: Sequence[str],
    comparisons: Mapping[str, Any] | None = None,
    baseline: str | None = None,
) -> str:
    """The per-arm summaries as aligned text: the varying factors, battles, win rates, draws; with
    ``comparisons`` (arm label -> :class:`game.tools.paired.Comparison`) also each arm's paired
    difference from the ``baseline`` arm in the first side's win share, its 95 % interval and
    Holm-adjusted p-value (the baseline's row says ``baseline``)."""
    shown = list(varying) or ["scenario"]
    names = side_names(arms)
    head = [f.removeprefix("option.") for f in shown] + ["battles"] + [f"{n} wins" for n in names] + ["draws"]
    if comparisons is not None:
        head += ["diff [95% paired CI]", "p_holm"]
    body = []
    for a in arms:
        sm = summaries.get(a.label)
        if sm is None:
            continue
        cells = [a.factors.get(f, "") or "-" for f in shown] + [str(sm.n)]
        cells += [str(sm.wins[s]).strip() if i < len(a.sides) else "" for i, s in enumerate(a.sides)]
        cells += [""] * (len(names) - len(a.sides))
        cells.append(str(sm.draws).strip())
        if comparisons is not None:
            c = comparisons.get(a.label)
            if a.label == baseline:
                cells += ["baseline", ""]
            elif c is None:
                cells += ["", ""]
            else:
                mark = " *" if c.significant else ""
                cells += [
                    f"{100 * c.diff:+.1f} [{100 * c.lo:+.1f}, {100 * c.hi:+.1f}]",
                    f"{c.p_holm:.3g}{mark}",
                ]
        body.append(cells)
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in [head, *body]]
    return "\n".join(lines)
