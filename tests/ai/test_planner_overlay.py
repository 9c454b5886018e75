"""The window shows, on request, what the planner weighed (the ``planner`` overlay, key W)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pg():
    pygame = pytest.importorskip("pygame")
    from game.render.window import init_video

    init_video(pygame)
    return pygame


def test_overlay_is_offered_and_off_by_default():
    from game.render.ui import DEFAULT_OVERLAYS, OVERLAY_KEYS, OVERLAYS

    assert "planner" in OVERLAYS and "planner" not in DEFAULT_OVERLAYS
    assert OVERLAY_KEYS["w"] == "planner"


def test_overlay_draws_the_last_decision(pg):
    from game.ai.planner import trace as planner_trace
    from game.render.png import draw_frame
    from game.render.renderer import Renderer, snapshot
    from game.render.ui import UiState
    from game.tools.batch import load_spec
    from game.tools.session import Session, Setup

    spec = load_spec(str(ROOT / "scenarios" / "skirmish-5v5.yaml"), "ap-pool")
    with Session.start(spec, Setup(ruleset="ap-pool", seed=4), {"red": "planner", "blue": "planner"}) as s:
        s.play(steps=6)
        considered = planner_trace.last(s.view)
        assert considered is not None and considered.candidates
        renderer = Renderer(s.view, (1000, 640))
        off = snapshot(draw_frame(renderer, UiState(overlays={"grid"})))
        on = snapshot(draw_frame(renderer, UiState(overlays={"grid", "planner"})))
    assert np.any(off != on)


def test_play_against_the_planner_headless_and_press_w(tmp_path, capsys):
    """``skirmish play SCENARIO --blue planner``: the human ends a turn, the planner answers, W
    draws what it weighed (the map changes) and the panel's hint, shown while the overlay is off,
    goes away."""
    pytest.importorskip("pygame")
    from PIL import Image

    from tests.render.test_cli import run_cli

    script = tmp_path / "play.txt"
    script.write_text("key e\nwait\nshot off\nkey w\nshot on\n")
    shots = tmp_path / "s"
    code, _, err = run_cli(
        [
            "play",
            str(ROOT / "scenarios" / "duel.yaml"),
            "--blue",
            "planner",
            "--headless",
            "--script",
            str(script),
            "--shots",
            str(shots),
            "--size",
            "1000x640",
        ],
        capsys,
    )
    assert code == 0, err
    off = np.asarray(Image.open(shots / "off.png").convert("RGB"), dtype=np.int16)
    on = np.asarray(Image.open(shots / "on.png").convert("RGB"), dtype=np.int16)
    assert np.any(off[:, :600] != on[:, :600])  # the overlay on the map
    assert np.any(off[:, 700:] != on[:, 700:])  # the hint in the panel


def test_the_panel_hints_at_w_only_for_a_planner_side(pg):
    from game.render.png import draw_frame
    from game.render.renderer import Renderer, snapshot
    from game.render.ui import UiState
    from game.tools.batch import load_spec
    from game.tools.session import Session, Setup

    spec = load_spec(str(ROOT / "scenarios" / "duel.yaml"), "aff")
    with Session.start(spec, Setup(ruleset="aff", seed=1), {"red": "cautious", "blue": "cautious"}) as s:
        frames = []
        for controllers in ({"red": "human", "blue": "cautious"}, {"red": "human", "blue": "planner"}):
            renderer = Renderer(s.view, (1000, 640))
            frames.append(snapshot(draw_frame(renderer, UiState(overlays={"grid"}), {"red"}, controllers)))
    assert np.any(frames[0] != frames[1])
