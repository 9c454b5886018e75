"""The skirmish window: play a match (hotseat or against AI policies) and view replays.

Contract:
- :class:`App` shows one :class:`~game.engine.match.Match` through :class:`~game.engine.view.MatchView` and
  plays it through a :class:`game.tools.session.Session`: commands come from the
  :class:`~game.render.input.InputHandler` for human sides (``Session.apply``) and from the
  session's AI policies (``Session.step``, drawing from ``match.ai_rng``) for AI sides, one AI
  decision per frame so the window stays responsive.
  A refused command leaves the match unchanged and its reason on the message line.
  :meth:`App.tick` is one frame (events in, at most one AI decision, one drawing) and can be
  driven with synthetic events in tests; :meth:`App.run` loops at 60 fps until the window closes.
- Backspace undoes the player's last command while no die has been rolled since
  (:class:`~game.render.undo.UndoStack`: the match is rebuilt from its seed and commands).
- F5 / F9 call ``game.tools.saves.save_match(match, path)`` / ``game.tools.saves.load_match(path)``,
  imported only when pressed; if that module is missing or fails, the window shows why. After
  F9 the window's players keep their sides; a side they do not cover is played as the save
  says, except that one it gives to a user policy is a person's (a save never runs code:
  :func:`game.tools.integrity.trusted_players`), and the window says so.
- :func:`view_replay` steps through a recorded battle: the match is rebuilt from the log's
  ``match_start`` (seed, ruleset, options, controllers, round limit) by
  ``Session.from_header`` and the logged ``command`` events are re-applied to step forward;
  stepping back rebuilds to step k − 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from components.specs import ScenarioSpec
from game.ai import difficulty
from game.ai.difficulty import Level
from game.core.commands import command_from_json
from game.core.errors import IllegalCommand, SkirmishError
from game.engine.match import Match
from game.engine.view import MatchView
from game.render import require_pygame_ce
from game.render.undo import UndoStack
from game.tools.session import HUMAN, Session

#: Frames per second of the window loop.
FPS = 60
#: Seconds of threat-map work per frame (the rest of the 16 ms frame is drawing and AI).
THREAT_BUDGET_S = 0.004
DEFAULT_SIZE = (1280, 800)
#: Frames a notice (a save, a load, an undo) stays on the message line.
NOTICE_FRAMES = 180


def init_video(pygame: Any) -> None:
    """Start only what the window uses (video, fonts): ``pygame.init()`` would also open the
    audio device, which the game does not use and which prints errors on machines without one."""
    if not pygame.display.get_init():
        pygame.display.init()
    if not pygame.font.get_init():
        pygame.font.init()


def main_loop(window: Any) -> None:
    """Tick ``window`` (a game, replay or editor window) at :data:`FPS` with pygame's events until
    it stops running, then close it."""
    pg = window.pygame
    clock = pg.time.Clock()
    while window.running:
        window.tick(pg.event.get())
        pg.display.flip()
        clock.tick(FPS)
    window.close()


class App:
    """A window playing one match.

    Args:
        match: the match to play (already built; the window never rebuilds it except on load).
        controllers: side -> ``"human"`` or an AI policy name; sides not listed use the
            match's controllers.
        size: initial window size.
        save_path: file used by F5 / F9.
        screen: a surface to draw on instead of opening a window (tests, benchmarks).
        policy_options: policy name -> its options (``--policy-option``).
        level: the difficulty level the AI sides play at (:mod:`game.ai.difficulty`), if one was
            chosen; F2 cycles it (:meth:`cycle_difficulty`).
    """

    def __init__(
        self,
        match: Match,
        controllers: Mapping[str, str] | None = None,
        *,
        size: tuple[int, int] = DEFAULT_SIZE,
        save_path: str | Path = "skirmish-save.json",
        screen: Any = None,
        policy_options: Mapping[str, Mapping[str, Any]] | None = None,
        level: Level | None = None,
    ) -> None:
        pygame = require_pygame_ce()
        from game.render.input import InputHandler
        from game.render.renderer import Renderer
        from game.render.ui import UiState

        init_video(pygame)
        self.pygame = pygame
        self.controllers = {
            s: (controllers or {}).get(s, match.controllers.get(s, "random")) for s in match.spec.sides
        }
        #: ``--policy-option`` as given; a level's options are added to them (given ones win).
        self.given_options = dict(policy_options or {})
        self.level = level
        self.policy_options = (
            difficulty.policy_options(level, self.given_options) if level else self.given_options
        )
        #: The match and who plays it: the AI sides' policies answer through the session.
        self.session = Session(match, self.controllers, self.policy_options)
        self.humans = set(self.session.humans)
        self.save_path = Path(save_path)
        self._own_window = screen is None
        self.screen = screen if screen is not None else self._open_window(size, match.spec.name)
        self.ui = UiState()
        self.renderer = Renderer(self.view, self.screen.get_size())
        self.input = InputHandler(self.renderer, self.ui, self.humans, ap_cost=self._ap_cost)
        self.running = True
        self.frames = 0
        #: The human commands Backspace may still take back (see :mod:`game.render.undo`).
        self.undo_stack = UndoStack()

    def _open_window(self, size: tuple[int, int], title: str) -> Any:
        pg = self.pygame
        pg.display.set_caption(f"skirmish - {title}")
        return pg.display.set_mode(size, pg.RESIZABLE)

    @property
    def match(self) -> Match:
        return self.session.match

    @property
    def view(self) -> MatchView:
        return self.session.view

    def _ap_cost(self, uid: str, length: float) -> int | None:
        return self.view.move_ap_cost(uid, length)

    # ------------------------------------------------------------------ the loop
    def apply(self, cmd: Any) -> bool:
        """Apply a player's command to the match; a refusal is shown, not raised. True if applied."""
        self.undo_stack.mark(self.match)
        try:
            self.session.apply(cmd)
        except IllegalCommand as e:
            self.undo_stack.drop()
            self.ui.say(str(e), error=True)
            return False
        return True

    def undo(self) -> bool:
        """Backspace: take back the player's last command (and what the AI did after it) while no
        die has been rolled since; the match is rebuilt from its seed and commands."""
        why = self.undo_stack.refusal(self.match)
        if why is not None:
            self.ui.say(why, error=True)
            return False
        try:
            rebuilt = self.undo_stack.undo(self.match)
        except (SkirmishError, IllegalCommand, ValueError) as e:
            self.ui.say(f"cannot undo: {e}", error=True)
            return False
        self.set_match(rebuilt)
        self.ui.say("took back your last command", ttl=NOTICE_FRAMES)
        return True

    def ai_step(self) -> bool:
        """Let an AI side answer the pending decision (at most one); True if it did."""
        if not self.session.ai_to_move():
            return False
        if self.ui.ai_paused:
            if self.ui.ai_steps <= 0:
                return False
            self.ui.ai_steps -= 1
        try:
            return self.session.step()
        except IllegalCommand as e:
            self.ui.say(str(e), error=True)
            return False

    def tick(self, events: Iterable[Any] = ()) -> None:
        """One frame: handle ``events``, let the AI take one decision, draw."""
        pg = self.pygame
        for event in events:
            if event.type == pg.QUIT:
                self.running = False
                continue
            if event.type in (pg.VIDEORESIZE, pg.WINDOWSIZECHANGED) and self._own_window:
                # the renderer lays itself out again for the new size on the next draw
                self.screen = pg.display.get_surface()
                continue
            cmd = self.input.handle(event)
            if cmd is not None:
                self.apply(cmd)
        if self.ui.request is not None:
            request, self.ui.request = self.ui.request, None
            handlers = {"save": self.save, "load": self.load, "undo": self.undo}
            handlers["difficulty"] = self.cycle_difficulty
            handlers[request]()
        self.ai_step()
        self.input.refresh()
        self.renderer.draw(self.screen, self.ui, self.humans, self.controllers, threat_budget=THREAT_BUDGET_S)
        self.ui.tick()
        self.frames += 1

    def render_still(self) -> None:
        """Draw one complete frame (threat map and exact reach finished), for pictures."""
        self.input.refresh()
        self.renderer.draw(self.screen, self.ui, self.humans, self.controllers, threat_budget=None)

    def run(self) -> None:
        """Show the window until it is closed."""
        main_loop(self)

    def close(self) -> None:
        """Stop the renderer's background work and close the match's world."""
        self.renderer.close()
        self.session.close()

    def cycle_difficulty(self) -> None:
        """F2: play every AI side at the next difficulty level (easy, normal, hard, easy...).

        The match goes on as it is; only who answers the AI sides' next decisions changes (the log
        records commands, so a replay or a save is unaffected). With no AI side it only says so.
        """
        ai_sides = [s for s in self.match.spec.sides if s not in self.humans]
        if not ai_sides:
            self.ui.say("no AI side: both sides are played by people", error=True)
            return
        current = self.level.name if self.level is not None else None
        if current is None:
            found = difficulty.level_of(self.controllers[ai_sides[0]])
            current = found.name if found is not None else None
        level = difficulty.next_level(current)
        self.level = level
        self.controllers = difficulty.players(self.controllers, level)
        self.policy_options = difficulty.policy_options(level, self.given_options)
        self.set_match(self.match)
        self.ui.say(f"AI difficulty: {level.label()}: {level.text} (F2: next)", ttl=NOTICE_FRAMES)

    # ------------------------------------------------------------------ saves
    def save(self) -> None:
        """F5: ``game.tools.saves.save_match(match, save_path)``; problems are shown in the window."""
        try:
            from game.tools.saves import save_match
        except ImportError:
            self.ui.say("saving is not available: the game.tools.saves module is missing", error=True)
            return
        try:
            save_match(self.match, self.save_path)
        except (SkirmishError, OSError, ValueError) as e:
            self.ui.say(f"could not save to {self.save_path}: {e}", error=True)
            return
        self.ui.say(f"saved to {self.save_path}", ttl=NOTICE_FRAMES)

    def load(self) -> None:
        """F9: ``game.tools.saves.load_match(save_path)`` replaces the match; problems are shown."""
        try:
            from game.tools.saves import load_match
        except ImportError:
            self.ui.say("loading is not available: the game.tools.saves module is missing", error=True)
            return
        try:
            loaded = load_match(self.save_path)
        except (SkirmishError, OSError, ValueError) as e:
            self.ui.say(f"could not load {self.save_path}: {e}", error=True)
            return
        # A save never runs code: sides this window does not play already are played as the save
        # says, except that a side it gives to a user policy is a person's (and the window says so).
        from game.tools.integrity import trusted_players

        known = {s: who for s, who in self.controllers.items() if s in loaded.spec.sides}
        players, notes = trusted_players(dict(loaded.controllers), known, str(self.save_path))
        self.controllers = players
        self.set_match(loaded)
        self.undo_stack.clear()
        self.ui.say(notes[0] if notes else f"loaded {self.save_path}", error=bool(notes), ttl=NOTICE_FRAMES)

    def set_match(self, match: Match) -> None:
        """Show another match (after a load); the old one's world is closed."""
        old = self.match
        self.session = Session(match, self.controllers, self.policy_options)
        self.humans = set(self.session.humans)  # a load may change who plays a side
        self.input.humans = set(self.humans)
        self.renderer.set_view(self.view)
        self.ui.selected = None
        self.ui.target = None
        self.input.sync_decision()
        if old is not match:
            old.close()


