"""The public reinforcement-learning entry point: ``game.rl.env(scenario)`` (needs the ``[rl]`` extra).

The environment lives in :mod:`game.tools.rl`, below the presentation layer; this module is the
stable name README.md and ``docs/rl.md`` give users, so code written against ``game.rl`` keeps
working, and it is where the simulation meets the renderer: with ``render_mode="rgb_array"``
it gives the environment a :class:`game.render.animate.FrameDrawer` (the headless renderer the
window and ``skirmish render`` use), imported only then, so an environment without pictures
never imports pygame. The import-linter layers put ``game.rl`` above ``game.render`` for this.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from game.tools.rl import ActionCatalogue, SkirmishEnv
from game.tools.rl import env as _env

__all__ = ["DEFAULT_RENDER_SIZE", "MIN_RENDER_SIZE", "ActionCatalogue", "SkirmishEnv", "env"]

#: Picture size of ``render_mode="rgb_array"`` by default (that of ``skirmish render``).
DEFAULT_RENDER_SIZE = (1280, 800)
#: The smallest picture the window's layout supports (``game.render.renderer.MIN_SIZE``).
MIN_RENDER_SIZE = (640, 420)


def env(
    scenario_path: str | os.PathLike[str],
    ruleset: str | None = None,
    seed: int | None = None,
    render_mode: str | None = None,
    opponents: Mapping[str, str] | None = None,
    render_size: tuple[int, int] = DEFAULT_RENDER_SIZE,
) -> SkirmishEnv:
    """A PettingZoo AEC environment over the scenario file (:mod:`game.tools.rl`).

    Args:
        scenario_path: the scenario YAML.
        ruleset: overrides the scenario's ruleset.
        seed: seeds the match seeds of ``reset()`` calls without a seed.
        render_mode: ``None``, ``"ansi"`` (text) or ``"rgb_array"`` (``render()`` returns the
            window's picture of the match as an (h, w, 3) uint8 array, drawn headless).
        opponents: side -> AI policy (``{"blue": "cautious"}``) playing that side inside the
            environment; the agents are the other sides' units.
        render_size: (width, height) of the ``rgb_array`` pictures, at least 640 x 420.

    Raises:
        ScenarioError: the scenario file is invalid.
        UnknownName: ``ruleset`` or an opponent's policy is unknown.
        ValueError: a bad ``render_mode`` or ``render_size``, or ``opponents`` naming no side or
            every side.
        PygameUnavailable: ``rgb_array`` without pygame-ce.
    """
    w, h = render_size
    if w < MIN_RENDER_SIZE[0] or h < MIN_RENDER_SIZE[1]:
        raise ValueError(f"render_size {w}x{h} is smaller than {MIN_RENDER_SIZE[0]}x{MIN_RENDER_SIZE[1]}")
    frame = None
    if render_mode == "rgb_array":
        from game.render.animate import FrameDrawer

        frame = FrameDrawer(render_size)
    return _env(scenario_path, ruleset, seed, render_mode=render_mode, opponents=opponents, frame=frame)
