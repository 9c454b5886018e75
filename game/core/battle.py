"""The Battle protocol: what a ruleset may read and ask for, and the values it trades in.

Contract:
- :class:`Battle` is the one interface between the rules and a match. A ruleset reads the
  units through it and asks for every change through it (move, posture, facing, AP, damage,
  status, events); the match (``game.engine.match.Match``) hands each request to the system
  that owns that change, which writes the components and the event. Reads return the live
  components, which are immutable values: a ruleset changes a unit's per-turn bookkeeping by
  replacing it (:meth:`Battle.set_turn`, :meth:`Battle.set_defence`) and its battle-wide
  bookkeeping likewise (:attr:`Battle.rules_state`, :meth:`Battle.set_rules_state`).
- :data:`Flow` is an attack or maneuver driven like a generator (``game.core.flow.FlowRun``):
  it yields a :class:`~game.core.commands.Decision` whenever a unit must choose and is sent the
  chosen command back. The engine itself keeps a flow as frames (``game.core.flow``).
- :class:`Region` is a legal area for a point choice: geometry for drawing and sampling, and
  the validator that is the authority on legality.
- :class:`Roller` is the part of the match's seeded, logged dice (``game.dice.Dice``) a
  ruleset rolls with.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, Protocol

from components.sight import SightFacts
from components.spatial import Body, Posture
from components.state import ActionPoints, DefenceState, Health, TurnState
from game.core.commands import Decision, Point

#: What an attack/maneuver generator yields and receives.
Flow = Generator[Decision, Any, None]


@dataclass(frozen=True)
class Region:
    """A legal area for a point choice: shapely geometry (for drawing and sampling) + validator."""

    geometry: Any
    validate: Callable[[Any], str | None]


class Roller(Protocol):
    """Seeded dice whose every draw is logged as a ``roll`` event."""

    def roll(self, n: int, sides: int, purpose: str, unit: str | None = None) -> list[int]:
        """Roll ``n`` dice with ``sides`` faces; the faces in order."""
        ...

    def total(self, n: int, sides: int, purpose: str, unit: str | None = None) -> int:
        """The sum of :meth:`roll`."""
        ...


class Battle(Protocol):
    """What a ruleset may read and do (see the module docstring)."""

    @property
    def dice(self) -> Roller: ...
    @property
    def round(self) -> int: ...
    @property
    def yards_per_inch(self) -> float: ...

    # ---- reading -------------------------------------------------------
    def units(self, alive: bool = True) -> list[str]:
        """Unit ids in scenario order (only those still in action if ``alive``)."""
        ...

    def side(self, uid: str) -> str: ...
    def stats(self, uid: str) -> Any: ...
    def profile(self, uid: str) -> str: ...
    def pos(self, uid: str) -> Point: ...
    def facing(self, uid: str) -> float: ...
    def posture(self, uid: str) -> Posture: ...
    def body(self, uid: str) -> Body: ...
    def health(self, uid: str) -> Health: ...
    def ap(self, uid: str) -> ActionPoints: ...
    def defence(self, uid: str) -> DefenceState: ...
    def turn(self, uid: str) -> TurnState: ...
    def active_unit(self) -> str | None: ...
    @property
    def rules_state(self) -> Any:
        """The ruleset's battle-wide bookkeeping (a frozen value; ``None`` until first set)."""
        ...

    def sight(self, attacker: str, target: str) -> SightFacts:
        """Current sight/cover facts from ``attacker`` to ``target``."""
        ...

    def distance(self, a: str, b: str) -> float:
        """Centre-to-centre distance in inches."""
        ...

    def enemies(self, uid: str) -> list[str]: ...
    def friends(self, uid: str) -> list[str]: ...

    # ---- legal regions (movement geometry) -----------------------------
    def step_region(self, uid: str, max_len: float) -> Region: ...
    def retreat_region(self, uid: str, attacker: str, min_len: float, max_len: float) -> Region: ...
    def dodge_region(self, uid: str, max_len: float) -> Region: ...
    def interpose_region(self, uid: str, friend: str, attacker: str, step_len: float) -> Region: ...
    def move_region(self, uid: str, max_len: float) -> Region:
        """Points reachable by a free path of length <= ``max_len``."""
        ...

    def path_length(self, uid: str, to: Point) -> float | None:
        """Shortest free path length for ``uid`` to ``to`` (None: unreachable)."""
        ...

    # ---- changing (each writes its event) -------------------------------
    def emit(self, type: str, **fields: Any) -> None:
        """Append an event of ``type`` (``attack``, ``defence``, ``status``, ...)."""
        ...

    def damage(self, uid: str, deltas: dict[str, int], source: str | None, **detail: Any) -> None:
        """Add ``deltas`` to ``uid``'s health tracks and log a ``damage`` event (the ledger)."""
        ...

    def set_status(self, uid: str, flag: str, on: bool, reason: str) -> None:
        """Set/clear a status flag; setting ``dead``/``unconscious``/``out`` logs a ``casualty``."""
        ...

    def set_turn(self, uid: str, state: TurnState) -> None:
        """Replace ``uid``'s per-turn bookkeeping (the ruleset's record rides on it)."""
        ...

    def set_defence(self, uid: str, state: DefenceState) -> None:
        """Replace ``uid``'s reaction bookkeeping of this turn."""
        ...

    def set_rules_state(self, value: Any) -> None:
        """Replace the ruleset's battle-wide bookkeeping (a frozen value)."""
        ...

    def spend_ap(self, uid: str, n: int, reason: str) -> None: ...
    def move_unit(self, uid: str, to: Point, kind: str, ap: int = 0) -> None:
        """Move along the shortest free path; ``kind`` is the event type (move, step, retreat,
        dodge_move, interpose)."""
        ...

    def set_posture(self, uid: str, posture: Posture, kind: str = "posture", ap: int = 0) -> None:
        """Change posture; ``kind="drop_prone"`` for dodge-and-drop, ``"knockdown"``."""
        ...

    def set_facing(self, uid: str, degrees: float, ap: int = 0) -> None: ...
