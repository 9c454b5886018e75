"""Animated battles: a GIF (or MP4) with a frame per command or reaction, headless.

Contract:

- :func:`animate` re-simulates a recorded battle (its ``match_start`` and ``command`` events, as
  ``skirmish replay`` does, every side answered by the log) and draws one frame per
  :class:`~game.render.narrate.Beat`: the opening, then the moment each command was given (the
  decision pending, so a defence shows its retreat region and a dodge move its disc), then the
  end. Each frame is the window's own picture (:class:`~game.render.renderer.Renderer`) with the
  overlays of that moment, within the ``overlays`` allowed (:func:`moment`): an attack shows the
  attacker's sight line to its target with the cover and the arcs, a move its reach and path, a
  reaction its regions and the line to its attacker; and a caption box at the bottom of the map
  with :func:`game.render.narrate.caption` (the window's log sentences: odds and rolls). The end
  frame tells the result and is held three frames long.
- ``max_frames`` bounds the frames: commands past it are played without a frame, and the end
  frame still shows the end. A tqdm bar on stderr counts the frames.
- The file is written atomically (a temp file in the target folder renamed over it, the usual
  permissions). ``.gif``: Pillow, ``1000 / fps`` ms a frame, looping, each frame quantised to its
  own palette and stored as the difference from the one before (Pillow's ``optimize``).
  ``.mp4``: H.264 through an ffmpeg binary (``imageio-ffmpeg``'s, else ``ffmpeg`` on the PATH),
  frames piped raw; without one :class:`VideoWriterMissing` names what to install.
- :class:`FrameDrawer` is one frame of a live match view as an ``(h, w, 3)`` uint8 array; the RL
  environment's ``render_mode="rgb_array"`` uses it (:mod:`game.rl`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from components.specs import ScenarioSpec
from game.core.commands import command_from_json
from game.core.errors import IllegalCommand, SkirmishError
from game.core.events import naming
from game.engine.view import MatchView
from game.render.narrate import Beat, beats, caption, ending
from game.render.png import init_headless
from game.render.ui import DEFAULT_OVERLAYS, UiState

if TYPE_CHECKING:
    from game.render.renderer import Renderer

#: Animation formats by file extension.
FORMATS = {".gif": "gif", ".mp4": "mp4"}
#: Frames per second by default: time to read a caption.
DEFAULT_FPS = 1.0
#: Frames drawn at most by default (a GIF holds every frame in memory while it is written).
DEFAULT_MAX_FRAMES = 240
#: The end frame lasts this many frames.
END_HOLD = 3
#: Text sizes of the caption's header and body, and the most body lines it shows.
CAPTION_HEAD, CAPTION_BODY, CAPTION_LINES = 19, 17, 6

#: Overlays each kind of moment shows (within those allowed); the grid is always allowed.
ATTACK_OVERLAYS = frozenset({"sight", "silhouette", "cover-units", "arcs"})
MOVE_OVERLAYS = frozenset({"move", "path"})
REACTION_OVERLAYS = frozenset({"retreat", "dodge", "arcs", "path"})


class AnimationError(SkirmishError):
    """The battle cannot be animated (a command refused on replay, a bad file name)."""


class VideoWriterMissing(AnimationError):
    """No writer for the requested format is installed."""


@dataclass(frozen=True)
class Animation:
    """What :func:`animate` wrote: the file, its frames, the commands and the bytes."""

    path: Path
    frames: int
    commands: int
    drawn_commands: int
    size: tuple[int, int]
    bytes: int
    captions: tuple[tuple[str, tuple[str, ...]], ...]


def animation_format(path: Path) -> str:
    """``gif`` or ``mp4`` from the file's extension (AnimationError otherwise)."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise AnimationError(
            f"{path}: an animation is a .gif or an .mp4 file, not {path.suffix or 'no extension'}"
        )
    return fmt


def ffmpeg_exe() -> str | None:
    """The ffmpeg binary MP4 is written with: imageio-ffmpeg's, else one on the PATH."""
    try:
        import imageio_ffmpeg

        return str(imageio_ffmpeg.get_ffmpeg_exe())
    except (ImportError, RuntimeError):
        return shutil.which("ffmpeg")


def require_writer(fmt: str) -> str | None:
    """Check the format can be written before anything is drawn; returns the ffmpeg binary for MP4."""
    if fmt == "mp4":
        exe = ffmpeg_exe()
        if exe is None:
            raise VideoWriterMissing(
                "writing .mp4 needs ffmpeg: pip install imageio-ffmpeg (or put ffmpeg on the PATH); "
                "a .gif needs nothing more"
            )
        return exe
    return None


