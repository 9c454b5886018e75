"""Defence dice (``../shared/rules/defence-dice-and-cover-units.txt``): aims, cover units, memories.

``ruleset`` is the :class:`~game.rules.base.Ruleset`; ``odds`` its ``skirmish odds`` query.
"""
