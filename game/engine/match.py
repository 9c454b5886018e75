"""One match: a store of its state, the systems that change it, and the decision loop.

Contract (AEC-like, after PettingZoo/OpenSpiel):
- ``Match(spec, ruleset=..., seed=...)`` builds a fresh store (:func:`~game.engine.build.build_store`:
  an esper world of its own), installs the systems (``systems.install``) and runs until the
  first decision. ``pending`` is the :class:`~game.core.commands.Decision` the match waits
  for: the active unit's turn, or a reaction (defence, retreat point, dodge move) of any unit.
  ``apply(cmd)`` checks ``cmd`` against ``pending.options``; an illegal command raises
  :class:`~game.core.errors.IllegalCommand` and changes nothing. ``outcome`` is set when the
  match is over.
- **The match is a value.** Every piece of its state is a component in its store
  (:class:`~systems.store.Store`): the units' places, postures, AP, health and per-turn
  bookkeeping (with the ruleset's frozen records), and on the battle entity the round, the
  turn, the pending decision, the rule flow in progress as frames (``game.core.flow``), the
  ruleset's battle-wide bookkeeping, the AI's memory, the two random streams and the event
  log. The arena (the numpy mirror of the table, sight facts, paths) is derived from the
  components by the sight system; the decision is a value built from them.
- :meth:`Match.clone` is an independent, exact copy: the store forked (the immutable
  components shared, the random streams and the log forked), the arena forked, the systems
  and the ruleset shared (they keep no match state). Answered alike, a match and its clone
  write the same events; playing one never changes the other.
- :meth:`Match.snapshot` / :meth:`Match.from_snapshot` write the match as versioned,
  checksummed bytes and read it back exactly (:mod:`game.engine.snapshot`).
- Randomness: one ``numpy.random.SeedSequence(seed)`` per match is spawned into two streams:
  ``rng`` for every dice draw (logged through ``dice``) and ``ai_rng`` for AI policies.
  Keeping the AI on its own stream means a saved game (seed + commands) replays exactly
  whoever made the choices, and the dice do not shift when one side's policy changes.
- The match implements :class:`game.core.battle.Battle`: rulesets read through it and ask for
  changes through it; each change is carried out by the system that owns it, which writes
  its event. The systems do the per-step work through the store's ``esper.process(match)``.
- A match's esper world is deleted by :meth:`close`, or when the match is garbage-collected.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np

from components.battle import AiMemory, Journal, Randomness, RulesetState
from components.changes import Revisions
from components.decisions import FlowStack, Inbox, PendingDecision
from components.identity import Controller, Identity
from components.outcome import Outcome
from components.sight import SightFacts
from components.spatial import Body, Facing, Position, Posture, Stance
from components.specs import ScenarioSpec
from components.state import ActionPoints, DefenceState, Health, RuleStats, TurnState
from components.turns import ActiveTurn, Round
from game import __version__
from game.battlefield.arena import Arena
from game.core.battle import Region
from game.core.commands import Command, Decision, Point, command_to_json, find_option
from game.core.errors import IllegalCommand
from game.core.events import EventLog, round_pos
from game.dice import Dice
from game.dice.stream import Stream
from game.dice.synced import SyncedRolls
from game.engine.build import build_store
from game.rules import get_ruleset
from game.rules.base import Ruleset
from game.scenario.embed import embedded
from systems import Systems, install
from systems.store import Store

#: A guard: the loop runs the systems at most this many times per command.
MAX_STEPS = 10_000


class MatchDice(Dice):
    """The match's logged dice: every draw from the store's dice stream, logged in its journal
    (reads the store on each roll, so a clone's dice are its own)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        # The store's random streams and log are fixed objects for its life (forked with it).
        self._stream: Stream = store.battle(Randomness).dice
        self._journal: EventLog = store.battle(Journal).log

    @property
    def rng(self) -> np.random.Generator:  # type: ignore[override]
        return self._stream.generator

    def _log(self, payload: dict[str, Any]) -> None:  # type: ignore[override]
        self._journal.append(self._store.battle(Round).number, "roll", payload)


class SyncedMatchDice(MatchDice):
    """A search clone's dice: each roll's faces keyed by what the roll is (game.dice.synced),
    logged in the clone's journal like any roll."""

    def __init__(self, store: Store, seed: int) -> None:
        super().__init__(store)
        self._rolls = SyncedRolls(seed)

    def roll(self, n: int, sides: int, purpose: str, unit: str | None = None) -> list[int]:
        faces = self._rolls.faces(self._store.battle(Round).number, unit, purpose, n, sides)
        self._log({"purpose": purpose, "unit": unit, "dice": f"{n}d{sides}", "faces": faces})
        return faces


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
        self.rules: Ruleset = get_ruleset(self.ruleset_name, opts)  # type: ignore[type-arg]
        self.seed = int(seed)
        self.yards_per_inch = spec.yards_per_inch
        self.controllers = {
            s: (controllers or {}).get(s, spec.controllers.get(s, "random")) for s in spec.sides
        }
        dice_seq, ai_seq = np.random.SeedSequence(self.seed).spawn(2)
        self.store = build_store(
            spec,
            self.rules,
            self.ruleset_name,
            self.controllers,
            int(round_limit or spec.round_limit),
            Randomness(Stream.seeded(dice_seq), Stream.seeded(ai_seq)),
            Journal(EventLog()),
        )
        self.systems: Systems = install(self.store, spec, self.rules)
        self._mirror: Arena | None = self.systems.sight.build(spec, self.store)
        self._decide = False
        self.dice = MatchDice(self.store)
        self._log: EventLog | None = None
        self._log_start()
        self._run()

    # ------------------------------------------------------------------ a value
    def clone(self, dice_seed: int | None = None, *, synced: bool = False) -> Match:
        """An independent, exact copy of this match (see the module docstring).

        With ``dice_seed`` the copy's dice stream is a fresh one seeded with it (the AI stream is
        still forked): a search plays a *determinized* future there, its dice its own, without
        reading the real match's next rolls. ``synced`` (with ``dice_seed``): each roll's faces are
        keyed by what the roll is instead of drawn in turn (game.dice.synced), so clones with the
        same seed that differ by one command roll alike wherever that command changed nothing."""
        twin = object.__new__(Match)
        twin.spec = self.spec
        twin.ruleset_name = self.ruleset_name
        twin.rules = self.rules
        twin.seed = self.seed
        twin.yards_per_inch = self.yards_per_inch
        twin.controllers = self.controllers
        twin.systems = self.systems
        twin.store = self.store.fork()
        twin._mirror = None if self._mirror is None else self._mirror.fork()
        twin._decide = self._decide
        if dice_seed is not None:
            ai = twin.store.battle(Randomness).ai
            twin.store.put_battle(Randomness(Stream.seeded(np.random.SeedSequence(dice_seed)), ai))
        twin.dice = (
            SyncedMatchDice(twin.store, dice_seed)
            if synced and dice_seed is not None
            else MatchDice(twin.store)
        )
        twin._log = None
        return twin

    def snapshot(self) -> bytes:
        """The match as versioned, checksummed bytes (:mod:`game.engine.snapshot`)."""
        from game.engine.snapshot import write_snapshot

        return write_snapshot(self)

    @classmethod
    def from_snapshot(cls, data: bytes, source: str = "<snapshot>") -> Match:
        """The match :meth:`snapshot` wrote (``SnapshotError`` naming ``source`` if it is not one)."""
        from game.engine.snapshot import read_snapshot

        return read_snapshot(data, source, (cls, MatchDice))

    # ------------------------------------------------------------------ world
    @contextmanager
    def activated(self) -> Iterator[None]:
        """Make this match's esper world current for the block (esper's API is module-level)."""
        self.store.activate()
        yield

    def close(self) -> None:
        """Delete this match's esper world (a finished match need not be kept in memory)."""
        self.store.close()

    @property
    def mirror(self) -> Arena:
        """The numpy mirror of the table as the sight system last synced it (built from the
        components when first needed: a restored snapshot builds it then)."""
        got = self._mirror
        if got is None:
            got = self._mirror = self.systems.sight.build(self.spec, self.store)
        return got

    @property
    def arena(self) -> Arena:
        """The table's sight and movement geometry, synced with the components."""
        return self.systems.sight.table(self)

    # ------------------------------------------------------------- the loop
    @property
    def pending(self) -> Decision | None:
        """The decision the match waits for (``None`` once it is over)."""
        decision: Decision | None = self.store.battle(PendingDecision).decision
        if decision is None and self._decide:
            decision = self._decision_again()
        return decision

    def _decision_again(self) -> Decision:
        """The pending decision of a restored snapshot, built from the state when first asked
        (a decision is a value derived from the state: the one the written match waited for)."""
        store = self.store
        decision = self.systems.dispatch.asked(self) if store.battle(FlowStack).frames else None
        active = store.battle(ActiveTurn).unit
        if decision is None and active is not None:
            decision = self.systems.turns.decision(self, active)
        if decision is None:
            raise RuntimeError("the state waits for no decision and the match is not over")
        store.put_battle(PendingDecision(decision))
        self._decide = False
        return decision

    @property
    def outcome(self) -> Outcome | None:
        """How the match ended, or ``None`` while it runs."""
        store = self.store
        return store.battle(Outcome) if store.has_battle(Outcome) else None

    @property
    def round(self) -> int:
        number: int = self.store.battle(Round).number
        return number

    @property
    def round_limit(self) -> int:
        limit: int = self.store.battle(Round).limit
        return limit

    @property
    def active(self) -> str | None:
        """The unit whose turn it is."""
        uid: str | None = self.store.battle(ActiveTurn).unit
        return uid

    def active_unit(self) -> str | None:
        return self.active

    @property
    def flow(self) -> FlowStack:
        """The rule flow in progress, as frames (empty between flows)."""
        stack: FlowStack = self.store.battle(FlowStack)
        return stack

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
        self.emit("command", unit=decision.unit, decision=decision.kind, command=command_to_json(cmd))
        self.store.put_battle(Inbox(cmd), PendingDecision())
        self._run()

    def _run(self) -> None:
        """Run the systems until a decision is pending or the match is over."""
        store = self.store
        for _ in range(MAX_STEPS):
            store.process(self)
            if store.battle(PendingDecision).decision is not None or store.has_battle(Outcome):
                return
        raise RuntimeError("match made no progress")  # pragma: no cover - a bug guard

    @property
    def commands(self) -> list[dict[str, Any]]:
        """Every command applied so far, as logged (for saves and replays)."""
        return [e["command"] for e in self.log.events if e["type"] == "command"]

    # ------------------------------------------------------------- events
    @property
    def log(self) -> EventLog:
        """The match's event log (the store's ``Journal``: one object for the store's life, forked
        with it)."""
        log = self._log
        if log is None:
            log = self._log = self.store.battle(Journal).log
        return log

    def emit(self, type: str, **fields: Any) -> None:
        self.log.append(self.store.battle(Round).number, type, fields)

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
            # The scenario's text and the profiles its units use, with their hashes: the log
            # replays anywhere, whatever happens to the files since (game.scenario.embed).
            **embedded(self.spec, self.ruleset_name),
        )

    def state_hash(self) -> str:
        """A short hash of everything that matters for the rest of the match."""
        return self.store.state_hash()

    # ------------------------------------------------------- randomness, AI memory
    @property
    def rng(self) -> np.random.Generator:
        """The dice stream's generator (every draw of it is a logged roll)."""
        return self.store.battle(Randomness).dice.generator

    @property
    def ai_rng(self) -> np.random.Generator:
        """The AI policies' random stream."""
        return self.store.battle(Randomness).ai.generator

    @property
    def ai_memory(self) -> Mapping[str, Mapping[str, str]]:
        """What the AI policies remember that no event holds (read-only; :meth:`remember`)."""
        topics: Mapping[str, Mapping[str, str]] = self.store.battle(AiMemory).topics
        return topics

    def remember(self, topic: str, unit: str, value: str) -> None:
        """AI memory: remember ``value`` for ``unit`` under ``topic`` (e.g. its quarry)."""
        store = self.store
        store.put_battle(store.battle(AiMemory).remembered(topic, unit, value))

    def set_ai_memory(self, topics: Mapping[str, Mapping[str, str]]) -> None:
        """Replace the whole AI memory (a loaded save's)."""
        memory = AiMemory()
        for topic, entries in topics.items():
            for unit, value in entries.items():
                memory = memory.remembered(topic, unit, value)
        self.store.put_battle(memory)

    @property
    def changes(self) -> Mapping[str, int]:
        """Per unit, a count of the changes to what a :class:`~game.engine.view.UnitView` shows
        (place, facing, posture, AP, health): views keep a unit's snapshot while its count
        stands."""
        counts: Mapping[str, int] = self.store.battle(Revisions).by_unit
        return counts

    # ------------------------------------------------------- Battle: reading
    def units(self, alive: bool = True) -> list[str]:
        return list(self.store.in_action() if alive else self.store.eid)

    def sides_in_action(self) -> list[str]:
        """The sides with at least one unit in action, sorted."""
        side = self.store.side
        return sorted({side[u] for u in self.store.in_action()})

    def side(self, uid: str) -> str:
        try:
            return self.store.side[uid]
        except KeyError:
            return self.store.get(uid, Identity).side  # words the error

    def stats(self, uid: str) -> Any:
        try:
            return self.store.rules_stats[uid].stats
        except KeyError:
            return self.store.get(uid, RuleStats).stats

    def profile(self, uid: str) -> str:
        return self.store.get(uid, RuleStats).profile

    def pos(self, uid: str) -> Point:
        p = self.store.get(uid, Position)
        return (p.x, p.y)

    def facing(self, uid: str) -> float:
        return self.store.get(uid, Facing).degrees

    def posture(self, uid: str) -> Posture:
        return self.store.get(uid, Stance).posture

    def body(self, uid: str) -> Body:
        try:
            return self.store.body[uid]
        except KeyError:
            return self.store.get(uid, Body)

    def health(self, uid: str) -> Health:
        return self.store.get(uid, Health)

    def ap(self, uid: str) -> ActionPoints:
        return self.store.get(uid, ActionPoints)

    def defence(self, uid: str) -> DefenceState:
        return self.store.get(uid, DefenceState)

    def turn(self, uid: str) -> TurnState:
        return self.store.get(uid, TurnState)

    def controller(self, uid: str) -> str:
        return self.store.get(uid, Controller).policy

    @property
    def rules_state(self) -> Any:
        return self.store.battle(RulesetState).value

    def sight(self, attacker: str, target: str) -> SightFacts:
        return self.arena.sight(attacker, target)

    def distance(self, a: str, b: str) -> float:
        pa, pb = self.pos(a), self.pos(b)
        return math.hypot(pb[0] - pa[0], pb[1] - pa[1])

    def enemies(self, uid: str) -> list[str]:
        side = self.store.side
        me = self.side(uid)
        return [u for u in self.store.in_action() if side[u] != me]

    def friends(self, uid: str) -> list[str]:
        side = self.store.side
        me = self.side(uid)
        return [u for u in self.store.in_action() if u != uid and side[u] == me]

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

    # ------------------------------------------------ Battle: changing (systems)
    def damage(self, uid: str, deltas: dict[str, int], source: str | None, **detail: Any) -> None:
        self.systems.casualties.damage(self, uid, deltas, source, **detail)

    def set_status(self, uid: str, flag: str, on: bool, reason: str) -> None:
        self.systems.casualties.set_status(self, uid, flag, on, reason)

    def spend_ap(self, uid: str, n: int, reason: str) -> None:
        self.systems.turns.spend_ap(self, uid, n, reason)

    def move_unit(self, uid: str, to: Point, kind: str, ap: int = 0) -> None:
        self.systems.movement.move(self, uid, to, kind, ap)

    def set_posture(self, uid: str, posture: Posture, kind: str = "posture", ap: int = 0) -> None:
        self.systems.posture.set_posture(self, uid, posture, kind, ap)

    def set_facing(self, uid: str, degrees: float, ap: int = 0) -> None:
        self.systems.posture.set_facing(self, uid, degrees, ap)

    def set_turn(self, uid: str, state: TurnState) -> None:
        self.store.put(uid, state)

    def set_defence(self, uid: str, state: DefenceState) -> None:
        self.store.put(uid, state)

    def set_rules_state(self, value: Any) -> None:
        self.store.put_battle(RulesetState(value))
