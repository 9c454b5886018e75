"""The ``random`` policy: a uniformly random legal command.

Options are drawn uniformly; a point option gets a uniformly random legal point
of its region (an option whose region yields no legal point is dropped), and a
``Face`` gets a uniformly random angle.
"""

from __future__ import annotations

import numpy as np

from game.ai.points import choose_point
from game.core.commands import Command, Decision
from game.engine.view import MatchView


def random_policy(view: MatchView, decision: Decision, rng: np.random.Generator) -> Command:
    options = list(decision.options)
    while options:
        opt = options.pop(int(rng.integers(len(options))))
        if opt.point_field is None:
            return opt.command
        if not opt.has_region:  # a free number, e.g. Face.degrees
            return opt.with_point(float(rng.uniform(0.0, 360.0)))
        point = choose_point(opt, rng)
        if point is not None:
            return opt.with_point(point)
    raise RuntimeError(f"no legal choice for {decision.unit}'s {decision.kind} decision")
