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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from game.ai import tactics as t
from game.ai.planner import reserve as rs
from game.ai.planner.search import make_planner, planner_policy
from game.core.commands import Decision, EndTurn, Move, find_option
from game.engine.view import MatchView
from game.tools.batch import load_spec
from game.tools.invariants import check
from game.tools.session import HUMAN, Session, Setup

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


# --------------------------------------------------------------------------- positions
# Each test below finds a position where one mechanic is clearly the best choice and checks that
# the searching ``planner`` takes it. The positions come from short battles on a shipped map or a
# fixture (played by ``cautious``/``aggressive`` to the first decision that has the position's
# features, fixed seeds: the same position every run); each test states why its position makes
# the mechanic best, and fails if the planner answers otherwise.

FIXTURES = ROOT / "tests" / "fixtures" / "scenarios"


def _position(
    scenario: Path,
    ruleset: str,
    want: Callable[[MatchView, Decision], bool],
    players: Callable[[str, str], dict[str, str]] = lambda a, b: {a: "cautious", b: "aggressive"},
    options: dict[str, Any] | None = None,
    seeds: range = range(1, 41),
    steps: int = 300,
) -> Iterator[tuple[Session, Decision]]:
    """Every (session, decision) of the first ``steps`` commands of battles with ``seeds`` where
    ``want`` holds (the session paused at that decision)."""
    spec = load_spec(str(scenario), ruleset)
    for seed in seeds:
        setup = Setup(ruleset=ruleset, seed=seed, options=options)
        with Session.start(spec, setup, players(spec.sides[0], spec.sides[1])) as s:
            for _ in range(steps):
                d = s.match.pending
                if s.match.outcome is not None or d is None:
                    break
                if want(s.view, d):
                    yield s, d
                s.play(steps=1)


def _planner_answers(s: Session, d: Decision) -> Any:
    cmd = planner_policy(s.view, d, np.random.default_rng(0))
    find_option(d, cmd)  # legal
    return cmd


def _check_first(
    gen: Iterator[tuple[Session, Decision]], check: Callable[[Session, Decision, Any], None], n: int = 3
) -> None:
    """``check(session, decision, the planner's answer)`` at the first ``n`` positions of ``gen``
    (at least one must be found), while the session is live."""
    found = 0
    for s, d in gen:
        check(s, d, _planner_answers(s, d))
        found += 1
        if found >= n:
            break
    assert found, "no such position found"


def _opts(d: Decision, pred: Callable[[Any], bool]) -> list[Any]:
    return [o for o in d.options if pred(o)]


def test_gurps_dodge_and_drop_where_it_stops_far_more():
    """GURPS duel, a crossbow bolt on its way: dodge-and-drop (+3 to the Dodge against a missile)
    stops it at least 30 points of chance more often than any defence standing up. The bolt is
    the only enemy's attack and it can take a third of the unit's HP; the drop's price (prone: a
    turn's maneuver to rise, a smaller target meanwhile) is far less than a third more hits stopped."""

    def want(v: MatchView, d: Decision) -> bool:
        if d.kind != "defence" or d.context.get("attack_kind") != "missile":
            return False
        drops = _opts(d, lambda o: getattr(o.command, "drop", False))
        stand = _opts(d, lambda o: not getattr(o.command, "drop", False))
        best_stand = max(float(o.p_success or 0) for o in stand)
        return bool(drops) and max(float(o.p_success or 0) for o in drops) >= best_stand + 0.3

    def check(s: Session, d: Decision, cmd: Any) -> None:
        assert getattr(cmd, "drop", False), cmd

    _check_first(_position(ROOT / "scenarios" / "duel.yaml", "gurps", want), check)


def test_gurps_retreat_against_the_only_enemy():
    """GURPS duel in melee: a retreat adds +3 to a Dodge (+1 to a parry or block, +3 fencing) and is
    spent until the unit's next turn; with a single enemy, who has just used its attack, there is
    nobody left to keep it for, so defending with the retreat is strictly better than without."""

    def want(v: MatchView, d: Decision) -> bool:
        return (
            d.kind == "defence"
            and d.context.get("attack_kind") == "melee"
            and any(o.point_field is not None and o.has_region for o in d.options)
        )

    both = lambda a, b: {a: "aggressive", b: "aggressive"}  # noqa: E731

    def check(s: Session, d: Decision, cmd: Any) -> None:
        assert getattr(cmd, "retreat_to", None) is not None, cmd

    _check_first(_position(ROOT / "scenarios" / "duel.yaml", "gurps", want, both), check)


