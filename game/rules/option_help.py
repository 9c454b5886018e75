"""A ruleset's options in words, read from its pydantic ``Options`` model (pure; the one place).

Contract: :func:`field_text` writes one option as a player types it: its name, its type
(``true/false``, ``a whole number``, ``one of 10, 12``), its default and any bounds the model
declares (``ge``/``gt``/``le``/``lt`` constraints, ``at least 1, at most 1024``), and its
description; :func:`options_text` lists a model's options; :func:`option_problem` turns a
pydantic ``ValidationError`` of ``--option`` values into one line that names the option and
what was wrong, then lists the valid options. Everything is read from the model, so an option
or a bound added to a model later is listed with no change here. ``skirmish battle``, ``sweep``
and ``rulesets`` use it; the policies' options (``--policy-option``) too.
"""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

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
    """One line for a bad option of ``owner`` (``ruleset ap-pool``, ``policy planner``): what was
    wrong with which option, then the valid options with their types and bounds."""
    err = error.errors()[0]
    key = ".".join(str(x) for x in err.get("loc", ())) or "?"
    if err.get("type") == "extra_forbidden":
        what = f"no option {key!r}"
    else:
        field = model.model_fields.get(key)
        given = err.get("input")
        expected = field_text(key, field) if field is not None else key
        what = f"option {key} cannot be {_value(given)!r}: expected {expected.split(': ')[0]}"
    valid = options_text(model)
    listed = "; ".join(v.split(": ")[0] for v in valid) if valid else "none"
    return f"{owner}: {what}; its options: {listed}"


__all__ = ["bounds", "field_text", "option_problem", "options_text", "type_text"]
