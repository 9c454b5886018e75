"""A match is a value: ``Match.clone`` and ``Match.snapshot`` copy it exactly, at any decision.

Property tests (Hypothesis) pick a ruleset, a shipped scenario, a seed and a decision point of
the battle the built-in policies play (a turn, or a reaction in the middle of an attack), and
check, from that point on:

- the clone and the original, answered by the same policies, write the same event lines and
  the same state hashes;
- playing the clone never changes the original: the original then plays on exactly as a match
  that was never cloned (the reference battle);
- a match read back from its snapshot plays on exactly as the original.
"""

from __future__ import annotations

from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.ai import get_policy
from game.engine.match import Match
from game.engine.view import MatchView
from game.rules import RULESET_NAMES
from game.scenario import load_scenario

SCENARIOS = ("duel", "firing-line", "skirmish-5v5")
POLICIES = ("cautious", "aggressive")


@lru_cache(maxsize=64)
def _spec(scenario: str, ruleset: str):  # type: ignore[no-untyped-def]
    return load_scenario(f"scenarios/{scenario}.yaml", ruleset=ruleset)


def _new(scenario: str, ruleset: str, seed: int) -> Match:
    spec = _spec(scenario, ruleset)
    return Match(spec, ruleset=ruleset, seed=seed, controllers=dict(zip(spec.sides, POLICIES, strict=True)))


def _play(m: Match, steps: int | None = None) -> list[str]:
    """Play ``steps`` decisions (None: to the end); the state hash after each."""
    policies = {s: get_policy(p) for s, p in m.controllers.items()}
    view = MatchView(m)
    hashes = []
    n = 0
    while m.outcome is None and (steps is None or n < steps):
        d = m.pending
        m.apply(policies[m.side(d.unit)](view, d, m.ai_rng))
        hashes.append(m.state_hash())
        n += 1
    return hashes


@lru_cache(maxsize=64)
def _reference(scenario: str, ruleset: str, seed: int) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """The battle played without copies: each decision's kind, the state hashes, the log."""
    m = _new(scenario, ruleset, seed)
    kinds = []
    policies = {s: get_policy(p) for s, p in m.controllers.items()}
    view = MatchView(m)
    hashes = []
    while m.outcome is None:
        d = m.pending
        kinds.append(d.kind)
        m.apply(policies[m.side(d.unit)](view, d, m.ai_rng))
        hashes.append(m.state_hash())
    text = m.log.text()
    m.close()
    return tuple(kinds), tuple(hashes), text


@st.composite
def decision_points(draw: st.DrawFn) -> tuple[str, str, int, int]:
    ruleset = draw(st.sampled_from(RULESET_NAMES))
    scenario = draw(st.sampled_from(SCENARIOS))
    seed = draw(st.integers(1, 6))
    kinds, _, _ = _reference(scenario, ruleset, seed)
    reactions = [i for i, k in enumerate(kinds) if k != "turn"]
    if reactions and draw(st.booleans()):  # half the time a reaction, mid-attack
        return ruleset, scenario, seed, draw(st.sampled_from(reactions))
    return ruleset, scenario, seed, draw(st.integers(0, len(kinds) - 1))


SETTINGS = settings(
    max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


@SETTINGS
@given(decision_points())
def test_a_clone_plays_on_as_the_original_and_never_changes_it(point: tuple[str, str, int, int]) -> None:
    ruleset, scenario, seed, cut = point
    kinds, ref_hashes, ref_log = _reference(scenario, ruleset, seed)
    m = _new(scenario, ruleset, seed)
    _play(m, cut)
    assert m.pending is not None and m.pending.kind == kinds[cut]
    twin = m.clone()
    assert twin.state_hash() == m.state_hash() and twin.pending is m.pending
    twin_hashes = _play(twin)  # the clone first: the original must not notice
    m_hashes = _play(m)
    assert twin_hashes == m_hashes == list(ref_hashes[cut:])
    assert twin.log.text() == m.log.text() == ref_log
    twin.close()
    m.close()


@SETTINGS
@given(decision_points())
def test_a_snapshot_reads_back_into_the_same_match(point: tuple[str, str, int, int]) -> None:
    ruleset, scenario, seed, cut = point
    _, ref_hashes, ref_log = _reference(scenario, ruleset, seed)
    m = _new(scenario, ruleset, seed)
    _play(m, cut)
    data = m.snapshot()
    back = Match.from_snapshot(data)
    assert back.state_hash() == m.state_hash()
    assert back.pending is not None and back.pending.unit == m.pending.unit
    assert [o.label for o in back.pending.options] == [o.label for o in m.pending.options]
    assert back.snapshot() == data  # written again, byte for byte
    m.close()
    assert _play(back) == list(ref_hashes[cut:])
    assert back.log.text() == ref_log
    back.close()


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
def test_clones_of_clones_branch_independently(ruleset: str) -> None:
    """A designer's branch: the same decision answered two ways in two clones."""
    m = _new("duel", ruleset, 2)
    _play(m, 3)
    a, b = m.clone(), m.clone()
    d = m.pending
    end = (
        next(o.command for o in d.options if type(o.command).__name__ == "EndTurn")
        if d.kind == "turn"
        else None
    )
    if end is not None:
        a.apply(end)
        assert b.state_hash() == m.state_hash() and len(b.log) == len(m.log)
        assert a.pending is not m.pending
    for x in (m, a, b):
        _play(x)
        x.close()
