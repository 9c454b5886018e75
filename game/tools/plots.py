"""PNG plots of a batch of battles (matplotlib, Agg backend, no window ever).

Contract: each function draws one figure from battle rows or summaries
(:mod:`game.tools.batch`, :mod:`game.tools.stats`) and writes it atomically (temp file +
rename) to the given path, returning that path; the file gets the usual permissions (0666
minus the umask), not the temp file's private 0600. Figures are built with
``matplotlib.figure.Figure`` directly, never ``pyplot``: no global state, no GUI
backend, safe in worker processes and tests.

- :func:`win_rates`: bars of each side's win rate and the draw rate with their
  95 % Wilson intervals as error bars, one group per compared variant.
- :func:`battle_lengths`: histogram of battle length in rounds (one series per variant).
- :func:`running_win_rate`: each side's win rate as battles accumulate, with
  the 95 % Wilson band, to show whether N was enough.
- :func:`write_all`: the three plots into a folder (``win_rates.png``,
  ``battle_length.png``, ``running_win_rate.png``).
- :func:`new_figure` and :func:`save_figure` are how every PNG of the tools is made (the sweep's
  and the tournament's plots too), so all of them are saved the same way.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from game.core.events import naming
from game.tools.stats import DRAW, Summary, running_rate, summarize, wilson

#: File names written by :func:`write_all`.
WIN_RATES = "win_rates.png"
BATTLE_LENGTH = "battle_length.png"
RUNNING = "running_win_rate.png"


def new_figure(width: float = 7.0, height: float = 4.2) -> Any:
    """A matplotlib figure drawn off-screen (Agg), laid out to fit."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig: Any, path: str | os.PathLike[str]) -> Path:
    """Write ``fig`` as a PNG at ``path`` atomically, with the permissions a plain open() gives."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        try:
            # mkstemp makes the file private (0600); give it the permissions a plain open() would.
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fd, 0o666 & ~umask)
        finally:
            os.close(fd)
        fig.savefig(tmp, format="png")
        os.replace(tmp, out)
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise naming(e, out) from None
        raise
    return out


def win_rates(summaries: Sequence[Summary], path: str | os.PathLike[str], title: str = "") -> Path:
    """Grouped bars: per variant, each side's win rate and the draw rate, with Wilson error bars."""
    fig = new_figure()
    ax = fig.add_subplot()
    groups = [*dict.fromkeys(s for sm in summaries for s in sm.sides), DRAW]
    width = 0.8 / max(1, len(summaries))
    for v, sm in enumerate(summaries):
        xs, ps, lo, hi = [], [], [], []
        for g, name in enumerate(groups):
            prop = sm.draws if name == DRAW else sm.wins.get(name)
            if prop is None:
                continue
            xs.append(g + (v - (len(summaries) - 1) / 2) * width)
            ps.append(prop.p)
            lo.append(prop.p - prop.lo)
            hi.append(prop.hi - prop.p)
        label = sm.label or f"{sm.n} battles"
        ax.bar(xs, ps, width=width * 0.95, yerr=[lo, hi], capsize=4, label=label)
    ax.set_xticks(range(len(groups)), [f"{g} wins" if g != DRAW else "draws" for g in groups])
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of battles (95% Wilson interval)")
    ax.set_title(title or "Win rates")
    ax.legend(loc="upper right")
    return save_figure(fig, path)


def battle_lengths(
    rows_by_variant: Mapping[str, Sequence[Mapping[str, Any]]], path: str | os.PathLike[str], title: str = ""
) -> Path:
    """Histogram of battle length (rounds), one step series per variant."""
    fig = new_figure()
    ax = fig.add_subplot()
    all_rounds = [int(r["rounds"]) for rows in rows_by_variant.values() for r in rows]
    top = max(all_rounds, default=1)
    bins = [b - 0.5 for b in range(0, top + 2)]
    for label, rows in rows_by_variant.items():
        ax.hist(
            [int(r["rounds"]) for r in rows], bins=bins, histtype="step", linewidth=1.8, label=label or None
        )
    ax.set_xlabel("rounds")
    ax.set_ylabel("battles")
    ax.set_title(title or "Battle length")
    if any(rows_by_variant):
        ax.legend(loc="upper right")
    return save_figure(fig, path)


def running_win_rate(
    rows_by_variant: Mapping[str, Sequence[Mapping[str, Any]]],
    sides: Sequence[str],
    path: str | os.PathLike[str],
    title: str = "",
) -> Path:
    """Each side's cumulative win rate against the number of battles, with its 95 % Wilson band.

    With several variants every (variant, side) pair gets its own line, labelled ``variant: side``.
    """
    fig = new_figure()
    ax = fig.add_subplot()
    several = len(rows_by_variant) > 1
    for label, rows in rows_by_variant.items():
        n = list(range(1, len(rows) + 1))
        for side in sides:
            rate = running_rate(rows, side)
            band = [wilson(round(p * i), i) for p, i in zip(rate, n, strict=True)]
            line = ax.plot(n, rate, label=f"{label}: {side}" if several else side)[0]
            ax.fill_between(n, [b.lo for b in band], [b.hi for b in band], alpha=0.15, color=line.get_color())
    ax.set_ylim(0, 1)
    ax.set_xlabel("battles")
    ax.set_ylabel("win rate so far")
    ax.set_title(title or "Running win rate (95% Wilson band)")
    ax.legend(loc="upper right")
    return save_figure(fig, path)


def write_all(
    rows_by_variant: Mapping[str, Sequence[Mapping[str, Any]]],
    out_dir: str | os.PathLike[str],
    sides: Sequence[str] | None = None,
) -> list[Path]:
    """Write the three standard plots for one batch (or several compared variants) into ``out_dir``."""
    out = Path(out_dir)
    summaries = [summarize(rows, sides, label) for label, rows in rows_by_variant.items()]
    names = list(sides) if sides is not None else list(dict.fromkeys(s for sm in summaries for s in sm.sides))
    return [
        win_rates(summaries, out / WIN_RATES),
        battle_lengths(rows_by_variant, out / BATTLE_LENGTH),
        running_win_rate(rows_by_variant, names, out / RUNNING),
    ]
