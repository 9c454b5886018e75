"""Synchronized dice for search clones (game.dice.synced, ``Match.clone(seed, synced=True)``).

A roll's faces are a pure function of the world's seed and what the roll is; clones that differ by
one command roll alike wherever that command changed nothing; the real match never draws them.
"""

from __future__ import annotations

from collections import Counter

import pytest

from game.ai import get_policy
from game.core.commands import EndTurn
from game.dice.synced import SyncedRolls, key_of, synced_faces
from game.engine.match import Match
from game.engine.view import MatchView
from game.rules import RULESET_NAMES
from game.scenario import load_scenario


def test_faces_are_a_pure_function_of_seed_and_key_and_fair() -> None:
    assert synced_faces(7, key_of(2, "brute", "attack", 0), 3, 6) == synced_faces(
        7, key_of(2, "brute", "attack", 0), 3, 6
    )
    assert synced_faces(7, key_of(2, "brute", "attack", 0), 8, 6) != synced_faces(
        8, key_of(2, "brute", "attack", 0), 8, 6
    )
    faces = Counter(f for k in range(3000) for f in synced_faces(11, key_of(1, "u", "p", k), 2, 6))
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    assert all(abs(n - 1000) < 100 for n in faces.values()), faces  # 6000 rolls, 3 sigma ~ 91
    d20 = Counter(synced_faces(3, key_of(1, "u", "d20", 0), 20000, 20))
    assert set(d20) == set(range(1, 21))


def test_rolls_are_counted_per_round_unit_and_purpose() -> None:
    a, b = SyncedRolls(5), SyncedRolls(5)
    first = a.faces(1, "guard", "attack", 3, 6)
    # b rolls something else first: its first "attack" roll by the guard still matches a's.
    b.faces(1, "guard", "damage", 2, 6)
    assert b.faces(1, "guard", "attack", 3, 6) == first
    # The next roll of the same kind is another draw (with 3 dice, equal by chance 1 in 216).
    seconds = [SyncedRolls(s) for s in range(20)]
    assert sum(r.faces(1, "g", "a", 3, 6) == r.faces(1, "g", "a", 3, 6) for r in seconds) <= 2


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
def test_synced_clones_branch_alike_and_leave_the_match_alone(ruleset: str) -> None:
    spec = load_scenario("scenarios/duel.yaml", ruleset=ruleset)
    m = Match(spec, ruleset=ruleset, seed=3, controllers={"red": "cautious", "blue": "cautious"})
    before = (m.state_hash(), len(m.log.events))
    d = m.pending
    assert d is not None and d.kind == "turn"
    policy = get_policy("aggressive")
    logs = []
    for _ in range(2):
        c = m.clone(99, synced=True)
        view = MatchView(c)
        for _ in range(40):
            if c.outcome is not None:
                break
            p = c.pending
            assert p is not None
            c.apply(policy(view, p, c.ai_rng))
        logs.append([e for e in c.log.events[before[1] :] if e["type"] == "roll"])
        c.close()
    assert logs[0] == logs[1]  # the same world twice: the same rolls
    assert (m.state_hash(), len(m.log.events)) == before  # the real match untouched
    # Two worlds differing by the first command (an attack now, or the turn passed): every roll
    # the enemy makes in the next round has the same faces in both, keyed by what it is.
    rolls = []
    for first in ("policy", "pass"):
        c = m.clone(99, synced=True)
        view = MatchView(c)
        c.apply(policy(view, d, c.ai_rng) if first == "policy" else EndTurn(d.unit))
        start_round = c.round
        while c.outcome is None and c.round <= start_round + 1:
            p = c.pending
            assert p is not None
            c.apply(policy(view, p, c.ai_rng))
        seen: Counter[tuple[int, str, str]] = Counter()
        keyed = {}
        for e in c.log.events[before[1] :]:
            if e["type"] == "roll":
                k = (e["round"], e["unit"], e["purpose"])
                keyed[(*k, seen[k])] = e["faces"]
                seen[k] += 1
        rolls.append(keyed)
        c.close()
    common = set(rolls[0]) & set(rolls[1])
    assert common, "the two worlds share no roll"
    # The same roll gives the same dice, die by die (a pool may hold more dice in one world).
    for k in common:
        a, b = rolls[0][k], rolls[1][k]
        n = min(len(a), len(b))
        assert a[:n] == b[:n], (k, a, b)
