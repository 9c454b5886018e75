"""The log as a player reads it: dice as the ruleset counts them, protection rolls told by what
they took off the blow (AFF's "rolled 4: succeeds" and "rolled 4: fails" at the same odds were
one roll against different blows), and every command, a person's or an AI's, in words."""

from __future__ import annotations

from pathlib import Path

import pytest

from game.render.sentences import sentence, sentences, tell
from game.rules import RULESET_NAMES
from game.rules.sheet import DiceReading
from game.scenario import load_scenario
from game.tools.session import Session, Setup

REPO = Path(__file__).resolve().parents[2]


def _battle(ruleset: str, seed: int = 1, red: str = "planner", blue: str = "cautious") -> list[dict]:
    spec = load_scenario(REPO / "scenarios" / "duel.yaml", ruleset)
    players = {"red": red, "blue": blue}
    s = Session(Setup(ruleset=ruleset, seed=seed, controllers=players).build(spec), players)
    s.play()
    events = list(s.match.log.events)
    s.close()
    return events


def test_rolls_are_told_as_the_ruleset_counts_them() -> None:
    roll = {
        "seq": 1,
        "round": 1,
        "type": "roll",
        "purpose": "attack",
        "unit": "a",
        "dice": "5d6",
        "faces": [6, 1, 4, 5, 2],
    }
    assert sentence(roll) == "a rolls 5d6 for attack: 6+1+4+5+2 = 18."
    assert sentence(roll, DiceReading("successes", 5)) == (
        "a rolls 5d6 for attack: 6, 1, 4, 5, 2: 2 successes (5s and up count)."
    )
    start = {"seq": 0, "round": 0, "type": "match_start", "ruleset": "ap-pool", "units": []}
    assert sentences([start, roll])[1].endswith("2 successes (5s and up count).")
    aims = dict(roll, dice="3d10", faces=[3, 7, 9])
    assert sentences([aims], "defence-dice") == ["a rolls 3d10 for attack: 3, 7, 9."]
    assert sentences([aims], "gurps") == ["a rolls 3d10 for attack: 3+7+9 = 19."]


def test_aff_protection_is_told_by_what_it_took_off_the_blow() -> None:
    """A protection roll of 4 may stop one blow and not the next: the sentence says what it took
    off, whether that was all, and the chance a protection roll stops a blow."""
    events = _battle("aff", seed=1, red="aggressive")
    told = [(e, s) for e, s in tell(events) if e["type"] == "defence" and "protection" in e]
    assert told
    for e, s in told:
        assert f"protection roll {e['roll']}: {e['protection']} off the damage" in s or e["roll"] is None
        assert ("stops the blow" in s) == e["success"]
        assert ("does not stop all of the blow" in s) == (not e["success"])
    harm = [s for e, s in tell(events) if e["type"] == "damage"]
    assert harm and all("weapon damage" in s and "less protection" in s for s in harm)


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
def test_every_action_is_in_words(ruleset: str) -> None:
    """Every command of an AI battle (the planner's too) is told: by what it caused, or, when
    nothing else tells it (an ended turn, a declined defence), by a sentence of its own."""
    events = _battle(ruleset)
    told = tell(events)
    told_ids = {id(e) for e, _ in told}
    for i, e in enumerate(events):
        if e["type"] != "command":
            continue
        j = next((k for k in range(i + 1, len(events)) if events[k]["type"] == "command"), len(events))
        beat = events[i + 1 : j]
        own = id(e) in told_ids
        by_effect = any(id(x) in told_ids and e["unit"] in (x.get("unit"), x.get("attacker")) for x in beat)
        assert own or by_effect, e
        if e["command"]["type"] == "EndTurn":
            assert own
    ends = [s for e, s in told if e["type"] == "command" and e["command"]["type"] == "EndTurn"]
    assert all(" ends its turn" in s for s in ends)
