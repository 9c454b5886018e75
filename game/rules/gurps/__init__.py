"""GURPS 4e active defence (``../shared/rules/gurps-active-defense.txt``), one module per concern.

``ruleset`` is the :class:`~game.rules.base.Ruleset`; ``stats`` the stat block and derived
scores; ``defence`` the defence choices and their exact odds; ``reactions`` the defence flow
(retreat, dodge-and-drop, sacrificial dodge); ``damage`` injury and its effects.
"""
