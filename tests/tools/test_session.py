"""game.tools.session: the one session driver builds matches and plays them with policies.

The golden logs were recorded by a plain loop over ``Match`` and the policies
(tests/golden/play.py); the session must play them byte for byte, whoever calls it.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import esper
import pytest

from game.ai import get_policy
from game.core.commands import command_from_json
from game.core.errors import IllegalCommand, UnknownName
from game.engine.match import Match
from game.scenario import load_scenario
from game.tools.batch import BattleFailed, plan, run_battle
from game.tools.saves import load_match
from game.tools.session import HUMAN, MAX_COMMANDS, Session, Setup, StuckMatch
from tests.golden.record import HERE, LOGS, ROOT, SAVE, SEEDS, name, scenario_path

DUEL = ROOT / "scenarios" / "duel.yaml"


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the golden logs carry the scenario path as recorded from the root


@pytest.mark.parametrize("ruleset", ["gurps", "ap-pool", "aff"])
@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_session_plays_the_golden_logs(at_root: None, ruleset: str, seed: int) -> None:
    path = scenario_path("skirmish-5v5")
    spec = load_scenario(path, ruleset=ruleset)
    setup = Setup(ruleset=ruleset, seed=seed, controllers=dict(zip(spec.sides, SEEDS[seed])))
    with Session.start(spec, setup) as session:
        outcome = session.play()
        assert outcome is not None and outcome is session.match.outcome
        expected = gzip.decompress((LOGS / name("skirmish-5v5", ruleset, seed)).read_bytes()).decode()
        assert session.match.log.to_text() == expected
        assert session.applied == len(session.match.commands)


def test_a_loaded_save_played_on_by_a_session_continues_the_golden_game(at_root: None) -> None:
    expected = gzip.decompress((HERE / "saved-game-full.jsonl.gz").read_bytes()).decode()
    with Session(load_match(HERE / "saved-game.json", scenario_path=scenario_path(SAVE[0]))) as session:
        assert session.play() is not None
        assert session.match.log.to_text() == expected


def test_a_human_side_is_answered_by_the_caller() -> None:
    """Playing red by hand with the same policy and generator gives the all-AI battle."""
    spec = load_scenario(DUEL, ruleset="ap-pool")
    setup = Setup(ruleset="ap-pool", seed=4, controllers={"red": "random", "blue": "random"})
    with Session.start(spec, setup) as auto:
        auto.play()
        expected = auto.match.log.to_text()
    random = get_policy("random")
    with Session.start(spec, setup, players={"red": HUMAN}) as session:
        assert session.humans == {"red"} and session.players == {"red": HUMAN, "blue": "random"}
        stops = 0
        while session.play() is None:
            stops += 1
            m = session.match
            assert m.side(m.pending.unit) == "red" and not session.ai_to_move() and not session.step()
            session.apply(random(session.view, m.pending, m.ai_rng))
        assert stops > 0 and session.match.log.to_text() == expected
        assert not session.step()  # over: nothing to answer


def test_step_answers_one_decision() -> None:
    with Session.start(DUEL, Setup(seed=2)) as session:
        assert session.ai_to_move() and session.deciding() in session.match.spec.sides
        assert session.step() and session.applied == 1 and len(session.match.commands) == 1


def test_steps_until_and_after() -> None:
    seen: list[int] = []
    with Session.start(DUEL, Setup(ruleset="ap-pool", seed=3)) as session:
        assert session.play(steps=5, after=lambda s: seen.append(s.applied)) is None
        assert seen == [1, 2, 3, 4, 5] and len(session.match.commands) == 5

        def dodging(s: Session) -> bool:
            return s.match.pending is not None and s.match.pending.kind == "dodge_move"

        assert session.play(until=dodging) is None and dodging(session)
        assert session.play(steps=0) is None and dodging(session)  # already there: nothing applied


def test_a_stuck_match_raises_at_the_limit() -> None:
    with Session.start(DUEL, Setup(seed=1)) as session:
        with pytest.raises(StuckMatch, match="no outcome after 3 commands") as info:
            session.play(max_commands=3)
        assert info.value.limit == 3 and len(session.match.commands) == 3
    assert MAX_COMMANDS == 100_000


def test_batch_reports_a_stuck_battle_with_its_seed_and_keeps_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import game.tools.session as session_module

    monkeypatch.setattr(session_module, "MAX_COMMANDS", 4)
    log = tmp_path / "stuck.jsonl"
    job = plan(seeds=[9], scenario=str(DUEL), policies={"red": "random", "blue": "random"}, log_file=log)[0]
    with pytest.raises(BattleFailed, match=r"^battle seed 9: no result after 4 commands$") as info:
        run_battle(job)
    assert info.value.step == 4 and log.read_text().count('"type":"command"') == 4


def test_an_illegal_policy_command_leaves_the_match_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    from game import ai

    monkeypatch.setitem(ai._REGISTRY, "broken", "tests.batch.helpers:broken_policy")
    with Session.start(DUEL, Setup(seed=5), players="broken") as session:
        with pytest.raises(IllegalCommand):
            session.play()
        applied, log = session.applied, session.match.log.to_text()
        with pytest.raises(IllegalCommand):
            session.step()
        assert session.applied == applied and session.match.log.to_text() == log


def test_unknown_policy_is_refused_before_anything_is_played() -> None:
    worlds = set(esper.list_worlds())
    with pytest.raises(UnknownName, match="unknown AI policy 'telepath'"):
        Session.start(DUEL, Setup(controllers={"blue": "telepath"}))
    assert set(esper.list_worlds()) == worlds  # the match made for it was closed


def test_from_header_rebuilds_the_logged_match() -> None:
    spec = load_scenario(DUEL, ruleset="cortex")
    setup = Setup(ruleset="cortex", seed=6, options={}, controllers={"red": "cautious"}, round_limit=4)
    with Session.start(spec, setup) as original:
        original.play()
        events = original.match.log.events
        assert Setup.from_header(events[0]) == Setup(
            ruleset="cortex",
            seed=6,
            options=original.match.rules.options.model_dump(mode="json"),  # the defaults spelled out
            controllers={"red": "cautious", "blue": spec.controllers["blue"]},
            round_limit=4,
        )
        with Session.from_header(spec, events[0], players=HUMAN) as again:
            assert again.humans == set(spec.sides) and not again.step()
            for e in events:
                if e["type"] == "command":
                    again.apply(command_from_json(e["command"]))
            assert again.match.log.to_text() == original.match.log.to_text()


def test_setup_builds_what_match_builds() -> None:
    spec = load_scenario(DUEL)
    a = Setup(seed=8, round_limit=3).build(spec)
    b = Match(spec, seed=8, round_limit=3)
    try:
        assert a.log.to_text() == b.log.to_text() and a.controllers == b.controllers
    finally:
        a.close()
        b.close()
