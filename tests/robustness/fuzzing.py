"""How long the property-based fuzz tests run: short in CI, longer on demand.

``SKIRMISH_FUZZ=long`` multiplies every fuzz test's examples by :data:`LONG_FACTOR` (and lifts
the derandomization of ``SKIRMISH_CI``, so each long run tries new inputs); the default is the
short form the suite's time budget allows.
"""

from __future__ import annotations

import os

#: Examples of a long run per example of the short one.
LONG_FACTOR = 20
LONG = os.environ.get("SKIRMISH_FUZZ", "").lower() == "long"


def examples(short: int) -> int:
    """Examples a fuzz test draws: ``short``, or :data:`LONG_FACTOR` times that with SKIRMISH_FUZZ=long."""
    return short * LONG_FACTOR if LONG else short
