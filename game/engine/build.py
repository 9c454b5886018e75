"""Building a match's store from a scenario.

Contract: :func:`build_store` makes a fresh :class:`~systems.store.Store` with one entity per
unit of the scenario, in its order (``Identity``, ``Position``, ``Body``, ``Facing``,
``Stance``, ``ActionPoints``, the ruleset's ``Health``, ``DefenceState``, ``TurnState``,
``RuleStats``, ``Controller``), then the battle entity (``Round``, ``ActiveTurn``,
``PendingDecision``, ``Inbox``, ``FlowStack``, ``Revisions``, ``TableChanges``,
``RulesetState``, ``AiMemory``, ``Randomness``, ``Journal``). Stat blocks are validated once
per process and shared between matches (they are frozen).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from components.battle import AiMemory, Journal, Randomness, RulesetState
from components.changes import Revisions, TableChanges
from components.decisions import FlowStack, Inbox, PendingDecision
from components.identity import Controller, Identity
from components.spatial import Body, Facing, Position, Posture, Stance, normalize_degrees
from components.specs import ScenarioSpec, UnitSpec
from components.state import ActionPoints, DefenceState, RuleStats, TurnState
from components.turns import ActiveTurn, Round
from game.rules.base import Ruleset
from game.scenario import DEFAULT_PROFILE, resolve_stats
from systems.store import Store

#: Validated stat blocks by (ruleset class, ruleset, profile, raw block): see :func:`stats_of`.
_STATS: dict[tuple[Any, ...], Any] = {}


def build_store(
    spec: ScenarioSpec,
    rules: Ruleset,  # type: ignore[type-arg]
    ruleset_name: str,
    controllers: dict[str, str],
    round_limit: int,
    randomness: Randomness,
    journal: Journal,
) -> Store:
    """The store of a new match of ``spec`` under ``rules`` (see the module docstring)."""
    store = Store()
    try:
        for u in spec.units:
            stats = stats_of(spec, rules, ruleset_name, u)
            setup = rules.setup_unit(stats)
            store.add_unit(
                u.id,
                Identity(u.id, u.side),
                Position(float(u.at[0]), float(u.at[1])),
                Body(u.base, u.size),
                Facing(normalize_degrees(u.facing)),
                Stance(Posture(u.posture)),
                ActionPoints(setup.ap_max, setup.ap_max),
                setup.health,
                DefenceState(),
                TurnState(),
                RuleStats(u.profile or "trooper", stats),
                Controller(controllers.get(u.side, "random")),
            )
        store.add_battle(
            Round(limit=round_limit),
            ActiveTurn(),
            PendingDecision(),
            Inbox(),
            FlowStack(),
            Revisions(MappingProxyType({u.id: 0 for u in spec.units})),
            TableChanges(),
            RulesetState(),
            AiMemory(),
            randomness,
            journal,
        )
    except BaseException:
        store.close()
        raise
    return store


def stats_of(spec: ScenarioSpec, rules: Ruleset, ruleset_name: str, u: UnitSpec) -> Any:  # type: ignore[type-arg]
    """``resolve_stats`` for ``u``, remembered by the raw block it validates: validating a
    stat block (pydantic) costs more than a battle's first turn, and a batch plays the same
    blocks over and over. The models are frozen, so matches can share them."""
    block = spec.profiles.get(u.profile or DEFAULT_PROFILE, {}).get(ruleset_name)
    if block is None:
        return resolve_stats(spec, u, ruleset_name)  # a default, or an error
    key = (type(rules), ruleset_name, u.profile, repr(block))
    stats = _STATS.get(key)
    if stats is None:
        if len(_STATS) >= 1024:
            _STATS.clear()
        stats = _STATS[key] = resolve_stats(spec, u, ruleset_name)
    return stats
