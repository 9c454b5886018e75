"""AP-pool ruleset options: the rule numbers a designer may vary, and each optional mechanic.

Contract: :class:`ApPoolOptions` is the ruleset's options model (``game.rules.options``). Every
default is the reading of shared/rules/ap-dodge-reaction.txt (``TEXT``) or, where the text is
silent, the frame the ruleset adopted (``FRAME``: documented as a decision in
docs/rulesets/ap-pool.md). With every option at its default a battle plays exactly as before the
options existed. The rules read the values from ``self.options``; nothing else holds them.
"""

from __future__ import annotations

from game.rules.base import StrictModel
from game.rules.options import number, switch

TEXT = "ap-dodge-reaction.txt"
#: Numbers of the skirmish frame the text leaves to the game (a documented decision).
FRAME = "ap-dodge-reaction.txt (silent; the ruleset's frame)"


class ApPoolOptions(StrictModel):
    """The AP-pool rules' numbers and mechanics (defaults: the rule text)."""

    # ---- the dodge reaction (the text) -------------------------------------------------------
    dodge_ap: int = number(
        2,
        ge=0,
        le=20,
        unit="AP",
        source=f"{TEXT}: Key Points about Dodge",
        description="AP a dodge reaction costs; a unit needs at least this many left to dodge",
    )

    # ---- readings of the text ------------------------------------------------------------------
    failed_dodge_reduces_damage: bool = switch(
        False,
        source=f"{TEXT}: Opposed Check",
        description="a failed dodge's successes come off the attacker's for damage "
        "(the text: damage is applied as normal)",
    )
    dodge_once_per_round: bool = switch(
        False,
        source=f"{TEXT}: Additional Considerations for Dodge",
        description="one dodge per round (the text: once per turn, i.e. per activation)",
    )


DEFAULTS = ApPoolOptions()
