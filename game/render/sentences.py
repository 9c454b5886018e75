"""The event log as readable sentences (for the window's side panel and bug reports).

Contract: pure functions of logged events (``game.core.events`` dicts), no pygame and no match:
``sentence(event, reading)`` returns one English sentence, or ``None`` for bookkeeping events
that a reader does not need (``command``, ``ap``, ``turn_end``); a roll is told as the ruleset
counts its dice (``reading``, :class:`game.rules.sheet.DiceReading`: summed, each face an aim,
or successes). :func:`tell` tells a log in order, commands included: every command that
nothing else tells gets a sentence of its own (``blue-1 ends its turn, keeping 4 AP.``,
``vasco does not dodge.``), so every action a player or an AI policy takes is in words;
``sentences(events, ruleset)`` is the list of those sentences (the ruleset is read from the
log's ``match_start`` when the events hold it). Every event type the engine documents has a
dedicated phrasing; an event type it does not know (a ruleset's own) still gets a sentence
built from its fields, so nothing logged is ever silently dropped except the bookkeeping above.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from game.render import words
from game.rules.sheet import DiceReading

Event = dict[str, Any]

#: How a roll is told when the ruleset is not known: its faces summed.
SUMMED = DiceReading()

#: Event types left out of the panel: the same facts are told by other events.
SKIPPED = frozenset({"command", "ap", "turn_end"})

#: Verb of each movement event type.
MOVE_VERBS: dict[str, str] = {
    "move": "moves",
    "step": "steps",
    "retreat": "retreats",
    "dodge_move": "dodges aside",
    "follow": "follows",
    "interpose": "steps in the way",
}

_COMPASS = ("E", "SE", "S", "SW", "W", "NW", "N", "NE")
_RESERVED = ("seq", "round", "type")


def _num(v: Any) -> str:
    """A number written briefly: integers without decimals, others to 2 places."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    return str(int(v)) if float(v).is_integer() else f"{v:.2f}"


def _pt(p: Any) -> str:
    if isinstance(p, (list, tuple)) and len(p) == 2:
        return f"({_num(p[0])}, {_num(p[1])})"
    return str(p)


def _compass(deg: float) -> str:
    return _COMPASS[round(float(deg) / 45.0) % 8]


def _generic(e: Event) -> str:
    who = e.get("unit") or e.get("attacker")
    fields = [
        words.phrase(k, v)
        for k, v in e.items()
        if k not in _RESERVED and k not in ("unit", "attacker") and v is not None
    ]
    what = words.name(str(e["type"]))
    head = f"{who}: {what}" if who else what[:1].upper() + what[1:]
    return f"{head} ({'; '.join(fields)})." if fields else f"{head}."


def _brief(v: Any, key: str = "") -> str:
    if isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(c, (int, float)) for c in v):
        return _pt(v)
    return words.value(v, key)


def _match_start(e: Event) -> str:
    return (
        f"Match starts: {e.get('scenario', '?')} under {e.get('ruleset', '?')} rules, "
        f"seed {e.get('seed', '?')}, {len(e.get('units', []))} units."
    )


def _round_start(e: Event) -> str:
    order = e.get("order") or []
    return (
        f"Round {e['round']} begins; order: {', '.join(order)}." if order else f"Round {e['round']} begins."
    )


def _turn_start(e: Event) -> str:
    return f"{e.get('unit')}'s turn ({e.get('ap', '?')} AP)."


def _movement(e: Event) -> str:
    verb = MOVE_VERBS.get(e["type"], e["type"])
    length = e.get("length")
    dist = f" {_num(length)} in" if isinstance(length, (int, float)) else ""
    ap = e.get("ap")
    cost = f" ({ap} AP)" if isinstance(ap, int) and ap > 0 else ""
    return f"{e.get('unit')} {verb}{dist} to {_pt(e.get('to'))}{cost}."


def _posture(e: Event) -> str:
    ap = e.get("ap")
    cost = f" ({ap} AP)" if isinstance(ap, int) and ap > 0 else ""
    if e["type"] == "drop_prone":
        return f"{e.get('unit')} drops {e.get('to', 'prone')}{cost}."
    return f"{e.get('unit')} goes from {e.get('from')} to {e.get('to')}{cost}."


