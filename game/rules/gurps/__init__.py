"""GURPS 4e active defence (``../shared/rules/gurps-active-defense.txt``), one module per concern.

``ruleset`` is the :class:`~game.rules.base.Ruleset` (with its reaction limits); ``stats`` the
stat block and derived scores; ``defence`` the defence choices and their exact odds;
``reactions`` the defence flow's steps and their frozen data (retreat, dodge-and-drop,
sacrificial dodge); ``damage`` injury and its effects; ``commands`` its command types
(``Interpose``, ``Follow``, the defence flags); ``state`` its frozen records (a unit's turn, the
battle's memory); ``odds`` its ``skirmish odds`` query.
"""