def test_cortex_active_defence_when_its_actions_are_declared():
    """Cortex: once a unit has declared its actions, an active dodge or block costs it one of them
    and forfeits nothing. Where it beats the innate defence roll by 25 points of chance and the
    action it spends is one the unit could not use for a first or second attack (it holds three,
    or its turn this round is over), it is clearly the better defence."""

    def want(v: MatchView, d: Decision) -> bool:
        if d.kind != "defence":
            return False
        free = [float(o.p_success or 0) for o in d.options if not (o.detail or {}).get("ap")]
        innate = max(free, default=0.0)
        active = [
            o
            for o in d.options
            if (o.detail or {}).get("ap") == 1
            and not (o.detail or {}).get("forfeits")
            and float(o.p_success or 0) >= innate + 0.25
        ]
        spare = v.unit(d.unit).ap >= 3 or not rs.own_turn_ahead(v, d.unit)
        return bool(active) and spare

    def check(s: Session, d: Decision, cmd: Any) -> None:
        assert (find_option(d, cmd).detail or {}).get("ap"), cmd

    _check_first(_position(ROOT / "scenarios" / "duel.yaml", "cortex", want), check)


def _threat(v: MatchView, uid: str, pts: np.ndarray) -> np.ndarray:
    """The shared threat measure (game.ai.tactics.threat) of ``uid`` standing at each point."""
    _, rows = t.enemy_rows(v, uid)
    unit = t.me(v, uid)
    return t.threat(t.exposure_matrix(v, unit, pts, rows), t.distance_weights(pts, v, rows))


def test_ap_pool_dodge_move_into_cover():
    """AP-pool 5v5: after a dodge made, the 2-inch move is free. Where the unit's own turn this round
    is over (it has no shot to keep a line open for until the enemies still to act have shot at
    it), it stands seen by enemies and a legal point of the move hides it from every one of them,
    moving there is clearly better than staying: nothing is spent, the next shots are impossible."""

    def want(v: MatchView, d: Decision) -> bool:
        if d.kind != "dodge_move" or rs.own_turn_ahead(v, d.unit) or not rs.to_act(v, d.unit):
            return False
        move = next((o for o in d.options if o.point_field is not None and o.has_region), None)
        if move is None:
            return False
        pts = np.concatenate([np.array([v.pos(d.unit)]), t.candidates(move, np.random.default_rng(0), 32)])
        th = _threat(v, d.unit, pts)
        hidden = np.flatnonzero(th[1:] <= 1e-9) + 1
        return th[0] > 0.2 and t.first_legal(move, pts, hidden, view=v, uid=d.unit) is not None

    def check(s: Session, d: Decision, cmd: Any) -> None:
        assert getattr(cmd, "to", None) is not None, cmd
        th = _threat(s.view, d.unit, np.array([s.view.pos(d.unit), cmd.to]))
        assert th[1] < th[0], (cmd, th)

    _check_first(_position(ROOT / "scenarios" / "skirmish-5v5.yaml", "ap-pool", want), check)


def test_aff_fights_defensively_where_it_could_not_strike_back():
    """AFF 5v5 melee: the defender chooses to fight normally or defensively (+2 to its total, a win
    deals no damage). Where it could not strike back anyway (no melee weapon in reach, or attacked
    from behind: the defensive option gives up no strike-back, ``forfeits`` 0), fighting
    defensively only adds to its chance not to be hit: it strictly dominates."""

    def want(v: MatchView, d: Decision) -> bool:
        kinds = {getattr(o.command, "kind", None): o for o in d.options}
        if d.kind != "defence" or set(kinds) != {"normal", "defensive"}:
            return False
        safe, normal = kinds["defensive"], kinds["normal"]
        return not (safe.detail or {}).get("forfeits") and float(safe.p_success or 0) > float(
            normal.p_success or 0
        )

    def check(s: Session, d: Decision, cmd: Any) -> None:
        assert getattr(cmd, "kind", None) == "defensive", cmd

    both = lambda a, b: {a: "aggressive", b: "aggressive"}  # noqa: E731
    _check_first(_position(ROOT / "scenarios" / "skirmish-5v5.yaml", "aff", want, both), check)


def _guard_turn(fixture: str, ruleset: str, seed: int = 1) -> Iterator[tuple[Session, Decision]]:
    """The guard's first turn in tests/fixtures/scenarios/``fixture`` (the enemies passed theirs)."""
    spec = load_spec(str(FIXTURES / fixture), ruleset)
    with Session.start(spec, Setup(ruleset=ruleset, seed=seed), HUMAN) as s:
        for _ in range(40):
            d = s.match.pending
            assert d is not None
            if d.kind == "turn" and d.unit == "guard":
                yield s, d
                return
            s.apply(EndTurn(d.unit) if d.kind == "turn" else d.options[0].command)


