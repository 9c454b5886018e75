"""A round robin of AI policies over scenarios and rulesets: cross-table, ratings, plot, tidy rows.

Contract:
- :func:`plan_tournament` lists the battles: every unordered pair of the policies plays every
  scenario under every ruleset on the same seeds, each seed with both side assignments (the
  first policy of the pair on the scenario's first side, then swapped). Every pair meets on
  exactly the same battles, so the table compares like with like. Policies are registered names
  (:func:`game.ai.policy_names`) or user policies (``FILE.py:FUNCTION``, ``MODULE:FUNCTION``,
  :mod:`game.ai.loader`), with options per name as :func:`game.ai.get_policy` takes them.
- :func:`run_tournament` plays them through :func:`game.tools.batch.run_batch` (local processes,
  a tqdm bar) and returns a :class:`Tournament`: the battle rows of the batch module and the
  tidy rows, one per battle and side (:data:`TIDY_COLUMNS`).
- :func:`cross_table` counts, for each ordered pair, wins, losses and draws and the win rate
  among decisive battles with its 95 % Wilson interval; :func:`standings` adds up each policy's
  results; :func:`ratings` fits Bradley-Terry ratings with 95 % intervals from the Fisher
  information (:mod:`game.tools.ratings`).
- :func:`write_outputs` writes into a folder: ``crosstable.md`` (the cross-table, the standings
  and the ratings as Markdown), ``crosstable.csv`` (one row per ordered pair), ``ratings.csv``,
  ``tournament.png`` (ratings with their intervals, and the cross-table as a heat map) and
  ``battles.csv`` (the tidy rows). Files are written atomically.
- Deterministic: the same policies, scenarios, rulesets and seeds give the same rows in any
  number of worker processes.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from game.core.events import atomic_write_text
from game.tools import batch
from game.tools.ratings import Rating, bradley_terry, results
from game.tools.stats import DRAW, Proportion, wilson

#: Columns of the tidy rows (one per battle and side).
TIDY_COLUMNS = (
    "scenario",
    "ruleset",
    "seed",
    "swapped",
    "side",
    "policy",
    "opponent",
    "result",
    "score",
    "rounds",
    "reason",
    "damage_dealt",
    "damage_taken",
    "survivors",
    "opponent_survivors",
    "attacks",
    "final_hash",
)

#: File names written by :func:`write_outputs`.
CROSSTABLE_MD = "crosstable.md"
CROSSTABLE_CSV = "crosstable.csv"
RATINGS_CSV = "ratings.csv"
PLOT = "tournament.png"
BATTLES_CSV = "battles.csv"


@dataclass(frozen=True)
class Tournament:
    """A played round robin: the policies in order, the battle rows and the tidy rows (battles
    that ended in an error, a user policy's doing, are in ``errors`` only)."""

    policies: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]
    tidy: tuple[dict[str, Any], ...]
    errors: tuple[dict[str, Any], ...] = ()


