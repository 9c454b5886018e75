"""Rule mechanics: what a ruleset says can happen in a battle, counted from the event log.

Contract:
- A ruleset declares ``mechanics: tuple[Mechanic, ...]`` (see
  :class:`game.rules.base.Ruleset`): every mechanic of its rule text that a battle can
  fire. A :class:`Mechanic` has a ``name`` (snake_case, the stem of the batch CSV
  column ``<name>_<side>``), a one-line ``description`` and a :class:`Tally`.
- A tally counts from the event log (``command`` events included): it names the event
  types it reads and maps those events, in log order, to how often each unit fired the
  mechanic (the unit credited is documented in the description: the actor, or the unit
  a thing happened to). Beyond the log it may read only :class:`Facts`: each unit's stat
  block (where an event names a memory or a weapon) and the scenario (obstacles, bases,
  sizes: :func:`moves_into_cover` replays the logged positions and asks the exact cover
  model). Counting never draws dice and never changes the match, so a log counts the
  same live, in a worker process, or read back from a file with the scenario.
- The builders cover the common shapes so that a new event needs one line:
  :func:`event` (one count per matching event), :func:`command` (per matching
  command), :func:`items` (per matching entry of a list field), :func:`turns` (per
  turn of the unit whose summed events fall in a range), :func:`again` (a repeat by
  the same unit since a reset event) and :func:`moves_into_cover`. ``where`` values are literals (equality),
  sets (membership) or predicates such as :func:`has_modifier`.
- :data:`LEGACY` are the nine command counters the batch CSV had before rulesets
  declared their mechanics; the batch keeps their columns, with the same meaning,
  for every ruleset. A ruleset that lists one of them reuses the object from here.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from components.spatial import EYE_FRACTION, POSTURE_HEIGHT, Posture
from components.specs import ScenarioSpec
from game.geometry.model import FRACTION_SNAP, LIGHT_FROM, snap_fraction
from game.geometry.reference import sight_profile

#: One logged event (a JSON object of the event log).
Event = Mapping[str, Any]
#: How a tally names the unit an event credits: a field name, or a function of the event.
Credit = str | Callable[[Event], str | None]

#: Mechanic names: lower-case words joined by underscores (CSV column stems).
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


def _no_stats(uid: str) -> Any:
    raise LookupError(f"this tally needs the stat block of {uid!r}, and none was given")


@dataclass(frozen=True)
class Facts:
    """What a tally may read beyond the log: stat blocks by unit id, and the scenario."""

    stats: Callable[[str], Any] = _no_stats
    spec: ScenarioSpec | None = None


#: No facts beyond the log.
NO_FACTS = Facts()


@dataclass(frozen=True)
class Tally:
    """Counts one mechanic: reads events of ``types`` and returns unit -> times fired."""

    types: frozenset[str]
    fn: Callable[[Sequence[Event], Facts], Counter[str]]

    def __call__(self, events: Iterable[Event], facts: Facts = NO_FACTS) -> Counter[str]:
        """Count over ``events`` (any events; those of other types are skipped)."""
        mine = [e for e in events if e.get("type") in self.types]
        return self.fn(mine, facts)


@dataclass(frozen=True)
class Mechanic:
    """A rule mechanic of a ruleset, with how to count it from a battle's log."""

    name: str
    description: str
    tally: Tally

    def __post_init__(self) -> None:
        if not NAME_PATTERN.match(self.name):
            raise ValueError(f"mechanic name {self.name!r} is not snake_case")
        if not self.description.strip():
            raise ValueError(f"mechanic {self.name!r} needs a description")


# --------------------------------------------------------------------------- matching
def _matches(obj: Mapping[str, Any], where: Sequence[tuple[str, Any]], facts: Facts) -> bool:
    for key, want in where:
        got = obj.get(key)
        if isinstance(want, Predicate):
            ok = want.test(got, obj, facts)
        elif callable(want):
            ok = bool(want(got))
        elif isinstance(want, (set, frozenset)):
            try:
                ok = got in want
            except TypeError:  # an unhashable value is in no set of literals
                ok = False
        else:
            ok = got == want
        if not ok:
            return False
    return True


