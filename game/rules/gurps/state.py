"""GURPS per-unit bookkeeping of one turn, kept in the engine's per-turn components.

:func:`defence_record` is the unit's :class:`GurpsDefence` (what it did to defend since its
last turn began: the once-per-turn limits and the bonuses that carry over);
:func:`turn_record` its :class:`GurpsTurn` (the maneuver it chose and what carries into its
attacks). Both reset when the unit's next turn starts (see :mod:`game.rules.unit_state`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from game.core.battle import Battle
from game.rules.unit_state import mutable_record


@dataclass(slots=True)
class GurpsDefence:
    """Defences since the unit's turn began (``parries``: per weapon name)."""

    retreated: bool = False  # once per turn; an attempt counts
    interposed: bool = False  # moved to interpose (sacrificial dodge): no retreat before its next turn
    blocked: bool = False  # one block per turn
    acrobatic: bool = False  # one acrobatic dodge per turn
    parries: dict[str, int] = field(default_factory=dict)
    retreat_bonus_vs: set[str] = field(default_factory=set)  # attackers it retreated from
    drop_bonus_vs: set[str] = field(default_factory=set)  # attackers it dodged-and-dropped from


@dataclass(slots=True)
class GurpsTurn:
    """The unit's turn: its maneuver, and what carries into its attacks."""

    maneuver: str = ""  # e.g. attack, move, aim, all_out_defence
    shock: int = 0  # skill penalty from injury taken since its last turn
    aim: tuple[str, str] | None = None  # (target, weapon) of an Aim taken last turn
    step_in: float = 0.0  # inches stepped this turn (a Move maneuver covers the rest of Move)


def defence_record(battle: Battle, uid: str) -> GurpsDefence:
    """``uid``'s :class:`GurpsDefence` (made on first use this turn)."""
    record = battle.defence(uid).record
    # Read for every option of every decision: the made record is returned without a call.
    return record if type(record) is GurpsDefence else mutable_record(battle, uid, "defence", GurpsDefence)


def turn_record(battle: Battle, uid: str) -> GurpsTurn:
    """``uid``'s :class:`GurpsTurn` (made on first use this turn)."""
    record = battle.turn(uid).record
    return record if type(record) is GurpsTurn else mutable_record(battle, uid, "turn", GurpsTurn)
