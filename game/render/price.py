"""What a choice costs and what a unit carries, told the same way under every ruleset (pure).

Contract (no pygame, no changes; functions of a read-only :class:`~game.engine.view.MatchView`,
its options and :class:`~game.rules.sheet.UnitSheet` s):

- :func:`attack_price` is an attack row's price, leading with the chance to hurt and the harm
  expected (``p_hurt``, ``expected_harm`` of the option's ``detail``), the hit chance beside it:
  ``10.6% to hurt, 0.4 HP expected (hit 70.4%)``.
- :func:`defence_price` is a defence row's price: its odds, the harm expected with it and
  without it (``expected_harm``, ``expected_harm_without``) and what the unit has left:
  ``62.5% · 0.8 HP expected (2.1 without) · 10 of 10 HP left``.
- :func:`reaction_note` says whether the AP a move, an attack or the end of a turn leaves pay
  for the unit's reaction where reactions cost AP (``leaves 1 AP: too few for a dodge (2 AP)``).
- :func:`why_no_attack` names the one reason a unit cannot attack a target now: not its turn,
  the ruleset's limit (one attack a turn), ``N AP short``, no line of sight, ``out of range by
  N in`` (with the weapon that comes nearest), else the odds leaving no attack.
- :func:`sheet_lines` is a unit's weapons (AP, reach and range bands, damage), defences and
  protection as short lines; :func:`harm_text` a harm mapping in words (``1.2 stun and 0.8
  wounds``).

Numbers come from the rules (the option's exact odds and expected harm, the sheet); nothing
here computes odds of its own.
"""

from __future__ import annotations

from collections.abc import Mapping

from components.sight import CoverLevel
from game.core.commands import Attack, Decision, Option
from game.engine.view import MatchView
from game.render import words
from game.rules.sheet import UnitSheet, WeaponLine

#: Range bands listed in full up to this many; longer tables show the first ones and the last.
MAX_BANDS = 5


def percent(p: float | None) -> str:
    """An exact probability as a percentage with one decimal (``—`` if unknown)."""
    return "—" if p is None else f"{100.0 * p:.1f}%"


def amount(x: float) -> str:
    """A harm amount briefly: whole numbers bare, others to two decimals without trailing zeros."""
    if abs(x - round(x)) < 1e-9:
        return str(round(x))
    if 0 < x < 0.005:
        return "under 0.01"
    return f"{x:.2f}".rstrip("0").rstrip(".")


def track_name(track: str, n: float = 2.0) -> str:
    """A health track's name for ``n`` points (``HP``, ``wound`` / ``wounds``, ``stamina``)."""
    name = words.name(track)
    if n != 1:
        return name
    if name.endswith("ies"):
        return name[:-3] + "y"
    return name[:-1] if name.endswith("s") else name


def harm_text(harm: Mapping[str, float] | None) -> str:
    """``0.4 HP``, ``1.2 stun and 0.8 wounds``, ``no harm`` (tracks with no harm left out)."""
    if not harm:
        return "no harm"
    parts = [f"{amount(v)} {track_name(k, v)}" for k, v in harm.items() if v > 1e-9]
    return " and ".join(parts) if parts else "no harm"


def _harm(detail: Mapping[str, object], key: str) -> dict[str, float] | None:
    got = detail.get(key)
    if not isinstance(got, Mapping):
        return None
    return {str(k): float(v) for k, v in got.items() if isinstance(v, (int, float))}


def attack_price(opt: Option) -> str:
    """An attack row's price (see the module doc); the hit chance alone when the ruleset gives
    no chance to hurt."""
    d = opt.detail or {}
    p_hurt = d.get("p_hurt")
    harm = _harm(d, "expected_harm")
    hit = f"hit {percent(opt.p_success)}"
    if not isinstance(p_hurt, (int, float)):
        return hit
    head = f"{percent(float(p_hurt))} to hurt"
    if harm is not None:
        head += (
            f", {harm_text(harm)} expected" if any(v > 1e-9 for v in harm.values()) else ", no harm expected"
        )
    return f"{head} ({hit})"


