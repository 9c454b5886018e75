"""The planner uses every mechanic its rulesets offer when it helps, legally, on the shipped maps.

Per ruleset, the planner plays every shipped scenario once on each side (against ``aggressive``
and ``cautious``, full battles, invariants checked after every command), and the commands it gave
are counted by kind. Each mechanic listed for the ruleset must occur at least once: attacks,
moves and facing everywhere; GURPS defences (dodge, parry, block), retreats, dodge-and-drop,
follows, sacrificial dodges, aims, all-out defence and steps; Cortex declarations, dodges and
blocks; AFF armour and dodge protection; AP-pool dodges and dodge moves; defence-dice memory
blocks and the dodge-reroll standing choice.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from game.tools.batch import load_spec
from game.tools.invariants import check
from game.tools.session import Session, Setup

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted(p for p in (ROOT / "scenarios").glob("*.yaml") if p.stem != "profiles")

#: Ruleset -> the command kinds the planner must give (see :func:`_kind`).
MECHANICS = {
    "gurps": {
        "Attack",
        "Move",
        "Step",
        "Face",
        "Defend:dodge",
        "Defend:parry",
        "Defend:block",
        "retreat",
        "drop",
        "Follow:to",
        "Interpose:to",
        "Maneuver:aim",
        "Maneuver:all_out_defence",
    },
    "cortex": {"Attack", "Move", "Maneuver:declare", "Defend:dodge", "Defend:block"},
    "aff": {"Attack", "Move", "Face", "Defend:armour", "Defend:dodge"},
    "ap-pool": {"Attack", "Move", "Defend:dodge", "DodgeMove:to"},
    "defence-dice": {"Attack", "Move", "MemoryBlock", "Maneuver:dodge_reroll"},
}


def _kinds(cmd: dict[str, object]) -> list[str]:
    """The mechanics one logged command uses."""
    t = str(cmd["type"])
    out = [t]
    if t == "Defend":
        out.append(f"Defend:{cmd.get('kind')}")
        if cmd.get("retreat_to") is not None:
            out.append("retreat")
        if cmd.get("drop"):
            out.append("drop")
    elif t == "Maneuver":
        out.append("Maneuver:" + str(cmd.get("name", "")).split(":")[0])
    elif t in ("DodgeMove", "Follow", "Interpose") and cmd.get("to") is not None:
        out.append(f"{t}:to")
    return out


@pytest.mark.parametrize("ruleset", sorted(MECHANICS))
def test_planner_uses_every_mechanic(ruleset):
    seen: Counter[str] = Counter()
    for scenario in SCENARIOS:
        spec = load_spec(str(scenario), ruleset)
        first, second = spec.sides[0], spec.sides[1]
        for players in ({first: "planner1", second: "aggressive"}, {first: "cautious", second: "planner1"}):
            with Session.start(spec, Setup(ruleset=ruleset, seed=1), players) as s:

                def invariants(session: Session) -> None:
                    problems = check(session.match)
                    assert not problems, problems[:3]

                s.play(after=invariants)
                m = s.match
                for e in m.log.events:
                    if e["type"] == "command" and players[m.side(e["unit"])] == "planner1":
                        seen.update(_kinds(e["command"]))
    missing = MECHANICS[ruleset] - set(seen)
    assert not missing, (missing, dict(seen))
