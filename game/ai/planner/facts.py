"""What the planner reads from the event log: who has acted, what reactions cost, how attacks go.

Contract: :func:`log_facts` returns a :class:`LogFacts` brought up to date from the events the
match logged since the last call for the same view (only new events are read). Everything in it
is derived from the log alone, so a replayed or loaded game derives the same facts: nothing here
needs saving, and nothing draws random numbers.

The attacks of the battle so far are the planner's evidence of how dangerous each kind of unit
is (a policy sees only its own unit's attack options, never the enemies'): every ``Attack``
command becomes a :class:`Strike` (who attacked, its side and profile, the gap between the two
bases as the log's positions put them, whether it was a blow in base contact, whether it hurt
anyone and what share of health it took: the drop of the victim's health fraction, read from the
``damage`` events that name the attacker as source before the next command). :meth:`LogFacts.rate`
and :meth:`LogFacts.share` estimate a profile's chance to hurt and hit share from its strikes,
shrunk towards its side's, shrunk towards a prior; :func:`falloff_scale` fits how the chance of
a shot falls with the gap.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field, replace
from typing import Any

#: Gap (inches, base edge to edge) within which an attack counts as a blow in melee.
MELEE_GAP = 1.0
#: Falloff scales (inches) :func:`falloff_scale` chooses from, and the one assumed without evidence.
SCALES = (4.0, 8.0, 16.0, 32.0, 64.0, 1e6)
PRIOR_SCALE = 16.0
#: A defence's chance to work before the log tells (even odds), weighing as one defence seen.
PRIOR_DEFENCE = 0.5
#: Shots needed before the log's evidence about the falloff is used; it is refitted every REFIT strikes.
MIN_SHOTS = 8
REFIT = 4


@dataclass(frozen=True)
class Strike:
    """One attack of the battle: attacker, its side and profile, the base gap (None: unknown),
    whether it was a blow in contact, whether it hurt, and the health share it took."""

    attacker: str
    side: str
    profile: str
    gap: float | None
    blow: bool
    hurt: bool
    share: float


def falloff_factor(gap: float, scale: float, typical: float) -> float:
    """The distance factor of a shot's chance at ``gap`` (1 at ``typical``): see game.ai.planner.evaluate."""
    return (1.0 + typical / scale) / (1.0 + gap / scale)


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
        side_of, profile_of: each unit's side and profile (from ``match_start``).
        pos: each unit's place as the log last put it (``match_start`` and every event that moves
            a unit to a point).
        reach: per side, the longest centre distance at which one of its units attacked.
        profile_reach: the same per (side, profile).
        strikes: every attack so far, in order (see the module docstring).
        defence_odds: per unit, [sum, count] of the exact ``p_success`` its rolled defences had
            (the ``defence`` events that carry one): its own odds of making a reaction pay.
    """

    seen: int = 0
    round_limit: int = 0
    acted: set[str] = field(default_factory=set)
    faced: set[str] = field(default_factory=set)
    reaction_ap: dict[str, int] = field(default_factory=dict)
    side_of: dict[str, str] = field(default_factory=dict)
    profile_of: dict[str, str] = field(default_factory=dict)
    start: dict[str, dict[str, int]] = field(default_factory=dict)
    pos: dict[str, tuple[float, float]] = field(default_factory=dict)
    reach: dict[str, float] = field(default_factory=dict)
    profile_reach: dict[tuple[str, str], float] = field(default_factory=dict)
    strikes: list[Strike] = field(default_factory=list)
    defence_odds: dict[str, list[float]] = field(default_factory=dict)
    _last: tuple[str, str] | None = None
    _scale: tuple[int, float] | None = None
    _tallies: tuple[tuple[int, float, float], dict[tuple[bool, str, str | None], list[float]]] | None = None
    _open: list[Any] | None = None  # [attacker, gap, blow, hurt, share] of the attack being resolved

    def _close(self) -> None:
        got = self._open
        if got is None:
            return
        uid = got[0]
        self.strikes.append(
            Strike(
                uid, self.side_of.get(uid, ""), self.profile_of.get(uid, ""), got[1], got[2], got[3], got[4]
            )
        )
        self._open = None

    def _groups(self, scale: float, typical: float) -> dict[tuple[bool, str, str | None], list[float]]:
        """Per (blow, side, profile or None for the whole side): [hurts, weighted attacks, summed
        shares, hurting attacks] of the strikes so far, summed once per strike count."""
        key = (len(self.strikes), scale, typical)
        if self._tallies is None or self._tallies[0] != key:
            groups: dict[tuple[bool, str, str | None], list[float]] = {}
            for s in self.strikes:
                if not s.blow and s.gap is None:
                    continue
                tries = 1.0 if s.blow else falloff_factor(s.gap or 0.0, scale, typical)
                for group in ((s.blow, s.side, s.profile), (s.blow, s.side, None)):
                    g = groups.setdefault(group, [0.0, 0.0, 0.0, 0.0])
                    g[0] += s.hurt
                    g[1] += tries
                    if s.hurt:
                        g[2] += s.share
                        g[3] += 1.0
            self._tallies = (key, groups)
        return self._tallies[1]

    def defence_chance(self, uid: str) -> float:
        """``uid``'s chance that a rolled defence works: the mean exact ``p_success`` of its defences
        so far, shrunk towards every unit's (weight one defence each), and that towards even odds."""
        total = [sum(v[0] for v in self.defence_odds.values()), sum(v[1] for v in self.defence_odds.values())]
        overall = (total[0] + PRIOR_DEFENCE) / (total[1] + 1.0)
        own = self.defence_odds.get(uid, [0.0, 0.0])
        return (own[0] + overall) / (own[1] + 1.0)

    def rate(
        self,
        blow: bool,
        side: str,
        profile: str,
        *,
        scale: float,
        typical: float,
        prior: float,
        weight: float,
    ) -> float:
        """A profile's chance to hurt with a blow in contact (``blow``) or a shot from ``typical``
        inches: its strikes' hurts over their (falloff-weighted) number, shrunk by ``weight``
        strikes towards its side's rate, itself shrunk towards ``prior``."""
        groups = self._groups(scale, typical)
        s = groups.get((blow, side, None), _NONE)
        side_rate = (s[0] + weight * prior) / (s[1] + weight)
        p = groups.get((blow, side, profile), _NONE)
        return (p[0] + weight * side_rate) / (p[1] + weight)

    def share(
        self, side: str, profile: str, *, prior: float, weight: float, scale: float, typical: float
    ) -> float:
        """Mean health share a hurting attack of a profile took, shrunk as :meth:`rate`."""
        groups = self._groups(scale, typical)
        sides = [groups.get((blow, side, None), _NONE) for blow in (False, True)]
        side_share = (sides[0][2] + sides[1][2] + weight * prior) / (sides[0][3] + sides[1][3] + weight)
        own = [groups.get((blow, side, profile), _NONE) for blow in (False, True)]
        return (own[0][2] + own[1][2] + weight * side_share) / (own[0][3] + own[1][3] + weight)

    def scale(self, typical: float) -> float:
        """The falloff scale of the shots so far (:func:`falloff_scale`), refitted every
        :data:`REFIT` strikes."""
        due = len(self.strikes) // REFIT
        if self._scale is None or self._scale[0] != due:
            shots = [(s.gap, s.hurt) for s in self.strikes[: due * REFIT] if not s.blow and s.gap is not None]
            self._scale = (due, falloff_scale(shots, typical))
        return self._scale[1]


