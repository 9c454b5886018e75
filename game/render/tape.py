"""The measuring tape: what a tabletop player asks when stretching a tape from a unit or a point.

Contract (pure, no pygame): :func:`tape_lines` tells, for a tape from ``start`` to ``end`` (table
inches), the distance in inches and yards; when the tape starts on a unit, whether a move of
that unit there is legal now — the pending Move option's own validator when the unit has the
turn (so the tape never disagrees with a click), else whether a free path exists and how long;
and the cover a body like the unit (or, from a bare point, like the selected unit) would have
there from each enemy that sees the point (:meth:`MatchView.exposure`), by name and level.
"""

from __future__ import annotations

import math

import numpy as np

from game.core.commands import Decision
from game.engine.view import MatchView
from game.geometry.model import cover_level
from game.render.inspect import move_option

Point = tuple[float, float]


def tape_lines(
    view: MatchView,
    start: Point,
    end: Point,
    unit: str | None = None,
    viewer: str | None = None,
    decision: Decision | None = None,
) -> list[str]:
    """The tape's sentences (see the module docstring).

    Args:
        view: the match.
        start, end: the tape's ends, inches.
        unit: the unit the tape starts on (None: a bare point).
        viewer: whose body the cover is told for when ``unit`` is None (the selected unit).
        decision: the pending decision (for the exact move validator).
    """
    dist = math.dist(start, end)
    yards = dist * float(view.yards_per_inch)
    lines = [f"{dist:.2f} in ({yards:.1f} yd)"]
    body = unit or viewer
    if unit is not None:
        opt = move_option(decision) if decision is not None and decision.unit == unit else None
        path = view.path(unit, end)
        length = f"path {path.length:.2f} in" if path is not None else "no free path"
        if opt is not None:
            why = opt.validate(end) if opt.validate is not None else None
            lines.append(
                f"{unit} may move there ({length})" if why is None else f"{unit} may not move there: {why}"
            )
        else:
            lines.append(f"{unit}: {length}" + (" (not its turn)" if path is not None else ""))
    if body is not None and body in {u.id for u in view.units()}:
        exp = view.exposure(body)
        if exp.enemies:
            frac = exp.at(np.array([end], dtype=np.float64))[0]
            seen = [(e, float(f)) for e, f in zip(exp.enemies, frac) if f < 1.0]
            if seen:
                lines.append(f"a {body} there is seen by:")
                lines += [
                    f"  {e}: {100 * f:.0f}% hidden ({cover_level(f)} cover)"
                    for e, f in sorted(seen, key=lambda x: x[1])
                ]
            else:
                lines.append(f"a {body} there is seen by no enemy")
    return lines
