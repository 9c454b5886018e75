"""Bad CLI input gets one line and exit 2 (issue 15): seeds, displays, empty folders, picture
formats; and what is written gets the usual file mode."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest

from game.cli.params import SEED, picture_format, require_display
from game.core.errors import Problem, ScenarioError
from tests.cli_capture import run

REPO = Path(__file__).resolve().parents[2]
DUEL = str(REPO / "scenarios" / "duel.yaml")


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err  # one line: no usage dump, no traceback
    return lines[0]


@pytest.mark.parametrize("command", ["battle", "render", "play"])
def test_a_negative_seed_is_one_line_and_exit_2(command: str, tmp_path: Path, capsys) -> None:
    extra = {
        "battle": ["--out", str(tmp_path / "o")],
        "render": ["--out", str(tmp_path / "x.png")],
        "play": [],
    }
    code, out, err = run([command, DUEL, "--seed", "-3", *extra[command]], capsys)
    assert code == 2 and out == ""
    line = one_line(err)
    assert line.startswith("Error: ") and "--seed" in line and "-3" in line and "whole number from 0" in line
    assert not list(tmp_path.iterdir())  # nothing written


def test_seed_type_accepts_whole_numbers_from_zero() -> None:
    assert SEED.convert("0", None, None) == 0
    assert SEED.convert(" 17 ", None, None) == 17
    assert SEED.convert(2**63 - 1, None, None) == 2**63 - 1
    for bad in ("-1", "1.5", "x", str(2**63)):
        with pytest.raises(click.BadParameter):
            SEED.convert(bad, None, None)


def test_any_usage_error_is_one_line_naming_the_help(capsys) -> None:
    code, _, err = run(["battle", DUEL, "-n", "many"], capsys)
    assert code == 2
    line = one_line(err)
    assert "'many' is not a valid integer" in line and "skirmish battle --help" in line


# ----------------------------------------------------------------------------- no display
NO_DISPLAY = {"PATH": os.environ.get("PATH", "")}


def test_require_display_refuses_linux_without_a_display() -> None:
    with pytest.raises(click.ClickException) as e:
        require_display("skirmish play", environ=NO_DISPLAY, platform="linux")
    assert e.value.exit_code == 2 and "no display" in e.value.format_message()
    # a display, an explicit SDL driver (tests use dummy), or another system: left to SDL
    require_display("skirmish play", environ={"DISPLAY": ":0"}, platform="linux")
    require_display("skirmish play", environ={"WAYLAND_DISPLAY": "wayland-0"}, platform="linux")
    require_display("skirmish play", environ={"SDL_VIDEODRIVER": "dummy"}, platform="linux")
    require_display("skirmish play", environ=NO_DISPLAY, platform="darwin")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the check is Linux's")
@pytest.mark.parametrize("argv", [["play", DUEL], ["replay", "any.jsonl", "--view"]])
def test_play_and_replay_view_refuse_at_once_without_a_display(argv: list[str], tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("SDL_VIDEODRIVER", "DISPLAY", "WAYLAND_DISPLAY")}
    env["PYTHONPATH"] = str(REPO)
    t0 = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "game", *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert time.monotonic() - t0 < 30  # at once, not a window waiting forever
    line = one_line(done.stderr)
    assert "no display" in line and ("DISPLAY" in line or "window" in line)


# ----------------------------------------------------------------------------- check
def test_check_on_a_folder_without_scenarios_says_so(tmp_path: Path, capsys) -> None:
    (tmp_path / "notes.txt").write_text("not a scenario")
    code, out, err = run(["check", str(tmp_path)], capsys)
    assert code == 2 and out == ""
    assert one_line(err) == f"{tmp_path}: no scenario files (*.yaml, *.yml) in this folder"


def test_check_reports_an_empty_folder_among_good_files(tmp_path: Path, capsys) -> None:
    code, out, err = run(["check", DUEL, str(tmp_path)], capsys)
    assert code == 2
    assert out.startswith("ok: ") and "no scenario files" in err


# ----------------------------------------------------------------------------- pictures
def test_picture_format_follows_the_extension() -> None:
    assert picture_format(Path("a.png")) == "png"
    assert picture_format(Path("a.JPG")) == "jpeg"
    assert picture_format(Path("a.jpeg")) == "jpeg"
    assert picture_format(Path("a.bmp")) == "bmp"
    for bad in ("a.gif", "a.webp", "picture"):
        with pytest.raises(click.BadParameter):
            picture_format(Path(bad))


@pytest.mark.parametrize(
    ("name", "magic"), [("x.png", b"\x89PNG"), ("x.jpg", b"\xff\xd8\xff"), ("x.bmp", b"BM")]
)
def test_render_writes_the_format_its_extension_names(
    name: str, magic: bytes, tmp_path: Path, capsys
) -> None:
    out = tmp_path / name
    code, _, err = run(["render", DUEL, "--out", str(out), "--size", "640x420"], capsys)
    assert code == 0, err
    assert out.read_bytes().startswith(magic)
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.parametrize("name", ["x.gif", "picture"])
def test_render_refuses_an_extension_it_does_not_write(name: str, tmp_path: Path, capsys) -> None:
    code, _, err = run(["render", DUEL, "--out", str(tmp_path / name)], capsys)
    assert code == 2
    line = one_line(err)
    assert "--out" in line and ".png, .jpg, .jpeg, .bmp" in line
    assert not list(tmp_path.iterdir())


def test_plots_get_the_usual_file_mode(tmp_path: Path, capsys) -> None:
    code, _, err = run(
        ["battle", DUEL, "-n", "2", "--workers", "1", "--out", str(tmp_path), "--no-progress"], capsys
    )
    assert code == 0, err
    umask = os.umask(0)
    os.umask(umask)
    plots = sorted(tmp_path.glob("*.png"))
    assert len(plots) == 3
    for p in plots:
        assert p.stat().st_mode & 0o777 == 0o666 & ~umask, p.name


def test_scenario_errors_survive_a_worker_process() -> None:
    err = ScenarioError([Problem("a.yaml", 3, "units.0.at", "outside the map")])
    back = pickle.loads(pickle.dumps(err))
    assert back.problems == err.problems and str(back) == str(err)
