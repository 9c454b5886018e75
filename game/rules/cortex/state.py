"""What the Cortex ruleset remembers of a match: frozen values kept in the match, never on the
ruleset (issue 25: a match is a value that can be cloned and written down).

Contract:
- :class:`CortexTrack` is the battle's ``rules_state``: per unit, the round of its declaration
  and the actions declared (shared/rules/cortex-actions-defense-damage.txt: "each extra action
  means a cumulative -1 Skill step penalty to all actions that turn"), the round its last turn
  started, the rolls made to stay conscious ("each turn you take any action you must roll
  again, with a cumulative +4") and to stay alive ("once per minute, at cumulative +4"), and
  the round dying started. Read it with :func:`track`; :func:`note` replaces it with one entry
  changed. Its tables are read-only mappings.
- :class:`CortexTurn` (on the unit's ``TurnState``: the run distance rolled and the movement
  paid this turn) and :class:`CortexDefence` (on its ``DefenceState``: all-out defence until
  its next turn) are frozen records, read with :func:`turn_record` / :func:`defence_record`
  (a fresh record at a turn start) and replaced with ``game.rules.unit_state.set_turn_record``
  / ``set_defence_record``.
- All three are registered with ``game.core.codec`` (``cortex.track``, ``cortex.turn``,
  ``cortex.defence``), so a snapshot writes them and reads them back equal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any, Literal

from game.core.battle import Battle
from game.core.codec import value
from game.rules.unit_state import record_of

#: The tables of a :class:`CortexTrack`, each unit -> its entry.
TrackTable = Literal["conscious_rolls", "dying_since", "dying_rolls", "declared", "turn_round"]

_NONE: Mapping[str, Any] = MappingProxyType({})


@value("cortex.track")
@dataclass(frozen=True, slots=True)
class CortexTrack:
    """What the ruleset remembers across turns (the battle's ``rules_state``), per unit."""

    conscious_rolls: Mapping[str, int] = field(default_factory=lambda: _NONE)  # rolls made while reeling
    dying_since: Mapping[str, int] = field(default_factory=lambda: _NONE)  # round dying started
    dying_rolls: Mapping[str, int] = field(default_factory=lambda: _NONE)
    declared: Mapping[str, tuple[int, int]] = field(default_factory=lambda: _NONE)  # (round, actions)
    turn_round: Mapping[str, int] = field(default_factory=lambda: _NONE)  # round of its last turn start

    def __post_init__(self) -> None:  # read-only tables, also when decoded from a snapshot
        for f in fields(self):
            table = getattr(self, f.name)
            if type(table) is not MappingProxyType:
                object.__setattr__(self, f.name, MappingProxyType(dict(table)))

    def put(self, table: TrackTable, uid: str, entry: Any) -> CortexTrack:
        """This track with ``uid``'s entry in ``table`` set to ``entry``."""
        return replace(self, **{table: MappingProxyType({**getattr(self, table), uid: entry})})


def track(battle: Battle) -> CortexTrack:
    """The battle's :class:`CortexTrack` (an empty one before the first entry)."""
    got: CortexTrack | None = battle.rules_state
    return CortexTrack() if got is None else got


def note(battle: Battle, table: TrackTable, uid: str, entry: Any) -> None:
    """Set ``uid``'s entry in ``table`` of the battle's track (the track is replaced)."""
    battle.set_rules_state(track(battle).put(table, uid, entry))


@value("cortex.turn")
@dataclass(frozen=True, slots=True)
class CortexTurn:
    """A unit's movement this turn (kept on its ``TurnState``, see game.rules.unit_state)."""

    run_feet: float | None = None  # the run distance rolled at the turn's start
    moved: float = 0.0  # inches of Move commands this turn (steps and reactions are free)
    move_paid: int = 0  # actions paid for movement this turn


@value("cortex.defence")
@dataclass(frozen=True, slots=True)
class CortexDefence:
    """A unit's defence since its turn began (kept on its ``DefenceState``)."""

    all_out_defence: bool = False  # chose All-Out Defence: free dodges and blocks at +2 steps


def turn_record(battle: Battle, uid: str) -> CortexTurn:
    """``uid``'s :class:`CortexTurn` (a fresh one if none this turn yet)."""
    return record_of(battle.turn(uid), CortexTurn)


def defence_record(battle: Battle, uid: str) -> CortexDefence:
    """``uid``'s :class:`CortexDefence` (a fresh one if none since its turn began)."""
    return record_of(battle.defence(uid), CortexDefence)
