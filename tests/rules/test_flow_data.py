"""Every ruleset's flow state is data: what a match holds mid-flow encodes and decodes exactly.

While the golden battles play, at every decision this test takes what a clone shares and a
snapshot writes of the ruleset's state (the frames of the flow in progress, each unit's turn and
defence records, the ruleset's battle-wide state) and checks that ``game.core.codec`` writes it
as JSON and reads it back equal. A ruleset still on generator flows or mutable records fails
here: that is the point (issue 25: a match is a value).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from game.ai import get_policy
from game.core.codec import decode, encode
from game.engine.match import Match
from game.engine.view import MatchView
from game.rules import RULESET_NAMES
from game.scenario import load_scenario

SCENARIOS = ("duel", "skirmish-5v5")


def flow_frames(match: Match) -> Any:
    """The frames of the flow in progress (empty when none runs)."""
    return match.flow.frames


def roundtrip(value: Any) -> Any:
    return decode(json.loads(json.dumps(encode(value))))


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_flow_state_is_data(scenario: str, ruleset: str) -> None:
    spec = load_scenario(f"scenarios/{scenario}.yaml", ruleset=ruleset)
    match = Match(
        spec, ruleset=ruleset, seed=1, controllers=dict(zip(spec.sides, ("cautious", "aggressive")))
    )
    policies = {s: get_policy(p) for s, p in match.controllers.items()}
    view = MatchView(match)
    checked = 0
    try:
        while match.outcome is None and checked < 400:
            frames = flow_frames(match)
            assert roundtrip(frames) == frames
            state = match.rules_state
            assert roundtrip(state) == state
            # nothing of the battle kept on the ruleset object: its attributes are its options
            assert set(vars(match.rules)) <= {"options"}, vars(match.rules)
            for uid in match.units(alive=False):
                for record in (match.turn(uid).record, match.defence(uid).record):
                    assert roundtrip(record) == record
                    # frozen: a record is replaced through the battle, never changed in place
                    params = getattr(type(record), "__dataclass_params__", None)
                    assert record is None or (params is not None and params.frozen), type(record)
            d = match.pending
            match.apply(policies[match.side(d.unit)](view, d, match.ai_rng))
            checked += 1
    finally:
        match.close()