# ---------------------------------------------------------------------- replays
class ReplayBuilder:
    """Rebuilds a recorded match at any step (number of logged commands applied).

    Args:
        spec: the scenario the log was recorded on.
        events: the recorded log (``game.core.events.read_log``); must start with ``match_start``.

    Raises:
        SkirmishError: the log does not start with ``match_start`` or holds a malformed command.
    """

    def __init__(self, spec: ScenarioSpec, events: Sequence[dict[str, Any]]) -> None:
        if not events or events[0].get("type") != "match_start":
            raise SkirmishError("the log does not start with a match_start event")
        self.spec = spec
        self.events = list(events)
        self.start = events[0]
        try:
            self.commands = [command_from_json(e["command"]) for e in events if e.get("type") == "command"]
        except (KeyError, ValueError) as e:
            raise SkirmishError(f"malformed command event in the log: {e}") from None
        self.session = self._fresh()
        self.step = 0
        self.problem: str | None = None

    def _fresh(self) -> Session:
        return Session.from_header(self.spec, self.start, players=HUMAN)  # the log answers every decision

    @property
    def match(self) -> Match:
        return self.session.match

    @property
    def total(self) -> int:
        return len(self.commands)

    def forward(self) -> bool:
        """Apply the next logged command; False at the end or if it is refused (see :attr:`problem`)."""
        if self.step >= self.total or self.problem:
            return False
        try:
            self.session.apply(self.commands[self.step])
        except IllegalCommand as e:
            self.problem = f"command {self.step + 1} is refused on replay: {e}"
            return False
        self.step += 1
        self._check()
        return True

    def go_to(self, k: int) -> None:
        """Rebuild the match at step ``k`` (clamped to 0..total): from scratch when going back."""
        k = max(0, min(self.total, k))
        if k < self.step:
            self.session.close()
            self.session = self._fresh()
            self.step = 0
            self.problem = None
        while self.step < k and self.forward():
            pass

    def _check(self) -> None:
        got = self.match.log.events
        if got != self.events[: len(got)]:
            first = (
                next(i for i, (a, b) in enumerate(zip(got, self.events)) if a != b)
                if len(got) <= len(self.events)
                else len(self.events)
            )
            self.problem = f"the replay diverges from the log at event {first}"


