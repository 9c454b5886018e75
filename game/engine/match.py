"""One match: an esper world, its systems, the seeded dice, the event log and the decision loop.

Contract (AEC-like, after PettingZoo/OpenSpiel):
- ``Match(spec, ruleset=..., seed=...)`` builds a fresh esper world of its own
  (:func:`~game.engine.world.build_world`: matches in one process never share entities),
  installs the systems (``systems.install``) and runs until the first decision.
  ``pending`` is the :class:`~game.core.commands.Decision` the match waits for: the active
  unit's turn, or a reaction (defence, retreat point, dodge move) of any unit. ``apply(cmd)``
  checks ``cmd`` against ``pending.options``; an illegal command raises
  :class:`~game.core.errors.IllegalCommand` and changes nothing. ``outcome`` is set when the
  match is over.
- The world is the one store of state: every unit's components and the loop state (round,
  active turn, inbox, pending decision, running flow, outcome) on the battle entity. The
  match reads them through esper's own tables (:class:`~systems.world.World`) and keeps no
  copy; ``arena`` is the sight system's numpy mirror, synced on every read.
- Randomness: one ``numpy.random.SeedSequence(seed)`` per match is spawned into
  two generators: ``rng`` for every dice draw (logged through ``dice``) and
  ``ai_rng`` for AI policies. Keeping the AI on its own stream means a saved
  game (seed + commands) replays exactly whoever made the choices, and the
  dice do not shift when one side's policy changes.
- The match implements :class:`game.core.battle.Battle`: rulesets read through it and ask
  for changes through it; each change is carried out by the system that owns it, which
  writes its event. The systems do the per-step work through ``esper.process(match)``.
- The world holds the running flow and the pending decision, which refer to the match:
  ``close()`` a match when done with it (that deletes its world).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import esper
import numpy as np

from components.battle import RulesetState
from components.changes import Revisions
from components.decisions import Inbox, PendingDecision
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
from game.engine.world import build_world
from game.rules import get_ruleset
from game.rules.base import Ruleset
from game.scenario.embed import embedded
from systems import install

_world_ids = itertools.count()


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
        self.yards_per_inch = spec.yards_per_inch
        self.controllers = {
            s: (controllers or {}).get(s, spec.controllers.get(s, "random")) for s in spec.sides
        }
        self.commands: list[dict[str, Any]] = []  # every applied command, for saves and replays

        self.world = build_world(
            f"skirmish-match-{next(_world_ids)}",
            spec,
            self.rules,
            self.ruleset_name,
            self.controllers,
            int(round_limit or spec.round_limit),
        )
        self.systems = install(self.world, spec, self.rules)
        self._sight = self.systems.sight
        self._units = self.world.units
        self._battle = self.world.battle
        self._log_start()
        self._run()

    @property
    def changes(self) -> Mapping[str, int]:
        """Per unit, a count of the changes to what a :class:`~game.engine.view.UnitView` shows
        (place, facing, posture, AP, health): views keep a unit's snapshot while its count
        stands."""
        counts: Mapping[str, int] = self._battle[Revisions].by_unit
        return counts

    # ------------------------------------------------------------------ world
    @contextmanager
    def activated(self) -> Iterator[None]:
        """Make this match's esper world current (esper's API is module-level)."""
        with self.world.activated():
            yield

    def close(self) -> None:
        """Delete this match's esper world (a finished match need not be kept in memory)."""
        self.world.close()

    @property
    def arena(self) -> Arena:
        """The table's sight and movement geometry, synced with the components."""
        return self._sight.table()

    # ------------------------------------------------------------- the loop
    @property
    def pending(self) -> Decision | None:
        """The decision the match waits for (``None`` once it is over)."""
        decision: Decision | None = self._battle[PendingDecision].decision
        return decision

    @property
    def outcome(self) -> Outcome | None:
        """How the match ended, or ``None`` while it runs."""
        got: Outcome | None = self._battle.get(Outcome)
        return got

    @property
    def round(self) -> int:
        number: int = self._battle[Round].number
        return number

    @property
    def round_limit(self) -> int:
        limit: int = self._battle[Round].limit
        return limit

    @property
    def active(self) -> str | None:
        """The unit whose turn it is."""
        uid: str | None = self._battle[ActiveTurn].unit
        return uid

    def active_unit(self) -> str | None:
        return self.active

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
        self.world.replace(self.world.battle_eid, Inbox(cmd), PendingDecision())
        self._run()

    def _run(self) -> None:
        """Run the systems until a decision is pending or the match is over."""
        battle = self._battle
        # ``activated()`` spelt out: this runs after every command.
        previous = esper.current_world
        if previous != self.world.name:
            esper.switch_world(self.world.name)
        try:
            for _ in range(10_000):
                esper.process(self)
                if battle[PendingDecision].decision is not None or Outcome in battle:
                    return
        finally:
            if previous != self.world.name and previous in esper.list_worlds():
                esper.switch_world(previous)
        raise RuntimeError("match made no progress")  # pragma: no cover - a bug guard

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
            # The scenario's text and the profiles its units use, with their hashes: the log
            # replays anywhere, whatever happens to the files since (game.scenario.embed).
            **embedded(self.spec, self.ruleset_name),
        )

    def state_hash(self) -> str:
        """A short hash of everything that matters for the rest of the match."""
        return self.world.state_hash()

    # ------------------------------------------------------- Battle: reading
    # The readers index esper's component tables directly (they run ~100k times a battle);
    # ``World.unit`` only words the error for an unknown unit.
    def units(self, alive: bool = True) -> list[str]:
        return list(self.world.in_action() if alive else self._units)

    def sides_in_action(self) -> list[str]:
        """The sides with at least one unit in action, sorted."""
        units = self._units
        return sorted({units[u][Identity].side for u in self.world.in_action()})

    def side(self, uid: str) -> str:
        try:
            ident: Identity = self._units[uid][Identity]
        except KeyError:
            ident = self.world.unit(uid)[Identity]
        return ident.side

    def stats(self, uid: str) -> Any:
        try:
            return self._units[uid][RuleStats].stats
        except KeyError:
            return self.world.unit(uid)[RuleStats].stats

    def profile(self, uid: str) -> str:
        name: str = self.world.unit(uid)[RuleStats].profile
        return name

    def pos(self, uid: str) -> Point:
        try:
            p: Position = self._units[uid][Position]
        except KeyError:
            p = self.world.unit(uid)[Position]
        return (p.x, p.y)

    def facing(self, uid: str) -> float:
        f: Facing = self.world.unit(uid)[Facing]
        return f.degrees

    def posture(self, uid: str) -> Posture:
        try:
            s: Stance = self._units[uid][Stance]
        except KeyError:
            s = self.world.unit(uid)[Stance]
        return s.posture

    def body(self, uid: str) -> Body:
        b: Body = self.world.unit(uid)[Body]
        return b

    def health(self, uid: str) -> Health:
        try:
            h: Health = self._units[uid][Health]
        except KeyError:
            h = self.world.unit(uid)[Health]
        return h

    def ap(self, uid: str) -> ActionPoints:
        try:
            a: ActionPoints = self._units[uid][ActionPoints]
        except KeyError:
            a = self.world.unit(uid)[ActionPoints]
        return a

    def defence(self, uid: str) -> DefenceState:
        d: DefenceState = self.world.unit(uid)[DefenceState]
        return d

    def turn(self, uid: str) -> TurnState:
        try:
            t: TurnState = self._units[uid][TurnState]
        except KeyError:
            t = self.world.unit(uid)[TurnState]
        return t

    @property
    def rules_state(self) -> Any:
        return self._battle[RulesetState].value

    def set_rules_state(self, value: Any) -> None:
        self.world.replace(self.world.battle_eid, RulesetState(value))

    def set_turn(self, uid: str, state: TurnState) -> None:
        self.world.replace(self.world.eid[uid], state)

    def set_defence(self, uid: str, state: DefenceState) -> None:
        self.world.replace(self.world.eid[uid], state)

    def controller(self, uid: str) -> str:
        c: Controller = self.world.unit(uid)[Controller]
        return c.policy

    def sight(self, attacker: str, target: str) -> SightFacts:
        return self._sight.table().sight(attacker, target)

    def distance(self, a: str, b: str) -> float:
        pa, pb = self.pos(a), self.pos(b)
        return math.hypot(pb[0] - pa[0], pb[1] - pa[1])

    def enemies(self, uid: str) -> list[str]:
        me, units = self.side(uid), self._units
        return [u for u in self.world.in_action() if units[u][Identity].side != me]

    def friends(self, uid: str) -> list[str]:
        me, units = self.side(uid), self._units
        return [u for u in self.world.in_action() if u != uid and units[u][Identity].side == me]

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
