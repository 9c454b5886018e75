"""One frame of the skirmish window: map, overlays, units, panel, help and message line.

Contract: :class:`Renderer` draws a :class:`~game.view.MatchView` and a
:class:`~game.render.ui.UiState` onto a surface; the window (:mod:`game.app`), the PNG
renderer (``skirmish render``) and the benchmark all use this one drawing. It only reads the
view. The map fills the window left of the :data:`~game.render.panel.PANEL_W` panel; the static
layer (table, grid, obstacles) is redrawn only when the camera or the window size changes, the
derived data only when the match logs something (:class:`~game.render.scene.Scene`), and the
threat map is computed in slices of ``threat_budget`` seconds per frame (``None``: at once).
The viewer (whose sight fans, arcs and threat map are drawn) is ``ui.selected``, else the
deciding unit, else the first living unit. The view is wrapped in a
:class:`~game.render.scene.CachedView`, so a frame reads each unit from the match once.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pygame

from game.render import colors
from game.render.camera import Camera
from game.render.inspect import PathPreview
from game.render.layers import StaticLayer
from game.render.overlays import (
    draw_arcs,
    draw_cross,
    draw_fans,
    draw_path,
    draw_region,
    draw_rings,
    draw_sight_label,
    draw_silhouette,
    draw_threat,
)
from game.render.panel import PANEL_W, Panel
from game.render.scene import CachedView, Scene
from game.render.shapes import arc_radius
from game.render.text import Text
from game.render.ui import ACTION_KEYS, MOUSE_HELP, OVERLAY_KEYS, OVERLAYS, UiState
from game.render.units import draw_units

#: Smallest window the layout supports.
MIN_SIZE = (640, 420)


def map_viewport(size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The map's (x, y, w, h) in a window of ``size``: everything left of the panel."""
    w, h = size
    return (0, 0, max(1, w - PANEL_W), max(1, h))


