"""The shape of a scenario file: pydantic models, field types and the JSON Schema.

Contract: :class:`ScenarioFile` and the models under it describe every key a scenario may
write (``extra="forbid"`` everywhere, strict scalars: YAML already types them, so ``"3"``
or ``true`` never becomes a number); :func:`scenario_schema` is their JSON Schema. Named
heights become numbers here, so everything after validation deals with floats only. The
semantic checks (:mod:`game.scenario.checks`) and the spec come after.
"""

from __future__ import annotations

import difflib
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
)
from pydantic_core import PydanticCustomError

from components.spatial import Posture
from components.terrain import HEIGHT_NAMES
from game.rules import RULESET_NAMES
from game.scenario.idents import invisible, nfc

#: AI policy of a side the scenario's ``controllers:`` does not name.
DEFAULT_CONTROLLER = "random"
DEFAULT_ROUNDS = 20
MAX_ROUNDS = 1000
#: Largest magnitude accepted for any coordinate or length, in inches. Real tables are
#: under 100"; anything near this is a typo (or an attempt to break the geometry).
MAX_MAGNITUDE = 1e6
#: Largest map side, in inches (83 feet: far beyond any table, small enough to draw and play).
MAX_MAP_SIZE = 1000.0
#: Smallest map side, in inches (one base).
MIN_MAP_SIZE = 1.0
#: Smallest grid cell, in inches: a finer grid is a typo and would take minutes to draw.
MIN_CELL = 0.05


