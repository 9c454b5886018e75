"""Headless pictures: draw a match to an off-screen surface and write it as a PNG, atomically.

Contract: :func:`init_headless` sets ``SDL_VIDEODRIVER=dummy`` (unless already set) and starts
pygame-ce's font module without opening a window; :func:`draw_frame` draws one frame with the
same :class:`~game.render.renderer.Renderer` the window uses, finishing the threat map before
drawing; :func:`write_png` encodes the surface in memory, as PNG unless ``fmt`` names another
format pygame-ce writes (``jpeg``, ``bmp``), and writes it through a temp file in the target
folder plus ``os.replace``, so a reader never sees a half-written picture
and a failed write leaves any previous file untouched; the file gets the usual permissions
(0666 minus the umask), not the temp file's private ones. With ``dpi`` the PNG carries a
``pHYs`` chunk (pixels per metre), so it prints at that many pixels per inch.
"""

from __future__ import annotations

import io
import os
import struct
import tempfile
import zlib
from collections.abc import Collection
from pathlib import Path
from typing import Any

from game.core.events import naming
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


#: Formats :func:`write_png` writes.
FORMATS = ("png", "jpeg", "bmp")


def png_bytes(surface: Any, dpi: float | None = None, fmt: str = "png") -> bytes:
    """The surface encoded as PNG (or ``fmt``: one of :data:`FORMATS`); with ``dpi`` (PNG only) a
    ``pHYs`` chunk says how many pixels make an inch, so a printer prints it at that size."""
    import pygame

    if fmt not in FORMATS:
        raise ValueError(f"unknown picture format {fmt!r}; one of {', '.join(FORMATS)}")
    if dpi is not None and fmt != "png":
        raise ValueError("a picture's dpi is written in PNG files only")
    buf = io.BytesIO()
    pygame.image.save(surface, buf, fmt)
    data = buf.getvalue()
    return data if dpi is None else with_dpi(data, dpi)


def with_dpi(data: bytes, dpi: float) -> bytes:
    """PNG ``data`` with its physical pixel size set to ``dpi`` (a ``pHYs`` chunk right after
    ``IHDR``, replacing any there was)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    ihdr_end = 8 + 8 + struct.unpack(">I", data[8:12])[0] + 4
    chunks, pos = [], ihdr_end
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        if kind != b"pHYs":
            chunks.append(data[pos : pos + 12 + n])
        pos += 12 + n
    ppm = round(float(dpi) / 0.0254)  # pixels per metre
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    phys = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    return data[:ihdr_end] + phys + b"".join(chunks)


def write_png(surface: Any, path: str | Path, dpi: float | None = None, fmt: str = "png") -> Path:
    """Write ``surface`` to ``path`` as PNG (or ``fmt``) atomically (temp file in the same folder +
    rename); ``dpi`` sets a PNG's physical size (see :func:`png_bytes`)."""
    data = png_bytes(surface, dpi, fmt)
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
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise naming(e, out) from None
        raise
    return out
