"""Choosing points inside legal regions (shared by every policy).

Contract: ``choose_point(option, rng, n)`` returns a point that the option's
validator accepts, drawn from ``option.region`` with the injected generator,
or ``None`` if none of ``n`` candidates is legal. :func:`sampling_region` is
``option.region`` for sampling: a move disc is sampled through its
:class:`~game.geometry.discs.ClippedDisc`, which gives GEOS's answers without building
the geometry (the draws are the same), and a retreat's arcs through their
:class:`~game.movement.regions.ArcRegion`, sampled by angle (:func:`sample_on_arcs`: the points lie
on the arcs, where a 2-D sample would almost never fall). Other one-dimensional regions (shapely
lines) are sampled along their length (:func:`sample_on_lines`).

``snap_first(view, option, points, order)`` is a policy's fallback when none of its wanted points
is legal: the first of them (in its order of preference) that
:meth:`~game.engine.view.MatchView.snap_to_region` puts on a legal point of the region within
:data:`SNAP_WITHIN` inches: the snapping a player's click gets in the window.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from game.core.commands import Option
from game.engine.view import MatchView
from game.geometry.discs import ClippedDisc
from game.movement.regions import ArcRegion

#: How far (inches) a policy's wanted point may lie from the legal points of a region and still
#: be snapped onto them (:func:`snap_first`).
SNAP_WITHIN = 0.25
#: Shapely geometry types of one-dimensional regions (sampled along their length).
_LINEAR = ("LineString", "MultiLineString", "LinearRing")
#: Region types sampled through the object their lazy region is built from.
_SAMPLED_DIRECTLY = (ClippedDisc, ArcRegion)


def sampling_region(option: Option) -> BaseGeometry | ClippedDisc | ArcRegion | None:
    """``option.region``, or the :class:`~game.geometry.discs.ClippedDisc` or
    :class:`~game.movement.regions.ArcRegion` its lazy region is built from.

    (Reads the option's lazy region without building it.)
    """
    lazy = option.lazy_region
    if lazy is not None and type(lazy.build) in _SAMPLED_DIRECTLY:
        return lazy.build  # type: ignore[no-any-return]
    return option.region  # type: ignore[no-any-return]


def sample_in(
    region: BaseGeometry | ClippedDisc | ArcRegion | None, n: int, rng: np.random.Generator
) -> np.ndarray:
    """Up to ``n`` points drawn uniformly inside ``region`` (rejection sampling on its bounds):
    a shapely geometry or a :class:`~game.geometry.discs.ClippedDisc`; exactly ``n`` on an
    :class:`~game.movement.regions.ArcRegion` or a linear geometry (see the module docstring)."""
    if region is None or region.is_empty:
        return np.empty((0, 2))
    if type(region) is ArcRegion:
        return sample_on_arcs(region, n, rng)
    if type(region) is not ClippedDisc and region.geom_type in _LINEAR:  # type: ignore[union-attr]
        return sample_on_lines(region, n, rng)
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


def sample_on_arcs(arcs: ArcRegion, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` points uniform over the total length of ``arcs``, exactly on them (by angle)."""
    if n <= 0 or arcs.is_empty:
        return np.empty((0, 2))
    return arcs.at(rng.random(n) * arcs.length)


def sample_on_lines(lines: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` points uniform over the length of a linear shapely geometry (on its segments)."""
    parts = [p for p in shapely.get_parts(lines) if p.length > 0]
    if n <= 0 or not parts:
        return np.empty((0, 2))
    sizes = np.array([p.length for p in parts])
    ends = np.cumsum(sizes)
    want = rng.random(n) * ends[-1]
    k = np.minimum(np.searchsorted(ends, want, side="right"), len(parts) - 1)
    pts = shapely.line_interpolate_point(np.asarray(parts, dtype=object)[k], want - (ends[k] - sizes[k]))
    return np.asarray(shapely.get_coordinates(pts), dtype=np.float64).reshape(-1, 2)


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


def snap_first(
    view: MatchView, option: Option, points: np.ndarray, order: Iterable[int], within: float = SNAP_WITHIN
) -> tuple[float, float] | None:
    """The legal point :meth:`~game.engine.view.MatchView.snap_to_region` gives for the first of
    ``points`` (in ``order``) it can snap within ``within`` inches, or None."""
    for i in order:
        x, y = points[int(i)]
        p = view.snap_to_region(option, (float(x), float(y)), within)
        if p is not None:
            return p
    return None