@dataclass(frozen=True)
class Predicate:
    """A ``where`` test that may also read the whole object and the :class:`Facts`."""

    test: Callable[[Any, Mapping[str, Any], Facts], bool]


def present(value: Any) -> bool:
    """``where`` test: the field is there and not None."""
    return value is not None


def truthy(value: Any) -> bool:
    """``where`` test: the field is set to something true (non-zero, non-empty)."""
    return bool(value)


def has_modifier(*sources: str, pattern: str | None = None) -> Callable[[Any], bool]:
    """``where`` test on a ``modifiers`` list: one has one of these ``source`` names, or a
    source the regular expression ``pattern`` matches in full (e.g. ``r"\\d+ in the way"``)."""
    regex = re.compile(pattern) if pattern is not None else None

    def test(mods: Any) -> bool:
        for m in mods or ():
            src = str(m.get("source", "")) if isinstance(m, Mapping) else str(m)
            if src in sources or (regex is not None and regex.fullmatch(src)):
                return True
        return False

    return test


def field_above(key: str, threshold: float = 0) -> Callable[[Any], bool]:
    """``where`` test on a mapping field (e.g. ``deltas``): its ``key`` entry exceeds ``threshold``."""

    def test(value: Any) -> bool:
        got = value.get(key) if isinstance(value, Mapping) else None
        return isinstance(got, (int, float)) and got > threshold

    return test


def _credit(event: Event, credit: Credit) -> str | None:
    got = credit(event) if callable(credit) else event.get(credit)
    return got if isinstance(got, str) and got else None


# --------------------------------------------------------------------------- builders
def event(type_: str, *, credit: Credit = "unit", **where: Any) -> Tally:
    """One count per ``type_`` event whose fields match ``where``, for the unit in ``credit``."""
    conds = tuple(where.items())

    def count(events: Sequence[Event], facts: Facts) -> Counter[str]:
        out: Counter[str] = Counter()
        for e in events:
            if _matches(e, conds, facts):
                uid = _credit(e, credit)
                if uid is not None:
                    out[uid] += 1
        return out

    return Tally(frozenset({type_}), count)


def command(type_: str, **where: Any) -> Tally:
    """One count per applied command of ``type_`` whose fields match ``where``, for its unit."""
    conds = (("type", type_), *where.items())

    def count(events: Sequence[Event], facts: Facts) -> Counter[str]:
        out: Counter[str] = Counter()
        for e in events:
            cmd = e.get("command")
            if isinstance(cmd, Mapping) and _matches(cmd, conds, facts):
                uid = _credit(e, "unit")
                if uid is not None:
                    out[uid] += 1
        return out

    return Tally(frozenset({"command"}), count)


def items(
    type_: str, field: str, *, credit: Credit = "unit", item_credit: str | None = None, **where: Any
) -> Tally:
    """One count per entry of the list ``field`` of ``type_`` events that matches ``where``.

    The unit credited is the entry's ``item_credit`` field if given, else the event's ``credit``.
    """
    conds = tuple(where.items())

    def count(events: Sequence[Event], facts: Facts) -> Counter[str]:
        out: Counter[str] = Counter()
        for e in events:
            entries = e.get(field)
            if not isinstance(entries, list):
                continue
            for entry in entries:
                if isinstance(entry, Mapping) and _matches(entry, conds, facts):
                    uid = _credit(entry, item_credit) if item_credit else _credit(e, credit)
                    if uid is not None:
                        out[uid] += 1
        return out

    return Tally(frozenset({type_}), count)


