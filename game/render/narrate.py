"""A recorded battle told in plain words: its beats and a narration round by round.

Contract (pure: no pygame, no match; only the logged events): :func:`beats` cuts a log into
:class:`Beat` s, one per logged command (a turn's action or a reaction) holding the events that
command caused, after an opening beat for what happens before the first command;
:func:`caption` is a beat as a frame's caption (a header naming the round, the unit and its
decision, then the sentences of what happened); :func:`narrate` is the whole battle as lines,
round by round, ending with the battle's summary (:mod:`game.tools.summary`). Every sentence
comes from :mod:`game.render.sentences` (the window's log), so the three tell the same facts in
the same words, every command included (an ended turn, a declined defence); dice ``roll`` events
are left out, since the sentence of what a roll decided tells it (attacks and defences with
their odds and roll).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from game.render import words
from game.render.sentences import sentence, tell

Event = dict[str, Any]

#: Event types a caption or the narration leaves out besides the sentences module's bookkeeping:
#: dice (told by what they decided) and the round and turn openings (a caption's header tells them).
UNTOLD = frozenset({"roll"})
HEADER_TOLD = frozenset({"round_start", "turn_start"})

#: How each decision kind is named in a caption's header.
DECISIONS: dict[str, str] = {
    "turn": "turn",
    "defence": "defends",
    "dodge_move": "dodges aside",
    "follow": "follows",
    "interpose": "interposes",
}


@dataclass(frozen=True)
class Beat:
    """One command of a battle and what it caused.

    Attributes:
        round: the round the command was given in (0 for the opening).
        unit: the unit that decided (None for the opening).
        decision: the kind of decision it answered (``turn``, ``defence``, ...; None: opening).
        command: the logged command (None for the opening).
        events: the events the command caused, in log order (the ``command`` event itself left out).
    """

    round: int
    unit: str | None
    decision: str | None
    command: dict[str, Any] | None
    events: tuple[Event, ...]

    @property
    def opening(self) -> bool:
        return self.command is None


def beats(events: Sequence[Event]) -> list[Beat]:
    """The log cut at its ``command`` events: an opening beat, then one per command."""
    out: list[Beat] = []
    current: list[Event] = []
    head: Event | None = None
    for e in events:
        if e.get("type") == "command":
            out.append(_beat(head, current))
            head, current = e, []
        else:
            current.append(e)
    out.append(_beat(head, current))
    return out


def _beat(head: Event | None, events: list[Event]) -> Beat:
    if head is None:
        return Beat(0, None, None, None, tuple(events))
    cmd = head.get("command")
    return Beat(
        int(head.get("round", 0)),
        str(head.get("unit")),
        str(head.get("decision", "turn")),
        cmd if isinstance(cmd, dict) else None,
        tuple(events),
    )


def told(events: Iterable[Event], skip: frozenset[str] = UNTOLD, command: Event | None = None) -> list[str]:
    """The sentences of ``events``, leaving out the types in ``skip`` and the bookkeeping; with
    the ``command`` event that caused them, that command first when nothing else tells it."""
    listed = ([command] if command is not None else []) + list(events)
    return [s for e, s in tell(listed) if e.get("type") not in skip]


def header(beat: Beat) -> str:
    """``Round 3: hendrik defends`` (or ``Before the first round`` for the opening)."""
    if beat.unit is None:
        return "Before the first round"
    what = DECISIONS.get(beat.decision or "", words.name(beat.decision or "decides"))
    if what == "turn":
        return f"Round {beat.round}: {beat.unit}'s turn"
    return f"Round {beat.round}: {beat.unit} {what}"


def caption(beat: Beat) -> tuple[str, list[str]]:
    """A frame's caption: its header and the sentences of what the beat's command did.

    The opening tells the match start and the first round's order; a command that caused
    nothing but bookkeeping (an ended turn) says so.
    """
    if beat.opening:
        return header(beat), told(beat.events, UNTOLD - {"round_start"})
    head = {"type": "command", "unit": beat.unit, "decision": beat.decision, "command": beat.command or {}}
    lines = told(beat.events, UNTOLD | HEADER_TOLD, head)
    if not lines:
        lines = [f"{beat.unit} waits."]
    return header(beat), lines


def ending(events: Sequence[Event]) -> tuple[str, list[str]]:
    """The end frame's caption: the result (or that the log stops before one) and who still stands."""
    end = next((e for e in reversed(events) if e.get("type") == "match_end"), None)
    if end is None:
        last = events[-1].get("round", 0) if events else 0
        return f"Round {last}: the log ends here", ["The battle was not finished when the log ends."]
    lines = [s] if (s := sentence(end)) is not None else []
    survivors = end.get("survivors")
    if isinstance(survivors, dict):
        standing = [f"{', '.join(map(str, ids))} ({side})" for side, ids in survivors.items() if ids]
        lines.append(f"Still standing: {'; '.join(standing)}." if standing else "Nobody is left standing.")
    return "The end", lines


def narrate(events: Sequence[Event]) -> list[str]:
    """The battle as lines: a ``Round N`` heading per round, then what happened, indented, then
    the battle's summary (:func:`game.tools.summary.summarize`) when the log has its end."""
    from game.tools.summary import summarize, summary_lines

    lines: list[str] = []
    current = None
    for e, s in tell(list(events)):
        kind = e.get("type")
        if kind == "round_start":
            current = e.get("round")
            order = e.get("order") or []
            lines.append(f"Round {current}" + (f" (order: {', '.join(order)})" if order else ""))
            continue
        if kind in UNTOLD:
            continue
        if kind in ("match_start", "match_end") or current is None:
            lines.append(s)
        elif kind == "turn_start":
            lines.append(f"  {s}")
        else:
            lines.append(f"    {s}")
    if any(e.get("type") == "match_end" for e in events):
        lines.append("")
        lines += summary_lines(summarize(events))
    return lines
