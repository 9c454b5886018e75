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
        # walk_packages would import game.render's subpackages to walk them: walk by hand.
        "def walk(pkg):\n"
        "    for m in pkgutil.iter_modules(pkg.__path__, pkg.__name__ + '.'):\n"
        "        if m.name == 'game.render':\n"
        "            continue\n"
        "        mod = importlib.import_module(m.name)\n"
        "        if m.ispkg:\n"
        "            walk(mod)\n"
        "for pkg in (game, systems, components):\n"
        "    walk(pkg)\n"
        "bad = sorted(m for m in sys.modules if m == 'pygame' or m.startswith('pygame.'))\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == ""


def test_python_dash_m_game_runs_the_cli():
    out = subprocess.run([sys.executable, "-m", "game", "--help"], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0 and "skirmish" in out.stdout


# ----------------------------------------------------------------------------- the wheel (issue 15)
import os  # noqa: E402
import shutil  # noqa: E402
import sysconfig  # noqa: E402
import zipfile  # noqa: E402

import pytest  # noqa: E402

from game.core.shipped import shipped_scenarios  # noqa: E402

#: Not copied into the build folder: the repository's own environment and outputs.
_NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "out", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "*.pyc"
)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The sdist and the wheel built from a copy of this checkout (offline), and the build output."""
    root = tmp_path_factory.mktemp("build")
    src = root / "src"
    shutil.copytree(REPO, src, ignore=_NOT_SOURCE)
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(root / "dist"), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (sdist,) = (root / "dist").glob("*.tar.gz")
    (wheel,) = (root / "dist").glob("*.whl")
    return sdist, wheel, done.stdout + done.stderr


def test_the_build_gives_no_warnings(dist: tuple[Path, Path, str]) -> None:
    *_, log = dist
    # distutils says this when bytecode writing is off in the environment: not a packaging problem
    warnings = [
        ln for ln in log.splitlines() if "warn" in ln.lower() and "byte-compiling is disabled" not in ln
    ]
    assert warnings == []


def test_the_wheel_carries_scenarios_profiles_assets_and_licences(dist: tuple[Path, Path, str]) -> None:
    sdist, wheel, _ = dist
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {f"scenarios/{p.name}" for p in shipped_scenarios().values()}
    assert shipped and shipped <= names
    assert {
        "scenarios/profiles.yaml",
        "assets/theme.yaml",
        "assets/tokens.yaml",
        "assets/fonts/DejaVuSans.ttf",
        "assets/fonts/LICENSE-DejaVu.txt",
        "game/py.typed",
    } <= names
    info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
    assert {f"{info}/licenses/LICENSE", f"{info}/licenses/assets/fonts/LICENSE-DejaVu.txt"} <= names
    meta = zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode()
    assert "License-Expression: MIT AND Bitstream-Vera" in meta.splitlines()
    assert "License-File: LICENSE" in meta.splitlines()
    import tarfile

    with tarfile.open(sdist) as tar:
        members = {m.name.split("/", 1)[1] for m in tar.getmembers() if "/" in m.name}
    assert {"LICENSE", "scenarios/duel.yaml", "scenarios/profiles.yaml", "assets/theme.yaml"} <= members


def test_license_file_is_mit_for_the_skirmish_developers() -> None:
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("MIT License") and "the skirmish developers" in text


def _can_mount_read_only(probe: Path) -> bool:
    if shutil.which("unshare") is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    probe.mkdir(exist_ok=True)
    script = f"mount --bind {probe} {probe} && mount -o remount,ro,bind {probe} && ! touch {probe}/x"
    return subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True).returncode == 0


@pytest.mark.slow
def test_the_installed_wheel_plays_from_any_folder(dist: tuple[Path, Path, str], tmp_path: Path) -> None:
    """A fresh venv holding only the wheel (its dependencies come from this environment's
    site-packages through a .pth line, which adds the folder without running the editable
    install's finder) plays, checks, renders and replays shipped scenarios by name, from a folder
    that is not the checkout. Where it can, the installed package is mounted read-only: the
    kernels then compile once into the user's cache folder, saying so once."""
    _, wheel, _ = dist
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        timeout=300,
        capture_output=True,
    )
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "_skirmish_test_deps.pth").write_text("".join(f"{d}\n" for d in sorted(deps)))
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR", "VIRTUAL_ENV") and not k.startswith("PYTEST")
    }
    env.update(
        SDL_VIDEODRIVER="dummy",
        SDL_AUDIODRIVER="dummy",
        MPLBACKEND="Agg",
        XDG_CACHE_HOME=str(tmp_path / "xdg"),
    )
    read_only = _can_mount_read_only(tmp_path / "probe")

    def sh(*args: str) -> subprocess.CompletedProcess[str]:
        command = " ".join(f"'{a}'" for a in args)
        if read_only:
            command = f"mount --bind {site} {site} && mount -o remount,ro,bind {site} && {command}"
            argv = ["unshare", "-m", "sh", "-c", command]
        else:
            argv = ["sh", "-c", command]
        return subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=900)

    skirmish = str(venv / "bin" / "skirmish")
    where = sh(str(python), "-c", "import game, scenarios, assets; print(game.__file__)")
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(site)  # the wheel's own files, not the checkout
    listed = sh(skirmish, "scenarios")
    assert listed.returncode == 0, listed.stderr
    assert set(shipped_scenarios()) <= {ln.split()[0] for ln in listed.stdout.splitlines()[1:] if ln.strip()}
    checked = sh(skirmish, "check", "duel")
    assert checked.returncode == 0 and checked.stdout.startswith(f"ok: {site / 'scenarios' / 'duel.yaml'}")
    fought = sh(skirmish, "battle", "duel", "-n", "4", "--workers", "2", "--log", "logs", "--no-progress")
    assert fought.returncode == 0, fought.stderr
    notices = [ln for ln in fought.stderr.splitlines() if "compiling geometry and path kernels, once" in ln]
    assert len(notices) == 1, fought.stderr  # compiled once, in the parent, before the workers
    if read_only:
        cache = tmp_path / "xdg" / "skirmish" / "numba"
        assert f"(cache: {cache} (the installation is read-only))" in notices[0]
        assert any(cache.rglob("*.nbi"))
    assert (work / "out" / "duel" / "battles.csv").is_file() and (work / "logs" / "battle-4.jsonl").is_file()
    drawn = sh(skirmish, "render", "duel", "--out", "duel.png", "--size", "640x420")
    assert drawn.returncode == 0, drawn.stderr
    assert (work / "duel.png").read_bytes()[:4] == b"\x89PNG"
    assert "compiling" not in drawn.stderr  # cached: later runs say nothing
    replayed = sh(skirmish, "replay", "logs/battle-2.jsonl")
    assert replayed.returncode == 0 and ": OK: " in replayed.stdout, replayed.stdout + replayed.stderr
