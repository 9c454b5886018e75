"""Cortex options (scenario ``options:`` / ``--option key=value``), documented in
docs/rulesets/cortex.md: every rule number of shared/rules/cortex-actions-defense-damage.txt a
designer may vary, and each optional mechanic.

Contract: :class:`CortexOptions` validates the options (unknown keys are errors; numbers typed
and ranged, ``game.rules.options``). Every default is the text's value or, where the text is
silent, the decision docs/rulesets/cortex.md records (source ``... (silent; decision)``); with
every option at its default a battle plays exactly as before the options existed. The rules read
the values from ``self.options``; the odds query (``skirmish odds cortex``) takes them as its
``options`` argument. ``visibility`` is the poor visibility of the text (pitch black: the lowest
innate roll takes the hit); ``prospective_penalty`` restores the old reading of its
multiple-action penalty.
"""

from __future__ import annotations

from typing import Literal

from game.rules.base import StrictModel
from game.rules.options import choice, number, switch

TEXT = "cortex-actions-defense-damage.txt"
#: Numbers the text leaves to the game (documented as decisions in docs/rulesets/cortex.md).
SILENT = f"{TEXT} (silent; decision)"


class CortexOptions(StrictModel):
    """The Cortex rules' numbers and mechanics (defaults: the rule text)."""

    # ---- readings and conditions ---------------------------------------------------------------
    visibility: Literal["clear", "dim", "dark", "pitch_black"] = choice(
        "clear",
        source=f"{TEXT}: Poor Visibility",
        description="dim = dim light or light fog, dark = darkness or thick fog",
    )
    prospective_penalty: bool = switch(
        False,
        source=f"{TEXT}: actions",
        description="no declaration: each action is at -1 step per action already taken this round "
        "(the text: every action of the turn carries the penalty of all of them)",
    )

    # ---- actions -------------------------------------------------------------------------------
    max_actions: int = number(
        3, ge=1, le=10, unit="actions", source=SILENT, description="actions (AP) a unit has each round"
    )
    extra_action_steps: int = number(
        -1,
        ge=-6,
        le=0,
        unit="steps",
        source=f"{TEXT}: actions",
        description="skill steps on every action of a turn per action beyond the first",
    )
    all_out_defence_steps: int = number(
        2, ge=0, le=6, unit="steps", source=f"{TEXT}: All-Out Defense", description="bonus to dodge and block"
    )

    # ---- movement ------------------------------------------------------------------------------
    base_move_feet: float = number(
        15.0, ge=0.0, le=300.0, unit="ft", source=f"{TEXT}: base speed", description="free movement a turn"
    )
    hustle_feet: float = number(
        30.0, ge=0.0, le=300.0, unit="ft", source=f"{TEXT}: Hustle", description="movement a hustle allows"
    )
    hustle_actions: int = number(
        1, ge=0, le=10, unit="actions", source=f"{TEXT}: Hustle", description="actions a hustle costs"
    )
    run_base_feet: float = number(
        30.0,
        ge=0.0,
        le=300.0,
        unit="ft",
        source=f"{TEXT}: Run",
        description="run distance before the Agility + Athletics/Running roll is added",
    )
    run_actions: int = number(
        2, ge=0, le=10, unit="actions", source=f"{TEXT}: Run", description="actions a run costs"
    )

    # ---- defence, cover, visibility ------------------------------------------------------------
    static_difficulty: int = number(
        3,
        ge=0,
        le=30,
        unit="Difficulty",
        source=f"{TEXT}: Innate Defense",
        description="Difficulty of a target that does not see it coming or is not moving around",
    )
    cover_light: int = number(
        4,
        ge=0,
        le=60,
        unit="Difficulty",
        source=f"{TEXT}: Cover",
        description="light cover (prone; half concealed)",
    )
    cover_medium: int = number(
        8,
        ge=0,
        le=60,
        unit="Difficulty",
        source=f"{TEXT}: Cover",
        description="medium cover (more than half concealed)",
    )
    cover_heavy: int = number(
        12,
        ge=0,
        le=60,
        unit="Difficulty",
        source=f"{TEXT}: Cover",
        description="heavy cover (mostly concealed)",
    )
    cover_near_total: int = number(
        16,
        ge=0,
        le=60,
        unit="Difficulty",
        source=f"{TEXT}: Cover",
        description="near-total cover (almost all concealed)",
    )
    dim_difficulty: int = number(
        4,
        ge=0,
        le=30,
        unit="Difficulty",
        source=f"{TEXT}: Poor Visibility",
        description="dim light, light fog",
    )
    dark_difficulty: int = number(
        8,
        ge=0,
        le=30,
        unit="Difficulty",
        source=f"{TEXT}: Poor Visibility",
        description="darkness, thick fog",
    )
    pitch_black_spread_yards: float = number(
        2.0,
        ge=0.0,
        le=50.0,
        unit="yd",
        source=SILENT,
        description="pitch black: units this close to the target (base edges) may take the hit",
    )
    prone_is_light_cover: bool = switch(
        True,
        source=f"{TEXT}: Cover",
        description="a target lying down has at least light cover against missiles",
    )

    # ---- range ---------------------------------------------------------------------------------
    point_blank_steps: int = number(
        1, ge=-6, le=6, unit="steps", source=f"{TEXT}: Range", description="point-blank attack skill steps"
    )
    medium_range_steps: int = number(
        -2, ge=-12, le=6, unit="steps", source=f"{TEXT}: Range", description="medium range skill steps"
    )
    long_range_steps: int = number(
        -4, ge=-12, le=6, unit="steps", source=f"{TEXT}: Range", description="long range skill steps"
    )
    point_blank_yards: float = number(
        3.0, ge=0.0, le=50.0, unit="yd", source=SILENT, description="point-blank range reaches this far"
    )

    # ---- damage effects ------------------------------------------------------------------------
    conscious_difficulty: int = number(
        7,
        ge=0,
        le=60,
        unit="Difficulty",
        source=f"{TEXT}: Passing Out",
        description="first Vitality + Willpower roll to stay conscious",
    )
    conscious_step: int = number(
        4,
        ge=0,
        le=30,
        unit="Difficulty",
        source=f"{TEXT}: Passing Out",
        description="added to the roll to stay conscious per earlier roll",
    )
    dying_difficulty: int = number(
        3,
        ge=0,
        le=60,
        unit="Difficulty",
        source=f"{TEXT}: Dying",
        description="first Vitality + Willpower roll to stay alive",
    )
    dying_step: int = number(
        4,
        ge=0,
        le=30,
        unit="Difficulty",
        source=f"{TEXT}: Dying",
        description="added to the roll to stay alive per earlier roll",
    )
    serious_wound_steps: int = number(
        -2,
        ge=-12,
        le=0,
        unit="steps",
        source=f"{TEXT}: Seriously Wounded",
        description="skill steps on every action of a seriously wounded unit",
    )
    rounds_per_minute: int = number(
        20, ge=1, le=200, unit="rounds", source=SILENT, description="rounds between rolls to stay alive"
    )
    passing_out: bool = switch(
        True,
        source=f"{TEXT}: Passing Out",
        description="stun + wounds over the life points make the unit roll to stay conscious",
    )
    seriously_wounded: bool = switch(
        True,
        source=f"{TEXT}: Seriously Wounded",
        description="wounds at half the life points give a step penalty on every action",
    )
    dying: bool = switch(
        True,
        source=f"{TEXT}: Dying",
        description="wounds at the life points make the unit roll to stay alive (off: it dies at once)",
    )
    shock: bool = switch(
        True,
        source=f"{TEXT}: Shock",
        description="stun taken while unconscious is recorded as shock (off: as stun)",
    )
