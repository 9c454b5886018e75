"""Packaging: the three packages come from this repository; pygame is pygame-ce; the
simulation never imports pygame (issue 2, DESIGN §5)."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import components
import game
import systems

REPO = Path(__file__).resolve().parents[1]


def test_packages_import_from_this_repository():
    for pkg in (game, systems, components):
        assert Path(pkg.__file__).resolve().parent.parent == REPO, pkg.__file__


def test_distribution_declares_the_three_packages_and_console_script():
    dist = importlib.metadata.distribution("skirmish-tabletop-sim")
    scripts = {ep.name: ep.value for ep in dist.entry_points if ep.group == "console_scripts"}
    assert scripts["skirmish"] == "game.cli:main"
    assert dist.version == game.__version__


def test_installed_pygame_is_pygame_ce():
    code = (
        "import os; os.environ['PYGAME_HIDE_SUPPORT_PROMPT'] = '1'; "
        "import pygame; print(bool(getattr(pygame, 'IS_CE', False)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_simulation_modules_do_not_import_pygame():
    # Every module outside the presentation package, found by walking the packages (no list kept
    # by hand): importing all of them must not load pygame.
    code = (
        "import importlib, pkgutil, sys, game, systems, components\n"
        "for pkg in (game, systems, components):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        if not m.name.startswith('game.render'):\n"
        "            importlib.import_module(m.name)\n"
        "bad = sorted(m for m in sys.modules if m == 'pygame' or m.startswith('pygame.'))\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == ""


def test_python_dash_m_game_runs_the_cli():
    out = subprocess.run([sys.executable, "-m", "game", "--help"], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0 and "skirmish" in out.stdout
