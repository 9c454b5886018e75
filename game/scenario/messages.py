"""Pydantic validation errors turned into located problems, and how problems are ordered.

Contract: :func:`validation_problems` turns a ``ValidationError`` raised on a value of a
parsed YAML document into :class:`~game.core.errors.Problem` values, one per key path,
each located by the document's line and worded "expected ..., got ..." (unknown keys list
the allowed ones, with a close match suggested); a problem the parser already reported is
not repeated. :func:`ordered` sorts problems by file, then line, without duplicates.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import BaseModel, ValidationError

from game.core.errors import Problem
from game.scenario.yaml_source import KeyPath, YamlDoc, format_path


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


def shown(value: Any) -> str:
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


def fmt_num(x: Any) -> str:
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
        "greater_than": f"a number > {fmt_num(ctx.get('gt'))}",
        "greater_than_equal": f"a number >= {fmt_num(ctx.get('ge'))}",
        "less_than": f"a number < {fmt_num(ctx.get('lt'))}",
        "less_than_equal": f"a number <= {fmt_num(ctx.get('le'))}",
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
            return f"{msg}, got {shown(got)}" if kind != "value_error" else msg
    if (
        kind in ("less_than_equal", "greater_than_equal")
        and abs(float(ctx.get("le", ctx.get("ge", 0)))) >= 1e6
    ):
        expected += " (huge numbers are rejected)"
    return f"expected {expected}, got {shown(got)}"


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


def validation_problems(doc: YamlDoc, error: ValidationError, prefix: KeyPath, root: Any) -> list[Problem]:
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


def ordered(problems: list[Problem]) -> list[Problem]:
    """Problems by file (in order of first mention), then line; duplicates dropped."""
    first: dict[str, int] = {}
    for p in problems:
        first.setdefault(p.source, len(first))
    unique = list(dict.fromkeys(problems))
    return sorted(unique, key=lambda p: (first[p.source], p.line))
