"""Bradley-Terry ratings of players from pairwise results, with 95 % intervals.

Contract:
- :func:`bradley_terry` fits the Bradley-Terry model ``P(i beats j) = p_i / (p_i + p_j)`` by
  maximum likelihood (Hunter's MM iteration, 2004) to a table of results. A draw counts half a
  win for each player. To keep every estimate finite (a player that never lost would otherwise
  have an infinite rating) each pair of players that met also gets ``prior`` virtual drawn games
  (default one), a weak pull towards equal strength that large samples outweigh.
- Ratings are on the Elo scale, ``400 · log10(p_i)``, centred so that they average 0. The 95 %
  intervals come from the observed Fisher information of the log-likelihood in ``log p``: the
  Moore-Penrose inverse of the Hessian (whose one null direction is the common shift the
  centring removes) is the covariance of the centred ratings; an interval is ±1.96 standard
  errors. Players that never met anyone get no interval (NaN).
- Pure and deterministic: no random draws, no files.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

#: Two-sided 95 % normal quantile.
Z95 = 1.959963984540054
#: Elo points per natural-log unit of strength.
ELO = 400.0 / math.log(10.0)


@dataclass(frozen=True)
class Rating:
    """One player's Bradley-Terry rating (Elo scale, centred) with its 95 % interval."""

    player: str
    rating: float
    lo: float
    hi: float
    games: int


@dataclass(frozen=True)
class Results:
    """Pairwise results: ``wins[(i, j)]`` games i won against j, ``draws[(i, j)]`` (i < j by name)
    games they drew."""

    players: tuple[str, ...]
    wins: Mapping[tuple[str, str], int]
    draws: Mapping[tuple[str, str], int]

    def games(self, a: str, b: str) -> int:
        """Games between ``a`` and ``b`` (either order)."""
        key = (a, b) if a < b else (b, a)
        return self.wins.get((a, b), 0) + self.wins.get((b, a), 0) + self.draws.get(key, 0)


def results(players: Sequence[str], games: Sequence[tuple[str, str, str | None]]) -> Results:
    """:class:`Results` from ``(a, b, winner)`` triples (winner None: a draw)."""
    wins: dict[tuple[str, str], int] = {}
    draws: dict[tuple[str, str], int] = {}
    for a, b, winner in games:
        if winner is None:
            key = (a, b) if a < b else (b, a)
            draws[key] = draws.get(key, 0) + 1
        else:
            loser = b if winner == a else a
            wins[(winner, loser)] = wins.get((winner, loser), 0) + 1
    return Results(tuple(players), wins, draws)


def bradley_terry(
    res: Results, prior: float = 1.0, iterations: int = 10_000, tol: float = 1e-10
) -> list[Rating]:
    """Fit the ratings (see the module docstring), in the order of ``res.players``."""
    names = list(res.players)
    k = len(names)
    index = {p: i for i, p in enumerate(names)}
    won = np.zeros((k, k))  # won[i, j]: wins of i over j, draws counting half, prior included
    for (a, b), n in res.wins.items():
        won[index[a], index[b]] += n
    for (a, b), n in res.draws.items():
        won[index[a], index[b]] += 0.5 * n
        won[index[b], index[a]] += 0.5 * n
    played = won + won.T
    met = played > 0
    won += 0.5 * prior * met
    games = won + won.T
    strength = np.ones(k)
    for _ in range(iterations):
        total = games / (strength[:, None] + strength[None, :])
        np.fill_diagonal(total, 0.0)
        denom = total.sum(axis=1)
        new = np.where(denom > 0, won.sum(axis=1) / np.where(denom > 0, denom, 1.0), strength)
        new = new / math.exp(float(np.mean(np.log(new))))
        done = float(np.max(np.abs(np.log(new) - np.log(strength)))) < tol
        strength = new
        if done:
            break
    theta = np.log(strength)
    theta -= theta.mean()
    p = np.exp(theta)
    pair = games * (p[:, None] * p[None, :]) / (p[:, None] + p[None, :]) ** 2
    np.fill_diagonal(pair, 0.0)
    hessian = np.diag(pair.sum(axis=1)) - pair
    cov = np.linalg.pinv(hessian)
    out = []
    for i, name in enumerate(names):
        n = round(float(played[i].sum()))
        se = math.sqrt(max(0.0, float(cov[i, i]))) if n > 0 else math.nan
        r = ELO * float(theta[i])
        out.append(Rating(name, r, r - Z95 * ELO * se, r + Z95 * ELO * se, n))
    return out
