"""Cortex (``../shared/rules/cortex-actions-defense-damage.txt``): step dice, rolled Difficulties.

``ruleset`` is the :class:`~game.rules.base.Ruleset` (with its per-unit records); ``odds`` its
``skirmish odds`` query.
"""
