"""Text drawing with the bundled font (``assets/fonts``, named by the theme), cached.

Contract: :class:`Text` owns one ``pygame.font.Font`` of the theme's font file per size and a
bounded cache of rendered lines keyed by (text, size, colour): drawing the same label every
frame costs one blit. Sizes are given as for pygame's default font and drawn at
``round(size * theme.font.scale)`` pixels (:func:`pixel_size`), so layouts measured with the
default font keep their widths; the font is the same file on every machine, never a system
font. ``pygame.font`` is initialised on first use. :func:`wrap` breaks a string into lines no
wider than a pixel width.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

import pygame

from game.render import colors
from game.render.colors import RGB
from game.render.theme import theme

#: Rendered lines kept in the cache; the panel shows a few hundred at most.
CACHE_LINES = 2048


def pixel_size(size: int) -> int:
    """The font's pixel size for a text size given as for pygame's default font (at least 6)."""
    return max(6, round(size * theme().font.scale))


class Text:
    """Font and rendered-line cache."""

    def __init__(self) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self._fonts: dict[int, pygame.font.Font] = {}
        self._cache: OrderedDict[tuple[str, int, RGB], pygame.Surface] = OrderedDict()

    def font(self, size: int) -> pygame.font.Font:
        """The theme's font at text size ``size`` (:func:`pixel_size` pixels)."""
        f = self._fonts.get(size)
        if f is None:
            f = pygame.font.Font(theme().font.file, pixel_size(size))
            self._fonts[size] = f
        return f

    def render(self, text: str, size: int, color: RGB) -> pygame.Surface:
        """An anti-aliased surface of one line of ``text`` (cached)."""
        key = (text, size, color)
        surf = self._cache.get(key)
        if surf is not None:
            self._cache.move_to_end(key)
            return surf
        surf = self.font(size).render(text, True, color)
        self._cache[key] = surf
        if len(self._cache) > CACHE_LINES:
            self._cache.popitem(last=False)
        return surf

    def draw(
        self,
        target: pygame.Surface,
        text: str,
        pos: tuple[float, float],
        size: int = 18,
        color: RGB = colors.TEXT,
        anchor: str = "topleft",
    ) -> pygame.Rect:
        """Blit one line at ``pos``; ``anchor`` is a pygame.Rect attribute (``center``, ``midtop``, ...)."""
        surf = self.render(text, size, color)
        rect = surf.get_rect(**{anchor: (round(pos[0]), round(pos[1]))})
        target.blit(surf, rect)
        return rect

    def width(self, text: str, size: int) -> int:
        """Pixel width of ``text`` at ``size``."""
        return int(self.font(size).size(text)[0])

    def wrap(self, text: str, size: int, max_width: int) -> list[str]:
        """``text`` broken at spaces into lines no wider than ``max_width`` (long words are kept whole)."""
        return wrap(text, max_width, lambda s: self.width(s, size))


def wrap(text: str, max_width: int, measure: Callable[[str], int]) -> list[str]:
    """Greedy word wrap of ``text`` using ``measure(str) -> pixels``."""
    words = text.split(" ")
    lines: list[str] = []
    line = ""
    for w in words:
        cand = f"{line} {w}" if line else w
        if line and measure(cand) > max_width:
            lines.append(line)
            line = w
        else:
            line = cand
    if line or not lines:
        lines.append(line)
    return lines
