"""A battle's summary, read from its event log: who won, the harm each side dealt and took, the
hits, the defences, the mechanics of the ruleset that fired, and the turning point.

Contract (pure: a function of the logged events; the few mechanics whose tally needs the
scenario read the one the log embeds, or the one given; no match, no pygame, no dice):
:func:`summarize` reads a log (``match_start`` first) into a :class:`Summary`;
:func:`summary_lines` tells it in plain lines. The window's end screen, ``skirmish battle -n 1``
and ``skirmish replay --narrate`` print these same lines.

What is counted, per side:

- ``dealt`` / ``taken``: harm by health track, from ``damage`` events (the absolute change of
  each track: HP lost, wounds taken, memories replaced), credited to the source's side and to
  the harmed unit's side.
- ``attacks``: ``attack`` events of the side's units; ``hits``: those that hit (the event's
  ``hit``, a melee exchange's ``winner``, or, where the ruleset logs neither, a defence of the
  target in the same action that failed); ``hurt``: those after which the target took harm in
  the same action.
- ``defences`` / ``made``: ``defence`` events of the side's units that tried something (not
  ``none``), and those that succeeded.
- ``mechanics``: the ruleset's mechanics (:attr:`game.rules.base.Ruleset.mechanics`) the side's
  units fired, by name and count, leaving out those that never fired and those whose tally needs
  facts not given (:class:`game.rules.mechanics.Facts`).
- the **turning point**: the action after which the winner stayed ahead for good, ahead meaning
  more units in action, then more harm dealt than taken; a draw has the action that swung the
  harm most instead.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from game.core.errors import UnknownName
from game.rules.mechanics import NO_FACTS, Facts, count_all

Event = Mapping[str, Any]


@dataclass
class SideSummary:
    """One side's part of a battle (see the module doc)."""

    side: str
    units: list[str] = field(default_factory=list)
    standing: list[str] = field(default_factory=list)
    dealt: dict[str, float] = field(default_factory=dict)
    taken: dict[str, float] = field(default_factory=dict)
    attacks: int = 0
    hits: int = 0
    hurt: int = 0
    defences: int = 0
    made: int = 0
    mechanics: dict[str, int] = field(default_factory=dict)


@dataclass
class Summary:
    """A battle's summary: the result, each side's part, the turning point."""

    scenario: str
    ruleset: str
    winner: str | None
    reason: str
    rounds: int
    finished: bool
    sides: list[SideSummary]
    turning_point: str | None = None

    def side(self, name: str) -> SideSummary:
        return next(s for s in self.sides if s.side == name)


def _beats(events: Sequence[Event]) -> list[list[Event]]:
    """The log cut into actions: at each command answering a turn decision (each piece: the
    command, what it caused and the reactions it called for)."""
    out: list[list[Event]] = [[]]
    for e in events:
        if e.get("type") == "command" and e.get("decision", "turn") == "turn":
            out.append([e])
        else:
            out[-1].append(e)
    return out


def _hit(e: Event, rest: Sequence[Event]) -> bool:
    """Whether the attack event ``e`` hit (``rest``: the events after it in its action)."""
    if "hit" in e:
        return bool(e["hit"])
    if "winner" in e:
        return bool(e.get("winner") == e.get("attacker"))
    target = e.get("target")
    d = next((x for x in rest if x.get("type") == "defence" and x.get("unit") == target), None)
    return d is not None and d.get("success") is False


