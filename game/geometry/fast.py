"""Fast exact sight and cover for many pairs at once (compiled kernels, same answers as the oracle).

Contract: :class:`SightIndex` answers the same questions as :mod:`game.geometry.reference`
with the same model (DESIGN §3) and the same decisions (edge policy, hidden rule, arcs), for
arrays of attacker/target pairs. Its cover fractions are exact too (closed-form integration
of the same piecewise profile), so they agree with the oracle to ~1e-14 and every derived
field (visible, level, hidden, arc, intervening, distance) is equal.

Built once per scenario: obstacles are split into convex pieces (a convex polygon is its own
piece; a concave one is cut into constrained-Delaunay triangles) and packed into a
:class:`game.geometry.kernel.ObstacleGrid` (edges with outward normals, bounding circles, a uniform
grid). Every query is one or three calls of the compiled kernels of
:mod:`game.geometry.kernel`, which work pair by pair; this module only converts arrays and
builds the results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry import Polygon

from components.sight import SightFacts
from components.terrain import ObstacleSpec
from game.geometry import kernel
from game.geometry.model import ARCS, LEVELS, BoolArray, FloatArray, IntArray, UnitTable

#: Relative tolerance for convexity and polygon cleaning.
_CONVEX_TOL = 1e-12
_EMPTY_I = np.zeros(0, dtype=np.int64)
_EMPTY_F = np.zeros(0)
_NO_MASK = np.zeros(0, dtype=bool)


def _f64(a: object) -> FloatArray:
    return np.ascontiguousarray(a, dtype=np.float64)


def _i64(a: object) -> IntArray:
    return np.ascontiguousarray(a, dtype=np.int64)


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
        ptr = self.intervening_ptr
        return tuple(self.intervening_idx[ptr.item(k) : ptr.item(k + 1)].tolist())

    def facts(self, k: int) -> SightFacts:
        """Pair ``k`` as :class:`SightFacts`.

        Reads the pair's own entries (``ndarray.item``: a Python scalar, no numpy scalar in
        between); nothing is converted for the whole batch, so a batch refreshed after every
        move and asked about a few pairs costs O(1) per question, not O(pairs).
        """
        ids = self.ids
        ptr = self.intervening_ptr
        rows = self.intervening_idx[ptr.item(k) : ptr.item(k + 1)].tolist()
        return SightFacts(  # positionally (keywords cost a third more): the fields in order
            ids[self.attackers.item(k)],
            ids[self.targets.item(k)],
            self.visible.item(k),
            self.cover_fraction.item(k),
            LEVELS[self.level.item(k)],
            tuple([ids[u] for u in rows]),
            self.hidden.item(k),
            ARCS[self.arc.item(k)],
            self.distance.item(k),
        )

    def all_facts(self) -> list[SightFacts]:
        """Every pair as :class:`SightFacts`, in batch order."""
        ids = self.ids
        cols = (self.attackers, self.targets, self.visible, self.cover_fraction, self.level)
        attackers, targets, visible, fraction, level = (c.tolist() for c in cols)
        ptr, rows = self.intervening_ptr.tolist(), self.intervening_idx.tolist()
        hidden, arc, distance = self.hidden.tolist(), self.arc.tolist(), self.distance.tolist()
        return [
            SightFacts(
                ids[attackers[k]],
                ids[targets[k]],
                visible[k],
                fraction[k],
                LEVELS[level[k]],
                tuple([ids[u] for u in rows[ptr[k] : ptr[k + 1]]]),
                hidden[k],
                ARCS[arc[k]],
                distance[k],
            )
            for k in range(len(self))
        ]


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
    """Static obstacle data of one scenario, prepared for compiled sight queries.

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
        self.n_pieces = len(rings)
        self.obstacle_grid = kernel.build_obstacles(rings, owner, self.obstacle_height, self.obstacle_size)
        self._obstacle_args = self.obstacle_grid.args()

    # ------------------------------------------------------------------ kernels
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
            src_xy: (s, 2) attacker centres.
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
        txy = np.column_stack([_f64(tx).ravel(), _f64(ty).ravel()])
        n_pairs = len(txy)
        return self._cover(
            _f64(src_xy).reshape(-1, 2),
            _f64(src_eye).ravel(),
            _i64(pair_src).ravel(),
            txy,
            _f64(tr).ravel(),
            _f64(th).ravel(),
            None if ts is None else _f64(ts).ravel(),
            np.arange(n_pairs, dtype=np.int64),
            screen_mask,
            contributions,
        )

    def cover_rows(
        self,
        xy: FloatArray,
        eye: FloatArray,
        radius: FloatArray,
        height: FloatArray,
        pair_src: IntArray,
        pair_tgt: IntArray,
    ) -> CoverResult:
        """:meth:`cover_kernel` (no screens) for pairs of rows of one table of units.

        Each pair's attacker (row ``pair_src``, eye height ``eye``) and target (row
        ``pair_tgt``, base ``radius``, silhouette ``height``) are rows of the (n, 2) centres
        ``xy``. For callers that keep their units in one table (the AI's enemies and candidate
        points): the kernel reads the rows where they are, nothing is gathered or re-stacked.
        Arrays must be C-contiguous and writeable (the compiled kernel takes no others).
        """
        return self._cover(xy, eye, pair_src, xy, radius, height, None, pair_tgt, None)

    def _cover(
        self,
        src_xy: FloatArray,
        src_eye: FloatArray,
        pair_src: IntArray,
        tgt_xy: FloatArray,
        tgt_r: FloatArray,
        tgt_h: FloatArray,
        tgt_size: FloatArray | None,
        pair_tgt: IntArray,
        screen_mask: BoolArray | None,
        contributions: bool = False,
    ) -> CoverResult:
        """:func:`game.geometry.kernel.cover_pairs` on (attacker, target) rows of two tables."""
        n_pairs = len(pair_src)
        if tgt_size is None:  # no screens: the kernel reads neither sizes nor mask
            mode, sizes, mask = 0, _EMPTY_F, _NO_MASK
        else:
            mode, sizes = kernel.SCREENS, tgt_size
            mask = (
                np.zeros(n_pairs, dtype=bool) if screen_mask is None else np.asarray(screen_mask, dtype=bool)
            )
            if mask.shape != (n_pairs,):
                raise ValueError(f"screen_mask must have shape ({n_pairs},)")
        if not contributions:
            frac, screen, _ = kernel.cover_pairs(
                *self._obstacle_args,
                src_xy,
                src_eye,
                pair_src,
                tgt_xy,
                tgt_r,
                tgt_h,
                sizes,
                pair_tgt,
                mask,
                mode,
            )
            return CoverResult(frac, screen, _EMPTY_I, _EMPTY_I, _EMPTY_F)
        # shares come one pair at a time (contributions are asked for single pairs)
        frac = np.zeros(n_pairs)
        screen = np.zeros(n_pairs, dtype=bool)
        c_pair: list[int] = []
        c_obs: list[int] = []
        c_share: list[float] = []
        for k in range(n_pairs):
            one = slice(k, k + 1)
            f, scr, shares = kernel.cover_pairs(
                *self._obstacle_args,
                src_xy,
                src_eye,
                pair_src[one],
                tgt_xy,
                tgt_r,
                tgt_h,
                sizes,
                pair_tgt[one],
                mask[one],
                mode | kernel.OWNERS,
            )
            frac[k], screen[k] = f[0], scr[0]
            for o in np.flatnonzero(shares > 0.0):
                c_pair.append(k)
                c_obs.append(int(o))
                c_share.append(float(shares[o]))
        return CoverResult(
            frac, screen, np.array(c_pair, dtype=np.int64), np.array(c_obs, dtype=np.int64), np.array(c_share)
        )

    @staticmethod
    def intervening_rows(
        units: UnitTable, attackers: IntArray, targets: IntArray
    ) -> tuple[IntArray, IntArray]:
        """CSR (ptr, rows) of the intervening units of each pair, nearest the attacker first.

        A unit intervenes if its base disc overlaps the corridor (hull of the attacker's centre
        and the target's base disc) with positive area (the oracle's exact corridor distance).
        """
        a, t = _i64(attackers).ravel(), _i64(targets).ravel()
        ptr, rows = kernel.intervening_rows(units.xy, units.base, a, t)
        return ptr, rows

    @staticmethod
    def corridor_hits(units: UnitTable, pa: IntArray, pt: IntArray, hu: IntArray) -> BoolArray:
        """Per (attacker pa[k], target pt[k], unit hu[k]): does the unit intervene?

        The unit (neither end of the pair) intervenes if its base disc overlaps the corridor
        (hull of the attacker's centre and the target's base disc) with positive area.
        """
        rows = [_i64(r).ravel() for r in (pa, pt, hu)]
        return np.asarray(kernel.corridor_hits(units.xy, units.base, *rows))

    # ------------------------------------------------------------------ queries
    def _pair_cover(
        self,
        units: UnitTable,
        a: IntArray,
        t: IntArray,
        screen_mask: BoolArray | None,
        contributions: bool = False,
    ) -> CoverResult:
        return self._cover(
            units.xy,
            units.eye,
            a,
            units.xy,
            units.base,
            units.height,
            units.size,
            t,
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
        a, t = _i64(attackers).ravel(), _i64(targets).ravel()
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
        a, t = _i64(attackers).ravel(), _i64(targets).ravel()
        if np.any(a == t):
            raise ValueError("attacker and target must differ")
        ptr, rows = self.intervening_rows(units, a, t)
        res = self._pair_cover(units, a, t, ptr[1:] > ptr[:-1])
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
        pts = _f64(points).reshape(-1, 2)
        m = len(pts)
        res = self._cover(
            units.xy,
            units.eye,
            np.full(m, attacker, dtype=np.int64),
            pts,
            np.full(m, float(base)),
            np.full(m, float(height)),
            None,
            np.arange(m, dtype=np.int64),
            None,
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
        pts = _f64(points).reshape(-1, 2)
        en = _i64(enemies).ravel()
        m, k = len(pts), len(en)
        res = self._cover(
            units.xy,
            units.eye,
            np.tile(en, m),
            pts,
            np.full(m, float(base)),
            np.full(m, float(height)),
            None,
            np.repeat(np.arange(m, dtype=np.int64), k),
            None,
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
    visible, level, hidden, arc, distance, unit_screen = kernel.assemble(
        units.xy, units.base, units.size, units.facing, a, t, fraction, obstacle_screen, ptr, rows
    )
    return SightBatch(
        ids=units.ids,
        attackers=a,
        targets=t,
        visible=visible,
        cover_fraction=fraction,
        level=level,
        hidden=hidden,
        arc=arc,
        distance=distance,
        intervening_ptr=ptr,
        intervening_idx=rows,
        obstacle_screen=obstacle_screen,
        unit_screen=unit_screen,
    )
