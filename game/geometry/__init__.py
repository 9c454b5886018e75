"""Line of sight and cover (DESIGN §3): the exact model, a fast compiled path, a cache.

Contract: this package is pure geometry (numpy, shapely, numba); it never imports pygame or
esper.

* :mod:`game.geometry.model` — constants, cover levels, arcs, bearings, :class:`UnitTable`.
* :mod:`game.geometry.reference` — the exact oracle for one pair (:func:`sight_reference`)
  and the naive ray loop used as the benchmark baseline (:func:`sight_naive`).
* :mod:`game.geometry.fast` — :class:`SightIndex`, built once per scenario, answering many
  pairs at once (:class:`SightBatch`) and the AI's candidate-point questions.
* :mod:`game.geometry.kernel` (with :mod:`~game.geometry.envelope` and
  :mod:`~game.geometry.jit`) — the numba kernels behind it, compiled once and cached on disk.
* :mod:`game.geometry.cache` — :class:`SightCache`, all-pairs facts kept current as units move.
* :mod:`game.geometry.shapes` — shapely geometry for pictures.
* :mod:`game.geometry.discs` — :class:`~game.geometry.discs.ClippedDisc`, a move disc clipped
  to the table that answers sampling questions like GEOS without being built.

The model, its decisions and measured performance are described in ``docs/cover-model.md``.
"""

from game.geometry.cache import SightCache
from game.geometry.fast import SightBatch, SightIndex
from game.geometry.model import UnitTable, attack_arc, bearing_deg, cover_level
from game.geometry.reference import sight_naive, sight_profile, sight_reference
from game.geometry.shapes import SilhouetteParts, arc_wedges, sight_corridor, silhouette_parts

__all__ = [
    "SightBatch",
    "SightCache",
    "SightIndex",
    "SilhouetteParts",
    "UnitTable",
    "arc_wedges",
    "attack_arc",
    "bearing_deg",
    "cover_level",
    "sight_corridor",
    "sight_naive",
    "sight_profile",
    "sight_reference",
    "silhouette_parts",
]
