"""Movement geometry: where a disc-shaped unit base may stand, step, retreat, dodge or go.

Contract: pure geometry over inches (DESIGN §1); no rules, no engine state, no pygame or
esper. :class:`NavMesh` answers free-space and exact shortest-path queries for one map (a path
is a :class:`~game.movement.path.Path` value);
:mod:`game.movement.regions` turns the short moving reactions (GURPS step, retreat, sacrificial
dodge; the AP-pool 2" dodge move) into shapely regions (a retreat: exact arcs) plus exact
legality checks; :mod:`game.movement.costs` converts distances to action points. Rulesets decide
when a move is allowed; the engine checks every destination with ``path`` or an ``is_legal_*``
function.
"""

from game.movement.costs import AP_TOLERANCE, ap_for_distance, max_distance_for_ap
from game.movement.navmesh import (
    DEFAULT_QUAD_SEGS,
    TOUCH_TOL,
    NavMesh,
    as_blockers,
)
from game.movement.path import Path
from game.movement.regions import (
    AP_DODGE_MOVE_INCHES,
    LEGAL_TOL,
    RETREAT_SNAP_TOL,
    ArcRegion,
    dodge_disc,
    grid_points,
    interpose_points,
    is_legal_dodge_move,
    is_legal_interpose,
    is_legal_retreat,
    is_legal_step,
    line_of_fire_corridor,
    nearest_point,
    retreat_arcs,
    retreat_region,
    sample_points,
    snap_retreat,
    step_region,
)

__all__ = [
    "AP_DODGE_MOVE_INCHES",
    "AP_TOLERANCE",
    "DEFAULT_QUAD_SEGS",
    "LEGAL_TOL",
    "RETREAT_SNAP_TOL",
    "TOUCH_TOL",
    "ArcRegion",
    "NavMesh",
    "Path",
    "ap_for_distance",
    "as_blockers",
    "dodge_disc",
    "grid_points",
    "interpose_points",
    "is_legal_dodge_move",
    "is_legal_interpose",
    "is_legal_retreat",
    "is_legal_step",
    "line_of_fire_corridor",
    "max_distance_for_ap",
    "nearest_point",
    "retreat_arcs",
    "retreat_region",
    "sample_points",
    "snap_retreat",
    "step_region",
]
