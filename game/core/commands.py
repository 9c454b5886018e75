"""Frozen command values: what a unit (or its controller) asks the match to do.

Contract: commands are plain immutable values with a ``unit`` field naming the
acting unit. ``game.engine.match.Match.apply`` accepts a command only if it matches one
of the options of the pending :class:`Decision` (see :func:`matches`); otherwise
it raises ``IllegalCommand`` and changes nothing. Points are ``(x, y)`` inches.

The shared vocabulary: turn commands (Move, Step, Face, ChangePosture, Attack, Maneuver,
EndTurn) and Defend, the answer to a defence prompt. A ruleset adds command types of its
own with :func:`register_command` (``game.rules`` imports every ruleset's command module
when it is imported, before any ruleset, so a log decodes whichever ruleset wrote it).

Log records (:func:`command_to_json` / :func:`command_from_json`): ``{"type": name,
field: value, ...}`` with every field written, tuples as lists. A registered subclass of a
registered command is a *variant* of its record: it keeps the record's ``type`` and adds
fields, and every record of that type carries the union of its variants' fields (a
variant's field another variant lacks is written with the declaring variant's default).
Decoding picks the first registered variant (the base first) that has every field whose
value is not its default, so a ruleset builds a variant only when one of the variant's own
fields differs from its default (the log could not tell it from the base otherwise). A
variant that adds a field adds it to every record of that type, in every ruleset's logs:
a new ruleset should register a command type of its own instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any, Protocol, TypeVar

Point = tuple[float, float]


class Command(Protocol):
    """Any command: a frozen value naming the acting unit."""

    @property
    def unit(self) -> str: ...


C = TypeVar("C", bound=type)


@dataclass(frozen=True, slots=True)
class Move:
    """Move along the shortest free path to ``to``."""

    unit: str
    to: Point = (0.0, 0.0)


@dataclass(frozen=True, slots=True)
class Step:
    """A short move beside another action (a GURPS step is 1 yard); the ruleset prices it."""

    unit: str
    to: Point = (0.0, 0.0)


@dataclass(frozen=True, slots=True)
class Face:
    """Turn to face ``degrees`` (0 = east, 90 = south)."""

    unit: str
    degrees: float = 0.0


@dataclass(frozen=True, slots=True)
class ChangePosture:
    unit: str
    posture: str = "standing"


@dataclass(frozen=True, slots=True)
class Attack:
    """Attack ``target`` with the named weapon; ``options`` are ruleset-specific flags."""

    unit: str
    target: str = ""
    weapon: str = ""
    options: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Maneuver:
    """A ruleset-specific turn action, e.g. ``all_out_defence`` or ``choose_dodge``."""

    unit: str
    name: str = ""


@dataclass(frozen=True, slots=True)
class EndTurn:
    unit: str


@dataclass(frozen=True, slots=True)
class Defend:
    """Answer to a defence prompt.

    ``kind`` is the defence (``none``, ``dodge``, ``parry``, ``block``, ...) as the
    ruleset names it; ``weapon`` the parrying weapon; ``retreat_to`` a point the defender
    moves to (a retreat). Rulesets add their own choices as registered variants.
    """

    unit: str
    kind: str = "none"
    weapon: str | None = None
    retreat_to: Point | None = None


# ----------------------------------------------------------------------------------
# The registry of command types (the log's record types)
# ----------------------------------------------------------------------------------


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """The dataclass field names of ``cls``, in order (memoised: ``fields()`` is slow)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


@dataclass(frozen=True)
class _Layout:
    """How a command class is written: its record type and, per written field, whether the
    class has it (else ``default`` is written)."""

    record: str
    keys: tuple[tuple[str, bool, Any], ...]


#: record type -> its variants, the base first, in registration order
_VARIANTS: dict[str, list[type]] = {}
#: record type -> every field its records carry, in written order, with the declaring default
_RECORD_KEYS: dict[str, dict[str, Any]] = {}
_LAYOUTS: dict[type, _Layout] = {}


def register_command(cls: C) -> C:
    """Register a frozen dataclass as a command type (a class decorator).

    Its record type is its class name, or, for a subclass of a registered command, its
    base's (a variant, see the module docstring). Every field needs a default but ``unit``.
    """
    base = next((b for b in cls.__mro__[1:] if b in _LAYOUTS), None)
    record = cls.__name__ if base is None else _LAYOUTS[base].record
    if base is None and record in _VARIANTS:
        raise ValueError(f"command type {record!r} is registered twice")
    keys = _RECORD_KEYS.setdefault(record, {})
    for f in fields(cls):
        if f.name not in keys:
            keys[f.name] = None if f.default is MISSING else f.default
    _VARIANTS.setdefault(record, []).append(cls)
    for variant in _VARIANTS[record]:  # the record may have grown: re-plan every variant
        own = set(field_names(variant))
        _LAYOUTS[variant] = _Layout(record, tuple((k, k in own, d) for k, d in keys.items()))
    return cls


