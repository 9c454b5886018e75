"""A scenario's static obstacle arrays for the compiled kernels (:mod:`game.geometry.kernel`).

Contract: :class:`ObstacleGrid` holds the convex pieces, their edges with outward normals,
bounding circles and a uniform grid over the pieces; :func:`build_obstacles` makes it once per
:class:`game.geometry.fast.SightIndex`. Plain numpy: nothing here is compiled.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from game.geometry.kernel.common import _GRID_CELL
from game.geometry.model import (
    FloatArray,
    IntArray,
)


@dataclass(frozen=True)
class ObstacleGrid:
    """A scenario's static obstacle arrays, packed for the kernels.

    Attributes:
        edge: (V, 6) per edge: start vertex x, y, outward unit normal x, y, ``n·v`` (the
            line's offset) and the normal's angle; a piece's edges are consecutive, edge ``j``
            running from its vertex ``j`` to the next (the interior on its left).
        piece_i: (P, 3) per convex piece: first edge, edge count, obstacle.
        piece_f: (P, 4) per piece: bounding-circle centre x, y, radius, and height.
        obstacle_size: (O,) obstacle sizes (hidden rule).
        obstacle_i: (O, 2) per obstacle: first entry in ``obstacle_pieces``, piece count.
        obstacle_pieces: (P,) pieces grouped by obstacle.
        grid_f: (3,) grid origin x, y and cell size.
        grid_i: (2,) grid columns and rows.
        grid_ptr: (cells + 1,) CSR offsets into ``grid_item`` (cell = column · rows + row).
        grid_item: per cell, the pieces whose polygon meets it.
    """

    edge: FloatArray
    piece_i: IntArray
    piece_f: FloatArray
    obstacle_size: FloatArray
    obstacle_i: IntArray
    obstacle_pieces: IntArray
    grid_f: FloatArray
    grid_i: IntArray
    grid_ptr: IntArray
    grid_item: IntArray

    def args(self) -> tuple[NDArray[Any], ...]:
        """The arrays in kernel-argument order."""
        return (
            self.edge,
            self.piece_i,
            self.piece_f,
            self.obstacle_size,
            self.obstacle_i,
            self.obstacle_pieces,
            self.grid_f,
            self.grid_i,
            self.grid_ptr,
            self.grid_item,
        )


def build_obstacles(
    rings: Sequence[NDArray[np.float64]], owner: Sequence[int], heights: FloatArray, sizes: FloatArray
) -> ObstacleGrid:
    """Pack convex pieces (counter-clockwise in a y-down frame: interior on the left).

    Args:
        rings: (k, 2) vertex arrays, one per convex piece, without the closing vertex.
        owner: obstacle of each piece.
        heights: (O,) obstacle heights.
        sizes: (O,) obstacle sizes.
    """
    n_p = len(rings)
    n_o = len(sizes)
    counts = np.array([len(r) for r in rings], dtype=np.int64)
    vstart = (np.cumsum(counts) - counts).astype(np.int64)
    verts = np.concatenate(rings) if n_p else np.zeros((0, 2))
    vx, vy = verts[:, 0], verts[:, 1]
    nxt = np.arange(len(verts), dtype=np.int64) + 1
    if n_p:
        nxt[vstart + counts - 1] = vstart
    ex, ey = vx[nxt] - vx, vy[nxt] - vy
    length = np.sqrt(ex * ex + ey * ey)
    nx, ny = ey / length, -ex / length
    edge = np.column_stack([vx, vy, nx, ny, nx * vx + ny * vy, np.arctan2(ny, nx)]).reshape(-1, 6)
    own = np.asarray(owner, dtype=np.int64).reshape(n_p)
    cx = np.zeros(n_p)
    cy = np.zeros(n_p)
    rad = np.zeros(n_p)
    for k, ring in enumerate(rings):
        lo, hi = ring.min(axis=0), ring.max(axis=0)
        cx[k], cy[k] = 0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])
        rad[k] = float(np.max(np.hypot(ring[:, 0] - cx[k], ring[:, 1] - cy[k])))
    rad = rad * (1.0 + 1e-12) + 1e-12
    piece_f = np.column_stack([cx, cy, rad, np.asarray(heights, dtype=np.float64)[own]]).reshape(n_p, 4)
    by_obstacle = np.argsort(own, kind="stable").astype(np.int64)
    pcount = np.bincount(own, minlength=n_o).astype(np.int64)
    obstacle_i = np.column_stack([np.cumsum(pcount) - pcount, pcount]).reshape(n_o, 2).astype(np.int64)
    grid_f, grid_i, grid_ptr, grid_item = _build_grid(rings, rad)
    return ObstacleGrid(
        np.ascontiguousarray(edge, dtype=np.float64),
        np.ascontiguousarray(np.column_stack([vstart, counts, own]).reshape(n_p, 3), dtype=np.int64),
        np.ascontiguousarray(piece_f, dtype=np.float64),
        np.ascontiguousarray(sizes, dtype=np.float64),
        np.ascontiguousarray(obstacle_i),
        by_obstacle,
        grid_f,
        grid_i,
        grid_ptr,
        grid_item,
    )


def _build_grid(
    rings: Sequence[NDArray[np.float64]], rad: FloatArray
) -> tuple[FloatArray, IntArray, IntArray, IntArray]:
    """A uniform grid over the pieces: each is filed under every cell its polygon meets.

    Filing the polygon rather than its bounding circle keeps thin walls out of most cells
    around them. Cells are about as wide as a piece's bounding circle (measured best: smaller
    cells cost more cell visits than they save piece tests).
    """
    n_p = len(rings)
    if n_p == 0:
        return (
            np.zeros(3),
            np.zeros(2, dtype=np.int64),
            np.zeros(1, dtype=np.int64),
            np.zeros(0, dtype=np.int64),
        )
    verts = np.concatenate(rings)
    x0, y0 = float(verts[:, 0].min()), float(verts[:, 1].min())
    x1, y1 = float(verts[:, 0].max()), float(verts[:, 1].max())
    cell = max(_GRID_CELL * float(np.mean(2.0 * rad)), 1e-6)
    cell = max(cell, math.sqrt((x1 - x0) * (y1 - y0) / (8.0 * n_p + 16.0)))
    ncx = int((x1 - x0) / cell) + 1
    ncy = int((y1 - y0) / cell) + 1
    cells: list[NDArray[np.int64]] = []
    items: list[NDArray[np.int64]] = []
    for p, ring in enumerate(rings):
        lo, hi = ring.min(axis=0), ring.max(axis=0)
        i0, i1 = (np.floor((np.array([lo[0], hi[0]]) - x0) / cell).astype(np.int64)).clip(0, ncx - 1)
        j0, j1 = (np.floor((np.array([lo[1], hi[1]]) - y0) / cell).astype(np.int64)).clip(0, ncy - 1)
        grid_ii, grid_jj = np.meshgrid(np.arange(i0, i1 + 1), np.arange(j0, j1 + 1), indexing="ij")
        ii, jj = grid_ii.ravel(), grid_jj.ravel()
        # separating axes: a cell is dropped if it lies wholly outside one edge's half-plane
        # (the box axes are covered by the polygon's bounding box)
        e = np.roll(ring, -1, axis=0) - ring
        length = np.hypot(e[:, 0], e[:, 1])
        nx, ny = e[:, 1] / length, -e[:, 0] / length
        off = nx * ring[:, 0] + ny * ring[:, 1]
        bx = x0 + np.where(nx[None, :] >= 0.0, ii[:, None], ii[:, None] + 1) * cell  # corner least along n
        by = y0 + np.where(ny[None, :] >= 0.0, jj[:, None], jj[:, None] + 1) * cell
        apart = nx[None, :] * bx + ny[None, :] * by - off[None, :] > 1e-9 * (1.0 + np.abs(off[None, :]))
        keep = ~apart.any(axis=1)
        cells.append(ii[keep] * ncy + jj[keep])
        items.append(np.full(int(keep.sum()), p, dtype=np.int64))
    cell_of = np.concatenate(cells)
    item = np.concatenate(items)
    order = np.argsort(cell_of, kind="stable")
    ptr = np.zeros(ncx * ncy + 1, dtype=np.int64)
    np.cumsum(np.bincount(cell_of, minlength=ncx * ncy), out=ptr[1:])
    return (
        np.array([x0, y0, cell], dtype=np.float64),
        np.array([ncx, ncy], dtype=np.int64),
        ptr,
        np.ascontiguousarray(item[order]),
    )
