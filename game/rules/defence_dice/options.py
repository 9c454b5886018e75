"""Defence-dice options (scenario ``options:`` / ``--option key=value``), documented in
docs/rulesets/defence-dice.md: every rule number of shared/rules/defence-dice-and-cover-units.txt
a designer may vary, and each optional mechanic.

Contract: :class:`DDOptions` validates the options (unknown keys are errors; numbers typed and
ranged, ``game.rules.options``). Every default is the text's value or, where the text is silent,
the decision docs/rulesets/defence-dice.md records (source ``... (silent; decision)``); with every
option at its default the rules are those of the text. The ruleset reads them from
``self.options``; the odds query (``skirmish odds defence-dice``) takes them as ``options``.

Readings of the text kept as options (all off by default): ``cover_roll_per_pair``,
``always_reroll_dodge`` and ``hidden_initiative_penalty`` (the section on hiding puts the -1
Insight and Resolve on information checks about the other unit; the old reading also put it on
initiative, which is no check about another unit).
"""

from __future__ import annotations

from typing import Literal

from game.rules.base import StrictModel
from game.rules.options import choice, number, switch

TEXT = "defence-dice-and-cover-units.txt"
SILENT = f"{TEXT} (silent; decision)"


class DDOptions(StrictModel):
    """The defence-dice rules' numbers and mechanics (defaults: the rule text)."""

    aim_die: Literal[10, 12] = choice(10, source=SILENT, description="faces of the aim die")  # type: ignore[arg-type]
    cover_roll_per_pair: bool = switch(
        False,
        source=f"{TEXT}: cover",
        description="a cover unit rolls anew for every attacker-target pair "
        "(the text: one cover roll a round, rerolled after it moved or was damaged)",
    )
    always_reroll_dodge: bool = switch(
        False,
        source=f"{TEXT}: dodge",
        description="every move rerolls the mover's dodge dice (the text: the mover may reroll)",
    )
    hidden_initiative_penalty: bool = switch(
        False,
        source=f"{TEXT}: hidden",
        description="the old reading: the hidden -1 Insight and Resolve also applies to initiative "
        "(the text: only to information checks about the other unit)",
    )

    # ---- numbers -------------------------------------------------------------------------------
    hidden_attack_dice: int = number(
        1, ge=0, le=10, unit="dice", source=f"{TEXT}: hidden", description="extra attack dice when hidden"
    )
    hidden_info_modifier: int = number(
        -1,
        ge=-10,
        le=0,
        unit="+to score",
        source=f"{TEXT}: hidden",
        description="Insight and Resolve on information checks between a hidden unit and its foe",
    )
    cover_dice_per_size: int = number(
        1, ge=0, le=10, unit="dice", source=SILENT, description="cover dice per size unit of a cover unit"
    )
    dodge_dice_per_vitality: int = number(
        1, ge=0, le=10, unit="dice", source=f"{TEXT}: dodge", description="dodge dice per point of Vitality"
    )
    block_for_others_offset: int = number(
        1,
        ge=0,
        le=10,
        unit="memories",
        source=f"{TEXT}: block",
        description="Block(N) blocks for N minus this many other memories a round",
    )
    max_ap: int = number(2, ge=1, le=10, unit="AP", source=SILENT, description="AP a unit has each round")
    move_yards_per_ap: float = number(
        5.0, gt=0.0, le=100.0, unit="yd", source=SILENT, description="movement an AP buys"
    )
    attack_ap: int = number(1, ge=0, le=10, unit="AP", source=SILENT, description="AP an attack costs")
    posture_ap: int = number(
        1, ge=0, le=10, unit="AP", source=SILENT, description="AP a change of posture costs"
    )

    # ---- optional mechanics --------------------------------------------------------------------
    hiding: bool = switch(
        True, source=f"{TEXT}: hidden", description="hidden units get the extra attack die and the -1"
    )
    cover_units: bool = switch(
        True,
        source=f"{TEXT}: cover",
        description="units in the way roll cover dice and take the hits on their aims",
    )
    dodge_rerolls: bool = switch(
        True, source=f"{TEXT}: dodge", description="a unit may reroll its dodge dice when it moves"
    )
