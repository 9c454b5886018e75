"""Fixtures: every hand-made case runs through the oracle and both fast entry points."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from components.sight import SightFacts
from tests.geometry.scenes import ENGINES


@pytest.fixture(params=sorted(ENGINES))
def sight(request: pytest.FixtureRequest) -> Callable[..., SightFacts]:
    return ENGINES[request.param]