_NONE = [0.0, 0.0, 0.0, 0.0]


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


def falloff_scale(shots: list[tuple[float, bool]], typical: float) -> float:
    """The scale F of ``p(gap) = a (1 + typical/F) / (1 + gap/F)`` that best explains ``shots``
    ((gap, hurt) pairs).

    For each F of :data:`SCALES`, ``a`` is the moment estimate (hurts over summed factors) and the
    Bernoulli log-likelihood of the shots is computed; the best F wins, the prior scale unless the
    evidence beats it by more than one log-likelihood unit. Fewer than MIN_SHOTS shots: the prior.
    """
    if len(shots) < MIN_SHOTS:
        return PRIOR_SCALE
    total = sum(h for _, h in shots)

    def loglik(scale: float) -> float:
        w = [falloff_factor(g, scale, typical) for g, _ in shots]
        a = total / sum(w)
        out = 0.0
        for wi, (_, hi) in zip(w, shots, strict=True):
            p = min(0.98, max(0.02, a * wi))
            out += math.log(p) if hi else math.log(1.0 - p)
        return out

    best, best_ll = PRIOR_SCALE, loglik(PRIOR_SCALE) + 1.0
    for scale in SCALES:
        ll = loglik(scale)
        if ll > best_ll:
            best, best_ll = scale, ll
    return best


