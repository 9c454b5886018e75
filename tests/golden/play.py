"""Play the golden battles through the public entry points (scenario file, Match, policies, saves).

Only public API is used here, so these helpers survive a restructuring that moves modules: the
imports below are the entry points README.md names.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path


def _imports():  # type: ignore[no-untyped-def]
    try:  # the layout after the restructure
        from game.ai import get_policy
        from game.engine.match import Match
        from game.engine.view import MatchView
        from game.scenario import load_scenario
        from game.tools.saves import load_match, save_match
    except ModuleNotFoundError:  # the layout the logs were recorded with
        from game.match import Match  # type: ignore[no-redef]
        from game.saves import load_match, save_match  # type: ignore[no-redef]
        from game.view import MatchView  # type: ignore[no-redef]

        from game.ai import get_policy  # type: ignore[no-redef]
        from game.scenario import load_scenario  # type: ignore[no-redef]
    return get_policy, Match, MatchView, load_scenario, load_match, save_match


def _play(match, policies, view_cls, limit=None) -> int:  # type: ignore[no-untyped-def]
    view = view_cls(match)
    n = 0
    while match.outcome is None and (limit is None or n < limit):
        decision = match.pending
        cmd = policies[match.side(decision.unit)](view, decision, match.ai_rng)
        match.apply(cmd)
        n += 1
    return n


def play_log(scenario: str, ruleset: str, seed: int, pols: tuple[str, str]) -> str:
    """The event log (JSON lines) of one battle played to the end."""
    get_policy, Match, MatchView, load_scenario, _, _ = _imports()
    spec = load_scenario(scenario, ruleset=ruleset)
    match = Match(spec, ruleset=ruleset, seed=seed, controllers=dict(zip(spec.sides, pols)))
    try:
        policies = {s: get_policy(p) for s, p in match.controllers.items()}
        _play(match, policies, MatchView)
        return _log_text(match)
    finally:
        match.close()


def _log_text(match) -> str:  # type: ignore[no-untyped-def]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "log.jsonl"
        match.log.write(path)
        return path.read_text()


def play_saved(scenario: str, ruleset: str, seed: int, pols: tuple[str, str], n: int) -> tuple[str, str]:
    """Play ``n`` commands, save; returns (the save's text, the full log of the game played on)."""
    get_policy, Match, MatchView, load_scenario, _, save_match = _imports()
    spec = load_scenario(scenario, ruleset=ruleset)
    match = Match(spec, ruleset=ruleset, seed=seed, controllers=dict(zip(spec.sides, pols)))
    try:
        policies = {s: get_policy(p) for s, p in match.controllers.items()}
        _play(match, policies, MatchView, limit=n)
        with tempfile.TemporaryDirectory() as d:
            path = save_match(match, Path(d) / "save.json")
            data = json.loads(path.read_text())
        # The save names its scenario by absolute path: keep only the repository-relative one.
        data["scenario"]["path"] = scenario
        data["scenario"]["relative"] = None
        if "digests" in data["check"]:  # a version-5 save's digests cover those fields too
            from game.tools.saves import digests

            data["check"]["digests"] = digests(data, data["version"])
        _play(match, policies, MatchView)
        return json.dumps(data, indent=1) + "\n", _log_text(match)
    finally:
        match.close()


def continue_saved(save_file: Path, scenario: str) -> str:
    """Load a save, play it to the end with its controllers; returns the full log."""
    get_policy, _, MatchView, _, load_match, _ = _imports()
    match = load_match(save_file, scenario_path=scenario)
    try:
        policies = {s: get_policy(p) for s, p in match.controllers.items()}
        _play(match, policies, MatchView)
        return _log_text(match)
    finally:
        match.close()
