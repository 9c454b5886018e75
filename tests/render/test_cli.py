"""``skirmish render`` / ``skirmish play`` argument handling, headless battles, replay stepping."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import types

import pytest

from game.cli import main
from game.core.commands import EndTurn
from game.engine.match import Match
from game.tools.session import Session
from tests.render.conftest import REPO, SCENARIOS
from tests.render.helpers import duel_spec

DUEL = str(REPO / "scenarios" / "duel.yaml")


def run_cli(args, capsys):
    with pytest.raises(SystemExit) as e:
        main(args)
        raise SystemExit(0)
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def test_render_writes_a_png(tmp_path, capsys):
    out = tmp_path / "pics" / "duel.png"
    code, stdout, _ = run_cli(
        ["render", DUEL, "--out", str(out), "--size", "900x560", "--overlays", "all", "--from", "vasco"],
        capsys,
    )
    assert code == 0 and stdout.strip() == f"wrote {out} (900 x 560)"
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[16:20], "big") == 900 and int.from_bytes(data[20:24], "big") == 560
    assert not [p for p in out.parent.iterdir() if p.name != "duel.png"]  # no temp file left
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--overlays", "sight,xray"], "unknown overlay 'xray'"),
        (["--size", "big"], "'big' is not WIDTHxHEIGHT"),
        (["--from", "nobody"], "--from: no unit 'nobody'"),
        (["--ruleset", "chess"], "unknown ruleset 'chess'"),
        (["--blue", "telepath"], "unknown AI policy 'telepath'"),
    ],
)
def test_render_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, args, message):
    out = tmp_path / "x.png"
    code, _, err = run_cli(["render", DUEL, "--out", str(out), *args], capsys)
    assert code == 2 and "Traceback" not in err
    (line,) = [s for s in err.splitlines() if message in s]  # one line names the problem
    assert line.startswith(("Error: ", "error: "))
    assert not out.exists()


def test_render_missing_scenario_exits_2(tmp_path, capsys):
    code, _, err = run_cli(["render", str(tmp_path / "nope.yaml"), "--out", str(tmp_path / "x.png")], capsys)
    assert code == 2 and "nope.yaml" in err


def test_play_refuses_unknown_policy_before_opening_a_window(capsys):
    code, _, err = run_cli(["play", DUEL, "--blue", "telepath"], capsys)
    assert code == 2 and "'telepath' is neither 'human' nor an AI policy" in err


def test_plain_pygame_is_refused(monkeypatch):
    from game.render import PygameUnavailable, require_pygame_ce

    fake = types.ModuleType("pygame")
    fake.version = types.SimpleNamespace(ver="2.6.1")
    monkeypatch.setitem(sys.modules, "pygame", fake)
    with pytest.raises(
        PygameUnavailable, match=re.escape("plain pygame 2.6.1 is installed, but skirmish needs pygame-ce")
    ):
        require_pygame_ce()


def test_headless_battle_never_imports_pygame():
    code = (
        "import sys\n"
        "from game.scenario import load_scenario\n"
        "from game.engine.match import Match\n"
        "from game.tools.session import Session\n"
        "import game.render, game.render.sentences, game.render.camera\n"
        "import game.render.scene, game.render.inspect, game.render.shapes, game.render.ui\n"
        f"m = Match(load_scenario({DUEL!r}), seed=2)\n"
        "Session(m).play()\n"
        "print(m.outcome is not None, 'pygame' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "SDL_VIDEODRIVER"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False"]


def test_replay_steps_forward_and_back_to_the_same_states(pg):
    from game.render.window import ReplayBuilder, ReplayWindow

    m = Match(duel_spec(), seed=4)
    Session(m).play()
    events, hashes = list(m.log.events), []
    direct = Match(duel_spec(), seed=4)
    hashes.append(direct.state_hash())
    for c in m.commands:
        from game.core.commands import command_from_json

        direct.apply(command_from_json(c))
        hashes.append(direct.state_hash())
    b = ReplayBuilder(duel_spec(), events)
    assert b.total == len(m.commands) and b.match.state_hash() == hashes[0]
    window = ReplayWindow(b, pg.Surface((1000, 640)))
    right = pg.event.Event(pg.KEYDOWN, key=pg.K_RIGHT, mod=0, unicode="", scancode=0)
    left = pg.event.Event(pg.KEYDOWN, key=pg.K_LEFT, mod=0, unicode="", scancode=0)
    window.tick([right, right, right])
    assert b.step == 3 and b.match.state_hash() == hashes[3]
    window.tick([left])
    assert b.step == 2 and b.match.state_hash() == hashes[2]
    window.tick([pg.event.Event(pg.KEYDOWN, key=pg.K_END, mod=0, unicode="", scancode=0)])
    assert b.step == b.total and b.match.log.to_text() == m.log.to_text() and b.problem is None
    assert window.ui.message.startswith(f"step {b.total} / {b.total}")
    window.tick([pg.event.Event(pg.QUIT)])
    assert not window.running
    m.close()
    direct.close()
    b.match.close()


def test_replay_reports_a_log_that_does_not_match():
    from game.render.window import ReplayBuilder

    m = Match(duel_spec(), seed=4)
    m.apply(EndTurn(m.pending.unit))
    events = [dict(e) for e in m.log.events]
    k = next(i for i, e in enumerate(events) if e["type"] == "round_start")
    events[k]["state_hash"] = "0" * 16  # a log from some other match
    b = ReplayBuilder(duel_spec(), events)
    b.go_to(b.total)
    assert b.problem == f"the replay diverges from the log at event {k}"
    m.close()
    b.match.close()


def test_shipped_scenarios_exist():
    assert {p.stem for p in SCENARIOS} >= {"duel", "street", "hedgerows", "firing-line", "skirmish-5v5"}


def test_render_true_scale_prints_one_table_inch_as_one_inch(tmp_path, capsys):
    import struct

    from game.cli.render import TRUE_SCALE_MARGIN_PX, true_scale_size
    from game.render.panel import PANEL_W

    out = tmp_path / "map.png"
    code, stdout, err = run_cli(["render", DUEL, "--out", str(out), "--true-scale", "--dpi", "40"], capsys)
    assert code == 0, err
    assert "40 dpi: 1 table inch = 1 printed inch" in stdout
    data = out.read_bytes()
    w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    # the duel table is 18 x 12 in: 720 x 480 px at 40 dpi, plus the margins and the panel
    assert (w, h) == (720 + 2 * TRUE_SCALE_MARGIN_PX + PANEL_W, 480 + 2 * TRUE_SCALE_MARGIN_PX)
    assert true_scale_size(18, 12, 40) == (w, h)
    i = data.index(b"pHYs")
    assert i < data.index(b"IDAT")
    x_ppm, y_ppm, unit = struct.unpack(">IIB", data[i + 4 : i + 13])
    assert unit == 1 and x_ppm == y_ppm and abs(x_ppm * 0.0254 - 40) < 0.01
    import zlib

    assert int.from_bytes(data[i + 13 : i + 17], "big") == zlib.crc32(data[i : i + 13])
    # the table edge is exactly where 0 and 18 inches fall
    import pygame

    img = pygame.image.load(str(out))
    from game.render import colors

    edge = [x for x in range(w - PANEL_W) if img.get_at((x, h // 2))[:3] == colors.TABLE_EDGE]
    assert (
        edge
        and abs(edge[0] - TRUE_SCALE_MARGIN_PX) <= 1  # the rim line straddles the table edge
        and abs(edge[-1] - (TRUE_SCALE_MARGIN_PX + 720)) <= 1
    )


def test_render_true_scale_refuses_a_bad_dpi(tmp_path, capsys):
    code, _, err = run_cli(
        ["render", DUEL, "--out", str(tmp_path / "x.png"), "--true-scale", "--dpi", "500"], capsys
    )
    assert code == 2 and "--dpi" in err
