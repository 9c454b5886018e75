"""Ruleset flows in the store: whether one is in progress (the systems that wait for one to end
ask this) and :func:`run_flow`, which runs one on to its next decision or its end (the dispatch
system for attacks, maneuvers and answers; the turn system for a round's start)."""

from __future__ import annotations

from typing import Any

from components.decisions import FlowStack, PendingDecision
from game.core.flow import Frame, Stepper, advance
from systems.host import Host
from systems.store import Store


def flow_running(store: Store) -> bool:
    """Whether an attack or a maneuver is being resolved (a flow's frames, or, while a ruleset
    still runs generator flows, its generator)."""
    return bool(store.battle(FlowStack).frames)


def run_flow(host: Host, rules: Stepper, frames: tuple[Frame, ...], answer: Any) -> None:
    """Run the flow ``frames`` (the top one given ``answer``) on to its next decision, which becomes
    the pending one (the frames left and what they ask go to the ``FlowStack``), or to its end
    (an empty ``FlowStack``)."""
    frames, asking = advance(rules, host, frames, answer)
    store = host.store
    if asking is None:
        store.put_battle(FlowStack())
        return
    decision = asking.decision
    if decision is None:
        decision = rules.ask(host, asking.builder, asking.args)
    store.put_battle(FlowStack(frames, (asking.builder, asking.args)), PendingDecision(decision))