def test_gurps_all_out_defence_when_cornered():
    """GURPS, tests/fixtures/scenarios/cornered.yaml: the guard's knife cannot get through the
    brute's DR 12 (its attack option's own odds: no chance to hurt), walls close the alcove on
    three sides and a cart the fourth behind the brute, and the brute's blow can take the guard
    out. Nothing the guard does hurts the brute; defending better is what changes the fight: the
    planner's turn ends in All-Out Defence (Double Defence, a second defence when the first
    fails), in three searches with their own sampled futures. It may step first (a free step in
    GURPS: a step leaves room to retreat, +3 to the Dodge, which All-Out Defence alone in the
    corner lacks). With the alcove's mouth open a blow was the better choice, and the search
    was right: parrying or dodging it, the brute retreated a yard out of reach and, played by
    ``cautious``, walked off to cover instead of striking (over 60 sampled futures the guard fell
    in 13 after All-Out Defence, in 2 after the blow); the cart leaves it no room to."""
    for search in range(3):  # three searches, each with its own sampled futures
        for s, d in _guard_turn("cornered.yaml", "gurps"):
            taken = []
            while d is not None and d.kind == "turn" and d.unit == "guard":
                cmd = planner_policy(s.view, d, np.random.default_rng(search))
                find_option(d, cmd)
                taken.append(cmd)
                s.apply(cmd)
                d = s.match.pending
            assert any(getattr(c, "name", None) == "all_out_defence" for c in taken), (search, taken)


def test_cortex_all_out_defence_in_a_crossfire():
    """Cortex, tests/fixtures/scenarios/crossfire.yaml: the cornered guard faces three attacks a
    round (the brute at the alcove's mouth, two crossbowmen down the lane) and its d4 knife
    hardly scratches the brute's armour 8. All-Out Defence makes all three actions free active
    defences at +2 steps until its next turn; declaring actions instead costs a step on every
    defence. All-Out Defence is clearly best (over 24 sampled futures: -0.48 material, against
    -0.86 to -1.06 for every declaration), and the planner weighs it although all its scripts
    declare actions. The search runs with 16 sampled futures per candidate (and the budget
    to play each line out, 16 commands): a line's dice decide more than the choice here, and with the
    default budget's one or two futures the noise picks."""
    wise = make_planner(samples=16, budget=16 * 4 * 16)  # 16 worlds x 4 candidates x 16 commands
    for s, d in _guard_turn("crossfire.yaml", "cortex"):
        for seed in (1, 2):  # two searches, each with its own sampled futures
            cmd = wise(s.view, d, np.random.default_rng(seed))
            find_option(d, cmd)
            assert getattr(cmd, "name", None) == "all_out_defence", (seed, cmd)


def test_cortex_runs_out_of_sight():
    """Cortex, tests/fixtures/scenarios/sprint.yaml: the guard stands in the open before three
    crossbowmen across a stream its knife cannot cross; nothing it does hurts them, and the only
    place out of their sight is behind the wall, 11.4" of path away: beyond a hustle (10", one
    action) and within most runs (two actions, 30 ft + the rolled Agility + Athletics/Running,
    10.7" to 14"). The planner declares at least two actions and runs (a move priced at the run's
    two actions) to the wall's lee (out of every crossbowman's sight where the roll reached). The
    ``withdraw`` script proposes it (``withdraw=True``: off by default); the search plays each
    line on until all three crossbowmen have shot (``horizon=3``: the default sees only the next
    one, and one bolt barely tells hiding from crouching in the open), over 8 sampled futures a
    candidate."""
    wise = make_planner(samples=8, budget=8 * 6 * 16, horizon=3, withdraw=True)
    for seed in (1, 2, 3):
        for s, d in _guard_turn("sprint.yaml", "cortex", seed):
            since = s.view.event_count
            taken = []
            while d is not None and d.kind == "turn" and d.unit == "guard" and len(taken) < 4:
                cmd = wise(s.view, d, np.random.default_rng(seed))
                find_option(d, cmd)
                taken.append(cmd)
                s.apply(cmd)
                d = s.match.pending
                if isinstance(cmd, Move):
                    break  # the run made (or not): what is asked
            names = [getattr(c, "name", "") for c in taken]
            declared = [int(n.split(":")[1]) for n in names if n.startswith("declare:")]
            assert declared and declared[0] >= 2, (seed, taken)
            runs = [e for e in s.view.events(since) if e["type"] == "move" and e["unit"] == "guard"]
            assert runs and runs[0]["ap"] >= 2 and runs[0]["length"] > 10.0, (seed, taken, runs)
            assert runs[0]["to"][0] < 5.0, (seed, runs)  # behind the wall's line
