"""Who a unit is and who controls it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Identity:
    """Scenario id and side of a unit."""

    uid: str
    side: str


@dataclass(frozen=True, slots=True)
class Controller:
    """``human`` or the registered name of an AI policy."""

    policy: str = "random"
