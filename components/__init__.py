"""Inert component data for the skirmish ECS.

Contract: this package holds plain dataclasses only. It imports nothing from
``game``, ``systems``, esper or pygame, so every other layer may depend on it.

Every component is an immutable value (``@dataclass(frozen=True, slots=True)``, mappings
read-only, sets frozen): a change replaces the component in the store
(``systems.store.Store``), never edits it. That is what makes a match a value: a clone
copies each entity's small table of components and shares the components themselves
(``Match.clone``). The few battle-entity components that hold a growing or drawing object
(the event log, the random streams) say so and are forked, not shared, by a clone.
"""