class ReplayWindow:
    """A window stepping through a :class:`ReplayBuilder` (see :func:`view_replay` for the keys).

    Args:
        builder: the replay.
        screen: the surface to draw on (the display surface, or any surface in tests).
    """

    def __init__(self, builder: ReplayBuilder, screen: Any) -> None:
        pygame = require_pygame_ce()
        from game.render.input import InputHandler
        from game.render.renderer import Renderer
        from game.render.ui import UiState

        self.pygame = pygame
        self.builder = builder
        self.screen = screen
        self.ui = UiState()
        self.renderer = Renderer(builder.session.view, screen.get_size())
        self.input = InputHandler(self.renderer, self.ui, humans=())
        self.controllers = dict(builder.start.get("controllers") or {})
        self.running = True
        self._jumps = {
            pygame.K_RIGHT: 1,
            pygame.K_SPACE: 1,
            pygame.K_LEFT: -1,
            pygame.K_PAGEUP: -10,
            pygame.K_PAGEDOWN: 10,
        }

    def tick(self, events: Iterable[Any] = ()) -> None:
        """One frame: step keys move through the replay, other events go to the input handler."""
        pg, b = self.pygame, self.builder
        for event in events:
            if event.type == pg.QUIT:
                self.running = False
            elif event.type == pg.KEYDOWN and event.key in (*self._jumps, pg.K_HOME, pg.K_END):
                before = b.match
                if event.key == pg.K_HOME:
                    b.go_to(0)
                elif event.key == pg.K_END:
                    b.go_to(b.total)
                else:
                    b.go_to(b.step + self._jumps[event.key])
                if b.match is not before:
                    self.renderer.set_view(b.session.view)
                self.input.sync_decision()
            else:
                self.input.handle(event)
        status = f"step {b.step} / {b.total}  (Left / Right: step, Home / End: first / last)"
        self.ui.say(b.problem or status, error=b.problem is not None)
        self.input.refresh()
        self.renderer.draw(self.screen, self.ui, (), self.controllers, threat_budget=THREAT_BUDGET_S)

    def run(self) -> None:
        """Loop until the window is closed."""
        main_loop(self)

    def close(self) -> None:
        """Stop the renderer's background work and close the replayed match."""
        self.renderer.close()
        self.builder.session.close()


def view_replay(log_path: str | Path, spec: ScenarioSpec, events: Sequence[dict[str, Any]]) -> None:
    """Open a window stepping through a recorded battle.

    Keys: Right / Space = next command, Left = previous (rebuilt from the start), Page Up /
    Page Down = 10 back / forward, Home / End = first / last; the overlays and the mouse work as
    in the play window (nothing is played: no side is human).

    Args:
        log_path: the log file (for the title).
        spec: the scenario the battle was played on.
        events: the log's events.

    Raises:
        SkirmishError: the log cannot be replayed (no match_start, malformed commands) or
            pygame-ce is missing.
    """
    pygame = require_pygame_ce()
    builder = ReplayBuilder(spec, events)
    init_video(pygame)
    pygame.display.set_caption(f"skirmish replay - {Path(log_path).name}")
    screen = pygame.display.set_mode(DEFAULT_SIZE, pygame.RESIZABLE)
    ReplayWindow(builder, screen).run()
