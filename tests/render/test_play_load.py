"""``skirmish play --load``: a broken or missing save is refused with exit 2 before any window opens."""

from __future__ import annotations

import json
import os
import subprocess
import sys


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