def _facing(e: Event) -> str:
    to = e.get("to", 0.0)
    ap = e.get("ap")
    cost = f" ({ap} AP)" if isinstance(ap, int) and ap > 0 else ""
    return f"{e.get('unit')} turns to face {_num(to)}° ({_compass(to)}){cost}."


#: Attack fields told by :func:`_attack` itself (the odds and the dice first), or not at all
#: (``result`` repeats ``hit``).
_ATTACK_TOLD = frozenset(
    {"attacker", "unit", "target", "weapon", "roll", "need", "successes", "hit", "result", "p_success"}
    | {"eff", "target_number", "difficulty", "kind", *_RESERVED}
)


def _attack(e: Event) -> str:
    weapon = e.get("weapon")
    kind = e.get("kind")
    head = f"{e.get('attacker', e.get('unit'))} attacks {e.get('target')}"
    head += f" with {weapon}" if weapon else ""
    extras = [words.value(kind)] if isinstance(kind, str) and kind != weapon else []
    if isinstance(e.get("p_success"), (int, float)):
        extras.append(f"{words.value(e['p_success'], 'p_success')} chance")
    need = next((e[k] for k in ("eff", "target_number", "difficulty", "need") if e.get(k) is not None), None)
    if "roll" in e:
        against = f" against {_brief(need)}" if need is not None else ""
        extras.append(f"rolled {_brief(e['roll'])}{against}")
    elif need is not None:
        extras.append(f"needs {_brief(need)}")
    if "successes" in e:
        extras.append(f"{_brief(e['successes'])} successes")
    extras += [
        words.phrase(k, v)
        for k, v in e.items()
        if k not in _ATTACK_TOLD and v is not None and not isinstance(v, (dict, list))
    ]
    tail = f" ({', '.join(extras)})" if extras else ""
    if "hit" in e:
        return f"{head}{tail}: {'hit' if e['hit'] else 'miss'}."
    return f"{head}{tail}."


#: Defence kinds that read as a verb ("tries to dodge"); any other kind is a means ("defends with armour").
DEFENCE_VERBS = frozenset({"dodge", "parry", "block", "retreat"})
#: Flags of a defence event that add to its verb, in the order they are told.
DEFENCE_FLAGS: tuple[tuple[str, str], ...] = (
    ("acrobatic", " acrobatically"),
    ("retreat", " and retreat"),
    ("drop", " and drop prone"),
)


def _defence_odds(e: Event) -> list[str]:
    """A defence's chance, roll against what it needed, and successes, as short phrases."""
    told = []
    if isinstance(e.get("p_success"), (int, float)):
        told.append(f"{words.value(e['p_success'], 'p_success')} chance")
    need = next((e[k] for k in ("eff", "difficulty", "target") if e.get(k) is not None), None)
    if e.get("roll") is not None:
        against = f" against {_brief(need)}" if need is not None else ""
        told.append(f"rolled {_brief(e['roll'])}{against}")
    elif need is not None:
        told.append(f"needs {_brief(need)}")
    if e.get("successes") is not None:
        against = f" against {_brief(e['vs'])}" if e.get("vs") is not None else ""
        told.append(f"{_brief(e['successes'])} successes{against}")
    aims = e.get("outcome")
    if isinstance(aims, list) and aims and all(isinstance(a, dict) and "aim" in a for a in aims):
        told.append(
            "aims " + ", ".join(f"{_brief(a['aim'])} {words.value(a.get('result', ''))}" for a in aims)
        )
    return told


def _protection(e: Event) -> str:
    """A protection roll (a track read by a die, e.g. AFF armour or dodge): what it took off the
    blow and whether that stopped it, with the chance that a protection roll stops a blow."""
    kind = str(e.get("kind"))
    what = "no protection" if kind == "none" else f"{words.name(kind)}"
    chance = f"; {words.value(e['p_success'], 'p_success')} chance to stop it" if "p_success" in e else ""
    if e.get("roll") is None:
        head = f"{e.get('unit')} takes the blow with {what}"
        tail = f" (protection {_brief(e.get('protection', 0))}{chance})"
    else:
        head = f"{e.get('unit')}'s {what}"
        tail = f" (protection roll {_brief(e['roll'])}: {_brief(e.get('protection'))} off the damage{chance})"
    if "success" not in e:
        return f"{head}{tail}."
    if e["success"]:
        return f"{head} stops the blow{tail}."
    return f"{head} does not stop all of the blow{tail}."


