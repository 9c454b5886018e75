"""Inert component data for the skirmish ECS.

Contract: this package holds plain dataclasses only. It imports nothing from
``game``, ``systems``, esper or pygame, so every other layer may depend on it.
Mutable per-turn state uses ``@dataclass(slots=True)``; data loaded from files is
frozen.
"""