for _shared in (Move, Step, Face, ChangePosture, Attack, Maneuver, EndTurn, Defend):
    register_command(_shared)


def command_records() -> dict[str, tuple[str, ...]]:
    """Record type -> the fields its records carry, in written order (every registered type)."""
    return {name: tuple(keys) for name, keys in _RECORD_KEYS.items()}


@dataclass(frozen=True, slots=True)
class Modifier:
    """One modifier behind a roll, with where it comes from (shown to players)."""

    source: str
    value: float
    applies_to: str = "roll"  # free text per ruleset: "skill", "defence", "difficulty", "dice", ...

    def __str__(self) -> str:
        sign = "+" if self.value >= 0 else ""
        v = int(self.value) if float(self.value).is_integer() else self.value
        return f"{sign}{v} {self.source}"


class LazyRegion:
    """A region geometry built on first use: ``Option(..., region=LazyRegion(build))``.

    The move and step regions of a turn decision cost a shapely buffer and intersection each,
    and most decisions are answered without looking at them (an attack, or a point the policy
    computes and validates); the option's ``region`` attribute calls ``build()`` once, when
    first read.
    """

    __slots__ = ("build",)

    def __init__(self, build: Callable[[], Any]) -> None:
        self.build = build


@dataclass(frozen=True, init=False)
class Option:
    """One legal choice of a decision.

    ``command`` is a template. If ``point_field`` is set, that field is free:
    any value ``v`` for which ``validate(v)`` returns ``None`` is legal (the
    function returns a reason string otherwise); ``region`` is the shapely
    geometry of legal points, for drawing and for AI sampling (``None`` for
    non-spatial free fields such as ``Face.degrees``). Given a :class:`LazyRegion`,
    the geometry is built when ``region`` is first read; :attr:`has_region` tells
    whether there is one without building it.
    """

    command: Any
    label: str
    p_success: float | None = None
    modifiers: tuple[Modifier, ...] = ()
    point_field: str | None = None
    # No class attribute (a default_factory leaves none): a lazy region not built yet is
    # missing from the instance, so reading it reaches __getattr__.
    region: Any = field(default_factory=lambda: None)
    validate: Callable[[Any], str | None] | None = field(default=None, compare=False)
    detail: dict[str, Any] = field(default_factory=dict, compare=False)

    def __init__(
        self,
        command: Any,
        label: str,
        p_success: float | None = None,
        modifiers: tuple[Modifier, ...] = (),
        point_field: str | None = None,
        region: Any = None,
        validate: Callable[[Any], str | None] | None = None,
        detail: dict[str, Any] | None = None,
    ) -> None:
        # Written out (a decision makes a dozen options): the generated frozen __init__ sets
        # each field through object.__setattr__.
        d = self.__dict__
        d["command"] = command
        d["label"] = label
        d["p_success"] = p_success
        d["modifiers"] = modifiers
        d["point_field"] = point_field
        if type(region) is LazyRegion:
            d["_lazy_region"] = region  # no "region" entry yet: the first read builds it
        else:
            d["region"] = region
        d["validate"] = validate
        d["detail"] = {} if detail is None else detail

    def __getattr__(self, name: str) -> Any:
        # Reached only for attributes not in the instance: a lazy region's first read.
        lazy = self.__dict__.get("_lazy_region") if name == "region" else None
        if lazy is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        value = self.__dict__["region"] = lazy.build()
        return value

    @property
    def lazy_region(self) -> LazyRegion | None:
        """The :class:`LazyRegion` this option's ``region`` is (or will be) built from, if any;
        reading it builds nothing."""
        lazy: LazyRegion | None = self.__dict__.get("_lazy_region")
        return lazy

    @property
    def has_region(self) -> bool:
        """Whether the option has a region (a lazy one is not built to answer)."""
        d = self.__dict__
        return d.get("region") is not None or ("_lazy_region" in d and "region" not in d)

    def with_point(self, value: Any) -> Any:
        """The command with the free field set to ``value``."""
        free = self.point_field
        if free is None:
            return self.command
        cmd = self.command
        cls = type(cmd)
        if cls not in _LAYOUTS or free not in field_names(cls):
            return replace(cmd, **{free: value})  # anything else (or the usual error)
        # ``replace`` spelt out for the command classes (every field is an init field)
        return cls(*[value if n == free else getattr(cmd, n) for n in field_names(cls)])


