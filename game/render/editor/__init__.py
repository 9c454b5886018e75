"""The scenario editor window: ``skirmish edit SCENARIO``.

Contract: :class:`Editor` shows an :class:`~game.render.editor.model.EditModel` through the play
window's :class:`~game.render.renderer.Renderer`: after every edit the match is rebuilt from the
edited data (checker, then :class:`~game.tools.session.Setup`; a few milliseconds on the 5v5
map), so the map, the sight fans and the cover figures are the engine's own, live. Units and
obstacles with problems are left out of that match and drawn by :mod:`game.render.editor.draw`
with their problems; when even the rest cannot be built (a map or side problem) the last good
match stays on screen, marked stale. Nothing is played: no AI moves and no command is given.
:meth:`Editor.tick` is one frame (events in, rebuild if the model changed, one drawing), driven
by :meth:`Editor.run` at 60 fps or by :class:`~game.render.script.ScriptRunner` (``skirmish
edit --headless --script FILE``). Ctrl+S saves (:meth:`EditModel.save`); closing the window
with unsaved changes asks once (close again to discard them).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from game.core.errors import SkirmishError
from game.engine.match import Match
from game.engine.view import MatchView
from game.render import require_pygame_ce
from game.render.editor.input import EditInput
from game.render.editor.model import EditModel
from game.render.editor.state import EditState
from game.render.window import DEFAULT_SIZE, THREAT_BUDGET_S, init_video, main_loop
from game.tools.session import Setup

#: Overlays on when the editor opens: what a designer weighs (cover, arcs, grid).
EDIT_OVERLAYS = frozenset({"sight", "cover-units", "arcs", "grid"})


class Editor:
    """A window editing one scenario.

    Args:
        model: the scenario being edited.
        size: window size.
        screen: a surface to draw on instead of opening a window (tests, scripts).

    Raises:
        SkirmishError: the scenario as opened cannot be shown at all (no valid map or sides).
    """

    def __init__(self, model: EditModel, *, size: tuple[int, int] = DEFAULT_SIZE, screen: Any = None) -> None:
        pygame = require_pygame_ce()
        from game.render.renderer import Renderer
        from game.render.ui import UiState

        init_video(pygame)
        self.pygame = pygame
        self.model = model
        spec, self.dropped = model.drawable()
        if spec is None:
            problems = "; ".join(m for _, m in model.check().problems[:3])
            raise SkirmishError(f"cannot show {model.source}: {problems}")
        self.match: Match = Setup(controllers=dict(spec.controllers)).build(spec)
        self.view = MatchView(self.match)
        self._own_window = screen is None
        if screen is None:
            pygame.display.set_caption(f"skirmish edit - {model.source}")
            screen = pygame.display.set_mode(size, pygame.RESIZABLE)
        self.screen = screen
        self.ui = UiState(overlays=set(EDIT_OVERLAYS))
        self.ui.summary_seen = True  # nothing is played: no battle summary over the map
        self.state = EditState()
        self.renderer = Renderer(self.view, self.screen.get_size())
        self.input = EditInput(model, self.state, self.ui, lambda: self.renderer.camera)
        #: Nothing is played: every side counts as a person's, so a script's ``wait`` returns at once.
        self.humans = set(spec.sides)
        self.controllers: dict[str, str] = {}
        self.running = True
        self.stale = False
        self._built = model.version
        self._quit_warned = False
        #: Seconds the last rebuild took (checker + match + renderer), for the status and tests.
        self.rebuild_s = 0.0

    # ------------------------------------------------------------------ the loop
    def tick(self, events: Any = ()) -> None:
        """One frame: handle ``events``, rebuild the match if the scenario changed, draw."""
        pg = self.pygame
        for event in events:
            if event.type == pg.QUIT:
                self._quit()
                continue
            if event.type in (pg.VIDEORESIZE, pg.WINDOWSIZECHANGED) and self._own_window:
                self.screen = pg.display.get_surface()
                continue
            self.input.handle(event)
        if self.ui.request == "save":
            self.ui.request = None
            self.save()
        self.rebuild()
        self.draw(THREAT_BUDGET_S)

    def _quit(self) -> None:
        if self.model.dirty and not self._quit_warned:
            self._quit_warned = True
            self.ui.say("unsaved changes: Ctrl+S saves them; close again to discard them", error=True)
            return
        self.running = False

    def rebuild(self) -> None:
        """Show the edited scenario: a new match when the model changed since the last one."""
        if self._built == self.model.version:
            return
        start = time.perf_counter()
        self._built = self.model.version
        spec, self.dropped = self.model.drawable()
        self.stale = spec is None
        if spec is not None:
            old = self.match
            self.match = Setup(controllers=dict(spec.controllers)).build(spec)
            self.view = MatchView(self.match)
            self.renderer.set_view(self.view)
            old.close()
        self.rebuild_s = time.perf_counter() - start

    def draw(self, threat_budget: float | None) -> None:
        """One picture: the play window's map of the rebuilt match, then the editor's marks and panel."""
        from game.render.editor.draw import draw_map, draw_panel

        pg = self.pygame
        alive = {u.id for u in self.view.units()}
        self.ui.selected = self.state.selected if self.state.selected in alive else None
        r = self.renderer
        r.draw(self.screen, self.ui, (), self.controllers, threat_budget=threat_budget)
        map_rect = pg.Rect(*r.camera.viewport)
        self.screen.set_clip(map_rect)
        draw_map(self.screen, r.text, r.camera, self.model, self.state, self.dropped)
        self.screen.set_clip(None)
        w, h = self.screen.get_size()
        panel = pg.Rect(map_rect.right, 0, w - map_rect.right, h)
        draw_panel(self.screen, panel, r.text, self.model, self.state, self.view, self.stale)

    def render_still(self) -> None:
        """A complete picture (threat map finished), for ``shot`` in scripts."""
        self.rebuild()
        self.draw(None)

    def run(self) -> None:
        """Show the window until it is closed."""
        main_loop(self)

    def close(self) -> None:
        self.renderer.close()
        self.match.close()

    # ------------------------------------------------------------------ saving
    def save(self) -> None:
        """Ctrl+S: write the file; its problems, if any, are a warning (the file is written)."""
        try:
            path, problems = self.model.save()
        except (OSError, SkirmishError) as e:
            self.ui.say(f"could not save to {self.model.out}: {e}", error=True)
            return
        if problems:
            n = len(problems)
            self.ui.say(
                f"saved {path} with {n} problem{'s' if n != 1 else ''}: "
                "skirmish check refuses it until they are fixed",
                error=True,
            )
        else:
            self.ui.say(f"saved {path}")


def open_editor(path: Path, out: Path | None, policies: list[str] | None) -> EditModel:
    """The model of scenario file ``path`` saving to ``out`` (default: ``path`` itself).

    Raises:
        SkirmishError: the file cannot be read, or does not parse as a scenario mapping.
    """
    from game.core.files import read_capped

    raw = read_capped(path, "scenario")  # a FileRefused names the file and why
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SkirmishError(f"{path}: expected UTF-8 text") from None
    return EditModel(text, str(path), out if out is not None else path, policies)
