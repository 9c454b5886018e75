"""A read-only view of a match: what AI policies and the renderer may see.

Contract: nothing returned here lets the caller change the match. Units come
as frozen :class:`UnitView` snapshots; sight facts are frozen values. The view
is cheap to make and always reflects the match's current state: a unit's
snapshot is reused until the match counts a change to that unit
(``Match.changes``: every change of what a snapshot holds goes through the
match's methods, which count it). :meth:`MatchView.pos`, :meth:`~MatchView.posture`,
:meth:`~MatchView.base`, :meth:`~MatchView.size`, :meth:`~MatchView.health` and
:meth:`~MatchView.maxima` answer one field of :meth:`MatchView.unit` each, equal to it,
without taking a snapshot (the policies ask for these far more often than for whole units,
and the acting unit changes, spending AP, with every command).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from components.sight import SightFacts
from components.terrain import ObstacleSpec
from game.core.commands import Decision

if TYPE_CHECKING:
    from game.engine.match import Match


@dataclass(frozen=True, slots=True)
class UnitView:
    id: str
    side: str
    pos: tuple[float, float]
    facing: float
    posture: str
    base: float
    size: float
    ap: int
    ap_max: int
    health: tuple[tuple[str, int], ...]
    maxima: tuple[tuple[str, int], ...]
    status: tuple[str, ...]
    alive: bool
    profile: str
    controller: str


class MatchView:
    """Read-only access to one match."""

    def __init__(self, match: Match) -> None:
        self._m = match
        # uid -> (the unit's change count when taken, snapshot)
        self._snapshots: dict[str, tuple[int | None, UnitView]] = {}

    @property
    def round(self) -> int:
        return self._m.round

    @property
    def ai_memory(self) -> dict[str, dict[str, str]]:
        """The match's AI memory (``Match.ai_memory``): the one thing policies may write."""
        return self._m.ai_memory

    @property
    def name(self) -> str:
        """The scenario's name."""
        return self._m.spec.name

    @property
    def ruleset(self) -> str:
        return self._m.ruleset_name

    @property
    def width(self) -> float:
        return self._m.spec.width

    @property
    def height(self) -> float:
        return self._m.spec.height

    @property
    def cell(self) -> float:
        return self._m.spec.cell

    @property
    def obstacles(self) -> tuple[ObstacleSpec, ...]:
        return self._m.spec.obstacles

    @property
    def sides(self) -> tuple[str, ...]:
        return self._m.spec.sides

    @property
    def pending(self) -> Decision | None:
        return self._m.pending

    @property
    def active(self) -> str | None:
        return self._m.active

    @property
    def outcome(self) -> Any:
        return self._m.outcome

    @property
    def yards_per_inch(self) -> float:
        return self._m.yards_per_inch

    def unit(self, uid: str) -> UnitView:
        count = self._m.changes.get(uid)  # None for an unknown unit: _snapshot raises
        got = self._snapshots.get(uid)
        if got is None or got[0] != count or count is None:
            got = self._snapshots[uid] = (count, self._snapshot(uid))
        return got[1]

    def _snapshot(self, uid: str) -> UnitView:
        m = self._m
        h = m.health(uid)
        ap = m.ap(uid)
        body = m.body(uid)
        return UnitView(
            id=uid,
            side=m.side(uid),
            pos=m.pos(uid),
            facing=m.facing(uid),
            posture=str(m.posture(uid)),
            base=body.base,
            size=body.size,
            ap=ap.current,
            ap_max=ap.maximum,
            health=tuple(sorted(h.tracks.items())),
            maxima=tuple(sorted(h.maxima.items())),
            status=tuple(sorted(h.status)),
            alive=not h.out_of_action,
            profile=m.profile(uid),
            controller=m.controllers.get(m.side(uid), "random"),
        )

    def pos(self, uid: str) -> tuple[float, float]:
        """``unit(uid).pos``."""
        return self._m.pos(uid)

    def posture(self, uid: str) -> str:
        """``unit(uid).posture``."""
        return str(self._m.posture(uid))

    def base(self, uid: str) -> float:
        """``unit(uid).base``."""
        return self._m.body(uid).base

    def size(self, uid: str) -> float:
        """``unit(uid).size``."""
        return self._m.body(uid).size

    def health(self, uid: str) -> tuple[tuple[str, int], ...]:
        """``unit(uid).health``."""
        return tuple(sorted(self._m.health(uid).tracks.items()))

    def maxima(self, uid: str) -> tuple[tuple[str, int], ...]:
        """``unit(uid).maxima``."""
        return tuple(sorted(self._m.health(uid).maxima.items()))

    def units(self, alive: bool = True) -> list[UnitView]:
        return [self.unit(u) for u in self._m.units(alive=alive)]

    def enemies(self, uid: str) -> list[str]:
        return self._m.enemies(uid)

    def friends(self, uid: str) -> list[str]:
        return self._m.friends(uid)

    def sight(self, attacker: str, target: str) -> SightFacts:
        return self._m.sight(attacker, target)

    def distance(self, a: str, b: str) -> float:
        return self._m.distance(a, b)

    def action_costs(self, uid: str) -> dict[str, int]:
        """AP costs of ``attack``, ``posture``, ``face``, ``step`` for ``uid`` now (see the ruleset)."""
        return dict(self._m.rules.action_costs(self._m, uid))

    def move_ap_cost(self, uid: str, length: float) -> int | None:
        """AP a path of ``length`` inches costs ``uid`` now (None: too far this turn)."""
        return self._m.rules.move_ap_cost(self._m, uid, length)

    def path_length(self, uid: str, to: tuple[float, float]) -> float | None:
        return self._m.path_length(uid, to)

    def events(self, since: int = 0) -> list[dict[str, Any]]:
        return self._m.log.events[since:]

    @property
    def event_count(self) -> int:
        """How many events the match has logged (grows with every change of state)."""
        return len(self._m.log.events)

    @property
    def arena(self) -> Any:
        """The geometry of the table (read-only queries: cover at points, paths, regions)."""
        return self._m.arena
