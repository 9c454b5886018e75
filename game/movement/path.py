"""A legal move as a value: the polyline a base slides along and its length.

Contract: :class:`Path` is an immutable value (made by :meth:`game.movement.navmesh.NavMesh.path`),
shared by the engine and by the readers of its view (AI, render) without the mesh that made it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Path:
    """A legal polyline move.

    Attributes:
        points: Vertices from start to goal (at least two; equal when start == goal).
        length: Euclidean length of the polyline, inches.
    """

    points: tuple[tuple[float, float], ...]
    length: float
