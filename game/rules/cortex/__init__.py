"""Cortex (``../shared/rules/cortex-actions-defense-damage.txt``): step dice, rolled Difficulties.

``ruleset`` assembles the :class:`~game.rules.base.Ruleset` from the package's parts, one module
per concept: ``stats`` and ``options`` (the models), ``state`` (the frozen records and the
battle's track), ``rolls``, ``damage``, ``actions`` (declarations, the multiple-action
penalty), ``movement``, ``defence``, ``attacks``, ``flow`` (the attack's steps), ``maneuvers``
and ``mechanics``; ``odds`` is its ``skirmish odds`` query.
"""
