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
  units changed; the others stay as they are;
* a turn alone (or a move to the same spot) changes no cover and no intervening units, and
  a posture change alone no intervening units.

The intervening-unit update (:func:`game.geometry.kernel.intervening_update`) searches afresh
only the moved units' own pairs, among the units a broad phase puts near each pair's corridor;
every other pair retests only the moved units at their old and new places (the capsule test
rejects a unit far from the sight line in a few operations), and its ranked list is kept
unless a moved unit enters, leaves or stays in it (then it is re-ranked with the distances
kept beside the lists). The lists live in a pool where a changed list is rewritten at the end,
and every per-pair array is updated in place: one move thus costs O(pairs + n * local units)
and rewrites only what it changes, not every list and array (which, at 80 units, meant
copying a megabyte per move). No (pairs x units) table is kept.

Changes are applied lazily: queries call :meth:`SightCache.refresh` first, so many moves in a
row cost one recomputation. :attr:`SightCache.batch` is a snapshot made when asked for.
"""

from __future__ import annotations

import numpy as np

from components.sight import SightFacts
from game.geometry import kernel
from game.geometry.fast import SightBatch, SightIndex
from game.geometry.model import ARCS, LEVELS, BoolArray, FloatArray, IntArray, UnitTable


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
        p = len(self._a)
        # Per unit, its pairs (as attacker or target, in pair order) and a mask naming only it:
        # one unit changed is the usual refresh, and building these each time cost as much as
        # the intervening-units kernel.
        self._pairs_of = [np.flatnonzero((self._a == i) | (self._t == i)) for i in range(n)]
        self._only = [np.arange(n) == i for i in range(n)]
        self._fraction = np.zeros(p)
        self._screen = np.zeros(p, dtype=bool)
        # the derived fields, per pair, updated in place
        self._visible = np.zeros(p, dtype=bool)
        self._level = np.zeros(p, dtype=np.int8)
        self._hidden = np.zeros(p, dtype=bool)
        self._arc = np.zeros(p, dtype=np.int8)
        self._distance = np.zeros(p)
        self._unit_screen = np.zeros(p, dtype=bool)
        # intervening units: pair k's are pool[start[k]:start[k] + count[k]], each one's
        # distance from the attacker beside it in pool_dist; state = (pool end, entries)
        self._start = np.zeros(p, dtype=np.int64)
        self._count = np.zeros(p, dtype=np.int64)
        self._pool = np.zeros(0, dtype=np.int64)
        self._pool_dist = np.zeros(0)
        self._state = np.zeros(2, dtype=np.int64)
        self._csr_xy = units.xy  # the centres the lists were made for
        self._dirty: set[int] = set(range(n))
        self._moved: set[int] = set(range(n))
        self._touched: set[int] = set(range(n))  # any change: its pairs are re-assembled
        self._stale = True
        self._ready = False
        self._batch: SightBatch | None = None
        # Facts already asked for, per pair, until a change reaches the pair: after a move most
        # pairs are untouched, and the AI asks about the same pairs decision after decision.
        self._memo: list[SightFacts | None] = [None] * p
        # Whether a fork shares the arrays / the memo (copy on write: see fork).
        self._shared_arrays = False
        self._shared_memo = False
        self._no_change = np.zeros(p, dtype=bool)
        # the unit grid of the intervening-unit update covers the map (units taken off the
        # table are parked far outside it and tested apart)
        self._window = np.array([0.0, 0.0, index.width, index.height])
        self.refresh()

    @property
    def units(self) -> UnitTable:
        """The current unit table."""
        return self._units

    #: Per-pair arrays updated in place: a fork shares them until either side writes.
    _OWN_ARRAYS = (
        "_fraction", "_screen", "_visible", "_level", "_hidden", "_arc", "_distance",
        "_unit_screen", "_start", "_count", "_pool", "_pool_dist", "_state",
    )  # fmt: skip

    def fork(self) -> SightCache:
        """An independent copy answering the same facts (for a clone of a match).

        Copy on write: the two share the per-pair arrays and the memo of facts until one of
        them is about to change them (:meth:`_own_arrays`, :meth:`_own_memo`), and the unit
        table, the static pair index and the facts themselves (frozen values) for good.
        """
        twin = object.__new__(SightCache)
        twin.__dict__.update(self.__dict__)
        twin._dirty = set(self._dirty)
        twin._moved = set(self._moved)
        twin._touched = set(self._touched)
        self._shared_arrays = self._shared_memo = True
        twin._shared_arrays = twin._shared_memo = True
        return twin

    def _own_arrays(self) -> None:
        """Copy the per-pair arrays a fork shares, before changing them."""
        if self._shared_arrays:
            for name in self._OWN_ARRAYS:
                setattr(self, name, getattr(self, name).copy())
            self._shared_arrays = False

    def _own_memo(self) -> None:
        if self._shared_memo:
            self._memo = self._memo.copy()
            self._shared_memo = False

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
        if not self._stale:
            return
        self._own_arrays()
        self._own_memo()
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
        if not self._ready or len(self._touched) == self._n:
            self._assemble_all(units)
            self._memo = [None] * len(self._a)
        else:
            changed = self._update_intervening(units)
            kernel.assemble_update(
                units.xy, units.base, units.size, units.facing, self._fraction, self._screen,
                self._start, self._count, self._pool, changed, self._mask(self._touched),
                self._visible, self._level, self._hidden, self._arc, self._distance, self._unit_screen,
            )  # fmt: skip
            memo = self._memo
            for i in self._touched:  # their pairs were re-assembled (and re-covered if dirty)
                for p in self._pairs_of[i].tolist():
                    memo[p] = None
            if changed is not self._no_change:
                for p in np.flatnonzero(changed).tolist():
                    memo[p] = None
        self._moved.clear()
        self._touched.clear()
        self._batch = None
        self._ready = True
        self._stale = False

    def _assemble_all(self, units: UnitTable) -> None:
        """Every pair's intervening units (if any unit moved) and derived fields from scratch."""
        if self._moved or not self._ready:
            ptr, rows = kernel.intervening_rows(units.xy, units.base, self._a, self._t)
            self._pool = rows
            self._pool_dist = kernel.intervening_distances(units.xy, self._a, ptr, rows)
            self._start = ptr[:-1].copy()
            self._count = np.diff(ptr)
            self._state = np.array([len(rows), len(rows)], dtype=np.int64)
            self._csr_xy = units.xy
        else:
            ptr, rows = kernel.pool_csr(self._start, self._count, self._pool)
        (
            self._visible, self._level, self._hidden, self._arc, self._distance, self._unit_screen
        ) = kernel.assemble(
            units.xy, units.base, units.size, units.facing, self._a, self._t, self._fraction,
            self._screen, ptr, rows,
        )  # fmt: skip

    def _update_intervening(self, units: UnitTable) -> BoolArray:
        """Update the intervening units for the moves since the last refresh.

        Returns:
            (pairs,) True where a pair's intervening units (or their order) changed.
        """
        if not self._moved:
            return self._no_change
        moved_rows = np.array(sorted(self._moved), dtype=np.int64)
        self._pool, self._pool_dist, changed = kernel.intervening_update(
            units.xy, self._csr_xy, units.base, self._mask(self._moved), moved_rows,
            self._start, self._count, self._pool, self._pool_dist, self._state, self._window,
        )  # fmt: skip
        self._csr_xy = units.xy
        return np.asarray(changed)

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
        """The current all-pairs batch (attacker-major order, see :meth:`pair_index`): a snapshot,
        unaffected by later moves."""
        self.refresh()
        if self._batch is None:
            ptr, rows = kernel.pool_csr(self._start, self._count, self._pool)
            self._batch = SightBatch(
                ids=self._units.ids,
                attackers=self._a,
                targets=self._t,
                visible=self._visible.copy(),
                cover_fraction=self._fraction.copy(),
                level=self._level.copy(),
                hidden=self._hidden.copy(),
                arc=self._arc.copy(),
                distance=self._distance.copy(),
                intervening_ptr=ptr,
                intervening_idx=rows,
                obstacle_screen=self._screen.copy(),
                unit_screen=self._unit_screen.copy(),
            )
        return self._batch

    def facts(self, a: int, t: int) -> SightFacts:
        """Current sight facts from unit ``a`` to unit ``t``.

        Read from the pair's own entries (``ndarray.item``: Python scalars, nothing converted
        for all pairs), and remembered until a change reaches the pair.
        """
        if self._stale:
            self.refresh()  # (and forget the facts of the pairs that changed)
        if a == t:
            raise ValueError("attacker and target must differ")
        k = a * (self._n - 1) + (t if t < a else t - 1)  # pair_index, inline: asked very often
        got = self._memo[k]
        if got is None:
            self._own_memo()
            ids = self._units.ids
            lo = self._start.item(k)
            rows = self._pool[lo : lo + self._count.item(k)].tolist()
            got = self._memo[k] = SightFacts(  # positionally: the fields in order
                ids[a],
                ids[t],
                self._visible.item(k),
                self._fraction.item(k),
                LEVELS[self._level.item(k)],
                tuple([ids[u] for u in rows]),
                self._hidden.item(k),
                ARCS[self._arc.item(k)],
                self._distance.item(k),
            )
        return got

    def fraction_matrix(self) -> FloatArray:
        """(n, n) cover fractions, attacker rows, target columns (diagonal 0)."""
        self.refresh()
        out = np.zeros((self._n, self._n))
        out[self._a, self._t] = self._fraction
        return out

    def visible_matrix(self) -> BoolArray:
        """(n, n) line-of-sight flags, attacker rows, target columns (diagonal False)."""
        self.refresh()
        out = np.zeros((self._n, self._n), dtype=bool)
        out[self._a, self._t] = self._visible
        return out

    def visible_enemies(self, a: int, side_mask: BoolArray) -> IntArray:
        """Rows of the units in ``side_mask`` that unit ``a`` can see, in row order.

        Args:
            a: the looking unit's row.
            side_mask: (n,) True for the units to consider (e.g. the other side, alive).

        Returns:
            Sorted rows ``t != a`` with ``side_mask[t]`` and a line of sight from ``a``.
        """
        self.refresh()
        lo = a * (self._n - 1)
        rows = self._t[lo : lo + self._n - 1]
        vis = self._visible[lo : lo + self._n - 1]
        mask = np.asarray(side_mask, dtype=bool)
        return np.asarray(rows[vis & mask[rows]], dtype=np.int64)