@dataclass(frozen=True, init=False)
class Decision:
    """What the match is waiting for: ``unit`` must choose one of ``options``.

    ``kind`` is ``turn`` (the active unit's turn) or a reaction the ruleset names
    (``defence``, ``dodge_move``, ...). ``context`` describes the attack being
    answered (attacker, weapon, roll, modifiers) for prompts and AI.
    """

    unit: str
    kind: str
    options: tuple[Option, ...]
    context: dict[str, Any] = field(default_factory=dict)

    def __init__(
        self, unit: str, kind: str, options: tuple[Option, ...], context: dict[str, Any] | None = None
    ) -> None:
        # Written out like Option's (one per command): the frozen __init__ sets each field
        # through object.__setattr__.
        d = self.__dict__
        d["unit"] = unit
        d["kind"] = kind
        d["options"] = options
        d["context"] = {} if context is None else context


def _same_except(a: Any, b: Any, free: str | None) -> bool:
    if type(a) is not type(b):
        return False
    # a loop, not all(genexpr) (twice as fast): this runs for every option of every command
    for n in field_names(type(a)):  # noqa: SIM110
        if n != free and getattr(a, n) != getattr(b, n):
            return False
    return True


#: Largest magnitude of an integer a command may carry (exact as a float; far beyond any table).
MAX_COMMAND_INT = 2**53


def _finite_number(c: Any) -> bool:
    """A real number a float holds: not bool, NaN, infinite, or an integer too large for a float."""
    t = type(c)
    if t is float:
        return math.isfinite(c)
    if t is int:
        return -MAX_COMMAND_INT <= c <= MAX_COMMAND_INT
    if isinstance(c, bool) or not isinstance(c, (int, float)):
        return False
    try:
        return math.isfinite(float(c))
    except (OverflowError, ValueError):
        return False


def _finite_point(v: Any) -> bool:
    return isinstance(v, tuple) and len(v) == 2 and all(_finite_number(c) for c in v)


def _check_numbers(value: Any, where: str) -> None:
    """``ValueError`` if ``value`` holds a non-finite float or an integer too large for a float."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and not _finite_number(v):
            shown = repr(v) if len(repr(v)) <= 30 else f"an integer of {len(str(v))} digits"
            raise ValueError(f"{where}: expected a finite number, got {shown}")


def matches(option: Option, command: Any) -> str | None:
    """``None`` if ``command`` is legal under ``option``; else why not (for error messages)."""
    if not _same_except(option.command, command, option.point_field):
        return "does not match"
    if option.point_field is None:
        return None
    value = getattr(command, option.point_field)
    if option.has_region and not _finite_point(value):
        return f"{option.point_field} must be a finite (x, y) point"
    if option.validate is not None:
        return option.validate(value)
    return None


def find_option(decision: Decision, command: Any) -> Option:
    """The option ``command`` matches; raises ``ValueError`` with the closest reason otherwise."""
    reasons: list[str] = []
    for opt in decision.options:
        why = matches(opt, command)
        if why is None:
            return opt
        if why != "does not match":
            reasons.append(f"{opt.label}: {why}")
    if getattr(command, "unit", None) != decision.unit:
        raise ValueError(
            f"it is {decision.unit}'s decision ({decision.kind}), not {getattr(command, 'unit', '?')}'s"
        )
    if reasons:
        raise ValueError("; ".join(reasons))
    labels = ", ".join(o.label for o in decision.options)
    raise ValueError(f"{type(command).__name__} is not among the legal choices ({labels})")


def is_command(value: Any) -> bool:
    """Whether ``value`` is an instance of a registered command type."""
    return type(value) in _LAYOUTS


def command_to_json(cmd: Any) -> dict[str, Any]:
    """A JSON-safe dict for the event log and saves (tuples become lists)."""
    layout = _LAYOUTS.get(type(cmd))
    if layout is None:
        raise TypeError(f"{type(cmd).__name__} is not a registered command type")
    out: dict[str, Any] = {"type": layout.record}
    for name, own, default in layout.keys:
        v = getattr(cmd, name) if own else default
        out[name] = list(v) if isinstance(v, tuple) else v
    return out


def command_from_json(data: dict[str, Any]) -> Any:
    """Inverse of :func:`command_to_json`; raises ``ValueError`` on anything malformed."""
    record = data.get("type") if isinstance(data, dict) else None
    if record not in _VARIANTS:
        shown = repr(data)
        raise ValueError(f"not a command: {shown if len(shown) <= 80 else shown[:77] + '...'}")
    keys = _RECORD_KEYS[record]
    for k in data:
        if k != "type" and k not in keys:
            raise ValueError(f"{record} has no field {k!r}")
        _check_numbers(data[k], f"{record}.{k}")
    variants = _VARIANTS[record]
    cls = variants[0]
    if len(variants) > 1:
        changed = {k for k, v in data.items() if k != "type" and v != keys[k]}
        found = next((v for v in variants if changed <= set(field_names(v))), None)
        if found is None:
            raise ValueError(f"no {record} has all of {sorted(changed)}")
        cls = found
    own = field_names(cls)
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in own}
    try:
        return cls(**kwargs)
    except TypeError as e:
        raise ValueError(str(e)) from None
