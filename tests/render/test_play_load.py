"""``skirmish play --load``: a broken or missing save is refused with exit 2 before any window opens."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _run(args: list[str]) -> tuple[int, str]:
    out = subprocess.run(
        [sys.executable, "-m", "game", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "SDL_VIDEODRIVER": "dummy"},
    )
    return out.returncode, out.stderr


def test_play_load_refuses_a_broken_save(tmp_path):
    bad = tmp_path / "save.json"
    bad.write_text(json.dumps({"format": "not a save"}))
    code, err = _run(["play", "scenarios/duel.yaml", "--load", str(bad)])
    assert code == 2
    assert "Traceback" not in err and bad.name in err


def test_play_load_refuses_a_missing_save(tmp_path):
    code, err = _run(["play", "scenarios/duel.yaml", "--load", str(tmp_path / "nope.json")])
    assert code == 2 and "Traceback" not in err


def test_f9_never_runs_the_user_policy_a_save_names(pg, tmp_path, monkeypatch):
    """F9 loads a save of another scenario, one side of which a user policy played: a person
    plays that side now, the window says so, and the policy's file never runs."""
    from game.ai import loader
    from game.render.window import App
    from game.scenario import load_scenario
    from game.tools.saves import save_match
    from game.tools.session import Setup

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(loader, "_FILES", {})
    example = REPO / "examples" / "policies" / "closest_first.py"
    (tmp_path / "mine.py").write_text(example.read_text() + "\nopen('RAN', 'w').close()\n")
    text = (REPO / "scenarios" / "duel.yaml").read_text()
    text = text.replace("side: red", "side: north").replace("side: blue", "side: south")
    text = text.replace("  red: aggressive", "  north: aggressive").replace(
        "  blue: cautious", "  south: cautious"
    )
    (tmp_path / "north-south.yaml").write_text(text)
    brawl = load_scenario(tmp_path / "north-south.yaml")
    other = Setup(seed=3, controllers={"north": "mine.py:closest_first", "south": "cautious"}).build(brawl)
    save_match(other, tmp_path / "slot.json")
    other.close()
    duel = load_scenario(REPO / "scenarios" / "duel.yaml")
    app = App(
        Setup(seed=1).build(duel),
        {"red": "human", "blue": "cautious"},
        save_path=tmp_path / "slot.json",
        screen=pg.Surface((1180, 720)),
    )
    try:
        app.load()
        assert set(app.match.spec.sides) == set(brawl.sides)
        assert app.humans == {"north"} and app.controllers["south"] == "cautious"
        assert not (tmp_path / "RAN").exists()
        assert "was played by the user policy 'mine.py:closest_first'" in app.ui.message
        app.tick([])
    finally:
        app.close()
