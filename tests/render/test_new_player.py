"""Starting as a new player: an empty map to edit (``skirmish edit --new``), the first units
placed, who plays each side said at the start, the AI opponents listed with their strength, no
library banner, option errors that list the valid options, negative coordinates accepted."""

from __future__ import annotations

import os
import subprocess
import sys

from game.render.editor.model import EditModel
from game.scenario import load_scenario
from tests.render.conftest import REPO
from tests.render.test_cli import run_cli

DUEL = str(REPO / "scenarios" / "duel.yaml")


def test_edit_new_starts_an_empty_map_and_the_first_units_go_to_two_sides(tmp_path, capsys):
    path = tmp_path / "mine.yaml"
    script = tmp_path / "s.txt"
    script.write_text(
        "shot empty\nkey n\nclick 4 4\nkey escape\nkey n\nclick 18 10\nkey o\n"
        "click 10 6\nclick 12 6\nclick 12 9\nkey return\nkey ctrl+s\n"
    )
    args = [
        "edit",
        "--new",
        "24x16",
        str(path),
        "--headless",
        "--script",
        str(script),
        "--shots",
        str(tmp_path),
    ]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    assert (tmp_path / "empty.png").exists() and "pygame-ce" not in out
    spec = load_scenario(path)  # skirmish check accepts it: units on two sides
    assert (spec.width, spec.height) == (24, 16)
    assert [(u.id, u.side) for u in spec.units] == [("red-1", "red"), ("blue-1", "blue")]
    assert [o.id for o in spec.obstacles] == ["obstacle-1"]
    code, _, err = run_cli(args, capsys)  # the file exists now: --new refuses it
    assert code == 2 and "exists already: open it without --new" in err
    code, _, err = run_cli(
        ["edit", "--new", "24by16", str(tmp_path / "x.yaml"), "--headless", "--script", str(script)], capsys
    )
    assert code == 2 and "expected WIDTHxHEIGHT" in err
    assert not (tmp_path / "x.yaml").exists()


def test_a_scenario_being_made_is_shown_as_it_stands(tmp_path):
    text = "name: t\nruleset: gurps\nmap: {width: 20, height: 10}\nunits: []\nobstacles: []\n"
    model = EditModel(text, "t.yaml", tmp_path / "t.yaml")
    spec, dropped = model.drawable()
    assert spec is not None and spec.units == () and dropped == ()
    assert model.check().problems == ((None, "units: expected units on at least 2 sides, got no units"),)
    model.add_unit((3, 3), "red", None)
    spec, _ = model.drawable()
    assert spec is not None and [u.id for u in spec.units] == ["red-1"]
    assert model.side_choices()[:2] == ["red", "blue"]


def test_play_help_lists_the_opponents_and_play_says_who_plays(capsys):
    code, out, _ = run_cli(["play", "--help"], capsys)
    assert code == 0
    for name in ("random", "aggressive", "cautious", "planner"):
        assert f"  {name} " in out
    assert "the weakest" in out and "the strongest" in out


def test_no_library_banner_when_a_window_opens(tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("key escape\n")
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    env.pop("PYGAME_HIDE_SUPPORT_PROMPT", None)
    run = subprocess.run(
        [sys.executable, "-m", "game", "edit", DUEL, "--headless", "--script", str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "pygame" not in run.stdout and "pygame" not in run.stderr


def test_an_option_error_lists_the_valid_options_with_their_ranges(tmp_path, capsys):
    code, _, err = run_cli(["battle", DUEL, "--option", "foo=1", "--out", str(tmp_path)], capsys)
    assert code == 2
    assert "ruleset aff: no option 'foo'; its options: " in err
    assert "ubiquitous, ubiquitous_dodging_choice, riposte" in err
    code, _, err = run_cli(
        ["battle", DUEL, "--ruleset", "defence-dice", "--option", "aim_die=7", "--out", str(tmp_path)], capsys
    )
    assert code == 2 and "option aim_die cannot be '7': expected aim_die (one of 10, 12; default 10)" in err
    code, _, err = run_cli(
        ["battle", DUEL, "--red", "planner1", "--policy-option", "planner1.budget=0", "--out", str(tmp_path)],
        capsys,
    )
    assert code == 2 and "budget (a whole number, at least 1, at most 1024; default 12)" in err
    assert "pydantic" not in err and "Input should" not in err


def test_negative_coordinates_are_arguments(capsys):
    code, out, err = run_cli(["path", DUEL, "vasco", "-3", "5.5"], capsys)
    assert code == 0, err
    assert "not legal: outside the map" in out
    code, out, err = run_cli(["path", DUEL, "vasco", "3", "-0.5", "--json"], capsys)
    assert code == 0 and '"legal": false' in out
    code, out, err = run_cli(["path", DUEL, "vasco", "3", "5", "--ruleset", "ap-pool"], capsys)
    assert code == 0 and "legal: vasco may move to (3, 5)" in out
    code, _, err = run_cli(["path", DUEL, "vasco", "3", "5", "--nonsense"], capsys)
    assert code == 2 and "--nonsense" in err


def test_the_planner_says_per_unit_what_it_chose_and_why_in_the_games_terms(pg):
    from game.ai.planner import trace
    from game.engine.match import Match
    from game.engine.view import MatchView
    from game.render.overlays import planner_lines
    from game.tools.session import Session

    m = Match(load_scenario(REPO / "scenarios" / "skirmish-5v5.yaml", "ap-pool"), seed=2)
    s = Session(m, {"red": "cautious", "blue": "planner1"})  # the one-ply planner's reasons
    s.play(steps=80)
    view = MatchView(m)
    records = trace.by_unit(view)
    assert len(records) >= 2 and all(c.unit.startswith("blue") for c in records.values())
    turns = [c for c in records.values() if c.kind == "turn"]
    assert turns and all(c.chosen is not None and c.chosen.why for c in turns)
    words = " ".join(w for c in turns for w in c.chosen.why)
    assert any(k in words for k in ("seen by", "out of sight", "to hurt", "no attack"))
    assert "0." not in words.replace("% ", " ")  # chances and cover, not the evaluator's worths
    lines = planner_lines(records, trace.last(view))
    heads = [ln for ln, head in lines if head]
    assert len(heads) == len(records) and all(" (round " in h for h in heads)
    assert any(ln.strip().startswith("because: ") for ln, _ in lines)
    s.close()
