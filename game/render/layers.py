"""The static layer: table, grid and obstacles, drawn once per zoom level.

Contract: :class:`StaticLayer` draws the table (``width`` × ``height`` inches), the grid
(1 cell = ``cell`` inches, a heavier line every :data:`MAJOR_EVERY` cells) and every obstacle
filled with its height shade (:func:`game.render.colors.obstacle_color`) onto a surface anchored
to the map: at the camera's scale it holds the whole table plus ``margin_px`` around it. Panning only changes
where that surface is blitted; it is redrawn when the zoom, the grid toggle or the map changes.
When the whole table at the current zoom would exceed :data:`MAX_MAP_PIXELS`, the layer holds
just the visible window instead and is redrawn when the view moves. ``redraws`` counts the
redraws (tests and the benchmark check the cache). :meth:`StaticLayer.blit_to` puts the
background and the layer on a target surface: one fill and one blit per frame.
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
#: Largest map-anchored layer kept (pixels); zoomed in further, only the visible window is kept.
MAX_MAP_PIXELS = 6_000_000
#: Pixels around the table kept on the map-anchored layer (the table edge line lies there).
MARGIN_PX = 4


def new_surface(size: tuple[int, int], alpha: bool = False) -> pygame.Surface:
    """A surface in the display's pixel format when a window is open (blits between equal formats
    are several times faster), else a plain one; per-pixel alpha if ``alpha``."""
    if alpha:
        return pygame.Surface(size, pygame.SRCALPHA)
    display = pygame.display.get_surface() if pygame.display.get_init() else None
    return pygame.Surface(size, 0, display) if display is not None else pygame.Surface(size)


#: Reusable surfaces grow in steps of this many pixels (zooming changes the size a little).
CANVAS_STEP = 256


class Canvas:
    """A reusable drawing surface: :meth:`get` returns a subsurface of exactly the requested size,
    allocating a larger backing surface only when the request outgrows it (a zoom changes the
    board's size every step; allocating and converting a megapixel surface costs milliseconds).

    Args:
        alpha: per-pixel alpha (cleared to transparent when allocated).
    """

    def __init__(self, alpha: bool = False) -> None:
        self.alpha = alpha
        self._full: pygame.Surface | None = None
        self.allocations = 0

    def get(self, size: tuple[int, int]) -> pygame.Surface:
        """A surface of ``size`` (its pixels persist between calls with sizes that fit)."""
        w, h = max(1, size[0]), max(1, size[1])
        full = self._full
        if full is None or full.get_width() < w or full.get_height() < h:
            cw = math.ceil(max(w, full.get_width() if full else 0) / CANVAS_STEP) * CANVAS_STEP
            ch = math.ceil(max(h, full.get_height() if full else 0) / CANVAS_STEP) * CANVAS_STEP
            full = new_surface((cw, ch), self.alpha)
            if self.alpha:
                full.fill((0, 0, 0, 0))
            self._full = full
            self.allocations += 1
        return full.subsurface((0, 0, w, h))


def fill_around(target: pygame.Surface, inner: pygame.Rect, area: pygame.Rect) -> None:
    """Fill the part of ``area`` outside ``inner`` with the background (up to four strips)."""
    clip = area.clip(inner)
    if clip.width == 0 or clip.height == 0:
        target.fill(colors.BACKGROUND, area)
        return
    if clip == area:
        return
    for strip in (
        pygame.Rect(area.left, area.top, area.width, clip.top - area.top),
        pygame.Rect(area.left, clip.bottom, area.width, area.bottom - clip.bottom),
        pygame.Rect(area.left, clip.top, clip.left - area.left, clip.height),
        pygame.Rect(clip.right, clip.top, area.right - clip.right, clip.height),
    ):
        if strip.width > 0 and strip.height > 0:
            target.fill(colors.BACKGROUND, strip)


class StaticLayer:
    """Cached picture of everything that does not move."""

    def __init__(
        self,
        width: float,
        height: float,
        cell: float,
        obstacles: Sequence[ObstacleSpec],
        margin_px: int = MARGIN_PX,
    ) -> None:
        self.margin_px = int(margin_px)
        self.width = float(width)
        self.height = float(height)
        self.cell = float(cell) if cell > 0 else 1.0
        self.obstacles = tuple(obstacles)
        # all obstacle vertices in one array, transformed in one step per redraw
        polys = [np.array(o.polygon, dtype=np.float64).reshape(-1, 2) for o in self.obstacles]
        self._points = np.concatenate(polys) if polys else np.zeros((0, 2))
        self._splits = np.cumsum([len(p) for p in polys])[:-1]
        self._fills = [colors.obstacle_color(o.height) for o in self.obstacles]
        self._edges = [colors.darker(c, 0.5) for c in self._fills]
        self._key: tuple[object, ...] | None = None
        self._canvas = Canvas()
        self._surface: pygame.Surface | None = None
        self._anchor = Camera(self.width, self.height, (0, 0, 1, 1))
        self._map_anchored = True
        self.redraws = 0

    def blit_to(self, target: pygame.Surface, camera: Camera, grid: bool = True) -> None:
        """Put the background, the table, the grid and the obstacles on ``target``."""
        m = self.margin_px
        w = math.ceil(self.width * camera.scale) + 2 * m
        h = math.ceil(self.height * camera.scale) + 2 * m
        if w * h <= MAX_MAP_PIXELS:
            key: tuple[object, ...] = ("map", camera.scale, grid)
            if self._surface is None or key != self._key:
                # a camera with the same scale whose viewport is this surface, table at the margin
                origin = -m / camera.scale
                self._anchor = Camera(self.width, self.height, (0, 0, w, h), camera.scale, origin, origin)
                self._redraw((w, h), self._anchor, grid, key)
            x, y = camera.world_to_screen(self._anchor.origin_x, self._anchor.origin_y)
            assert self._surface is not None
            dest = self._surface.get_rect(topleft=(round(x), round(y)))
            fill_around(target, dest, target.get_rect())
            target.blit(self._surface, dest)
        else:
            size = target.get_size()
            key = ("window", size, camera.key(), grid)
            if self._surface is None or key != self._key:
                self._redraw(size, camera, grid, key)
            assert self._surface is not None
            target.blit(self._surface, (0, 0))

    def _redraw(self, size: tuple[int, int], camera: Camera, grid: bool, key: tuple[object, ...]) -> None:
        self._surface = self._canvas.get(size)
        self._draw(self._surface, camera, grid)
        self._key = key
        self.redraws += 1

    def _draw(self, surf: pygame.Surface, camera: Camera, grid: bool) -> None:
        surf.fill(colors.BACKGROUND)
        x0, y0 = camera.world_to_screen(0.0, 0.0)
        x1, y1 = camera.world_to_screen(self.width, self.height)
        table = pygame.Rect(round(x0), round(y0), round(x1) - round(x0), round(y1) - round(y0))
        pygame.draw.rect(surf, colors.TABLE, table)
        if grid:
            self._grid(surf, camera, table)
        width = 2 if camera.scale >= 8 else 1
        shapes = np.split(camera.points_to_screen(self._points), self._splits) if self.obstacles else []
        for shape, fill, edge in zip(shapes, self._fills, self._edges):
            pts = shape.tolist()
            pygame.draw.polygon(surf, fill, pts)
            pygame.draw.polygon(surf, edge, pts, width)
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
