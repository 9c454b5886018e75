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
    dodge_move_inches: float = number(
        2.0,
        ge=0.0,
        le=24.0,
        unit="in",
        source=f"{TEXT}: Movement After Dodge",
        description="how far a unit may move after a successful dodge (table inches)",
    )
    dodges_per_turn: int = number(
        1,
        ge=0,
        le=20,
        unit="dodges",
        source=f"{TEXT}: Additional Considerations for Dodge",
        description="dodges a unit may make in one turn (or round, with dodge_once_per_round); 0: none",
    )
    success_face: int = number(
        5,
        ge=1,
        le=6,
        unit="face",
        source=f"{TEXT}: Opposed Check",
        description="lowest d6 face that counts as a success, in every pool (attack, dodge, initiative)",
    )

    # ---- the frame the text leaves to the game ------------------------------------------------
    attack_ap: int = number(
        2, ge=0, le=20, unit="AP", source=f"{FRAME}: turn economy", description="AP an attack costs"
    )
    posture_ap: int = number(
        1, ge=0, le=20, unit="AP", source=f"{FRAME}: turn economy", description="AP a posture change costs"
    )
    face_ap: int = number(
        0, ge=0, le=20, unit="AP", source=f"{FRAME}: turn economy", description="AP a change of facing costs"
    )
    long_range_dice: int = number(
        2,
        ge=0,
        le=10,
        unit="dice",
        source=f"{FRAME}: dice removed",
        description="dice a ranged attack loses beyond the weapon's short range",
    )
    intervening_dice: int = number(
        1,
        ge=0,
        le=10,
        unit="dice",
        source=f"{FRAME}: dice removed",
        description="dice a ranged attack loses per unit in the line of fire",
    )
    cover_dice_step: int = number(
        1,
        ge=0,
        le=5,
        unit="dice",
        source=f"{FRAME}: dice removed",
        description="dice a ranged attack loses per level of the target's cover "
        "(light 1 step, medium 2, heavy 3, near-total 4)",
    )
    low_target_dice: int = number(
        1,
        ge=0,
        le=10,
        unit="dice",
        source=f"{FRAME}: dice removed",
        description="dice a ranged attack loses against a crawling or prone target",
    )
    downed_target_dice: int = number(
        1,
        ge=0,
        le=10,
        unit="dice",
        source=f"{FRAME}: dice added",
        description="dice a melee attack gains against a sitting, crawling or prone target",
    )
    low_posture_move: float = number(
        0.5,
        ge=0.0,
        le=1.0,
        unit="x Move",
        source=f"{FRAME}: movement",
        description="fraction of Move a kneeling, sitting, crawling or prone unit gets per AP",
    )

    # ---- optional mechanics (each can be switched off) ----------------------------------------
    dodge_move: bool = switch(
        True,
        source=f"{TEXT}: Movement After Dodge",
        description="a successful dodge offers a move (off: the unit stays where it is)",
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
