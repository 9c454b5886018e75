"""Invariants of a match: what must hold after every command, whatever the players do.

Contract:

- :func:`check` ``(match) -> list[str]`` returns every broken invariant of a live
  match, one line each, ``"[name] unit: what, with the values"``; an empty list means
  the match is sound. It is cheap enough to call after every command (the battle CLI
  does with ``--check-invariants``; the soak and the stateful tests do): the event
  log is checked incrementally (a per-match :class:`LogChecker` is kept in a weak
  map) and the live state is checked in a few vectorized shapely/numpy calls.
  Once a log invariant is broken it stays reported by every later call.
- :func:`check_log` ``(events, spec=None) -> list[str]`` checks a whole recorded log
  (e.g. one read back with :func:`game.core.events.read_log`). The geometry invariants
  need the scenario's obstacles and bases: without ``spec`` they are skipped.
  :class:`LogChecker` is the incremental checker both use; :func:`summarize` counts
  violations by invariant name.
- Invariant names (stable; tests and the docs rely on them, see
  ``docs/robustness.md``):

  ``bases-overlap``
      two units in action whose bases overlap (touching is fine).
  ``base-in-obstacle``, ``base-off-map``
      a unit in action whose base overlaps an obstacle or leaves the map.
  ``move-crosses-obstacle``
      a logged movement (``move``, ``step``, ``retreat``, ``dodge_move``, ...: any
      event with a ``path``) whose path comes closer to an obstacle than the base
      radius.
  ``move-path``
      a movement whose path does not run from its ``from`` to its ``to``, or whose
      ``from`` is not where the log had put the unit.
  ``position-ledger``, ``posture-ledger``, ``facing-ledger``
      the live position / posture / facing differs from the one the log's events
      lead to (some change was not logged).
  ``ap-negative``
      an ``ap`` event left a negative balance, or a unit's live AP is negative.
  ``health-ledger``
      a ``damage`` event whose ``before`` is not what the earlier events left, whose
      ``after`` is not ``before + deltas``, or live health tracks that differ from
      ``match_start`` health plus every ``damage`` event.
  ``casualty-ledger``
      a unit out of action without a ``casualty`` event, or the other way round.
  ``dead-acts``
      a ``turn_start``, ``command``, movement or ``attack`` by a unit after its
      ``casualty`` event, or a decision pending for a unit out of action.
  ``reaction-twice``
      a once-per-window reaction the ruleset limits (``Ruleset.reaction_limits``, see
      :mod:`game.rules.limits`) used twice in its window (between two ``turn_start``
      events of the unit, in one unit's turn, or in one round).
  ``choice-binding``
      a choice that binds for a window (``Ruleset.choice_bindings``: e.g. the AFF
      armour-or-dodge choice under Ubiquitous Dodging) changed within it.

Tolerances: live geometry is exact floats (:data:`LIVE_TOL`); logged positions are
rounded to :data:`game.core.events.POS_DECIMALS` places, hence :data:`LOG_TOL`.
"""

from __future__ import annotations

import math
import weakref
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import esper
import numpy as np
import shapely
from shapely.geometry import LineString, Polygon
from shapely.geometry import Point as SPoint

from components.identity import Identity
from components.spatial import Body, Facing, Position, Posture, Stance
from components.specs import ScenarioSpec
from components.state import ActionPoints, Health
from game.core.errors import UnknownName
from game.rules import ruleset_class
from game.rules.base import Ruleset
from game.rules.limits import Binding, Reaction

if TYPE_CHECKING:
    from game.engine.match import Match

#: Slack for live (unrounded) geometry, inches: bases may touch, not overlap.
LIVE_TOL = 1e-7
#: Slack for logged geometry, rounded to 6 decimals (half a unit in the last place, times a few).
LOG_TOL = 5e-6

#: Event types a casualty may never produce again (its ``unit`` field, or ``attacker`` for attacks).
_ACTING_TYPES = frozenset({"turn_start", "command"})

_POSTURES = frozenset(p.value for p in Posture)


def _limits(ruleset: str | type[Ruleset] | None) -> tuple[tuple[Reaction, ...], tuple[Binding, ...]]:
    """The reaction limits and binding choices a ruleset declares (a name not registered: none)."""
    if ruleset is None or isinstance(ruleset, str):
        try:
            ruleset = ruleset_class(ruleset or "")
        except UnknownName:
            return (), ()
    return ruleset.reaction_limits, ruleset.choice_bindings


# ----------------------------------------------------------------------------------
# The log checker
# ----------------------------------------------------------------------------------


