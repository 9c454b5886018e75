"""game.tools.rl: the PettingZoo AEC environment passes the PettingZoo checks and plays real matches.

Issue 8, part 5.
"""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test

from game.core.errors import IllegalCommand, ScenarioError
from game.tools.rl import DECISION_KINDS, UNIT_FEATURES, WIN_REWARD, SkirmishEnv, env
from tests.robustness.conftest import NO_REACTIONS, ROOT, RULESETS, SCENARIOS

DUEL = SCENARIOS / "duel.yaml"
#: Two units toe to toe: random play fights, reacts and ends quickly.
BRAWL = Path(__file__).parent / "data" / "brawl.yaml"


def _rollout(e: SkirmishEnv, seed: int, max_iter: int = 20_000) -> dict[str, float]:
    """A random masked rollout; returns each agent's total reward."""
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    totals: dict[str, float] = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter(max_iter=max_iter):
        obs, reward, terminated, truncated, _ = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.size, f"{agent} has no legal action"
        e.step(int(rng.choice(legal)))
    assert not e.agents, "the match should have ended"
    return totals


@pytest.mark.parametrize("ruleset", RULESETS)
def test_pettingzoo_api_test(ruleset: str):
    e = env(DUEL, ruleset=ruleset, seed=1)
    with warnings.catch_warnings():
        # Advisory warnings (agent names without "_<n>", Dict observations, an all-zero
        # mask for an agent that is not deciding) are by design; failures are assertions.
        warnings.simplefilter("ignore")
        api_test(e, num_cycles=200)
    e.close()


@pytest.mark.parametrize("ruleset", ["gurps", "ap-pool"])
def test_pettingzoo_seed_test(ruleset: str):
    seed_test(lambda: env(BRAWL, ruleset=ruleset), num_cycles=60)


def test_api_test_on_a_bigger_scenario():
    e = env(SCENARIOS / "firing-line.yaml", ruleset="cortex", seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(e, num_cycles=6)
    e.close()


def test_spaces_are_fixed_and_observations_fit():
    e = env(DUEL, ruleset="gurps", seed=3)
    e.reset(seed=3)
    spaces = {a: (e.observation_space(a), e.action_space(a)) for a in e.possible_agents}
    rng = np.random.default_rng(3)
    for n, agent in enumerate(e.agent_iter(max_iter=150)):
        obs, _, terminated, truncated, _ = e.last()
        assert e.observation_space(agent) is spaces[agent][0] and e.action_space(agent) is spaces[agent][1]
        assert spaces[agent][0].contains(obs)
        if terminated or truncated:
            e.step(None)
            continue
        if n == 5:
            # A masked-out action is refused and changes nothing.
            masked = int(np.flatnonzero(obs["action_mask"] == 0)[0])
            before = (e.match.state_hash(), len(e.match.log))
            with pytest.raises(ValueError, match=f"action {masked} .* is not legal for {agent}"):
                e.step(masked)
            assert (e.match.state_hash(), len(e.match.log)) == before
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    e.close()


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_unmasked_action_is_accepted_and_reactions_interrupt(ruleset: str):
    e = env(BRAWL, ruleset=ruleset)
    interrupts = 0
    for seed in range(1 if ruleset in NO_REACTIONS else 3):
        if interrupts:
            break
        rng = np.random.default_rng(seed)
        e.reset(seed=seed)
        for agent in e.agent_iter(max_iter=20_000):
            obs, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            m = e.match
            assert m.pending.unit == agent
            # A reaction usually interrupts another unit's turn (an AFF riposte can make
            # the active unit itself defend).
            if m.pending.kind != "turn" and m.active != agent:
                interrupts += 1
            try:
                e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            except IllegalCommand as err:  # pragma: no cover - the assertion explains
                pytest.fail(f"an unmasked action was refused: {err}")
    e.close()
    if ruleset not in NO_REACTIONS:
        assert interrupts > 0, "no reaction decision came up in three matches"


def test_observation_features_follow_the_match():
    e = env(DUEL, ruleset="gurps", seed=4)
    e.reset(seed=4)
    agent = e.agent_selection
    obs = e.observe(agent)["observation"]
    m = e.match
    me, enemy = agent, next(u for u in e.possible_agents if u != agent)
    row_me, row_enemy = obs[1], obs[2]  # a duel: no friends, so the enemy follows the agent's own row
    col = {name: i for i, name in enumerate(UNIT_FEATURES)}
    assert row_me[col["is_self"]] == 1 and row_enemy[col["is_self"]] == 0 and row_enemy[col["friend"]] == 0
    assert row_me[col["x"]] == pytest.approx(m.pos(me)[0] / m.spec.width)
    assert row_enemy[col["dy"]] == pytest.approx(
        (m.pos(enemy)[1] - m.pos(me)[1]) / np.hypot(m.spec.width, m.spec.height)
    )
    assert row_enemy[col["i_see_it"]] == float(m.sight(me, enemy).visible)
    assert row_me[col["health"]] == 1.0 and obs[0][len(DECISION_KINDS) + 2] == 1.0  # unhurt; my decision
    other = e.observe(enemy)
    assert other["action_mask"].sum() == 0 and other["observation"][0][len(DECISION_KINDS) + 2] == 0.0
    e.close()


def test_rewards_follow_damage_and_the_outcome():
    e = env(BRAWL, ruleset="ap-pool")
    decisive = 0
    for seed in range(12):
        if decisive >= 2:
            break
        totals = _rollout(e, seed)
        m = e.match
        assert m.outcome is not None
        if m.outcome.winner is None:
            continue
        decisive += 1
        for uid in e.possible_agents:
            if m.side(uid) == m.outcome.winner:
                assert totals[uid] > 0, f"winner {uid} got {totals[uid]}"
            else:
                assert totals[uid] <= -WIN_REWARD, f"loser {uid} got {totals[uid]}"
    e.close()
    assert decisive > 0


def test_same_seed_same_match_log():
    logs = []
    for _ in range(2):
        e = env(BRAWL, ruleset="cortex")
        _rollout(e, 99)
        logs.append(e.match.log.to_text())
        e.close()
    assert logs[0] == logs[1]


def test_bad_scenario_is_a_scenario_error(tmp_path: Path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("map: {width: -1, height: 5}\nunits: []\n")
    with pytest.raises(ScenarioError, match=r"bad\.yaml:1"):
        env(bad)


def test_the_rl_environment_never_imports_pygame():
    code = (
        "import sys\n"
        "from game.tools.rl import env\n"
        "e = env('scenarios/duel.yaml', ruleset='aff', seed=0)\n"
        "e.reset(seed=0)\n"
        "for a in e.agent_iter(max_iter=300):\n"
        "    obs, r, term, trunc, info = e.last()\n"
        "    e.step(None if term or trunc else int(obs['action_mask'].nonzero()[0][0]))\n"
        "print(e.render() is None, 'pygame' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False"]


def test_docs_example_runs():
    text = (ROOT / "docs" / "rl.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    example = next(b for b in blocks if "agent_iter" in b)
    out = subprocess.run(
        [sys.executable, "-c", example], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert "outcome:" in out.stdout
