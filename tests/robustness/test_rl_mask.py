"""game.tools.rl: the fast action mask is the reference mask, bit for bit (issue 27).

The environment works its mask out in bulk (a move's candidate points judged by the mesh's
first verdict, clipped discs answering GEOS's questions themselves, candidates remembered by
the disc's values); :meth:`SkirmishEnv.reference_legal_commands` is the plain definition,
every candidate built as a command and checked with ``matches`` one by one. On random play
through every ruleset, on the duel, the brawl and a bigger scenario, with both seats learning
and with either played by a policy, the two give the same actions and the same commands, and
the observation's mask is exactly their actions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from game.tools.rl import SkirmishEnv, env
from tests.robustness.conftest import RULESETS, SCENARIOS

BRAWL = Path(__file__).parent / "data" / "brawl.yaml"


def _compare(e: SkirmishEnv, seed: int, steps: int) -> int:
    """Random masked play for ``steps`` steps (resetting as matches end); the decisions compared."""
    rng = np.random.default_rng(seed)
    episode = seed
    e.reset(seed=episode)
    compared = 0
    for _ in range(steps):
        if not e.agents:
            episode += 1
            e.reset(seed=episode)
            continue
        agent = e.agent_selection
        if e.terminations[agent] or e.truncations[agent]:
            e.step(None)
            continue
        fast, reference = e.legal_commands(), e.reference_legal_commands()
        only_fast, only_reference = sorted(set(fast) - set(reference)), sorted(set(reference) - set(fast))
        differ = sorted(a for a in set(fast) & set(reference) if fast[a] != reference[a])
        assert fast == reference, (
            f"{e.ruleset} {e.match.pending.kind} of {agent}: actions only in the fast mask {only_fast}, "
            f"only in the reference {only_reference}, different commands {differ}"
        )
        mask = e.observe(agent)["action_mask"]
        assert sorted(np.flatnonzero(mask).tolist()) == sorted(fast)
        compared += 1
        e.step(int(rng.choice(sorted(fast))))
    return compared


@pytest.mark.parametrize("ruleset", RULESETS)
def test_fast_mask_is_the_reference_mask(ruleset: str):
    compared = 0
    for path, opponents, steps in (
        (SCENARIOS / "duel.yaml", None, 150),
        (SCENARIOS / "duel.yaml", {"blue": "cautious"}, 60),
        (SCENARIOS / "duel.yaml", {"red": "aggressive"}, 60),
        (BRAWL, None, 120),
        (SCENARIOS / "hedgerows.yaml", {"blue": "cautious"}, 40),
    ):
        e = env(path, ruleset=ruleset, opponents=opponents)
        compared += _compare(e, seed=len(str(path)) + steps, steps=steps)
        e.close()
    assert compared > 200
