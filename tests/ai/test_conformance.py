"""Every shipped scenario × ruleset × policy pair plays to the end; cautious beats random.

The pairs put each registered policy (the policy registry: a new policy is tested at once) on
each side at least once. Battles are cut to
a few rounds (``round_limit``) to keep the suite fast: what is tested is that every
decision any ruleset poses on any map gets a legal answer from every policy.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from game.ai import policy_names
from game.rules import RULESET_NAMES
from game.tools.batch import plan, run_batch, run_battle
from game.tools.stats import wilson

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted(p for p in (ROOT / "scenarios").glob("*.yaml") if p.stem != "profiles")
_NAMES = policy_names()
#: Each registered policy against the next, round the registry: each on each side once.
PAIRS = [(_NAMES[i], _NAMES[(i + 1) % len(_NAMES)]) for i in range(len(_NAMES))]
#: Rounds per conformance battle (the full round limit with SKIRMISH_SOAK=full).
SHORT_ROUNDS = None if os.environ.get("SKIRMISH_SOAK") == "full" else 2


def test_the_shipped_scenarios_are_found():
    assert {p.stem for p in SCENARIOS} >= {"duel", "street", "hedgerows", "firing-line", "skirmish-5v5"}


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.stem)
def test_every_policy_pair_finishes(scenario, ruleset):
    from game.tools.batch import load_spec

    spec = load_spec(str(scenario), ruleset)
    first, second = spec.sides[0], spec.sides[1]
    for k, (a, b) in enumerate(PAIRS):
        job = plan(
            seeds=[100 + k],
            scenario=str(scenario),
            spec=spec,
            ruleset=ruleset,
            policies={first: a, second: b},
            round_limit=SHORT_ROUNDS,
            check_invariants=True,
        )[0]
        row = run_battle(job)
        assert row["winner"] in (*spec.sides, "draw")
        assert row["commands"] > 0


@pytest.mark.slow
def test_cautious_beats_random_on_the_street():
    """The issue asks for > 80 % of 200 battles: CI plays 100 seeds with each side assignment
    (200 battles, ~25 s on 2 cores; measured 99 of 100 wins at 50 seeds) and requires the win
    rate above 80 % and the lower 95 % Wilson bound above 70 %. With SKIRMISH_SOAK=full it plays
    500 seeds per assignment.
    """
    full = os.environ.get("SKIRMISH_SOAK") == "full"
    n = 500 if full else 100
    street = ROOT / "scenarios" / "street.yaml"
    jobs = plan(seeds=range(1, n + 1), scenario=str(street), policies={"red": "cautious", "blue": "random"})
    jobs += plan(seeds=range(1, n + 1), scenario=str(street), policies={"red": "random", "blue": "cautious"})
    rows = run_batch(jobs, workers=2, progress=False)
    won = sum(1 for r in rows if r["winner_policy"] == "cautious")
    rate = wilson(won, len(rows))
    assert rate.p > 0.8, rate
    assert rate.lo > 0.7, rate
