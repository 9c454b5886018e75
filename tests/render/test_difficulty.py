"""Difficulty levels (issue 27): ``skirmish play --difficulty``, F2 in the window, the panel line."""

from __future__ import annotations

from game.ai import difficulty
from game.ai.difficulty import LEVELS, NAMES, level_of, next_level, players, policy_options
from tests.render.conftest import REPO
from tests.render.test_cli import run_cli

DUEL = str(REPO / "scenarios" / "duel.yaml")


def test_levels_run_weakest_to_strongest_and_cycle():
    assert NAMES == ("easy", "normal", "hard")
    assert [LEVELS[n].policy for n in NAMES] == ["aggressive", "cautious", "planner"]
    assert next_level("easy").name == "normal" and next_level("hard").name == "easy"
    assert next_level(None).name == "easy" and next_level("nonsense").name == "easy"
    assert level_of("cautious") is LEVELS["normal"] and level_of("random") is None
    assert str(difficulty.HARD_CAP_MS) in LEVELS["hard"].text


def test_a_level_replaces_the_ai_sides_only_and_given_options_win():
    assert players({"red": "human", "blue": "cautious"}, LEVELS["hard"]) == {
        "red": "human",
        "blue": "planner",
    }
    # Options a policy does not take are not passed to it (so the level works with any planner).
    from game.ai import _OPTION_MODELS, _load

    fields = set(_load(_OPTION_MODELS["planner"]).model_fields)
    got = policy_options(LEVELS["hard"], {"cautious": {}})
    assert set(got.get("planner", {})) <= fields and "cautious" in got
    if "time_cap_ms" in fields:
        assert got["planner"]["time_cap_ms"] == difficulty.HARD_CAP_MS
        given = policy_options(LEVELS["hard"], {"planner": {"time_cap_ms": 50}})
        assert given["planner"]["time_cap_ms"] == 50  # --policy-option wins over the level


def test_play_difficulty_sets_the_ai_and_says_so_and_f2_changes_it(tmp_path, capsys):
    script = tmp_path / "s.txt"
    script.write_text("wait\nkey f2\nwait\nshot after\n")
    args = [
        "play",
        DUEL,
        "--difficulty",
        "hard",
        "--headless",
        "--script",
        str(script),
        "--shots",
        str(tmp_path),
    ]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    assert "blue: AI planner (difficulty hard" in out
    assert (tmp_path / "after.png").exists()
    code, _, err = run_cli([*args[:3], "expert", *args[4:]], capsys)
    assert code == 2 and "--difficulty" in err and "easy" in err


def test_f2_cycles_the_ai_sides_and_keeps_the_match(monkeypatch):
    from game.render.window import App
    from game.scenario import load_scenario
    from game.tools.session import Setup

    spec = load_scenario(DUEL)
    match = Setup(seed=3, controllers={"red": "human", "blue": "cautious"}).build(spec)
    app = App(match, {"red": "human", "blue": "cautious"}, screen=_surface())
    try:
        before = app.match
        app.cycle_difficulty()  # cautious plays "normal": the next level is "hard"
        assert app.level is not None and app.level.name == "hard"
        assert app.controllers == {"red": "human", "blue": "planner"} and app.match is before
        assert "AI difficulty: hard (planner)" in app.ui.message
        app.cycle_difficulty()
        assert app.controllers["blue"] == "aggressive" and app.humans == {"red"}
        from game.render.panel import ai_line

        assert ai_line({"blue": "aggressive"}) == "AI: blue easy (aggressive) - F2: difficulty"
    finally:
        app.close()


def test_f2_with_two_people_only_says_there_is_no_ai():
    from game.render.window import App
    from game.scenario import load_scenario
    from game.tools.session import Setup

    spec = load_scenario(DUEL)
    match = Setup(seed=3).build(spec)
    app = App(match, {"red": "human", "blue": "human"}, screen=_surface())
    try:
        app.cycle_difficulty()
        assert app.level is None and "no AI side" in app.ui.message
    finally:
        app.close()


def _surface():
    import pygame

    pygame.init()
    return pygame.Surface((900, 600))
