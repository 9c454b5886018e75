"""Load and validate scenario files into frozen :class:`~components.specs.ScenarioSpec` values.

Contract (DESIGN §2; the user-facing reference is ``docs/scenario-format.md``):

- :func:`load_scenario` / :func:`load_scenario_text` read one YAML scenario and
  return a :class:`ScenarioSpec`, or raise :class:`~game.core.errors.ScenarioError`
  carrying *every* problem found, each located as ``file:line``, a dotted key path
  (``units.2.at``, indexes from 0) and a message saying what was expected. Bad
  bytes, empty files, YAML syntax errors, duplicate keys and tags are problems
  too; nothing a user writes can cause a traceback or build a Python object.
- Validation is strict: pydantic v2 models with ``extra="forbid"`` check the
  shape (:func:`scenario_schema` is their JSON Schema); then the semantic checks
  run over every well-formed part: unique ids, simple polygons, bases inside the
  map and clear of each other and of obstacles, at least two sides, known
  profiles with a valid stat block for the ruleset, ruleset options, controllers.
- Profiles: ``scenarios/profiles.yaml`` (or ``profiles_path``) merged with the
  scenario's own ``profiles:`` block by block (the scenario's block for a
  (profile, ruleset) pair wins). Blocks are validated by the ruleset's ``Stats``
  model; problems in the profiles file name that file and line.
- The spec holds plain data only (dicts, lists, tuples, floats, str): the
  sha256 of the file bytes, the source path, sides in order of first appearance,
  facings normalized to [0, 360), named heights turned into numbers, and the
  merged raw profile blocks (null blocks, meaning "not written yet", dropped).
"""

from __future__ import annotations

import copy
import difflib
import functools
import hashlib
import os
import re
import types
import typing
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import shapely
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError
from shapely.validation import explain_validity

from components.spatial import Posture, normalize_degrees
from components.specs import ScenarioSpec, UnitSpec
from components.terrain import HEIGHT_NAMES, ObstacleSpec
from game.core.errors import Problem, ScenarioError, UnknownName
from game.rules import REGISTRY, RULESET_NAMES, ruleset_class
from game.rules.base import Ruleset, StrictModel
from game.scenario.yaml_source import KeyPath, YamlDoc, format_path, parse_yaml

__all__ = [
    "DEFAULT_CONTROLLER",
    "DEFAULT_PROFILE",
    "DEFAULT_PROFILES_PATH",
    "DEFAULT_ROUNDS",
    "MAX_MAGNITUDE",
    "MAX_ROUNDS",
    "ScenarioFile",
    "available_ruleset",
    "check_profiles",
    "load_scenario",
    "load_scenario_text",
    "resolve_stats",
    "scenario_schema",
]

#: The shared archetype stat blocks shipped with the project.
DEFAULT_PROFILES_PATH = Path(__file__).resolve().parents[2] / "scenarios" / "profiles.yaml"
#: Profile a unit without ``profile:`` uses, if the merged profiles have it for the ruleset.
DEFAULT_PROFILE = "trooper"
#: AI policy of a side the scenario's ``controllers:`` does not name.
DEFAULT_CONTROLLER = "random"
DEFAULT_ROUNDS = 20
MAX_ROUNDS = 1000
#: Largest magnitude accepted for any coordinate or length, in inches. Real tables are
#: under 100"; anything near this is a typo (or an attempt to break the geometry).
MAX_MAGNITUDE = 1e6
#: Slack for "touching is fine" comparisons (bases touching each other or a wall).
EPS = 1e-9


