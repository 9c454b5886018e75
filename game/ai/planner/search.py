"""The ``planner`` policy: a portfolio search played forward through clones of the real match.

Contract:
- ``SearchPlanner(options)(view, decision, rng)`` returns a legal command of ``decision``. It is
  registered as ``planner``; the one-ply evaluator it searches with is ``planner1``
  (:mod:`game.ai.planner.onestep`), still registered under that name.
- **Search only where the scripts disagree.** The portfolio scripts (``planner1``,
  ``cautious``, ``aggressive``) are asked first; when they all give the same command it is played
  without a clone, unless that command is a turn's standing choice (a maneuver or a declaration:
  the choice the scripts weigh least well). Otherwise the **candidates** are their distinct
  commands (``planner1``'s first) and the options without a point that the turn's scripts never
  weigh (All-Out Defence and other standing maneuvers; for a reaction every defence, retreat or
  drop option), at most :data:`MAX_CANDIDATES`.
- **Sampled worlds.** Each candidate is applied to clones of the match
  (:meth:`~game.engine.view.MatchView.fork`), one per sampled world: a world is a dice seed drawn
  from ``rng`` (*determinization*: the sampled dice are the clone's own, never the real match's
  next rolls, and the same seed gives the same battle) and a script for the enemy's replies.
  Every candidate is played in the same worlds (common random numbers), and with
  ``synced_dice`` (default) a world's rolls are keyed by what they are (round, unit, purpose,
  how many such rolls came before: game.dice.synced), not drawn in turn, so the brute's blow next
  round falls alike after each candidate instead of shifting with every die a candidate rolled:
  the candidates' difference is not drowned in the dice's noise. With ``replies="mixed"``
  (default) the enemy answers as ``cautious`` in even worlds and as ``aggressive`` in odd ones:
  the opponent of Portfolio Greedy Search is a fixed script, and one fixed script rewards plans
  that only beat that script.
- **Playing a line forward.** The deciding unit finishes its own turn with the script that
  proposed the candidate (``cautious`` for options no script proposed), its friends' decisions
  are played by ``cautious`` and the enemy's by the world's script, until the deciding unit's
  turn (for a reaction: the turn it happens in) has ended and ``horizon`` more turns of other
  units have been played, the battle ends, or the line's share of the node budget (``budget``:
  commands simulated per searched decision, split evenly over candidates x ``samples``) is
  spent. At least ``samples`` worlds are played; lines mostly end at their horizon before their
  share, and what they leave buys further worlds while a round of them still fits the budget,
  up to ``max_samples``. A line's clone gets one view, which inherits what the policies already
  read of the real match's log (tactics.inherit_memo, facts.inherit_facts).
- **Value.** A line is worth the change of the deciding side's material over it, as the game
  prices it: every unit in action is worth ``ALIVE`` (evaluate.ALIVE) plus its health fraction
  (``tactics.condition``, the rules' own tracks), friends count plus and enemies minus. A
  candidate's value is the mean over its worlds; the best mean is played, ``planner1``'s own
  choice (listed first) unless another beats it by :data:`MARGIN`.
- ``time_cap_ms`` (the window's hardest level only): the search stops adding samples once the
  cap is spent; battles in benchmarks and tests use nodes alone, so they stay deterministic.
- Every random draw comes from ``rng`` (seeds for the clones, the scripts' own draws): a battle
  is a pure function of its seed. The real match is never changed, except what the scripts
  remember through ``view.remember`` (their quarry), as when they play.
- The candidates weighed, with their values, are recorded for the window's overlay
  (:mod:`game.ai.planner.trace`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import fields
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from game.ai import tactics as t
from game.ai.aggressive import aggressive_policy
from game.ai.cautious import cautious_policy
from game.ai.planner import evaluate as ev
from game.ai.planner import reserve as rs
from game.ai.planner import trace
from game.ai.planner.facts import inherit_facts, log_facts
from game.ai.planner.onestep import Planner as OneStep
from game.ai.planner.react import ap_terms
from game.ai.planner.withdraw import withdraw_policy
from game.core.commands import Attack, Command, Decision, EndTurn, Face, Maneuver, Move, Option, Step
from game.engine.view import MatchView

#: Default commands simulated per decision (over all candidates and samples).
DEFAULT_BUDGET = 48
#: Default determinizations (sampled dice streams) per candidate.
DEFAULT_SAMPLES = 2
#: Default most determinizations per candidate, while the budget lasts.
DEFAULT_MAX_SAMPLES = 2
#: Default number of other units' turns played after the deciding unit's turn.
DEFAULT_HORIZON = 1
#: Most candidates weighed per decision.
MAX_CANDIDATES = 4
#: Material a challenger must win by, over the sampled futures, to displace planner1's choice.
MARGIN = 0.05

Script = Callable[[Any, Decision, np.random.Generator], Command]

#: How the enemy may reply in a sampled line: sample k plays ``OPPONENTS[k % 2]``.
OPPONENTS: tuple[Script, ...] = (cautious_policy, aggressive_policy)


class SearchOptions(BaseModel):
    """Options of the ``planner`` policy (``--policy-option planner.KEY=VALUE``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    budget: int = Field(
        default=DEFAULT_BUDGET,
        ge=1,
        le=4096,
        description="commands simulated per decision through clones of the match (strength for time)",
    )
    samples: int = Field(
        default=DEFAULT_SAMPLES, ge=1, le=32, description="sampled dice streams per candidate, at least"
    )
    max_samples: int = Field(
        default=DEFAULT_MAX_SAMPLES,
        ge=1,
        le=64,
        description="sampled dice streams per candidate while the budget lasts, at most",
    )
    horizon: int = Field(
        default=DEFAULT_HORIZON, ge=0, le=8, description="other units' turns played after the unit's own"
    )
    replies: Literal["mixed", "cautious"] = Field(
        default="mixed",
        description="the enemy's replies in a line: 'mixed' (cautious, then aggressive, sample by "
        "sample) or 'cautious' alone",
    )
    synced_dice: bool = Field(
        default=True,
        description="roll a sampled world's dice by what each roll is (game.dice.synced), not in turn",
    )
    withdraw: bool = Field(
        default=False,
        description="add the withdraw script (out of sight, a run where only a run gets there) to the "
        "portfolio: the planner breaks contact when that pays, at about 1.5x the CPU",
    )
    time_cap_ms: int | None = Field(
        default=None, ge=1, le=60_000, description="stop searching after this many ms (window only)"
    )


#: Scripts whose proposal is a candidate only when it is one of these commands: ``withdraw``'s
#: other answers (staying put, a posture, its reactions: ``cautious``'s) are no plan of its own.
ONLY_PROPOSES: dict[str, tuple[type, ...]] = {"withdraw": (Move, Maneuver)}


def _portfolio() -> list[tuple[str, Script]]:
    return [
        ("planner1", OneStep()),
        ("cautious", cautious_policy),
        ("aggressive", aggressive_policy),
        ("withdraw", withdraw_policy),
    ]


def material(view: MatchView, side: str) -> float:
    """The side's material as the game prices it: friends' worth minus enemies' (see module doc)."""
    total = 0.0
    for u in view.units(alive=True):
        worth = ev.ALIVE + t.condition(view, u.id)
        total += worth if u.side == side else -worth
    return total


def _same(a: Any, b: Any) -> bool:
    return bool(a == b)


class SearchPlanner:
    """The searching planner with its options (see the module doc)."""

    def __init__(self, options: SearchOptions | None = None) -> None:
        self.options = options or SearchOptions()
        self._scripts = _portfolio()
        self._default: Script = cautious_policy

    def __repr__(self) -> str:
        o = self.options
        return f"SearchPlanner(budget={o.budget}, samples={o.samples}, horizon={o.horizon})"

    # ------------------------------------------------------------------ candidates
    def proposals(
        self, view: Any, decision: Decision, rng: np.random.Generator
    ) -> list[tuple[str, Command, Script]]:
        """What each script of the portfolio would play, distinct commands only, planner1's first
        (``withdraw`` only where it gets away: a move or a declaration to move, see
        :data:`ONLY_PROPOSES`)."""
        out: list[tuple[str, Command, Script]] = []
        for name, script in self._scripts:
            if name in ONLY_PROPOSES and (decision.kind != "turn" or not self.options.withdraw):
                continue
            cmd = script(view, decision, rng)
            if name in ONLY_PROPOSES and not isinstance(cmd, ONLY_PROPOSES[name]):
                continue
            if not any(_same(cmd, c) for _, c, _ in out):
                out.append((name, cmd, script))
        return out

    def candidates(
        self, view: Any, decision: Decision, rng: np.random.Generator
    ) -> list[tuple[str, Command, Script]]:
        """(label, command, the script that plays on after it), planner1's choice first: the
        scripts' distinct proposals and, when they disagree, the standing options none proposed."""
        out = self.proposals(view, decision, rng)
        if len(out) == 1 and not (decision.kind == "turn" and isinstance(out[0][1], Maneuver)):
            return out
        # Maneuvers first (All-Out Defence, a run, a stance: what the scripts weigh least well);
        # postures, which planner1 already weighs point by point, after them.
        standing = sorted(decision.options, key=lambda o: not isinstance(o.command, Maneuver))
        for opt in standing:
            if len(out) >= MAX_CANDIDATES:
                break
            if _is_point_option(opt) or (decision.kind == "turn" and _moves_or_attacks(opt)):
                continue
            if not any(_same(opt.command, c) for _, c, _ in out):
                out.append((opt.label, opt.command, self._default))
        return out

    # ------------------------------------------------------------------ search
    def __call__(self, view: Any, decision: Decision, rng: np.random.Generator) -> Command:
        cands = self.candidates(view, decision, rng)
        side = view.unit(decision.unit).side
        if len(cands) == 1:
            _, cmd, _ = cands[0]
            trace.record(
                view,
                trace.Considered(
                    decision.unit,
                    decision.kind,
                    view.event_count,
                    (trace.Candidate(f"all scripts agree: {_describe(cmd)}", 0.0, _point(cmd)),),
                    0,
                    view.round,
                ),
            )
            return cmd
        o = self.options
        per_line = max(1, o.budget // (len(cands) * o.samples))
        held = HeldAp.of(view, decision.unit)
        # Every line starts from this board (a clone is exact): its material is counted once.
        before = material(view, side)
        start = time.perf_counter()
        totals = [0.0] * len(cands)
        counts = [0] * len(cands)
        spent = 0
        last = 0
        k = 0
        # Sample after sample: at least ``samples``, then more while the budget still pays for a
        # round like the last one (lines end at their horizon, mostly well before their share of
        # the budget, and what they leave buys further sampled worlds), at most ``max_samples``.
        while k < max(o.samples, o.max_samples):
            if k >= o.samples and spent + last > o.budget:
                break
            if o.time_cap_ms is not None and k > 0 and (time.perf_counter() - start) * 1000 > o.time_cap_ms:
                break
            # One dice seed per sample, shared by every candidate (common random numbers, the
            # rolls synchronized by what they are: game.dice.synced), and each sample a different
            # script for the enemy's replies (careful, then headlong), the same for every candidate.
            seed = int(rng.integers(0, 2**62))
            opponent = OPPONENTS[k % len(OPPONENTS)] if o.replies == "mixed" else cautious_policy
            used = 0
            for i, (_, cmd, script) in enumerate(cands):
                line_rng = np.random.default_rng(seed)
                after, n = self.play_line(
                    view, decision, side, cmd, script, seed, per_line, line_rng, held, opponent
                )
                totals[i] += after - before
                counts[i] += 1
                used += n
            spent += used
            last = used
            k += 1
        means = [tot / max(1, n) for tot, n in zip(totals, counts, strict=True)]
        best = max(range(len(cands)), key=lambda i: (means[i] + (MARGIN if i == 0 else 0.0), -i))
        order = sorted(range(len(cands)), key=lambda i: (i != best, -means[i], i))
        weighed = tuple(
            trace.Candidate(
                f"{cands[i][0]}: {_describe(cands[i][1])}",
                means[i],
                _point(cands[i][1]),
                (f"material change {means[i]:+.2f} over {counts[i]} sampled futures",),
            )
            for i in order
        )
        trace.record(
            view,
            trace.Considered(
                decision.unit, decision.kind, view.event_count, weighed[: trace.KEEP], 0, view.round
            ),
        )
        return cands[best][1]

    def play_line(
        self,
        view: Any,
        decision: Decision,
        side: str,
        cmd: Command,
        script: Script,
        seed: int,
        nodes: int,
        rng: np.random.Generator,
        held: HeldAp | None = None,
        opponent: Script | None = None,
    ) -> tuple[float, int]:
        """(``side``'s material at the end of the line, the commands it played): ``cmd`` applied
        in a clone with dice seeded by ``seed``, then play on (see the module doc) for at most
        ``nodes`` commands; with ``held``, the worth of the AP the deciding unit holds at the
        line's end is added. The line's value is that material less the board's."""
        uid = decision.unit
        clone = view.fork(seed, synced=self.options.synced_dice)
        # One view of the clone for the whole line, given what the policies already read of the
        # real match's log (a fresh view would read the whole log again, once per command).
        cv = MatchView(clone)
        t.inherit_memo(cv, view)
        inherit_facts(cv, view)
        clone.apply(cmd)
        # The turn the decision belongs to: the deciding unit's own, or (a reaction) the active one's.
        turn_of = view.active
        turns_ended = 0
        acted: set[str] = set()
        start_round = view.round
        used = 1
        for _ in range(nodes):
            pending = clone.pending
            if clone.outcome is not None or pending is None:
                break
            if pending.kind == "turn" and pending.unit != turn_of:
                turns_ended += 1
                if turn_of is not None:
                    acted.add(turn_of)
                turn_of = pending.unit
                if turns_ended > self.options.horizon:
                    break
            own = pending.unit == uid and pending.kind == "turn" and turns_ended == 0
            if own:
                policy = script
            elif opponent is not None and cv.unit(pending.unit).side != side:
                policy = opponent
            else:
                policy = self._default
            clone.apply(policy(cv, pending, rng))
            used += 1
        after = material(cv, side)
        if held is not None and clone.outcome is None:
            after += held.worth(cv, acted, clone.round != start_round)
        clone.close()
        return after, used


class HeldAp:
    """The worth of the AP the deciding unit holds at a line's end (game.ai.planner.reserve), where
    reactions cost AP: the attacks of its own turn if that is still to come this round, and the
    reactions against the enemies still to act. Lines stop at different points of the unit's AP
    (a dodge paid now, an attack not yet made): material alone would count a dodge's saved wound
    and miss the attack its AP no longer buy. The attack's worth and each enemy's incoming worth
    are the evaluator's at the decision (one board), the AP and who has acted the line's own."""

    def __init__(self, view: Any, uid: str, c_react: int) -> None:
        self.uid = uid
        self.c_react = c_react
        self.c_attack = rs.attack_cost(view, uid)
        facts = log_facts(view)
        self.turn_ahead = rs.own_turn_ahead(view, uid)
        self.acted = set(facts.acted)
        # The attacks always: a line that turns the round over refills the pool for the next turn.
        terms = ap_terms(view, uid, turn=True)
        self.attack, self.moved_attack, self.c_move = terms.attack, terms.moved_attack, terms.c_move
        self.dodge = terms.dodge

    @classmethod
    def of(cls, view: Any, uid: str) -> HeldAp | None:
        """The term for ``uid``, or None where reactions cost no AP."""
        c = rs.reaction_cost(view, uid)
        return cls(view, uid, c) if c > 0 else None

    def worth(self, clone: MatchView, acted: set[str], new_round: bool) -> float:
        """Worth of the AP ``self.uid`` holds in ``clone`` after a line in which ``acted`` had
        turns (``new_round``: the round turned over, every pool refilled)."""
        me = clone.unit(self.uid)
        if not me.alive:
            return 0.0
        gone = set() if new_round else self.acted | acted
        turn = True if new_round else (self.turn_ahead and self.uid not in acted)
        later = [self.dodge.get(e, 0.0) for e in clone.enemies(self.uid) if e not in gone]
        return rs.ap_worth(
            int(me.ap),
            turn=turn,
            attack=self.attack,
            c_attack=self.c_attack,
            c_react=self.c_react,
            dodges=later,
            moved_attack=self.moved_attack,
            c_move=self.c_move,
        )


def _is_point_option(opt: Option) -> bool:
    return opt.point_field is not None


def _moves_or_attacks(opt: Option) -> bool:
    """An option a script already weighs (attacks, moves, facing, ending the turn)."""
    return isinstance(opt.command, (Attack, Move, Step, Face, EndTurn))


def _describe(cmd: Command) -> str:
    name = type(cmd).__name__
    bits = [f"{f.name}={getattr(cmd, f.name)}" for f in fields(cmd) if f.name != "unit"]  # type: ignore[arg-type]
    return f"{name}({', '.join(bits)})" if bits else name


def _point(cmd: Command) -> tuple[float, float] | None:
    p = getattr(cmd, "to", None) or getattr(cmd, "retreat_to", None)
    if isinstance(p, tuple) and len(p) == 2:
        return (float(p[0]), float(p[1]))
    return None


def make_planner(**options: Any) -> SearchPlanner:
    """A searching planner with ``options`` (:class:`SearchOptions`; pydantic error if bad)."""
    return SearchPlanner(SearchOptions.model_validate(options))


#: The registered default planner.
planner_policy = SearchPlanner()