# ---------------------------------------------------------------------- frames
class FrameDrawer:
    """Draws a match view as the window shows it, into an ``(h, w, 3)`` uint8 array.

    Args:
        size: the picture's (width, height) in pixels (at least 640 x 420).
    """

    def __init__(self, size: tuple[int, int] = (1280, 800)) -> None:
        self.pygame = init_headless()
        self.size = size
        self.renderer: Renderer | None = None
        self._view: MatchView | None = None
        self._surface: Any = None

    def draw(
        self, view: MatchView, ui: UiState | None = None, controllers: dict[str, str] | None = None
    ) -> Any:
        """The frame as a pygame surface (the drawer's own: copy it to keep it)."""
        from game.render.renderer import Renderer  # pygame, after init_headless

        if self.renderer is None:
            self.renderer = Renderer(view, self.size)
        elif self._view is not view:  # a new match (an RL reset): same map, same camera
            self.renderer.set_view(view)
        self._view = view
        if self._surface is None:
            self._surface = self.pygame.Surface(self.renderer.size)
        self.renderer.draw(self._surface, ui or UiState(), controllers=controllers, threat_budget=None)
        return self._surface

    def __call__(self, view: MatchView, ui: UiState | None = None) -> np.ndarray:
        """The frame's pixels, row = y."""
        from game.render.renderer import snapshot

        return snapshot(self.draw(view, ui))

    def close(self) -> None:
        if self.renderer is not None:
            self.renderer.close()


def moment(beat: Beat, allowed: Collection[str]) -> tuple[set[str], str | None, str | None, Any]:
    """The overlays, viewer, target and path preview of the frame of ``beat``.

    Returns:
        (overlays shown, unit whose view they use, unit inspected, path preview or None).
    """
    from game.render.inspect import PathPreview

    cmd = beat.command or {}
    kind = str(cmd.get("type", ""))
    if beat.decision not in (None, "turn"):
        wanted = REACTION_OVERLAYS
    elif kind == "Attack":
        wanted = ATTACK_OVERLAYS
    elif kind in ("Move", "Step"):
        wanted = MOVE_OVERLAYS
    else:
        wanted = frozenset({"arcs"})
    shown = {o for o in allowed if o in wanted or o == "grid"}
    target = cmd.get("target") if kind == "Attack" else None
    if target is None and beat.decision not in (None, "turn"):
        target = next((e.get("attacker") for e in beat.events if e.get("attacker")), None)
    preview = None
    for e in beat.events:
        path = e.get("path")
        if e.get("unit") == beat.unit and isinstance(path, list) and len(path) >= 2:
            points = tuple((float(p[0]), float(p[1])) for p in path)
            ap = e.get("ap") if isinstance(e.get("ap"), int) else 0
            preview = PathPreview(str(beat.unit), points[-1], points, float(e.get("length", 0.0)), ap, None)
            break
    return shown, beat.unit, (str(target) if target else None), preview


def draw_caption(drawer: FrameDrawer, surface: Any, head: str, lines: Sequence[str]) -> None:
    """The caption box along the bottom of the map: the header, then the wrapped sentences."""
    from game.render import colors
    from game.render.renderer import map_viewport

    assert drawer.renderer is not None
    pygame, text = drawer.pygame, drawer.renderer.text
    x0, y0, w, h = map_viewport(surface.get_size())
    body: list[str] = []
    for s in lines:
        body += text.wrap(s, CAPTION_BODY, w - 40)
    if len(body) > CAPTION_LINES:
        body = [*body[: CAPTION_LINES - 1], f"... and {len(body) - CAPTION_LINES + 1} more lines"]
    step = text.font(CAPTION_BODY).get_linesize()
    box_h = text.font(CAPTION_HEAD).get_linesize() + step * len(body) + 16
    box = pygame.Rect(x0 + 10, y0 + h - box_h - 10, w - 20, box_h)
    shade = pygame.Surface(box.size, pygame.SRCALPHA)
    shade.fill((16, 18, 22, 225))
    surface.blit(shade, box)
    y = box.y + 6
    text.draw(surface, head, (box.x + 10, y), CAPTION_HEAD, colors.PANEL_ACCENT)
    y += text.font(CAPTION_HEAD).get_linesize()
    for line in body:
        text.draw(surface, line, (box.x + 10, y), CAPTION_BODY, colors.PANEL_TEXT)
        y += step


@dataclass(frozen=True)
class Frame:
    """One picture of the animation and how long it lasts (in frames)."""

    pixels: np.ndarray
    head: str
    lines: tuple[str, ...]
    hold: int = 1


