"""``skirmish reach SCENARIO UNIT [--ap N | --retreat-from ATTACKER | --dodge] [--json]``: the
exact region a unit may move to, the same region the window draws.

Contract (issue 19):

- Move (default): the geodesic reach of a move of ``UNIT`` this turn, around obstacles and the
  other units as the scenario sets them up (``MatchView.reach``, which the window's move overlay
  draws). Its length: the Move option's ``max_len`` when ``UNIT`` has the first decision and
  ``--ap`` is not given; otherwise ``--ap`` (default: the unit's AP now, or its maximum when it
  has none before its turn) times the ruleset's inches per AP.
- ``--retreat-from ATTACKER``: the retreat region of ``UNIT`` attacked by ``ATTACKER``
  (GURPS: at least one yard, at most ``max(1, Move / 10)`` yards, away from the attacker).
  ``--dodge``: the dodge-move region (AP pool: a 2" disc). Both come from the ruleset's
  :meth:`~game.rules.base.Ruleset.reaction_region` (those in its ``reaction_regions``): the
  geometry of the option the window draws; this module names no ruleset.
- ``--json`` prints one object ``{"unit", "kind", "ap", "max_len", "region"}``; ``region`` is
  the GeoJSON geometry (``shapely.geometry.mapping``), ``ap`` null for reactions. Without it, a
  short report. A point is inside ``region`` exactly when ``skirmish path`` with the same
  options calls it legal, away from a thin band at the boundary (the chords of the polygonal
  discs, at most ``max_len * (1 - cos(pi / 128))``; the property test checks 0.01"). A GURPS
  retreat region is lines (the exact arcs of a one-yard retreat): a point is on it when it lies
  within ``game.movement.regions.RETREAT_SNAP_TOL`` of them, where the engine snaps it.
- Unknown unit, attacker or ruleset, a unit that cannot move, a reaction the ruleset does not
  have, two of the region options at once: one line, exit status 2.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from game.cli.params import RULESET_OPTIONS, UNIT_ID, NumbersCommand
from game.core.commands import LazyRegion
from game.core.errors import SkirmishError
from game.rules import RULESET_NAMES, ruleset_class
from game.rules.base import REACTION_KINDS, ReactionRegion

#: Most AP ``--ap`` may spend (rulesets give a unit a handful a turn).
MAX_AP = 1000

#: Points of a path printed / returned are rounded to this many decimals.
DECIMALS = 4


@dataclass
class Query:
    """One region query on a scenario as it is set up (the match before any command)."""

    match: Any
    unit: str
    kind: str  # "move", or a moving reaction of the ruleset ("retreat", "dodge")
    ap: int | None
    max_len: float
    attacker: str | None = None
    #: A reaction's region, validator and band (:meth:`game.rules.base.Ruleset.reaction_region`).
    reaction: ReactionRegion | None = None

    # ------------------------------------------------------------------ region
    def region(self) -> Any:
        """The region as a shapely geometry (what the window draws)."""
        if self.reaction is None:
            from game.engine.view import MatchView

            return MatchView(self.match).reach(self.unit, self.max_len)()
        geometry = self.reaction.region.geometry
        # A region may be lazy (a retreat's exact arcs): built into lines on request.
        return geometry.build() if isinstance(geometry, LazyRegion) else geometry

    # ------------------------------------------------------------------ legality
    def check(self, to: tuple[float, float]) -> dict[str, Any]:
        """``{"legal", "length", "path", "reason"}`` for a move of the unit to ``to``."""
        m = self.match
        start = m.pos(self.unit)
        if self.reaction is None:
            reason = m.arena.move_region(self.unit, self.max_len).validate(to)
            path = m.arena.path(self.unit, to) if m.arena.free_reason(self.unit, to) is None else None
            points = [start, to] if path is None else list(path.points)
            length = None if path is None else path.length
        else:
            reason = self.reaction.region.validate(to)
            points = [start, to]
            length = math.dist(start, to)
        return {
            "legal": reason is None,
            "length": None if length is None else round(float(length), DECIMALS),
            "path": [[round(float(x), DECIMALS), round(float(y), DECIMALS)] for x, y in points],
            "reason": reason,
        }


def build_query(
    scenario: Path,
    unit: str,
    *,
    ruleset: str | None = None,
    ap: int | None = None,
    retreat_from: str | None = None,
    dodge: bool = False,
    options: Mapping[str, Any] | None = None,
) -> Query:
    """Load ``scenario`` and set up the query under the ruleset ``options`` (``--option``, over the
    scenario's; raises :class:`SkirmishError` on bad input, ``BadInput`` on a bad option)."""
    from game.ai import policy_names
    from game.cli.params import ruleset_options
    from game.engine.match import Match
    from game.scenario import load_scenario

    if retreat_from is not None and dodge:
        raise SkirmishError("--retreat-from and --dodge ask for different regions: give one")
    spec = load_scenario(scenario, ruleset, policies=policy_names())
    ids = [u.id for u in spec.units]
    if unit not in ids:
        raise SkirmishError(f"no unit {unit!r} in {scenario} (units: {', '.join(ids)})")
    name = ruleset or spec.ruleset
    opts = ruleset_options(name, dict(options or {}), base=spec.options.get(name, {}))
    match = Match(spec, ruleset=ruleset, seed=0, options=opts)
    rules = match.rules
    if retreat_from is not None and (retreat_from not in ids or retreat_from == unit):
        others = ", ".join(i for i in ids if i != unit)
        raise SkirmishError(f"--retreat-from: no other unit {retreat_from!r} (units: {others})")
    kind = "retreat" if retreat_from is not None else "dodge" if dodge else None
    if kind is not None:
        if kind not in rules.reaction_regions:
            having = [n for n in RULESET_NAMES if kind in ruleset_class(n).reaction_regions]
            raise SkirmishError(
                f"the {match.spec.ruleset} ruleset has no {REACTION_KINDS[kind]} ({', '.join(having)} has)"
            )
        got = rules.reaction_region(match, kind, unit, retreat_from)
        return Query(match, unit, kind, None, got.max_len, attacker=retreat_from, reaction=got)
    d = match.pending
    if ap is None and d is not None and d.unit == unit:
        for o in d.options:
            if "max_len" in (o.detail or {}):
                now = match.ap(unit).current
                return Query(match, unit, "move", int(now), float(o.detail["max_len"]))
    if ap is None:
        pool = match.ap(unit)
        ap = int(pool.current) if pool.current > 0 else int(pool.maximum)
    if ap < 0:
        raise SkirmishError(f"--ap must be 0 or more, got {ap}")
    per_ap = float(rules.inches_per_ap(match, unit))
    if per_ap <= 0.0:
        raise SkirmishError(f"{unit} cannot move now under the {match.spec.ruleset} ruleset")
    return Query(match, unit, "move", ap, per_ap * ap)


def region_options(f: Any) -> Any:
    """The options shared by ``reach`` and ``path``."""
    for opt in reversed(
        [
            click.option("--ruleset", default=None, help="Ruleset to use instead of the scenario's."),
            RULESET_OPTIONS,
            click.option(
                "--ap",
                type=click.IntRange(0, MAX_AP),
                default=None,
                help=f"AP to spend on the move, 0 to {MAX_AP} [default: this turn's].",
            ),
            click.option(
                "--retreat-from",
                "retreat_from",
                default=None,
                type=UNIT_ID,
                help="The retreat region from this attacker.",
            ),
            click.option("--dodge", is_flag=True, help="The dodge-move region (AP pool)."),
            click.option("--json", "as_json", is_flag=True, help="Print one JSON object."),
        ]
    ):
        f = opt(f)
    return f


@click.command("reach", cls=NumbersCommand)
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("unit", type=UNIT_ID)
@region_options
def reach(
    scenario: Path,
    unit: str,
    ruleset: str | None,
    option: tuple[str, ...],
    ap: int | None,
    retreat_from: str | None,
    dodge: bool,
    as_json: bool,
) -> None:
    """The exact region UNIT can move to (as the window draws it)."""
    from shapely.geometry import mapping

    from game.cli.params import parse_options

    q = build_query(
        scenario,
        unit,
        ruleset=ruleset,
        ap=ap,
        retreat_from=retreat_from,
        dodge=dodge,
        options=parse_options(option),
    )
    geom = q.region()
    try:
        if as_json:
            payload = {
                "unit": unit,
                "kind": q.kind,
                "ap": q.ap,
                "max_len": q.max_len,
                "region": mapping(geom),
            }
            click.echo(json.dumps(payload))
            return
        pieces = len(getattr(geom, "geoms", [geom])) if not geom.is_empty else 0
        lo = q.reaction.min_len if q.reaction is not None else 0.0
        what = {
            "move": f"a move of up to {q.max_len:.2f} in ({q.ap} AP)",
            "retreat": f"a retreat from {q.attacker} of {lo:.2f} to {q.max_len:.2f} in",
            "dodge": f'a dodge move of up to {q.max_len:g}"',
        }[q.kind]
        if geom.is_empty:
            click.echo(f"{unit}: {what}: nowhere to go")
        else:
            x0, y0, x1, y1 = geom.bounds
            click.echo(
                f"{unit}: {what}: {geom.area:.2f} sq in in {pieces} piece{'s' if pieces != 1 else ''}, "
                f"from ({x0:.2f}, {y0:.2f}) to ({x1:.2f}, {y1:.2f})"
            )
    finally:
        q.match.close()
