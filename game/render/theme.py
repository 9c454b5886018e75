"""The colour theme and the font of the window and ``skirmish render``, read from ``assets/``.

Contract:

- :func:`load_theme` reads a theme file (default :data:`THEME_PATH`, ``assets/theme.yaml``,
  shipped as package data), validates it strictly (every key required, unknown keys refused,
  colours ``[r, g, b]`` or ``[r, g, b, alpha]`` of integers 0..255, the font file present) and
  returns a frozen :class:`Theme` whose ``font.file`` is the absolute path of the font. Every
  problem raises :class:`ThemeError` listing each one as ``file:line: key.path: what is wrong``.
- :func:`theme` is the shipped theme, loaded once per process; :mod:`game.render.colors`
  takes its palette from it, :mod:`game.render.text` its font. Nothing here imports pygame.
- The same files give the same pictures on every machine: the font is the bundled DejaVu Sans,
  never a system font or pygame's default.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError

from game.core.errors import Problem, ScenarioError
from game.core.shipped import ASSETS_DIR
from game.scenario.yaml_source import parse_yaml

#: The shipped theme.
THEME_PATH = ASSETS_DIR / "theme.yaml"

Byte = Annotated[int, Strict(), Field(ge=0, le=255)]
Rgb = tuple[Byte, Byte, Byte]
Rgba = tuple[Byte, Byte, Byte, Byte]


class ThemeError(ScenarioError):
    """A theme file failed validation (every problem located by file:line and key)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Font(_Model):
    file: str = Field(min_length=1, description="font file, relative to the theme's folder")
    scale: float = Field(gt=0.1, le=4.0, description="pixel size = the code's text size x scale")


class Sides(_Model):
    named: dict[str, Rgb] = Field(min_length=1)
    extra: tuple[Rgb, ...] = Field(min_length=1)


class ByCover(_Model):
    none: Rgb
    light: Rgb
    medium: Rgb
    heavy: Rgb
    near_total: Rgb
    total: Rgb


class ThreatAlpha(_Model):
    first: Byte
    each: Byte
    max: Byte


class Arcs(_Model):
    front: Rgba
    side: Rgba
    rear: Rgba


class Obstacles(_Model):
    low: Rgb
    high: Rgb
    top: float = Field(gt=0)


class Theme(_Model):
    """Every colour the presentation draws with, and its font (see ``assets/theme.yaml``)."""

    font: Font
    background: Rgb
    table: Rgb
    grid: Rgb
    grid_major: Rgb
    table_edge: Rgb
    panel: Rgb
    panel_text: Rgb
    panel_dim: Rgb
    panel_accent: Rgb
    text: Rgb
    button: Rgb
    button_hot: Rgb
    warning: Rgb
    help_shade: Rgba
    outline: Rgb
    active_ring: Rgb
    selected_ring: Rgb
    hover_ring: Rgb
    cover_unit_ring: Rgb
    dead: Rgb
    ap_full: Rgb
    ap_empty: Rgb
    health_ok: Rgb
    health_low: Rgb
    sides: Sides
    path: Rgb
    path_bad: Rgb
    hidden_part: Rgb
    exposed_part: Rgb
    region_retreat: Rgba
    region_dodge: Rgba
    region_move: Rgba
    region_edge: Rgb
    wedge_exposed: Rgba
    wedge_hidden: Rgba
    cover: ByCover
    threat_alpha: ThreatAlpha
    arcs: Arcs
    obstacles: Obstacles


def load_theme(path: str | Path = THEME_PATH) -> Theme:
    """The theme in ``path`` (see the module docstring).

    Raises:
        ThemeError: the file is unreadable, not YAML, or not a valid theme.
    """
    file = Path(path)
    source = str(file)
    try:
        raw = file.read_bytes()
    except OSError as e:
        raise ThemeError([Problem(source, 0, "", f"cannot read the theme: {e.strerror or e}")]) from None
    doc = parse_yaml(raw, source)
    if doc.problems or doc.data is None:
        raise ThemeError(doc.problems or [Problem(source, 1, "", "empty theme file")])
    if not isinstance(doc.data, dict):
        raise ThemeError([doc.problem((), "expected a mapping of theme keys")])
    try:
        theme = Theme.model_validate(doc.data)
    except ValidationError as e:
        problems = []
        for err in e.errors():
            loc = tuple(err["loc"])
            # A colour given as a list of the wrong length reports the tuple, not each item.
            problems.append(doc.problem(loc, f"{err['msg']} (got {err.get('input')!r})"))
        raise ThemeError(problems) from None
    font = (file.parent / theme.font.file).resolve()
    if not font.is_file():
        raise ThemeError([doc.problem(("font", "file"), f"no font file {font}")])
    # The loaded theme names its font by absolute path.
    return theme.model_copy(update={"font": theme.font.model_copy(update={"file": str(font)})})


@functools.cache
def theme() -> Theme:
    """The shipped theme (:data:`THEME_PATH`), loaded once."""
    return load_theme(THEME_PATH)
