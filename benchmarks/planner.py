"""The planner's cost and strength against ``cautious``, in the same battles.

Usage::

    .venv/bin/python benchmarks/planner.py              # 2 seeds: 100 battles, a few minutes
    .venv/bin/python benchmarks/planner.py --seeds 10   # 500 battles: the figures in docs/ai.md
    .venv/bin/python benchmarks/planner.py --budget 4   # the budget knob (planner.budget)
    .venv/bin/python benchmarks/planner.py --clone-cost # what one look-ahead copy of a match costs

Every shipped scenario under every ruleset, on seeds 1..N, each seed with ``planner`` on either
side against ``cautious`` (the same battles ``skirmish battle --swap-sides`` plays). Each policy
call is timed with ``time.process_time`` (CPU time of this process: a busy host slows both
policies alike, so compare them in one run, as here); a policy's CPU per battle is the sum of its
own calls over the battles, divided by the number of battles. The engine's own work (applying
commands, posing decisions) belongs to neither and is left out. The last line is::

    planner: <ms> ms/battle, cautious <ms>, ratio <r>x, win rate vs cautious <p>

with the win rate among decisive battles and its 95 % Wilson interval. The issue's bound is a
ratio of at most 5 at the default budget.

``--clone-cost`` measures instead what a search over copies of the match would pay for each
copy, on the 5v5 map after 60 commands under every ruleset: rebuilding the match from its seed
and commands (the only faithful copy), and ``copy.deepcopy`` of it (not a usable copy: it shares
the engine's world by name and the dice stream); docs/ai.md weighs these against the budget.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from game.ai import get_policy  # noqa: E402
from game.rules import RULESET_NAMES  # noqa: E402
from game.tools.batch import load_spec  # noqa: E402
from game.tools.session import HUMAN, Session, Setup  # noqa: E402
from game.tools.stats import wilson  # noqa: E402

SCENARIOS = sorted(p for p in (ROOT / "scenarios").glob("*.yaml") if p.stem != "profiles")


def timed(policy: Callable[..., Any], spent: dict[str, float], name: str) -> Callable[..., Any]:
    """``policy`` with the CPU time of each call added to ``spent[name]``."""

    def call(view: Any, decision: Any, rng: Any) -> Any:
        t0 = time.process_time()
        try:
            return policy(view, decision, rng)
        finally:
            spent[name] += time.process_time() - t0

    return call


def clone_cost() -> None:
    """Print what copying a match costs (see the module docstring)."""
    import copy

    from game.core.commands import command_from_json

    for ruleset in RULESET_NAMES:
        spec = load_spec(str(ROOT / "scenarios" / "skirmish-5v5.yaml"), ruleset)
        players = {spec.sides[0]: "cautious", spec.sides[1]: "aggressive"}
        with Session.start(spec, Setup(ruleset=ruleset, seed=3), players) as s:
            s.play(steps=60)
            commands = list(s.match.commands)
            t0 = time.process_time()
            for _ in range(5):
                again = Setup(ruleset=ruleset, seed=3, controllers=players).build(spec)
                for c in commands:
                    again.apply(command_from_json(c))
                again.close()
            rebuild = (time.process_time() - t0) / 5
            t0 = time.process_time()
            copy.deepcopy(s.match)
            deep = time.process_time() - t0
        print(
            f"{ruleset}: rebuild after {len(commands)} commands {1000 * rebuild:.1f} ms "
            f"({1e6 * rebuild / len(commands):.0f} us/command), deepcopy {1000 * deep:.1f} ms"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2, help="seeds per scenario and ruleset (default 2)")
    ap.add_argument("--budget", type=int, default=None, help="planner.budget (default: the planner's)")
    ap.add_argument("--ruleset", action="append", help="only this ruleset (repeatable)")
    ap.add_argument("--clone-cost", action="store_true", help="measure what copying a match costs")
    args = ap.parse_args()
    if args.clone_cost:
        clone_cost()
        return

    spent = {"planner": 0.0, "cautious": 0.0}
    options = {} if args.budget is None else {"budget": args.budget}
    players = {
        "planner": timed(get_policy("planner", **options), spent, "planner"),
        "cautious": timed(get_policy("cautious"), spent, "cautious"),
    }
    won = lost = drawn = battles = 0
    for path in SCENARIOS:
        for ruleset in args.ruleset or RULESET_NAMES:
            spec = load_spec(str(path), ruleset)
            first, second = spec.sides[0], spec.sides[1]
            for seed in range(1, args.seeds + 1):
                for a, b in (("planner", "cautious"), ("cautious", "planner")):
                    side_of = {first: a, second: b}
                    setup = Setup(ruleset=ruleset, seed=seed, controllers=side_of)
                    # Both sides "human" to the session: this loop answers with the timed policies.
                    with Session.start(spec, setup, HUMAN) as s:
                        m = s.match
                        while m.outcome is None:
                            d = m.pending
                            assert d is not None
                            s.apply(players[side_of[m.side(d.unit)]](s.view, d, m.ai_rng))
                        winner = side_of.get(m.outcome.winner) if m.outcome.winner else None
                    battles += 1
                    won += winner == "planner"
                    lost += winner == "cautious"
                    drawn += winner is None
    rate = wilson(won, won + lost)
    p_ms = 1000.0 * spent["planner"] / battles
    c_ms = 1000.0 * spent["cautious"] / battles
    print(f"{battles} battles: planner won {won}, lost {lost}, drew {drawn}", file=sys.stderr)
    print(
        f"planner: {p_ms:.1f} ms/battle, cautious {c_ms:.1f}, ratio {p_ms / c_ms:.2f}x, "
        f"win rate vs cautious {rate}"
    )


if __name__ == "__main__":
    main()