@dataclass
class _UnitLedger:
    pos: tuple[float, float]
    posture: str
    facing: float
    health: dict[str, int]
    casualty_seq: int | None = None
    #: (window, reaction or binding name) -> what used it up in the current window
    window_uses: dict[tuple[str, str], str] = field(default_factory=dict)


def _fmt(p: Sequence[float]) -> str:
    return f"({p[0]:.6g}, {p[1]:.6g})"


class _Geometry:
    """The scenario's static geometry for the checks: obstacles in an STRtree, map bounds, bases."""

    def __init__(self, spec: ScenarioSpec) -> None:
        self.width = float(spec.width)
        self.height = float(spec.height)
        self.ids = tuple(o.id for o in spec.obstacles)
        self.polygons = [Polygon(o.polygon) for o in spec.obstacles]
        for poly in self.polygons:
            shapely.prepare(poly)
        self.tree = shapely.STRtree(self.polygons)
        self.polygon_array = np.array(self.polygons, dtype=object)
        self.base = {u.id: float(u.base) for u in spec.units}

    def near_points(self, xy: np.ndarray, radius: np.ndarray, tol: float) -> list[tuple[int, str, float]]:
        """(row, obstacle, distance) for every point of ``xy`` closer to an obstacle than its radius - tol."""
        if not self.polygons or len(xy) == 0:
            return []
        points = shapely.points(xy)
        rows, cols = self.tree.query(points, predicate="dwithin", distance=radius)
        if rows.size == 0:
            return []
        dist = shapely.distance(points[rows], self.polygon_array[cols])
        bad = dist < radius[rows] - tol
        return sorted(
            (int(r), self.ids[int(c)], float(d))
            for r, c, d in zip(rows[bad], cols[bad], dist[bad], strict=True)
        )

    def near(self, geom: Any, radius: float, tol: float) -> list[tuple[str, float]]:
        """Obstacles that ``geom`` comes closer to than ``radius - tol``, with the distance."""
        if not self.polygons:
            return []
        out = []
        for k in self.tree.query(geom, predicate="dwithin", distance=radius):
            d = float(shapely.distance(geom, self.polygons[int(k)]))
            if d < radius - tol:
                out.append((self.ids[int(k)], d))
        return sorted(out)