class Renderer:
    """Draws frames of one match view.

    Args:
        view: the match view to draw.
        size: window size in pixels.
    """

    def __init__(self, view: Any, size: tuple[int, int] = (1280, 800)) -> None:
        self.text = Text()
        self.panel = Panel(self.text)
        self.size = (max(MIN_SIZE[0], size[0]), max(MIN_SIZE[1], size[1]))
        self.camera = Camera.fitted(view.width, view.height, map_viewport(self.size))
        self._fill: pygame.Surface | None = None
        self._threat_img: tuple[Any, pygame.Surface] | None = None
        self.set_view(view)

    # ------------------------------------------------------------------ setup
    def set_view(self, view: Any) -> None:
        """Draw another match (after a load or a replay step); keeps the camera if the map is the same."""
        old: Any = getattr(self, "view", None)
        same_map = old is not None and (old.width, old.height) == (view.width, view.height)
        self.view: Any = view if isinstance(view, CachedView) else CachedView(view)
        self.scene = Scene(self.view)
        self.static = StaticLayer(view.width, view.height, view.cell, view.obstacles)
        self._threat_img = None
        if not same_map:
            self.camera = Camera.fitted(view.width, view.height, map_viewport(self.size))

    def resize(self, size: tuple[int, int]) -> None:
        """Adapt the layout to a new window size."""
        self.size = (max(MIN_SIZE[0], size[0]), max(MIN_SIZE[1], size[1]))
        self.camera.set_viewport(map_viewport(self.size))

    def viewer(self, ui: UiState) -> str | None:
        """The unit whose point of view the overlays show."""
        alive = {u.id for u in self.view.units()}
        if ui.selected in alive:
            return ui.selected
        d = self.view.pending
        if d is not None and d.unit in alive:
            return str(d.unit)
        return next(iter(sorted(alive)), None) if alive else None

    # ------------------------------------------------------------------ frame
    def draw(
        self,
        surface: pygame.Surface,
        ui: UiState,
        humans: Collection[str] = (),
        controllers: Mapping[str, str] | None = None,
        threat_budget: float | None = 0.004,
    ) -> None:
        """Draw one frame.

        Args:
            surface: the window (or an off-screen surface of :attr:`size`).
            ui: UI state.
            humans: sides played by a human (their decisions get clickable option rows).
            controllers: side → controller name, for the panel.
            threat_budget: seconds of threat-map work allowed this frame (None: finish it now).
        """
        self.scene.sync()
        view, cam, on = self.view, self.camera, ui.overlays
        size = surface.get_size()
        if size != self.size:
            self.resize(size)
        map_rect = pygame.Rect(*cam.viewport)
        surface.set_clip(map_rect)
        surface.blit(self.static.surface(size, cam, "grid" in on), (0, 0))
        viewer = self.viewer(ui)
        decision = view.pending
        target = ui.target if viewer is not None and ui.target in view.enemies(viewer) else None

        if "threat" in on and viewer is not None:
            self._draw_threat(surface, viewer, threat_budget)

        fill = self._fill_layer(size)
        fans = self.scene.fans(viewer) if viewer is not None else []
        vpos = view.unit(viewer).pos if viewer is not None else (0.0, 0.0)
        if "arcs" in on and viewer is not None:
            for uid in (viewer, target) if target is not None else (viewer,):
                draw_arcs(fill, cam, self.scene.arcs(uid, arc_radius(view.unit(uid).base)))
        regions = self.scene.regions(decision)
        for shape in regions:
            if shape.overlay not in on:
                continue
            tint = {"retreat": colors.REGION_RETREAT, "dodge": colors.REGION_DODGE}.get(
                shape.overlay, colors.REGION_MOVE
            )
            draw_region(fill, surface, cam, shape.rings, tint, strong=ui.armed == shape.option)
        sil = None
        if "silhouette" in on and target is not None and viewer is not None:
            sil = self.scene.silhouette(viewer, target)
            if sil is not None:
                draw_region(fill, surface, cam, sil.exposed_wedge, colors.WEDGE_EXPOSED, colors.EXPOSED_PART)
                draw_region(fill, surface, cam, sil.hidden_wedge, colors.WEDGE_HIDDEN, colors.HIDDEN_PART)
        if "sight" in on and viewer is not None:
            draw_fans(fill, surface, cam, vpos, fans, highlight=target)
        surface.blit(fill, (0, 0))

        if "cover-units" in on and viewer is not None:
            ids = {u for facts, _, _ in fans for u in facts.intervening}
            if target is not None:
                ids |= set(view.sight(viewer, target).intervening)
            draw_rings(
                surface,
                cam,
                [(view.unit(u).pos, view.unit(u).base) for u in sorted(ids)],
                colors.COVER_UNIT_RING,
            )
        if target is not None and viewer is not None:
            facts = view.sight(viewer, target)
            tpos = view.unit(target).pos
            pygame.draw.line(surface, colors.COVER_COLORS[facts.cover], cam.to_px(*vpos), cam.to_px(*tpos), 3)
            draw_sight_label(surface, self.text, cam, vpos, facts, tpos)
        preview: PathPreview | None = ui.preview
        if preview is not None and "path" in on and ui.armed is None:
            draw_path(surface, self.text, cam, preview.points, preview.label, preview.reason is None)

        draw_units(
            surface,
            cam,
            view.units(alive=False),
            view.sides,
            self.text,
            active=decision.unit if decision is not None else None,
            selected=viewer,
            hover=ui.hover_unit,
            initial_health=self.scene.initial_health,
        )
        if sil is not None and target is not None:
            t = view.unit(target)
            tx, ty = cam.world_to_screen(*t.pos)
            caption = f"{sil.facts.cover_fraction * 100:.0f}% hidden ({sil.facts.cover})"
            draw_silhouette(
                surface,
                self.text,
                (tx + cam.length(t.base) + 12, ty - cam.length(t.base) - 12),
                sil.parts,
                colors.side_color(t.side, view.sides),
                caption,
            )
        if ui.armed is not None and ui.hover is not None and ui.point_ok is not None:
            draw_cross(surface, cam, ui.hover, ui.point_ok)
        if ui.message:
            self._message(surface, map_rect, ui)
        surface.set_clip(None)
        panel_rect = pygame.Rect(map_rect.right, 0, size[0] - map_rect.right, size[1])
        self.panel.draw(surface, panel_rect, view, self.scene, ui, humans, controllers or {}, viewer)
        if ui.show_help:
            self._help(surface, map_rect, ui)

    # ------------------------------------------------------------------ pieces
    def _fill_layer(self, size: tuple[int, int]) -> pygame.Surface:
        if self._fill is None or self._fill.get_size() != size:
            self._fill = pygame.Surface(size, pygame.SRCALPHA)
        self._fill.fill((0, 0, 0, 0))
        return self._fill

    def _draw_threat(self, surface: pygame.Surface, viewer: str, budget: float | None) -> None:
        tm = self.scene.threat(viewer)
        if not tm.finished:
            tm.advance(budget)
        if tm.finished and (self._threat_img is None or self._threat_img[0] is not tm):
            rgba = tm.rgba()
            img = pygame.Surface((tm.nx, tm.ny), pygame.SRCALPHA)
            pygame.surfarray.pixels3d(img)[...] = rgba[:, :, :3]
            alpha = pygame.surfarray.pixels_alpha(img)
            alpha[...] = rgba[:, :, 3]
            del alpha
            self._threat_img = (tm, img)
        if self._threat_img is not None:
            draw_threat(surface, self.camera, self._threat_img[1], float(self._threat_img[0].cell))

    def _message(self, surface: pygame.Surface, map_rect: pygame.Rect, ui: UiState) -> None:
        color = colors.WARNING if ui.message_error else colors.PANEL_TEXT
        img = self.text.render(ui.message, 18, color)
        box = img.get_rect(midbottom=(map_rect.centerx, map_rect.bottom - 8)).inflate(16, 8)
        pygame.draw.rect(surface, colors.PANEL, box, border_radius=5)
        surface.blit(img, img.get_rect(center=box.center))

    def _help(self, surface: pygame.Surface, map_rect: pygame.Rect, ui: UiState) -> None:
        lines: list[tuple[str, colors.RGB]] = [("Keys", colors.PANEL_ACCENT)]
        seen: set[str] = set()
        for key, (action, text) in ACTION_KEYS.items():
            if action in seen and action.startswith(("pan", "zoom")):
                continue
            seen.add(action)
            lines.append((f"{key:>7}  {text}", colors.PANEL_TEXT))
        lines.append(("1-9, 0   choose a numbered option in the panel", colors.PANEL_TEXT))
        lines.append(("Overlays (on/off)", colors.PANEL_ACCENT))
        for key, name in OVERLAY_KEYS.items():
            state = "on " if name in ui.overlays else "off"
            lines.append((f"{key:>7}  [{state}] {name}: {OVERLAYS[name]}", colors.PANEL_TEXT))
        lines.append(("Mouse", colors.PANEL_ACCENT))
        lines += [(s, colors.PANEL_TEXT) for s in MOUSE_HELP]
        lines.append(("Cover colours: none, light, medium, heavy, near-total, total", colors.PANEL_ACCENT))
        box = map_rect.inflate(-40, -40)
        shade = pygame.Surface(box.size, pygame.SRCALPHA)
        shade.fill((10, 10, 14, 225))
        surface.blit(shade, box)
        y = box.y + 12
        for s, color in lines:
            for part in self.text.wrap(s, 16, box.w - 24):
                self.text.draw(surface, part, (box.x + 12, y), 16, color)
                y += 16
        x = box.x + 12
        for level, c in colors.COVER_COLORS.items():
            pygame.draw.rect(surface, c, (x, y + 4, 18, 12))
            self.text.draw(surface, str(level), (x + 22, y + 2), 15, colors.PANEL_TEXT)
            x += 26 + self.text.width(str(level), 15) + 10


def snapshot(surface: pygame.Surface) -> np.ndarray:
    """The surface's pixels as an (h, w, 3) uint8 array (row = y), for tests and checks."""
    return np.transpose(pygame.surfarray.array3d(surface), (1, 0, 2))
