"""Every shipped scenario runs to completion under every ruleset; logs are deterministic
and AP never goes negative (issues 2, 4, 5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from game.engine.match import Match
from game.rules import RULESET_NAMES
from game.scenario import load_scenario
from game.tools.session import Session

SCENARIOS = sorted(p for p in Path("scenarios").glob("*.yaml") if p.name != "profiles.yaml")


def test_there_are_at_least_five_shipped_scenarios():
    assert len(SCENARIOS) >= 5


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_runs_to_completion_under_ruleset(path, ruleset):
    spec = load_scenario(path, ruleset=ruleset)
    m = Match(spec, seed=5, round_limit=3)
    out = Session(m, "random").play()
    assert out.rounds <= 3
    assert m.log.events[-1]["type"] == "match_end"
    for e in m.log.of_type("ap"):
        assert e["left"] >= 0
    for uid in m.units(alive=False):
        assert m.ap(uid).current >= 0
    for e in m.log.of_type("move", "step", "retreat", "dodge_move"):
        assert {"unit", "from", "to", "ap"} <= e.keys()
    for e in m.log.of_type("attack"):
        assert {"attacker", "target"} <= e.keys()
    m.close()


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
def test_same_seed_gives_byte_identical_log(ruleset):
    spec = load_scenario("scenarios/duel.yaml", ruleset=ruleset)
    texts = []
    for _ in range(2):
        m = Match(spec, seed=99, round_limit=5)
        Session(m, "random").play()
        texts.append(m.log.to_text())
        m.close()
    assert texts[0] == texts[1]
    assert texts[0].startswith('{"seq":0,"round":0,"type":"match_start"')
