"""Whether a ruleset flow is in progress (the systems that wait for one to end ask this)."""

from __future__ import annotations

from components.decisions import FlowStack
from systems.store import Store


def flow_running(store: Store) -> bool:
    """Whether an attack or a maneuver is being resolved (a flow's frames, or, while a ruleset
    still runs generator flows, its generator)."""
    return bool(store.battle(FlowStack).frames)
