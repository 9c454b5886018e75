"""A match written down and read back exactly: versioned, checksummed, safe to read.

Contract:
- :func:`write_snapshot` turns a match into bytes: a header line
  ``{"format": "skirmish-snapshot", "version": 1, "sha256": ..., "state_bytes": ...}``, then the
  match's state as one JSON line (every unit's components, the battle entity's loop state, the
  flow in progress, the ruleset's and the AI's memory, the random streams' states, the outcome),
  then the event log, one JSON line per event. ``sha256`` is the hash of everything after the
  header line. The log's first event (``match_start``) carries the scenario's text, the profiles
  it uses and the setup (ruleset, options, seed, controllers, round limit): nothing else is
  needed to rebuild the match anywhere.
- :func:`read_snapshot` reads such bytes back into an equal match: the same state, the same log,
  the same pending decision, the same random streams: answered alike, it writes the same events
  and state hashes as the match that was written. It reads untrusted bytes safely: no pickle, no
  import, no code named by the data; sizes and nesting are bounded; the checksum, the format
  and version, and every field's type are checked; the scenario is validated by the scenario
  loader; values are decoded only into types the program registered (``game.core.codec``).
  Anything else raises :class:`SnapshotError` naming the source and what is wrong, and no
  half-built match is left behind.
- A match whose scenario was built in code (no text to embed) cannot be written down.
- Writing is cheap where it can be: the log keeps the JSON lines it has already written and
  their UTF-8 bytes (``EventLog.lines``, ``EventLog.utf8``), and a read match splits its log
  into lines and parses them only when someone reads the events (a snapshot read back only
  for its state never splits the log).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import OrderedDict
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from components.battle import AiMemory, Journal, Randomness, RulesetState
from components.changes import Revisions, TableChanges
from components.decisions import FlowStack, Inbox, PendingDecision
from components.identity import Controller, Identity
from components.outcome import Outcome
from components.spatial import Body, Facing, Position, Posture, Stance, normalize_degrees
from components.specs import ScenarioSpec
from components.state import ActionPoints, DefenceState, Health, RuleStats, TurnState
from components.turns import ActiveTurn, Round
from game.core.codec import decode, encode
from game.core.errors import SkirmishError
from game.core.events import EventLog
from game.dice.stream import Stream
from game.engine.build import stats_of
from game.rules import RULESET_NAMES, get_ruleset
from game.scenario.embed import has_embedded, rebuild
from systems import install
from systems.store import Store

FORMAT = "skirmish-snapshot"
VERSION = 1
#: The largest snapshot read (bytes): a 40v40 battle's is a few megabytes.
MAX_BYTES = 256 * 1024 * 1024


class SnapshotError(SkirmishError):
    """Bytes that are not a snapshot this program can read; the message names the source."""


def write_snapshot(match: Any) -> bytes:
    """The match as bytes (see the module docstring)."""
    log: EventLog = match.log
    if not log.events or not has_embedded(log.events[0]):
        raise SnapshotError("a match of a scenario built in code cannot be written down (no text to embed)")
    state = json.dumps(_state(match), separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text = log.utf8()  # the log's text, its earlier lines encoded once (EventLog.utf8)
    digest = hashlib.sha256(state)
    digest.update(b"\n")
    digest.update(text)  # the body's hash without building the body twice
    header = {
        "format": FORMAT,
        "version": VERSION,
        "sha256": digest.hexdigest(),
        "state_bytes": len(state),
    }
    return b"".join((json.dumps(header, separators=(",", ":")).encode("ascii"), b"\n", state, b"\n", text))


def _state(match: Any) -> dict[str, Any]:
    store: Store = match.store
    get = store.get
    units = {}
    for uid in store.units():
        p, h, ap, turn = get(uid, Position), get(uid, Health), get(uid, ActionPoints), get(uid, TurnState)
        units[uid] = {
            "at": [p.x, p.y],
            "facing": get(uid, Facing).degrees,
            "posture": str(get(uid, Stance).posture),
            "ap": [ap.current, ap.maximum],
            "tracks": dict(h.tracks),
            "maxima": dict(h.maxima),
            "status": sorted(h.status),
            "moved": turn.moved,
            "attacked_with": sorted(turn.attacked_with),
            "stepped": turn.stepped,
            "turn_record": encode(turn.record),
            "defence_record": encode(get(uid, DefenceState).record),
            "controller": get(uid, Controller).policy,
        }
    rnd, active, stack = store.battle(Round), store.battle(ActiveTurn), store.battle(FlowStack)
    rng: Randomness = store.battle(Randomness)
    outcome = store.battle(Outcome) if store.has_battle(Outcome) else None
    return {
        "units": units,
        "round": {"number": rnd.number, "limit": rnd.limit, "order": list(rnd.order)},
        "turn": {"unit": active.unit, "over": active.over, "commands": active.commands},
        "flow": {"frames": encode(stack.frames), "asking": encode(stack.asking)},
        "rules_state": encode(store.battle(RulesetState).value),
        "ai_memory": {t: dict(m) for t, m in store.battle(AiMemory).topics.items()},
        "random": {"dice": rng.dice.state(), "ai": rng.ai.state()},
        "outcome": None
        if outcome is None
        else {"winner": outcome.winner, "reason": outcome.reason, "rounds": outcome.rounds},
    }


# ---------------------------------------------------------------------------------- reading
@dataclass(frozen=True)
class _Parts:
    state: dict[str, Any]
    first: str  # the log's first line (its match_start)
    log: str  # the log's lines, split when first read (EventLog.from_text)


@dataclass(frozen=True)
class _Family:
    """What every snapshot of one match shares, read once per process: its ``match_start``, the
    scenario rebuilt from it (validated by the loader), the ruleset (rulesets keep no match
    state), its systems and the units' validated stat blocks."""

    start: dict[str, Any]
    spec: ScenarioSpec
    rules: Any
    systems: Any
    stats: dict[str, Any]


