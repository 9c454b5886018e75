"""AFF ruleset options: the rule numbers a designer may vary, and each optional mechanic.

Contract: :class:`AffOptions` is the ruleset's options model (``game.rules.options``). Every
default is the reading of shared/rules/aff-dodge-protection.md (``TEXT``) or, where the text is
silent, the standard AFF frame the ruleset adopted (``FRAME``: documented as a decision in
docs/rulesets/aff.md). With every option at its default a battle plays exactly as before the
options existed. The rules read the values from ``self.options``; nothing else holds them.
"""

from __future__ import annotations

from typing import Literal

from game.rules.base import StrictModel
from game.rules.options import choice, number, switch

TEXT = "aff-dodge-protection.md"
#: Numbers of the AFF frame the text leaves to the game (a documented decision).
FRAME = "aff-dodge-protection.md (silent; the ruleset's AFF frame)"


class AffOptions(StrictModel):
    """The AFF rules' numbers and mechanics (defaults: the rule text)."""

    # ---- the text --------------------------------------------------------------------------------
    swashbuckler_dodge_bonus: int = number(
        1,
        ge=0,
        le=6,
        unit="+to roll",
        source=f"{TEXT}: Ubiquitous Dodging Rules",
        description="what Swashbuckler adds to a Dodge protection roll under Ubiquitous Dodging",
    )

    # ---- the frame the text leaves to the game -------------------------------------------------
    armour_training_bonus: int = number(
        1,
        ge=0,
        le=6,
        unit="+to roll",
        source=f"{FRAME}: Armour Training",
        description="what the Armour Training talent adds to an armour protection roll",
    )
    ap_per_round: int = number(
        2, ge=1, le=20, unit="AP", source=f"{FRAME}: turn economy", description="AP each unit gets a round"
    )
    move_yards_per_ap: float = number(
        5.0,
        gt=0.0,
        le=100.0,
        unit="yd",
        source=f"{FRAME}: turn economy",
        description="yards a unit moves for each AP",
    )
    attack_ap: int = number(
        1, ge=0, le=20, unit="AP", source=f"{FRAME}: turn economy", description="AP an attack costs"
    )
    posture_ap: int = number(
        1, ge=0, le=20, unit="AP", source=f"{FRAME}: turn economy", description="AP a posture change costs"
    )
    face_ap: int = number(
        0, ge=0, le=20, unit="AP", source=f"{FRAME}: turn economy", description="AP a change of facing costs"
    )
    medium_range_penalty: int = number(
        1,
        ge=0,
        le=12,
        unit="-to target",
        source=f"{FRAME}: missiles",
        description="what a missile or thrown attack at medium range takes off its roll-under target",
    )
    long_range_penalty: int = number(
        2,
        ge=0,
        le=12,
        unit="-to target",
        source=f"{FRAME}: missiles",
        description="what a missile or thrown attack at long range takes off its roll-under target",
    )
    cover_penalty_step: int = number(
        1,
        ge=0,
        le=6,
        unit="-to target",
        source=f"{FRAME}: missiles",
        description="what each level of the target's cover takes off a missile's target "
        "(light 1 step, medium 2, heavy 3, near-total 4)",
    )
    rear_defence_penalty: int = number(
        2,
        ge=0,
        le=12,
        unit="-to total",
        source=f"{FRAME}: melee",
        description="what a defender attacked from its rear arc takes off its melee combat total",
    )
    defensive_bonus: int = number(
        2,
        ge=0,
        le=12,
        unit="+to total",
        source=f"{TEXT}: Related Rules (Combat Options: Defensive)",
        description="what fighting defensively adds to a melee defender's combat total",
    )

    # ---- optional mechanics and readings of the text ------------------------------------------
    ubiquitous: bool = switch(
        False,
        source=f"{TEXT}: Alternative Rule: Ubiquitous Dodging",
        description="the text's alternative rule Ubiquitous Dodging",
    )
    ubiquitous_dodging_choice: Literal["round_start", "first_hit"] = choice(
        "round_start",
        source=f"{TEXT}: Ubiquitous Dodging Rules (Mutual Exclusion with Armor)",
        description="when a unit that may both armour and dodge chooses one for the round: "
        "round_start (the text: a decision at the start of each round) or first_hit "
        "(the old reading: at its first hit of the round)",
    )
    riposte: bool = switch(
        True,
        source=f"{FRAME}: melee",
        description="a defender who wins a melee exchange strikes back",
    )
    defensive: bool = switch(
        True,
        source=f"{TEXT}: Related Rules (Combat Options: Defensive)",
        description="a melee defender may fight defensively: a bonus to its total, "
        "but its win deals no damage (off: no such choice, as before)",
    )
    optional_protection: bool = switch(
        False,
        source=f"{TEXT}: Standard Rules",
        description='"no protection" is always offered, even to a unit wearing armour '
        "(the text: worn armour always protects)",
    )


DEFAULTS = AffOptions()