def summarize(events: Sequence[Event], facts: Facts = NO_FACTS) -> Summary:
    """The summary of the battle ``events`` tell (see the module doc).

    Args:
        events: a log, ``match_start`` first (a log cut short gives an unfinished summary).
        facts: what mechanics' tallies may read beyond the log (the scenario, stat blocks).

    Raises:
        ValueError: the log does not start with ``match_start``.
    """
    if not events or events[0].get("type") != "match_start":
        raise ValueError("the log does not start with a match_start event")
    start = events[0]
    side_of: dict[str, str] = {}
    sides: dict[str, SideSummary] = {}
    for u in start.get("units", ()):
        uid, side = str(u.get("id")), str(u.get("side"))
        side_of[uid] = side
        sides.setdefault(side, SideSummary(side)).units.append(uid)
    out_of_action: set[str] = set()
    # the lead: (units in action, harm dealt - taken) per side, after each action
    swings: list[tuple[int, dict[str, tuple[int, float]], float, list[Event]]] = []
    net: dict[str, float] = dict.fromkeys(sides, 0.0)
    for k, beat in enumerate(_beats(events)):
        swing = 0.0
        for i, e in enumerate(beat):
            t = e.get("type")
            if t == "damage":
                amount = {
                    str(tr): abs(float(v))
                    for tr, v in (e.get("deltas") or {}).items()
                    if isinstance(v, (int, float))
                }
                harmed = side_of.get(str(e.get("unit")))
                source = side_of.get(str(e.get("source")))
                total = sum(amount.values())
                swing = max(swing, total)
                if harmed is not None:
                    for tr, v in amount.items():
                        sides[harmed].taken[tr] = sides[harmed].taken.get(tr, 0.0) + v
                    net[harmed] = net.get(harmed, 0.0) - total
                if source is not None:
                    for tr, v in amount.items():
                        sides[source].dealt[tr] = sides[source].dealt.get(tr, 0.0) + v
                    net[source] = net.get(source, 0.0) + total
            elif t == "attack":
                by = side_of.get(str(e.get("attacker", e.get("unit"))))
                if by is None:
                    continue
                mine = sides[by]
                mine.attacks += 1
                rest = beat[i + 1 :]
                if _hit(e, rest):
                    mine.hits += 1
                target = e.get("target")
                upto = next((j for j, x in enumerate(rest) if x.get("type") == "attack"), len(rest))
                if any(x.get("type") == "damage" and x.get("unit") == target for x in rest[:upto]):
                    mine.hurt += 1
            elif t == "defence" and e.get("kind") not in (None, "none"):
                by = side_of.get(str(e.get("unit")))
                if by is not None:
                    sides[by].defences += 1
                    sides[by].made += 1 if e.get("success") else 0
            elif t == "casualty":
                out_of_action.add(str(e.get("unit")))
        lead = {n: (sum(1 for u in sides[n].units if u not in out_of_action), net.get(n, 0.0)) for n in sides}
        swings.append((k, lead, swing, beat))
    end = next((e for e in reversed(events) if e.get("type") == "match_end"), None)
    ruleset = str(start.get("ruleset", ""))
    if facts.spec is None:
        facts = Facts(facts.stats, _embedded_spec(start))
    for name, by_unit in _mechanics(ruleset, events, facts).items():
        for uid, times in by_unit.items():
            owner = side_of.get(uid)
            if owner is not None and times:
                sides[owner].mechanics[name] = sides[owner].mechanics.get(name, 0) + times
    for part in sides.values():
        part.standing = [u for u in part.units if u not in out_of_action]
    winner = str(end["winner"]) if end is not None and end.get("winner") else None
    summary = Summary(
        scenario=str(start.get("scenario", "")),
        ruleset=ruleset,
        winner=winner,
        reason=str(end.get("reason", "")) if end is not None else "",
        rounds=int(end.get("rounds", end.get("round", 0)) or 0)
        if end is not None
        else int(events[-1].get("round", 0)),
        finished=end is not None,
        sides=list(sides.values()),
    )
    summary.turning_point = _turning_point(winner, swings) if end is not None else None
    return summary


def _embedded_spec(start: Event) -> Any:
    """The scenario the log's ``match_start`` embeds (None: none, or it does not rebuild)."""
    from game.core.errors import SkirmishError
    from game.scenario.embed import has_embedded, rebuild

    if not has_embedded(start):
        return None
    try:
        return rebuild(start, str(start.get("scenario_path") or "log"))
    except (SkirmishError, ValueError):
        return None


def _mechanics(ruleset: str, events: Sequence[Event], facts: Facts) -> dict[str, Counter[str]]:
    """The ruleset's mechanics counted over the log; those whose tally needs facts not given
    are left out."""
    from game.rules import ruleset_class

    try:
        mechanics = ruleset_class(ruleset).mechanics
    except UnknownName:
        return {}
    out: dict[str, Counter[str]] = {}
    for m in mechanics:
        try:
            out.update(count_all((m,), events, facts))
        except LookupError:
            continue
    return out


