"""skirmish: a tactical grid combat simulation.

Layers (lowest first; enforced by import-linter): ``components`` (inert data),
pure rule/geometry modules in ``game``, ``systems`` (esper processors),
orchestration (``game.engine.match``, ``game.tools.batch``, ``game.ai``), and presentation
(``game.render``, ``game.render.window``), the only layer that imports pygame.

``from game import batch_run`` gives :func:`game.tools.batch_run.batch_run` (battles as a
pandas DataFrame; pandas comes with the ``analysis`` extra).
"""

from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # ``from game import batch_run`` (a DataFrame of battles, needs pandas) without making every
    # ``import game`` load the batch machinery.
    if name == "batch_run":
        import importlib

        # by name: `game` sits above no layer, and a static import would make every module that
        # reads `game.__version__` depend on the batch machinery (tests/test_architecture.py)
        return importlib.import_module("game.tools.batch_run").batch_run
    raise AttributeError(f"module 'game' has no attribute {name!r}")


__all__ = ["__version__", "batch_run"]
