"""Playing shipped scenarios to the end for the mechanic-in-play tests (public entry points only).

``play(scenario, ruleset, seed, policies, watch, options)`` plays one battle with the named policies
(red first) and returns its event log; ``watch(match, view, decision, command)`` (optional)
runs before each command is applied, so a test can look at the table as the AI chose.
``spec(scenario, ruleset)`` is the loaded scenario; ``stats(spec, ruleset)`` every unit's
validated stat block. Every log these tests play is also checked with the match invariants.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from game.ai import get_policy
from game.engine.match import Match
from game.engine.view import MatchView
from game.scenario import load_scenario, resolve_stats
from game.tools.invariants import check_log

ROOT = Path(__file__).resolve().parents[2]

Watch = Callable[[Any, Any, Any, Any], None]


def spec(scenario: str, ruleset: str) -> Any:
    return load_scenario(str(ROOT / "scenarios" / f"{scenario}.yaml"), ruleset=ruleset)


def stats(scenario_spec: Any, ruleset: str) -> dict[str, Any]:
    return {u.id: resolve_stats(scenario_spec, u, ruleset) for u in scenario_spec.units}


def play(
    scenario: str,
    ruleset: str,
    seed: int,
    policies: tuple[str, str],
    watch: Watch | None = None,
    options: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The events of one battle of ``scenarios/<scenario>.yaml`` under ``ruleset`` (with the
    scenario's ruleset options, or ``options``), checked with the match invariants: an
    assertion error names any broken one."""
    scenario_spec = spec(scenario, ruleset)
    match = Match(
        scenario_spec,
        ruleset=ruleset,
        seed=seed,
        options=options,
        controllers=dict(zip(scenario_spec.sides, policies, strict=True)),
    )
    try:
        chosen = {s: get_policy(p) for s, p in match.controllers.items()}
        view = MatchView(match)
        for _ in range(100_000):
            if match.outcome is not None:
                break
            decision = match.pending
            cmd = chosen[match.side(decision.unit)](view, decision, match.ai_rng)
            if watch is not None:
                watch(match, view, decision, cmd)
            match.apply(cmd)
        assert match.outcome is not None, "the battle did not finish"
        events = [dict(e) for e in match.log.events]
        broken = check_log(events, scenario_spec)
        assert broken == [], broken[:3]
        return events
    finally:
        match.close()
