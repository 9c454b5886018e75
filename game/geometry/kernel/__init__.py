"""Compiled sight kernels: exact cover, obstacle screens, intervening units, one pair at a time.

Contract:

* The model and every decision are those of the oracle (:mod:`game.geometry.reference`, DESIGN
  §3, ``docs/cover-model.md``): cover fractions agree with it to ~1e-14 and every derived
  field (visible, level, hidden, arc, intervening units in order) is equal.
* :class:`ObstacleGrid` (:mod:`~game.geometry.kernel.obstacles`) holds a scenario's static
  obstacle arrays (convex pieces, edges with outward
  normals, bounding circles, a uniform grid over the pieces); :func:`build_obstacles` makes it once
  per :class:`game.geometry.fast.SightIndex`.
* Each public kernel has exactly one signature (C-contiguous float64 / int64 / bool arrays;
  read-only arrays are accepted). It is compiled when this module is first imported and cached
  on disk (:mod:`game.geometry.jit`), so later processes only load it. Nothing is compiled
  inside a call. No ``fastmath``: results are bit-for-bit reproducible on one machine.

Per pair (attacker centre ``A``, eye ``e``; target centre ``T`` at distance ``D``, base ``r``,
height ``H``), in the pair's frame ``u`` = bearing − bearing of ``T`` (window ``[−α, α]``):

1. **Broad phase.** The silhouette's rays up to ``D`` lie in the capsule of radius ``r`` around
   ``A→T``. The grid cells meeting it are visited from ``A``'s end; a piece is a candidate if its
   bounding circle meets the window's wedge nearer than ``D``.
2. **Occlusion shortcut.** A candidate taller than the eye and than ``H`` hides at least ``H``
   on every ray it is entered on before ``D``. Those rays form one interval (a convex piece ∩
   the disc of radius ``D`` is convex), so if both window edges enter it before ``D`` (two
   Cyrus–Beck clips) the pair is total and the walk stops. The last blockers found for each
   attacker and each target are tried before the walk.
3. **Narrow phase.** Per candidate edge (Cyrus–Beck slack ``s = c − n·A``): rays enter through
   edges with ``s < 0`` at ``d = s/(n·dir)``, so on the edge's angular span (clipped to the
   window with cross products) ``z = e + (h − e)·D·(n·dir)/s`` is a sinusoid in ``u``; the part
   with ``d < D`` is an ``acos`` interval, needed only where an end of the span is beyond ``D``.
   Obstacles taller than the eye give entry segments (and hide everything if ``A`` stands
   inside), the others exit segments where the exit is within ``D`` and the constant ``h``
   where the piece reaches past ``D``.
4. :func:`game.geometry.envelope.envelope_area` integrates the clamped upper envelope.
5. **Obstacle screen** (hidden rule), where asked: the obstacles within ``r + 0.5`` of ``T`` are
   listed once per target from the grid cells around it; one of size ≥ the target's screens if
   one of its pieces takes part (rays through its interior within ``D`` span > ``ANGLE_TOL``).

Intervening units: the oracle's exact corridor test for every other unit, after a capsule
test, sorted nearest the attacker first (ties by row). Broad phases pick the units to test:
a grid over the units, or per attacker a fan of the units by bearing, ranked once.

The loops work on borrowed views of their arrays (:func:`game.geometry.jit.borrowed`): numba's
atomic reference counting on every call that passes an array cost a quarter of the time.

Modules by concept: :mod:`~game.geometry.kernel.obstacles` (the static arrays),
:mod:`~game.geometry.kernel.pieces` (per-piece geometry), :mod:`~game.geometry.kernel.cover`
(exact cover and screens), :mod:`~game.geometry.kernel.units` (intervening units),
:mod:`~game.geometry.kernel.assembly` (sight facts), :mod:`~game.geometry.kernel.common`
(shared constants). This package re-exports the public kernels.
"""

from game.geometry.kernel.assembly import assemble, assemble_update
from game.geometry.kernel.common import OWNERS, SCREENS
from game.geometry.kernel.cover import cover_pairs
from game.geometry.kernel.obstacles import ObstacleGrid, build_obstacles
from game.geometry.kernel.units import (
    corridor_hits,
    intervening_distances,
    intervening_rows,
    intervening_update,
    pool_csr,
)

__all__ = [
    "OWNERS",
    "SCREENS",
    "ObstacleGrid",
    "assemble",
    "assemble_update",
    "build_obstacles",
    "corridor_hits",
    "cover_pairs",
    "intervening_distances",
    "intervening_rows",
    "intervening_update",
    "pool_csr",
]
