"""Unit token icons: vector figures from ``assets/tokens.yaml``, drawn at any size.

Contract:

- :func:`load_tokens` reads a tokens file (default :data:`TOKENS_PATH`, shipped as package
  data) and validates it strictly: a mapping of icon name -> list of shapes, each shape
  ``{circle: [x, y, r]}`` or ``{line: [[x, y], ...]}`` with an optional ``width``, coordinates
  in the box -1..1 (y down). Problems raise :class:`TokensError` as ``file:line: key: why``.
- :func:`tokens` is the shipped set, loaded once; it has an icon for every posture
  (``tests/render`` checks it against :class:`components.state.Posture`).
- :func:`draw_token` draws an icon centred on a pixel, the box's half-side being ``half`` pixels,
  in one colour; it returns False (drawing nothing) for an unknown name, so callers can fall
  back to text. The same data gives the same pixels on every machine.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated

import pygame
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from game.core.errors import Problem, ScenarioError
from game.core.shipped import ASSETS_DIR
from game.scenario.yaml_source import parse_yaml

#: The shipped icons.
TOKENS_PATH = ASSETS_DIR / "tokens.yaml"
#: Stroke width of a line, in box units, when the shape does not say.
DEFAULT_WIDTH = 0.26

Coord = Annotated[float, Field(ge=-1.0, le=1.0)]
Point = tuple[Coord, Coord]


class TokensError(ScenarioError):
    """A tokens file failed validation (every problem located by file:line and key)."""


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    width: float = Field(DEFAULT_WIDTH, gt=0.0, le=1.0)


class Circle(_Shape):
    circle: tuple[Coord, Coord, Annotated[float, Field(gt=0.0, le=1.0)]]


class Line(_Shape):
    line: tuple[Point, ...] = Field(min_length=2)


Shape = Circle | Line
_ICONS: TypeAdapter[dict[str, tuple[Shape, ...]]] = TypeAdapter(
    dict[Annotated[str, Field(min_length=1)], tuple[Shape, ...]]
)


def load_tokens(path: str | Path = TOKENS_PATH) -> dict[str, tuple[Shape, ...]]:
    """The icons in ``path`` by name (see the module docstring).

    Raises:
        TokensError: the file is unreadable, not YAML, or not a valid icon set.
    """
    file = Path(path)
    source = str(file)
    try:
        raw = file.read_bytes()
    except OSError as e:
        raise TokensError([Problem(source, 0, "", f"cannot read the icons: {e.strerror or e}")]) from None
    doc = parse_yaml(raw, source)
    if doc.problems or doc.data is None:
        raise TokensError(doc.problems or [Problem(source, 1, "", "empty icons file")])
    try:
        return _ICONS.validate_python(doc.data)
    except ValidationError as e:
        problems = [
            doc.problem(tuple(err["loc"])[:3], f"{err['msg']} (got {err.get('input')!r})")
            for err in e.errors()
        ]
        raise TokensError(problems) from None


@functools.cache
def tokens() -> dict[str, tuple[Shape, ...]]:
    """The shipped icons (:data:`TOKENS_PATH`), loaded once."""
    return load_tokens(TOKENS_PATH)


def draw_token(
    surface: pygame.Surface, name: str, centre: tuple[float, float], half: float, color: tuple[int, ...]
) -> bool:
    """Draw icon ``name`` centred on ``centre`` with the box's half-side ``half`` px; False if unknown."""
    shapes = tokens().get(name)
    if shapes is None:
        return False
    cx, cy = centre

    def px(x: float, y: float) -> tuple[float, float]:
        return (cx + x * half, cy + y * half)

    for shape in shapes:
        stroke = max(1, round(shape.width * half))
        if isinstance(shape, Circle):
            x, y, r = shape.circle
            pygame.draw.circle(surface, color, px(x, y), max(1.0, r * half))
        else:
            pts = [px(x, y) for x, y in shape.line]
            pygame.draw.lines(surface, color, False, pts, stroke)
            if stroke >= 3:  # round the joints and ends of thick strokes
                for p in pts:
                    pygame.draw.circle(surface, color, p, stroke / 2)
    return True