def plan_tournament(
    *,
    policies: Sequence[str],
    scenarios: Sequence[str],
    rulesets: Sequence[str],
    seeds: Sequence[int],
    policy_options: Mapping[str, Mapping[str, Any]] | None = None,
    round_limit: int | None = None,
    policy_timeout: float | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[batch.BattleJob]:
    """The battles of the round robin (see the module docstring), pair-major; ``options``: ruleset
    name -> its options (``--option``, over each scenario's own), checked by the caller.

    Raises:
        ValueError: fewer than two distinct policies, or none of scenarios, rulesets, seeds.
        ScenarioError: a scenario file is invalid.
    """
    names = list(dict.fromkeys(policies))
    if len(names) < 2:
        raise ValueError("a tournament needs at least two different policies")
    if not scenarios or not rulesets or not seeds:
        raise ValueError("a tournament needs at least one scenario, ruleset and seed")
    jobs: list[batch.BattleJob] = []
    for a, b in itertools.combinations(names, 2):
        for path in scenarios:
            for ruleset in rulesets:
                spec = batch.load_spec(path, ruleset)
                first, second = spec.sides[0], spec.sides[1]
                jobs += batch.plan(
                    seeds=seeds,
                    scenario=path,
                    spec=spec,
                    ruleset=ruleset,
                    policies={first: a, second: b},
                    swap_sides=True,
                    round_limit=round_limit,
                    policy_options=policy_options,
                    policy_timeout=policy_timeout,
                    options={**spec.options.get(ruleset, {}), **(options or {}).get(ruleset, {})},
                )
    return jobs


def tidy_rows(row: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The two tidy rows (one per side of the first two) of one battle row."""
    sides = [k[len("policy_") :] for k in row if k.startswith("policy_")][:2]
    out = []
    for side, other in ((sides[0], sides[1]), (sides[1], sides[0])):
        winner = row["winner"]
        result = "draw" if winner == DRAW else ("win" if winner == side else "loss")
        out.append(
            {
                "scenario": row["scenario"],
                "ruleset": row["ruleset"],
                "seed": row["seed"],
                "swapped": row["swapped"],
                "side": side,
                "policy": row[f"policy_{side}"],
                "opponent": row[f"policy_{other}"],
                "result": result,
                "score": {"win": 1.0, "draw": 0.5, "loss": 0.0}[result],
                "rounds": row["rounds"],
                "reason": row["reason"],
                "damage_dealt": row[f"damage_{side}"],
                "damage_taken": row[f"damage_{other}"],
                "survivors": row[f"survivors_{side}"],
                "opponent_survivors": row[f"survivors_{other}"],
                "attacks": row[f"attacks_{side}"],
                "final_hash": row["final_hash"],
            }
        )
    return out


def run_tournament(
    jobs: Sequence[batch.BattleJob], policies: Sequence[str], workers: int = 1, progress: bool = True
) -> Tournament:
    """Play ``jobs`` (from :func:`plan_tournament`) and collect the rows.

    Raises:
        BattleFailed: a battle broke down (its seed and step in the message).
    """
    played = batch.run_batch(jobs, workers=workers, progress=progress, desc="tournament")
    rows = [r for r in played if "error" not in r]
    tidy = [t for row in rows for t in tidy_rows(row)]
    errors = tuple(r for r in played if "error" in r)
    return Tournament(tuple(dict.fromkeys(policies)), tuple(rows), tuple(tidy), errors)


# --------------------------------------------------------------------------- tables
@dataclass(frozen=True)
class Pairing:
    """``policy``'s results against ``opponent`` (each battle counted once, from its side)."""

    policy: str
    opponent: str
    wins: int
    losses: int
    draws: int

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def decisive(self) -> Proportion:
        """Win rate among decisive battles, with its 95 % Wilson interval."""
        return wilson(self.wins, self.wins + self.losses)

    @property
    def score(self) -> float:
        """Points per battle (win 1, draw 1/2)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0


def cross_table(t: Tournament) -> dict[tuple[str, str], Pairing]:
    """Every ordered pair of different policies with its :class:`Pairing`."""
    counts: dict[tuple[str, str], list[int]] = {}
    for r in t.tidy:
        c = counts.setdefault((r["policy"], r["opponent"]), [0, 0, 0])
        c[("win", "loss", "draw").index(r["result"])] += 1
    out = {}
    for a in t.policies:
        for b in t.policies:
            if a != b:
                w, lo, d = counts.get((a, b), [0, 0, 0])
                out[(a, b)] = Pairing(a, b, w, lo, d)
    return out


def standings(t: Tournament) -> dict[str, Pairing]:
    """Each policy's results against all the others together (``opponent`` is ``"all"``)."""
    table = cross_table(t)
    out = {}
    for a in t.policies:
        got = [p for (x, _), p in table.items() if x == a]
        out[a] = Pairing(
            a, "all", sum(p.wins for p in got), sum(p.losses for p in got), sum(p.draws for p in got)
        )
    return out


def ratings(t: Tournament, prior: float = 1.0) -> list[Rating]:
    """Bradley-Terry ratings of the policies (Elo scale, 95 % Fisher intervals), best first."""
    games = []
    for row in t.rows:
        sides = [k[len("policy_") :] for k in row if k.startswith("policy_")][:2]
        a, b = row[f"policy_{sides[0]}"], row[f"policy_{sides[1]}"]
        winner = row["winner"]
        games.append((a, b, None if winner == DRAW else row[f"policy_{winner}"]))
    fitted = bradley_terry(results(t.policies, games), prior=prior)
    return sorted(fitted, key=lambda r: -r.rating)


def _pct(p: Proportion) -> str:
    return f"{100 * p.p:.0f}% [{100 * p.lo:.0f}, {100 * p.hi:.0f}]" if p.n else "-"


def markdown(t: Tournament) -> str:
    """The cross-table, the standings and the ratings as Markdown."""
    table = cross_table(t)
    names = list(t.policies)
    lines = [
        "Cross-table: each cell is the row policy's wins-losses-draws against the column policy, "
        "and its win rate among decisive battles with the 95 % Wilson interval.",
        "",
        "| policy | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for a in names:
        cells = []
        for b in names:
            if a == b:
                cells.append("-")
            else:
                p = table[(a, b)]
                cells.append(f"{p.wins}-{p.losses}-{p.draws}<br>{_pct(p.decisive)}")
        lines.append(f"| **{a}** | " + " | ".join(cells) + " |")
    lines += [
        "",
        "| policy | battles | wins | losses | draws | win rate of decisive [95 %] | score |",
        "|---|---|---|---|---|---|---|",
    ]
    for a, p in standings(t).items():
        lines.append(
            f"| {a} | {p.games} | {p.wins} | {p.losses} | {p.draws} | {_pct(p.decisive)} | {p.score:.3f} |"
        )
    lines += [
        "",
        "Bradley-Terry ratings (Elo scale, mean 0; draws count half a win; 95 % intervals from the "
        "Fisher information):",
        "",
        "| policy | rating | 95 % interval |",
        "|---|---|---|",
    ]
    for r in ratings(t):
        lines.append(f"| {r.player} | {r.rating:+.0f} | [{r.lo:+.0f}, {r.hi:+.0f}] |")
    return "\n".join(lines) + "\n"


def _csv(rows: Sequence[Mapping[str, Any]]) -> str:
    return batch.rows_to_csv(rows) if rows else ""


def crosstable_rows(t: Tournament) -> list[dict[str, Any]]:
    """One CSV row per ordered pair."""
    out = []
    for (a, b), p in cross_table(t).items():
        d = p.decisive
        out.append(
            {
                "policy": a,
                "opponent": b,
                "battles": p.games,
                "wins": p.wins,
                "losses": p.losses,
                "draws": p.draws,
                "win_rate_decisive": round(d.p, 6),
                "win_rate_lo": round(d.lo, 6),
                "win_rate_hi": round(d.hi, 6),
                "score": round(p.score, 6),
            }
        )
    return out


def rating_rows(t: Tournament) -> list[dict[str, Any]]:
    """One CSV row per policy: its rating and interval."""
    return [
        {
            "policy": r.player,
            "rating": round(r.rating, 3),
            "lo": round(r.lo, 3),
            "hi": round(r.hi, 3),
            "battles": r.games,
        }
        for r in ratings(t)
    ]


def plot(t: Tournament, path: str | os.PathLike[str]) -> Path:
    """``tournament.png``: the ratings with their 95 % intervals, and the cross-table's decisive
    win rates as a heat map."""
    import numpy as np

    from game.tools.plots import new_figure, save_figure

    fig = new_figure(width=11.0, height=4.4)
    ax, hx = fig.subplots(1, 2, width_ratios=(1.0, 1.1))
    got = ratings(t)[::-1]
    y = np.arange(len(got))
    ax.errorbar(
        [r.rating for r in got],
        y,
        xerr=[[r.rating - r.lo for r in got], [r.hi - r.rating for r in got]],
        fmt="o",
        capsize=4,
    )
    ax.set_yticks(y, [r.player for r in got])
    ax.axvline(0.0, color="0.7", lw=0.8)
    ax.set_xlabel("Bradley-Terry rating (Elo scale, 95 % interval)")
    ax.set_title("ratings")
    names = list(t.policies)
    table = cross_table(t)
    grid = np.full((len(names), len(names)), np.nan)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if a != b and table[(a, b)].wins + table[(a, b)].losses:
                grid[i, j] = table[(a, b)].decisive.p
    im = hx.imshow(grid, vmin=0.0, vmax=1.0, cmap="RdYlGn")
    hx.set_xticks(range(len(names)), names, rotation=30, ha="right")
    hx.set_yticks(range(len(names)), names)
    for i in range(len(names)):
        for j in range(len(names)):
            if not np.isnan(grid[i, j]):
                hx.text(j, i, f"{100 * grid[i, j]:.0f}%", ha="center", va="center", fontsize=9)
    hx.set_title("row's win rate of decisive battles against column")
    fig.colorbar(im, ax=hx, shrink=0.8)
    return save_figure(fig, path)


def write_outputs(t: Tournament, out_dir: str | os.PathLike[str], with_plot: bool = True) -> list[Path]:
    """Write the files of the module docstring into ``out_dir``; returns their paths."""
    d = Path(out_dir)
    written = [
        atomic_write_text(d / CROSSTABLE_MD, markdown(t)),
        atomic_write_text(d / CROSSTABLE_CSV, _csv(crosstable_rows(t))),
        atomic_write_text(d / RATINGS_CSV, _csv(rating_rows(t))),
        atomic_write_text(d / BATTLES_CSV, _csv([{c: r[c] for c in TIDY_COLUMNS} for r in t.tidy])),
    ]
    if with_plot:
        written.append(plot(t, d / PLOT))
    return written
