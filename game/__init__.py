"""skirmish: a tactical grid combat simulation.

Layers (lowest first; enforced by import-linter): ``components`` (inert data),
pure rule/geometry modules in ``game``, ``systems`` (esper processors),
orchestration (``game.engine.match``, ``game.tools.batch``, ``game.ai``), and presentation
(``game.render``, ``game.render.window``), the only layer that imports pygame.
"""

__version__ = "0.1.0"