_FACTS: weakref.WeakKeyDictionary[Any, LogFacts] = weakref.WeakKeyDictionary()


def inherit_facts(child: Any, parent: Any) -> None:
    """Give ``child`` (a view of a clone of ``parent``'s match, whose log begins with all of
    ``parent``'s events) a copy of ``parent``'s facts, so that it reads only the clone's own events
    instead of the whole log again (a search makes a view of every clone it plays)."""
    src = log_facts(parent)
    _FACTS[child] = replace(
        src,
        acted=set(src.acted),
        faced=set(src.faced),
        reaction_ap=dict(src.reaction_ap),
        side_of=dict(src.side_of),
        profile_of=dict(src.profile_of),
        start={u: dict(h) for u, h in src.start.items()},
        pos=dict(src.pos),
        reach=dict(src.reach),
        profile_reach=dict(src.profile_reach),
        strikes=list(src.strikes),
        defence_odds={u: list(v) for u, v in src.defence_odds.items()},
        _tallies=None,
        _open=None if src._open is None else list(src._open),
    )


def log_facts(view: Any) -> LogFacts:
    """The :class:`LogFacts` of ``view``'s match, up to date."""
    facts = _FACTS.get(view)
    if facts is None:
        facts = _FACTS[view] = LogFacts()
    if view.event_count == facts.seen:
        return facts
    for e in view.events(facts.seen):
        _read(facts, e, view)
        facts.seen += 1
    return facts


def _read(facts: LogFacts, e: dict[str, Any], view: Any) -> None:
    kind = e["type"]
    if kind == "damage" and facts._open is not None and e.get("source") == facts._open[0]:
        uid = e["unit"]
        maxima = dict(view.maxima(uid))
        start = facts.start.get(uid, {})
        harm = _condition(e.get("before") or {}, start, maxima) - _condition(
            e.get("after") or {}, start, maxima
        )
        if harm > 0:
            facts._open[3] = True
            facts._open[4] += harm
    elif kind == "round_start":
        facts.acted.clear()
    elif kind == "defence" and isinstance(e.get("p_success"), (int, float)) and "unit" in e:
        got = facts.defence_odds.setdefault(str(e["unit"]), [0.0, 0.0])
        got[0] += float(e["p_success"])
        got[1] += 1.0
    elif kind == "turn_start":
        facts.faced.discard(e["unit"])
    elif kind == "turn_end":
        facts.acted.add(e["unit"])
    elif kind == "command":
        _command(facts, e, view)
    elif isinstance(e.get("to"), list) and len(e["to"]) == 2 and "unit" in e:
        facts.pos[e["unit"]] = (float(e["to"][0]), float(e["to"][1]))
    elif kind == "ap" and facts._last is not None and e.get("unit") == facts._last[0]:
        what = facts._last[1]
        facts.reaction_ap[what] = max(facts.reaction_ap.get(what, 0), int(e.get("spent", 0)))
    elif kind == "match_start":
        units = e.get("units", [])
        facts.round_limit = int(e.get("round_limit") or 0)
        facts.side_of = {u["id"]: u["side"] for u in units}
        facts.profile_of = {u["id"]: str(u.get("profile", "")) for u in units}
        facts.start = {u["id"]: dict(u.get("health", {})) for u in units}
        facts.pos = {u["id"]: (float(u["at"][0]), float(u["at"][1])) for u in units}


def _command(facts: LogFacts, e: dict[str, Any], view: Any) -> None:
    cmd = e["command"]
    facts._close()
    uid = e["unit"]
    if cmd.get("type") == "Attack":
        target = str(cmd.get("target"))
        a, b = facts.pos.get(uid), facts.pos.get(target)
        gap: float | None = None
        if a is not None and b is not None:
            d = math.dist(a, b)
            side = facts.side_of.get(uid, "")
            facts.reach[side] = max(facts.reach.get(side, 0.0), d)
            kind = (side, facts.profile_of.get(uid, ""))
            facts.profile_reach[kind] = max(facts.profile_reach.get(kind, 0.0), d)
            gap = max(0.0, d - view.base(uid) - view.base(target))
        facts._open = [uid, gap, gap is not None and gap <= MELEE_GAP, False, 0.0]
    elif cmd.get("type") == "Face":
        facts.faced.add(uid)
    decided = e.get("decision")
    facts._last = None
    if decided is not None and decided != "turn":
        what = str(cmd.get("kind") or decided)
        facts._last = (uid, what)
        facts.reaction_ap.setdefault(what, 0)
