"""What the presentation layer draws with, shipped so pictures look the same on every machine.

A *data package* (no code), installed as the top-level package ``assets`` next to ``game``:

- ``fonts/DejaVuSans.ttf``: the one font of the window and ``skirmish render`` (DejaVu Sans 2.35;
  its licence, the Bitstream Vera licence with the Arev additions, is ``fonts/LICENSE-DejaVu.txt``).
- ``theme.yaml``: every colour the window draws with, loaded and validated by
  :mod:`game.render.theme`.
- ``tokens.yaml``: the unit token icons (one figure per posture) as vector drawings in a unit
  box, drawn by :mod:`game.render.tokens` at any zoom.

Programs find the folder through :mod:`game.core.shipped`, never by importing this package.
"""