def frames(
    spec: ScenarioSpec,
    events: Sequence[dict[str, Any]],
    size: tuple[int, int],
    overlays: Collection[str],
    max_frames: int,
    on_frame: Callable[[], object] | None = None,
) -> Iterator[Frame]:
    """The frames of the logged battle (see the module docstring), drawn one at a time.

    Raises:
        AnimationError: the log has no ``match_start`` or a command is refused on replay.
    """
    from game.render.renderer import snapshot
    from game.tools.session import HUMAN, Session

    if not events or events[0].get("type") != "match_start":
        raise AnimationError("the log does not start with a match_start event")
    cut = beats(events)
    drawer = FrameDrawer(size)
    session = Session.from_header(spec, events[0], players=HUMAN)  # the log answers every decision
    try:
        controllers = dict(session.match.controllers)
        budget = max(2, max_frames) - 1  # the end frame is always drawn
        for n, beat in enumerate(cut):
            if n < budget:
                shown, viewer, target, preview = moment(beat, overlays)
                ui = UiState(overlays=shown, selected=viewer, target=target, preview=preview)
                surface = drawer.draw(session.view, ui, controllers)
                head, lines = caption(beat)
                draw_caption(drawer, surface, head, lines)
                yield Frame(snapshot(surface), head, tuple(lines))
                if on_frame is not None:
                    on_frame()
            if beat.command is not None:
                try:
                    session.apply(command_from_json(beat.command))
                except (IllegalCommand, ValueError) as e:
                    raise AnimationError(
                        f"round {beat.round}: {beat.unit}'s command is refused on replay: {e}"
                    ) from None
        head, lines = ending(events)
        surface = drawer.draw(
            session.view, UiState(overlays={o for o in overlays if o == "grid"}), controllers
        )
        draw_caption(drawer, surface, head, lines)
        yield Frame(snapshot(surface), head, tuple(lines), hold=END_HOLD)
        if on_frame is not None:
            on_frame()
    finally:
        drawer.close()
        session.close()


# ---------------------------------------------------------------------- writing
def _atomic(out: Path, write: Callable[[Path], None]) -> None:
    """Run ``write(temp path)`` in the target folder, then rename it over ``out`` (0666 - umask)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=out.suffix, dir=out.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, out)
    except BaseException as e:
        tmp.unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise naming(e, out) from None
        raise


def _write_gif(stream: Iterator[Frame], tmp: Path, fps: float, kept: list[Frame]) -> None:
    from PIL import Image

    images, durations = [], []
    for f in stream:
        img = Image.fromarray(f.pixels, "RGB").quantize(256, method=Image.Quantize.FASTOCTREE)
        images.append(img)
        durations.append(round(1000.0 * f.hold / fps))
        kept.append(Frame(np.empty((0, 0, 3), np.uint8), f.head, f.lines, f.hold))
    if not images:  # pragma: no cover - the end frame is always drawn
        raise AnimationError("no frame was drawn")
    images[0].save(
        tmp,
        format="GIF",
        save_all=True,
        append_images=images[1:],
        duration=durations,
        loop=0,
        optimize=True,
        disposal=1,
    )


def _write_mp4(stream: Iterator[Frame], tmp: Path, fps: float, exe: str, kept: list[Frame]) -> None:
    proc: subprocess.Popen[bytes] | None = None
    try:
        for f in stream:
            h, w = f.pixels.shape[:2]
            if proc is None:
                cmd = [
                    exe,
                    "-y",
                    "-loglevel",
                    "error",
                    *("-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-r", f"{fps:g}"),
                    *("-i", "-", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2"),
                    *("-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart"),
                    *("-f", "mp4", str(tmp)),
                ]
                proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
            assert proc.stdin is not None
            data = np.ascontiguousarray(f.pixels).tobytes()
            for _ in range(f.hold):
                proc.stdin.write(data)
            kept.append(Frame(np.empty((0, 0, 3), np.uint8), f.head, f.lines, f.hold))
    except BrokenPipeError:
        pass  # ffmpeg stopped: its message is read below
    finally:
        if proc is not None:
            assert proc.stdin is not None
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.close()
            proc.wait()
    if proc is not None and proc.returncode != 0:
        err = proc.stderr.read().decode(errors="replace").strip() if proc.stderr else ""
        raise AnimationError(f"ffmpeg failed: {err.splitlines()[-1] if err else 'no message'}")


def animate(
    spec: ScenarioSpec,
    events: Sequence[dict[str, Any]],
    out: str | os.PathLike[str],
    *,
    fps: float = DEFAULT_FPS,
    max_frames: int = DEFAULT_MAX_FRAMES,
    size: tuple[int, int] = (1280, 800),
    overlays: Collection[str] | None = None,
    progress: bool = True,
) -> Animation:
    """Draw the logged battle to ``out`` (``.gif`` or ``.mp4``); see the module docstring.

    Raises:
        AnimationError: a bad extension, a command refused on replay, ffmpeg failing.
        VideoWriterMissing: an ``.mp4`` without an ffmpeg binary.
    """
    from tqdm import tqdm

    path = Path(out)
    fmt = animation_format(path)
    exe = require_writer(fmt)
    shown = set(DEFAULT_OVERLAYS if overlays is None else overlays)
    total = min(len(beats(events)) + 1, max(2, max_frames))
    commands = sum(1 for e in events if e.get("type") == "command")
    kept: list[Frame] = []
    with tqdm(total=total, desc="frames", unit="frame", file=sys.stderr, disable=not progress) as bar:
        stream = frames(spec, events, size, shown, max_frames, on_frame=bar.update)
        if fmt == "gif":
            _atomic(path, lambda tmp: _write_gif(stream, tmp, fps, kept))
        else:
            assert exe is not None
            _atomic(path, lambda tmp: _write_mp4(stream, tmp, fps, exe, kept))
    drawn = max(0, min(commands, len(kept) - 2))
    return Animation(
        path,
        len(kept),
        commands,
        drawn,
        size,
        path.stat().st_size,
        tuple((f.head, f.lines) for f in kept),
    )