def _defence(e: Event) -> str:
    kind = str(e.get("kind", "defence"))
    if "protection" in e and kind in ("none", "armour", "dodge"):
        return _protection(e)
    if kind == "none":
        head = f"{e.get('unit')} does not defend"
    elif kind in DEFENCE_VERBS:
        head = f"{e.get('unit')} tries to {kind}"
        head += "".join(told for flag, told in DEFENCE_FLAGS if e.get(flag))
    else:
        head = f"{e.get('unit')} defends with {words.name(kind)}"
    if e.get("combo"):
        head += f" ({words.value(e['combo'])})"
    # the odds and the dice; a unit that does not defend tried nothing, so none are told
    extras = [] if kind == "none" else _defence_odds(e)
    tail = f" ({', '.join(extras)})" if extras else ""
    if "success" in e:
        return f"{head}{tail}: {'succeeds' if e['success'] else 'fails'}."
    return f"{head}{tail}."


def _roll(e: Event, reading: DiceReading = SUMMED) -> str:
    faces = [int(f) for f in e.get("faces") or [] if isinstance(f, (int, float))]
    who = f"{e['unit']} rolls" if e.get("unit") else "Roll:"
    return f"{who} {e.get('dice', '?')} for {e.get('purpose', '?')}: {reading.read(faces)}."


def _damage(e: Event) -> str:
    src = f" from {e['source']}" if e.get("source") else ""
    before, after = e.get("before") or {}, e.get("after") or {}
    changes = [f"{words.name(k)} {before.get(k)} -> {after[k]}" for k in after if before.get(k) != after[k]]
    how = _how(e)
    tail = f" ({'; '.join([*([how] if how else []), *changes])})" if changes or how else ""
    return f"{e.get('unit')} {_harm(e.get('deltas'))}{src}{tail}."


def _how(e: Event) -> str:
    """How a damage event's harm was reckoned, from the fields the rulesets log with it."""
    if "weapon_damage" in e and "protection" in e:  # a track: weapon damage less protection
        return f"weapon damage {_brief(e['weapon_damage'])} less protection {_brief(e['protection'])}"
    if "margin" in e and "weapon_roll" in e:  # a margin and a damage die, armour off wounds
        armour = f", armour {_brief(e['armour'])}" if e.get("armour") else ""
        return f"margin {_brief(e['margin'])} and damage roll {_brief(e['weapon_roll'])}{armour}"
    if "weapon_damage" in e and "extra_successes" in e:  # pool successes
        armour = f" less armour {_brief(e['armour'])}" if e.get("armour") else ""
        return f"weapon {_brief(e['weapon_damage'])} + {_brief(e['extra_successes'])} extra successes{armour}"
    if "basic" in e and "dr" in e:  # basic damage through DR
        return f"basic damage {_brief(e['basic'])} against DR {_brief(e['dr'])}"
    return ""


def _harm(d: Any) -> str:
    """What a damage event did, as a verb phrase: "loses 3 HP", "takes 1 wound and 2 stun"."""
    if not isinstance(d, dict):
        return f"takes {words.value(d)}"
    parts = [
        f"loses {-v} {words.name(k)}" if v < 0 else f"takes {v} {words.name(k)}"
        for k, v in d.items()
        if isinstance(v, (int, float)) and v
    ]
    return " and ".join(parts) or "takes no harm"


def _status(e: Event) -> str:
    reason = f" ({e['reason']})" if e.get("reason") else ""
    flag = words.name(str(e.get("flag")))
    if e.get("on", True):
        return f"{e.get('unit')} is {flag}{reason}."
    return f"{e.get('unit')} is no longer {flag}{reason}."


def _casualty(e: Event) -> str:
    reason = f": {e['reason']}" if e.get("reason") else ""
    return f"{e.get('unit')} is out of action{reason}."


def _match_end(e: Event) -> str:
    rounds = e.get("rounds", e.get("round"))
    if e.get("winner"):
        return f"{e['winner']} wins ({e.get('reason', '')}) after {_rounds(rounds)}."
    return f"The match is a draw ({e.get('reason', '')}) after {_rounds(rounds)}."


def _rounds(n: Any) -> str:
    return f"{n} round" if n == 1 else f"{n} rounds"


