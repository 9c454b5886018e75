"""A ruleset's options: every rule number a designer may vary, typed, ranged and sourced.

Contract:
- An option is a field of a ruleset's ``Options`` model (a frozen pydantic model, unknown keys
  refused), declared with :func:`number` (an int or a float with a range and a unit),
  :func:`switch` (a mechanic that can be switched off, or a reading of the text) or
  :func:`choice` (one of named readings). Each carries its default (the rule text's value), a
  one-line description and its source: the rule text's file name and the section the number
  comes from (``"gurps-active-defense.txt: Retreating"``).
- :func:`describe` lists a model's options as data: ``name``, ``type``, ``default``, ``min``,
  ``max``, ``unit``, ``description``, ``source`` (``skirmish rulesets --json``; the option
  errors of the CLI and of scenario files list them).
- :func:`check` validates a mapping of option values for a ruleset; a bad one is a ``ValueError``
  of ONE line (:func:`option_problem`): the option, what it cannot be, its type, range and
  default, and the ruleset; an unknown name lists the valid names. The CLI's ``--option``
  (:func:`game.cli.params.ruleset_options`), the policies' options and the scenario's
  ``options:`` (located file:line) all word it so.
- In words for players (read from the model, so an option or bound added later is listed with
  no change here): :func:`type_text` (``true/false``, ``a whole number``, ``one of 10, 12``),
  :func:`bounds` (``at least 1``, ``at most 1024``), :func:`field_text` one option,
  :func:`options_text` a model's options, :func:`option_problem` a ``ValidationError`` as one
  line.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, Field, ValidationError
from pydantic.fields import FieldInfo


def number(
    default: float,
    *,
    ge: float | None = None,
    le: float | None = None,
    gt: float | None = None,
    unit: str = "",
    source: str,
    description: str,
) -> Any:
    """A numeric rule option (its Python type comes from the annotation: int or float)."""
    return Field(
        default,
        ge=ge,
        le=le,
        gt=gt,
        description=description,
        json_schema_extra={"unit": unit, "source": source},
    )


def switch(default: bool, *, source: str, description: str) -> Any:
    """A rule option that is on or off (a mechanic, or a reading of the text)."""
    return Field(default, description=description, json_schema_extra={"unit": "", "source": source})


def choice(default: str, *, source: str, description: str) -> Any:
    """A rule option naming one reading of the text (the annotation is a ``Literal``)."""
    return Field(default, description=description, json_schema_extra={"unit": "", "source": source})


def _type_name(annotation: Any) -> str:
    if get_origin(annotation) is Literal:
        return "one of " + "|".join(str(a) for a in get_args(annotation))
    return getattr(annotation, "__name__", str(annotation))


def _bound(field: Any, *names: str) -> float | None:
    for m in field.metadata:
        for name in names:
            got = getattr(m, name, None)
            if got is not None:
                return float(got) if not isinstance(got, int) else got
    return None


def describe(model: type[BaseModel]) -> list[dict[str, Any]]:
    """Every option of ``model`` as data (see the module docstring)."""
    out = []
    for name, f in model.model_fields.items():
        extra = f.json_schema_extra if isinstance(f.json_schema_extra, dict) else {}
        default = None if f.is_required() else f.get_default(call_default_factory=True)
        out.append(
            {
                "name": name,
                "type": _type_name(f.annotation),
                "default": default
                if isinstance(default, (int, float, str, bool, type(None)))
                else str(default),
                "min": _bound(f, "ge", "gt"),
                "max": _bound(f, "le", "lt"),
                "unit": str(extra.get("unit") or ""),
                "description": f.description or "",
                "source": str(extra.get("source") or ""),
            }
        )
    return out


def shown(option: Mapping[str, Any]) -> str:
    """One option in words: ``name (int 0..4 AP, default 2)``."""
    kind = option["type"]
    lo, hi = option.get("min"), option.get("max")
    span = ""
    if lo is not None or hi is not None:
        span = f" {'' if lo is None else f'{lo:g}'}..{'' if hi is None else f'{hi:g}'}"
    unit = f" {option['unit']}" if option.get("unit") else ""
    return f"{option['name']} ({kind}{span}{unit}, default {option['default']!r})"


def check(ruleset: str, model: type[BaseModel], values: Mapping[str, Any]) -> BaseModel:
    """``values`` validated as ``ruleset``'s options.

    Raises:
        ValueError: one line (:func:`option_problem`) naming the option, its type, range and
            default, and the ruleset; the valid names when the name is unknown.
    """
    try:
        return model.model_validate(dict(values))
    except ValidationError as e:
        raise ValueError(option_problem(f"ruleset {ruleset}", model, e)) from None


#: pydantic constraint attribute -> how it reads.
BOUNDS: tuple[tuple[str, str], ...] = (
    ("ge", "at least"),
    ("gt", "above"),
    ("le", "at most"),
    ("lt", "below"),
)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    return str(v)


def type_text(annotation: Any) -> str:
    """A type as a player reads it: ``true/false``, ``a whole number``, ``one of clear, dim``."""
    origin = get_origin(annotation)
    if origin is Literal:
        return "one of " + ", ".join(_value(a) for a in get_args(annotation))
    if origin in (Union, types.UnionType):
        parts = [type_text(a) for a in get_args(annotation) if a is not type(None)]
        none = type(None) in get_args(annotation)
        return " or ".join(parts) + (" or none" if none else "")
    names = {bool: "true/false", int: "a whole number", float: "a number", str: "text"}
    if annotation in names:
        return names[annotation]
    return getattr(annotation, "__name__", str(annotation))


def bounds(field: FieldInfo) -> list[str]:
    """The bounds a field declares (``at least 1``, ``at most 1024``), in that order."""
    out = []
    for meta in field.metadata:
        for attr, words in BOUNDS:
            v = getattr(meta, attr, None)
            if v is not None:
                out.append(f"{words} {_value(v)}")
    return out


def field_text(name: str, field: FieldInfo) -> str:
    """``budget (a whole number, at least 1, at most 1024; default 12): what it does``."""
    parts = [type_text(field.annotation), *bounds(field)]
    head = f"{name} ({', '.join(parts)}"
    if not field.is_required():
        head += f"; default {_value(field.get_default(call_default_factory=True))}"
    head += ")"
    return f"{head}: {field.description}" if field.description else head


def options_text(model: type[BaseModel]) -> list[str]:
    """Every option of ``model``, one line each (empty: it has none)."""
    return [field_text(name, f) for name, f in model.model_fields.items()]


def option_problem(owner: str, model: type[BaseModel], error: ValidationError) -> str:
    """One line for a bad option of ``owner`` (``ruleset ap-pool``, ``policy planner``): the
    option and what it cannot be, with its type, bounds and default; for an unknown name, the
    valid names (``skirmish rulesets`` lists them in full: a ruleset has dozens)."""
    return error_text(owner, model, error.errors()[0])


def error_text(owner: str, model: type[BaseModel], err: Mapping[str, Any]) -> str:
    """One of pydantic's errors (``ValidationError.errors()``) as :func:`option_problem` words it."""
    key = ".".join(str(x) for x in err.get("loc", ())) or "?"
    if err.get("type") == "extra_forbidden":
        import difflib

        names = ", ".join(model.model_fields) or "none"
        near = difflib.get_close_matches(key, list(model.model_fields), n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        return f"{owner}: no option {key!r}{hint}; its options: {names}"
    field = model.model_fields.get(key)
    given = err.get("input")
    expected = field_text(key, field).split(": ")[0] if field is not None else key
    return f"{owner}: option {key} cannot be {_value(given)!r}: expected {expected}"


def located_text(ruleset: str, model: type[BaseModel], err: Mapping[str, Any]) -> str:
    """One of pydantic's errors for a scenario's ``options:`` block, worded as the scenario's other
    problems are (``expected ...``, ``unknown key ...``; the file and line come with it)."""
    key = ".".join(str(x) for x in err.get("loc", ())) or "?"
    if err.get("type") == "extra_forbidden":
        import difflib

        near = difflib.get_close_matches(key, list(model.model_fields), n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        names = ", ".join(model.model_fields) or "none"
        return f"unknown key {key!r}{hint}: the {ruleset} ruleset's options are {names}"
    field = model.model_fields.get(key)
    expected = field_text(key, field).split(": ")[0] if field is not None else key
    return f"expected {expected}, an option of the {ruleset} ruleset, got {_value(err.get('input'))!r}"
