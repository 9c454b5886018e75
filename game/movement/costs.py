"""Action-point cost of moving a distance, for rulesets that pay movement in AP.

Contract: a move of ``distance`` inches at ``inches_per_ap`` inches per AP costs
``ceil(distance / inches_per_ap)`` AP, where a distance within 1e-9 of a whole number of AP does
not round up (floating-point path lengths must not cost an extra point). Zero distance costs 0.
"""

from __future__ import annotations

import math

#: Relative slack before a fraction of an AP counts as a whole extra AP.
AP_TOLERANCE = 1e-9


def _check_rate(inches_per_ap: float) -> float:
    rate = float(inches_per_ap)
    if not rate > 0.0 or not math.isfinite(rate):
        raise ValueError(f"inches_per_ap must be positive, got {inches_per_ap!r}")
    return rate


def ap_for_distance(distance: float, inches_per_ap: float) -> int:
    """AP needed to move ``distance`` inches.

    Args:
        distance: Path length in inches (>= 0).
        inches_per_ap: Inches one AP buys (> 0).

    Returns:
        The smallest whole number of AP that covers the distance.

    Raises:
        ValueError: for a negative distance or a non-positive rate.
    """
    if distance < 0.0:
        raise ValueError(f"distance must be >= 0, got {distance!r}")
    return max(0, math.ceil(distance / _check_rate(inches_per_ap) - AP_TOLERANCE))


def max_distance_for_ap(ap: int, inches_per_ap: float) -> float:
    """Longest move, in inches, that ``ap`` action points pay for (0 for ``ap <= 0``)."""
    return max(0, int(ap)) * _check_rate(inches_per_ap)
