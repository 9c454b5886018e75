"""All-pairs sight facts kept current while units move (compiled kernels; no esper).

Contract: :class:`SightCache` always answers exactly what
:meth:`game.geometry.fast.SightIndex.all_pairs` would answer for the current units.
After :meth:`SightCache.move_unit` (a move, a posture change or a turn of unit ``i``):

* cover fractions and obstacle screens are recomputed only for the pairs involving ``i``
  (as attacker: its eye and position; as target: its silhouette and position) — no other
  pair's fraction depends on ``i``, because units are not obstacles;
* intervening units are updated for every (pair, unit) combination the move touches: all
  units for the pairs involving ``i`` (their corridors moved) and unit ``i`` for every other
  pair (it can enter or leave any corridor). Unit screens and hidden flags follow for all
  pairs;
* the derived fields (visibility, level, hidden flag, unit screen, arc, distance) are
  re-assembled only for the pairs with a changed unit at either end or whose intervening
  units changed; the others are copied from the previous batch;
* a turn alone (or a move to the same spot) changes no cover and no intervening units, and
  a posture change alone no intervening units.

The intervening-unit update (:func:`game.geometry.kernel.intervening_delta`) searches afresh
only the moved units' own pairs, among the units a broad phase puts near each pair's corridor;
every other pair retests only the moved units at their old and new places (the capsule test
rejects a unit far from the sight line in a few operations), and its ranked list is copied
unchanged unless a moved unit enters, leaves or stays in it (then it is re-ranked with the
distances kept beside the lists). One move thus costs O(pairs + n * local units) instead of
O(pairs * n), and no (pairs x units) table is kept.

Changes are applied lazily: queries call :meth:`SightCache.refresh` first, so many moves in a
row cost one recomputation.
"""

from __future__ import annotations

import numpy as np

from components.sight import SightFacts
from game.geometry import kernel
from game.geometry.fast import SightBatch, SightIndex, assemble_batch
from game.geometry.model import BoolArray, FloatArray, IntArray, UnitTable


