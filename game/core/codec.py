"""Frozen values as JSON data and back: what a snapshot writes of a flow's frames, a ruleset's
records and its battle-wide state.

Contract:
- :func:`encode` turns a value into JSON-safe data; :func:`decode` turns it back into an equal
  value. Plain JSON values (None, bools, ints, floats, strings, lists) stand for themselves;
  tuples, frozensets, sets, dicts with keys other than strings, dataclasses and enums are
  written as one-key objects whose key starts with ``$``, so nothing is ambiguous.
- Only types registered with :func:`value` (frozen dataclasses and enums, by a name unique
  to the program) are decoded: data naming anything else is refused with ``ValueError``.
  Nothing is imported or called by name from the data: a snapshot from an untrusted file can
  make only the values the program registered.
- Commands are encoded as their log records (``game.core.commands``).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, TypeVar

from components.sight import Arc, CoverLevel, SightFacts
from components.spatial import Posture
from game.core.commands import command_from_json, command_to_json, is_command

T = TypeVar("T", bound=type)

_TYPES: dict[str, type] = {}
_NAMES: dict[type, str] = {}
#: Fields of each registered dataclass, in order.
_FIELDS: dict[type, tuple[str, ...]] = {}


def value(name: str) -> Any:
    """Register a frozen dataclass or an enum under ``name`` (a class decorator)."""

    def register(cls: T) -> T:
        if name in _TYPES and _TYPES[name] is not cls:
            raise ValueError(f"value type {name!r} is registered twice")
        if dataclasses.is_dataclass(cls):
            params = cls.__dataclass_params__  # type: ignore[attr-defined]
            if not params.frozen:
                raise TypeError(f"{cls.__name__} must be a frozen dataclass")
            _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
        elif not issubclass(cls, enum.Enum):
            raise TypeError(f"{cls.__name__} is neither a dataclass nor an enum")
        _TYPES[name] = cls
        _NAMES[cls] = name
        return cls

    return register


def register_external(name: str, cls: type) -> None:
    """Register a type defined where this module cannot be imported (components, enums)."""
    value(name)(cls)


def encode(v: Any) -> Any:
    """JSON-safe data for ``v`` (``TypeError`` for a type that is not registered)."""
    t = type(v)
    if v is None or t is bool or t is int or t is float or t is str:
        return v
    if t is list:
        return [encode(x) for x in v]
    if t is tuple:
        return {"$tuple": [encode(x) for x in v]}
    if t is frozenset or t is set:
        items = [encode(x) for x in v]
        items.sort(key=repr)
        return {"$frozenset" if t is frozenset else "$set": items}
    if t is dict or t is MappingProxyType:
        if all(type(k) is str and not k.startswith("$") for k in v):
            return {k: encode(x) for k, x in v.items()}
        return {"$map": [[encode(k), encode(x)] for k, x in v.items()], "$proxy": t is MappingProxyType}
    name = _NAMES.get(t)
    if name is not None:
        if issubclass(t, enum.Enum):
            return {"$enum": name, "value": encode(v.value)}
        return {"$value": name, "fields": [encode(getattr(v, f)) for f in _FIELDS[t]]}
    if is_command(v):
        return {"$command": command_to_json(v)}
    if hasattr(v, "item") and callable(v.item) and t.__module__ == "numpy":  # a numpy scalar
        return encode(v.item())
    raise TypeError(
        f"cannot encode a {t.__module__}.{t.__qualname__} (register it with game.core.codec.value)"
    )


def decode(d: Any) -> Any:
    """The value :func:`encode` wrote as ``d`` (``ValueError`` for anything it would not write)."""
    t = type(d)
    if d is None or t is bool or t is int or t is float or t is str:
        return d
    if t is list:
        return [decode(x) for x in d]
    if t is not dict:
        raise ValueError(f"not encoded data: {t.__name__}")
    if "$tuple" in d:
        return tuple(decode(x) for x in _list(d, "$tuple"))
    if "$frozenset" in d:
        return frozenset(decode(x) for x in _list(d, "$frozenset"))
    if "$set" in d:
        return {decode(x) for x in _list(d, "$set")}
    if "$map" in d:
        pairs = _list(d, "$map")
        out = {}
        for pair in pairs:
            if type(pair) is not list or len(pair) != 2:
                raise ValueError("a $map holds [key, value] pairs")
            key = decode(pair[0])
            try:
                hash(key)
            except TypeError:
                raise ValueError("a $map key must be hashable") from None
            out[key] = decode(pair[1])
        return MappingProxyType(out) if d.get("$proxy") is True else out
    if "$enum" in d:
        cls = _registered(d["$enum"])
        if not issubclass(cls, enum.Enum):
            raise ValueError(f"{d['$enum']!r} is not an enum")
        try:
            return cls(decode(d.get("value")))
        except ValueError:
            raise ValueError(f"{d.get('value')!r} is not a {d['$enum']}") from None
    if "$value" in d:
        cls = _registered(d["$value"])
        fields = _FIELDS.get(cls)
        raw = _list(d, "fields")
        if fields is None or len(raw) != len(fields):
            raise ValueError(f"a {d['$value']} has {len(fields or ())} fields, not {len(raw)}")
        try:
            return cls(*(decode(x) for x in raw))
        except (TypeError, ValueError) as e:
            raise ValueError(f"not a {d['$value']}: {e}") from None
    if "$command" in d:
        try:
            return command_from_json(d["$command"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"not a command: {e}") from None
    if any(type(k) is not str or k.startswith("$") for k in d):
        raise ValueError(f"unknown encoded value with keys {sorted(map(str, d))}")
    return {k: decode(x) for k, x in d.items()}


def _list(d: dict[str, Any], key: str) -> list[Any]:
    got = d.get(key)
    if type(got) is not list:
        raise ValueError(f"{key} must hold a list")
    return got


def _registered(name: Any) -> type:
    cls = _TYPES.get(name) if type(name) is str else None
    if cls is None:
        raise ValueError(f"{name!r} is not a value type of this program")
    return cls


# The components a rule flow keeps (the facts of an attack, a posture) are values too.
register_external("sight.facts", SightFacts)
register_external("sight.cover", CoverLevel)
register_external("sight.arc", Arc)
register_external("posture", Posture)


def registered() -> Mapping[str, type]:
    """Every registered value type by name."""
    return MappingProxyType(_TYPES)