class LogChecker:
    """Checks an event log incrementally: feed it events in order, read :attr:`violations`.

    Args:
        spec: the scenario, for the geometry checks (obstacles, bases); ``None``
            skips them.
        ruleset: the ruleset (a class, or a registered name) whose reaction limits and
            binding choices are checked; ``None`` takes its name from the ``match_start``
            event.
    """

    def __init__(self, spec: ScenarioSpec | None = None, ruleset: str | type[Ruleset] | None = None) -> None:
        self.geometry = _Geometry(spec) if spec is not None else None
        self.ruleset = ruleset.name if isinstance(ruleset, type) else ruleset
        self.units: dict[str, _UnitLedger] = {}
        self.violations: list[str] = []
        self.seen = 0
        self._declared_reactions, self._declared_bindings = _limits(ruleset)
        # Until ``match_start`` gives the options: every declared reaction limit.
        self._reactions: tuple[Reaction, ...] = self._declared_reactions
        self._bindings: tuple[Binding, ...] = ()

    def _bad(self, name: str, unit: str | None, seq: int | None, message: str) -> None:
        where = f" (event {seq})" if seq is not None else ""
        self.violations.append(f"[{name}] {unit or '-'}: {message}{where}")

    def feed(self, events: Iterable[dict[str, Any]]) -> None:
        """Check the next events of the log (those after the ones already fed)."""
        for e in events:
            self.seen += 1
            self._event(e)

    # ---- one event ------------------------------------------------------------------
    def _event(self, e: dict[str, Any]) -> None:
        kind = e.get("type")
        if kind == "match_start":
            self._start(e)
            return
        if kind == "round_start":
            for each in self.units.values():
                each.window_uses = {
                    k: v for k, v in each.window_uses.items() if k[0] not in ("round", "activation")
                }
        elif kind == "turn_start":  # any unit's turn: a new activation window for every unit
            for each in self.units.values():
                each.window_uses = {k: v for k, v in each.window_uses.items() if k[0] != "activation"}
        seq = e.get("seq")
        raw_uid = e.get("unit")
        uid = raw_uid if isinstance(raw_uid, str) else ""
        led = self.units.get(uid)
        actor = e.get("attacker") if kind == "attack" else uid
        actor_led = self.units.get(actor) if isinstance(actor, str) else None
        acting = kind in _ACTING_TYPES or kind == "attack" or "path" in e
        if acting and actor_led is not None and actor_led.casualty_seq is not None:
            self._bad("dead-acts", actor, seq, f"{kind} after its casualty event {actor_led.casualty_seq}")
        if led is None:
            return
        if kind == "turn_start":
            led.window_uses = {k: v for k, v in led.window_uses.items() if k[0] != "turn"}
        elif kind == "damage":
            self._damage(led, uid, e)
        elif kind == "casualty":
            if led.casualty_seq is None:
                led.casualty_seq = seq
        elif kind == "ap":
            left = e.get("left")
            if isinstance(left, (int, float)) and left < 0:
                self._bad(
                    "ap-negative", uid, seq, f"spent {e.get('spent')} AP for {e.get('reason')}, left {left}"
                )
        elif kind == "facing":
            self._facing(led, uid, e)
        if "path" in e and "to" in e:
            self._movement(led, uid, e)
        elif "at" in e and isinstance(e.get("to"), str) and e["to"] in _POSTURES:
            self._posture(led, uid, e)
        self._windows(led, uid, e)

    def _windows(self, led: _UnitLedger, uid: str, e: dict[str, Any]) -> None:
        """Once-per-window reactions and binding choices the ruleset declares."""
        seq = e.get("seq")
        for r in self._reactions:
            key = (r.window, r.name)
            if r.used(e):
                if key in led.window_uses:
                    self._bad(
                        "reaction-twice",
                        uid,
                        seq,
                        f"{r.name} again in one {r.window} (already used up by {led.window_uses[key]})",
                    )
                led.window_uses[key] = f"{r.name} at event {seq}"
            elif r.spent_by is not None and r.spent_by(e):
                led.window_uses.setdefault(key, f"{e.get('kind') or e.get('type')} at event {seq}")
        for b in self._bindings:
            value = b.value(e)
            if value is None:
                continue
            key = (b.window, b.name)
            first = led.window_uses.setdefault(key, value)
            if first != value:
                self._bad(
                    "choice-binding",
                    uid,
                    seq,
                    f"{b.name}: chose {value} after {first} in the same {b.window}",
                )

    def _start(self, e: dict[str, Any]) -> None:
        if self.ruleset is None:
            self.ruleset = str(e.get("ruleset"))
            self._declared_reactions, self._declared_bindings = _limits(self.ruleset)
        options = e.get("options") or {}
        self._reactions = tuple(r for r in self._declared_reactions if r.applies(options))
        self._bindings = tuple(b for b in self._declared_bindings if b.applies(options))
        for u in e.get("units", []):
            self.units[u["id"]] = _UnitLedger(
                pos=(float(u["at"][0]), float(u["at"][1])),
                posture=str(u["posture"]),
                facing=float(u["facing"]),
                health={str(k): int(v) for k, v in u["health"].items()},
            )

    def _damage(self, led: _UnitLedger, uid: str, e: dict[str, Any]) -> None:
        seq = e.get("seq")
        before = e.get("before", {})
        after = e.get("after", {})
        deltas = e.get("deltas", {})
        for k, v in before.items():
            if led.health.get(k) != v:
                self._bad(
                    "health-ledger", uid, seq, f"{k} was {led.health.get(k)} but damage says before={v}"
                )
        expected = dict(led.health)
        for k, d in deltas.items():
            expected[k] = expected.get(k, 0) + int(d)
        if after and after != expected:
            self._bad("health-ledger", uid, seq, f"after={after} but before + deltas = {expected}")
        led.health = expected

    def _movement(self, led: _UnitLedger, uid: str, e: dict[str, Any]) -> None:
        seq = e.get("seq")
        kind = e.get("type")
        path = [(float(p[0]), float(p[1])) for p in e["path"]]
        frm = e.get("from")
        to = (float(e["to"][0]), float(e["to"][1]))
        if frm is not None and math.dist(frm, led.pos) > LOG_TOL:
            self._bad("move-path", uid, seq, f"{kind} from {_fmt(frm)} but the unit was at {_fmt(led.pos)}")
        if path and (math.dist(path[0], frm or led.pos) > LOG_TOL or math.dist(path[-1], to) > LOG_TOL):
            self._bad(
                "move-path",
                uid,
                seq,
                f"{kind} path runs {_fmt(path[0])}..{_fmt(path[-1])}, not to {_fmt(to)}",
            )
        if self.geometry is not None and path:
            radius = self.geometry.base.get(uid, 0.5)
            geom = LineString(path) if len(path) > 1 else SPoint(path[0])
            for oid, d in self.geometry.near(geom, radius, LOG_TOL):
                self._bad(
                    "move-crosses-obstacle",
                    uid,
                    seq,
                    f"{kind} {_fmt(path[0])}->{_fmt(to)} passes {d:.6f} in from {oid} "
                    f"(base radius {radius:g})",
                )
        led.pos = to

    def _posture(self, led: _UnitLedger, uid: str, e: dict[str, Any]) -> None:
        frm = e.get("from")
        if frm is not None and frm != led.posture:
            self._bad(
                "posture-ledger",
                uid,
                e.get("seq"),
                f"{e.get('type')} from {frm} but the unit was {led.posture}",
            )
        led.posture = str(e["to"])

    def _facing(self, led: _UnitLedger, uid: str, e: dict[str, Any]) -> None:
        frm = e.get("from")
        if isinstance(frm, (int, float)) and _angle_gap(frm, led.facing) > 1e-5:
            self._bad(
                "facing-ledger", uid, e.get("seq"), f"turned from {frm} but the unit faced {led.facing}"
            )
        to = e.get("to")
        if isinstance(to, (int, float)):
            led.facing = float(to)

    # ---- the whole log against a final state ------------------------------------------
    def compare(self, live: Callable[[str], _LiveUnit]) -> list[str]:
        """Violations of the ledgers against the live state (``live(uid)`` describes a unit)."""
        out: list[str] = []
        for uid, led in self.units.items():
            now = live(uid)
            if now.health != led.health:
                diff = {
                    k: (led.health.get(k), now.health.get(k))
                    for k in sorted(set(now.health) | set(led.health))
                    if led.health.get(k) != now.health.get(k)
                }
                out.append(
                    f"[health-ledger] {uid}: live tracks differ from the damage events (log, live): {diff}"
                )
            if math.dist(now.pos, led.pos) > LOG_TOL:
                out.append(
                    f"[position-ledger] {uid}: live at {_fmt(now.pos)} but the log put it at {_fmt(led.pos)}"
                )
            if now.posture != led.posture:
                out.append(f"[posture-ledger] {uid}: live {now.posture} but the log says {led.posture}")
            if _angle_gap(now.facing, led.facing) > 1e-5:
                out.append(
                    f"[facing-ledger] {uid}: live facing {now.facing:.6f} but the log says {led.facing:.6f}"
                )
            if now.out_of_action and led.casualty_seq is None:
                out.append(f"[casualty-ledger] {uid}: out of action ({now.status}) without a casualty event")
            if not now.out_of_action and led.casualty_seq is not None:
                out.append(f"[casualty-ledger] {uid}: casualty event {led.casualty_seq} but still in action")
        return out