def _ahead(lead: Mapping[str, tuple[int, float]], side: str) -> bool:
    mine = lead[side]
    return all(mine > v for s, v in lead.items() if s != side)


def _turning_point(
    winner: str | None, swings: list[tuple[int, dict[str, tuple[int, float]], float, list[Event]]]
) -> str | None:
    """The turning point in words (see the module doc), or None when nothing was ever at stake."""
    if winner is not None:
        turn = None
        for k, (_, lead, _, _) in enumerate(swings):
            if not _ahead(lead, winner):
                turn = None
            elif turn is None:
                turn = k
        if turn is None:
            return None
        beat = swings[turn][3]
        return f"{_action(beat)}: {winner} led from then on"
    best = max(swings, key=lambda s: s[2], default=None)
    if best is None or best[2] <= 0:
        return None
    return f"{_action(best[3])}: the heaviest blow of a drawn battle"


def _action(beat: Sequence[Event]) -> str:
    """An action in words from the events it caused: ``round 3, hendrik's longbow on vasco
    (3 stamina)``."""
    head = beat[0] if beat else {}
    rnd = head.get("round", 0)
    attack = next((e for e in beat if e.get("type") == "attack"), None)
    harm = [e for e in beat if e.get("type") == "damage"]
    hurt = ", ".join(
        f"{e.get('unit')} "
        + " and ".join(track_words(str(tr), abs(v)) for tr, v in (e.get("deltas") or {}).items() if v)
        for e in harm
    )
    down = [str(e.get("unit")) for e in beat if e.get("type") == "casualty"]
    if attack is not None:
        what = f"{attack.get('attacker')}'s {attack.get('weapon') or 'attack'} on {attack.get('target')}"
    elif head.get("type") == "command":
        what = f"{head.get('unit')}'s {str((head.get('command') or {}).get('type', 'action')).lower()}"
    else:
        what = "the opening"
    told = f"round {rnd}, {what}"
    if hurt:
        told += f" ({hurt})"
    if down:
        told += f", putting {', '.join(down)} out of action"
    return told


#: Health tracks written in capitals.
CAPITALS = frozenset({"hp", "fp"})


def track_words(track: str, n: float) -> str:
    """``n`` points of health track ``track`` in words: ``12 HP``, ``1 wound``, ``1 memory``."""
    name = str(track).replace("_", " ")
    if name in CAPITALS:
        name = name.upper()
    elif n == 1 and name.endswith("ies"):
        name = name[:-3] + "y"
    elif n == 1 and name.endswith("s"):
        name = name[:-1]
    return f"{n:g} {name}"


def _harm(h: Mapping[str, float]) -> str:
    parts = [track_words(tr, v) for tr, v in sorted(h.items()) if v]
    return ", ".join(parts) if parts else "none"


def summary_lines(s: Summary) -> list[str]:
    """The summary as plain lines (the end screen, ``battle -n 1``, the narration)."""
    if s.finished:
        result = f"{s.winner} wins ({s.reason})" if s.winner else f"a draw ({s.reason})"
        lines = [f"Summary: {result} after {s.rounds} round{'' if s.rounds == 1 else 's'}"]
    else:
        lines = [f"Summary so far (round {s.rounds}; the battle goes on)"]
    for side in s.sides:
        hit_rate = f" ({100 * side.hits / side.attacks:.0f}%)" if side.attacks else ""
        lines.append(
            f"  {side.side}: {len(side.standing)} of {len(side.units)} standing"
            + (f" ({', '.join(side.standing)})" if side.standing else "")
        )
        lines.append(f"    harm dealt: {_harm(side.dealt)}; taken: {_harm(side.taken)}")
        lines.append(
            f"    attacks {side.attacks}, hits {side.hits}{hit_rate}, hurt the target {side.hurt}; "
            f"defences {side.defences}, made {side.made}"
        )
        if side.mechanics:
            used = ", ".join(f"{n.replace('_', ' ')} {c}" for n, c in side.mechanics.items())
            lines.append(f"    mechanics: {used}")
    if s.turning_point:
        lines.append(f"  turning point: {s.turning_point}")
    return lines


__all__ = ["SideSummary", "Summary", "summarize", "summary_lines"]
