"""The planner policies and their parts.

- :mod:`~game.ai.planner.onestep`: the one-ply expectimax planner (policy ``planner``): candidate
  points scored at once over the exact odds, the enemy's replies estimated.
- :mod:`~game.ai.planner.evaluate`: the board and the worth of a position, a hit and a loss.
- :mod:`~game.ai.planner.react`: reactions (defences, retreats, dodge moves) valued the same way.
- :mod:`~game.ai.planner.facts`: what the battle's log says about each unit's shots so far.
- :mod:`~game.ai.planner.trace`: the plans weighed at the last decision, for the window.
"""
