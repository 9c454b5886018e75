"""The public reinforcement-learning entry point: ``game.rl.env(scenario)`` (needs the ``[rl]`` extra).

The environment lives in :mod:`game.tools.rl`; this module is the stable name README.md and
``docs/rl.md`` give users, so code written against ``game.rl`` keeps working.
"""

from game.tools.rl import ActionCatalogue, SkirmishEnv, env

__all__ = ["ActionCatalogue", "SkirmishEnv", "env"]