#: Families by their ``match_start`` line, most recently used last.
_FAMILIES: OrderedDict[str, _Family] = OrderedDict()


def _family(line: str, source: str) -> _Family:
    got = _FAMILIES.get(line)
    if got is not None:
        _FAMILIES.move_to_end(line)
        return got
    start = _header(line, source)
    spec = rebuild(start, source)
    ruleset = start["ruleset"]
    rules = get_ruleset(ruleset, dict(start.get("options") or {}))
    got = _Family(
        start,
        spec,
        rules,
        None,
        {u.id: stats_of(spec, rules, ruleset, u) for u in spec.units},
    )
    _FAMILIES[line] = got
    if len(_FAMILIES) > 16:
        _FAMILIES.popitem(last=False)
    return got


def read_snapshot(data: bytes, source: str, kinds: tuple[type, type]) -> Any:
    """The match ``data`` holds (see the module docstring); :class:`SnapshotError` if none."""
    parts = _split(data, source)
    try:
        return _restore(parts, source, kinds)
    except SnapshotError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, SkirmishError) as e:
        raise SnapshotError(f"{source}: not a snapshot this program can read: {e}") from None


def _split(data: bytes, source: str) -> _Parts:
    if not isinstance(data, (bytes, bytearray)):
        raise SnapshotError(f"{source}: a snapshot is bytes, not {type(data).__name__}")
    if len(data) > MAX_BYTES:
        raise SnapshotError(f"{source}: {len(data)} bytes is more than a snapshot may hold ({MAX_BYTES})")
    head, sep, body = bytes(data).partition(b"\n")
    if not sep:
        raise SnapshotError(f"{source}: not a skirmish snapshot (no header line)")
    try:
        header = json.loads(head.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        raise SnapshotError(f"{source}: not a skirmish snapshot (the header line is not JSON)") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise SnapshotError(f"{source}: not a skirmish snapshot")
    if header.get("version") != VERSION:
        raise SnapshotError(
            f"{source}: snapshot version {header.get('version')!r}; this program reads version {VERSION}"
        )
    if hashlib.sha256(body).hexdigest() != header.get("sha256"):
        raise SnapshotError(f"{source}: the checksum does not match: the snapshot was changed or cut short")
    n = header.get("state_bytes")
    if type(n) is not int or not 0 < n < len(body) or body[n : n + 1] != b"\n":
        raise SnapshotError(f"{source}: the header's state_bytes does not fit the snapshot")
    try:
        state = json.loads(body[:n].decode("utf-8"))
        log = body[n + 1 :].decode("utf-8")
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise SnapshotError(f"{source}: the state is not UTF-8 JSON") from None
    if not isinstance(state, dict):
        raise SnapshotError(f"{source}: the state is not a JSON object")
    if not log:
        raise SnapshotError(f"{source}: the snapshot holds no event log")
    # The log's first line as ``log.splitlines()[0]``, without splitting the rest: splitting a
    # long log cost more than restoring the state (the lines are split when first read).
    end = log.find("\n")
    first = log if end < 0 else log[:end]
    return _Parts(state, first.splitlines()[0] if first else "", log)


def _header(line: str, source: str) -> dict[str, Any]:
    try:
        start = json.loads(line)
    except ValueError:
        raise SnapshotError(f"{source}: the log's first line is not JSON") from None
    if not isinstance(start, dict) or start.get("type") != "match_start" or not has_embedded(start):
        raise SnapshotError(f"{source}: the log does not start with a match_start embedding its scenario")
    if start.get("ruleset") not in RULESET_NAMES:
        raise SnapshotError(f"{source}: unknown ruleset {start.get('ruleset')!r}")
    return start


def _str(v: Any, what: str) -> str:
    if type(v) is not str:
        raise TypeError(f"{what} must be a string")
    return v


def _int(v: Any, what: str) -> int:
    if type(v) is not int:
        raise TypeError(f"{what} must be an integer")
    return v


def _num(v: Any, what: str) -> float:
    if type(v) not in (int, float) or not math.isfinite(v):
        raise TypeError(f"{what} must be a finite number")
    return float(v)


def _counts(v: Any, what: str) -> dict[str, int]:
    if not isinstance(v, dict):
        raise TypeError(f"{what} must be an object")
    return {_str(k, what): _int(x, f"{what}.{k}") for k, x in v.items()}


def _restore(parts: _Parts, source: str, kinds: tuple[type, type]) -> Any:
    Match, MatchDice = kinds  # the caller's classes (game.engine.match): no import cycle

    family = _family(parts.first, source)
    start, spec, rules = family.start, family.spec, family.rules
    state = parts.state
    ruleset = start["ruleset"]
    controllers = {s: _str(c, f"controllers.{s}") for s, c in dict(start.get("controllers") or {}).items()}
    units = state["units"]
    if not isinstance(units, dict) or list(units) != [u.id for u in spec.units]:
        raise SnapshotError(f"{source}: the state's units are not the scenario's")

    store = Store()
    try:
        for u in spec.units:
            rec = units[u.id]
            stats = family.stats[u.id]
            ap = rec["ap"]
            if not isinstance(ap, list) or len(ap) != 2:
                raise TypeError(f"units.{u.id}.ap must be [current, maximum]")
            at = rec["at"]
            if not isinstance(at, list) or len(at) != 2:
                raise TypeError(f"units.{u.id}.at must be [x, y]")
            status = rec["status"]
            if not isinstance(status, list):
                raise TypeError(f"units.{u.id}.status must be a list")
            attacked = rec["attacked_with"]
            if not isinstance(attacked, list):
                raise TypeError(f"units.{u.id}.attacked_with must be a list")
            store.add_unit(
                u.id,
                Identity(u.id, u.side),
                Position(_num(at[0], "x"), _num(at[1], "y")),
                Body(u.base, u.size),
                Facing(normalize_degrees(_num(rec["facing"], f"units.{u.id}.facing"))),
                Stance(Posture(rec["posture"])),
                ActionPoints(_int(ap[0], "ap"), _int(ap[1], "ap")),
                Health(
                    _counts(rec["tracks"], f"units.{u.id}.tracks"),
                    _counts(rec["maxima"], f"units.{u.id}.maxima"),
                    frozenset(_str(s, "status") for s in status),
                ),
                DefenceState(decode(rec["defence_record"])),
                TurnState(
                    _num(rec["moved"], "moved"),
                    frozenset(_str(w, "attacked_with") for w in attacked),
                    bool(rec["stepped"]),
                    decode(rec["turn_record"]),
                ),
                RuleStats(u.profile or "trooper", stats),
                Controller(_str(rec["controller"], f"units.{u.id}.controller")),
            )
        rnd, turn, flow, random = state["round"], state["turn"], state["flow"], state["random"]
        order = rnd["order"]
        if not isinstance(order, list) or any(o not in units for o in order):
            raise TypeError("round.order must list units of the scenario")
        active = turn["unit"]
        if active is not None and active not in units:
            raise TypeError("turn.unit must be a unit of the scenario")
        frames = decode(flow["frames"])
        asking = decode(flow["asking"])
        if not isinstance(frames, tuple) or (frames and not isinstance(asking, tuple)):
            raise TypeError("flow.frames must be frames, and a flow in progress asks something")
        memory = AiMemory()
        for topic, entries in dict(state["ai_memory"]).items():
            for unit, value in dict(entries).items():
                memory = memory.remembered(
                    _str(topic, "ai_memory"), _str(unit, "ai_memory"), _str(value, "ai_memory")
                )
        log = EventLog.from_text(parts.log)
        store.add_battle(
            Round(_int(rnd["number"], "round.number"), _int(rnd["limit"], "round.limit"), tuple(order)),
            ActiveTurn(active, bool(turn["over"]), _int(turn["commands"], "turn.commands")),
            PendingDecision(),
            Inbox(),
            FlowStack(frames, asking),
            Revisions(MappingProxyType(dict.fromkeys(units, 0))),
            TableChanges(),
            RulesetState(decode(state["rules_state"])),
            memory,
            Randomness(Stream.from_state(random["dice"]), Stream.from_state(random["ai"])),
            Journal(log),
        )
        outcome = state["outcome"]
        if outcome is not None:
            store.put_battle(
                Outcome(
                    outcome["winner"],
                    _str(outcome["reason"], "outcome.reason"),
                    _int(outcome["rounds"], "rounds"),
                )
            )
        match: Any = object.__new__(Match)
        match.spec = spec
        match.ruleset_name = ruleset
        match.rules = rules
        match.seed = _int(start.get("seed"), "seed")
        match.yards_per_inch = spec.yards_per_inch
        match.controllers = {s: controllers.get(s, spec.controllers.get(s, "random")) for s in spec.sides}
        match.store = store
        match.systems = install(store, spec, rules)
        match._mirror = None  # derived: built when first read
        match.dice = MatchDice(store)
        match._log = log
        # The pending decision is derived too: built when first asked (Match.pending).
        match._decide = outcome is None
        return match
    except BaseException:
        store.close()
        raise
