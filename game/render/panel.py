"""The side panel: match status, the pending decision's choices with their price, the hovered or
attacking unit, the selected unit's sheet, and the event log in a fixed area.

Contract: :meth:`Panel.draw` draws the panel into a rectangle of the screen and records the
clickable rows it drew as :attr:`Panel.buttons` (screen rectangle + action), so a click is
tested against exactly what is on screen. The event log keeps the bottom :data:`LOG_SHARE` of
the panel (at least :data:`LOG_MIN_LINES` lines) whatever is above it; the part above scrolls
(``ui.panel_scroll``) when it is taller than its room, and :attr:`Panel.log_top` says where the
log starts (the wheel scrolls the part it is over).

What the upper part shows, top to bottom:

- the scenario, ruleset and round;
- the pending decision: whose, and for a person here its choices. A turn shows its own-key rows
  (``[Enter] end turn`` with the AP it keeps and whether they pay for a reaction, ``[S]`` step,
  ``[F]`` face), how to move, then its numbered rows (:func:`game.render.ui.menu_rows`: the same
  numbers for the whole decision). A reaction shows who attacks with what, then each numbered
  choice with its price (:func:`game.render.price.defence_price`: its odds, the harm expected
  with and without it, what the unit has left). An AI's decision shows who is thinking;
  the end of the match, the result (O: the summary);
- the hovered unit, or during a reaction the attacker: for an enemy of the selected unit, the
  attacks on it (``[Ctrl+N]`` the weapon's number on the attacker's sheet; each led by the
  chance to hurt and the harm expected, the hit chance beside it, :func:`~game.render.price.
  attack_price`) or the one reason there is none, the sight facts and the silhouette picture;
  then that unit's weapons and defences (:func:`~game.render.price.sheet_lines`);
- the selected unit: posture, facing, AP, health, status and its sheet.

Rows are shown for a decision only when the deciding side is played by a human here.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

import pygame

from game.core.commands import Decision, Option
from game.engine.view import MatchView
from game.render import colors, words
from game.render.inspect import context_line, facts_lines, move_option, percent
from game.render.overlays import draw_silhouette
from game.render.price import (
    attack_key_index,
    attack_price,
    defence_price,
    reaction_note,
    sheet_lines,
    short_of_reaction,
    weapon_lines,
    weapon_refusal,
    why_no_attack,
)
from game.render.scene import Scene
from game.render.text import Text
from game.render.ui import UiState, attack_rows, menu_rows, own_key_rows, row_key

#: Panel width in pixels (the map gets the rest of the window).
PANEL_W = 360
PAD = 10
TITLE = 20
BODY = 17
SMALL = 15
LINE = 17
SMALL_LINE = 15
#: Size of the target's silhouette picture.
SILHOUETTE_W, SILHOUETTE_H = 150, 70
#: Share of the panel's height the event log keeps, and its least number of lines.
LOG_SHARE = 0.3
LOG_MIN_LINES = 8


@dataclass(frozen=True)
class Button:
    """A clickable area of the panel and what clicking it does: ``("option", index)``."""

    rect: pygame.Rect
    action: tuple[str, Any]


def option_row(opt: Option, key: str, odds: bool = True) -> str:
    """A menu row's first line: its key, the option's label, its odds (once: a label that
    already names them is not followed by them again; none with ``odds`` False, when a price
    line follows) and how to give its point."""
    text = opt.label
    if not odds and opt.p_success is not None:  # the price line tells the odds: not twice
        text = text.replace(f" ({percent(opt.p_success)})", "")
    label = (f"[{key}] " if key else "    ") + text
    if odds and opt.p_success is not None and percent(opt.p_success) not in label:
        label += f"  {percent(opt.p_success)}"
    if opt.point_field is not None:
        label += "  (click the map)" if opt.region is not None else "  (click a direction)"
    return label


def modifiers_text(opt: Option) -> str:
    """An option's modifiers on one line, grouped by what they apply to:
    ``+4 body, +3 acrobatics (dice)``."""
    groups: dict[str, list[str]] = {}
    for m in opt.modifiers:
        groups.setdefault(m.applies_to, []).append(str(m))
    return "; ".join(f"{', '.join(ms)} ({what})" for what, ms in groups.items())


def key_label(row: int) -> str:
    """The key of the ``row``-th listed option (1-9, 0, then Shift+1 .. Shift+0), or '' past them."""
    got = row_key(row)
    if got is None:
        return ""
    digit, shift = got
    return f"Shift+{digit}" if shift else str(digit)


def log_height(h: int) -> int:
    """Pixels the event log keeps of a panel ``h`` pixels high."""
    return max(LOG_MIN_LINES * SMALL_LINE + SMALL_LINE + 10, int(h * LOG_SHARE))


class Panel:
    """Draws the side panel and remembers its buttons."""

    def __init__(self, text: Text) -> None:
        self.text = text
        self.buttons: list[Button] = []
        #: Where the event log starts, in the panel's own coordinates (set by :meth:`draw`).
        self.log_top = 0
        self._wrapped: dict[tuple[str, int, int], list[str]] = {}
        self._clip = pygame.Rect(0, 0, 0, 0)

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
                if self._clip.top - step <= y <= self._clip.bottom:
                    self.text.draw(surf, part, (x + 8 * indent + (8 if k else 0), y), size, color)
                y += step
        return y

    def _height(self, lines: list[str], width: int, size: int = SMALL) -> int:
        step = LINE if size >= BODY else SMALL_LINE
        return (
            sum(len(self._wrap(s.strip(), size, width - 8 * (len(s) - len(s.lstrip(" "))))) for s in lines)
            * step
        )

    def _button(
        self,
        surf: pygame.Surface,
        x: int,
        y: int,
        w: int,
        lines: list[str],
        action: tuple[str, Any],
        hot: bool = False,
        warn: bool = False,
    ) -> int:
        """A clickable row: the first line bright, the rest dim (a warning in the warning colour)."""
        height = self._height(lines, w - 8) + 4
        r = pygame.Rect(x - 4, y, w + 8, height)
        pygame.draw.rect(surf, colors.BUTTON_HOT if hot else colors.BUTTON, r, border_radius=4)
        yy = self._lines(
            surf, lines[:1], x, y + 2, w - 8, SMALL, colors.PANEL_ACCENT if hot else colors.PANEL_TEXT
        )
        if len(lines) > 1:
            self._lines(surf, lines[1:], x, yy, w - 8, SMALL, colors.WARNING if warn else colors.PANEL_DIM)
        shown = r.clip(self._clip)
        if shown.h > 0:
            self.buttons.append(Button(shown, action))
        return r.bottom + 3

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
            ui: UI state (armed option, target, hovered unit, scrolls).
            humans: sides played by a human in this window.
            controllers: side → controller name (for "AI thinking" lines).
            viewer: the unit whose point of view the overlays use (the selected unit).
            silhouette: the target's :class:`~game.render.scene.Silhouette` seen by the viewer,
                drawn as a picture under the target's facts (None: not shown).
        """
        self.buttons = []
        pygame.draw.rect(surface, colors.PANEL, rect)
        x, w = rect.x + PAD, rect.w - 2 * PAD
        log_h = min(log_height(rect.h), rect.h // 2 + 40)
        upper = pygame.Rect(rect.x, rect.y, rect.w, rect.h - log_h)
        self.log_top = upper.bottom
        self._clip = upper
        surface.set_clip(upper)
        top = rect.y + PAD
        y = top - ui.panel_scroll
        name = scene.start.get("scenario", "")
        self.text.draw(surface, name, (x, y), TITLE, colors.PANEL_ACCENT)
        y += TITLE + 2
        y = self._lines(
            surface, [f"{view.ruleset} rules, round {view.round}"], x, y, w, SMALL, colors.PANEL_DIM
        )
        ai = {side: c for side, c in controllers.items() if side not in humans}
        if ai and humans:
            # Who the player is up against, at which level, and how to change it.
            y = self._lines(surface, [ai_line(ai)], x, y, w, SMALL, colors.PANEL_DIM)
        if "planner" not in ui.overlays and any(
            c == "planner" for side, c in controllers.items() if side not in humans
        ):
            # The planner's candidates are off by default: say where they are.
            y = self._lines(
                surface, ["W: what the planner AI chose and why"], x, y, w, SMALL, colors.PANEL_DIM
            )
        y += 4
        y = self._decision(surface, x, y, w, view, ui, humans, controllers)
        y += 6
        shown = self.shown_unit(view, ui, humans, viewer)
        d = view.pending
        # The hovered unit (or the attacker) first, with what a choice against it costs; then the
        # selected unit's sheet; then the hovered unit's own weapons and defences.
        if shown is not None:
            y = self._hovered(surface, x, y, w, view, ui, viewer, shown, silhouette) + 6
        if viewer is not None:
            y = self._unit(surface, x, y, w, view, viewer)
            y += 6
        attacking = d is not None and d.kind != "turn" and (d.context or {}).get("attacker") == shown
        if shown is not None and not attacking:
            u = view.unit(shown)
            y = self._lines(
                surface, [f"{shown}'s sheet"], x, y, w, SMALL, colors.side_color(u.side, view.sides)
            )
            y = self._lines(surface, sheet_lines(view.sheet(shown)), x, y, w, SMALL, colors.PANEL_TEXT)
        surface.set_clip(None)
        overflow = y + ui.panel_scroll - upper.bottom + PAD
        if overflow > 0:
            ui.panel_scroll = max(0, min(ui.panel_scroll, overflow))
            more = "more below: wheel over the panel" if y > upper.bottom - PAD else "more above: wheel"
            strip = pygame.Rect(rect.x, upper.bottom - 16, rect.w, 16)
            pygame.draw.rect(surface, colors.PANEL, strip)
            self.text.draw(
                surface, more, (rect.right - PAD, upper.bottom - 1), 13, colors.PANEL_DIM, "bottomright"
            )
        else:
            ui.panel_scroll = 0
        self._clip = rect
        self._log(surface, pygame.Rect(rect.x, upper.bottom, rect.w, log_h), scene, ui)

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
            y = self._lines(
                surf,
                [f"{msg}: {outcome.reason} (round {outcome.rounds})"],
                x,
                y,
                w,
                BODY,
                colors.PANEL_ACCENT,
            )
            return self._lines(surf, ["O: the battle's summary"], x, y, w, SMALL, colors.PANEL_DIM)
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
        if d.kind == "turn":
            y = self._turn_rows(surf, x, y, w, view, ui, d)
        sheet = view.sheet(d.unit) if d.kind != "turn" else None
        rows = menu_rows(d, ui)
        chips = [(r, i) for r, i in enumerate(rows) if type(d.options[i].command).__name__ == "ChangePosture"]
        for row, idx in enumerate(rows):
            if chips and (row, idx) == chips[0]:
                y = self._chips(surf, x, y, w, d, chips, ui)
            if any(idx == c for _, c in chips):
                continue
            opt = d.options[idx]
            price = defence_price(opt, sheet) if sheet is not None else None
            lines = [option_row(opt, key_label(row), odds=not price)]
            if price:
                lines.append("  " + price)
            if opt.modifiers:
                lines.append("  " + modifiers_text(opt))
            promised = [a for a in (opt.detail or {}).get("attacks") or () if isinstance(a, Option)]
            if promised:  # a declaration: the best attack it would allow
                best = max(promised, key=lambda a: float((a.detail or {}).get("p_hurt", a.p_success or 0.0)))
                what = f"{getattr(best.command, 'weapon', '?')} -> {getattr(best.command, 'target', '?')}"
                lines.append(f"  then best attack: {what}: {attack_price(best)}")
            y = self._button(surf, x, y, w, lines, ("option", idx), hot=ui.armed == idx)
        return y

    def _chips(
        self,
        surf: pygame.Surface,
        x: int,
        y: int,
        w: int,
        d: Decision,
        chips: list[tuple[int, int]],
        ui: UiState,
    ) -> int:
        """Posture changes as a line of small buttons (Q / Z go one up / down)."""
        label = "posture (Q up, Z down):"
        self._lines(surf, [label], x, y + 2, w, SMALL, colors.PANEL_DIM)
        cx = x + self.text.width(label, SMALL) + 8
        for row, idx in chips:
            opt = d.options[idx]
            text = f"[{key_label(row)}] {getattr(opt.command, 'posture', opt.label)}"
            tw = self.text.width(text, SMALL) + 10
            if cx + tw > x + w:
                cx, y = x + 16, y + SMALL_LINE + 8
            r = pygame.Rect(cx - 4, y, tw, SMALL_LINE + 5)
            pygame.draw.rect(
                surf, colors.BUTTON_HOT if ui.armed == idx else colors.BUTTON, r, border_radius=4
            )
            if self._clip.top - SMALL_LINE <= y <= self._clip.bottom:
                self.text.draw(surf, text, (cx + 1, y + 2), SMALL, colors.PANEL_TEXT)
            shown = r.clip(self._clip)
            if shown.h > 0:
                self.buttons.append(Button(shown, ("option", idx)))
            cx += tw + 4
        return y + SMALL_LINE + 8

    def _turn_rows(
        self, surf: pygame.Surface, x: int, y: int, w: int, view: MatchView, ui: UiState, d: Decision
    ) -> int:
        """A turn's rows with keys of their own (end turn, step, face) and how to move."""
        ap = view.unit(d.unit).ap
        for key, idx in own_key_rows(d):
            opt = d.options[idx]
            lines = [option_row(opt, key)]
            warn = False
            if type(opt.command).__name__ == "EndTurn":
                note = reaction_note(view, d.unit, ap)
                if note:
                    lines.append("  " + note.replace("leaves", "keeps", 1))
                    warn = short_of_reaction(view, d.unit, ap)
            y = self._button(surf, x, y, w, lines, ("option", idx), hot=ui.armed == idx, warn=warn)
        move = move_option(d)
        if move is not None:
            reach = move.detail.get("max_len")
            how = "click the map to move" + (f" (up to {float(reach):.2f} in this turn)" if reach else "")
            y = self._lines(surf, [how + "; click an enemy to attack it"], x, y, w, SMALL, colors.PANEL_DIM)
        return y

    def shown_unit(
        self, view: MatchView, ui: UiState, humans: Collection[str], viewer: str | None
    ) -> str | None:
        """The unit the middle section shows: during a reaction of a person here, the attacker;
        else the pinned enemy, the hovered unit, or the last enemy under the cursor."""
        d = view.pending
        alive = {u.id for u in view.units()}
        if d is not None and d.kind != "turn" and view.unit(d.unit).side in humans:
            attacker = (d.context or {}).get("attacker")
            if isinstance(attacker, str) and attacker in alive:
                return attacker
        for uid in (ui.attack_menu, ui.hover_unit, ui.target):
            if uid is not None and uid in alive and uid != viewer:
                return uid
        return None

    def _hovered(
        self,
        surf: pygame.Surface,
        x: int,
        y: int,
        w: int,
        view: MatchView,
        ui: UiState,
        viewer: str | None,
        uid: str,
        silhouette: Any,
    ) -> int:
        u = view.unit(uid)
        d = view.pending
        color = colors.side_color(u.side, view.sides)
        attacking = d is not None and d.kind != "turn" and (d.context or {}).get("attacker") == uid
        title = (
            f"Attacker {uid}"
            if attacking
            else ("Target " if viewer and uid in view.enemies(viewer) else "") + uid
        )
        health = ", ".join(f"{words.name(k)} {v}/{dict(u.maxima).get(k, '?')}" for k, v in u.health)
        y = self._lines(surf, [f"{title} ({u.side}, {u.profile}): {health}"], x, y, w, BODY, color)
        if attacking and d is not None:
            weapon = (d.context or {}).get("weapon")
            y = self._lines(
                surf,
                [f"attacks {d.unit}" + (f" with {weapon}" if weapon else "")],
                x,
                y,
                w,
                SMALL,
                colors.PANEL_TEXT,
            )
            used = view.sheet(uid).weapon(str(weapon)) if weapon else None
            if used is not None:
                y = self._lines(surf, weapon_lines(used), x, y, w, SMALL, colors.PANEL_TEXT)
            return self._lines(surf, facts_lines(view.sight(uid, d.unit)), x, y, w, SMALL, colors.PANEL_DIM)
        elif viewer is not None and uid in view.enemies(viewer):
            y = self._attacks(surf, x, y, w, view, ui, viewer, uid)
            facts = view.sight(viewer, uid)
            pic = silhouette is not None and silhouette.target == uid
            text_w = w - SILHOUETTE_W - 8 if pic else w
            top = y
            y = self._lines(surf, facts_lines(facts), x, y, text_w, SMALL, colors.PANEL_DIM)
            if pic:
                box = pygame.Rect(x + w - SILHOUETTE_W, top + 2, SILHOUETTE_W, SILHOUETTE_H)
                caption = f"as {viewer} sees it: {silhouette.facts.cover_fraction * 100:.0f}% hidden"
                if box.bottom > self._clip.top and box.top < self._clip.bottom:
                    draw_silhouette(surf, self.text, box, silhouette.parts, color, caption)
                y = max(y, box.bottom + 4)
        return y

    def _attacks(
        self,
        surf: pygame.Surface,
        x: int,
        y: int,
        w: int,
        view: MatchView,
        ui: UiState,
        viewer: str,
        target: str,
    ) -> int:
        """The attacks of the deciding unit on ``target``, priced, with their Ctrl keys; or why none."""
        d = view.pending
        if d is None or d.kind != "turn":
            return y
        if d.unit != viewer:
            return self._lines(surf, [f"(only {d.unit} acts now)"], x, y, w, SMALL, colors.PANEL_DIM)
        rows = attack_rows(d, target)
        if not rows:
            return self._lines(surf, [why_no_attack(view, d, viewer, target)], x, y, w, SMALL, colors.WARNING)
        sheet = view.sheet(viewer)
        ap = view.unit(viewer).ap
        cost = view.action_costs(viewer).get("attack")
        for idx in rows:
            opt = d.options[idx]
            k = attack_key_index(sheet, opt)
            key = f"Ctrl+{k + 1}" if k is not None and k < 9 else ""
            weapon = getattr(opt.command, "weapon", "?")
            lines = [(f"[{key}] " if key else "") + f"{weapon}: {attack_price(opt)}", f"  {opt.label}"]
            if opt.modifiers:
                lines.append("  " + modifiers_text(opt))
            warn = False
            if cost is not None:
                note = reaction_note(view, viewer, ap - int(cost))
                if note:
                    lines.append("  then " + note)
                    warn = short_of_reaction(view, viewer, ap - int(cost))
            y = self._button(
                surf,
                x,
                y,
                w,
                lines,
                ("option", idx),
                hot=ui.attack_menu == target and ui.armed == idx,
                warn=warn,
            )
        armed = {getattr(d.options[i].command, "weapon", None) for i in rows}
        others = [weapon_refusal(view, viewer, target, wpn) for wpn in sheet.weapons if wpn.name not in armed]
        return self._lines(surf, others, x, y, w, SMALL, colors.PANEL_DIM) if others else y

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
        y = self._lines(surf, lines, x, y, w, SMALL, colors.PANEL_TEXT)
        sheet = view.sheet(uid)
        out: list[str] = []
        for i, wpn in enumerate(sheet.weapons):  # numbered: Ctrl + the number attacks with it
            first, second = weapon_lines(wpn)
            out += [f"{i + 1}. {first}", second]
        if sheet.defences:
            out.append("defends: " + "; ".join(sheet.defences))
        if sheet.protection:
            out.append("protection: " + "; ".join(sheet.protection))
        return self._lines(surf, out, x, y, w, SMALL, colors.PANEL_TEXT)

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


def ai_line(ai: Mapping[str, str]) -> str:
    """``"AI: blue hard (planner) - F2: difficulty"``: the AI sides, each with its level if any."""
    from game.ai.difficulty import level_of

    parts = []
    for side, policy in ai.items():
        level = level_of(policy)
        parts.append(f"{side} {level.label() if level is not None else policy}")
    return "AI: " + ", ".join(parts) + " - F2: difficulty"
