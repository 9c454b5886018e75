"""The side panel: match status, the pending decision's options with exact odds, the selected
unit, the target under the cursor and the event log as sentences.

Contract: :meth:`Panel.draw` draws the panel into a rectangle of the screen and records the
clickable rows it drew as :attr:`Panel.buttons` (screen rectangle + action), so a click is
tested against exactly what is on screen. Option rows are those of
:func:`game.render.ui.menu_rows`, numbered 1-9 then 0 like the number keys. Rows are shown for
a decision only when the deciding side is played by a human here; an AI's decision shows who
is thinking instead. The target section has the picture of the target's silhouette as the
selected unit sees it (hidden parts dark), its sight facts and every attack's exact odds.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

import pygame

from game.core.commands import Option
from game.engine.view import MatchView
from game.render import colors, words
from game.render.inspect import context_line, percent, target_lines
from game.render.overlays import draw_silhouette
from game.render.scene import Scene
from game.render.text import Text
from game.render.ui import UiState, menu_rows, row_key

#: Panel width in pixels (the map gets the rest of the window).
PANEL_W = 360
PAD = 10
TITLE = 20
BODY = 17
SMALL = 15
LINE = 17
SMALL_LINE = 15
#: Size of the target's silhouette picture.
SILHOUETTE_W, SILHOUETTE_H = 200, 96


@dataclass(frozen=True)
class Button:
    """A clickable area of the panel and what clicking it does: ``("option", index)``."""

    rect: pygame.Rect
    action: tuple[str, Any]


def option_row(opt: Option, key: str) -> str:
    """A menu row's first line: its key, the option's label, its odds (once: a label that
    already names them is not followed by them again) and how to give its point."""
    label = (f"[{key}] " if key else "    ") + opt.label
    if opt.p_success is not None and percent(opt.p_success) not in label:
        label += f"  {percent(opt.p_success)}"
    if opt.point_field is not None:
        label += "  (click the map)" if opt.region is not None else "  (click a direction)"
    return label


def key_label(row: int) -> str:
    """The key of the ``row``-th listed option (1-9, 0, then Shift+1 .. Shift+0), or '' past them."""
    got = row_key(row)
    if got is None:
        return ""
    digit, shift = got
    return f"Shift+{digit}" if shift else str(digit)


class Panel:
    """Draws the side panel and remembers its buttons."""

    def __init__(self, text: Text) -> None:
        self.text = text
        self.buttons: list[Button] = []
        self._wrapped: dict[tuple[str, int, int], list[str]] = {}

    def button_at(self, pos: tuple[int, int]) -> Button | None:
        """The button under a screen point, if any."""
        for b in self.buttons:
            if b.rect.collidepoint(pos):
                return b
        return None

    def _wrap(self, s: str, size: int, width: int) -> list[str]:
        key = (s, size, width)
        got = self._wrapped.get(key)
        if got is None:
            got = self.text.wrap(s, size, width)
            if len(self._wrapped) > 4096:
                self._wrapped.clear()
            self._wrapped[key] = got
        return got

    def _lines(
        self, surf: pygame.Surface, lines: list[str], x: int, y: int, width: int, size: int, color: colors.RGB
    ) -> int:
        step = LINE if size >= BODY else SMALL_LINE
        for s in lines:
            indent = len(s) - len(s.lstrip(" "))
            for k, part in enumerate(self._wrap(s.strip(), size, width - 8 * indent)):
                self.text.draw(surf, part, (x + 8 * indent + (8 if k else 0), y), size, color)
                y += step
        return y

    def draw(
        self,
        surface: pygame.Surface,
        rect: pygame.Rect,
        view: MatchView,
        scene: Scene,
        ui: UiState,
        humans: Collection[str],
        controllers: Mapping[str, str],
        viewer: str | None,
        silhouette: Any = None,
    ) -> None:
        """Draw the whole panel into ``rect``.

        Args:
            surface: the screen.
            rect: the panel's rectangle.
            view: the match view.
            scene: derived data (sentences, start event).
            ui: UI state (armed option, target, log scroll).
            humans: sides played by a human in this window.
            controllers: side → controller name (for "AI thinking" lines).
            viewer: the unit whose point of view the overlays use.
            silhouette: the target's :class:`~game.render.scene.Silhouette` seen by the viewer,
                drawn as a picture under the target's facts (None: not shown).
        """
        self.buttons = []
        pygame.draw.rect(surface, colors.PANEL, rect)
        x, w = rect.x + PAD, rect.w - 2 * PAD
        y = rect.y + PAD
        name = scene.start.get("scenario", "")
        self.text.draw(surface, name, (x, y), TITLE, colors.PANEL_ACCENT)
        y += TITLE + 2
        y = self._lines(
            surface, [f"{view.ruleset} rules, round {view.round}"], x, y, w, SMALL, colors.PANEL_DIM
        )
        if "planner" not in ui.overlays and any(
            c == "planner" for side, c in controllers.items() if side not in humans
        ):
            # The planner's candidates are off by default: say where they are.
            y = self._lines(surface, ["W: what the planner AI weighed"], x, y, w, SMALL, colors.PANEL_DIM)
        y += 4
        y = self._decision(surface, x, y, w, view, ui, humans, controllers)
        y += 6
        if viewer is not None:
            y = self._unit(surface, x, y, w, view, viewer)
        if (
            ui.target is not None
            and viewer is not None
            and ui.target != viewer
            and ui.target in view.enemies(viewer)
        ):
            y += 4
            y = self._lines(surface, [f"Target {ui.target}"], x, y, w, BODY, colors.PANEL_ACCENT)
            decision = view.pending
            lines = target_lines(view, decision, viewer, ui.target)
            if silhouette is not None:
                box = pygame.Rect(x, y + 2, min(w, SILHOUETTE_W), SILHOUETTE_H)
                f = silhouette.facts
                caption = f"as {viewer} sees it: {f.cover_fraction * 100:.0f}% hidden"
                side = colors.side_color(view.unit(ui.target).side, view.sides)
                draw_silhouette(surface, self.text, box, silhouette.parts, side, caption)
                y = box.bottom + 4
            y = self._lines(surface, lines, x, y, w, SMALL, colors.PANEL_TEXT)
        y += 6
        self._log(surface, pygame.Rect(rect.x, y, rect.w, rect.bottom - y), scene, ui)

    # ------------------------------------------------------------------ sections
    def _decision(
        self,
        surf: pygame.Surface,
        x: int,
        y: int,
        w: int,
        view: MatchView,
        ui: UiState,
        humans: Collection[str],
        controllers: Mapping[str, str],
    ) -> int:
        outcome = view.outcome
        if outcome is not None:
            msg = f"{outcome.winner} wins" if outcome.winner else "Draw"
            return self._lines(
                surf,
                [f"{msg}: {outcome.reason} (round {outcome.rounds})"],
                x,
                y,
                w,
                BODY,
                colors.PANEL_ACCENT,
            )
        d = view.pending
        if d is None:
            return y
        side = view.unit(d.unit).side
        human = side in humans
        who = "you" if human else f"AI {controllers.get(side, '?')}"
        head = f"{d.unit} ({side}, {who}): {d.kind.replace('_', ' ')}"
        if d.kind == "turn":
            head += f", {view.unit(d.unit).ap} AP"
        y = self._lines(surf, [head], x, y, w, BODY, colors.side_color(side, view.sides))
        if d.kind != "turn" and d.context:
            y = self._lines(surf, [context_line(d)], x, y, w, SMALL, colors.PANEL_TEXT)
        if not human:
            return self._lines(
                surf,
                ["(the AI is deciding)" if not ui.ai_paused else "(AI paused: N = one step)"],
                x,
                y,
                w,
                SMALL,
                colors.PANEL_DIM,
            )
        if ui.attack_menu is not None:
            y = self._lines(
                surf, [f"Attacks on {ui.attack_menu} (Esc closes):"], x, y, w, SMALL, colors.PANEL_DIM
            )
        for row, idx in enumerate(menu_rows(d, ui)):
            opt = d.options[idx]
            top = y
            key = key_label(row)
            label = option_row(opt, key)
            hot = ui.armed == idx
            lines = [label] + [f"  {m} ({m.applies_to})" for m in opt.modifiers]
            height = sum(len(self._wrap(s.strip(), SMALL, w - 16)) for s in lines) * SMALL_LINE + 4
            r = pygame.Rect(x - 4, top, w + 8, height)
            pygame.draw.rect(surf, colors.BUTTON_HOT if hot else colors.BUTTON, r, border_radius=4)
            self._lines(
                surf, lines[:1], x, top + 2, w, SMALL, colors.PANEL_ACCENT if hot else colors.PANEL_TEXT
            )
            if len(lines) > 1:
                self._lines(
                    surf,
                    lines[1:],
                    x,
                    top + 2 + SMALL_LINE * len(self._wrap(lines[0], SMALL, w)),
                    w,
                    SMALL,
                    colors.PANEL_DIM,
                )
            self.buttons.append(Button(r, ("option", idx)))
            y = r.bottom + 3
        return y

    def _unit(self, surf: pygame.Surface, x: int, y: int, w: int, view: MatchView, uid: str) -> int:
        u = view.unit(uid)
        color = colors.side_color(u.side, view.sides)
        y = self._lines(surf, [f"{u.id} ({u.side}, {u.profile})"], x, y, w, BODY, color)
        health = ", ".join(f"{words.name(k)} {v}/{dict(u.maxima).get(k, '?')}" for k, v in u.health)
        lines = [f"{u.posture}, facing {u.facing:.0f}°, {u.ap}/{u.ap_max} AP", health or "no health tracks"]
        if u.status:
            lines.append("status: " + ", ".join(words.name(f) for f in u.status))
        if not u.alive:
            lines.append("out of action")
        return self._lines(surf, lines, x, y, w, SMALL, colors.PANEL_TEXT)

    def _log(self, surf: pygame.Surface, rect: pygame.Rect, scene: Scene, ui: UiState) -> None:
        if rect.h < 2 * SMALL_LINE:
            return
        x, w = rect.x + PAD, rect.w - 2 * PAD
        pygame.draw.line(surf, colors.BUTTON, (rect.x + 4, rect.y), (rect.right - 4, rect.y))
        self.text.draw(
            surf,
            "Event log" + (f" (scrolled back {ui.log_scroll})" if ui.log_scroll else ""),
            (x, rect.y + 3),
            SMALL,
            colors.PANEL_DIM,
        )
        avail = (rect.h - SMALL_LINE - 6) // SMALL_LINE
        ui.log_scroll = max(0, min(ui.log_scroll, max(0, len(scene.sentences) - 1)))
        end = len(scene.sentences) - ui.log_scroll
        lines: list[str] = []
        k = end - 1
        while k >= 0 and len(lines) < avail:
            wrapped = self._wrap(scene.sentences[k], SMALL, w)
            lines = wrapped + lines
            k -= 1
        lines = lines[-avail:] if avail > 0 else []
        y = rect.y + SMALL_LINE + 6
        for s in lines:
            self.text.draw(surf, s, (x, y), SMALL, colors.PANEL_TEXT)
            y += SMALL_LINE
