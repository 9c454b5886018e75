"""Fast exact sight and cover for many pairs at once: numpy, no per-pair Python loops.

Contract: :class:`SightIndex` answers the same questions as :mod:`game.geometry.reference`
with the same model (DESIGN §3) and the same decisions (edge policy, hidden rule, arcs), for
arrays of attacker/target pairs. Its cover fractions are exact too (closed-form integration
of the same piecewise profile), so they agree with the oracle to ~1e-9 and every derived
field (visible, level, hidden, arc, intervening) is equal.

Built once per scenario: obstacles are split into convex pieces (a convex polygon is its own
piece; a concave one is cut into constrained-Delaunay triangles); every edge is stored with
its outward unit normal and that normal's angle, every piece with a bounding circle.

Per query, all pairs at once (``S`` distinct attackers, ``P`` pairs):

1. Per attacker: the bearing of every obstacle vertex (an ``S × V`` table) and the
   bounding-circle bearing, angular radius and nearest distance of every piece.
   Visibility horizon (queries with many pairs per attacker): per attacker and 256 angular
   bins, the distance beyond which every ray of the bin is inside a piece taller than the
   eye and every target; pairs whose window lies wholly behind it are total at once and keep
   only the pieces that may screen their target, and pieces wholly behind it are dropped
   from the broad phase (unless they may screen a target).
2. Broad phase: each attacker's pieces are filed under 64 angular bins (by bounding-circle
   span) and 16 distance bands; a pair reads only the bins its window covers and the bands
   nearer than its target, keeps each piece once, and drops pieces outside the window.
3. Edge cull: an edge is kept only if its angular span (from the vertex table) meets the
   window ``[−α, α]`` (all edges are kept when the attacker may be inside the piece).
4. Occlusion cull: a piece taller than the eye and the target hides ``H`` on every ray
   through it; if one is entered before ``D`` on both window edges the pair is total (the
   rays entering a convex piece before ``D`` form one interval). Such pieces in the nearer
   half of each line are culled first; blocked pairs then skip everything but the pieces that
   may screen the target for the hidden rule.
5. Narrow phase, in each pair's frame (``u`` = bearing − bearing of the target): with the
   Cyrus–Beck slack ``s = c − n·A``, rays *enter* a convex piece through edges with
   ``s < 0`` at ``d = s / (n·dir)`` and *leave* through edges with ``s > 0``; so on an edge's
   span ``z = e + (h − e)·D·(n·dir)/s`` is a sinusoid in ``u``, and the part of the span with
   ``d < D`` is an ``acos`` interval. Obstacles taller than the eye use entry edges (and hide
   everything where the attacker stands inside them); the others use exit edges where the
   exit is within ``D``, and the constant ``h`` where the piece reaches past ``D``, on the
   rays that enter the piece before ``D``.
6. :func:`game.geometry.envelope.envelope_area` integrates the clamped upper envelope.
7. Intervening units: each attacker's units sorted by bearing, searched around the window
   (every unit of every pair for small tables), then the exact corridor-distance test
   (:meth:`SightIndex.corridor_hits`).

Small queries (at most 64 pairs, e.g. a cache refresh) skip the horizon and the occlusion
cull and test every piece of every pair in the broad phase: their cost is the number of
numpy calls, not the work per element.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry import Polygon

from components.sight import SightFacts
from components.terrain import ObstacleSpec
from game.geometry.envelope import envelope_area, expand
from game.geometry.model import (
    ANGLE_TOL,
    ARCS,
    HIDDEN_GAP,
    LEVELS,
    LIGHT_FROM,
    TOUCH_TOL,
    BoolArray,
    FloatArray,
    IntArray,
    UnitTable,
    arc_codes,
    level_codes,
    snap_fractions,
)

_PI = math.pi
_TWO_PI = 2.0 * math.pi
_INV_TWO_PI = 1.0 / _TWO_PI
#: |slack| below this (inches) puts the attacker on an edge's line.
_ON_EDGE = 1e-10
#: Relative tolerance for convexity and polygon cleaning.
_CONVEX_TOL = 1e-12
#: Angular bins per attacker in the broad phase (a power of two, at most 256).
_BINS = 64
_BIN_WIDTH = _TWO_PI / _BINS
#: Distance bands per attacker in the broad phase (at most 256).
_BANDS = 16
#: Units subtending more than this half-angle (radians) from an attacker skip its bearing search.
_WIDE_UNIT = 0.15
#: Up to this many (pair, unit) combinations, intervening units are tested densely.
_DENSE_UNITS = 4096
#: Up to this many (pair, piece) combinations, the broad phase tests every piece of every pair.
_DENSE_PIECES = 2048
#: Up to this many pairs, the occlusion cull is skipped (its fixed cost outweighs its savings).
_SMALL_QUERY = 64
#: Angular bins of the per-attacker visibility horizon (a power of two).
_HZ_BINS = 256
_HZ_WIDTH = _TWO_PI / _HZ_BINS
#: The horizon costs per attacker: it is built only when attackers have this many pairs each.
_HZ_PAIRS_PER_SOURCE = 16
#: ... and when there are enough pieces for many sight lines to be blocked.
_HZ_MIN_PIECES = 64
#: floor(log2(k)) for k = 1 … _BINS (index 0 unused).
_LOG2 = np.array([0] + [int(math.log2(k)) for k in range(1, _BINS + 1)], dtype=np.int64)


def _wrap(a: FloatArray) -> FloatArray:
    """Fold angles (radians) into [−π, π] (cheaper than a modulo in numpy)."""
    return np.asarray(a - _TWO_PI * np.rint(a * _INV_TWO_PI), dtype=np.float64)


def _is_convex(ring: NDArray[np.float64]) -> bool:
    d1 = np.roll(ring, -1, axis=0) - ring
    d2 = np.roll(d1, -1, axis=0)
    cross = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
    scale = float(np.max(np.abs(d1))) ** 2
    return bool(np.all(cross >= -_CONVEX_TOL * scale))


def _clean_ring(poly: Polygon) -> NDArray[np.float64]:
    """Exterior ring without the closing vertex, repeated or collinear points; area > 0 order."""
    poly = shapely.geometry.polygon.orient(shapely.remove_repeated_points(poly), sign=1.0)
    ring = np.asarray(poly.exterior.coords, dtype=np.float64)[:-1]
    keep = []
    n = len(ring)
    for i in range(n):
        p, q, r = ring[i - 1], ring[i], ring[(i + 1) % n]
        cross = (q[0] - p[0]) * (r[1] - q[1]) - (q[1] - p[1]) * (r[0] - q[0])
        scale = max(float(np.abs(q - p).max()), float(np.abs(r - q).max())) ** 2
        if abs(cross) > _CONVEX_TOL * scale:
            keep.append(i)
    return ring[keep]


def _convex_pieces(poly: Polygon) -> list[NDArray[np.float64]]:
    """Convex pieces covering ``poly`` (itself, or constrained-Delaunay triangles)."""
    ring = _clean_ring(poly)
    if _is_convex(ring):
        return [ring]
    tris = shapely.constrained_delaunay_triangles(Polygon(ring))
    return [_clean_ring(t) for t in tris.geoms if t.area > 0.0]


@dataclass(frozen=True)
class SightBatch:
    """Sight facts of many (attacker, target) pairs, as parallel arrays.

    Attributes:
        ids: unit ids of the table the batch was computed for.
        attackers: (p,) attacker rows.
        targets: (p,) target rows.
        visible: (p,) line of sight exists (fraction < 1).
        cover_fraction: (p,) exact cover fractions (snapped).
        level: (p,) cover level codes, indices into :data:`game.geometry.model.LEVELS`.
        hidden: (p,) defence-dice hidden rule.
        arc: (p,) arc codes (into :data:`game.geometry.model.ARCS`) of the attack on the target.
        distance: (p,) centre-to-centre distances.
        intervening_ptr: (p + 1,) CSR offsets into ``intervening_idx``.
        intervening_idx: rows of intervening units, per pair nearest the attacker first.
        obstacle_screen: (p,) an obstacle qualifies as the hidden rule's screen (computed
            only where it can matter: pairs with cover or an intervening unit).
        unit_screen: (p,) an intervening unit qualifies as the hidden rule's screen.
    """

    ids: tuple[str, ...]
    attackers: IntArray
    targets: IntArray
    visible: BoolArray
    cover_fraction: FloatArray
    level: NDArray[np.int8]
    hidden: BoolArray
    arc: NDArray[np.int8]
    distance: FloatArray
    intervening_ptr: IntArray
    intervening_idx: IntArray
    obstacle_screen: BoolArray
    unit_screen: BoolArray

    def __len__(self) -> int:
        return len(self.attackers)

    def intervening(self, k: int) -> tuple[int, ...]:
        """Rows of the units intervening in pair ``k``, nearest the attacker first."""
        lo, hi = int(self.intervening_ptr[k]), int(self.intervening_ptr[k + 1])
        return tuple(int(u) for u in self.intervening_idx[lo:hi])

    def facts(self, k: int) -> SightFacts:
        """Pair ``k`` as :class:`SightFacts`."""
        return SightFacts(
            attacker=self.ids[int(self.attackers[k])],
            target=self.ids[int(self.targets[k])],
            visible=bool(self.visible[k]),
            cover_fraction=float(self.cover_fraction[k]),
            cover=LEVELS[int(self.level[k])],
            intervening=tuple(self.ids[u] for u in self.intervening(k)),
            hidden=bool(self.hidden[k]),
            arc=ARCS[int(self.arc[k])],
            distance=float(self.distance[k]),
        )

    def all_facts(self) -> list[SightFacts]:
        """Every pair as :class:`SightFacts`, in batch order."""
        return [self.facts(k) for k in range(len(self))]


@dataclass(frozen=True)
class CoverResult:
    """What the cover kernel returns for a list of pairs.

    Attributes:
        fraction: (p,) snapped cover fractions.
        obstacle_screen: (p,) an obstacle qualifies for the hidden rule (where asked).
        contrib_pair: pair of each (pair, obstacle) contribution row (only if requested).
        contrib_obstacle: obstacle index of each contribution row.
        contrib_share: share of the silhouette hidden by that obstacle.
    """

    fraction: FloatArray
    obstacle_screen: BoolArray
    contrib_pair: IntArray
    contrib_obstacle: IntArray
    contrib_share: FloatArray


class SightIndex:
    """Static obstacle data of one scenario, prepared for vectorized sight queries.

    Args:
        obstacles: the scenario's obstacles (simple polygons).
        width: map width, inches.
        height: map height, inches.

    Raises:
        ValueError: an obstacle polygon is not simple or has no area.
    """

    def __init__(self, obstacles: Sequence[ObstacleSpec], width: float, height: float) -> None:
        self.obstacles: tuple[ObstacleSpec, ...] = tuple(obstacles)
        self.width = float(width)
        self.height = float(height)
        self.obstacle_ids: tuple[str, ...] = tuple(o.id for o in self.obstacles)
        self.obstacle_height = np.array([o.height for o in self.obstacles], dtype=np.float64)
        self.obstacle_size = np.array([o.size for o in self.obstacles], dtype=np.float64)

        rings: list[NDArray[np.float64]] = []
        owner: list[int] = []
        for i, o in enumerate(self.obstacles):
            poly = Polygon(o.polygon)
            if not poly.is_valid or poly.area <= 0.0:
                raise ValueError(f"obstacle {o.id!r} is not a simple polygon with positive area")
            for ring in _convex_pieces(poly):
                rings.append(ring)
                owner.append(i)
        n_pieces = len(rings)
        self.n_pieces = n_pieces
        self.piece_obstacle = np.array(owner, dtype=np.int64)
        counts = np.array([len(r) for r in rings], dtype=np.int64)
        self.piece_vcount = counts
        self.piece_vstart = (np.cumsum(counts) - counts).astype(np.int64)
        verts = np.concatenate(rings) if n_pieces else np.zeros((0, 2))
        self.vx = np.ascontiguousarray(verts[:, 0])
        self.vy = np.ascontiguousarray(verts[:, 1])
        nxt = np.arange(len(verts), dtype=np.int64) + 1
        if n_pieces:
            nxt[self.piece_vstart + counts - 1] = self.piece_vstart
        self.vnext = nxt
        # edge j runs from vertex j to vertex vnext[j]; the interior is on its left
        ex = self.vx[nxt] - self.vx
        ey = self.vy[nxt] - self.vy
        length = np.sqrt(ex * ex + ey * ey)
        self.nx = ey / length
        self.ny = -ex / length
        self.nc = self.nx * self.vx + self.ny * self.vy
        self.n_angle = np.arctan2(self.ny, self.nx)
        self.piece_height = self.obstacle_height[self.piece_obstacle] if n_pieces else np.zeros(0)
        if n_pieces:
            vpiece = np.repeat(np.arange(n_pieces), counts)
            lo_x = np.minimum.reduceat(self.vx, self.piece_vstart)
            hi_x = np.maximum.reduceat(self.vx, self.piece_vstart)
            lo_y = np.minimum.reduceat(self.vy, self.piece_vstart)
            hi_y = np.maximum.reduceat(self.vy, self.piece_vstart)
            cx, cy = 0.5 * (lo_x + hi_x), 0.5 * (lo_y + hi_y)
            rad = np.maximum.reduceat(np.hypot(self.vx - cx[vpiece], self.vy - cy[vpiece]), self.piece_vstart)
        else:
            cx = cy = rad = np.zeros(0)
        self.piece_cx, self.piece_cy, self.piece_r = cx, cy, rad * (1.0 + 1e-12) + 1e-12
        n_obs = len(self.obstacles)
        ob_lo_x = np.full(n_obs, np.inf)
        ob_hi_x = np.full(n_obs, -np.inf)
        ob_lo_y = np.full(n_obs, np.inf)
        ob_hi_y = np.full(n_obs, -np.inf)
        vobs = (
            self.piece_obstacle[np.repeat(np.arange(n_pieces), counts)] if n_pieces else np.zeros(0, np.int64)
        )
        np.minimum.at(ob_lo_x, vobs, self.vx)
        np.maximum.at(ob_hi_x, vobs, self.vx)
        np.minimum.at(ob_lo_y, vobs, self.vy)
        np.maximum.at(ob_hi_y, vobs, self.vy)
        self.obstacle_cx = 0.5 * (ob_lo_x + ob_hi_x)
        self.obstacle_cy = 0.5 * (ob_lo_y + ob_hi_y)
        ob_r = np.zeros(n_obs)
        if n_pieces:
            np.maximum.at(
                ob_r, vobs, np.hypot(self.vx - self.obstacle_cx[vobs], self.vy - self.obstacle_cy[vobs])
            )
        self.obstacle_r = ob_r * (1.0 + 1e-12) + 1e-12
        # obstacle -> its pieces (for the hidden rule's distance test)
        self.obstacle_pieces = np.argsort(self.piece_obstacle, kind="stable")
        self.obstacle_pcount = np.bincount(self.piece_obstacle, minlength=len(self.obstacles)).astype(
            np.int64
        )
        self.obstacle_pstart = (np.cumsum(self.obstacle_pcount) - self.obstacle_pcount).astype(np.int64)

    # ------------------------------------------------------------------ kernel
    def _broad_phase(
        self,
        sx: FloatArray,
        sy: FloatArray,
        pair_src: IntArray,
        phi: FloatArray,
        alpha: FloatArray,
        dist: FloatArray,
        ok: BoolArray,
        horizon: FloatArray | None = None,
        exempt: BoolArray | None = None,
    ) -> tuple[IntArray, IntArray, BoolArray, FloatArray]:
        """Candidate (pair, piece) rows: pair, piece, whether A may be inside it, nearest distance.

        Every (attacker, piece) is filed under the angular bins its bounding circle spans and
        under the distance band of its nearest point; a pair reads, in each bin its window
        covers, only the bands nearer than its target.

        With a ``horizon`` (per attacker and bin, the distance beyond which every ray of the bin
        is hidden by a tall piece), pieces lying wholly beyond it in every bin they span are
        dropped, unless ``exempt`` (they may screen a target for the hidden rule).
        """
        n_src, n_p = len(sx), self.n_pieces
        if len(pair_src) * n_p <= _DENSE_PIECES:
            return self._dense_broad_phase(sx, sy, pair_src, phi, alpha, dist, ok)
        pcx = self.piece_cx[None, :] - sx[:, None]
        pcy = self.piece_cy[None, :] - sy[:, None]
        dc = np.sqrt(pcx * pcx + pcy * pcy).ravel()
        rho = np.tile(self.piece_r, n_src)
        dmin = dc - rho
        d_far = float(dist[ok].max()) if ok.any() else 0.0
        band_w = d_far / _BANDS + 1e-9
        useful = np.flatnonzero(dmin < d_far)  # pieces beyond every target never matter
        dc_u, rho_u = dc[useful], rho[useful]
        near_u = dc_u <= rho_u
        beta = np.arctan2(pcy.ravel()[useful], pcx.ravel()[useful])
        hs = np.arcsin(np.minimum(rho_u / np.maximum(dc_u, 1e-300), 1.0))
        hs[near_u] = _PI
        b0 = np.floor((beta - hs) * (1.0 / _BIN_WIDTH)).astype(np.int64)
        cnt = np.minimum(np.floor((beta + hs) * (1.0 / _BIN_WIDTH)).astype(np.int64) - b0 + 1, _BINS)
        if horizon is not None and exempt is not None and len(useful):
            # a piece behind the horizon in every bin it spans hides nothing more: range maxima
            # of the horizon over the piece's bins from a sparse table (two lookups)
            s_u = useful // n_p
            k = _LOG2[cnt]
            base = k * (n_src * _BINS) + s_u * _BINS
            far = np.maximum(
                horizon[base + (b0 & (_BINS - 1))], horizon[base + ((b0 + cnt - (1 << k)) & (_BINS - 1))]
            )
            kept = np.flatnonzero((far >= dmin[useful]) | exempt[useful - s_u * n_p])
            if len(kept) < len(useful):
                useful, b0, cnt = useful[kept], b0[kept], cnt[kept]
                near_u, beta, hs = near_u[kept], beta[kept], hs[kept]
        band = np.maximum(dmin[useful], 0.0) * (1.0 / band_w)
        band = band.astype(np.int64)
        # bucket entries by (bin, attacker, band) with two stable radix passes on small ints
        owner, rank = expand(cnt)
        ebin = (b0[owner] + rank) & (_BINS - 1)
        e_src = useful[owner] // n_p
        e_band = band[owner]
        o1 = np.argsort(e_band.astype(np.uint8), kind="stable")
        bucket = ebin * n_src + e_src
        o2 = o1[np.argsort(bucket[o1].astype(np.uint16), kind="stable")]
        sorted_owner = owner[o2]
        ptr = np.zeros(_BINS * n_src * _BANDS + 1, dtype=np.int64)
        np.cumsum(np.bincount(bucket * _BANDS + e_band, minlength=_BINS * n_src * _BANDS), out=ptr[1:])
        # each pair reads, in the bins its window covers, the bands nearer than its target
        w0 = np.floor((phi - alpha) * (1.0 / _BIN_WIDTH)).astype(np.int64)
        wc = np.minimum(np.floor((phi + alpha) * (1.0 / _BIN_WIDTH)).astype(np.int64) - w0 + 1, _BINS)
        wc = wc * ok
        pw, pj = expand(wc)
        key = (((w0[pw] + pj) & (_BINS - 1)) * n_src + pair_src[pw]) * _BANDS
        start = ptr[key]
        last_band = np.minimum((dist[pw] * (1.0 / band_w)).astype(np.int64), _BANDS - 1)
        r_o, r_rank = expand(ptr[key + last_band + 1] - start)
        ent = sorted_owner[start[r_o] + r_rank]
        pair = pw[r_o]
        # keep a piece only in the first window bin it occupies, and only if it can matter
        delta = (w0[pair] - b0[ent]) & (_BINS - 1)
        first = (delta >= cnt[ent]) * (_BINS - delta)
        ang = np.abs(_wrap(beta[ent] - phi[pair]))
        full = useful[ent]
        keep = (pj[r_o] == first) & (dmin[full] < dist[pair]) & (ang <= hs[ent] + alpha[pair])
        ent, pair = ent[keep], pair[keep]
        full = useful[ent]
        return pair, full - (full // n_p) * n_p, near_u[ent], dmin[full]

    def _dense_broad_phase(
        self,
        sx: FloatArray,
        sy: FloatArray,
        pair_src: IntArray,
        phi: FloatArray,
        alpha: FloatArray,
        dist: FloatArray,
        ok: BoolArray,
    ) -> tuple[IntArray, IntArray, BoolArray, FloatArray]:
        """:meth:`_broad_phase` for small queries: every (pair, piece), same final filter."""
        n_p = self.n_pieces
        pcx = self.piece_cx[None, :] - sx[pair_src, None]
        pcy = self.piece_cy[None, :] - sy[pair_src, None]
        dc = np.sqrt(pcx * pcx + pcy * pcy)
        rho = self.piece_r[None, :]
        dmin = dc - rho
        near = dc <= rho
        hs = np.arcsin(np.minimum(rho / np.maximum(dc, 1e-300), 1.0))
        hs[near] = _PI
        ang = np.abs(_wrap(np.arctan2(pcy, pcx) - phi[:, None]))
        keep = (dmin < dist[:, None]) & (ang <= hs + alpha[:, None]) & ok[:, None]
        flat = np.flatnonzero(keep)
        pair = flat // n_p
        return pair, flat - pair * n_p, near.ravel()[flat], dmin.ravel()[flat]

    def _horizon_blocked(
        self,
        theta2: FloatArray,
        sx: FloatArray,
        sy: FloatArray,
        eye: FloatArray,
        pair_src: IntArray,
        phi: FloatArray,
        alpha: FloatArray,
        dist: FloatArray,
        ok: BoolArray,
        th: FloatArray,
    ) -> tuple[BoolArray, FloatArray]:
        """Pairs whose whole window is hidden by tall pieces, from per-attacker horizons.

        A piece taller than the attacker's eye and than every target hides at least ``H`` on
        every ray it is entered on before ``D``. From an attacker outside its bounding circle,
        every ray strictly between its extreme vertex bearings passes through its interior and
        enters it nearer than ``dc + r``. Each attacker keeps, per angular bin lying wholly in
        such a span, the least such bound (its horizon); a pair is fully hidden if every bin
        its window touches has a horizon nearer than the target. Pairs not found here are
        handled by the exact path (which also finds the others). Also returns the horizon
        coarsened to the broad phase's bins (the farthest of the fine bins in each).
        """
        n_src = len(sx)
        tall = np.flatnonzero(self.piece_height >= float(th[ok].max()) if ok.any() else np.zeros(0, bool))
        if len(tall) == 0:
            return np.zeros(len(pair_src), dtype=bool), np.full((_LOG2[_BINS] + 1) * n_src * _BINS, np.inf)
        cnt_v = self.piece_vcount[tall]
        own_v, rank_v = expand(cnt_v)
        vidx = self.piece_vstart[tall][own_v] + rank_v
        vstart = np.cumsum(cnt_v) - cnt_v
        pcx = self.piece_cx[tall][None, :] - sx[:, None]
        pcy = self.piece_cy[tall][None, :] - sy[:, None]
        dc = np.sqrt(pcx * pcx + pcy * pcy)
        beta = np.arctan2(pcy, pcx)
        rel = _wrap(theta2[:, vidx] - beta[:, own_v])
        lo = np.minimum.reduceat(rel, vstart, axis=1)
        hi = np.maximum.reduceat(rel, vstart, axis=1)
        rad = self.piece_r[tall][None, :]
        valid = (dc > rad) & (self.piece_height[tall][None, :] > eye[:, None])
        inv_w = 1.0 / _HZ_WIDTH
        b0 = np.ceil((beta + lo) * inv_w).astype(np.int64)
        b1 = np.floor((beta + hi) * inv_w).astype(np.int64)
        cnt = (np.maximum(b1 - b0, 0) * valid).ravel()
        own, rank = expand(cnt)
        hz = np.full(n_src * _HZ_BINS, np.inf)
        slot = (own // len(tall)) * _HZ_BINS + ((b0.ravel()[own] + rank) & (_HZ_BINS - 1))
        np.minimum.at(hz, slot, (dc + rad).ravel()[own])
        w0 = np.floor((phi - alpha) * inv_w).astype(np.int64)
        wc = (np.floor((phi + alpha) * inv_w).astype(np.int64) - w0 + 1) * ok
        wc = np.minimum(wc, _HZ_BINS)
        pw, pj = expand(wc)
        seen = hz[pair_src[pw] * _HZ_BINS + ((w0[pw] + pj) & (_HZ_BINS - 1))]
        worst = np.full(len(pair_src), np.inf)
        has = np.flatnonzero(wc > 0)
        worst[has] = np.maximum.reduceat(seen, (np.cumsum(wc) - wc)[has])
        blocked = np.asarray(ok & (worst < dist - 1e-9), dtype=bool)
        # coarsened to the broad phase's bins, then a sparse table: level k holds the maxima
        # over 2**k consecutive bins (circularly)
        levels = [hz.reshape(n_src, _BINS, _HZ_BINS // _BINS).max(axis=2)]
        for k in range(1, _LOG2[_BINS] + 1):
            prev = levels[-1]
            levels.append(np.maximum(prev, np.roll(prev, -(1 << (k - 1)), axis=1)))
        return blocked, np.concatenate([lv.ravel() for lv in levels])

    def _near_any_target(self, tx: FloatArray, ty: FloatArray, tr: FloatArray) -> BoolArray:
        """Pieces of the obstacles that pass the hidden rule's reach test for some target."""
        first = np.unique(tx + 1j * ty, return_index=True)[1]
        gx = tx[first][:, None] - self.obstacle_cx[None, :]
        gy = ty[first][:, None] - self.obstacle_cy[None, :]
        # the widest target's reach for all (exempting more pieces is always safe)
        reach = self.obstacle_r[None, :] + (float(tr.max()) + HIDDEN_GAP + TOUCH_TOL)
        near_obs = np.any(gx * gx + gy * gy <= reach * reach, axis=0)
        return np.asarray(near_obs[self.piece_obstacle], dtype=bool)

    def _near_target_rows(
        self,
        pairs: IntArray,
        sx: FloatArray,
        sy: FloatArray,
        pair_src: IntArray,
        tx: FloatArray,
        ty: FloatArray,
        tr: FloatArray,
    ) -> tuple[IntArray, IntArray, BoolArray, FloatArray]:
        """(pair, piece, near, dmin) rows of every piece of every obstacle that may screen the
        target of each given pair (the reach test of the hidden rule)."""
        key, inv = np.unique(tx[pairs] + 1j * ty[pairs], return_inverse=True)
        inv = inv.ravel()
        first = np.zeros(len(key), dtype=np.int64)
        first[inv] = pairs
        gx = tx[first][:, None] - self.obstacle_cx[None, :]
        gy = ty[first][:, None] - self.obstacle_cy[None, :]
        reach = self.obstacle_r[None, :] + tr[first][:, None] + (HIDDEN_GAP + TOUCH_TOL)
        near_t = gx * gx + gy * gy <= reach * reach
        # reach depends on the target's radius too: group by position and radius
        t_idx, o_idx = np.nonzero(near_t)
        counts = np.bincount(t_idx, minlength=len(key))
        starts = np.cumsum(counts) - counts
        own, rank = expand(counts[inv])
        obs = o_idx[starts[inv][own] + rank]
        pr = pairs[own]
        p_own, p_rank = expand(self.obstacle_pcount[obs])
        piece = self.obstacle_pieces[self.obstacle_pstart[obs][p_own] + p_rank]
        pair = pr[p_own]
        s = pair_src[pair]
        dx, dy = self.piece_cx[piece] - sx[s], self.piece_cy[piece] - sy[s]
        dc = np.sqrt(dx * dx + dy * dy)
        rad = self.piece_r[piece]
        return pair, piece, dc <= rad, dc - rad

    def cover_kernel(
        self,
        src_xy: FloatArray,
        src_eye: FloatArray,
        pair_src: IntArray,
        tx: FloatArray,
        ty: FloatArray,
        tr: FloatArray,
        th: FloatArray,
        ts: FloatArray | None = None,
        screen_mask: BoolArray | None = None,
        contributions: bool = False,
    ) -> CoverResult:
        """Exact cover fractions for arrays of (attacker eye, target silhouette) pairs.

        Args:
            src_xy: (s, 2) attacker centres (each distinct attacker once).
            src_eye: (s,) their eye heights.
            pair_src: (p,) attacker of each pair (index into ``src_xy``).
            tx: (p,) target x.
            ty: (p,) target y.
            tr: (p,) target base radii (> 0).
            th: (p,) target silhouette heights.
            ts: (p,) target sizes, for the hidden rule's obstacle screen (None: skip it).
            screen_mask: (p,) pairs whose screen is wanted even without cover (those with an
                intervening unit); pairs with a fraction ≥ 0.10 are always checked.
            contributions: also return each obstacle's share of the hidden area.

        Returns:
            Fractions (snapped), obstacle-screen flags and optional contributions.
        """
        src_xy = np.asarray(src_xy, dtype=np.float64).reshape(-1, 2)
        sx, sy = np.ascontiguousarray(src_xy[:, 0]), np.ascontiguousarray(src_xy[:, 1])
        pair_src = np.asarray(pair_src, dtype=np.int64).ravel()
        tx, ty, tr, th = (np.asarray(v, dtype=np.float64).ravel() for v in (tx, ty, tr, th))
        n_pairs = len(pair_src)
        ax, ay = sx[pair_src], sy[pair_src]
        eye = np.asarray(src_eye, dtype=np.float64).ravel()[pair_src]
        dxp, dyp = tx - ax, ty - ay
        dist = np.sqrt(dxp * dxp + dyp * dyp)
        ok = (dist > 0.0) & (th > 0.0)
        safe_d = np.where(ok, dist, 1.0)
        cf, sf = dxp / safe_d, dyp / safe_d
        phi = np.arctan2(dyp, dxp)
        alpha = np.arcsin(np.minimum(1.0, tr / safe_d))
        empty_i = np.zeros(0, dtype=np.int64)
        screen = np.zeros(n_pairs, dtype=bool)
        if self.n_pieces == 0 or n_pairs == 0:
            return CoverResult(np.zeros(n_pairs), screen, empty_i, empty_i, np.zeros(0))

        theta2 = np.arctan2(self.vy[None, :] - sy[:, None], self.vx[None, :] - sx[:, None])
        small = contributions or n_pairs <= _SMALL_QUERY
        # ---- visibility horizon: pairs fully behind tall pieces skip the broad phase
        hblocked = np.zeros(n_pairs, dtype=bool)
        horizon: FloatArray | None = None
        exempt: BoolArray | None = None
        if not small and n_pairs >= _HZ_PAIRS_PER_SOURCE * len(sx) and self.n_pieces >= _HZ_MIN_PIECES:
            src_eye_f = np.asarray(src_eye, dtype=np.float64).ravel()
            hblocked, horizon = self._horizon_blocked(
                theta2, sx, sy, src_eye_f, pair_src, phi, alpha, dist, ok, th
            )
            exempt = self._near_any_target(tx, ty, tr) if ts is not None else np.zeros(self.n_pieces, bool)
        c_pair, c_piece, c_near, c_dmin = self._broad_phase(
            sx, sy, pair_src, phi, alpha, dist, ok & ~hblocked, horizon, exempt
        )
        if ts is not None and hblocked.any():
            # blocked pairs still need the pieces that may screen the target (hidden rule)
            extra = self._near_target_rows(np.flatnonzero(hblocked), sx, sy, pair_src, tx, ty, tr)
            c_pair, c_piece, c_near, c_dmin = (
                np.concatenate([a1, a2]) for a1, a2 in zip((c_pair, c_piece, c_near, c_dmin), extra)
            )
        if len(c_pair) == 0:
            frac0 = snap_fractions(hblocked.astype(np.float64))
            return CoverResult(frac0, screen, empty_i, empty_i, np.zeros(0))

        # ---- edge cull: keep edges whose angular span meets the window
        n_v = len(self.vx)
        theta = theta2.ravel()
        src_base = pair_src[c_pair] * n_v

        def cull(rows: IntArray) -> list[Any]:
            """Kept edges of candidate rows: row, vertex, pair, lo, hi, mid, slack, nlx, nly."""
            pieces = c_piece[rows]
            cnt = self.piece_vcount[pieces]
            own, rank = expand(cnt)
            row = rows[own]
            v = self.piece_vstart[pieces][own] + rank
            p = c_pair[row]
            u = _wrap(theta[src_base[row] + v] - phi[p])
            rs = np.cumsum(cnt) - cnt
            nxt = np.arange(len(v), dtype=np.int64) + 1
            nxt[rs + cnt - 1] = rs
            du = _wrap(u[nxt] - u)
            mid = _wrap(u + 0.5 * du)
            half = 0.5 * np.abs(du)
            al = alpha[p]
            lo = np.maximum(mid - half, -al)
            hi = np.minimum(mid + half, al)
            k = np.flatnonzero((hi > lo) | c_near[row])
            row, v, p, lo, hi, mid = row[k], v[k], p[k], lo[k], hi[k], mid[k]
            nx, ny = self.nx[v], self.ny[v]
            slack = self.nc[v] - nx * ax[p] - ny * ay[p]
            cfp, sfp = cf[p], sf[p]
            return [row, v, p, lo, hi, mid, slack, nx * cfp + ny * sfp, ny * cfp - nx * sfp]

        # ---- occlusion cull: a pair is fully hidden if one piece that hides at least H on every
        # ray through it (taller than the eye and than the target) is entered before D on both
        # window edges (then on every ray between: the piece ∩ the disc of radius D is convex).
        # Such pieces are culled first; the other pieces are looked at only for unblocked pairs.
        n_rows = len(c_pair)
        if small:
            # small queries: one edge cull; the envelope finds fully hidden pairs by itself
            blocked = np.zeros(n_pairs, dtype=bool)
            row, v, p, lo, hi, mid, slack, nlx, nly = cull(np.arange(n_rows, dtype=np.int64))
        else:
            c_h = self.piece_height[c_piece]
            # the nearer half of the line first: blockers are usually close to one end
            saturating = (c_h > eye[c_pair]) & (c_h >= th[c_pair]) & ~c_near & (c_dmin < 0.5 * dist[c_pair])
            blocked = hblocked.copy()
            first = cull(np.flatnonzero(saturating))
            row, p, lo, hi, slack, nlx, nly = (first[k] for k in (0, 2, 3, 4, 6, 7, 8))
            se = np.flatnonzero(slack < -_ON_EDGE)
            if len(se):
                ps_ = p[se]
                al_s, d_s, sl_s = alpha[ps_], dist[ps_], slack[se]
                sa = np.minimum(1.0, tr[ps_] / d_s)
                ca = np.sqrt(1.0 - sa * sa)
                ends_lo = (lo[se] <= -al_s) & (sl_s > d_s * (nlx[se] * ca - nly[se] * sa))
                ends_hi = (hi[se] >= al_s) & (sl_s > d_s * (nlx[se] * ca + nly[se] * sa))
                row_lo = np.zeros(n_rows, dtype=bool)
                row_hi = np.zeros(n_rows, dtype=bool)
                row_lo[row[se][ends_lo]] = True
                row_hi[row[se][ends_hi]] = True
                blocked[c_pair[row_lo & row_hi]] = True
            # blocked pairs keep only the pieces whose obstacle may screen the target (hidden rule)
            wanted = ~blocked[c_pair]
            if ts is not None and blocked.any():
                o = self.piece_obstacle[c_piece]
                gx, gy = tx[c_pair] - self.obstacle_cx[o], ty[c_pair] - self.obstacle_cy[o]
                reach = self.obstacle_r[o] + tr[c_pair] + HIDDEN_GAP + TOUCH_TOL
                wanted |= gx * gx + gy * gy <= reach * reach
            second = cull(np.flatnonzero(wanted & ~saturating))
            k1 = np.flatnonzero(wanted[first[0]])
            row, v, p, lo, hi, mid, slack, nlx, nly = (
                np.concatenate([a1[k1], a2]) for a1, a2 in zip(first, second)
            )
        front = slack < -_ON_EDGE
        if len(row) == 0:
            frac = snap_fractions(blocked.astype(np.float64))
            return CoverResult(frac, screen, empty_i, empty_i, np.zeros(0))
        new = np.ones(len(row), dtype=bool)
        new[1:] = row[1:] != row[:-1]
        gstart = np.flatnonzero(new)
        grp = np.cumsum(new) - 1
        grow = row[gstart]
        n_g = len(gstart)
        g_pair = c_pair[grow]
        g_piece = c_piece[grow]

        # ---- narrow phase on the kept edges, in each pair's frame
        d_p = dist[p]
        n_ang = self.n_angle[v] - phi[p]
        back = slack > _ON_EDGE
        # entry edges: the part of the span where the entry is within D
        kf = -slack / d_p
        psi = mid + _wrap(n_ang + _PI - mid)
        acf = np.arccos(np.clip(kf, -1.0, 1.0))
        f_lo = np.maximum(lo, psi - acf)
        f_hi = np.minimum(hi, psi + acf)
        f_ok = front & (kf < 1.0) & (f_hi > f_lo)
        # I_P: the rays that enter the piece before D (one interval: a convex set's span)
        ip_lo = np.full(n_g, 10.0)
        ip_hi = np.full(n_g, -10.0)
        np.minimum.at(ip_lo, grp[f_ok], f_lo[f_ok])
        np.maximum.at(ip_hi, grp[f_ok], f_hi[f_ok])
        g_near = c_near[grow]
        g_enclosing = np.zeros(n_g, dtype=bool)
        if g_near.any():
            g_enclosing = self._enclosing_windows(g_near, grp, slack, nlx, nly, alpha[g_pair], ip_lo, ip_hi)
        part = ip_hi - ip_lo > ANGLE_TOL

        h_g = self.piece_height[g_piece]
        e_g = eye[g_pair]
        tall_g = h_g > e_g
        tall = tall_g[grp]
        live_g = ~blocked[g_pair]
        live = live_g[grp]
        seg: list[
            tuple[
                IntArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray
            ]
        ]
        seg = []
        # (1) tall obstacles: entry edges; z ≥ h on them since d ≤ D
        s1 = np.flatnonzero(f_ok & tall & live)
        if len(s1):
            gi = grp[s1]
            scale = (h_g[gi] - e_g[gi]) * d_p[s1] / slack[s1]
            inf = np.full(len(s1), np.inf)
            seg.append((gi, f_lo[s1], f_hi[s1], e_g[gi], scale * nlx[s1], scale * nly[s1], h_g[gi], inf))
        # (2) tall obstacles around the attacker: everything in I_P is hidden
        s2 = np.flatnonzero(tall_g & g_enclosing & part & live_g)
        if len(s2):
            inf = np.full(len(s2), np.inf)
            zero = np.zeros(len(s2))
            seg.append((s2, ip_lo[s2], ip_hi[s2], inf, zero, zero, inf, inf))
        # (3) low obstacles: exit edges on rays entering before D; constant h past D
        s3 = np.flatnonzero(back & ~tall & part[grp] & live)
        if len(s3):
            gi = grp[s3]
            b_lo = np.maximum(lo[s3], ip_lo[gi])
            b_hi = np.minimum(hi[s3], ip_hi[gi])
            kb = slack[s3] / d_p[s3]
            m3 = mid[s3]
            psi_b = m3 + _wrap(n_ang[s3] - m3)
            acb = np.arccos(np.minimum(kb, 1.0))
            has_in = kb < 1.0
            big = np.where(has_in, 0.0, np.inf)
            in_lo = psi_b - acb + big
            in_hi = psi_b + acb + big
            hh, ee = h_g[gi], e_g[gi]
            zero = np.zeros(len(s3))
            l_hi = np.minimum(b_hi, in_lo)
            m_lo, m_hi = np.maximum(b_lo, in_lo), np.minimum(b_hi, in_hi)
            r_lo = np.where(has_in, np.maximum(b_lo, in_hi), b_hi)
            scale = (hh - ee) * d_p[s3] / slack[s3]
            c1, c2 = scale * nlx[s3], scale * nly[s3]
            # z is lowest where the exit is nearest: at an end of the range (d_out is convex in u)
            mid_ok = np.flatnonzero(m_hi > m_lo)
            z_top = np.full(len(s3), -1.0)
            g_ends = np.minimum(np.cos(m_lo[mid_ok] - psi_b[mid_ok]), np.cos(m_hi[mid_ok] - psi_b[mid_ok]))
            z_top[mid_ok] = ee[mid_ok] + scale[mid_ok] * g_ends
            seg.append((gi, b_lo, l_hi, hh, zero, zero, hh, hh))
            seg.append((gi, m_lo, m_hi, ee, c1, c2, np.full(len(s3), -np.inf), z_top))
            seg.append((gi, r_lo, b_hi, hh, zero, zero, hh, hh))

        frac = blocked.astype(np.float64)
        c_pair_out, c_obs_out, c_share = empty_i, empty_i, np.zeros(0)
        if seg:
            cat = [np.concatenate([s[k] for s in seg]) for k in range(8)]
            s_grp = cat[0].astype(np.int64)
            good = cat[2] > cat[1]
            s_grp = s_grp[good]
            lo_s, hi_s, c0_s, c1_s, c2_s, zmin_s, zmax_s = (a[good] for a in cat[1:])
            area, cp, co, ca = envelope_area(
                g_pair[s_grp],
                self.piece_obstacle[g_piece[s_grp]],
                lo_s,
                hi_s,
                c0_s,
                c1_s,
                c2_s,
                zmin_s,
                zmax_s,
                th,
                alpha,
                contributions,
            )
            denom = np.where(ok, 2.0 * alpha * np.where(th > 0.0, th, 1.0), 1.0)
            frac = snap_fractions(np.where(ok, area / denom, 0.0) + frac)
            if contributions:
                c_pair_out, c_obs_out, c_share = cp, co, ca / denom[cp]

        if ts is not None:
            want = frac >= LIGHT_FROM
            if screen_mask is not None:
                want |= np.asarray(screen_mask, dtype=bool)
            gsel = part & want[g_pair]
            if gsel.any():
                screen = self._obstacle_screen(
                    g_pair[gsel], g_piece[gsel], tx, ty, tr, np.asarray(ts, dtype=np.float64).ravel(), n_pairs
                )
        return CoverResult(frac, screen, c_pair_out, c_obs_out, c_share)

    @staticmethod
    def _enclosing_windows(
        g_near: BoolArray,
        grp: IntArray,
        slack: FloatArray,
        nlx: FloatArray,
        nly: FloatArray,
        g_alpha: FloatArray,
        ip_lo: FloatArray,
        ip_hi: FloatArray,
    ) -> BoolArray:
        """Groups whose piece contains the attacker (or has it on its boundary).

        Sets their ``I_P`` (in place) to the window, or for a boundary point to the cone of
        directions pointing into the piece, clipped to the window. All edges of near groups
        are present, so the minimum slack over a group is over the whole piece.
        """
        n_g = len(g_near)
        en = np.flatnonzero(g_near[grp])
        gmin = np.full(n_g, np.inf)
        np.minimum.at(gmin, grp[en], slack[en])
        inside = g_near & (gmin > _ON_EDGE)
        boundary = g_near & (gmin >= -_ON_EDGE) & ~inside
        ip_lo[inside] = -g_alpha[inside]
        ip_hi[inside] = g_alpha[inside]
        # a centre exactly on a piece's boundary is rare: a short loop is clearest
        for g in np.flatnonzero(boundary):
            on = en[(grp[en] == g) & (np.abs(slack[en]) <= _ON_EDGE)]
            ref = math.atan2(-float(nly[on[0]]), -float(nlx[on[0]]))
            c_lo, c_hi = -math.inf, math.inf
            for j in on:
                psi = math.atan2(-float(nly[j]), -float(nlx[j]))
                psi = ref + math.remainder(psi - ref, _TWO_PI)
                c_lo, c_hi = max(c_lo, psi - _PI / 2), min(c_hi, psi + _PI / 2)
            c_mid = math.remainder(0.5 * (c_lo + c_hi), _TWO_PI)
            c_half = 0.5 * (c_hi - c_lo)
            ip_lo[g] = max(-float(g_alpha[g]), c_mid - c_half)
            ip_hi[g] = min(float(g_alpha[g]), c_mid + c_half)
        return np.asarray(inside | boundary)

    def _obstacle_screen(
        self,
        pair: IntArray,
        piece: IntArray,
        tx: FloatArray,
        ty: FloatArray,
        tr: FloatArray,
        ts: FloatArray,
        n_pairs: int,
    ) -> BoolArray:
        """Per pair: an obstacle taking part, size ≥ the target's, within r + 0.5 of its centre.

        Args:
            pair: pair of each participating (pair, piece) row.
            piece: its piece.
            tx: (p,) target x.
            ty: (p,) target y.
            tr: (p,) target base radii.
            ts: (p,) target sizes.
            n_pairs: number of pairs.
        """
        screen = np.zeros(n_pairs, dtype=bool)
        obs = self.piece_obstacle[piece]
        gx, gy = tx[pair] - self.obstacle_cx[obs], ty[pair] - self.obstacle_cy[obs]
        reach = self.obstacle_r[obs] + tr[pair] + HIDDEN_GAP + TOUCH_TOL
        sel = (self.obstacle_size[obs] >= ts[pair]) & (gx * gx + gy * gy <= reach * reach)
        if not sel.any():
            return screen
        n_obs = len(self.obstacles)
        key = np.unique(pair[sel] * n_obs + obs[sel])
        q_pair, q_obs = key // n_obs, key % n_obs
        # every piece of each such obstacle, then every edge of each piece
        owner, rank = expand(self.obstacle_pcount[q_obs])
        pc = self.obstacle_pieces[self.obstacle_pstart[q_obs][owner] + rank]
        pp = q_pair[owner]
        cnt = self.piece_vcount[pc]
        e_owner, e_rank = expand(cnt)
        v = self.piece_vstart[pc][e_owner] + e_rank
        px, py = tx[pp][e_owner], ty[pp][e_owner]
        outside = self.nx[v] * px + self.ny[v] * py - self.nc[v]
        starts = (np.cumsum(cnt) - cnt).astype(np.int64)
        inside = np.maximum.reduceat(outside, starts) <= 0.0
        x1, y1 = self.vx[v], self.vy[v]
        w = self.vnext[v]
        ex, ey = self.vx[w] - x1, self.vy[w] - y1
        t = np.clip(((px - x1) * ex + (py - y1) * ey) / (ex * ex + ey * ey), 0.0, 1.0)
        qx, qy = px - x1 - t * ex, py - y1 - t * ey
        d = np.sqrt(qx * qx + qy * qy)
        piece_d = np.where(inside, 0.0, np.minimum.reduceat(d, starts))
        near = piece_d <= tr[pp] + HIDDEN_GAP + TOUCH_TOL
        screen[pp[near]] = True
        return screen

    # ------------------------------------------------------------------ units
    @staticmethod
    def intervening_rows(
        units: UnitTable, attackers: IntArray, targets: IntArray
    ) -> tuple[IntArray, IntArray]:
        """CSR (ptr, rows) of the intervening units of each pair, nearest the attacker first.

        A unit intervenes if its base disc overlaps the corridor (hull of the attacker's centre
        and the target's base disc) with positive area. Candidates come from each attacker's
        units sorted by bearing (window ± the widest unit's angular radius); the exact test
        then measures the distance from the unit's centre to the corridor.
        """
        n_pairs, n = len(attackers), len(units)
        ptr = np.zeros(n_pairs + 1, dtype=np.int64)
        if n_pairs == 0 or n <= 2:
            return ptr, np.zeros(0, dtype=np.int64)
        xy, base = units.xy, units.base
        src, pair_src = np.unique(attackers, return_inverse=True)
        n_src = len(src)
        # per attacker: bearing, distance and angular radius of every unit
        rx = xy[None, :, 0] - xy[src, 0][:, None]
        ry = xy[None, :, 1] - xy[src, 1][:, None]
        d_su = np.sqrt(rx * rx + ry * ry)
        bear = np.arctan2(ry, rx)
        ax, ay = xy[attackers, 0], xy[attackers, 1]
        fx, fy = xy[targets, 0] - ax, xy[targets, 1] - ay
        dist = np.sqrt(fx * fx + fy * fy)
        r = base[targets]
        phi = np.arctan2(fy, fx)
        alpha = np.arcsin(np.minimum(1.0, r / np.where(dist > 0.0, dist, 1.0)))
        # the corridor lies in the cone of half-angle α around the target's bearing, unless the
        # attacker stands on the target's base (then every unit is a candidate)
        inner = dist <= r
        if n_pairs * n <= _DENSE_UNITS:
            # small tables: every (pair, unit) is a candidate (fewer numpy calls than a search)
            hp = np.repeat(np.arange(n_pairs, dtype=np.int64), n)
            hu = np.tile(np.arange(n, dtype=np.int64), n_pairs)
        else:
            hs = np.arcsin(np.minimum(base[None, :] / np.maximum(d_su, 1e-300), 1.0))
            # units wide in the attacker's eye (near it, or around its centre) are candidates for
            # every pair of that attacker; the others are looked up by bearing with a narrow margin
            close = hs > _WIDE_UNIT
            close[np.arange(n_src), src] = False
            hs[close] = 0.0
            hs[np.arange(n_src), src] = 0.0
            widest = hs.max(axis=1)
            # sorted keys s·32 + 16 + bearing, with copies at ±2π for windows across ±π
            su = np.arange(n_src * n)
            keys = (su // n) * 32.0 + 16.0 + bear.ravel()
            keys = np.concatenate([keys, keys + _TWO_PI, keys - _TWO_PI])
            owners = np.concatenate([su, su, su])
            order = np.argsort(keys)
            keys, owners = keys[order], owners[order]
            reach = alpha + widest[pair_src]
            centre = pair_src * 32.0 + 16.0 + phi
            k_lo = np.searchsorted(keys, centre - reach, side="left")
            k_hi = np.searchsorted(keys, centre + reach, side="right")
            own, rank = expand((k_hi - k_lo) * ~inner)
            hp = own
            hu = owners[k_lo[own] + rank] % n
            kept = ~close[pair_src[hp], hu]  # wide units are added below, whatever their bearing
            hp, hu = hp[kept], hu[kept]
            if inner.any():
                ip = np.flatnonzero(inner)
                hp = np.concatenate([hp, np.repeat(ip, n)])
                hu = np.concatenate([hu, np.tile(np.arange(n), len(ip))])
            # wide units are candidates whatever their bearing
            cs, cu = np.nonzero(close)
            if len(cs):
                by_src = np.argsort(pair_src, kind="stable")
                starts = np.searchsorted(pair_src[by_src], np.arange(n_src))
                counts = np.bincount(pair_src, minlength=n_src)
                c_own, c_rank = expand(counts[cs])
                c_hp = by_src[starts[cs][c_own] + c_rank]
                c_hu = cu[c_own]
                outer = ~inner[c_hp]  # inner pairs already have every unit
                hp = np.concatenate([hp, c_hp[outer]])
                hu = np.concatenate([hu, c_hu[outer]])
        hit = SightIndex.corridor_hits(units, attackers[hp], targets[hp], hu)
        hp, hu = hp[hit], hu[hit]
        if len(hp):
            px, py = xy[hu, 0] - ax[hp], xy[hu, 1] - ay[hp]
            da = np.sqrt(px**2 + py**2)
            order = np.lexsort((hu, da, hp))
            hp, hu = hp[order], hu[order]
        np.cumsum(np.bincount(hp, minlength=n_pairs), out=ptr[1:])
        return ptr, hu.astype(np.int64)

    @staticmethod
    def corridor_hits(units: UnitTable, pa: IntArray, pt: IntArray, hu: IntArray) -> BoolArray:
        """Per (attacker pa[k], target pt[k], unit hu[k]): does the unit intervene?

        The unit (neither end of the pair) intervenes if its base disc overlaps the corridor
        (hull of the attacker's centre and the target's base disc) with positive area, measured
        by the exact distance from its centre to the corridor.
        """
        xy, base = units.xy, units.base
        ax, ay = xy[pa, 0], xy[pa, 1]
        fx, fy = xy[pt, 0] - ax, xy[pt, 1] - ay
        d = np.sqrt(fx * fx + fy * fy)
        rr = base[pt]
        phi = np.arctan2(fy, fx)
        alpha = np.arcsin(np.minimum(1.0, rr / np.where(d > 0.0, d, 1.0)))
        px, py = xy[hu, 0] - ax, xy[hu, 1] - ay
        d_su = np.sqrt(px * px + py * py)
        ru = base[hu]
        ang = np.abs(_wrap(np.arctan2(py, px) - phi))
        wide = np.arcsin(np.minimum(ru / np.maximum(d_su, 1e-300), 1.0))
        near = (ang <= alpha + wide) | (d_su <= ru) | (d <= rr)
        out = (hu != pa) & (hu != pt) & near
        k = np.flatnonzero(out)
        if len(k) == 0:
            return out
        d, rr, ru, px, py = d[k], rr[k], ru[k], px[k], py[k]
        inv = 1.0 / np.where(d > 0.0, d, 1.0)
        ux, uy = fx[k] * inv, fy[k] * inv
        xs = px * ux + py * uy
        ys = np.abs(py * ux - px * uy)
        sin_a = np.minimum(1.0, rr / np.where(d > 0.0, d, 1.0))
        cos_a = np.sqrt(1.0 - sin_a * sin_a)
        length = np.sqrt(np.maximum(d * d - rr * rr, 0.0))
        qx, qy = length * cos_a, length * sin_a
        tx_, ty_ = xs - d, ys
        d_t = np.sqrt(tx_ * tx_ + ty_ * ty_)
        t = np.clip((xs * qx + ys * qy) / np.maximum(qx * qx + qy * qy, 1e-300), 0.0, 1.0)
        sx_, sy_ = xs - t * qx, ys - t * qy
        seg = np.sqrt(sx_ * sx_ + sy_ * sy_)
        degenerate = d <= rr
        gap = np.where(degenerate, d_t - rr, np.minimum(seg, d_t - rr))
        in_cone = ~degenerate & (ys * cos_a <= xs * sin_a) & (xs <= length * cos_a)
        gap = np.where((d_t <= rr) | in_cone, 0.0, gap)
        out[k] = gap < ru - TOUCH_TOL
        return out

    @staticmethod
    def unit_screen(units: UnitTable, targets: IntArray, ptr: IntArray, rows: IntArray) -> BoolArray:
        """Per pair: an intervening unit with size ≥ the target's within 0.5 inch of its base."""
        n_pairs = len(targets)
        out = np.zeros(n_pairs, dtype=bool)
        if len(rows) == 0:
            return out
        owner = np.repeat(np.arange(n_pairs), np.diff(ptr))
        t = targets[owner]
        gap = np.hypot(*(units.xy[rows] - units.xy[t]).T) - units.base[rows] - units.base[t]
        ok = (units.size[rows] >= units.size[t]) & (gap <= HIDDEN_GAP + TOUCH_TOL)
        out[owner[ok]] = True
        return out

    # ------------------------------------------------------------------ queries
    def _pair_cover(
        self,
        units: UnitTable,
        a: IntArray,
        t: IntArray,
        screen_mask: BoolArray | None,
        contributions: bool = False,
    ) -> CoverResult:
        src, pair_src = np.unique(a, return_inverse=True)
        return self.cover_kernel(
            units.xy[src],
            units.eye[src],
            pair_src,
            units.xy[t, 0],
            units.xy[t, 1],
            units.base[t],
            units.height[t],
            units.size[t],
            screen_mask,
            contributions,
        )

    def cover(
        self, units: UnitTable, attackers: IntArray, targets: IntArray, screen_all: bool = False
    ) -> CoverResult:
        """Cover fractions and obstacle screens of (attackers[k], targets[k]) pairs.

        Args:
            units: the unit table.
            attackers: (p,) attacker rows.
            targets: (p,) target rows.
            screen_all: compute the hidden rule's obstacle screen for every pair (by default
                only where it can matter: pairs with a fraction ≥ 0.10).

        Returns:
            The kernel's result for the pairs.
        """
        a = np.asarray(attackers, dtype=np.int64).ravel()
        t = np.asarray(targets, dtype=np.int64).ravel()
        mask = np.ones(len(a), dtype=bool) if screen_all else None
        return self._pair_cover(units, a, t, mask)

    def query(self, units: UnitTable, attackers: IntArray, targets: IntArray) -> SightBatch:
        """Sight facts of every (attackers[k], targets[k]) pair.

        Args:
            units: the unit table.
            attackers: (p,) attacker rows.
            targets: (p,) target rows (each different from its attacker).

        Returns:
            The batch, in pair order.

        Raises:
            ValueError: a pair has the same unit at both ends.
        """
        a = np.asarray(attackers, dtype=np.int64).ravel()
        t = np.asarray(targets, dtype=np.int64).ravel()
        if np.any(a == t):
            raise ValueError("attacker and target must differ")
        ptr, rows = self.intervening_rows(units, a, t)
        res = self._pair_cover(units, a, t, np.diff(ptr) > 0)
        return assemble_batch(units, a, t, res.fraction, res.obstacle_screen, ptr, rows)

    def all_pairs(self, units: UnitTable) -> SightBatch:
        """Sight facts of every ordered pair of distinct units (row-major: attacker, target)."""
        n = len(units)
        a, t = np.nonzero(~np.eye(n, dtype=bool))
        return self.query(units, a.astype(np.int64), t.astype(np.int64))

    def facts(self, units: UnitTable, a: int, t: int) -> SightFacts:
        """Sight facts of one pair (same answer as :func:`game.geometry.reference.sight_reference`)."""
        return self.query(units, np.array([a]), np.array([t])).facts(0)

    def contributions(self, units: UnitTable, a: int, t: int) -> dict[str, float]:
        """Share of the target's silhouette hidden by each obstacle id (they sum to the fraction)."""
        res = self._pair_cover(units, np.array([a]), np.array([t]), None, contributions=True)
        out: dict[str, float] = {}
        for o, s in zip(res.contrib_obstacle, res.contrib_share):
            if s > 0.0:
                key = self.obstacle_ids[int(o)]
                out[key] = out.get(key, 0.0) + float(s)
        return out

    def cover_at_points(
        self,
        units: UnitTable,
        attacker: int,
        points: FloatArray,
        height: float,
        base: float,
        size: float = 1.0,
    ) -> FloatArray:
        """Cover fraction of a target placed at each candidate point, seen by one attacker.

        Args:
            units: the unit table (the attacker's position and eye come from it).
            attacker: attacker row.
            points: (m, 2) candidate target centres.
            height: the target's silhouette height.
            base: the target's base radius (> 0).
            size: the target's size (the fraction does not depend on it).

        Returns:
            (m,) cover fractions.
        """
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        m = len(pts)
        res = self.cover_kernel(
            units.xy[[attacker]],
            units.eye[[attacker]],
            np.zeros(m, dtype=np.int64),
            pts[:, 0],
            pts[:, 1],
            np.full(m, float(base)),
            np.full(m, float(height)),
        )
        return res.fraction

    def exposure_at_points(
        self,
        units: UnitTable,
        points: FloatArray,
        height: float,
        base: float,
        size: float,
        enemies: IntArray,
    ) -> FloatArray:
        """How well a unit standing at each candidate point is covered from each enemy.

        Args:
            units: the unit table.
            points: (m, 2) candidate centres.
            height: the unit's silhouette height there.
            base: its base radius (> 0).
            size: its size (the fraction does not depend on it).
            enemies: (k,) rows of the enemies looking.

        Returns:
            (m, k) cover fractions (1.0: that enemy cannot see the point at all).
        """
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        en = np.asarray(enemies, dtype=np.int64).ravel()
        m, k = len(pts), len(en)
        pair_src = np.tile(np.arange(k, dtype=np.int64), m)
        pi = np.repeat(np.arange(m), k)
        res = self.cover_kernel(
            units.xy[en],
            units.eye[en],
            pair_src,
            pts[pi, 0],
            pts[pi, 1],
            np.full(m * k, float(base)),
            np.full(m * k, float(height)),
        )
        return res.fraction.reshape(m, k)


def assemble_batch(
    units: UnitTable,
    a: IntArray,
    t: IntArray,
    fraction: FloatArray,
    obstacle_screen: BoolArray,
    ptr: IntArray,
    rows: IntArray,
) -> SightBatch:
    """Combine cover fractions and intervening units into a :class:`SightBatch`.

    Hidden = has cover (fraction ≥ 0.10 or an intervening unit) and a screen (obstacle or unit).
    """
    unit_scr = SightIndex.unit_screen(units, t, ptr, rows)
    has_cover = (fraction >= LIGHT_FROM) | (np.diff(ptr) > 0)
    hidden = has_cover & (obstacle_screen | unit_scr)
    dxy = units.xy[t] - units.xy[a]
    return SightBatch(
        ids=units.ids,
        attackers=a,
        targets=t,
        visible=fraction < 1.0,
        cover_fraction=fraction,
        level=level_codes(fraction),
        hidden=hidden,
        arc=arc_codes(units.xy[t], units.facing[t], units.xy[a]),
        distance=np.sqrt(np.sum(dxy * dxy, axis=1)),
        intervening_ptr=ptr,
        intervening_idx=rows,
        obstacle_screen=obstacle_screen,
        unit_screen=unit_scr,
    )
