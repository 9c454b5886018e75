"""Presentation: drawing a match with pygame-ce (the window, ``skirmish render``, replays).

Contract: this package is the only place besides :mod:`game.render.input`, :mod:`game.render.window` and the
``play`` / ``render`` CLI modules that imports pygame, and it only *reads* a match through
:class:`game.engine.view.MatchView`. Importing the package itself does not import pygame, so its pure
modules (:mod:`~game.render.sentences`, :mod:`~game.render.camera`, :mod:`~game.render.colors`,
:mod:`~game.render.ui`, :mod:`~game.render.inspect`, :mod:`~game.render.scene`) can be used
and tested headless; :func:`require_pygame_ce` imports pygame and refuses plain pygame.

Modules: ``colors`` (palette), ``camera`` (world <-> screen), ``layers`` (cached static layer),
``units`` (bases, facing, posture, AP, health), ``overlays`` (sight fans, arcs, regions,
silhouettes, paths, threat map), ``scene`` (derived data cached per match change), ``panel``
(side panel), ``text`` (fonts), ``sentences`` (event log -> sentences), ``inspect`` (path
previews, odds text, click snapping), ``ui`` (UI state, key bindings), ``renderer`` (a frame),
``png`` (headless PNG output), ``price`` (what a choice costs, a unit's sheet, in words).

Importing this package tells pygame not to print its banner (``PYGAME_HIDE_SUPPORT_PROMPT``), so
no command that draws (``play``, ``edit``, ``render``, ``replay --view``) prints a library's
greeting; every pygame import of the presentation comes after it.
"""

from __future__ import annotations

import os
from types import ModuleType

from game.core.errors import SkirmishError

# Before any module of this package imports pygame: no banner on stdout.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


class PygameUnavailable(SkirmishError):
    """pygame-ce is not installed (or plain pygame is installed in its place)."""


def require_pygame_ce() -> ModuleType:
    """Import pygame and check it is pygame-ce.

    Returns:
        The ``pygame`` module.

    Raises:
        PygameUnavailable: pygame is missing, or it is the original pygame (``pygame.IS_CE``
            missing): both install as ``pygame`` and the window needs pygame-ce's API.
    """
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
    except ImportError:
        raise PygameUnavailable(
            "the window needs pygame-ce, which is not installed: pip install pygame-ce"
        ) from None
    if not getattr(pygame, "IS_CE", False):
        ver = getattr(getattr(pygame, "version", None), "ver", "?")
        raise PygameUnavailable(
            f"plain pygame {ver} is installed, but skirmish needs pygame-ce: "
            "pip uninstall pygame && pip install pygame-ce"
        )
    return pygame
