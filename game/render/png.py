"""Headless pictures: draw a match to an off-screen surface and write it as a PNG, atomically.

Contract: :func:`init_headless` sets ``SDL_VIDEODRIVER=dummy`` (unless already set) and starts
pygame-ce's font module without opening a window; :func:`draw_frame` draws one frame with the
same :class:`~game.render.renderer.Renderer` the window uses, finishing the threat map before
drawing; :func:`write_png` encodes the surface as PNG in memory and writes it through a temp
file in the target folder plus ``os.replace``, so a reader never sees a half-written picture
and a failed write leaves any previous file untouched; the file gets the usual permissions
(0666 minus the umask), not the temp file's private ones.
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Collection
from pathlib import Path
from typing import Any

from game.render import require_pygame_ce


def init_headless() -> Any:
    """Import and initialise pygame-ce for off-screen drawing; returns the module."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    pygame = require_pygame_ce()
    if not pygame.font.get_init():
        pygame.font.init()
    return pygame


def draw_frame(
    renderer: Any, ui: Any, humans: Collection[str] = (), controllers: dict[str, str] | None = None
) -> Any:
    """A new surface of ``renderer.size`` with one complete frame (threat map finished)."""
    import pygame

    surface = pygame.Surface(renderer.size)
    renderer.draw(surface, ui, humans=humans, controllers=controllers, threat_budget=None)
    return surface


def png_bytes(surface: Any) -> bytes:
    """The surface encoded as PNG."""
    import pygame

    buf = io.BytesIO()
    pygame.image.save(surface, buf, "png")
    return buf.getvalue()


def write_png(surface: Any, path: str | Path) -> Path:
    """Write ``surface`` to ``path`` as PNG atomically (temp file in the same folder + rename)."""
    data = png_bytes(surface)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp makes the file private (0600); give it the permissions a plain open() would
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out
