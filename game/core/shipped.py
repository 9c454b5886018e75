"""Where the files shipped with skirmish are: the scenarios, ``profiles.yaml`` and the assets.

Contract: :data:`SCENARIOS_DIR`, :data:`PROFILES_PATH` and :data:`ASSETS_DIR` are absolute paths
that exist in every supported layout, and :func:`shipped_scenarios` lists the shipped scenario
files by name (file stem), ``profiles.yaml`` excluded.

Why they are the siblings of the ``game`` package: the repository keeps ``scenarios/`` and
``assets/`` at its top level (next to ``game/``), and the wheel installs them as the top-level
data packages ``scenarios`` and ``assets`` next to ``game`` in site-packages (pyproject.toml
says why that and not a mapping under ``game``). An editable install maps ``game`` to the
checkout. So in a checkout, an editable install and a wheel alike, the folder is
``<parent of game>/scenarios``. They are not found by importing ``scenarios``: a ``scenarios/``
folder in the user's working directory could shadow the shipped package on ``sys.path``.
"""

from __future__ import annotations

from pathlib import Path

#: The folder that holds the ``game`` package (the repository root, or site-packages).
_ROOT = Path(__file__).resolve().parents[2]
#: The shipped scenarios (and ``profiles.yaml``).
SCENARIOS_DIR = _ROOT / "scenarios"
#: The shared profiles file: archetype stat blocks for every ruleset.
PROFILES_PATH = SCENARIOS_DIR / "profiles.yaml"
#: Fonts, the colour theme and the unit token icons.
ASSETS_DIR = _ROOT / "assets"
#: Suffixes of scenario files.
SCENARIO_SUFFIXES = (".yaml", ".yml")


def shipped_scenarios() -> dict[str, Path]:
    """Shipped scenario files by name (the file stem), sorted by name; ``profiles.yaml`` is not one."""
    if not SCENARIOS_DIR.is_dir():
        return {}
    files = [
        p
        for p in SCENARIOS_DIR.iterdir()
        if p.suffix in SCENARIO_SUFFIXES and p.is_file() and p.stem != PROFILES_PATH.stem
    ]
    return {p.stem: p for p in sorted(files, key=lambda p: p.stem)}