def _angle_gap(a: float, b: float) -> float:
    return abs((float(a) - float(b) + 180.0) % 360.0 - 180.0)


@dataclass(frozen=True)
class _LiveUnit:
    pos: tuple[float, float]
    posture: str
    facing: float
    health: dict[str, int]
    status: tuple[str, ...]
    out_of_action: bool
    base: float
    ap: int


# ----------------------------------------------------------------------------------
# Live state
# ----------------------------------------------------------------------------------


def _live_units(match: Match) -> dict[str, _LiveUnit]:
    """Every unit's live state, read in one esper query (per-unit getters switch worlds each call)."""
    out: dict[str, _LiveUnit] = {}
    with match.activated():
        query: Any = esper.get_components  # typed for up to 6 component types; we read 7
        rows = query(Identity, Position, Body, Facing, Stance, ActionPoints, Health)
    for _, (ident, pos, body, facing, stance, ap, h) in rows:
        out[ident.uid] = _LiveUnit(
            pos=(pos.x, pos.y),
            posture=str(stance.posture),
            facing=facing.degrees,
            health=dict(h.tracks),
            status=tuple(sorted(h.status)),
            out_of_action=h.out_of_action,
            base=body.base,
            ap=ap.current,
        )
    return out


def check_bases(
    ids: Sequence[str],
    xy: np.ndarray,
    radius: np.ndarray,
    spec: ScenarioSpec,
    tol: float = LIVE_TOL,
    geometry: _Geometry | None = None,
) -> list[str]:
    """Overlap checks of bases (units in action only): with each other, obstacles and the map edge.

    Args:
        ids: unit ids, one per row of ``xy``.
        xy: (n, 2) centres in inches.
        radius: (n,) base radii in inches.
        spec: the scenario (map size, obstacles).
        tol: overlap below this depth is accepted (touching).
        geometry: the prepared obstacles (built from ``spec`` if not given).

    Returns:
        One message per broken invariant.
    """
    out: list[str] = []
    n = len(ids)
    if n > 1:
        gap = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
        need = radius[:, None] + radius[None, :]
        bad_i, bad_j = np.nonzero(np.triu(gap < need - tol, k=1))
        for i, j in zip(bad_i.tolist(), bad_j.tolist()):
            out.append(
                f"[bases-overlap] {ids[i]}: overlaps {ids[j]}: centres {gap[i, j]:.6f} in apart, "
                f"bases need {need[i, j]:.6f} in"
            )
    geo = geometry if geometry is not None else _Geometry(spec)
    if n == 0:
        return out
    x, y = xy[:, 0], xy[:, 1]
    off = (
        (x < radius - tol)
        | (y < radius - tol)
        | (x > geo.width - radius + tol)
        | (y > geo.height - radius + tol)
    )
    for k in np.flatnonzero(off).tolist():
        out.append(
            f"[base-off-map] {ids[k]}: base r={radius[k]:g} at {_fmt(xy[k])} "
            f"leaves the {geo.width:g}x{geo.height:g} map"
        )
    for k, oid, d in geo.near_points(xy, radius, tol):
        out.append(
            f"[base-in-obstacle] {ids[k]}: base r={radius[k]:g} at {_fmt(xy[k])} is {d:.6f} in from {oid}"
        )
    return out


