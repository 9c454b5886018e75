"""Suite-wide test settings.

Hypothesis: with ``SKIRMISH_CI=1`` (set by ``.ci/run``) property tests run derandomized, so a
commit that passed CI passes it again on a fresh machine. Locally they draw new random examples
on every run and keep failures in ``.hypothesis/``: that is where new counterexamples come from,
and each one found gets pinned with ``@example``.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("SKIRMISH_CI") and os.environ.get("SKIRMISH_FUZZ", "").lower() != "long":
    settings.load_profile("ci")  # a long fuzz run (SKIRMISH_FUZZ=long) draws new inputs each time
