"""The window's UI state and key bindings (plain data, no pygame).

Contract: :class:`UiState` is everything the presentation layer remembers between frames
(selection, cursor, armed option, overlay toggles, messages). It never holds match state: the
match is read through :class:`~game.engine.view.MatchView` each frame. :data:`OVERLAYS` names every
geometry overlay (the ``--overlays`` values of ``skirmish render`` and the keys of the help
screen); :data:`OVERLAY_KEYS` and :data:`ACTION_KEYS` are the key bindings by pygame key name
(``pygame.key.key_code(name)``), shown by the help overlay and used by :mod:`game.render.input`.
:func:`menu_rows` decides which options of a decision the panel numbers and in what order; the
panel draws them and number keys choose them, so both use this one function. The numbers never
depend on the cursor: a turn numbers its maneuvers and postures only (end turn, step and face
have their own keys, a move is a click on the map, attacks are a click on the enemy or Ctrl +
the weapon's number on the attacker's sheet: :func:`attack_rows`), so every key means one thing
for the whole decision.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from game.core.commands import Attack, Decision, EndTurn, Face, Move, Step

Point = tuple[float, float]

#: Overlay name -> what it shows (help text and ``skirmish render --overlays``).
OVERLAYS: dict[str, str] = {
    "sight": "sight fans from the selected unit to every enemy, coloured by cover level "
    "(red: in the open .. green: near-total)",
    "silhouette": "hidden (dark) and exposed (light) parts of the target's silhouette",
    "cover-units": "units in the way of the selected unit's shots, outlined in orange",
    "arcs": "front (light) / side (grey) / rear (dark) arcs of the selected unit and the target",
    "retreat": "legal retreat region of a pending defence",
    "dodge": "legal dodge-move disc (violet; and interposition points) of a pending reaction",
    "move": "move and step regions of the unit whose turn it is",
    "threat": "threat map: how many enemies see each point (opacity), its cover from the most exposing one "
    "(red: in the open .. green: near-total)",
    "path": "path and AP cost to the point under the cursor",
    "grid": "the grid (1 cell = map.cell inches)",
    "planner": "what the planner AI chose and why, per unit, in the game's terms (chances, cover); "
    "the latest decision's alternatives",
}

#: Overlays on when the window opens (the threat map is off: it costs a moment to compute; the
#: planner's candidates are shown on request).
DEFAULT_OVERLAYS: frozenset[str] = frozenset(OVERLAYS) - {"threat", "planner"}

#: pygame key name -> overlay it toggles.
OVERLAY_KEYS: dict[str, str] = {
    "v": "sight",
    "b": "silhouette",
    "u": "cover-units",
    "a": "arcs",
    "r": "retreat",
    "d": "dodge",
    "m": "move",
    "t": "threat",
    "p": "path",
    "g": "grid",
    "w": "planner",
}

#: pygame key name -> (action, help text). Digits 1-9 and 0 choose the numbered panel rows.
ACTION_KEYS: dict[str, tuple[str, str]] = {
    "return": ("end_turn", "end turn"),
    "e": ("end_turn", "end turn"),
    "s": ("arm_step", "step: then click where to"),
    "f": ("arm_face", "face: then click the direction"),
    "q": ("posture_up", "stand up one posture"),
    "z": ("posture_down", "go down one posture"),
    "tab": ("next_unit", "select the next unit"),
    "l": ("tape", "measuring tape: drag from a unit or a point (L again or Esc: put it away)"),
    "escape": ("cancel", "cancel the chosen option / close menus and the summary"),
    "o": ("summary", "the battle's summary (at the end it opens by itself)"),
    "h": ("help", "this help"),
    "f1": ("help", "this help"),
    "home": ("fit", "fit the map to the window"),
    "space": ("pause_ai", "pause / resume the AI"),
    "n": ("ai_step", "AI takes one decision (while paused)"),
    "backspace": ("undo", "undo your last command (while no die has been rolled since)"),
    "f5": ("save", "save the game"),
    "f9": ("load", "load the saved game"),
    "f2": ("difficulty", "AI difficulty: the next level (easy, normal, hard)"),
    "left": ("pan_left", "pan"),
    "right": ("pan_right", "pan"),
    "up": ("pan_up", "pan"),
    "down": ("pan_down", "pan"),
    "=": ("zoom_in", "zoom in"),
    "+": ("zoom_in", "zoom in"),
    "-": ("zoom_out", "zoom out"),
}

#: Mouse help lines (the help overlay lists them after the keys).
MOUSE_HELP: tuple[str, ...] = (
    "left click: select a unit / move there / attack the enemy (several weapons: pins it, then Ctrl+N) "
    "/ pick a point in the drawn region",
    "right click: face that way;  right or middle drag: pan;  wheel: zoom",
    "hover: path and the exact AP cost; over a unit: its weapons and defences; over an enemy: sight "
    "line, cover, and each attack's chance to hurt, expected harm and hit chance",
    "wheel over the panel: scroll its upper part; over the event log: scroll the log",
)

#: How key names are shown in the help.
KEY_LABELS: dict[str, str] = {
    "return": "Enter",
    "escape": "Esc",
    "space": "Space",
    "tab": "Tab",
    "backspace": "Backspace",
    "home": "Home",
    "left": "arrows",
    "right": "arrows",
    "up": "arrows",
    "down": "arrows",
}

#: Number of option rows that number keys reach: 1-9 and 0 for the first ten, then Shift+1 ..
#: Shift+0 for the next ten (:func:`row_key`).
DIGIT_ROWS = 10
KEYED_ROWS = 2 * DIGIT_ROWS


def row_key(row: int) -> tuple[int, bool] | None:
    """(digit, shift) that chooses the ``row``-th listed option, or None past the twentieth."""
    if not 0 <= row < KEYED_ROWS:
        return None
    return (row % DIGIT_ROWS + 1) % 10, row >= DIGIT_ROWS


@dataclass
class UiState:
    """What the window remembers between frames.

    Attributes:
        overlays: names of the overlays shown.
        selected: unit whose point of view the overlays use.
        target: enemy under the cursor (or pinned by ``skirmish render --target``).
        hover: world point under the cursor (``None`` off the map).
        hover_unit: unit whose base is under the cursor.
        armed: index of the pending decision's point option waiting for a click.
        attack_menu: enemy whose several attack options the panel lists.
        show_help: the help overlay is open.
        message: one line shown at the bottom of the map (a refusal reason, a save notice).
        message_error: the message is a refusal/error (drawn in red).
        log_scroll: how many sentences the log panel is scrolled back.
        ai_paused: AI sides wait (``n`` lets them take one decision).
        ai_steps: decisions the AI may take while paused.
        request: app-level request from the input layer: ``save``, ``load``, ``undo`` or
            ``difficulty``.
        point_ok: while an option is armed, whether the point under the cursor is legal.
        snapped: while an option is armed, the legal point a click under the cursor gives
            (snapped onto the drawn region), or None.
        preview: path preview to the point under the cursor
            (a :class:`game.render.inspect.PathPreview`).
        tape: the measuring tape shown: (start, end, unit it starts on), inches.
        tape_on: L was pressed: a left drag stretches the tape instead of giving commands.
        message_ttl: frames the message stays up (None: until the pending decision changes,
            when its moment has passed).
        panel_scroll: pixels the panel's upper part is scrolled down.
        show_summary: the battle's summary is shown over the map (opens at the end, O toggles).
        summary_seen: the summary opened by itself once at the end (it does not reopen).
    """

    overlays: set[str] = field(default_factory=lambda: set(DEFAULT_OVERLAYS))
    selected: str | None = None
    target: str | None = None
    hover: Point | None = None
    hover_unit: str | None = None
    armed: int | None = None
    attack_menu: str | None = None
    show_help: bool = False
    message: str = ""
    message_error: bool = False
    log_scroll: int = 0
    ai_paused: bool = False
    ai_steps: int = 0
    request: str | None = None
    point_ok: bool | None = None
    snapped: Point | None = None
    preview: Any = None
    tape: tuple[Point, Point, str | None] | None = None
    tape_on: bool = False
    message_ttl: int | None = None
    panel_scroll: int = 0
    show_summary: bool = False
    summary_seen: bool = False

    def say(self, text: str, error: bool = False, ttl: int | None = None) -> None:
        """Show ``text`` on the message line: until the pending decision changes, or for ``ttl``
        frames (a notice, such as a save, that outlives the decision)."""
        self.message = text
        self.message_error = error
        self.message_ttl = ttl

    def tick(self) -> None:
        """One frame passed: a notice with a time to live counts down and goes."""
        if self.message_ttl is not None:
            self.message_ttl -= 1
            if self.message_ttl <= 0:
                self.say("")

    def decision_changed(self) -> None:
        """The pending decision changed: hints of the last one have had their moment."""
        if self.message_ttl is None:
            self.say("")
        self.panel_scroll = 0

    def toggle(self, overlay: str) -> None:
        """Switch an overlay on or off."""
        if overlay in self.overlays:
            self.overlays.discard(overlay)
        else:
            self.overlays.add(overlay)

    def reset_decision(self) -> None:
        """Forget choices tied to the previous decision (armed option, attack menu)."""
        self.armed = None
        self.attack_menu = None
        self.point_ok = None
        self.snapped = None


def help_rows(overlays: set[str]) -> list[tuple[str, str, str]]:
    """The help screen as (section, keys, text) rows: actions with their keys grouped, then the
    overlays with their on/off state, then the mouse."""
    grouped: dict[str, list[str]] = {}
    texts: dict[str, str] = {}
    for key, (action, text) in ACTION_KEYS.items():
        label = KEY_LABELS.get(key, key.upper() if len(key) <= 3 else key)
        group = "pan" if action.startswith("pan_") else action
        if label not in grouped.setdefault(group, []):
            grouped[group].append(label)
        texts[group] = "pan the map" if group == "pan" else text
    rows = [
        ("Keys", " ".join(keys) if group == "pan" else ", ".join(keys), texts[group])
        for group, keys in grouped.items()
    ]
    rows.append(
        (
            "Keys",
            "1-9, 0, Shift+1-0",
            "choose a numbered option in the panel (Shift: 11th-20th); the numbers "
            "stay the same for the whole decision",
        )
    )
    rows.append(
        ("Keys", "Ctrl+1-9", "attack the targeted enemy with weapon 1-9 (its number on the unit's sheet)")
    )
    for key, name in OVERLAY_KEYS.items():
        state = "on" if name in overlays else "off"
        rows.append(("Overlays (key toggles)", key.upper(), f"[{state}] {name}: {OVERLAYS[name]}"))
    for line in MOUSE_HELP:
        rows.append(("Mouse", "", line))
    return rows


#: Turn commands with a key (or a click) of their own, never numbered: pygame key name -> label.
OWN_KEYS: dict[type, tuple[str, str]] = {
    EndTurn: ("return", "Enter"),
    Step: ("s", "S"),
    Face: ("f", "F"),
}


def menu_rows(decision: Decision | None, ui: UiState | None = None) -> list[int]:
    """Indices of ``decision.options`` the number keys choose, in order.

    A turn numbers every option but attacks (a click on the enemy, or Ctrl + the weapon's
    number: :func:`attack_rows`), the move (a click on the map) and the commands with a key of
    their own (:data:`OWN_KEYS`: end turn, step, face); any other decision numbers all its
    options. Nothing here depends on the cursor or the target, so a number means one option for
    the whole decision.
    """
    if decision is None:
        return []
    if decision.kind != "turn":
        return list(range(len(decision.options)))
    return [
        i
        for i, o in enumerate(decision.options)
        if not isinstance(o.command, (Attack, Move)) and type(o.command) not in OWN_KEYS
    ]


def own_key_rows(decision: Decision | None) -> list[tuple[str, int]]:
    """The turn's options with a key of their own, as (key label, option index), in
    :data:`OWN_KEYS` order."""
    if decision is None or decision.kind != "turn":
        return []
    out = []
    for cls, (_, label) in OWN_KEYS.items():
        for i, o in enumerate(decision.options):
            if type(o.command) is cls:
                out.append((label, i))
                break
    return out


def attack_rows(decision: Decision | None, target: str | None) -> list[int]:
    """Indices of ``decision``'s attack options on ``target``, in option order."""
    if decision is None or target is None or decision.kind != "turn":
        return []
    return [
        i
        for i, o in enumerate(decision.options)
        if isinstance(o.command, Attack) and o.command.target == target
    ]
