"""The session driver: build a match and answer its decisions with AI policies (headless).

Contract:

- A :class:`Setup` is everything a match is started with besides its scenario (ruleset, seed,
  ruleset options, controllers, round limit); :meth:`Setup.build` is the one place a
  :class:`~game.engine.match.Match` is made from them (a seed outside ``0 .. 2**63-1``, which no
  log could replay, is refused), and :meth:`Setup.from_header` reads them
  back from a log's ``match_start`` event.
- A :class:`Session` holds one match, one :class:`~game.engine.view.MatchView` of it (made once,
  as the AI's memos expect) and who answers each side's decisions (its *players*): an AI policy
  name, resolved once through :func:`game.ai.get_policy` when the session is made (an unknown
  name raises ``UnknownName`` before anything is played), or :data:`HUMAN` for a side whose
  decisions the caller answers (a person in the window, a log being replayed, RL agents).
  Players default to the match's controllers, except a user policy's spec (``FILE.py:FUNCTION``)
  there, which may come from a file (a save, a log): a side whose player would be one the caller
  did not name in ``players`` is refused (``SkirmishError``), so no record ever runs code.
  ``options`` (policy name -> keyword options) makes a policy that takes options through
  :func:`game.ai.get_policy` (``--policy-option``); a side's policy with no options is the
  registered one.
- Sessions are made from (a) a scenario (spec or path) and a setup: :meth:`Session.start`;
  (b) a log's ``match_start`` header: :meth:`Session.from_header` (what replays do); (c) any
  built match: ``Session(match)``, e.g. a saved game from ``game.tools.saves.load_match``,
  which validates the save and rebuilds it through :meth:`Setup.build`.
- :meth:`Session.step` answers the pending decision with the deciding side's policy, drawing
  only from ``match.ai_rng`` (False, doing nothing, when the match is over or the decision is
  a human's). :meth:`Session.apply` applies a command the caller chose. :meth:`Session.play`
  steps until the match ends (returns the outcome) or stops early, returning None: at a
  human's decision, after ``steps`` commands, or when ``until(session)`` holds before a
  decision. ``after(session)`` runs after every command it applies (invariant checks,
  progress, frames); whatever it raises propagates. A match that reaches
  :data:`MAX_COMMANDS` applied commands without an outcome raises :class:`StuckMatch`.
- The same match, setup and players give the same commands and log in any caller: the
  policies are asked in decision order with the match's own generator. Nothing here imports
  pygame or writes files.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from components.outcome import Outcome
from components.specs import ScenarioSpec
from game.ai import Policy, get_policy, is_policy_spec
from game.core.commands import Command
from game.core.errors import SkirmishError
from game.engine.match import Match
from game.engine.view import MatchView

#: Most commands one match may take before it is declared stuck (far above any real battle).
MAX_COMMANDS = 100_000
#: Seeds are whole numbers below this: numpy takes any, but a log stores the seed as a JSON number
#: and a replay (:mod:`game.tools.headers`) accepts exactly these.
MAX_SEED = 2**63
#: Player of a side whose decisions the caller answers.
HUMAN = "human"


class StuckMatch(RuntimeError):
    """A match took ``limit`` commands (:data:`MAX_COMMANDS` unless lowered) without an outcome."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"no outcome after {limit} commands")
        self.limit = limit


@dataclass(frozen=True)
class Setup:
    """How a match starts, besides its scenario (the arguments of :class:`~game.engine.match.Match`).

    Attributes:
        ruleset: overrides the scenario's ruleset.
        seed: the match seed (dice and AI generators).
        options: ruleset options (None: the scenario's options for the ruleset).
        controllers: side -> controller name logged for the side (others: the scenario's).
        round_limit: overrides the scenario's round limit.
    """

    ruleset: str | None = None
    seed: int = 0
    options: Mapping[str, Any] | None = None
    controllers: Mapping[str, str] | None = None
    round_limit: int | None = None

    @classmethod
    def from_header(cls, start: Mapping[str, Any]) -> Setup:
        """The setup a log's ``match_start`` event records."""
        options = start.get("options")
        return cls(
            ruleset=start.get("ruleset"),
            seed=int(start.get("seed", 0)),
            options=dict(options) if options is not None else None,
            controllers=dict(start.get("controllers") or {}),
            round_limit=start.get("round_limit"),
        )

    def build(self, spec: ScenarioSpec) -> Match:
        """A fresh match on ``spec`` (raises what ``Match`` raises for a bad ruleset or options).

        Raises:
            SkirmishError: a seed that is not a whole number from 0 to 2**63-1 (its log would not
                replay).
        """
        if type(self.seed) is not int or not 0 <= self.seed < MAX_SEED:
            raise SkirmishError(f"seed: expected a whole number from 0 to 2**63-1, got {self.seed!r}")
        return Match(
            spec,
            ruleset=self.ruleset,
            seed=self.seed,
            options=dict(self.options) if self.options is not None else None,
            controllers=dict(self.controllers) if self.controllers is not None else None,
            round_limit=self.round_limit,
        )


