"""Building a match's esper world from a scenario.

Contract: :func:`build_world` makes a fresh :class:`~systems.world.World` with one entity
per unit of the scenario, in its order (``Identity``, ``Position``, ``Body``, ``Facing``,
``Stance``, ``ActionPoints``, the ruleset's ``Health``, ``DefenceState``, ``TurnState``,
``RuleStats``, ``Controller``), then the battle entity (``Round``, ``ActiveTurn``,
``PendingDecision``, ``Inbox``, ``RunningFlow``, ``Revisions``, ``TableChanges``). Stat blocks
are validated once per process and shared between matches (they are frozen).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from components.battle import RulesetState
from components.changes import Revisions, TableChanges
from components.decisions import Inbox, PendingDecision, RunningFlow
from components.identity import Controller, Identity
from components.spatial import Body, Facing, Position, Posture, Stance, normalize_degrees
from components.specs import ScenarioSpec, UnitSpec
from components.state import ActionPoints, DefenceState, RuleStats, TurnState
from components.turns import ActiveTurn, Round
from game.rules.base import Ruleset
from game.scenario import DEFAULT_PROFILE, resolve_stats
from systems.world import World

#: Validated stat blocks by (ruleset class, ruleset, profile, raw block): see :func:`_stats_of`.
_STATS: dict[tuple[Any, ...], Any] = {}


def build_world(
    name: str,
    spec: ScenarioSpec,
    rules: Ruleset,
    ruleset_name: str,
    controllers: dict[str, str],
    round_limit: int,
) -> World:
    """The world of a match of ``spec`` under ``rules`` (see the module docstring)."""
    world = World(name)
    try:
        _populate(world, spec, rules, ruleset_name, controllers, round_limit)
    except BaseException:
        world.close()
        raise
    return world


def _populate(
    world: World,
    spec: ScenarioSpec,
    rules: Ruleset,
    ruleset_name: str,
    controllers: dict[str, str],
    round_limit: int,
) -> None:
    for u in spec.units:
        stats = _stats_of(spec, rules, ruleset_name, u)
        setup = rules.setup_unit(stats)
        world.add_unit(
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
    world.add_battle(
        Round(limit=round_limit),
        ActiveTurn(),
        PendingDecision(),
        Inbox(),
        RunningFlow(),
        Revisions(MappingProxyType({u.id: 0 for u in spec.units})),
        TableChanges(),
        RulesetState(),
    )


def _stats_of(spec: ScenarioSpec, rules: Ruleset, ruleset_name: str, u: UnitSpec) -> Any:
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
