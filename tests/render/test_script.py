"""Scripted, headless play (``skirmish play --headless --script FILE --shots DIR``,
game.render.script): parsing with line-numbered errors, a short game driven by script that
changes the match and saves pictures, and the no-display refusal."""

from __future__ import annotations

import json

import pytest

from game.cli.params import no_display_reason
from game.engine.match import Match
from game.render.script import ScriptError, ScriptRunner, parse_script
from tests.render.conftest import REPO
from tests.render.helpers import duel_spec
from tests.render.test_cli import run_cli

DUEL = str(REPO / "scenarios" / "duel.yaml")


def test_parse_reads_actions_and_skips_comments():
    acts = parse_script(
        "# a comment\n\nkey return  # end turn\nclick 4.5 6\nclick vasco\nwait\nshot a-1\n", "s.txt"
    )
    assert [(a.kind, a.args, a.where) for a in acts] == [
        ("key", ("return",), "s.txt:3"),
        ("click", ("4.5", "6"), "s.txt:4"),
        ("click", ("vasco",), "s.txt:5"),
        ("wait", (), "s.txt:6"),
        ("shot", ("a-1",), "s.txt:7"),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("wait\n" * 6 + "klick 1 2\n", "script.txt:7: unknown action 'klick'"),
        ("key nosuchkey\n", "script.txt:1: unknown key name 'nosuchkey'"),
        ("wait now\n", "script.txt:1: wait takes 0 arguments, got 1"),
        ("click 1 two\n", "script.txt:1: click X Y needs two numbers (inches), got 'two'"),
        ("\nshot ../x\n", "script.txt:2: shot name '../x'"),
        ("key\n", "script.txt:1: key takes 1 argument, got 0"),
    ],
)
def test_parse_errors_name_the_line(text, message):
    with pytest.raises(
        ScriptError, match="^" + message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")
    ):
        parse_script(text, "script.txt")


def test_a_short_game_by_script_changes_the_match_and_saves_shots(pg, tmp_path):
    from game.render.window import App

    match = Match(duel_spec(), seed=3)
    app = App(match, {"red": "human", "blue": "random"}, screen=pg.Surface((1100, 700)))
    runner = ScriptRunner(app, tmp_path / "shots")
    start = match.pos("red-1")
    runner.run(
        parse_script(
            "wait\nshot start\nhover blue-1\nclick 6 5   # red-1 moves 2 in east\nshot moved\n"
            "key return\nwait\nshot later\n",
            "game.txt",
        )
    )
    assert start != match.pos("red-1") and match.pos("red-1") == pytest.approx(
        (6.0, 5.0), abs=0.05
    )  # to the pixel
    assert [p.name for p in runner.saved] == ["start.png", "moved.png", "later.png"]
    for p in runner.saved:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert runner.saved[0].read_bytes() != runner.saved[1].read_bytes()
    # after the wait a human decision is pending again (or the match ended)
    d = match.pending
    assert match.outcome is not None or (d is not None and d.unit.startswith("red"))
    assert {"type": "EndTurn", "unit": "red-1"} in match.commands
    app.close()


def test_runtime_errors_name_the_line(pg, tmp_path):
    from game.render.window import App

    match = Match(duel_spec(), seed=3)
    app = App(match, {"red": "human", "blue": "human"}, screen=pg.Surface((1100, 700)))
    runner = ScriptRunner(app)
    with pytest.raises(ScriptError, match=r"^t\.txt:2: no living unit 'nobody'"):
        runner.run(parse_script("wait\nclick nobody\n", "t.txt"))
    with pytest.raises(ScriptError, match=r"^t\.txt:1: table point \(500, 5\) is off the map"):
        runner.run(parse_script("click 500 5\n", "t.txt"))
    with pytest.raises(ScriptError, match=r"^t\.txt:1: shot needs a folder"):
        runner.run(parse_script("shot x\n", "t.txt"))
    app.close()


def test_play_headless_script_cli(tmp_path, capsys):
    script = tmp_path / "play.txt"
    save = tmp_path / "save.json"
    script.write_text(
        "# vasco (red, human) against hendrik (the AI)\nwait\nshot one\nclick 7 6.5\nwait\nshot two\nkey f5\n"
    )
    code, out, err = run_cli(
        [
            "play",
            DUEL,
            "--headless",
            "--script",
            str(script),
            "--shots",
            str(tmp_path / "s"),
            "--blue",
            "cautious",
            "--save-file",
            str(save),
            "--size",
            "1000x640",
        ],
        capsys,
    )
    assert code == 0, err
    assert out.splitlines() == [
        "red: you; blue: AI cautious (your choice, middling). "
        "--red/--blue POLICY picks another (play --help)",
        f"wrote {tmp_path / 's' / 'one.png'}",
        f"wrote {tmp_path / 's' / 'two.png'}",
    ]
    data = (tmp_path / "s" / "two.png").read_bytes()
    assert int.from_bytes(data[16:20], "big") == 1000 and int.from_bytes(data[20:24], "big") == 640
    saved = json.loads(save.read_text())
    assert any(c.get("type") == "Move" and c.get("unit") == "vasco" for c in saved["commands"])


def test_play_script_error_exits_2_naming_the_line(tmp_path, capsys):
    script = tmp_path / "script.txt"
    script.write_text("wait\n" * 6 + "klick 1 2\n")
    code, _, err = run_cli(["play", DUEL, "--headless", "--script", str(script)], capsys)
    assert code == 2
    assert (
        err.strip()
        == "error: script.txt:7: unknown action 'klick' (one of: key, click, rclick, hover, drag, wait, shot)"
    )


def test_play_without_display_exits_2_at_once(monkeypatch, capsys):
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(var, raising=False)
    code, _, err = run_cli(["play", DUEL], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "no display" in err and "--headless" in err
    code, _, err = run_cli(["play", DUEL, "--headless"], capsys)
    assert code == 2 and "--headless needs --script" in err


def test_no_display_reason():
    assert no_display_reason({}, "linux") is not None
    assert no_display_reason({"DISPLAY": ":0"}, "linux") is None
    assert no_display_reason({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert no_display_reason({"SDL_VIDEODRIVER": "dummy"}, "linux") is None
    assert no_display_reason({}, "darwin") is None