def _known_ruleset(value: str) -> str:
    if value not in RULESET_NAMES:
        close = difflib.get_close_matches(value, RULESET_NAMES, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise PydanticCustomError(
            "ruleset_name", "expected one of " + ", ".join(RULESET_NAMES) + f", got {value!r}" + hint
        )
    return value


def _named_height(value: Any) -> Any:
    # Named heights are turned into numbers here so that everything after
    # validation deals with floats only (DESIGN §2: low 0.5, high 2.0).
    if isinstance(value, str):
        if value in HEIGHT_NAMES:
            return HEIGHT_NAMES[value]
        raise PydanticCustomError(
            "height_name", "expected " + ", ".join(HEIGHT_NAMES) + f" or a number > 0, got {value!r}"
        )
    return value


# Strict floats: YAML already types scalars, so "3" (quoted) or true must not
# silently become 3.0 / 1.0. Ints are accepted as floats.
Number = Annotated[float, Strict(), Field(allow_inf_nan=False, ge=-MAX_MAGNITUDE, le=MAX_MAGNITUDE)]
Positive = Annotated[float, Strict(), Field(allow_inf_nan=False, gt=0, le=MAX_MAGNITUDE)]
Point = Annotated[list[Number], Field(min_length=2, max_length=2, description="[x, y] in inches")]


def _printable_id(value: str) -> str:
    """Refuse ids with invisible or direction-changing characters (they could make two ids look
    alike, or reorder what a log or report shows); the id is kept in its one spelling, NFC
    (:mod:`game.scenario.idents`)."""
    why = invisible(value)
    if why is not None:
        raise PydanticCustomError(
            "printable_id", f"expected printable text without invisible or bidi characters, got {why}"
        )
    return nfc(value)


def _printable_text(value: str) -> str:
    """Refuse a description with characters nobody sees (a terminal escape sequence, a bidi
    override), newlines and tabs aside."""
    why = invisible(value, allow="\n\t")
    if why is not None:
        raise PydanticCustomError("printable_text", f"expected printable text, got {why}")
    return value


def _one_line(value: str) -> str:
    """Refuse a title with characters nobody sees, newlines and tabs included."""
    why = invisible(value)
    if why is not None:
        raise PydanticCustomError("printable_text", f"expected printable text on one line, got {why}")
    return value


Ident = Annotated[
    str,
    Strict(),
    Field(min_length=1, max_length=64, pattern=r"^\S+$", description="printable text without spaces"),
    AfterValidator(_printable_id),
]
RulesetName = Annotated[
    str,
    Strict(),
    AfterValidator(_known_ruleset),
    WithJsonSchema({"type": "string", "enum": list(RULESET_NAMES)}),
]
Height = Annotated[
    float,
    Strict(),
    Field(allow_inf_nan=False, gt=0, le=MAX_MAGNITUDE),
    BeforeValidator(_named_height),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "enum": list(HEIGHT_NAMES)},
                {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_MAGNITUDE},
            ],
            "description": "low (0.5), high (2.0) or a number, in standing-human heights",
        }
    ),
]
Block = Annotated[
    dict[str, Any] | None,
    Field(description="a stat block, validated by the ruleset's Stats model; null = not written yet"),
]
ProfileBlocks = dict[RulesetName, Block]
Text = Annotated[str, Strict(), Field(max_length=20_000), AfterValidator(_printable_text)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScaleModel(_Model):
    """``scale:`` how rule distances map to inches."""

    yards_per_inch: Positive = Field(1.0, description="yards of rule distance per inch of table")


MapSide = Annotated[float, Strict(), Field(allow_inf_nan=False, ge=MIN_MAP_SIZE, le=MAX_MAP_SIZE)]


class MapModel(_Model):
    """``map:`` the table, x east from 0 to width, y south from 0 to height."""

    width: MapSide = Field(description="inches, x from 0 (west) to width (east)")
    height: MapSide = Field(description="inches, y from 0 (north) to height (south)")
    cell: Annotated[float, Strict(), Field(allow_inf_nan=False, ge=MIN_CELL, le=MAX_MAP_SIZE)] = Field(
        1.0, description="grid cell drawn on screen, inches; at most the map's longer side"
    )

    @field_validator("cell")
    @classmethod
    def _cell_fits(cls, value: float, info: ValidationInfo) -> float:
        sides = [info.data[k] for k in ("width", "height") if k in info.data]
        if sides and value > max(sides):
            raise PydanticCustomError(
                "cell_size", f"expected a cell at most the map's longer side ({max(sides):g}), got {value:g}"
            )
        return value


class ObstacleModel(_Model):
    """One obstacle: a simple polygon with a height."""

    id: Ident
    polygon: Annotated[list[Point], Field(min_length=3, max_length=10_000)] = Field(
        description="outline [[x, y], ...], at least 3 points, simple (no self-crossing)"
    )
    height: Height
    size: Positive = Field(1.0, description="compared with a unit's size for the 'hidden' rule")


class UnitModel(_Model):
    """One unit on the table."""

    id: Ident
    side: Ident = Field(description="units with the same side are friends")
    at: Point = Field(description="centre of the base, inches")
    facing: Number = Field(0.0, description="degrees, 0 = east, 90 = south; normalized to [0, 360)")
    posture: Posture = Posture.STANDING
    profile: Ident | None = Field(None, description="profile name; default: the ruleset's standard trooper")
    base: Positive = Field(0.5, description="base radius, inches")
    size: Positive = Field(1.0, description="size scale, 1 = a human")


class ScenarioFile(_Model):
    """A skirmish scenario file (DESIGN §2 plus the documented extensions)."""

    model_config = ConfigDict(extra="forbid", title="skirmish scenario")

    name: Annotated[str, Strict(), Field(min_length=1, max_length=200), AfterValidator(_one_line)] | None = (
        Field(None, description="title; default: the file name without extension")
    )
    description: Text = Field("", description="briefing text shown to players")
    ruleset: RulesetName | None = Field(None, description="rule system; the --ruleset option overrides it")
    scale: ScaleModel = Field(default_factory=lambda: ScaleModel.model_validate({}))
    map: MapModel
    rounds: Annotated[int, Strict(), Field(ge=1, le=MAX_ROUNDS)] = Field(
        DEFAULT_ROUNDS, description="round limit; the battle is a draw when it is reached"
    )
    obstacles: list[ObstacleModel] = Field(default_factory=list)
    units: list[UnitModel]
    profiles: dict[Ident, ProfileBlocks | None] = Field(
        default_factory=dict, description="profile -> ruleset -> stat block; merged over profiles.yaml"
    )
    options: dict[RulesetName, dict[str, Any]] = Field(
        default_factory=dict, description="ruleset -> option -> value, validated by the ruleset's Options"
    )
    controllers: dict[Ident, Ident] = Field(
        default_factory=dict, description=f"side -> AI policy name (default {DEFAULT_CONTROLLER!r})"
    )


def scenario_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a scenario file, from the pydantic models."""
    schema = ScenarioFile.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
