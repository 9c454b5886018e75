"""AP pool (``../shared/rules/ap-dodge-reaction.txt``): d6 success pools and a 2-AP dodge.

``ruleset`` is the :class:`~game.rules.base.Ruleset`; ``commands`` its command types (the
dodge with an attribute combination, the 2" dodge move); ``odds`` its ``skirmish odds`` query.
"""
