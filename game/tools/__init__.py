"""Tools built on the engine: the session driver, batches, replays, saves, invariants, the
RL environment, statistics and plots.
"""