# ---------------------------------------------------------------------------------
# Field types
# ---------------------------------------------------------------------------------


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
Ident = Annotated[
    str, Strict(), Field(min_length=1, max_length=64, pattern=r"^\S+$", description="text without spaces")
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
Text = Annotated[str, Strict(), Field(max_length=20_000)]


# ---------------------------------------------------------------------------------
# Models (the JSON Schema comes from these)
# ---------------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScaleModel(_Model):
    """``scale:`` how rule distances map to inches."""

    yards_per_inch: Positive = Field(1.0, description="yards of rule distance per inch of table")


class MapModel(_Model):
    """``map:`` the table, x east from 0 to width, y south from 0 to height."""

    width: Positive = Field(description="inches, x from 0 (west) to width (east)")
    height: Positive = Field(description="inches, y from 0 (north) to height (south)")
    cell: Positive = Field(1.0, description="grid cell drawn on screen, inches")


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

    name: Annotated[str, Strict(), Field(min_length=1, max_length=200)] | None = Field(
        None, description="title; default: the file name without extension"
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


#: Shape of a profiles file: profile -> ruleset -> block.
_PROFILES_TYPE: Any = dict[Ident, ProfileBlocks | None]
_PROFILES_ADAPTER: TypeAdapter[Any] = TypeAdapter(_PROFILES_TYPE)


def scenario_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a scenario file, from the pydantic models."""
    schema = ScenarioFile.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


# ---------------------------------------------------------------------------------
# Pydantic errors -> located problems
# ---------------------------------------------------------------------------------


def _unwrap(tp: Any) -> Any:
    """Strip Annotated and Optional/Union (keeping the first model-like member)."""
    while True:
        origin = typing.get_origin(tp)
        if origin is Annotated:
            tp = typing.get_args(tp)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            tp = next((a for a in args if _model_class(a) is not None), args[0])
        else:
            return tp


def _model_class(tp: Any) -> type[BaseModel] | None:
    tp = _unwrap(tp) if typing.get_origin(tp) is Annotated else tp
    return tp if isinstance(tp, type) and issubclass(tp, BaseModel) else None


def _model_at(root: Any, loc: Sequence[str | int]) -> type[BaseModel] | None:
    """The pydantic model describing the value at ``loc`` under ``root`` (None if not a model)."""
    tp = root
    for part in loc:
        tp = _unwrap(tp)
        model = _model_class(tp)
        if model is not None:
            fld = model.model_fields.get(str(part))
            if fld is None:
                return None
            tp = fld.annotation
            continue
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin in (list, tuple) and args:
            tp = args[0]
        elif origin is dict and len(args) == 2:
            tp = args[1]
        else:
            return None
    return _model_class(_unwrap(tp))


def _shown(value: Any) -> str:
    """A short description of a bad input for messages."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list | tuple):
        return f"a list of {len(value)}"
    if value is None:
        return "null (nothing)"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _fmt_num(x: Any) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def _message(err: Any, root: Any, rel_loc: Sequence[str | int], path: KeyPath) -> str:
    """An 'expected ...' message for one pydantic error."""
    kind, ctx, got = err["type"], err.get("ctx") or {}, err.get("input")
    if kind == "missing":
        return f"missing required key {rel_loc[-1]!r}"
    if kind == "extra_forbidden":
        key = str(rel_loc[-1])
        model = _model_at(root, rel_loc[:-1])
        if model is None:
            return f"unknown key {key!r}"
        allowed = [f.alias or n for n, f in model.model_fields.items()]
        close = difflib.get_close_matches(key, allowed, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"unknown key {key!r}{hint}; expected one of: {', '.join(allowed)}"
    point = bool(path) and (path[-1] == "at" or (len(path) >= 2 and path[-2] == "polygon"))
    expected = {
        "float_type": "a number",
        "int_type": "a whole number",
        "string_type": "text",
        "bool_type": "true or false",
        "dict_type": "a mapping (key: value)",
        "model_type": "a mapping (key: value)",
        "model_attributes_type": "a mapping (key: value)",
        "list_type": "a point [x, y]" if point else "a list",
        "finite_number": "a finite number",
        "greater_than": f"a number > {_fmt_num(ctx.get('gt'))}",
        "greater_than_equal": f"a number >= {_fmt_num(ctx.get('ge'))}",
        "less_than": f"a number < {_fmt_num(ctx.get('lt'))}",
        "less_than_equal": f"a number <= {_fmt_num(ctx.get('le'))}",
        "string_too_short": "non-empty text",
        "string_too_long": f"text of at most {ctx.get('max_length')} characters",
        "string_pattern_mismatch": "a name without spaces",
        "enum": f"one of {ctx.get('expected')}",
        "literal_error": f"one of {ctx.get('expected')}",
    }.get(kind)
    if kind in ("too_short", "too_long"):
        if point:
            return f"expected a point [x, y] (2 numbers), got {ctx.get('actual_length')} numbers"
        bound = "at least" if kind == "too_short" else "at most"
        limit = ctx.get("min_length") if kind == "too_short" else ctx.get("max_length")
        return f"expected {bound} {limit} items, got {ctx.get('actual_length')}"
    if expected is None:
        msg = str(err["msg"])
        for prefix in ("Value error, ", "Assertion failed, "):
            msg = msg.removeprefix(prefix)
        if msg.startswith("expected"):
            return msg  # our own custom errors and well-written ruleset validators
        if msg.startswith("Input should be "):
            expected = msg.removeprefix("Input should be ")
        else:
            return f"{msg}, got {_shown(got)}" if kind != "value_error" else msg
    if (
        kind in ("less_than_equal", "greater_than_equal")
        and abs(float(ctx.get("le", ctx.get("ge", 0)))) >= 1e6
    ):
        expected += " (huge numbers are rejected)"
    return f"expected {expected}, got {_shown(got)}"


def _data_path(data: Any, loc: Sequence[str | int], keep_last: bool) -> KeyPath:
    """The part of ``loc`` that names real keys/items in ``data``.

    Pydantic locations may carry union member tags or ``[key]`` markers; those are
    not in the data, so the shown path stops at the last real key. ``keep_last``
    keeps a final missing key (for "missing required key").
    """
    out: list[str | int] = []
    cur = data
    for i, part in enumerate(loc):
        in_dict = isinstance(cur, dict) and isinstance(part, str) and part in cur
        in_list = isinstance(cur, list) and isinstance(part, int) and 0 <= part < len(cur)
        if in_dict or in_list:
            cur = cur[part]
        else:
            if keep_last and i == len(loc) - 1 and isinstance(cur, dict):
                out.append(part)
            break
        out.append(part)
    return tuple(out)


def _validation_problems(doc: YamlDoc, error: ValidationError, prefix: KeyPath, root: Any) -> list[Problem]:
    """Located problems for a pydantic error raised on the value at ``prefix`` in ``doc``.

    Args:
        doc: the file the value came from.
        error: the validation error.
        prefix: key path of the validated value inside ``doc.data``.
        root: the model/type that was validated (used to list allowed keys).
    """
    by_path: dict[KeyPath, list[str]] = {}
    lines: dict[KeyPath, int] = {}
    for err in error.errors():
        rel = tuple(err["loc"])
        full = _data_path(doc.data, (*prefix, *rel), keep_last=err["type"] == "missing")
        if doc.was_reported(full):
            continue  # already reported while parsing (e.g. a forbidden tag)
        message = _message(err, root, rel, full)
        messages = by_path.setdefault(full, [])
        if message not in messages:
            messages.append(message)
        lines[full] = doc.line(full)
    problems = []
    for full, messages in by_path.items():
        # Several messages for one path come from a union: any one alternative would do.
        problems.append(Problem(doc.source, lines[full], format_path(full), "; or ".join(messages)))
    return problems


# ---------------------------------------------------------------------------------
# Rulesets
# ---------------------------------------------------------------------------------


def available_ruleset(name: str) -> type[Ruleset] | None:
    """The ruleset class for ``name``, or None if its module/class is not installed yet.

    Only a *missing* module or class counts as "not available"; a module that fails
    for another reason (a bug) raises, so it is never silently skipped.
    """
    module = REGISTRY[name].partition(":")[0]
    try:
        return ruleset_class(name)
    except ModuleNotFoundError as e:
        if e.name == module:
            return None
        raise
    except AttributeError:
        return None


# ---------------------------------------------------------------------------------
# Profiles
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Block:
    """One (profile, ruleset) stat block and where it was written."""

    block: Any
    doc: YamlDoc
    path: KeyPath  # inside doc.data


_Profiles = dict[str, dict[str, _Block]]


def _display_source(path: Path) -> str:
    """``path`` relative to the working directory when it is below it (shorter messages)."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return rel if not rel.startswith("..") else str(path)


#: Parsed profiles files by (source, sha256 of bytes). Parsing the shared file is most of
#: the cost of a load (pure-Python YAML); batch runs and tests load many scenarios.
_SHARED_DOCS: dict[tuple[str, str], YamlDoc] = {}
_SHARED_DOCS_MAX = 8


def _parse_shared(raw: bytes, source: str) -> YamlDoc:
    """``parse_yaml`` with a small cache; callers must not mutate the returned doc."""
    key = (source, hashlib.sha256(raw).hexdigest())
    doc = _SHARED_DOCS.get(key)
    if doc is None:
        if len(_SHARED_DOCS) >= _SHARED_DOCS_MAX:
            _SHARED_DOCS.clear()
        doc = _SHARED_DOCS[key] = parse_yaml(raw, source)
    return doc


def _read_profiles(path: Path | None) -> tuple[YamlDoc | None, _Profiles, list[Problem]]:
    """Parse and shape-check a profiles file.

    ``path`` None means the default file, which may be absent (an installation
    without the shared file simply has no shared profiles); an explicit path that
    cannot be read is a problem.
    """
    explicit = path is not None
    path = DEFAULT_PROFILES_PATH if path is None else path
    source = _display_source(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        if not explicit and isinstance(e, FileNotFoundError):
            return None, {}, []
        return None, {}, [Problem(source, 0, "", f"cannot read profiles file: {e.strerror or e}")]
    doc = _parse_shared(raw, source)
    problems = list(doc.problems)
    if doc.data is None:
        return doc, {}, problems
    if not isinstance(doc.data, dict):
        problems.append(
            doc.problem((), f"expected a mapping: profile -> ruleset -> stat block, got {_shown(doc.data)}")
        )
        return doc, {}, problems
    try:
        _PROFILES_ADAPTER.validate_python(doc.data)
    except ValidationError as e:
        problems += _validation_problems(doc, e, (), _PROFILES_TYPE)
    return doc, _collect_blocks(doc, doc.data, ()), problems


def _collect_blocks(doc: YamlDoc, profiles: Any, prefix: KeyPath) -> _Profiles:
    """Well-formed blocks of a ``profile -> ruleset -> block`` mapping (others were reported)."""
    out: _Profiles = {}
    if not isinstance(profiles, dict):
        return out
    for name, per in profiles.items():
        if not isinstance(per, dict):
            continue
        for rs, block in per.items():
            if rs in RULESET_NAMES and (block is None or isinstance(block, dict)):
                out.setdefault(name, {})[rs] = _Block(block, doc, (*prefix, name, rs))
    return out


def _validate_blocks(
    profiles: _Profiles, rulesets: Iterable[str], only: Callable[[_Block], bool] = lambda b: True
) -> list[Problem]:
    """Validate every written block of ``rulesets`` with that ruleset's Stats model."""
    problems: list[Problem] = []
    for rs in rulesets:
        cls = available_ruleset(rs)
        if cls is None:
            continue
        for per in profiles.values():
            entry = per.get(rs)
            if entry is None or entry.block is None or not only(entry):
                continue
            try:
                cls.parse_stats(entry.block)
            except ValidationError as e:
                problems += _validation_problems(entry.doc, e, entry.path, cls.Stats)
            except _RULESET_BUGS as e:
                problems.append(entry.doc.problem(entry.path, _ruleset_bug(rs, e)))
    return problems


#: What a ruleset's own validator might raise on odd input instead of a ValueError.
#: Reported as a located problem (naming the ruleset) rather than a traceback.
_RULESET_BUGS = (TypeError, KeyError, IndexError, AttributeError, ArithmeticError)


def _ruleset_bug(ruleset: str, error: Exception) -> str:
    return (
        f"expected a block the {ruleset} ruleset can read; its validator failed with "
        f"{type(error).__name__}: {error} (a bug in game/rules, please report it)"
    )


def check_profiles(profiles_path: Path | None = None, rulesets: Iterable[str] | None = None) -> int:
    """Validate a profiles file on its own; return the number of profiles.

    Args:
        profiles_path: the file (default: ``scenarios/profiles.yaml``).
        rulesets: rulesets every profile must have a valid block for (and which must
            be installed). None checks the blocks that are written, for every
            installed ruleset, and lets a profile leave a ruleset out (null).

    Raises:
        ScenarioError: with every problem, located in the profiles file.
    """
    doc, profiles, problems = _read_profiles(
        DEFAULT_PROFILES_PATH if profiles_path is None else profiles_path
    )
    required = list(dict.fromkeys(rulesets)) if rulesets is not None else []
    problems += _validate_blocks(profiles, required or RULESET_NAMES)
    if doc is not None and isinstance(doc.data, dict):
        problems += _unavailable(doc, (), required)
        for name, per in doc.data.items():
            for rs in required:
                entry = profiles.get(name, {}).get(rs)
                if isinstance(per, dict | None) and (entry is None or entry.block is None):
                    problems.append(
                        doc.problem((name,), f"expected a stat block for ruleset {rs!r}, got none")
                    )
    if problems:
        raise ScenarioError(_ordered(problems))
    return len(doc.data) if doc is not None and isinstance(doc.data, dict) else 0


def _unavailable(doc: YamlDoc, path: KeyPath, rulesets: Iterable[str]) -> list[Problem]:
    out = []
    for rs in rulesets:
        if available_ruleset(rs) is None:
            module = REGISTRY[rs].partition(":")[0]
            out.append(
                doc.problem(path, f"ruleset {rs!r} is not available yet (module {module} is not installed)")
            )
    return out


def resolve_stats(spec: ScenarioSpec, unit: UnitSpec, ruleset: str | None = None) -> StrictModel:
    """The validated stat block of ``unit`` under ``ruleset`` (default: the scenario's).

    A unit without a profile gets the ``trooper`` block if the scenario's merged
    profiles have one for the ruleset, else the ruleset's ``default_stats()``.

    Raises:
        UnknownName: the profile has no block for the ruleset (a spec loaded with
            that ruleset, or checked with it, never does).
    """
    rs = ruleset or spec.ruleset
    cls = ruleset_class(rs)
    name = unit.profile or DEFAULT_PROFILE
    block = spec.profiles.get(name, {}).get(rs)
    if block is None:
        if unit.profile is None:
            return cls.default_stats()
        raise UnknownName(f"profile {name!r} has no stat block for ruleset {rs!r}")
    return cls.parse_stats(block)


# ---------------------------------------------------------------------------------
# The loader
# ---------------------------------------------------------------------------------


def load_scenario(
    path: str | os.PathLike[str],
    ruleset: str | None = None,
    profiles_path: Path | None = None,
    *,
    check_rulesets: Iterable[str] = (),
    policies: Collection[str] | None = None,
) -> ScenarioSpec:
    """Load and validate a scenario file.

    Args:
        path: the YAML file.
        ruleset: overrides the file's ``ruleset:`` (the CLI's ``--ruleset``).
        profiles_path: shared profiles file (default ``scenarios/profiles.yaml``).
        check_rulesets: further rulesets under which every unit's profile must have
            a valid block (``skirmish check --all-rulesets``).
        policies: AI policy names ``controllers:`` may use (the CLI passes
            ``game.ai.policy_names()``; this module sits below ``game.ai`` and does not
            import it). None skips that check.

    Returns:
        The validated, frozen scenario.

    Raises:
        ScenarioError: with every problem found, each located by file:line and key path.
        UnknownName: ``ruleset`` (the argument) is not a ruleset name.
    """
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise ScenarioError([Problem(source, 0, "", "no such file")]) from None
    except IsADirectoryError:
        raise ScenarioError([Problem(source, 0, "", "is a directory, expected a scenario file")]) from None
    except OSError as e:
        raise ScenarioError([Problem(source, 0, "", f"cannot read: {e.strerror or e}")]) from None
    return load_scenario_text(
        data,
        source,
        ruleset=ruleset,
        profiles_path=profiles_path,
        check_rulesets=check_rulesets,
        policies=policies,
    )


def load_scenario_text(
    text: str | bytes,
    source: str = "<memory>",
    ruleset: str | None = None,
    profiles_path: Path | None = None,
    *,
    check_rulesets: Iterable[str] = (),
    policies: Collection[str] | None = None,
) -> ScenarioSpec:
    """Validate scenario YAML given as text or bytes; see :func:`load_scenario`.

    ``source`` names the file in problems and in the spec; ``sha256`` is taken over
    the bytes (text is encoded as UTF-8 first).
    """
    if ruleset is not None and ruleset not in RULESET_NAMES:
        raise UnknownName(f"unknown ruleset {ruleset!r}; choose one of {', '.join(RULESET_NAMES)}")
    raw = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    doc = parse_yaml(raw, source)
    checker = _Checker(doc, ruleset, profiles_path, tuple(check_rulesets), policies)
    spec = checker.run(hashlib.sha256(raw).hexdigest())
    if checker.problems or spec is None:
        raise ScenarioError(_ordered(checker.problems))
    return spec


def _ordered(problems: list[Problem]) -> list[Problem]:
    """Problems by file (in order of first mention), then line; duplicates dropped."""
    first: dict[str, int] = {}
    for p in problems:
        first.setdefault(p.source, len(first))
    unique = list(dict.fromkeys(problems))
    return sorted(unique, key=lambda p: (first[p.source], p.line))


@functools.cache
def _field_adapter(model: type[BaseModel], name: str) -> TypeAdapter[Any]:
    """A validator for one field of ``model`` (its type with all its constraints)."""
    info = model.model_fields[name]
    tp: Any = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
    return TypeAdapter(tp)


def _partial(model: type[BaseModel], item: Any, required: Sequence[str]) -> Any:
    """``model`` built from the fields of ``item`` that are valid on their own.

    Invalid optional fields take their defaults. Returns None when ``item`` is not a
    mapping or one of ``required`` is missing or invalid. Why: a unit with a bad
    posture should still be checked for overlapping its neighbours, so one run
    reports both mistakes (the bad posture itself is reported by the shape check).
    """
    if not isinstance(item, dict):
        return None
    values: dict[str, Any] = {}
    for name in model.model_fields:
        if name not in item:
            continue
        try:
            values[name] = _field_adapter(model, name).validate_python(item[name])
        except ValidationError:
            continue
    if any(name not in values for name in required):
        return None
    return model.model_construct(**values)


class _Checker:
    """Runs the shape and semantic checks of one scenario, collecting problems."""

    def __init__(
        self,
        doc: YamlDoc,
        ruleset: str | None,
        profiles_path: Path | None,
        also: tuple[str, ...],
        policies: Collection[str] | None,
    ) -> None:
        self.doc = doc
        self.ruleset_override = ruleset
        self.profiles_path = profiles_path
        self.also = also
        self.policies = policies
        self.problems: list[Problem] = list(doc.problems)

    def add(self, path: KeyPath, message: str) -> None:
        self.problems.append(self.doc.problem(path, message))

    def run(self, sha256: str) -> ScenarioSpec | None:
        data = self.doc.data
        if data is None:
            return None
        if not isinstance(data, dict):
            self.add((), f"expected a mapping of scenario keys (name, map, units, ...), got {_shown(data)}")
            return None
        try:
            ScenarioFile.model_validate(data)
        except ValidationError as e:
            self.problems += _validation_problems(self.doc, e, (), ScenarioFile)

        # Semantic checks run over every well-formed part, so one run reports
        # both shape mistakes and, say, overlapping units elsewhere in the file.
        mapm: MapModel | None = _partial(MapModel, data.get("map"), ("width", "height"))
        units = self._items("units", UnitModel, ("id", "at"))
        obstacles = self._items("obstacles", ObstacleModel, ("id", "polygon"))
        ruleset = self._ruleset(data)
        self._unique_ids(data)
        polygons = self._polygons(obstacles, mapm)
        self._placement(units, polygons, mapm)
        sides = self._sides(data)
        self._controllers(data, sides)
        profiles = self._profiles(data, units, ruleset)
        self._options(data)
        if self.problems or mapm is None or ruleset is None:
            return None

        scale = ScaleModel.model_validate(data.get("scale", {}))
        name = data.get("name") or (
            Path(self.doc.source).stem if self.doc.source != "<memory>" else "scenario"
        )
        controllers = {side: DEFAULT_CONTROLLER for side in sides}
        controllers.update(data.get("controllers") or {})
        return ScenarioSpec(
            name=name,
            ruleset=ruleset,
            width=mapm.width,
            height=mapm.height,
            cell=mapm.cell,
            yards_per_inch=scale.yards_per_inch,
            round_limit=data.get("rounds", DEFAULT_ROUNDS),
            obstacles=tuple(
                ObstacleSpec(o.id, _ring(o.polygon), float(o.height), float(o.size)) for _, o in obstacles
            ),
            units=tuple(
                UnitSpec(
                    id=u.id,
                    side=u.side,
                    at=(float(u.at[0]), float(u.at[1])),
                    facing=normalize_degrees(u.facing),
                    posture=Posture(u.posture),
                    profile=u.profile,
                    base=float(u.base),
                    size=float(u.size),
                    line=self.doc.line(("units", i)),
                )
                for i, u in units
            ),
            profiles={
                # Deep copies: the shared file's parsed data is cached and must not be
                # changed through a spec.
                name: {rs: copy.deepcopy(b.block) for rs, b in per.items() if b.block is not None}
                for name, per in profiles.items()
            },
            options={k: copy.deepcopy(v) for k, v in (data.get("options") or {}).items()},
            sides=tuple(sides),
            controllers=controllers,
            source=self.doc.source,
            sha256=sha256,
            description=str(data.get("description") or ""),
        )

    # ---- pieces ------------------------------------------------------------------

    def _items(self, key: str, model: type[BaseModel], required: Sequence[str]) -> list[tuple[int, Any]]:
        """(index, partial model) for the items of the list under ``key`` that have ``required``."""
        items = self.doc.data.get(key)
        if not isinstance(items, list):
            return []
        out = []
        for i, item in enumerate(items):
            m = _partial(model, item, required)
            if m is not None:
                out.append((i, m))
        return out

    def _ruleset(self, data: dict[str, Any]) -> str | None:
        rs = self.ruleset_override or data.get("ruleset")
        if rs is None:
            self.add(
                ("ruleset",),
                "missing required key 'ruleset' (or give --ruleset): one of " + ", ".join(RULESET_NAMES),
            )
            return None
        if rs not in RULESET_NAMES:
            return None  # reported by the shape check
        self.problems += _unavailable(self.doc, ("ruleset",), dict.fromkeys((rs, *self.also)))
        return str(rs)

    def _unique_ids(self, data: dict[str, Any]) -> None:
        # One namespace for units and obstacles: both appear by id in sight output
        # ("intervening", "hidden by") and events, where a shared id is ambiguous.
        seen: dict[str, KeyPath] = {}
        for key in ("obstacles", "units"):
            items = data.get(key)
            if not isinstance(items, list):
                continue
            for i, item in enumerate(items):
                uid = item.get("id") if isinstance(item, dict) else None
                if not isinstance(uid, str):
                    continue
                if uid in seen:
                    first = seen[uid]
                    what = "unit" if first[0] == "units" else "obstacle"
                    self.add(
                        (key, i, "id"),
                        f"expected a unique id, got {uid!r} again "
                        f"(already the {what} {format_path(first[:2])}, line {self.doc.line(first)})",
                    )
                else:
                    seen[uid] = (key, i, "id")

    def _polygons(
        self, obstacles: list[tuple[int, ObstacleModel]], mapm: MapModel | None
    ) -> list[tuple[int, ObstacleModel, Any]]:
        """Shapely polygons of the obstacles whose outline is a valid simple polygon."""
        out = []
        table = shapely.box(0, 0, mapm.width, mapm.height) if mapm is not None else None
        for i, o in obstacles:
            path = ("obstacles", i, "polygon")
            ring = _ring(o.polygon)
            # Zero area first: shapely calls a collinear outline "self-intersecting",
            # which would hide the real mistake.
            if len(ring) < 3 or shapely.MultiPoint(ring).convex_hull.area <= EPS:
                self.add(path, "expected a polygon with non-zero area, got points on one line")
                continue
            poly = shapely.Polygon(ring)
            if not poly.is_valid:
                self.add(path, f"expected a simple polygon (edges must not cross or touch), got {_why(poly)}")
                continue
            if table is not None and not poly.intersects(table):
                self.add(
                    path,
                    f"expected the obstacle on the map (0..{_fmt_num(mapm.width)} × "  # type: ignore[union-attr]
                    f"0..{_fmt_num(mapm.height)}), it lies entirely outside",  # type: ignore[union-attr]
                )
            out.append((i, o, poly))
        return out

    def _placement(
        self,
        units: list[tuple[int, UnitModel]],
        polygons: list[tuple[int, ObstacleModel, Any]],
        mapm: MapModel | None,
    ) -> None:
        """Bases inside the map, clear of each other and of every obstacle."""
        if not units:
            return
        xy = np.array([u.at for _, u in units], dtype=float)
        r = np.array([u.base for _, u in units], dtype=float)
        if mapm is not None:
            for k, (i, u) in enumerate(units):
                x, y = xy[k]
                if (
                    x - r[k] < -EPS
                    or y - r[k] < -EPS
                    or x + r[k] > mapm.width + EPS
                    or y + r[k] > mapm.height + EPS
                ):
                    self.add(
                        ("units", i, "at"),
                        f"expected the base (radius {_fmt_num(u.base)}) inside the map "
                        f"0..{_fmt_num(mapm.width)} × 0..{_fmt_num(mapm.height)}, "
                        f"got centre [{_fmt_num(x)}, {_fmt_num(y)}]",
                    )
        # Unit-unit: all pairs at once (scenarios hold tens of units, not thousands).
        gap = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1]) - (
            r[:, None] + r[None, :]
        )
        for a, b in zip(*np.nonzero(np.triu(gap < -EPS, k=1))):
            (ia, ua), (ib, ub) = units[a], units[b]
            self.add(
                ("units", ib, "at"),
                f"expected bases not to overlap, but {ub.id!r} overlaps unit {ua.id!r} "
                f"(line {self.doc.line(('units', ia))}) by {_fmt_num(round(-float(gap[a, b]), 3))} in",
            )
        if not polygons:
            return
        # Unit-obstacle: STRtree broad phase, exact distance to the polygon after.
        tree = shapely.STRtree([p for _, _, p in polygons])
        points = shapely.points(xy)
        hits = tree.query(points, predicate="dwithin", distance=float(r.max()))
        for k, j in zip(*hits):
            dist = float(shapely.distance(points[k], polygons[j][2]))
            if dist < r[k] - EPS:
                i, u = units[k]
                oi, o, _ = polygons[j]
                where = "is inside" if polygons[j][2].contains(points[k]) else "overlaps"
                self.add(
                    ("units", i, "at"),
                    f"expected the base clear of obstacles, but {u.id!r} {where} obstacle {o.id!r} "
                    f"(line {self.doc.line(('obstacles', oi))})",
                )

    def _sides(self, data: dict[str, Any]) -> list[str]:
        """Side names in order of first appearance; at least two are required."""
        items = data.get("units")
        sides: list[str] = []
        if not isinstance(items, list):
            return sides
        unreadable = False
        for item in items:
            side = item.get("side") if isinstance(item, dict) else None
            if not isinstance(side, str):
                unreadable = True  # already reported; counting sides now would only add noise
            elif side not in sides:
                sides.append(side)
        if not items:
            self.add(("units",), "expected units on at least 2 sides, got no units")
        elif len(sides) < 2 and not unreadable:
            self.add(("units",), f"expected units on at least 2 sides, got only side {sides[0]!r}")
        return sides

    def _controllers(self, data: dict[str, Any], sides: list[str]) -> None:
        controllers = data.get("controllers")
        if not isinstance(controllers, dict):
            return
        for side, policy in controllers.items():
            if isinstance(side, str) and sides and side not in sides:
                self.add(
                    ("controllers", side),
                    f"expected a side that has units ({', '.join(sides)}), got {side!r}",
                )
            elif self.policies is not None and isinstance(policy, str) and policy not in self.policies:
                self.add(
                    ("controllers", side),
                    f"expected an AI policy ({', '.join(sorted(self.policies))}), got {policy!r}",
                )

    def _profiles(
        self, data: dict[str, Any], units: list[tuple[int, UnitModel]], ruleset: str | None
    ) -> _Profiles:
        """Merge profiles, validate the blocks in use and every unit's profile reference."""
        _, merged, problems = _read_profiles(self.profiles_path)
        self.problems += problems
        own = _collect_blocks(self.doc, data.get("profiles"), ("profiles",))
        for name, own_blocks in own.items():
            merged.setdefault(name, {}).update(own_blocks)
        rulesets = list(dict.fromkeys([*([ruleset] if ruleset else []), *self.also]))
        # The scenario's own blocks are checked under every installed ruleset (its
        # author wants to hear about a broken cortex block while testing with gurps);
        # shared blocks only for the rulesets in play, so a half-written profiles.yaml
        # block of another ruleset does not fail every scenario.
        self.problems += _validate_blocks(own, RULESET_NAMES)
        self.problems += _validate_blocks(merged, rulesets, only=lambda b: b.doc is not self.doc)
        for i, u in units:
            name = u.profile or DEFAULT_PROFILE
            per = merged.get(name)
            if u.profile is not None and per is None:
                known = sorted(merged)
                close = difflib.get_close_matches(name, known, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                self.add(
                    ("units", i, "profile"),
                    f"expected a known profile ({', '.join(known) or 'none defined'}), got {name!r}{hint}",
                )
                continue
            for rs in rulesets:
                entry = (per or {}).get(rs)
                if entry is not None and entry.block is not None:
                    continue
                if u.profile is None:
                    # No trooper block: the ruleset's built-in standard trooper is used.
                    continue
                self.add(
                    ("units", i, "profile"),
                    f"expected profile {name!r} to have a stat block for ruleset {rs!r}; "
                    f"add profiles.{name}.{rs} to the scenario or to profiles.yaml",
                )
        return merged

    def _options(self, data: dict[str, Any]) -> None:
        options = data.get("options")
        if not isinstance(options, dict):
            return
        for rs, block in options.items():
            if rs not in RULESET_NAMES or not isinstance(block, dict):
                continue  # reported by the shape check
            cls = available_ruleset(rs)
            if cls is None:
                continue  # validated once that ruleset is installed
            try:
                cls.Options.model_validate(block)
            except ValidationError as e:
                self.problems += _validation_problems(self.doc, e, ("options", rs), cls.Options)
            except _RULESET_BUGS as e:
                self.add(("options", rs), _ruleset_bug(rs, e))


def _why(poly: Any) -> str:
    """Shapely's reason a polygon is invalid, in words: "self-intersection at (11, 2)"."""
    why = explain_validity(poly)
    m = re.fullmatch(r"\s*(.*?)\s*\[\s*(\S+)\s+(\S+)\s*\]\s*", why)
    if m is None:
        return why.lower()
    return f"{m.group(1).lower()} at ({_fmt_num(float(m.group(2)))}, {_fmt_num(float(m.group(3)))})"


def _ring(points: Sequence[Sequence[float]]) -> tuple[tuple[float, float], ...]:
    """Outline as float tuples, without a repeated closing point."""
    ring = [(float(x), float(y)) for x, y in points]
    if len(ring) > 1 and ring[0] == ring[-1]:
        ring.pop()
    return tuple(ring)
