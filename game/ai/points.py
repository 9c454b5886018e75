"""Choosing points inside legal regions (shared by every policy).

Contract: ``choose_point(option, rng, n)`` returns a point that the option's
validator accepts, drawn from ``option.region`` with the injected generator,
or ``None`` if none of ``n`` candidates is legal. :func:`sampling_region` is
``option.region`` for sampling: a move disc is sampled through its
:class:`~game.geometry.discs.ClippedDisc`, which gives GEOS's answers without building
the geometry (the draws are the same).
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from game.core.commands import Option
from game.geometry.discs import ClippedDisc


def sampling_region(option: Option) -> BaseGeometry | ClippedDisc | None:
    """``option.region``, or the :class:`~game.geometry.discs.ClippedDisc` its lazy region is built from.

    (Reads the option's lazy region without building it.)
    """
    lazy = option.lazy_region
    if lazy is not None and type(lazy.build) is ClippedDisc:
        return lazy.build
    return option.region


def sample_in(region: BaseGeometry | ClippedDisc | None, n: int, rng: np.random.Generator) -> np.ndarray:
    """Up to ``n`` points drawn uniformly inside ``region`` (rejection sampling on its bounds):
    a shapely geometry or a :class:`~game.geometry.discs.ClippedDisc`."""
    if region is None or region.is_empty:
        return np.empty((0, 2))
    minx, miny, maxx, maxy = region.bounds
    xs = rng.uniform(minx, maxx, 4 * n)
    ys = rng.uniform(miny, maxy, 4 * n)
    if type(region) is ClippedDisc:
        inside = region.contains_xy(xs, ys)
    else:
        inside = shapely.contains_xy(region, xs, ys)
    keep = np.flatnonzero(inside)[:n]
    out = np.empty((len(keep), 2))
    out[:, 0] = xs[keep]
    out[:, 1] = ys[keep]
    return out


def legal_points(option: Option, candidates: np.ndarray) -> list[tuple[float, float]]:
    """The candidates the option's validator accepts, as tuples."""
    out = []
    for x, y in candidates:
        p = (float(x), float(y))
        if option.validate is None or option.validate(p) is None:
            out.append(p)
    return out


def choose_point(option: Option, rng: np.random.Generator, n: int = 12) -> tuple[float, float] | None:
    """A random legal point of ``option`` (``None`` if none found among ``n`` tries)."""
    pts = legal_points(option, sample_in(sampling_region(option), n, rng))
    if not pts:
        return None
    return pts[int(rng.integers(len(pts)))]
