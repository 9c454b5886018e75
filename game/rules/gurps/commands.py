"""GURPS command types: the sacrificial dodge, following a retreat, and defence flags.

Registered with :func:`game.core.commands.register_command` when imported (``game.rules``
imports this module): their log records are ``Interpose``, ``Follow`` and ``Defend``.
:class:`GurpsDefend` is a variant of the shared ``Defend`` record; build defences with
:func:`defend`, which gives a plain :class:`~game.core.commands.Defend` when no flag is set
(a decoded log gives one then, and a command must be the option's own type to match it).
"""

from __future__ import annotations

from dataclasses import dataclass

from game.core.commands import Defend, Point, register_command


@register_command
@dataclass(frozen=True, slots=True)
class GurpsDefend(Defend):
    """A defence with ``drop`` (dodge-and-drop) or ``acrobatic`` (Acrobatic Dodge) set."""

    drop: bool = False
    acrobatic: bool = False


@register_command
@dataclass(frozen=True, slots=True)
class Interpose:
    """Sacrificial dodge: ``unit`` steps to ``to`` to take an attack aimed at ``friend``
    (``drop``: a sacrificial dodge and drop; ``acrobatic``: with an Acrobatic Dodge)."""

    unit: str
    friend: str = ""
    to: Point | None = None
    drop: bool = False
    acrobatic: bool = False


@register_command
@dataclass(frozen=True, slots=True)
class Follow:
    """The attacker follows a retreating defender with its unused step (``None``: stays)."""

    unit: str
    to: Point | None = None


def defend(
    uid: str, kind: str, weapon: str | None = None, drop: bool = False, acrobatic: bool = False
) -> Defend:
    """The defence command of a choice: a :class:`GurpsDefend` only if a flag is set."""
    if drop or acrobatic:
        return GurpsDefend(uid, kind, weapon, None, drop, acrobatic)
    return Defend(uid, kind, weapon)


def defence_flags(cmd: Defend) -> tuple[bool, bool]:
    """(drop, acrobatic) of a defence command."""
    if isinstance(cmd, GurpsDefend):
        return cmd.drop, cmd.acrobatic
    return False, False