def _check(e: Event) -> str:
    roll, eff = e.get("roll"), e.get("eff", e.get("difficulty"))
    against = f" against {_brief(eff)}" if eff is not None else ""
    got = f" {_brief(roll)}{against}" if roll is not None else ""
    result = "" if "success" not in e else (": succeeds" if e["success"] else ": fails")
    purpose = e.get("purpose") or e.get("kind") or "a check"
    return f"{e.get('unit')} rolls{got} for {words.value(purpose)}{result}."


def _defence_dice(e: Event) -> str:
    faces = e.get("faces") or []
    kind = words.value(e.get("kind", "defence"))
    why = f" ({words.value(e['reason'])})" if e.get("reason") else ""
    between = f", between {words.value(e['between'])}" if e.get("between") else ""
    return f"{e.get('unit')} keeps {kind} dice {words.value(list(faces))}{between}{why}."


def _knockdown(e: Event) -> str:
    where = f" at {_pt(e['at'])}" if e.get("at") is not None else ""
    return f"{e.get('unit')} is knocked down from {e.get('from')} to {e.get('to')}{where}."


def _block(e: Event) -> str:
    parts = [words.phrase(k, v) for k, v in e.items() if k not in (*_RESERVED, "unit") and v is not None]
    return f"{e.get('unit')} blocks ({'; '.join(parts)})."


#: Maneuvers told by a verb of their own; any other reads "takes the <name> maneuver".
MANEUVER_VERBS = {"aim": "aims", "all_out_defence": "goes into all-out defence"}


def _maneuver(e: Event) -> str:
    name = str(e.get("name", ""))
    head = f"{e.get('unit')} {MANEUVER_VERBS.get(name) or f'takes the {words.name(name)} maneuver'}"
    parts = []
    if e.get("weapon"):
        parts.append(f"with {e['weapon']}")
    if e.get("target"):
        parts.append(f"at {e['target']}")
    if isinstance(e.get("steps"), int):
        parts.append(f"{e['steps']:+d} steps on its defences")
    return f"{head} ({', '.join(parts)})." if parts else f"{head}."


def _actions_declared(e: Event) -> str:
    n = e.get("actions")
    head = f"{e.get('unit')} declares {n} action{'' if n == 1 else 's'} this round"
    if e.get("reason") == "defence":
        head += " to defend"
    parts = []
    if isinstance(e.get("steps"), int) and e["steps"]:
        parts.append(f"{e['steps']:+d} step{'' if abs(e['steps']) == 1 else 's'} on every action")
    if e.get("forfeited"):
        parts.append(f"{e['forfeited']} AP given up")
    return f"{head} ({', '.join(parts)})." if parts else f"{head}."


def _dodge_kept(e: Event) -> str:
    faces = words.value(list(e.get("faces") or [])) or "none"
    after = f" after its {words.value(e['reason'])}" if e.get("reason") else ""
    return f"{e.get('unit')} keeps its dodge dice ({faces}){after}."


def _reroll_choice(e: Event) -> str:
    will = "rerolls" if e.get("reroll") else "keeps"
    return f"{e.get('unit')} {will} its dodge dice when it moves."


def _no_penetration(e: Event) -> str:
    what = f"the {e['weapon']}" if e.get("weapon") else "the blow"
    by = f" of {e['attacker']}" if e.get("attacker") else ""
    why = f" (basic damage {e['basic']} against DR {e['dr']})" if "basic" in e and "dr" in e else ""
    return f"{e.get('unit')}'s armour stops {what}{by}{why}."


def _glancing(e: Event) -> str:
    what = f" from the {e['weapon']}" if e.get("weapon") else ""
    by = f" of {e['attacker']}" if e.get("attacker") else ""
    net, armour = e.get("net_successes"), e.get("armour")
    why = [f"{net} net success{'' if net == 1 else 'es'}"] if net is not None else []
    why += [f"armour {armour}"] if armour is not None else []
    tail = f" ({' against '.join(why)})" if why else ""
    return f"{e.get('unit')} takes a glancing hit{what}{by}: no wound{tail}."


