"""The static layer: table, grid and obstacles, drawn once per camera position.

Contract: :class:`StaticLayer` keeps one surface the size of the screen with the background,
the table (``width`` × ``height`` inches), the grid (1 cell = ``cell`` inches, a heavier line
every :data:`MAJOR_EVERY` cells) and every obstacle filled with its height shade
(:func:`game.render.colors.obstacle_color`). It is redrawn only when the camera's transform or
viewport, the surface size or the grid toggle changes (``redraws`` counts the redraws, so
tests and benchmarks can check the cache); otherwise :meth:`StaticLayer.surface` returns the
same surface and a frame costs one blit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pygame

from components.terrain import ObstacleSpec
from game.render import colors
from game.render.camera import Camera

#: A heavier grid line every this many cells.
MAJOR_EVERY = 6
#: Minor grid lines are skipped when a cell is narrower than this on screen (pixels).
MIN_CELL_PX = 5.0


class StaticLayer:
    """Cached picture of everything that does not move."""

    def __init__(self, width: float, height: float, cell: float, obstacles: Sequence[ObstacleSpec]) -> None:
        self.width = float(width)
        self.height = float(height)
        self.cell = float(cell) if cell > 0 else 1.0
        self.obstacles = tuple(obstacles)
        self._polys = [np.array(o.polygon, dtype=np.float64) for o in self.obstacles]
        self._key: tuple[object, ...] | None = None
        self._surface: pygame.Surface | None = None
        self.redraws = 0

    def surface(self, size: tuple[int, int], camera: Camera, grid: bool = True) -> pygame.Surface:
        """The static picture for this camera (redrawn only if something it depends on changed)."""
        key = (size, camera.key(), grid)
        if self._surface is None or key != self._key:
            if self._surface is None or self._surface.get_size() != size:
                self._surface = (
                    pygame.Surface(size).convert() if pygame.display.get_surface() else pygame.Surface(size)
                )
            self._draw(self._surface, camera, grid)
            self._key = key
            self.redraws += 1
        return self._surface

    def _draw(self, surf: pygame.Surface, camera: Camera, grid: bool) -> None:
        surf.fill(colors.BACKGROUND)
        x0, y0 = camera.world_to_screen(0.0, 0.0)
        x1, y1 = camera.world_to_screen(self.width, self.height)
        table = pygame.Rect(round(x0), round(y0), round(x1) - round(x0), round(y1) - round(y0))
        pygame.draw.rect(surf, colors.TABLE, table)
        if grid:
            self._grid(surf, camera, table)
        for o, pts in zip(self.obstacles, self._polys):
            screen = camera.points_to_screen(pts)
            shape = [(float(x), float(y)) for x, y in screen]
            fill = colors.obstacle_color(o.height)
            pygame.draw.polygon(surf, fill, shape)
            pygame.draw.polygon(surf, colors.darker(fill, 0.5), shape, 2 if camera.scale >= 8 else 1)
        pygame.draw.rect(surf, colors.TABLE_EDGE, table.inflate(2, 2), 1)

    def _grid(self, surf: pygame.Surface, camera: Camera, table: pygame.Rect) -> None:
        step_px = self.cell * camera.scale
        minor = step_px >= MIN_CELL_PX
        clip = surf.get_rect().clip(table)
        if clip.width <= 0 or clip.height <= 0:
            return
        wx0, wy0 = camera.screen_to_world(clip.left, clip.top)
        wx1, wy1 = camera.screen_to_world(clip.right, clip.bottom)
        for axis, (lo, hi) in enumerate(((wx0, wx1), (wy0, wy1))):
            limit = self.width if axis == 0 else self.height
            k0 = max(0, math.floor(lo / self.cell))
            k1 = min(math.floor(limit / self.cell + 1e-9), math.ceil(hi / self.cell))
            for k in range(k0, k1 + 1):
                major = k % MAJOR_EVERY == 0
                if not (major or minor):
                    continue
                color = colors.GRID_MAJOR if major else colors.GRID
                w = k * self.cell
                if axis == 0:
                    x = round(camera.world_to_screen(w, 0.0)[0])
                    pygame.draw.line(surf, color, (x, clip.top), (x, clip.bottom - 1))
                else:
                    y = round(camera.world_to_screen(0.0, w)[1])
                    pygame.draw.line(surf, color, (clip.left, y), (clip.right - 1, y))