def left_text(sheet: UnitSheet | None, tracks: list[str]) -> str:
    """``10 of 10 HP left`` for the tracks harm counts on (those of ``tracks`` first)."""
    if sheet is None or not sheet.harm:
        return ""
    shown = [h for h in sheet.harm if h.track in tracks] or list(sheet.harm)
    return ", ".join(f"{h.left} of {h.of} {track_name(h.track, h.of)} left" for h in shown)


def defence_price(opt: Option, sheet: UnitSheet | None = None) -> str | None:
    """A defence row's price (see the module doc); None when the option carries no expected harm
    (a decision that is not about taking a hit).

    ``62.5% to stop it · 0.8 HP expected (2.1 without) · if it fails: 2.1 HP · 10 of 10 HP
    left``; harm that reaches what the unit has left says it puts the unit out of action. The
    harm of a failure is the expected harm over the chance to fail (harm comes only then)."""
    d = opt.detail or {}
    with_it = _harm(d, "expected_harm")
    if with_it is None:
        return None
    without = _harm(d, "expected_harm_without")
    same = without is None or all(abs(with_it.get(k, 0.0) - v) < 1e-9 for k, v in without.items())
    p = opt.p_success
    parts = []
    if p is not None and not (same and p == 0.0):
        parts.append(f"{percent(p)} to stop it")
    if p is None or p <= 0.0 or same:
        parts.append(f"{harm_text(with_it)} expected")
        worst = with_it
    else:
        parts.append(f"{harm_text(with_it)} expected ({harm_text(without)} without)")
        worst = {k: v / (1.0 - p) for k, v in with_it.items()} if p < 1.0 else {}
        if worst and any(v > 1e-9 for v in worst.values()):
            parts.append(f"if it fails: {harm_text(worst)}")
    if sheet is not None and any(
        (h := sheet.left(k)) is not None and v >= h.left > 0 for k, v in worst.items()
    ):
        parts.append("enough to put it out of action")
    left = left_text(sheet, list(with_it))
    if left:
        parts.append(left)
    return " · ".join(parts)


def reaction_note(view: MatchView, uid: str, ap_after: int) -> str | None:
    """Whether ``ap_after`` AP pay for ``uid``'s reaction (None where reactions cost no AP)."""
    got = view.reaction_ap(uid)
    if got is None:
        return None
    name, need = got
    if ap_after < need:
        return f"leaves {ap_after} AP: too few for a {name} ({need} AP)"
    return f"leaves {ap_after} AP: enough for a {name} ({need} AP)"


def short_of_reaction(view: MatchView, uid: str, ap_after: int) -> bool:
    """True when ``ap_after`` AP are too few for ``uid``'s reaction (and reactions cost AP)."""
    got = view.reaction_ap(uid)
    return got is not None and ap_after < got[1]


def attack_cost(view: MatchView, uid: str, sheet: UnitSheet) -> int | None:
    """AP one attack costs ``uid`` now (the ruleset's action cost; None: no attack allowed)."""
    cost = view.action_costs(uid).get("attack")
    if cost is None:
        costs = [w.ap for w in sheet.weapons if w.ap is not None]
        return min(costs) if costs else None
    return int(cost)


def _measured(view: MatchView, uid: str, target: str, w: WeaponLine, distance: float) -> float:
    if not w.edge_to_edge:
        return distance
    return distance - view.unit(uid).base - view.unit(target).base


