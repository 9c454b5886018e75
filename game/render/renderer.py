"""One frame of the skirmish window: map, overlays, units, panel, help and message line.

Contract: :class:`Renderer` draws a :class:`~game.engine.view.MatchView` and a
:class:`~game.render.ui.UiState` onto a surface; the window (:mod:`game.render.window`), the PNG
renderer (``skirmish render``) and the benchmark all use this one drawing. It only reads the
view. The map fills the window left of the :data:`~game.render.panel.PANEL_W` panel.

Caching: the static layer (table, grid, obstacles) is redrawn only when the zoom changes (see
:mod:`game.render.layers`); the board (static layer, threat map, the viewer's overlays and
every unit) is anchored to the map, so a pan only moves it, and is redrawn when the zoom, the
match, the viewer, the overlays or the pending decision change; what concerns the target under
the cursor is drawn every frame over it. Derived data is recomputed only when the match logs
something (:class:`~game.render.scene.Scene`); the exact reach of a human player's move is
computed in a background thread, the threat map in slices of ``threat_budget`` seconds per
frame (``None``: both at once, for pictures). The viewer (whose sight fans, arcs and threat
map are drawn) is ``ui.selected``, else the deciding unit, else the first living unit. The view
is wrapped in a :class:`~game.render.scene.CachedView`, so a frame reads each unit once.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pygame

from game.ai.planner import trace as planner_trace
from game.engine.view import MatchView
from game.render import colors
from game.render.camera import Camera
from game.render.inspect import PathPreview
from game.render.layers import MAX_MAP_PIXELS, Canvas, StaticLayer, fill_around, new_surface
from game.render.overlays import (
    draw_arcs,
    draw_band,
    draw_considered,
    draw_cross,
    draw_fans,
    draw_path,
    draw_region,
    draw_rings,
    draw_sight_label,
    draw_threat,
)
from game.render.panel import PANEL_W, Button, Panel
from game.render.scene import CachedView, Scene
from game.render.shapes import arc_radius
from game.render.text import Text
from game.render.ui import UiState, help_rows
from game.render.units import UnitSprites, draw_units, radius_px

#: Pixels of background kept around the table on the map-anchored board (labels, insets, arcs).
BOARD_MARGIN_PX = 140
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

    def __init__(self, view: MatchView, size: tuple[int, int] = (1280, 800)) -> None:
        self.text = Text()
        self.panel = Panel(self.text)
        self.sprites = UnitSprites(self.text)
        self.size = (max(MIN_SIZE[0], size[0]), max(MIN_SIZE[1], size[1]))
        self.camera = Camera.fitted(view.width, view.height, map_viewport(self.size))
        self._fill = Canvas(alpha=True)
        self._fill_dirty: pygame.Rect | None = None
        self._scratch = Canvas(alpha=True)
        self._board_canvas = Canvas()
        self._base_canvas = Canvas()
        self._threat: tuple[Any, pygame.Surface] | None = None
        self._threat_scaled: tuple[tuple[int, int, int], pygame.Surface, pygame.Surface] | None = None
        self._board: pygame.Surface | None = None
        self._base: tuple[tuple[Any, ...], pygame.Surface, pygame.Surface] | None = None
        self._board_key: tuple[Any, ...] | None = None
        self._board_refs: tuple[Any, ...] = ()
        self._panel_surf: pygame.Surface | None = None
        self._panel_key: tuple[Any, ...] | None = None
        self._panel_ref: Any = None
        self._panel_buttons: list[Button] = []
        self.board_redraws = 0
        #: Screen y where the panel's event log starts (the wheel below it scrolls the log).
        self.panel_log_top = 0
        self._summary_key: int | None = None
        self._summary_text: list[str] = []
        self._tape_key: tuple[Any, ...] | None = None
        self._tape_text: list[str] = []
        self.set_view(view)

    # ------------------------------------------------------------------ setup
    def set_view(self, view: MatchView) -> None:
        """Draw another match (after a load or a replay step); keeps the camera if the map is the same."""
        old_scene: Scene | None = getattr(self, "scene", None)
        if old_scene is not None:
            old_scene.close()
        old: CachedView | None = getattr(self, "view", None)
        same_map = old is not None and (old.width, old.height) == (view.width, view.height)
        self.view = view if isinstance(view, CachedView) else CachedView(view)
        self.scene = Scene(self.view)
        self.static = StaticLayer(view.width, view.height, view.cell, view.obstacles, BOARD_MARGIN_PX)
        self._threat = None
        self._board_key = None
        self._panel_key = None
        if not same_map:
            self.camera = Camera.fitted(view.width, view.height, map_viewport(self.size))

    def close(self) -> None:
        """Stop background work (the exact-reach thread)."""
        self.scene.close()

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
            threat_budget: seconds of threat-map work allowed this frame (None: finish it, and
                the exact move reach, now: for pictures).
        """
        self.scene.sync()
        view, cam, on = self.view, self.camera, ui.overlays
        size = surface.get_size()
        if size != self.size:
            self.resize(size)
        map_rect = pygame.Rect(*cam.viewport)
        viewer = self.viewer(ui)
        decision = view.pending
        target = ui.target if viewer is not None and ui.target in view.enemies(viewer) else None
        threat = None
        if "threat" in on and viewer is not None:
            threat = self._threat_image(viewer, threat_budget)
        mine = decision is not None and view.unit(decision.unit).side in humans
        self.scene.regions(decision, exact_reach=mine and "move" in on)  # starts / takes the exact reach
        if threat_budget is None:
            self.scene.finish_regions(decision)
        bcam, bsize, anchored = self._board_camera(size)
        key = (
            bsize,
            bcam.key(),
            view.version,
            viewer,
            frozenset(on),
            id(decision),
            self.scene.regions_version,
            ui.armed,
            id(threat),
        )
        if self._board is None or self._board_key != key:
            self._board_key = key
            self._board_refs = (decision, threat)  # keep the ids in the key meaningful
            self._draw_board(bsize, bcam, ui, viewer, decision, threat)
            self.board_redraws += 1
        assert self._board is not None
        surface.set_clip(map_rect)
        if anchored:
            dest = self._board.get_rect(topleft=cam.to_px(bcam.origin_x, bcam.origin_y))
            fill_around(surface, dest, map_rect)
            surface.blit(self._board, dest)
        else:
            surface.blit(self._board, (0, 0))
        surface.set_clip(None)

        surface.set_clip(map_rect)
        if target is not None and viewer is not None:
            self._draw_target(surface, ui, viewer, target)
        if ui.hover_unit is not None and ui.hover_unit != viewer:
            u = view.unit(ui.hover_unit)
            pygame.draw.circle(surface, colors.HOVER_RING, cam.to_px(*u.pos), radius_px(u, cam) + 2, 1)
        preview: PathPreview | None = ui.preview
        if preview is not None and "path" in on and ui.armed is None:
            draw_path(surface, self.text, cam, preview.points, preview.label, preview.reason is None)
        if ui.armed is not None and ui.hover is not None and ui.point_ok is not None:
            draw_cross(surface, cam, ui.snapped if ui.snapped is not None else ui.hover, ui.point_ok)
        if ui.tape is not None:
            self._tape(surface, ui, viewer, decision)
        if viewer is not None and ("sight" in on or "threat" in on):
            self._legend(surface, map_rect)
        if "planner" in on:
            considered = planner_trace.last(view)
            if considered is not None:
                records = planner_trace.by_unit(view)
                alive = {u.id for u in view.units()}
                records = {u: c for u, c in records.items() if u in alive or c is considered}
                width = max(320, min(560, map_rect.w - 24))
                draw_considered(
                    surface,
                    self.text,
                    cam,
                    (map_rect.left + 8, map_rect.top + 32),
                    considered,
                    records,
                    width,
                )
        if ui.message:
            self._message(surface, map_rect, ui)
        surface.set_clip(None)
        panel_rect = pygame.Rect(map_rect.right, 0, size[0] - map_rect.right, size[1])
        self._draw_panel(surface, panel_rect, ui, humans, controllers or {}, viewer, decision)
        if view.outcome is not None and not ui.summary_seen:
            ui.show_summary = ui.summary_seen = True  # the battle's summary opens once, at its end
        if ui.show_summary and not ui.show_help:
            self._summary(surface, map_rect)
        if ui.show_help:
            self._help(surface, map_rect, ui)

    def _draw_base(
        self, board: pygame.Surface, cam: Camera, grid: bool, threat: pygame.Surface | None
    ) -> None:
        """Static layer and threat map, composed once per zoom / threat image (one blit per board)."""
        if threat is None or self._threat is None:
            self.static.blit_to(board, cam, grid)
            return
        key = (board.get_size(), cam.key(), grid, id(threat), self.static.redraws)
        if self._base is None or self._base[0] != key:
            base = self._base_canvas.get(board.get_size())
            self.static.blit_to(base, cam, grid)
            self._blit_threat(base, cam, threat, float(self._threat[0].cell))
            # the key again: drawing the static layer may have counted a redraw
            self._base = ((board.get_size(), cam.key(), grid, id(threat), self.static.redraws), base, threat)
        board.blit(self._base[1], (0, 0))

    def _board_camera(self, size: tuple[int, int]) -> tuple[Camera, tuple[int, int], bool]:
        """The camera the board is drawn with, its size, and whether it is anchored to the map.

        Anchored: the whole table at the current zoom plus :data:`BOARD_MARGIN_PX` around it,
        so a pan only moves the board; past :data:`~game.render.layers.MAX_MAP_PIXELS` the
        board is the window itself and is redrawn when the view moves.
        """
        cam = self.camera
        w = math.ceil(cam.world_w * cam.scale) + 2 * BOARD_MARGIN_PX
        h = math.ceil(cam.world_h * cam.scale) + 2 * BOARD_MARGIN_PX
        if w * h <= MAX_MAP_PIXELS:
            origin = -BOARD_MARGIN_PX / cam.scale
            return Camera(cam.world_w, cam.world_h, (0, 0, w, h), cam.scale, origin, origin), (w, h), True
        return cam, size, False

    def _draw_board(
        self,
        size: tuple[int, int],
        cam: Camera,
        ui: UiState,
        viewer: str | None,
        decision: Any,
        threat: pygame.Surface | None,
    ) -> None:
        """The map with everything that changes only with the match, the zoom or the viewer."""
        view, on = self.view, ui.overlays
        self._board = board = self._board_canvas.get(size)
        self._draw_base(board, cam, "grid" in on, threat)
        board.set_clip(pygame.Rect(*cam.viewport))

        fill = self._fill_layer(size)
        fans = self.scene.fans(viewer) if viewer is not None else []
        vpos = view.unit(viewer).pos if viewer is not None else (0.0, 0.0)
        areas: list[pygame.Rect | None] = []
        if "arcs" in on and viewer is not None:
            areas.append(draw_arcs(fill, cam, self.scene.arcs(viewer, arc_radius(view.unit(viewer).base))))
        bands: list[tuple[bool, str, Any, colors.RGB]] = []  # (armed, overlay, lines, colour)
        for shape in self.scene.regions(decision):
            if shape.overlay not in on:
                continue
            tint = {"retreat": colors.REGION_RETREAT, "dodge": colors.REGION_DODGE}.get(
                shape.overlay, colors.REGION_MOVE
            )
            # the edge in the region's own colour, opaque
            edge = colors.lighter((tint[0], tint[1], tint[2]), 0.3)
            strong = ui.armed == shape.option
            if shape.lines:  # too thin to fill (a one-yard retreat's arcs): a band, on top
                bands.append((strong, shape.overlay, shape.lines, edge))
            else:
                areas.append(draw_region(fill, board, cam, shape.rings, tint, edge, strong=strong))
        if "sight" in on and viewer is not None:
            areas.append(draw_fans(fill, board, cam, vpos, fans))
        self._fill_dirty = self._blend(board, fill, areas)
        labelled: set[str] = set()
        for strong, overlay, lines, edge in sorted(bands, key=lambda b: b[0]):  # the armed one last
            what = "retreat" if overlay == "retreat" else str(decision.kind).replace("_", " ")
            label = None if what in labelled else f"{what}: click on it"
            labelled.add(what)
            draw_band(board, self.text, cam, lines, edge, label, strong=strong)
        if "cover-units" in on and viewer is not None:
            ids = {u for facts, _, _ in fans for u in facts.intervening}
            draw_rings(
                board,
                cam,
                [(view.unit(u).pos, view.unit(u).base) for u in sorted(ids)],
                colors.COVER_UNIT_RING,
            )
        self._blit_units(board, cam, view.units(alive=False), viewer, decision)
        board.set_clip(None)

    def _blit_units(
        self, surface: pygame.Surface, cam: Camera, units: list[Any], viewer: Any, decision: Any
    ) -> None:
        draw_units(
            surface,
            cam,
            units,
            self.view.sides,
            self.sprites,
            active=decision.unit if decision is not None else None,
            selected=viewer,
            initial_health=self.scene.initial_health,
        )

    @staticmethod
    def _blend(
        onto: pygame.Surface, fill: pygame.Surface, areas: list[pygame.Rect | None]
    ) -> pygame.Rect | None:
        """Blend the part of ``fill`` that was drawn on; returns that area (to clear it later)."""
        drawn = [a for a in areas if a is not None]
        dirty = drawn[0].unionall(drawn[1:]).clip(fill.get_rect()) if drawn else None
        if dirty is None or not (dirty.width and dirty.height):
            return None
        onto.blit(fill, dirty.topleft, dirty)
        return dirty

    def _draw_target(self, surface: pygame.Surface, ui: UiState, viewer: str, target: str) -> None:
        """What concerns the enemy under the cursor, drawn every frame over the cached board: its
        arcs, the silhouette wedges, its sight fan, the sight line with cover and its cover units (the
        silhouette picture is in the panel). The translucent parts leave the unit bases clear."""
        view, cam, on = self.view, self.camera, ui.overlays
        size = surface.get_size()
        scratch = self._scratch.get(size)
        vpos, t = view.unit(viewer).pos, view.unit(target)
        facts = view.sight(viewer, target)
        areas: list[pygame.Rect | None] = []
        if "arcs" in on:
            areas.append(draw_arcs(scratch, cam, self.scene.arcs(target, arc_radius(t.base))))
        sil = self.scene.silhouette(viewer, target) if "silhouette" in on else None
        if sil is not None:
            areas.append(
                draw_region(
                    scratch, surface, cam, sil.exposed_wedge, colors.WEDGE_EXPOSED, colors.EXPOSED_PART
                )
            )
            areas.append(
                draw_region(scratch, surface, cam, sil.hidden_wedge, colors.WEDGE_HIDDEN, colors.HIDDEN_PART)
            )
        if "sight" in on:
            areas.append(draw_fans(scratch, surface, cam, vpos, [(facts, t.pos, t.base)], highlight=target))
        drawn = [a for a in areas if a is not None]
        if drawn:
            # keep the bases clear of the tint: the board already has the units drawn
            pad = drawn[0].unionall(drawn[1:]).inflate(60, 60)
            for u in view.units(alive=False):
                c = cam.to_px(*u.pos)
                if pad.collidepoint(c):
                    pygame.draw.circle(scratch, (0, 0, 0, 0), c, radius_px(u, cam) + 6)
        dirty = self._blend(surface, scratch, areas)
        if dirty is not None:
            scratch.fill((0, 0, 0, 0), dirty)
        if "cover-units" in on and facts.intervening:
            draw_rings(
                surface,
                cam,
                [(view.unit(u).pos, view.unit(u).base) for u in facts.intervening],
                colors.COVER_UNIT_RING,
            )
        pygame.draw.line(surface, colors.COVER_COLORS[facts.cover], cam.to_px(*vpos), cam.to_px(*t.pos), 3)
        draw_sight_label(surface, self.text, cam, vpos, facts, t.pos)

    def _draw_panel(
        self,
        surface: pygame.Surface,
        rect: pygame.Rect,
        ui: UiState,
        humans: Collection[str],
        controllers: Mapping[str, str],
        viewer: str | None,
        decision: Any,
    ) -> None:
        """The side panel, redrawn only when what it shows changed."""
        key = (
            rect.size,
            self.view.version,
            id(decision),
            ui.armed,
            ui.attack_menu,
            ui.target,
            ui.hover_unit,
            ui.panel_scroll,
            viewer,
            "silhouette" in ui.overlays,
            "planner" in ui.overlays,
            ui.log_scroll,
            ui.ai_paused,
            frozenset(humans),
            tuple(sorted(controllers.items())),
        )
        if self._panel_surf is None or self._panel_key != key:
            if self._panel_surf is None or self._panel_surf.get_size() != rect.size:
                self._panel_surf = new_surface(rect.size)
            self._panel_key = key
            self._panel_ref = decision
            local = self._panel_surf.get_rect()
            shown = self.panel.shown_unit(self.view, ui, humans, viewer)
            target = shown if viewer is not None and shown in self.view.enemies(viewer) else None
            sil = None
            if target is not None and viewer is not None and "silhouette" in ui.overlays:
                sil = self.scene.silhouette(viewer, target)
            self.panel.draw(
                self._panel_surf, local, self.view, self.scene, ui, humans, controllers, viewer, sil
            )
            self._panel_buttons = list(self.panel.buttons)
            self.panel_log_top = rect.y + self.panel.log_top
        self.panel.buttons = [Button(b.rect.move(rect.topleft), b.action) for b in self._panel_buttons]
        surface.blit(self._panel_surf, rect)

    # ------------------------------------------------------------------ pieces
    def _fill_layer(self, size: tuple[int, int]) -> pygame.Surface:
        """The translucent layer, cleared where the last board drew on it."""
        fill = self._fill.get(size)
        if self._fill_dirty is not None:
            fill.fill((0, 0, 0, 0), self._fill_dirty.clip(fill.get_rect()))
            self._fill_dirty = None
        return fill

    def _threat_image(self, viewer: str, budget: float | None) -> pygame.Surface | None:
        """The latest finished threat-map image for ``viewer`` (advancing the current computation)."""
        tm = self.scene.threat(viewer)
        if not tm.finished:
            tm.advance(budget)
        if tm.finished and (self._threat is None or self._threat[0] is not tm):
            rgba = tm.rgba()
            img = pygame.Surface((tm.nx, tm.ny), pygame.SRCALPHA)
            pygame.surfarray.pixels3d(img)[...] = rgba[:, :, :3]
            alpha = pygame.surfarray.pixels_alpha(img)
            alpha[...] = rgba[:, :, 3]
            del alpha
            self._threat = (tm, img)
        if self._threat is None or self._threat[0].enemies_of != viewer:
            return None
        return self._threat[1]

    def _blit_threat(self, board: pygame.Surface, cam: Camera, image: pygame.Surface, cell: float) -> None:
        """The threat image scaled to the zoom once; very large zooms scale just the visible window."""
        iw, ih = image.get_size()
        w, h = round(iw * cell * cam.scale), round(ih * cell * cam.scale)
        if w * h > MAX_MAP_PIXELS:
            draw_threat(board, cam, image, cell)
            return
        key = (id(image), w, h)
        if self._threat_scaled is None or self._threat_scaled[0] != key:
            self._threat_scaled = (key, pygame.transform.scale(image, (w, h)), image)
        board.blit(self._threat_scaled[1], cam.to_px(0.0, 0.0))

    def _message(self, surface: pygame.Surface, map_rect: pygame.Rect, ui: UiState) -> None:
        color = colors.WARNING if ui.message_error else colors.PANEL_TEXT
        img = self.text.render(ui.message, 18, color)
        box = img.get_rect(midbottom=(map_rect.centerx, map_rect.bottom - 8)).inflate(16, 8)
        pygame.draw.rect(surface, colors.PANEL, box, border_radius=5)
        surface.blit(img, img.get_rect(center=box.center))

    def _tape(self, surface: pygame.Surface, ui: UiState, viewer: str | None, decision: Any) -> None:
        """The measuring tape: a yellow line and its sentences (:func:`game.render.tape.tape_lines`)."""
        from game.render.tape import tape_lines

        start, end, unit = ui.tape  # type: ignore[misc]
        key = (start, end, unit, viewer, self.view.version, id(decision))
        if self._tape_key != key:
            self._tape_key = key
            self._tape_text = tape_lines(self.view, start, end, unit, viewer, decision)
        cam = self.camera
        a, b = cam.to_px(*start), cam.to_px(*end)
        pygame.draw.line(surface, colors.AP_FULL, a, b, 2)
        pygame.draw.circle(surface, colors.AP_FULL, b, 4, 1)
        x, y = b[0] + 10, b[1] + 6
        w = max(self.text.width(s, 14) for s in self._tape_text) + 10
        box = pygame.Rect(x - 5, y - 3, w, 17 * len(self._tape_text) + 6)
        shade = pygame.Surface(box.size, pygame.SRCALPHA)
        shade.fill((16, 18, 22, 215))
        surface.blit(shade, box)
        for s in self._tape_text:
            self.text.draw(surface, s, (x, y), 14, colors.PANEL_TEXT)
            y += 17

    def _legend(self, surface: pygame.Surface, map_rect: pygame.Rect) -> None:
        """The cover scale, top left of the map: one swatch and name per level."""
        x, y = map_rect.x + 8, map_rect.y + 6
        items = [(str(level), c) for level, c in colors.COVER_COLORS.items()]
        w = 50 + sum(16 + self.text.width(name, 13) + 8 for name, _ in items)
        box = pygame.Rect(x - 4, y - 3, w, 20)
        shade = pygame.Surface(box.size, pygame.SRCALPHA)
        shade.fill((16, 18, 22, 190))
        surface.blit(shade, box)
        self.text.draw(surface, "cover:", (x, y), 13, colors.PANEL_DIM)
        x += 46
        for name, c in items:
            pygame.draw.rect(surface, c, (x, y + 2, 12, 10))
            self.text.draw(surface, name, (x + 15, y), 13, colors.PANEL_TEXT)
            x += 16 + self.text.width(name, 13) + 8

    def _summary(self, surface: pygame.Surface, map_rect: pygame.Rect) -> None:
        """The battle's summary (:mod:`game.tools.summary`) over the map (O or Esc closes it)."""
        from game.tools.summary import summarize, summary_lines

        count = self.view.event_count
        if self._summary_key != count:
            self._summary_key = count
            self._summary_text = summary_lines(summarize(self.view.events()))
        width = min(map_rect.w - 40, 640)
        wrapped: list[tuple[str, int]] = []
        for line in self._summary_text:
            indent = len(line) - len(line.lstrip(" "))
            for k, part in enumerate(self.text.wrap(line.strip(), 15, width - 30 - 8 * indent)):
                wrapped.append((part, 8 * indent + (12 if k else 0)))
        box = pygame.Rect(0, 0, width, 18 * len(wrapped) + 40)
        box.center = map_rect.center
        shade = pygame.Surface(box.size, pygame.SRCALPHA)
        shade.fill(colors.HELP_SHADE)
        surface.blit(shade, box)
        y = box.y + 10
        for k, (part, dx) in enumerate(wrapped):
            color = colors.PANEL_ACCENT if k == 0 else colors.PANEL_TEXT
            self.text.draw(surface, part, (box.x + 14 + dx, y), 17 if k == 0 else 15, color)
            y += 18 if k else 20
        self.text.draw(
            surface, "O or Esc: close", (box.right - 10, box.bottom - 6), 13, colors.PANEL_DIM, "bottomright"
        )

    def _help(self, surface: pygame.Surface, map_rect: pygame.Rect, ui: UiState) -> None:
        box = map_rect.inflate(-30, -30)
        shade = pygame.Surface(box.size, pygame.SRCALPHA)
        shade.fill(colors.HELP_SHADE)
        surface.blit(shade, box)
        x, y = box.x + 14, box.y + 10
        rows = help_rows(ui.overlays)
        keys_w = max(70, *(self.text.width(keys, 15) + 12 for _, keys, _ in rows))  # the widest key
        section = ""
        for sec, keys, text in rows:
            if sec != section:
                section = sec
                self.text.draw(surface, sec, (x, y), 17, colors.PANEL_ACCENT)
                y += 19
            if keys:
                self.text.draw(surface, keys, (x, y), 15, colors.AP_FULL)
            for part in self.text.wrap(text, 15, box.w - keys_w - 30):
                self.text.draw(surface, part, (x + (keys_w if keys else 0), y), 15, colors.PANEL_TEXT)
                y += 15
        y += 4
        self.text.draw(
            surface,
            "Cover levels (sight fans, target line and threat map: one scale)",
            (x, y),
            17,
            colors.PANEL_ACCENT,
        )
        y += 20
        for level, c in colors.COVER_COLORS.items():
            pygame.draw.rect(surface, c, (x, y + 2, 18, 12))
            self.text.draw(surface, str(level), (x + 22, y), 15, colors.PANEL_TEXT)
            x += 26 + self.text.width(str(level), 15) + 12


def snapshot(surface: pygame.Surface) -> np.ndarray:
    """The surface's pixels as an (h, w, 3) uint8 array (row = y), for tests and checks."""
    return np.transpose(pygame.surfarray.array3d(surface), (1, 0, 2))
