"""What the planner reads from the event log: round limit, who has acted this round, who has faced.

Contract: :func:`log_facts` returns a :class:`LogFacts` brought up to date from the events the
match logged since the last call for the same view (only new events are read). Everything in it
is derived from the log alone, so a replayed or loaded game derives the same facts: nothing here
needs saving, and nothing draws random numbers.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field
from typing import Any


@dataclass
class LogFacts:
    """Facts read from one match's log.

    Attributes:
        seen: events read so far.
        round_limit: the match's round limit (0 until ``match_start`` is read).
        acted: units whose turn ended in the current round (their AP refresh before they act again).
        faced: units that turned (a ``Face`` command) in their current turn.
        reaction_ap: AP a reaction of each kind (``Defend.kind``, or the decision kind for other
            reactions) was seen to cost, by any unit (the ``ap`` events that follow its command).
        side_of: each unit's side (from ``match_start``).
        attacks, hurts, shares: per side, ``Attack`` commands its units gave, how many of them
            hurt someone (a ``damage`` event with that attacker as source before the next command),
            and the summed health share those hurting attacks took (damage over the victim's
            longest track).
        pos: each unit's place as the log last put it (``match_start`` and every event that moves
            a unit to a point).
        reach: per side, the longest centre distance at which one of its units attacked.
        melee_attacks, melee_hurts: per side, its attacks made within MELEE_GAP of base contact,
            and how many of them hurt.
        shots: every attack made from further than MELEE_GAP: (side, gap in inches, hurt: 0 or 1),
            in order; :func:`falloff_scale` fits how the chance to hurt falls with the gap.
    """

    seen: int = 0
    round_limit: int = 0
    acted: set[str] = field(default_factory=set)
    faced: set[str] = field(default_factory=set)
    reaction_ap: dict[str, int] = field(default_factory=dict)
    side_of: dict[str, str] = field(default_factory=dict)
    start: dict[str, dict[str, int]] = field(default_factory=dict)
    pos: dict[str, tuple[float, float]] = field(default_factory=dict)
    reach: dict[str, float] = field(default_factory=dict)
    melee_attacks: dict[str, int] = field(default_factory=dict)
    melee_hurts: dict[str, int] = field(default_factory=dict)
    shots: list[tuple[str, float, int]] = field(default_factory=list)
    attacks: dict[str, int] = field(default_factory=dict)
    hurts: dict[str, int] = field(default_factory=dict)
    shares: dict[str, float] = field(default_factory=dict)
    _last: tuple[str, str] | None = None
    _scale: tuple[int, float] | None = None
    _attack: list[Any] | None = None  # [attacker, hurt?, share, melee?] of the attack being resolved

    def _close_attack(self) -> None:
        got = self._attack
        if got is None:
            return
        side = self.side_of.get(got[0], "")
        self.attacks[side] = self.attacks.get(side, 0) + 1
        if got[1]:
            self.hurts[side] = self.hurts.get(side, 0) + 1
            self.shares[side] = self.shares.get(side, 0.0) + got[2]
        if got[3]:
            self.melee_attacks[side] = self.melee_attacks.get(side, 0) + 1
            self.melee_hurts[side] = self.melee_hurts.get(side, 0) + int(got[1])
        elif got[4] is not None:
            self.shots.append((side, got[4], int(got[1])))
        self._attack = None

    def shot_rate(self, side: str, scale: float, typical: float, prior: float, weight: float) -> float:
        """Chance that a shot of ``side`` from ``typical`` inches hurts: its shots' hurts over their
        falloff factors (scale ``scale``), shrunk towards ``prior`` by ``weight`` shots."""
        hurts = 0.0
        factors = 0.0
        for s, g, h in self.shots:
            if s == side:
                hurts += h
                factors += (1.0 + typical / scale) / (1.0 + g / scale)
        return (hurts + weight * prior) / (factors + weight)

    def scale(self, typical: float) -> float:
        """The falloff scale of the shots so far (:func:`falloff_scale`), remembered per shot count."""
        if self._scale is None or self._scale[0] != len(self.shots):
            self._scale = (len(self.shots), falloff_scale(self.shots, typical))
        return self._scale[1]

    def melee_rate(self, side: str, prior: float, weight: float) -> float:
        """Share of ``side``'s attacks in base contact that hurt, shrunk towards ``prior``."""
        return (self.melee_hurts.get(side, 0) + weight * prior) / (self.melee_attacks.get(side, 0) + weight)

    def hurt_rate(self, side: str, prior: float, weight: float) -> float:
        """Share of ``side``'s attacks that hurt, shrunk towards ``prior`` by ``weight`` attacks."""
        return (self.hurts.get(side, 0) + weight * prior) / (self.attacks.get(side, 0) + weight)

    def hit_share(self, side: str, prior: float, weight: float) -> float:
        """Mean health share a hurting attack of ``side`` took, shrunk towards ``prior``."""
        return (self.shares.get(side, 0.0) + weight * prior) / (self.hurts.get(side, 0) + weight)