def why_no_attack(view: MatchView, decision: Decision | None, uid: str, target: str) -> str:
    """The one reason ``uid`` has no attack on ``target`` now (see the module doc)."""
    if decision is None or decision.kind != "turn" or decision.unit != uid:
        return f"{uid} attacks only on its own turn"
    sheet = view.sheet(uid)
    if sheet.attack_limit:
        return f"no attack now: {sheet.attack_limit}"
    cost = attack_cost(view, uid, sheet)
    ap = view.unit(uid).ap
    if cost is None:
        return f"no attack now: {uid} may not attack this turn"
    if ap < cost:
        return f"{cost - ap} AP short: an attack costs {cost} AP, {uid} has {ap}"
    facts = view.sight(uid, target)
    if not facts.visible or facts.cover == CoverLevel.TOTAL:
        return f"no line of sight to {target}"
    if sheet.weapons:
        gaps = [(_measured(view, uid, target, w, facts.distance) - w.reach, w) for w in sheet.weapons]
        short, w = min(gaps, key=lambda g: g[0])
        if short > 1e-9:
            how = "edge to edge" if w.edge_to_edge else "centre to centre"
            return (
                f"out of range by {short:.2f} in: {w.name} reaches {w.reach:.2f} in ({how}), "
                f"{target} is {_measured(view, uid, target, w, facts.distance):.2f} in away"
            )
    return f"no attack on {target}: in sight and in range, but its cover and range leave no chance"


def weapon_refusal(view: MatchView, uid: str, target: str, w: WeaponLine) -> str:
    """Why ``uid`` has no attack on ``target`` with ``w`` when another weapon has one: out of
    range (by how much), else the odds leave none."""
    facts = view.sight(uid, target)
    gap = _measured(view, uid, target, w, facts.distance)
    if gap - w.reach > 1e-9:
        how = "edge to edge" if w.edge_to_edge else "centre to centre"
        return f"{w.name}: out of range by {gap - w.reach:.2f} in (reaches {w.reach:.2f} in, {how})"
    return f"{w.name}: no attack with it on {target} now"


def bands_text(w: WeaponLine) -> str:
    """``short to 12 in, long to 24 in (-2 dice)`` (long tables: the first bands and the last)."""
    bands = list(w.bands)
    if len(bands) > MAX_BANDS:
        bands = [*bands[: MAX_BANDS - 1], bands[-1]]
        skipped = True
    else:
        skipped = False
    if len(bands) == 1 and not bands[0].modifier:
        return f"up to {amount(bands[0].upto)} in"
    parts = [
        (f"{b.name} " if b.name else "")
        + f"to {amount(b.upto)} in"
        + (f" ({b.modifier})" if b.modifier else "")
        for b in bands
    ]
    if skipped:
        parts.insert(len(parts) - 1, "…")
    return ", ".join(parts)


def weapon_lines(w: WeaponLine) -> list[str]:
    """One weapon as two short lines: what it is and costs, then its reach and damage."""
    cost = f"{w.ap} AP" if w.ap is not None else "no attack"
    first = f"{w.name} ({w.kind}, {cost}): {w.damage}"
    if w.bands:
        reach = f"range {bands_text(w)}"
    else:
        reach = f"reach {amount(w.reach)} in" + (" edge to edge" if w.edge_to_edge else "")
    notes = "; ".join(w.notes)
    return [first, "  " + reach + (f"; {notes}" if notes else "")]


def sheet_lines(sheet: UnitSheet) -> list[str]:
    """A unit's weapons, then its defences and protection (``  `` indents a continuation)."""
    lines: list[str] = []
    for w in sheet.weapons:
        lines += weapon_lines(w)
    if sheet.defences:
        lines.append("defends: " + "; ".join(sheet.defences))
    if sheet.protection:
        lines.append("protection: " + "; ".join(sheet.protection))
    return lines


def attack_key_index(sheet: UnitSheet, opt: Option) -> int | None:
    """The 0-based position of the option's weapon on the attacker's sheet (its attack key)."""
    if not isinstance(opt.command, Attack):
        return None
    for i, w in enumerate(sheet.weapons):
        if w.name == opt.command.weapon:
            return i
    return None


__all__ = [
    "amount",
    "attack_cost",
    "attack_key_index",
    "attack_price",
    "defence_price",
    "harm_text",
    "left_text",
    "percent",
    "reaction_note",
    "sheet_lines",
    "short_of_reaction",
    "track_name",
    "weapon_lines",
    "weapon_refusal",
    "why_no_attack",
]
