"""One match: an esper world, the seeded dice, the event log and the decision loop.

Contract (AEC-like, after PettingZoo/OpenSpiel):
- ``Match(spec, ruleset=..., seed=...)`` builds a fresh esper world of its own
  (matches in one process never share entities) and runs until the first
  decision. ``pending`` is the :class:`~game.core.commands.Decision` the match waits
  for: the active unit's turn, or a reaction (defence, retreat point, dodge
  move) of any unit. ``apply(cmd)`` checks ``cmd`` against ``pending.options``;
  an illegal command raises :class:`~game.core.errors.IllegalCommand` and changes
  nothing. ``outcome`` is set when the match is over.
- Randomness: one ``numpy.random.SeedSequence(seed)`` per match is spawned into
  two generators: ``rng`` for every dice draw (logged through ``dice``) and
  ``ai_rng`` for AI policies. Keeping the AI on its own stream means a saved
  game (seed + commands) replays exactly whoever made the choices, and the
  dice do not shift when one side's policy changes.
- The match implements :class:`game.rules.base.Battle`: rulesets read and
  change the world only through it, so every change is one logged event.
- Systems (``systems/``) do the per-step work through ``esper.process(match)``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

import esper
import numpy as np

from components.identity import Controller, Identity
from components.sight import SightFacts
from components.spatial import POSTURE_HEIGHT, Body, Facing, Position, Posture, Stance, normalize_degrees
from components.specs import ScenarioSpec, UnitSpec
from components.state import ActionPoints, DefenseState, Health, RuleStats, TurnState
from game import __version__
from game.battlefield.arena import Arena
from game.core.commands import Command, Decision, Point, command_to_json, find_option
from game.core.errors import IllegalCommand, UnknownName
from game.core.events import EventLog, round_pos
from game.dice import Dice
from game.rules import get_ruleset
from game.rules.base import Flow, Region, Ruleset
from game.scenario import DEFAULT_PROFILE, resolve_stats
from systems import install_processors

_world_ids = itertools.count()

#: A guard against a controller that never ends its turn (e.g. spins on Face).
MAX_COMMANDS_PER_TURN = 64

#: Validated stat blocks by (ruleset class, ruleset, profile, raw block): see Match._stats_of.
_STATS: dict[tuple[Any, ...], Any] = {}


@dataclass(frozen=True)
class Outcome:
    """How the match ended: ``winner`` is a side, or ``None`` for a draw."""

    winner: str | None
    reason: str  # "last side standing", "round limit", "no units left"
    rounds: int


class Match:
    """A single match; see the module docstring for the contract."""

    def __init__(
        self,
        spec: ScenarioSpec,
        *,
        ruleset: str | None = None,
        seed: int = 0,
        options: dict[str, Any] | None = None,
        controllers: dict[str, str] | None = None,
        round_limit: int | None = None,
    ) -> None:
        self.spec = spec
        self.ruleset_name = ruleset or spec.ruleset
        opts = options if options is not None else spec.options.get(self.ruleset_name, {})
        self.rules: Ruleset = get_ruleset(self.ruleset_name, opts)
        self.seed = int(seed)
        dice_seq, ai_seq = np.random.SeedSequence(self.seed).spawn(2)
        self.rng = np.random.default_rng(dice_seq)
        self.ai_rng = np.random.default_rng(ai_seq)
        #: What AI policies remember between decisions that no log event holds (e.g. each
        #: unit's quarry): like ``ai_rng`` it cannot be re-derived from the commands, so a save
        #: carries it. ``{"quarry": {unit: enemy}}``; the engine never reads it.
        self.ai_memory: dict[str, dict[str, str]] = {}
        self.log = EventLog()
        self.dice = Dice(self.rng, self._log_roll)
        self.round = 0
        self.round_limit = int(round_limit or spec.round_limit)
        self.yards_per_inch = spec.yards_per_inch
        self.controllers = {
            s: (controllers or {}).get(s, spec.controllers.get(s, "random")) for s in spec.sides
        }

        self.world = f"skirmish-match-{next(_world_ids)}"
        self._eid: dict[str, int] = {}
        self._comps: dict[str, dict[type, Any]] = {}
        # The components that never change identity, by unit (hot reads of every query).
        self._side: dict[str, str] = {}
        self._health: dict[str, Health] = {}
        #: Per unit, a count of the changes to what a :class:`~game.engine.view.UnitView` shows (place,
        #: facing, posture, AP, health): views keep a unit's snapshot while its count stands.
        self.changes: dict[str, int] = {}
        # The units in action, in unit order, until the next status change (statuses change only
        # through set_status): every esper step and many rule and AI queries ask for them.
        self._in_action: list[str] | None = None
        self._order: list[str] = []  # activation order of the current round (remaining)
        self._active: str | None = None
        self._turn_over = False
        self._turn_commands = 0
        self._flow: Flow | None = None
        self._flow_decision: Decision | None = None
        self._inbox: Command | None = None
        self._casualties_seen: set[str] = set()
        self.pending: Decision | None = None
        self.outcome: Outcome | None = None
        self.commands: list[dict[str, Any]] = []  # every applied command, for saves and replays

        self.arena = Arena(spec)
        with self.activated():
            self._build_world()
            install_processors()
        self._log_start()
        self._run()

    # ------------------------------------------------------------------ world
    @contextmanager
    def activated(self) -> Iterator[None]:
        """Make this match's esper world current (esper's API is module-level)."""
        previous = esper.current_world
        esper.switch_world(self.world)
        try:
            yield
        finally:
            if previous != self.world and previous in esper.list_worlds():
                esper.switch_world(previous)

    def _build_world(self) -> None:
        for u in self.spec.units:
            stats = self._stats_of(u)
            setup = self.rules.setup_unit(stats)
            components = (
                Identity(u.id, u.side),
                Position(float(u.at[0]), float(u.at[1])),
                Body(u.base, u.size),
                Facing(normalize_degrees(u.facing)),
                Stance(Posture(u.posture)),
                ActionPoints(setup.ap_max, setup.ap_max),
                setup.health,
                DefenseState(),
                TurnState(),
                RuleStats(u.profile or "trooper", stats),
                Controller(self.controllers.get(u.side, "random")),
            )
            eid = esper.create_entity(*components)
            # Direct references to the same component objects esper stores: reading them needs
            # no world switch (the hot path of every rule and AI query).
            self._comps[u.id] = {type(c): c for c in components}
            self._eid[u.id] = eid
            self._side[u.id] = u.side
            self._health[u.id] = setup.health
            self.changes[u.id] = 0

    def _stats_of(self, u: UnitSpec) -> Any:
        """``resolve_stats`` for ``u``, remembered by the raw block it validates: validating a
        stat block (pydantic) costs more than a battle's first turn, and a batch plays the same
        blocks over and over. The models are frozen, so matches can share them."""
        block = self.spec.profiles.get(u.profile or DEFAULT_PROFILE, {}).get(self.ruleset_name)
        if block is None:
            return resolve_stats(self.spec, u, self.ruleset_name)  # a default, or an error
        key = (type(self.rules), self.ruleset_name, u.profile, repr(block))
        stats = _STATS.get(key)
        if stats is None:
            if len(_STATS) >= 1024:
                _STATS.clear()
            stats = _STATS[key] = resolve_stats(self.spec, u, self.ruleset_name)
        return stats

    def close(self) -> None:
        """Delete this match's esper world (a finished match need not be kept in memory)."""
        if self.world in esper.list_worlds():
            if esper.current_world == self.world:
                esper.switch_world("default")
            esper.delete_world(self.world)

    def _c(self, uid: str, ctype: type[Any]) -> Any:
        try:
            return self._comps[uid][ctype]
        except KeyError:
            raise UnknownName(f"no unit {uid!r}; units are {', '.join(self._eid)}") from None

    # ------------------------------------------------------------- the loop
    def apply(self, cmd: Command) -> None:
        """Apply one command answering ``pending``; raises ``IllegalCommand`` if not legal."""
        if self.outcome is not None:
            raise IllegalCommand("the match is over")
        decision = self.pending
        if decision is None:  # pragma: no cover - the loop always leaves a decision or an outcome
            raise IllegalCommand("nothing is pending")
        if getattr(cmd, "unit", None) != decision.unit:
            raise IllegalCommand(
                f"{type(cmd).__name__} for {getattr(cmd, 'unit', '?')!r}: "
                f"the match waits for {decision.unit}'s {decision.kind} decision"
            )
        try:
            find_option(decision, cmd)
        except ValueError as e:
            raise IllegalCommand(f"{type(cmd).__name__} by {decision.unit} refused: {e}") from None
        as_json = command_to_json(cmd)
        self.commands.append(as_json)
        self.emit("command", unit=decision.unit, decision=decision.kind, command=as_json)  # a copy
        self._inbox = cmd
        self.pending = None
        self._run()

    def _run(self) -> None:
        """Run systems until a decision is pending or the match is over."""
        # ``activated()`` spelt out: this runs after every command.
        previous = esper.current_world
        if previous != self.world:
            esper.switch_world(self.world)
        try:
            for _ in range(10_000):
                esper.process(self)
                if self.pending is not None or self.outcome is not None:
                    return
        finally:
            if previous != self.world and previous in esper.list_worlds():
                esper.switch_world(previous)
        raise RuntimeError("match made no progress")  # pragma: no cover - a bug guard

    # Called by systems -------------------------------------------------------
    def take_inbox(self) -> Command | None:
        cmd, self._inbox = self._inbox, None
        return cmd

    @property
    def flow_active(self) -> bool:
        return self._flow is not None

    def start_flow(self, flow: Flow) -> None:
        self._flow = flow
        self._step_flow(None, first=True)

    def answer_flow(self, cmd: Command) -> None:
        self._step_flow(cmd, first=False)

    def _step_flow(self, value: Any, first: bool) -> None:
        assert self._flow is not None
        try:
            decision = next(self._flow) if first else self._flow.send(value)
        except StopIteration:
            self._flow = None
            self._flow_decision = None
            return
        self._flow_decision = decision
        self.pending = decision

    @property
    def flow_decision(self) -> Decision | None:
        return self._flow_decision

    def end_match(self, winner: str | None, reason: str) -> None:
        if self.outcome is not None:
            return
        self.outcome = Outcome(winner, reason, self.round)
        self._flow = None
        self.pending = None
        survivors = {s: [u for u in self.units() if self.side(u) == s] for s in self.spec.sides}
        self.emit("match_end", winner=winner, reason=reason, rounds=self.round, survivors=survivors)

    # Turn bookkeeping used by systems.turns -----------------------------------
    @property
    def active(self) -> str | None:
        return self._active

    def active_unit(self) -> str | None:
        return self._active

    def next_in_order(self) -> str | None:
        while self._order:
            uid = self._order.pop(0)
            if not self.health(uid).out_of_action:
                return uid
        return None

    def set_order(self, order: list[str]) -> None:
        self._order = list(order)

    def begin_turn(self, uid: str) -> None:
        self._active = uid
        self._turn_over = False
        self._turn_commands = 0
        eid = self._eid[uid]
        comps = self._comps[uid]
        # The systems call this with the world already current: no switch needed then.
        with self.activated() if esper.current_world != self.world else nullcontext():
            for fresh in (DefenseState(), TurnState()):
                esper.add_component(eid, fresh)
                comps[type(fresh)] = fresh

    def finish_turn(self) -> None:
        self._turn_over = True

    @property
    def turn_over(self) -> bool:
        return self._turn_over

    def count_turn_command(self) -> int:
        self._turn_commands += 1
        return self._turn_commands

    def clear_active(self) -> None:
        self._active = None

    # ------------------------------------------------------------- events
    def emit(self, type: str, **fields: Any) -> None:
        self.log.append(self.round, type, fields)

    def _log_roll(self, payload: dict[str, Any]) -> None:
        self.log.append(self.round, "roll", payload)

    def _log_start(self) -> None:
        units = []
        for u in self.spec.units:
            units.append(
                {
                    "id": u.id,
                    "side": u.side,
                    "profile": u.profile or "trooper",
                    "at": round_pos(self.pos(u.id)),
                    "facing": self.facing(u.id),
                    "posture": str(self.posture(u.id)),
                    "health": dict(self.health(u.id).tracks),
                    "ap": self.ap(u.id).maximum,
                }
            )
        self.emit(
            "match_start",
            seed=self.seed,
            scenario=self.spec.name,
            scenario_sha256=self.spec.sha256,
            scenario_path=self.spec.source,
            ruleset=self.ruleset_name,
            options=self.rules.options.model_dump(mode="json"),
            version=__version__,
            round_limit=self.round_limit,
            controllers=self.controllers,
            units=units,
        )

    def state_hash(self) -> str:
        """A short hash of everything that matters for the rest of the match."""
        rows = []
        for uid in self._eid:
            h = self.health(uid)
            rows.append(
                [
                    uid,
                    round_pos(self.pos(uid)),
                    round(self.facing(uid), 6),
                    str(self.posture(uid)),
                    sorted(h.tracks.items()),
                    sorted(h.status),
                    self.ap(uid).current,
                ]
            )
        blob = json.dumps(rows, separators=(",", ":"), default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    # ------------------------------------------------------- Battle: reading
    def _alive(self) -> list[str]:
        """The units in action (the caller must not change the list)."""
        got = self._in_action
        if got is None:
            got = self._in_action = [u for u, h in self._health.items() if not h.out_of_action]
        return got

    def units(self, alive: bool = True) -> list[str]:
        return list(self._alive() if alive else self._eid)

    def sides_in_action(self) -> list[str]:
        """The sides with at least one unit in action, sorted."""
        side = self._side
        return sorted({side[u] for u in self._alive()})

    def side(self, uid: str) -> str:
        try:
            return self._side[uid]
        except KeyError:
            ident: Identity = self._c(uid, Identity)  # raises UnknownName
            return ident.side

    # The readers below index the component table directly (they run ~100k times a battle);
    # ``_c`` only words the error for an unknown unit.
    def stats(self, uid: str) -> Any:
        try:
            return self._comps[uid][RuleStats].stats
        except KeyError:
            return self._c(uid, RuleStats).stats

    def profile(self, uid: str) -> str:
        name: str = self._c(uid, RuleStats).profile
        return name

    def pos(self, uid: str) -> Point:
        try:
            p: Position = self._comps[uid][Position]
        except KeyError:
            p = self._c(uid, Position)
        return (p.x, p.y)

    def facing(self, uid: str) -> float:
        f: Facing = self._c(uid, Facing)
        return f.degrees

    def posture(self, uid: str) -> Posture:
        try:
            s: Stance = self._comps[uid][Stance]
        except KeyError:
            s = self._c(uid, Stance)
        return s.posture

    def body(self, uid: str) -> Body:
        b: Body = self._c(uid, Body)
        return b

    def health(self, uid: str) -> Health:
        try:
            return self._health[uid]
        except KeyError:
            h: Health = self._c(uid, Health)  # raises UnknownName
            return h

    def ap(self, uid: str) -> ActionPoints:
        try:
            a: ActionPoints = self._comps[uid][ActionPoints]
        except KeyError:
            a = self._c(uid, ActionPoints)
        return a

    def defense(self, uid: str) -> DefenseState:
        d: DefenseState = self._c(uid, DefenseState)
        return d

    def turn(self, uid: str) -> TurnState:
        try:
            t: TurnState = self._comps[uid][TurnState]
        except KeyError:
            t = self._c(uid, TurnState)
        return t

    def controller(self, uid: str) -> str:
        c: Controller = self._c(uid, Controller)
        return c.policy

    def sight(self, attacker: str, target: str) -> SightFacts:
        return self.arena.sight(attacker, target)

    def distance(self, a: str, b: str) -> float:
        pa, pb = self.pos(a), self.pos(b)
        return math.hypot(pb[0] - pa[0], pb[1] - pa[1])

    def enemies(self, uid: str) -> list[str]:
        me, side = self.side(uid), self._side
        return [u for u in self._alive() if side[u] != me]

    def friends(self, uid: str) -> list[str]:
        me, side = self.side(uid), self._side
        return [u for u in self._alive() if u != uid and side[u] == me]

    # ------------------------------------------------------- Battle: regions
    def step_region(self, uid: str, max_len: float) -> Region:
        return self.arena.step_region(uid, max_len)

    def retreat_region(self, uid: str, attacker: str, min_len: float, max_len: float) -> Region:
        return self.arena.retreat_region(uid, self.pos(attacker), min_len, max_len)

    def dodge_region(self, uid: str, max_len: float) -> Region:
        return self.arena.dodge_region(uid, max_len)

    def interpose_region(self, uid: str, friend: str, attacker: str, step_len: float) -> Region:
        return self.arena.interpose_region(uid, self.pos(friend), self.pos(attacker), step_len)

    def move_region(self, uid: str, max_len: float) -> Region:
        return self.arena.move_region(uid, max_len)

    def path_length(self, uid: str, to: Point) -> float | None:
        path = self.arena.path(uid, to)
        return None if path is None else path.length

    # ------------------------------------------------------ Battle: changing
    def damage(self, uid: str, deltas: dict[str, int], source: str | None, **detail: Any) -> None:
        h = self.health(uid)
        before = dict(h.tracks)
        for k, v in deltas.items():
            h.tracks[k] = h.tracks.get(k, 0) + int(v)
        self.changes[uid] += 1
        self.emit(
            "damage",
            unit=uid,
            source=source,
            deltas=dict(deltas),
            before=before,
            after=dict(h.tracks),
            **detail,
        )
        self.rules.on_damaged(self, uid)

    def set_status(self, uid: str, flag: str, on: bool, reason: str) -> None:
        h = self.health(uid)
        if (flag in h.status) == on:
            return
        was_out = h.out_of_action
        (h.status.add if on else h.status.discard)(flag)
        self.changes[uid] += 1
        self._in_action = None
        self.emit("status", unit=uid, flag=flag, on=on, reason=reason)
        if h.out_of_action and not was_out:
            self.emit("casualty", unit=uid, reason=reason, at=round_pos(self.pos(uid)))
            self.arena.remove(uid)

    def refill_ap(self, uid: str) -> None:
        """Back to full AP (the start of a round; the ``round_start`` event logs it)."""
        ap = self.ap(uid)
        ap.current = ap.maximum
        self.changes[uid] += 1

    def spend_ap(self, uid: str, n: int, reason: str) -> None:
        if n == 0:
            return
        ap = self.ap(uid)
        if n < 0 or n > ap.current:
            raise IllegalCommand(f"{uid} cannot spend {n} AP for {reason}: it has {ap.current}")
        ap.current -= n
        self.changes[uid] += 1
        self.emit("ap", unit=uid, spent=n, left=ap.current, reason=reason)

    def move_unit(self, uid: str, to: Point, kind: str, ap: int = 0) -> None:
        path = self.arena.path(uid, to)
        if path is None:
            raise IllegalCommand(
                f"{uid} cannot reach {round_pos(to)}: {self.arena.free_reason(uid, to) or 'no path'}"
            )
        self.spend_ap(uid, ap, kind)
        p: Position = self._c(uid, Position)
        frm = (p.x, p.y)
        p.x, p.y = float(to[0]), float(to[1])
        self.changes[uid] += 1
        self.turn(uid).moved += path.length
        self.arena.update(uid, (p.x, p.y), self._height(uid), self.facing(uid))
        self.emit(
            kind,
            unit=uid,
            **{"from": round_pos(frm), "to": round_pos(to)},
            ap=ap,
            length=round(path.length, 6),
            path=[round_pos(q) for q in path.points],
        )
        self.rules.on_moved(self, uid, kind, path.length)

    def set_posture(self, uid: str, posture: Posture, kind: str = "posture", ap: int = 0) -> None:
        self.spend_ap(uid, ap, kind)
        stance: Stance = self._c(uid, Stance)
        old = stance.posture
        stance.posture = Posture(posture)
        self.changes[uid] += 1
        self.arena.update(uid, self.pos(uid), self._height(uid), self.facing(uid))
        self.emit(
            kind,
            unit=uid,
            **{"from": str(old), "to": str(stance.posture)},
            ap=ap,
            at=round_pos(self.pos(uid)),
        )

    def set_facing(self, uid: str, degrees: float, ap: int = 0) -> None:
        self.spend_ap(uid, ap, "facing")
        f: Facing = self._c(uid, Facing)
        old = f.degrees
        f.degrees = normalize_degrees(degrees)
        self.changes[uid] += 1
        self.arena.update(uid, self.pos(uid), self._height(uid), f.degrees)
        self.emit("facing", unit=uid, **{"from": round(old, 6), "to": round(f.degrees, 6)}, ap=ap)

    def _height(self, uid: str) -> float:
        return POSTURE_HEIGHT[self.posture(uid)] * self.body(uid).size