def _condition(values: dict[str, int], start: dict[str, int], maxima: dict[str, int]) -> float:
    """Health fraction of a unit with track ``values`` (as :func:`game.ai.tactics.condition`)."""
    worst = 1.0
    for track, value in values.items():
        top = maxima.get(track, 0)
        if top <= 0:
            continue
        left = float(value) if start.get(track, top) >= top else float(top - value)
        worst = min(worst, max(0.0, min(1.0, left / top)))
    return worst


#: Gap (inches, base edge to edge) within which an attack counts as a blow in melee.
MELEE_GAP = 1.0

#: Falloff scales (inches) :func:`falloff_scale` chooses from, and the one assumed without evidence.
SCALES = (4.0, 8.0, 16.0, 32.0, 64.0, 1e6)
PRIOR_SCALE = 16.0
#: Shots needed before the log's evidence is used.
MIN_SHOTS = 8


def falloff_scale(shots: list[tuple[str, float, int]], typical: float) -> float:
    """The scale F of ``p(gap) = a (1 + typical/F) / (1 + gap/F)`` that best explains ``shots``.

    For each F of :data:`SCALES`, ``a`` is the moment estimate (hurts over summed factors) and the
    Bernoulli log-likelihood of the shots is computed; the best F wins, the prior scale unless the
    evidence beats it by more than one log-likelihood unit. Fewer than MIN_SHOTS shots: the prior.
    """
    if len(shots) < MIN_SHOTS:
        return PRIOR_SCALE
    gaps = [g for _, g, _ in shots]
    hurts = [h for _, _, h in shots]
    total = sum(hurts)

    def loglik(scale: float) -> float:
        w = [(1.0 + typical / scale) / (1.0 + g / scale) for g in gaps]
        a = total / sum(w)
        out = 0.0
        for wi, hi in zip(w, hurts, strict=True):
            p = min(0.98, max(0.02, a * wi))
            out += math.log(p) if hi else math.log(1.0 - p)
        return out

    prior = loglik(PRIOR_SCALE)
    best, best_ll = PRIOR_SCALE, prior + 1.0
    for scale in SCALES:
        ll = loglik(scale)
        if ll > best_ll:
            best, best_ll = scale, ll
    return best


_FACTS: weakref.WeakKeyDictionary[Any, LogFacts] = weakref.WeakKeyDictionary()


def log_facts(view: Any) -> LogFacts:
    """The :class:`LogFacts` of ``view``'s match, up to date."""
    facts = _FACTS.get(view)
    if facts is None:
        facts = _FACTS[view] = LogFacts()
    if view.event_count == facts.seen:
        return facts
    for e in view.events(facts.seen):
        kind = e["type"]
        if kind == "damage" and facts._attack is not None and e.get("source") == facts._attack[0]:
            uid = e["unit"]
            maxima = dict(view.maxima(uid))
            start = facts.start.get(uid, {})
            harm = _condition(e.get("before") or {}, start, maxima) - _condition(e.get("after") or {}, start, maxima)
            if harm > 0:
                facts._attack[1] = True
                facts._attack[2] += harm
        if kind == "round_start":
            facts.acted.clear()
        elif kind == "turn_start":
            facts.faced.discard(e["unit"])
        elif kind == "turn_end":
            facts.acted.add(e["unit"])
        elif kind == "command":
            cmd = e["command"]
            facts._close_attack()
            if cmd.get("type") == "Attack":
                target = str(cmd.get("target"))
                a, b = facts.pos.get(e["unit"]), facts.pos.get(target)
                side = facts.side_of.get(e["unit"], "")
                melee = False
                gap: float | None = None
                if a is not None and b is not None:
                    d = math.dist(a, b)
                    facts.reach[side] = max(facts.reach.get(side, 0.0), d)
                    gap = max(0.0, d - view.base(e["unit"]) - view.base(target))
                    melee = gap <= MELEE_GAP
                facts._attack = [e["unit"], False, 0.0, melee, gap]
            if cmd.get("type") == "Face":
                facts.faced.add(e["unit"])
            decided = e.get("decision")
            facts._last = None
            if decided is not None and decided != "turn":
                what = str(cmd.get("kind") or decided)
                facts._last = (e["unit"], what)
                facts.reaction_ap.setdefault(what, 0)
        elif isinstance(e.get("to"), list) and len(e["to"]) == 2 and "unit" in e and kind != "command":
            facts.pos[e["unit"]] = (float(e["to"][0]), float(e["to"][1]))
        elif kind == "ap" and facts._last is not None and e.get("unit") == facts._last[0]:
            what = facts._last[1]
            facts.reaction_ap[what] = max(facts.reaction_ap.get(what, 0), int(e.get("spent", 0)))
        elif kind == "match_start":
            facts.round_limit = int(e.get("round_limit") or 0)
            facts.side_of = {u["id"]: u["side"] for u in e.get("units", [])}
            facts.start = {u["id"]: dict(u.get("health", {})) for u in e.get("units", [])}
            facts.pos = {u["id"]: (float(u["at"][0]), float(u["at"][1])) for u in e.get("units", [])}
        facts.seen += 1
    return facts