class SightCache:
    """All-pairs sight facts of one unit table over one scenario's obstacles.

    Args:
        index: the scenario's sight index.
        units: the starting unit table.
    """

    def __init__(self, index: SightIndex, units: UnitTable) -> None:
        self.index = index
        self._units = units
        n = len(units)
        self._n = n
        a, t = np.nonzero(~np.eye(n, dtype=bool))
        self._a = a.astype(np.int64)
        self._t = t.astype(np.int64)
        # Per unit, its pairs (as attacker or target, in pair order) and a mask naming only it:
        # one unit changed is the usual refresh, and building these each time cost as much as
        # the intervening-units kernel.
        self._pairs_of = [np.flatnonzero((self._a == i) | (self._t == i)) for i in range(n)]
        self._only = [np.arange(n) == i for i in range(n)]
        self._fraction = np.zeros(len(self._a))
        self._screen = np.zeros(len(self._a), dtype=bool)
        self._dirty: set[int] = set(range(n))
        self._moved: set[int] = set(range(n))
        self._touched: set[int] = set(range(n))  # any change: its pairs are re-assembled
        self._stale = True
        self._ptr = np.zeros(len(self._a) + 1, dtype=np.int64)
        self._rows = np.zeros(0, dtype=np.int64)
        # each entry's distance from its pair's attacker, and the centres the lists were made
        # for: a move then re-ranks a list without recomputing it, and retests the moved units
        # at their old places instead of searching every list for them
        self._dist = np.zeros(0)
        self._csr_xy = units.xy
        self._batch: SightBatch | None = None
        # Facts already asked for, per pair, until a change reaches the pair: after a move most
        # pairs are untouched, and the AI asks about the same pairs decision after decision.
        self._memo: list[SightFacts | None] = [None] * len(self._a)
        self._no_change = np.zeros(len(self._a), dtype=bool)
        # the unit grid of the intervening-unit update covers the map (units taken off the
        # table are parked far outside it and tested apart)
        self._window = np.array([0.0, 0.0, index.width, index.height])
        self.refresh()

    @property
    def units(self) -> UnitTable:
        """The current unit table."""
        return self._units

    def pair_index(self, a: int, t: int) -> int:
        """Position of the pair (a, t) in the all-pairs order (attacker-major)."""
        if a == t:
            raise ValueError("attacker and target must differ")
        return a * (self._n - 1) + (t if t < a else t - 1)

    def move_unit(
        self,
        i: int,
        xy: tuple[float, float] | None = None,
        height: float | None = None,
        facing: float | None = None,
    ) -> None:
        """Move, re-posture (silhouette height) or turn unit ``i``; facts update on next query."""
        old = self._units
        self._units = old.with_unit(i, xy=xy, height=height, facing=facing)
        new = self._units
        if new.xy[i, 0] != old.xy[i, 0] or new.xy[i, 1] != old.xy[i, 1]:
            # a move changes its pairs' cover and every pair's intervening units
            self._dirty.add(int(i))
            self._moved.add(int(i))
        elif new.height[i] != old.height[i]:
            self._dirty.add(int(i))  # cover of its pairs only (intervening depends on bases)
        self._touched.add(int(i))
        self._stale = True  # arcs (a turn) and everything above

    def set_units(self, units: UnitTable) -> None:
        """Replace the whole table (same ids in the same order); everything is recomputed."""
        if units.ids != self._units.ids:
            raise ValueError("set_units needs the same unit ids in the same order")
        self._units = units
        self._dirty = set(range(self._n))
        self._moved = set(range(self._n))
        self._touched = set(range(self._n))
        self._stale = True

    def refresh(self) -> None:
        """Recompute whatever the moves since the last refresh made stale."""
        if not self._stale and self._batch is not None:
            return
        units = self._units
        if self._dirty:
            if len(self._dirty) == 1:
                (i,) = self._dirty
                k = self._pairs_of[i]
            else:
                moved = self._mask(self._dirty)
                k = np.flatnonzero(moved[self._a] | moved[self._t])
            if len(k):
                res = self.index.cover(units, self._a[k], self._t[k], screen_all=True)
                self._fraction[k] = res.fraction
                self._screen[k] = res.obstacle_screen
            self._dirty.clear()
        prev = self._batch
        if prev is None or len(self._touched) == self._n:
            if self._moved:
                self._ptr, self._rows = kernel.intervening_rows(units.xy, units.base, self._a, self._t)
                self._dist = kernel.intervening_distances(units.xy, self._a, self._ptr, self._rows)
                self._csr_xy = units.xy
            self._batch = assemble_batch(
                units, self._a, self._t, self._fraction, self._screen, self._ptr, self._rows
            )
            self._memo = [None] * len(self._a)
        else:
            changed = self._update_intervening(units)
            self._batch = self._reassemble(units, prev, changed)
            memo = self._memo
            for i in self._touched:  # their pairs were re-assembled (and re-covered if dirty)
                for p in self._pairs_of[i].tolist():
                    memo[p] = None
            if changed is not self._no_change:
                for p in np.flatnonzero(changed).tolist():
                    memo[p] = None
        self._moved.clear()
        self._touched.clear()
        self._stale = False

    def _update_intervening(self, units: UnitTable) -> BoolArray:
        """Update the intervening units for the moves since the last refresh.

        Returns:
            (pairs,) True where a pair's intervening units (or their order) changed.
        """
        if not self._moved:
            return self._no_change
        moved_rows = np.array(sorted(self._moved), dtype=np.int64)
        self._ptr, self._rows, self._dist, changed = kernel.intervening_delta(
            units.xy, self._csr_xy, units.base, self._a, self._t, self._mask(self._moved), moved_rows,
            self._ptr, self._rows, self._dist, self._window,
        )  # fmt: skip
        self._csr_xy = units.xy
        return np.asarray(changed)

    def _reassemble(self, units: UnitTable, prev: SightBatch, changed: BoolArray) -> SightBatch:
        """The new batch: ``prev`` with the pairs the changes touched re-assembled."""
        visible, level, hidden = prev.visible.copy(), prev.level.copy(), prev.hidden.copy()
        arc, distance, unit_screen = prev.arc.copy(), prev.distance.copy(), prev.unit_screen.copy()
        kernel.assemble_update(
            units.xy, units.base, units.size, units.facing, self._a, self._t, self._fraction,
            self._screen, self._ptr, self._rows, changed, self._mask(self._touched),
            visible, level, hidden, arc, distance, unit_screen,
        )  # fmt: skip
        return SightBatch(
            ids=units.ids,
            attackers=self._a,
            targets=self._t,
            visible=visible,
            cover_fraction=self._fraction,
            level=level,
            hidden=hidden,
            arc=arc,
            distance=distance,
            intervening_ptr=self._ptr,
            intervening_idx=self._rows,
            obstacle_screen=self._screen,
            unit_screen=unit_screen,
        )

    def _mask(self, rows: set[int]) -> BoolArray:
        """(n,) True for ``rows`` (callers must not change it)."""
        if len(rows) == 1:
            (i,) = rows
            return self._only[i]
        moved = np.zeros(self._n, dtype=bool)
        moved[list(rows)] = True
        return moved

    @property
    def batch(self) -> SightBatch:
        """The current all-pairs batch (attacker-major order, see :meth:`pair_index`)."""
        self.refresh()
        assert self._batch is not None
        return self._batch

    def facts(self, a: int, t: int) -> SightFacts:
        """Current sight facts from unit ``a`` to unit ``t``."""
        if self._stale or self._batch is None:
            self.refresh()  # (and forget the facts of the pairs that changed)
        if a == t:
            raise ValueError("attacker and target must differ")
        k = a * (self._n - 1) + (t if t < a else t - 1)  # pair_index, inline: asked very often
        got = self._memo[k]
        if got is None:
            assert self._batch is not None
            got = self._memo[k] = self._batch.facts(k)
        return got

    def fraction_matrix(self) -> FloatArray:
        """(n, n) cover fractions, attacker rows, target columns (diagonal 0)."""
        out = np.zeros((self._n, self._n))
        out[self._a, self._t] = self.batch.cover_fraction
        return out

    def visible_matrix(self) -> BoolArray:
        """(n, n) line-of-sight flags, attacker rows, target columns (diagonal False)."""
        out = np.zeros((self._n, self._n), dtype=bool)
        out[self._a, self._t] = self.batch.visible
        return out

    def visible_enemies(self, a: int, side_mask: BoolArray) -> IntArray:
        """Rows of the units in ``side_mask`` that unit ``a`` can see, in row order.

        Args:
            a: the looking unit's row.
            side_mask: (n,) True for the units to consider (e.g. the other side, alive).

        Returns:
            Sorted rows ``t != a`` with ``side_mask[t]`` and a line of sight from ``a``.
        """
        batch = self.batch
        lo = a * (self._n - 1)
        rows = self._t[lo : lo + self._n - 1]
        vis = batch.visible[lo : lo + self._n - 1]
        mask = np.asarray(side_mask, dtype=bool)
        return np.asarray(rows[vis & mask[rows]], dtype=np.int64)
