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
    from game.ai import planner_trace
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