_CHECKERS: weakref.WeakKeyDictionary[Any, LogChecker] = weakref.WeakKeyDictionary()


def _checker_for(match: Match) -> LogChecker:
    checker = _CHECKERS.get(match)
    if checker is None or checker.seen > len(match.log):
        checker = LogChecker(match.spec, type(match.rules))
        _CHECKERS[match] = checker
    return checker


def check(match: Match) -> list[str]:
    """Every broken invariant of ``match`` now (see the module docstring); ``[]`` if sound."""
    checker = _checker_for(match)
    checker.feed(match.log.events[checker.seen :])
    out = list(checker.violations)
    live = _live_units(match)
    order = [u for u in match.spec.units if u.id in live]  # scenario order: stable messages
    alive = [u.id for u in order if not live[u.id].out_of_action]
    xy = np.array([live[u].pos for u in alive], dtype=float).reshape(len(alive), 2)
    radius = np.array([live[u].base for u in alive], dtype=float)
    out += check_bases(alive, xy, radius, match.spec, LIVE_TOL, checker.geometry)
    for u in order:
        if live[u.id].ap < 0:
            out.append(f"[ap-negative] {u.id}: has {live[u.id].ap} AP")
    out += checker.compare(live.__getitem__)
    pending = match.pending
    if pending is not None and pending.unit in live and live[pending.unit].out_of_action:
        out.append(
            f"[dead-acts] {pending.unit}: a {pending.kind} decision is pending but it is out of action"
        )
    return out


def check_log(events: Iterable[dict[str, Any]], spec: ScenarioSpec | None = None) -> list[str]:
    """Every broken invariant of a whole recorded log (geometry checks need ``spec``).

    Besides the per-event checks, the positions the log leads to are checked for
    overlaps at each ``round_start`` and at the end (units in action only).
    """
    checker = LogChecker(spec)
    out_of_action: set[str] = set()
    snapshot: list[str] = []

    def bases(at: str) -> None:
        if spec is None:
            return
        ids = [u for u in checker.units if u not in out_of_action]
        xy = np.array([checker.units[u].pos for u in ids], dtype=float).reshape(len(ids), 2)
        radius = np.array(
            [checker.geometry.base.get(u, 0.5) for u in ids] if checker.geometry else [], dtype=float
        )
        for msg in check_bases(ids, xy, radius, spec, LOG_TOL, checker.geometry):
            snapshot.append(f"{msg} (at {at})")

    for e in events:
        checker.feed([e])
        if e.get("type") == "casualty" and isinstance(e.get("unit"), str):
            out_of_action.add(e["unit"])
        elif e.get("type") == "round_start":
            bases(f"round {e.get('round')}")
    bases("the end")
    return checker.violations + list(dict.fromkeys(snapshot))


def summarize(violations: Iterable[str]) -> dict[str, int]:
    """How many violations of each invariant name (the ``[name]`` prefix)."""
    counts: dict[str, int] = defaultdict(int)
    for v in violations:
        name = v[1 : v.index("]")] if v.startswith("[") and "]" in v else "?"
        counts[name] += 1
    return dict(sorted(counts.items()))