def turns(
    type_: str,
    *,
    amount: Callable[[Event], float] | None = None,
    at_least: float = 1,
    at_most: float | None = None,
    **where: Any,
) -> Tally:
    """One count per turn of a unit whose own ``type_`` events sum to ``at_least..at_most``.

    A turn runs from the unit's ``turn_start`` to its ``turn_end``; only events naming that
    unit (``unit`` field) and matching ``where`` add ``amount(event)`` (default 1 each).
    """
    conds = tuple(where.items())
    measure = amount or (lambda e: 1.0)

    def count(events: Sequence[Event], facts: Facts) -> Counter[str]:
        out: Counter[str] = Counter()
        active: str | None = None
        total = 0.0

        def close() -> None:
            if active is not None and total >= at_least and (at_most is None or total <= at_most):
                out[active] += 1

        for e in events:
            t = e.get("type")
            if t == "turn_start":
                close()
                active, total = e.get("unit"), 0.0
            elif t == "turn_end":
                close()
                active, total = None, 0.0
            elif active is not None and e.get("unit") == active and _matches(e, conds, facts):
                total += float(measure(e))
        close()
        return out

    return Tally(frozenset({type_, "turn_start", "turn_end"}), count)


def again(type_: str, *, reset: str, credit: Credit = "unit", **where: Any) -> Tally:
    """One count per matching ``type_`` event of a unit that already had one since the last
    ``reset`` event (e.g. a second defence against the same attack)."""
    conds = tuple(where.items())

    def count(events: Sequence[Event], facts: Facts) -> Counter[str]:
        out: Counter[str] = Counter()
        seen: set[str] = set()
        for e in events:
            if e.get("type") == reset:
                seen.clear()
            elif _matches(e, conds, facts):
                uid = _credit(e, credit)
                if uid is None:
                    continue
                if uid in seen:
                    out[uid] += 1
                seen.add(uid)
        return out

    return Tally(frozenset({type_, reset}), count)


def combined(*tallies: Tally) -> Tally:
    """The sum of several tallies (e.g. a mechanic logged by two kinds of event)."""
    types = frozenset().union(*(t.types for t in tallies))

    def count(events: Sequence[Event], facts: Facts) -> Counter[str]:
        out: Counter[str] = Counter()
        for t in tallies:
            out.update(t(events, facts))
        return out

    return Tally(types, count)


#: Event types that put a unit at the point in their ``to`` field.
MOVE_EVENTS = frozenset({"move", "step", "retreat", "dodge_move", "interpose"})
#: Event types that change a unit's posture to their ``to`` field.
POSTURE_EVENTS = frozenset({"posture", "drop_prone", "knockdown"})


def moves_into_cover(type_: str, *, against: str = "defence", field: str = "attacker") -> Tally:
    """One count per ``type_`` move after which the mover is in cover (light or better) from
    the unit it was reacting to, and more hidden from it than before the move.

    The unit reacted to is the ``field`` of the mover's last ``against`` event (for a dodge
    move: the attacker of its dodge). Positions and postures are replayed from
    ``match_start`` and every move and posture event; the hidden share of the mover's
    silhouette is the exact cover model's (:func:`game.geometry.reference.sight_profile`)
    over the scenario's obstacles (:attr:`Facts.spec`, which this tally needs).
    """
    watched = frozenset({"match_start", against}) | MOVE_EVENTS | POSTURE_EVENTS

    def count(events: Sequence[Event], facts: Facts) -> Counter[str]:
        out: Counter[str] = Counter()
        if not events:
            return out
        if facts.spec is None:
            raise LookupError("this tally needs the scenario (Facts.spec), and none was given")
        spec = facts.spec
        pos: dict[str, tuple[float, float]] = {}
        posture: dict[str, str] = {}
        foe: dict[str, str] = {}
        for e in events:
            t, uid = e.get("type"), e.get("unit")
            if t == "match_start":
                for u in e.get("units", ()):
                    pos[u["id"]] = (float(u["at"][0]), float(u["at"][1]))
                    posture[u["id"]] = str(u["posture"])
            elif t == against and isinstance(uid, str) and isinstance(e.get(field), str):
                foe[uid] = e[field]
            elif t in POSTURE_EVENTS and isinstance(uid, str):
                posture[uid] = str(e["to"])
            elif t in MOVE_EVENTS and isinstance(uid, str):
                to = (float(e["to"][0]), float(e["to"][1]))
                other = foe.get(uid)
                if t == type_ and other in pos and uid in pos:
                    before = _hidden(spec, pos, posture, other, uid, pos[uid])
                    after = _hidden(spec, pos, posture, other, uid, to)
                    if after >= LIGHT_FROM and after > before + FRACTION_SNAP:
                        out[uid] += 1
                pos[uid] = to
        return out

    return Tally(frozenset({type_}) | watched, count)