class Session:
    """One match played by its players (see the module docstring).

    Args:
        match: the match (the session closes it in :meth:`close`).
        players: side -> AI policy name or :data:`HUMAN`, or one of those for every side;
            sides not named play as the match's controllers say.
        options: policy name -> its options (keyword arguments of its factory).

    Raises:
        UnknownName: a player names no registered AI policy (``PolicyOptionError``: bad options).
        SkirmishError: a side's player would be a user policy named only by ``match.controllers``.
    """

    def __init__(
        self,
        match: Match,
        players: Mapping[str, str] | str | None = None,
        options: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        chosen = dict.fromkeys(match.spec.sides, players) if isinstance(players, str) else players or {}
        for side in match.spec.sides:
            recorded = match.controllers[side]
            if side not in chosen and is_policy_spec(recorded):
                # The match's record (a save, a log) names the user's code: never run it unasked.
                raise SkirmishError(
                    f"side {side!r} is recorded as played by the user policy {recorded!r}; a user "
                    "policy plays only when the caller names it (players), never from a record"
                )
        self.match = match
        self.view = MatchView(match)
        #: side -> policy name or HUMAN, for every side of the scenario.
        self.players: dict[str, str] = {s: chosen.get(s, match.controllers[s]) for s in match.spec.sides}
        self.humans = frozenset(s for s, p in self.players.items() if p == HUMAN)
        made: dict[str, Policy] = {}  # one policy object per name: sides of one policy share it
        for p in set(self.players.values()) - {HUMAN}:
            made[p] = get_policy(p, **dict((options or {}).get(p, {})))
        self._policies: dict[str, Policy] = {s: made[p] for s, p in self.players.items() if p != HUMAN}
        #: Commands applied through this session (by :meth:`step`, :meth:`apply` or :meth:`play`).
        self.applied = 0

    @classmethod
    def start(
        cls,
        scenario: ScenarioSpec | str | os.PathLike[str],
        setup: Setup | None = None,
        players: Mapping[str, str] | str | None = None,
        options: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> Session:
        """A new match on ``scenario`` (a spec, or a file loaded under ``setup.ruleset``).

        Raises:
            ScenarioError: the scenario file is invalid.
            SkirmishError: unknown ruleset or policy; pydantic ``ValidationError``: bad options.
        """
        setup = setup or Setup()
        if not isinstance(scenario, ScenarioSpec):
            from game.scenario import load_scenario

            scenario = load_scenario(scenario, ruleset=setup.ruleset)
        match = setup.build(scenario)
        try:
            return cls(match, players, options)
        except BaseException:
            match.close()
            raise

    @classmethod
    def from_header(
        cls, spec: ScenarioSpec, start: Mapping[str, Any], players: Mapping[str, str] | str | None = None
    ) -> Session:
        """The match a log's ``match_start`` event describes, before its first command."""
        return cls.start(spec, Setup.from_header(start), players)

    # ------------------------------------------------------------------ playing
    def deciding(self) -> str | None:
        """The side whose decision is pending (None when the match is over)."""
        m = self.match
        if m.outcome is not None or m.pending is None:
            return None
        return m.side(m.pending.unit)

    def ai_to_move(self) -> bool:
        """Whether an AI policy answers the pending decision."""
        side = self.deciding()
        return side is not None and side in self._policies

    def step(self) -> bool:
        """Answer the pending decision with its side's policy; False (nothing done) if it is not an AI's.

        Raises:
            IllegalCommand: the policy's command was refused (the match is unchanged).
        """
        m = self.match
        decision = m.pending
        if m.outcome is not None or decision is None:
            return False
        policy = self._policies.get(m.side(decision.unit))
        if policy is None:
            return False
        m.apply(policy(self.view, decision, m.ai_rng))
        self.applied += 1
        return True

    def apply(self, cmd: Command) -> None:
        """Apply a command the caller chose (IllegalCommand if refused; the match is then unchanged)."""
        self.match.apply(cmd)
        self.applied += 1

    def play(
        self,
        *,
        steps: int | None = None,
        until: Callable[[Session], bool] | None = None,
        after: Callable[[Session], object] | None = None,
        max_commands: int | None = None,
    ) -> Outcome | None:
        """Answer decisions with the policies until the match ends; returns its outcome.

        Args:
            steps: stop after this many commands.
            until: stop when this holds, asked before every decision.
            after: called after every command applied here.
            max_commands: the stuck limit on the match's commands (default :data:`MAX_COMMANDS`).

        Returns:
            The outcome, or None when stopped first (a human's decision, ``steps``, ``until``).

        Raises:
            StuckMatch: the match has ``max_commands`` commands and no outcome.
            IllegalCommand: a policy's command was refused.
        """
        m, view, policies = self.match, self.view, self._policies
        limit = MAX_COMMANDS if max_commands is None else max_commands
        taken = 0
        while m.outcome is None:
            if (steps is not None and taken >= steps) or (until is not None and until(self)):
                return None
            decision = m.pending
            assert decision is not None  # the engine leaves a decision or an outcome
            policy = policies.get(m.side(decision.unit))
            if policy is None:
                return None
            if len(m.commands) >= limit:
                raise StuckMatch(limit)
            m.apply(policy(view, decision, m.ai_rng))
            taken += 1
            self.applied += 1
            if after is not None:
                after(self)
        return m.outcome

    # ------------------------------------------------------------------ life cycle
    def close(self) -> None:
        """Free the match's esper world."""
        self.match.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