def command_sentence(e: Event, beat: list[Event]) -> str | None:
    """A ``command`` event in words when nothing else in its beat (the events it caused,
    ``beat``) tells what the unit did: an ended turn (with the AP it keeps), a declined defence
    or reaction, any other command by its fields. None when the beat tells it already."""
    cmd = e.get("command")
    if not isinstance(cmd, dict):
        return None
    unit = e.get("unit", cmd.get("unit", "?"))
    kind = str(cmd.get("type", "?"))
    if kind == "EndTurn":
        end = next((x for x in beat if x.get("type") == "turn_end" and x.get("unit") == unit), None)
        left = end.get("ap_left") if end is not None else None
        keeps = f", keeping {left} AP" if isinstance(left, int) and left > 0 else ""
        return f"{unit} ends its turn{keeps}."
    told = [
        x
        for x in beat
        if x.get("type") not in SKIPPED | {"roll", "turn_start", "round_start", "match_end"}
        and x.get("unit", x.get("attacker")) == unit
    ]
    if told:
        return None
    decision = str(e.get("decision", "turn"))
    fields = {k: v for k, v in cmd.items() if k not in ("type", "unit") and v not in (None, False, [], "")}
    if kind == "Defend" and fields.get("kind", "none") == "none":
        return f"{unit} does not defend."
    if decision != "turn" and not any(k for k in fields if k != "kind"):
        return f"{unit} lets the {words.name(decision)} pass."
    shown = "; ".join(words.phrase(k, v) for k, v in fields.items())
    return f"{unit} chooses {words.name(kind).lower()}" + (f" ({shown})" if shown else "") + "."


_PHRASES: dict[str, Callable[[Event], str]] = {
    "roll": _roll,  # summed; sentence() tells it with the ruleset's reading
    "check": _check,
    "defence_dice": _defence_dice,
    "knockdown": _knockdown,
    "block": _block,
    "match_start": _match_start,
    "round_start": _round_start,
    "turn_start": _turn_start,
    "posture": _posture,
    "drop_prone": _posture,
    "facing": _facing,
    "attack": _attack,
    "defence": _defence,
    "damage": _damage,
    "status": _status,
    "casualty": _casualty,
    "match_end": _match_end,
    "maneuver": _maneuver,
    "actions_declared": _actions_declared,
    "dodge_kept": _dodge_kept,
    "reroll_choice": _reroll_choice,
    "no_penetration": _no_penetration,
    "glancing": _glancing,
}


def sentence(event: Event, reading: DiceReading = SUMMED) -> str | None:
    """One sentence telling ``event``, or ``None`` for bookkeeping events (:data:`SKIPPED`).

    Args:
        event: a logged event (``{"seq", "round", "type", ...}``).
        reading: how the ruleset counts a roll's faces (summed when not given).

    Returns:
        The sentence; unknown event types are told from their fields.
    """
    kind = event.get("type", "?")
    if kind in SKIPPED:
        return None
    if kind == "roll":
        return _roll(event, reading)
    if kind in MOVE_VERBS or ("from" in event and "to" in event and "length" in event):
        return _movement(event)
    fn = _PHRASES.get(kind)
    return fn(event) if fn is not None else _generic(event)


def reading_of(ruleset: str | None) -> DiceReading:
    """How ruleset ``ruleset`` counts its dice (summed for an unknown or missing name)."""
    if not ruleset:
        return SUMMED
    from game.core.errors import UnknownName
    from game.rules import ruleset_class

    try:
        return ruleset_class(ruleset).dice_reading
    except UnknownName:
        return SUMMED


def tell(events: list[Event], ruleset: str | None = None) -> list[tuple[Event, str]]:
    """Each event of ``events`` that a reader needs, with its sentence, in order; a ``command``
    event is told (:func:`command_sentence`) when nothing it caused tells it. The ruleset (for
    dice) is ``ruleset``, else the one the events' ``match_start`` names."""
    if ruleset is None:
        start = next((e for e in events if e.get("type") == "match_start"), None)
        ruleset = str(start.get("ruleset")) if start is not None else None
    reading = reading_of(ruleset)
    out: list[tuple[Event, str]] = []
    for i, e in enumerate(events):
        if e.get("type") == "command":
            j = i + 1
            while j < len(events) and events[j].get("type") != "command":
                j += 1
            got = command_sentence(e, events[i + 1 : j])
        else:
            got = sentence(e, reading)
        if got is not None:
            out.append((e, got))
    return out


def sentences(events: Iterable[Event], ruleset: str | None = None) -> list[str]:
    """The sentences of a log, in order, bookkeeping events left out (see :func:`tell`)."""
    return [s for _, s in tell(list(events), ruleset)]
