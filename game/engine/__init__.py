"""The engine: the match (esper world, seeded generators, the decision loop, the Battle
implementation) and the typed read-only view that AI and presentation read.
"""
