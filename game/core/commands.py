"""Frozen command values: what a unit (or its controller) asks the match to do.

Contract: commands are plain immutable values with a ``unit`` field naming the
acting unit. ``game.engine.match.Match.apply`` accepts a command only if it matches one
of the options of the pending :class:`Decision` (see :func:`matches`); otherwise
it raises ``IllegalCommand`` and changes nothing. Points are ``(x, y)`` inches.

Turn commands: Move, Step, Face, ChangePosture, Attack, Maneuver, EndTurn.
Reaction commands (answers to a defence prompt): Defend, Interpose, DodgeMove,
Follow.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Move:
    """Move along the shortest free path to ``to``."""

    unit: str
    to: Point = (0.0, 0.0)


@dataclass(frozen=True, slots=True)
class Step:
    """A short move (GURPS step: 1 yard) that some maneuvers allow beside an attack."""

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

    ``kind`` is the defence (``none``, ``dodge``, ``parry``, ``block``, ...);
    ``weapon`` the parrying weapon; ``retreat_to`` a point for a retreat;
    ``drop`` a GURPS dodge-and-drop; ``acrobatic`` a GURPS acrobatic dodge;
    ``combo`` an ap-pool attribute combination or other ruleset choice.
    """

    unit: str
    kind: str = "none"
    weapon: str | None = None
    retreat_to: Point | None = None
    drop: bool = False
    acrobatic: bool = False
    combo: str | None = None


@dataclass(frozen=True, slots=True)
class Interpose:
    """GURPS sacrificial dodge: ``unit`` steps to ``to`` to take an attack aimed at ``friend``."""

    unit: str
    friend: str = ""
    to: Point | None = None
    drop: bool = False


@dataclass(frozen=True, slots=True)
class DodgeMove:
    """The move after a successful ap-pool dodge; ``to=None`` stays put."""

    unit: str
    to: Point | None = None


@dataclass(frozen=True, slots=True)
class Follow:
    """GURPS: the attacker follows a retreating defender with its unused step (``None``: stays)."""

    unit: str
    to: Point | None = None


Command = (
    Move | Step | Face | ChangePosture | Attack | Maneuver | EndTurn | Defend | Interpose | DodgeMove | Follow
)

COMMAND_TYPES: dict[str, type] = {
    t.__name__: t
    for t in (
        Move,
        Step,
        Face,
        ChangePosture,
        Attack,
        Maneuver,
        EndTurn,
        Defend,
        Interpose,
        DodgeMove,
        Follow,
    )
}


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
        if COMMAND_TYPES.get(cls.__name__) is not cls or free not in field_names(cls):
            return replace(cmd, **{free: value})  # anything else (or the usual error)
        # ``replace`` spelt out for the command classes (every field is an init field)
        return cls(*[value if n == free else getattr(cmd, n) for n in field_names(cls)])


@dataclass(frozen=True, init=False)
class Decision:
    """What the match is waiting for: ``unit`` must choose one of ``options``.

    ``kind`` is ``turn`` (the active unit's turn), ``defence``, ``dodge_move``,
    ``follow`` or ``interpose``. ``context`` describes the attack being
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


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """The dataclass field names of ``cls``, in order (memoised: ``fields()`` is slow)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


def _same_except(a: Any, b: Any, free: str | None) -> bool:
    if type(a) is not type(b):
        return False
    # a loop, not all(genexpr) (twice as fast): this runs for every option of every command
    for n in field_names(type(a)):  # noqa: SIM110
        if n != free and getattr(a, n) != getattr(b, n):
            return False
    return True


def _finite_point(v: Any) -> bool:
    return (
        isinstance(v, tuple)
        and len(v) == 2
        and all(isinstance(c, (int, float)) and math.isfinite(c) for c in v)
    )


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


def command_to_json(cmd: Any) -> dict[str, Any]:
    """A JSON-safe dict for the event log and saves (tuples become lists)."""
    out: dict[str, Any] = {"type": type(cmd).__name__}
    for name in field_names(type(cmd)):
        v = getattr(cmd, name)
        out[name] = list(v) if isinstance(v, tuple) else v
    return out


def command_from_json(data: dict[str, Any]) -> Any:
    """Inverse of :func:`command_to_json`; raises ``ValueError`` on anything malformed."""
    if not isinstance(data, dict) or data.get("type") not in COMMAND_TYPES:
        raise ValueError(f"not a command: {data!r}")
    cls = COMMAND_TYPES[data["type"]]
    kwargs: dict[str, Any] = {}
    names = {f.name for f in fields(cls)}
    for k, v in data.items():
        if k == "type":
            continue
        if k not in names:
            raise ValueError(f"{data['type']} has no field {k!r}")
        kwargs[k] = tuple(v) if isinstance(v, list) else v
    try:
        return cls(**kwargs)
    except TypeError as e:
        raise ValueError(str(e)) from None
