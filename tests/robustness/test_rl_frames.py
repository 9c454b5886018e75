"""game.rl: ``render_mode="rgb_array"`` frames and ``opponents`` played inside the environment."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, render_test, seed_test

from game.core.errors import UnknownName
from game.rl import env
from game.tools import rl as tools_rl
from tests.robustness.conftest import ROOT, SCENARIOS

DUEL = SCENARIOS / "duel.yaml"
SMALL = (640, 420)


def _play(e, seed: int, max_iter: int = 5000) -> int:
    """Random masked actions until the match ends; returns the steps taken."""
    rng = np.random.default_rng(seed)
    steps = 0
    for agent in e.agent_iter(max_iter=max_iter):
        obs, _, term, trunc, _ = e.last()
        assert agent in e.possible_agents
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return steps


def test_rgb_array_is_the_renderers_frame_and_follows_the_match():
    e = env(DUEL, ruleset="gurps", seed=0, render_mode="rgb_array", render_size=SMALL)
    assert "rgb_array" in e.metadata["render_modes"] and e.metadata["render_fps"] > 0
    assert e.render() is None  # before reset: nothing to draw
    e.reset(seed=1)
    first = e.render()
    assert isinstance(first, np.ndarray) and first.dtype == np.uint8 and first.shape == (420, 640, 3)
    assert first.std() > 10  # a picture, not a blank
    obs, *_ = e.last()
    moves = [a for a in np.flatnonzero(obs["action_mask"]) if "move" in e.catalogue.describe(int(a))]
    e.step(int(moves[-1]))
    after = e.render()
    assert after.shape == first.shape and (after != first).any()
    e.reset(seed=1)  # a new match is drawn, not the old one
    assert np.array_equal(e.render(), first)
    e.close()


def test_pettingzoo_render_test():
    def make(render_mode=None):
        # render_test first builds a "human" env only to read the metadata: this one never
        # opens a window, so that probe gets a plain env
        mode = None if render_mode == "human" else render_mode
        return env(
            DUEL,
            ruleset="cortex",
            seed=0,
            render_mode=mode,
            opponents={"blue": "cautious"},
            render_size=SMALL,
        )

    render_test(make)


def test_the_environment_draws_with_the_frame_function_it_is_given():
    closed = []

    class Frames:
        def __call__(self, view):
            return np.full((2, 3, 3), len(view.units()), np.uint8)

        def close(self):
            closed.append(True)

    e = tools_rl.env(DUEL, render_mode="rgb_array", frame=Frames())
    e.reset(seed=0)
    assert e.render().tolist() == np.full((2, 3, 3), 2).tolist()
    e.close()
    assert closed == [True]


def test_rgb_array_needs_the_frames_of_game_rl():
    with pytest.raises(ValueError, match=r"game\.rl\.env"):
        tools_rl.env(DUEL, render_mode="rgb_array")
    with pytest.raises(ValueError, match="render_mode"):
        env(DUEL, render_mode="human")
    with pytest.raises(ValueError, match="smaller than 640x420"):
        env(DUEL, render_mode="rgb_array", render_size=(320, 200))


def test_pettingzoo_api_test_with_frames_and_an_opponent():
    e = env(DUEL, ruleset="ap-pool", seed=3, render_mode="rgb_array", opponents={"blue": "cautious"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the advisory warnings of docs/rl.md
        api_test(e, num_cycles=60)
    e.close()


def test_seed_test_with_an_opponent():
    seed_test(lambda: env(DUEL, ruleset="gurps", opponents={"red": "aggressive"}), num_cycles=40)


def test_opponents_play_inside_and_only_learners_are_agents():
    e = env(SCENARIOS / "skirmish-5v5.yaml", ruleset="cortex", seed=0, opponents={"blue": "aggressive"})
    e.reset(seed=4)
    red = [u.id for u in e.spec.units if u.side == "red"]
    assert e.possible_agents == red and e.agents == red
    assert e.agent_selection in red
    steps = _play(e, 4, max_iter=400)
    m = e.match
    assert m.controllers["blue"] == "aggressive"
    blue_commands = [c for c in m.log.of_type("command") if m.side(c["unit"]) == "blue"]
    assert blue_commands, "the opponent never played"
    assert steps >= len(m.log.of_type("command")) - len(blue_commands)
    e.close()


def test_opponents_are_deterministic_under_a_seed():
    logs = []
    for _ in range(2):
        e = env(DUEL, ruleset="aff", opponents={"blue": "random"})
        e.reset(seed=11)
        _play(e, 11)
        assert e.match.outcome is not None and not e.agents
        logs.append(e.match.log.to_text())
        e.close()
    assert logs[0] == logs[1]


def test_an_opponent_that_moves_first_is_played_at_reset():
    for seed in range(40):
        e = env(DUEL, ruleset="aff", opponents={"red": "aggressive"})
        e.reset(seed=seed)
        if e.match.log.of_type("command"):  # red won the initiative and already acted
            assert e.agent_selection == "hendrik" and e.match.pending.unit == "hendrik"
            e.close()
            return
        e.close()
    pytest.fail("red never acted first in 40 seeds")


def test_bad_opponents_are_refused():
    with pytest.raises(ValueError, match="no side 'green'"):
        env(DUEL, opponents={"green": "random"})
    with pytest.raises(ValueError, match="every side"):
        env(DUEL, opponents={"red": "random", "blue": "random"})
    with pytest.raises(UnknownName):
        env(DUEL, opponents={"blue": "no-such-policy"})


def test_without_rgb_array_game_rl_never_imports_pygame():
    code = (
        "import sys\n"
        "from game.rl import env\n"
        "e = env('scenarios/duel.yaml', ruleset='gurps', seed=0, render_mode='ansi',\n"
        "        opponents={'blue': 'cautious'})\n"
        "e.reset(seed=0)\n"
        "print(e.render().splitlines()[0].startswith('round'), 'pygame' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False"]


def test_the_docs_examples_of_opponents_and_frames_run():
    text = (ROOT / "docs" / "rl.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    blocks = [b for b in blocks if "opponents=" in b or "rgb_array" in b]
    outputs = []
    for block in blocks:
        out = subprocess.run(
            [sys.executable, "-c", block], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        assert out.returncode == 0, out.stderr
        outputs.append(out.stdout.strip())
    assert outputs == ["['vasco']", "(420, 640, 3) uint8"]