def _hidden(
    spec: ScenarioSpec,
    pos: Mapping[str, tuple[float, float]],
    posture: Mapping[str, str],
    attacker: str,
    target: str,
    at: tuple[float, float],
) -> float:
    """The share of ``target``'s silhouette at ``at`` hidden from ``attacker`` (1: out of sight)."""
    units = {u.id: u for u in spec.units}
    a, t = units[attacker], units[target]
    eye = EYE_FRACTION * POSTURE_HEIGHT[Posture(posture[attacker])] * a.size
    height = POSTURE_HEIGHT[Posture(posture[target])] * t.size
    return snap_fraction(sight_profile(spec.obstacles, pos[attacker], eye, at, t.base, height).fraction)


def count_all(
    mechanics: Sequence[Mechanic], events: Sequence[Event], facts: Facts = NO_FACTS
) -> dict[str, Counter[str]]:
    """Mechanic name -> unit -> times fired, reading the log once per event type."""
    by_type: dict[str, list[Event]] = {}
    wanted = frozenset().union(*(m.tally.types for m in mechanics)) if mechanics else frozenset()
    for e in events:
        t = e.get("type")
        if t in wanted:
            by_type.setdefault(t, []).append(e)
    out: dict[str, Counter[str]] = {}
    for m in mechanics:
        types = m.tally.types
        if len(types) == 1:
            (only,) = types
            mine = by_type.get(only, [])
        else:
            mine = [e for e in events if e.get("type") in types]
        out[m.name] = m.tally.fn(mine, facts)
    return out


# --------------------------------------------------------------------------- shared counters
ATTACKS = Mechanic("attacks", "attacks made (Attack commands), by the attacker", command("Attack"))
DODGES = Mechanic(
    "dodges", "dodge defences chosen (Defend kind dodge), by the defender", command("Defend", kind="dodge")
)
PARRIES = Mechanic(
    "parries", "parries chosen (Defend kind parry), by the defender", command("Defend", kind="parry")
)
BLOCKS = Mechanic(
    "blocks", "blocks chosen (Defend kind block), by the defender", command("Defend", kind="block")
)
RETREATS = Mechanic(
    "retreats",
    "defences with a retreat step (Defend with retreat_to), by the defender",
    command("Defend", retreat_to=present),
)
DROPS = Mechanic(
    "drops",
    "dodge-and-drops, sacrificial ones included (Defend or Interpose with drop), by the dropper",
    combined(command("Defend", drop=True), command("Interpose", to=present, drop=True)),
)
DODGE_MOVES = Mechanic(
    "dodge_moves",
    "moves after a successful dodge (DodgeMove to a point), by the dodger",
    command("DodgeMove", to=present),
)
INTERPOSES = Mechanic(
    "interposes",
    "sacrificial dodges announced (Interpose to a point), by the friend who steps in",
    command("Interpose", to=present),
)
FOLLOWS = Mechanic(
    "follows",
    "follow steps after a retreating defender (Follow to a point), by the attacker",
    command("Follow", to=present),
)

#: The batch CSV's counters before rulesets declared mechanics, in column order.
LEGACY: tuple[Mechanic, ...] = (
    ATTACKS,
    DODGES,
    PARRIES,
    BLOCKS,
    RETREATS,
    DROPS,
    DODGE_MOVES,
    INTERPOSES,
    FOLLOWS,
)


__all__ = [
    "ATTACKS",
    "BLOCKS",
    "DODGES",
    "DODGE_MOVES",
    "DROPS",
    "FOLLOWS",
    "INTERPOSES",
    "LEGACY",
    "NO_FACTS",
    "PARRIES",
    "RETREATS",
    "Facts",
    "Mechanic",
    "Predicate",
    "Tally",
    "again",
    "combined",
    "command",
    "count_all",
    "event",
    "field_above",
    "has_modifier",
    "items",
    "moves_into_cover",
    "present",
    "truthy",
    "turns",
]
