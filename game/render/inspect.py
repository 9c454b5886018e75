"""What the window tells the player about a point or a target (pure; no pygame, no changes).

Contract: functions of a read-only :class:`~game.engine.view.MatchView` (and, for AP costs, a cost
function the caller takes from the ruleset). :func:`path_preview` gives the exact path to the
point a click there sends (rounded and snapped as :func:`resolve_point` does for the click) and
the AP the rules charge for it, to the hundredth of an inch, with the AP left after it and
whether they still pay for the unit's reaction; or why the move is refused (the Move option's
own validator, so the preview never disagrees with ``Match.apply``). :func:`target_lines` lists,
for a target, the sight facts and every attack option's exact odds, modifiers with their sources and details.
:func:`resolve_point` turns a click into a legal point of a point option: the click rounded to
0.01 inch when legal, else the click itself, else the nearest legal point of the option's region
within a snapping tolerance (:meth:`~game.engine.view.MatchView.snap_to_region`, the snapping
the AI uses too: a one-yard retreat arc can be hit with a mouse); a click too far from the
region is refused with the validator's reason and how far the click is from the region.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from shapely.geometry import Point as ShapelyPoint

from components.sight import SightFacts
from game.core.commands import Attack, Decision, Option, matches
from game.engine.view import MatchView, snap_point
from game.render import words
from game.render.price import reaction_note, short_of_reaction, why_no_attack

Point = tuple[float, float]

#: Clicks are rounded to this many decimals of an inch when the rounded point is legal.
CLICK_DECIMALS = 2


@dataclass(frozen=True)
class PathPreview:
    """The move to ``to`` as the window shows it.

    Attributes:
        unit: the moving unit.
        to: destination.
        points: the path polyline (just ``[start, to]`` if refused).
        length: path length in inches (0 if there is no path).
        ap: AP the move costs (``None`` if too far or refused).
        reason: why the move is refused, ``None`` if it is legal.
        after: what the AP left after the move mean for a reaction (``leaves 1 AP: too few for a
            dodge (2 AP)``), where reactions cost AP.
        short: the AP left are too few for the unit's reaction.
    """

    unit: str
    to: Point
    points: tuple[Point, ...]
    length: float
    ap: int | None
    reason: str | None
    after: str | None = None
    short: bool = False

    @property
    def label(self) -> str:
        """``"3.21 in, 1 AP"`` (and what the AP left mean for a reaction) or the refusal reason."""
        if self.reason:
            return self.reason
        head = f"{self.length:.2f} in, {self.ap} AP"
        return f"{head}; {self.after}" if self.after else head


def move_option(decision: Decision | None) -> Option | None:
    """The Move option of a turn decision, if any."""
    if decision is None or decision.kind != "turn":
        return None
    for o in decision.options:
        if type(o.command).__name__ == "Move":
            return o
    return None


def path_preview(
    view: MatchView,
    decision: Decision | None,
    to: Point,
    ap_cost: Callable[[float], int | None],
    snap: float = 0.0,
) -> PathPreview | None:
    """The path and AP cost for the deciding unit to move where a click at ``to`` goes (``snap``:
    the click's snapping tolerance, inches) (``None``: no Move option)."""
    opt = move_option(decision)
    if opt is None or decision is None:
        return None
    uid = decision.unit
    start = view.unit(uid).pos
    got, reason = resolve_point(opt, (float(to[0]), float(to[1])), start, snap)
    dest = got if got is not None else to
    path = view.path(uid, dest)
    if path is None:
        return PathPreview(uid, dest, (start, dest), 0.0, None, reason or "no free path there")
    pts = tuple((float(x), float(y)) for x, y in path.points)
    if reason:
        return PathPreview(uid, dest, pts, float(path.length), None, reason)
    ap = ap_cost(float(path.length))
    after = short = None
    if ap is not None:
        left = view.unit(uid).ap - ap
        after = reaction_note(view, uid, left)
        short = short_of_reaction(view, uid, left)
    return PathPreview(uid, dest, pts, float(path.length), ap, None, after, bool(short))


def attack_options(decision: Decision | None, attacker: str, target: str) -> list[Option]:
    """The pending decision's attack options of ``attacker`` on ``target``."""
    if decision is None or decision.unit != attacker or decision.kind != "turn":
        return []
    return [o for o in decision.options if isinstance(o.command, Attack) and o.command.target == target]


def percent(p: float | None) -> str:
    """An exact probability as a percentage with one decimal (``"—"`` if unknown)."""
    if p is None:
        return "—"
    return f"{100.0 * p:.1f}%"


def context_line(decision: Decision) -> str:
    """What a reaction decision is about, in words: ``attacked by vasco, with rapier, hit yes``."""
    ctx = dict(decision.context)
    parts = []
    if "attacker" in ctx:
        parts.append(f"attacked by {ctx.pop('attacker')}")
    if "weapon" in ctx:
        parts.append(f"with {ctx.pop('weapon')}")
    parts += [words.phrase(str(k), v) for k, v in ctx.items()]
    return ", ".join(parts)


def option_lines(opt: Option) -> list[str]:
    """An option as text: label and exact odds, then each modifier with its source, then details."""
    head = opt.label if opt.p_success is None else f"{opt.label}: {percent(opt.p_success)}"
    lines = [head]
    for m in opt.modifiers:
        lines.append(f"   {m} ({m.applies_to})")
    for k, v in opt.detail.items():
        lines.append(f"   {words.name(k)}: {words.value(v, k)}")
    return lines


def facts_lines(facts: SightFacts) -> list[str]:
    """Sight facts as text: cover %, level, hidden, arc, distance, cover units."""
    if facts.visible:
        cover = f"cover {facts.cover_fraction * 100:.1f}% ({facts.cover})"
    else:
        cover = "no line of sight (total cover)"
    lines = [
        f"{facts.attacker} to {facts.target}: {facts.distance:.1f} in",
        cover + (", hidden" if facts.hidden else ""),
        f"attack on its {facts.arc} arc",
        "cover units: " + (", ".join(facts.intervening) if facts.intervening else "none"),
    ]
    return lines


def target_lines(view: MatchView, decision: Decision | None, viewer: str, target: str) -> list[str]:
    """Everything the panel shows about ``target`` seen from ``viewer``: the sight facts, then
    each attack with its exact odds, modifiers and details, or the one reason there is none."""
    lines = facts_lines(view.sight(viewer, target))
    opts = attack_options(decision, viewer, target)
    if opts:
        for o in opts:
            lines.extend(option_lines(o))
    elif decision is not None and decision.unit == viewer and decision.kind == "turn":
        lines.append(why_no_attack(view, decision, viewer, target))
    return lines


def resolve_point(opt: Option, raw: Point, unit_pos: Point, snap: float) -> tuple[Point | None, str | None]:
    """A legal value for a point option near the click ``raw``.

    Args:
        opt: an option with a spatial ``point_field``.
        raw: the clicked world point.
        unit_pos: the deciding unit's centre (a refused point of a disc is pulled toward it).
        snap: how far (inches) a click may be from the region and still snap onto it.

    Returns:
        ``(point, None)`` for a legal point, or ``(None, reason)``: the validator's reason for the
        click, and, if it is farther than ``snap`` from the region, how far.
    """
    rounded = (round(raw[0], CLICK_DECIMALS), round(raw[1], CLICK_DECIMALS))
    first = matches(opt, opt.with_point(rounded))
    if first is None:
        return rounded, None
    got = snap_point(opt, raw, snap, unit_pos)
    if got is not None and matches(opt, opt.with_point(got)) is None:
        return got, None
    region = opt.region
    if region is not None and not region.is_empty:
        away = float(region.distance(ShapelyPoint(raw)))
        if away > snap:
            return None, f"{first}; the click is {away:.2f} in from the drawn region: click on or next to it"
    return None, first
