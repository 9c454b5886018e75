"""Random commands built from random fields are refused with IllegalCommand, changing nothing (issue 8).

Part 3 of the issue: illegal commands never change the match.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from game.ai import get_policy
from game.core.commands import Move, command_from_json, command_records, find_option
from game.core.errors import IllegalCommand
from game.engine.match import Match
from game.engine.view import MatchView
from game.scenario import load_scenario
from tests.engine.conftest import make_spec
from tests.robustness.conftest import NO_REACTIONS, RULESETS, SCENARIOS

#: Field names of every command type, with a strategy of plausible and implausible values.
NUMBER = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-30, 30),
    st.integers(-(10**20), 10**20),
)
POINT = st.one_of(
    st.tuples(st.floats(-5, 40), st.floats(-5, 40)),
    st.tuples(NUMBER, NUMBER),
    st.lists(NUMBER, max_size=3).map(tuple),
    st.none(),
    st.text(max_size=3),
)
TEXT = st.one_of(
    st.sampled_from(
        ["none", "dodge", "parry", "block", "standing", "prone", "kneeling", "sword", "bow", "all_out"]
    ),
    st.text(max_size=8),
)
JUNK = st.one_of(st.none(), st.booleans(), NUMBER, st.text(max_size=5), st.lists(st.integers(), max_size=2))


def _field_values(unit_ids: list[str]) -> dict[str, st.SearchStrategy[Any]]:
    unit = st.one_of(st.sampled_from(unit_ids), st.text(max_size=6), JUNK)
    return {
        "unit": unit,
        "target": unit,
        "friend": unit,
        "to": POINT,
        "retreat_to": POINT,
        "degrees": st.one_of(NUMBER, JUNK),
        "posture": st.one_of(TEXT, JUNK),
        "weapon": st.one_of(TEXT, JUNK),
        "kind": st.one_of(TEXT, JUNK),
        "name": st.one_of(TEXT, JUNK),
        "combo": st.one_of(st.sampled_from(["body", "mind", "spirit"]), TEXT, JUNK),
        "options": st.lists(TEXT, max_size=2).map(tuple),
        "drop": st.one_of(st.booleans(), JUNK),
        "acrobatic": st.one_of(st.booleans(), JUNK),
    }


@st.composite
def random_commands(draw: st.DrawFn, unit_ids: list[str], pending_unit: str) -> Any:
    """A command of a random type whose fields are random (biased toward the deciding unit)."""
    records = command_records()
    name = draw(st.sampled_from(sorted(records)))
    values = _field_values(unit_ids)
    data: dict[str, Any] = {"type": name}
    for f in records[name]:
        if f == "unit" and draw(st.booleans()):
            data[f] = pending_unit
        elif draw(st.integers(0, 3)) > 0 or f == "unit":
            data[f] = draw(values.get(f, JUNK))
    try:
        return command_from_json(data)
    except ValueError:
        assume(False)


def _positions(ruleset: str) -> list[Match]:
    """Matches paused at a turn decision and, if one comes up, at a reaction decision."""
    if ruleset == "test-simple":
        spec = make_spec()
    else:
        spec = load_scenario(SCENARIOS / "duel.yaml", ruleset=ruleset)
    out = []
    policy = get_policy("random")
    for seed in range(0 if ruleset in NO_REACTIONS else 40):
        m = Match(spec, ruleset=ruleset, seed=seed)
        view = MatchView(m)
        for _ in range(400):
            if m.outcome is not None or m.pending.kind != "turn":
                break
            m.apply(policy(view, m.pending, m.ai_rng))
        if m.outcome is None and m.pending.kind != "turn":
            out.append(m)
            break
        m.close()
    out.append(Match(spec, ruleset=ruleset, seed=1000))
    return out


@pytest.fixture(scope="module", params=[*RULESETS, "test-simple"])
def positions(request) -> list[Match]:
    matches = _positions(request.param)
    yield matches
    for m in matches:
        m.close()


def test_positions_cover_turns_and_reactions(positions):
    kinds = {m.pending.kind for m in positions}
    assert "turn" in kinds
    if positions[0].ruleset_name not in NO_REACTIONS:
        assert len(kinds) >= 2, f"no reaction decision reached under {positions[0].ruleset_name}"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_commands_are_refused_without_changing_anything(positions, data):
    m = data.draw(st.sampled_from(positions))
    decision = m.pending
    cmd = data.draw(random_commands(m.units(alive=False), decision.unit))
    try:
        find_option(decision, cmd)
        legal = True
    except ValueError:
        legal = False
    assume(not legal)  # a random command that happens to be legal is not this test's business
    before = (m.state_hash(), len(m.log), len(m.commands), m.rng.bit_generator.state)
    with pytest.raises(IllegalCommand) as info:
        m.apply(cmd)
    assert str(info.value).strip(), "the refusal says why"
    assert "\n" not in str(info.value)
    assert (m.state_hash(), len(m.log), len(m.commands), m.rng.bit_generator.state) == before
    assert m.pending is decision


def test_nan_and_infinite_points_are_refused():
    m = Match(make_spec(), seed=3)
    uid = m.pending.unit
    before = m.state_hash(), len(m.log)
    for bad in ((math.nan, 1.0), (math.inf, 2.0), (1.0, -math.inf), (1e308, 1e308)):
        with pytest.raises(IllegalCommand):
            m.apply(Move(unit=uid, to=bad))
        if not all(math.isfinite(c) for c in bad):  # read from a log or save: refused as it is read
            with pytest.raises(ValueError, match="expected a finite number"):
                command_from_json({"type": "Move", "unit": uid, "to": list(bad)})
    assert (m.state_hash(), len(m.log)) == before
    m.close()
