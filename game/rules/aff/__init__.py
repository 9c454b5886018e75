"""Advanced Fighting Fantasy (``../shared/rules/aff-dodge-protection.md``): Dodge as protection.

``ruleset`` is the :class:`~game.rules.base.Ruleset`; ``odds`` its ``skirmish odds`` query.
"""
