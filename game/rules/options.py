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
- :func:`check` validates a mapping of option values for a ruleset, turning pydantic's words
  into one line per problem naming the option, its type and range and the ruleset.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, Field, ValidationError


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
    """``values`` validated as ``ruleset``'s options (``ValueError``: one line per problem, naming
    the option, its type and range, and the valid options when the name is unknown)."""
    try:
        return model.model_validate(dict(values))
    except ValidationError as e:
        known = {o["name"]: o for o in describe(model)}
        lines = []
        for err in e.errors():
            name = ".".join(str(p) for p in err.get("loc", ())) or "?"
            if err.get("type") == "extra_forbidden":
                valid = ", ".join(known) or "none"
                lines.append(f"the {ruleset} ruleset has no option {name!r} (its options: {valid})")
            elif name in known:
                got = values.get(name)
                lines.append(
                    f"{ruleset} option {shown(known[name])}: {got!r} is not allowed ({err.get('msg')})"
                )
            else:
                lines.append(f"{ruleset} option {name}: {err.get('msg')}")
        raise ValueError("; ".join(lines)) from None
