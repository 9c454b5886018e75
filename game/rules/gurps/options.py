"""GURPS ruleset options: every rule number a designer may vary, and each optional mechanic.

Contract: :class:`GurpsOptions` is the ruleset's options model (``game.rules.options``). Every
default is the reading of shared/rules/gurps-active-defense.txt (``TEXT``) or, where the text is
silent, the GURPS 4e Basic Set number the ruleset adopted (``BASIC``: documented as a decision in
docs/rulesets/gurps.md). With every option at its default the rules are those of the text, and a
battle plays exactly as before the options existed. The rules read the values from
``self.options`` (the ruleset) or from the ``opts`` argument of the module-level defence
functions; nothing else holds them.

Two readings of the text kept from before (both off by default):

- ``ground_retreat_roll``: a defender lying down needs a roll against the better of DX and
  Acrobatics to retreat (a failed roll: no move, no bonus, the retreat is spent). In the text a
  defender lying down retreats by rolling over on the ground, with no dice.
- ``double_defence_different``: All-Out Defence's second defence against an attack must differ
  from the first (another kind, or a parry with another weapon), as in the Basic Set. By default
  a second parry with the same weapon is allowed (at the multiple-parry penalty), a second Dodge
  is not (one Dodge roll per attack) and a second Block cannot happen (one block per turn).
"""

from __future__ import annotations

from game.rules.base import StrictModel
from game.rules.options import number, switch

TEXT = "gurps-active-defense.txt"
#: Numbers the text relies on but does not print (standard GURPS 4e, a documented decision).
BASIC = "gurps-active-defense.txt (silent; Basic Set)"


class GurpsOptions(StrictModel):
    """The GURPS rules' numbers and mechanics (defaults: the rule text)."""

    # ---- readings of the text ------------------------------------------------------------------
    ground_retreat_roll: bool = switch(
        False,
        source=f"{TEXT}: Retreat",
        description="a defender lying down rolls DX or Acrobatics to retreat (text: no roll)",
    )
    double_defence_different: bool = switch(
        False,
        source=f"{TEXT}: Active Defense",
        description="All-Out Defence's second defence must differ from the first",
    )

    # ---- optional mechanics (each can be switched off) -----------------------------------------
    retreat: bool = switch(
        True, source=f"{TEXT}: Retreat", description="defenders may retreat for a defence bonus"
    )
    dodge_and_drop: bool = switch(
        True,
        source=f"{TEXT}: Dodge and Drop",
        description="defenders may drop prone while dodging a ranged attack",
    )
    all_out_defence: bool = switch(
        True,
        source=f"{TEXT}: Active Defense",
        description="the All-Out Defence maneuver (a second defence if the first fails) is offered",
    )
    acrobatic_dodge: bool = switch(
        True,
        source=f"{TEXT}: Acrobatic Dodge",
        description="units with Acrobatics may make an acrobatic dodge",
    )
    sacrificial_dodge: bool = switch(
        True,
        source=f"{TEXT}: Sacrificial Dodge",
        description="friends may step into the line of an attack to take it",
    )
    vehicular_dodge: bool = switch(
        True,
        source=f"{TEXT}: Vehicular Dodge",
        description="a vehicle operator dodges with half the driving skill plus Handling",
    )
    parry_injures_unarmed: bool = switch(
        True,
        source=f"{TEXT}: Parry (Parrying Unarmed Attacks)",
        description="a weapon parry of an unarmed attack may injure the attacker",
    )
    follow_retreat: bool = switch(
        True,
        source=f"{TEXT}: Retreat",
        description="an attacker may follow a retreating defender with an unused step",
    )

    # ---- defence scores ------------------------------------------------------------------------
    dodge_base: int = number(
        3,
        ge=0,
        le=10,
        unit="+to Dodge",
        source=f"{TEXT}: Dodge",
        description="Dodge is Basic Speed plus this",
    )
    vehicle_skill_divisor: int = number(
        2,
        ge=1,
        le=10,
        unit="",
        source=f"{TEXT}: Vehicular Dodge",
        description="Vehicular Dodge is the operator's skill divided by this, plus Handling",
    )
    parry_base: int = number(
        3,
        ge=0,
        le=10,
        unit="+to Parry",
        source=f"{TEXT}: Parry",
        description="Parry is half the weapon (or unarmed) skill plus this",
    )
    block_base: int = number(
        3,
        ge=0,
        le=10,
        unit="+to Block",
        source=f"{TEXT}: Block",
        description="Block is half the Shield or Cloak skill plus this",
    )
    acrobatic_bonus: int = number(
        2,
        ge=0,
        le=10,
        unit="+to Dodge",
        source=f"{TEXT}: Acrobatic Dodge",
        description="an acrobatic dodge gains this on a made Acrobatics roll and loses it on a failed one",
    )

    # ---- retreat and dodge-and-drop --------------------------------------------------------------
    retreat_dodge: int = number(
        3,
        ge=0,
        le=10,
        unit="+to Dodge",
        source=f"{TEXT}: Retreat",
        description="bonus to a Dodge with a retreat",
    )
    retreat_parry_block: int = number(
        1,
        ge=0,
        le=10,
        unit="+to Parry/Block",
        source=f"{TEXT}: Retreat",
        description="bonus to a Parry or Block with a retreat",
    )
    retreat_parry_fencing: int = number(
        3,
        ge=0,
        le=10,
        unit="+to Parry",
        source=f"{TEXT}: Retreat",
        description="bonus to a fencing, Boxing, Judo or Karate parry with a retreat",
    )
    retreats_per_turn: int = number(
        1,
        ge=0,
        le=10,
        unit="retreats",
        source=f"{TEXT}: Retreat",
        description="retreats a unit may make between two of its turns",
    )
    drop_dodge: int = number(
        3,
        ge=0,
        le=10,
        unit="+to Dodge",
        source=f"{TEXT}: Dodge and Drop",
        description="bonus to a Dodge with a drop prone (ranged attacks)",
    )
    sacrificial_drop_margin: int = number(
        3,
        ge=0,
        le=20,
        unit="margin",
        source=f"{TEXT}: Dodge and Drop (Sacrificial Dodge and Drop)",
        description="a sacrificial dodge-and-drop made by this much leaves nobody hit",
    )

    # ---- parry and block -----------------------------------------------------------------------
    multiple_parry: int = number(
        -4,
        ge=-10,
        le=0,
        unit="+to Parry",
        source=f"{TEXT}: Parry (Number of Parries)",
        description="cumulative modifier per further parry with the same weapon or hand in a turn",
    )
    multiple_parry_trained: int = number(
        -2,
        ge=-10,
        le=0,
        unit="+to Parry",
        source=f"{TEXT}: Parry (Number of Parries)",
        description="the same with a fencing weapon or Trained by a Master / Weapon Master",
    )
    multiple_parry_fencing_master: int = number(
        -1,
        ge=-10,
        le=0,
        unit="+to Parry",
        source=f"{TEXT}: Parry (Number of Parries)",
        description="the same with a fencing weapon and Trained by a Master / Weapon Master",
    )
    off_hand_parry: int = number(
        -2,
        ge=-10,
        le=0,
        unit="+to Parry",
        source=f"{TEXT}: Parry (Parrying with the Off Hand)",
        description="modifier to a parry with the off hand (Ambidexterity ignores it)",
    )
    thrown_parry: int = number(
        -1,
        ge=-10,
        le=0,
        unit="+to Parry",
        source=f"{TEXT}: Parry (Parrying Thrown Weapons)",
        description="modifier to parry a thrown weapon",
    )
    small_thrown_parry: int = number(
        -2,
        ge=-10,
        le=0,
        unit="+to Parry",
        source=f"{TEXT}: Parry (Parrying Thrown Weapons)",
        description="modifier to parry a small thrown weapon",
    )
    small_thrown_lb: float = number(
        1.0,
        ge=0,
        le=100,
        unit="lb",
        source=f"{TEXT}: Parry (Parrying Thrown Weapons)",
        description="a thrown weapon this heavy or lighter is a small one",
    )
    bare_hands_vs_weapon: int = number(
        -3,
        ge=-10,
        le=0,
        unit="+to Parry",
        source=f"{TEXT}: Parrying Unarmed",
        description="modifier to a bare-handed parry of a weapon (not a thrust; Judo/Karate exempt)",
    )
    parry_injury_judo_karate: int = number(
        -4,
        ge=-10,
        le=0,
        unit="+to skill",
        source=f"{TEXT}: Parry (Parrying Unarmed Attacks)",
        description="modifier to the parrier's injuring roll against a Judo or Karate attack",
    )
    blocks_per_turn: int = number(
        1,
        ge=0,
        le=10,
        unit="blocks",
        source=f"{TEXT}: Block",
        description="blocks a unit may make between two of its turns",
    )

    # ---- situational modifiers (the text is silent: Basic Set) ---------------------------------
    side_arc_defence: int = number(
        -2,
        ge=-10,
        le=0,
        unit="+to defence",
        source=f"{BASIC}: B390 attacks from the side",
        description="modifier to every defence against an attack from the side arc",
    )
    stunned_defence: int = number(
        -4,
        ge=-10,
        le=0,
        unit="+to defence",
        source=f"{BASIC}: B420 stun",
        description="modifier to every defence while stunned",
    )
    intervening_penalty: int = number(
        -4,
        ge=-10,
        le=0,
        unit="+to hit",
        source=f"{BASIC}: B389 shooting past figures",
        description="modifier to a ranged attack per figure in the line of fire",
    )
    min_attack_skill: int = number(
        3,
        ge=0,
        le=20,
        unit="skill",
        source=f"{BASIC}: B344 effective skill",
        description="no attack roll below this effective skill",
    )

    # ---- injury (the text is silent: Basic Set) ------------------------------------------------
    shock_max: int = number(
        4,
        ge=0,
        le=20,
        unit="-to skill",
        source=f"{BASIC}: B419 shock",
        description="the most shock (skill penalty from injury) a unit takes into its next turn",
    )
    major_wound_divisor: int = number(
        2,
        ge=1,
        le=10,
        unit="",
        source=f"{BASIC}: B420 major wounds",
        description="injury above HP divided by this at once is a major wound (HT roll or stunned)",
    )
    knockout_margin: int = number(
        5,
        ge=1,
        le=20,
        unit="margin",
        source=f"{BASIC}: B420 major wounds",
        description="a major-wound HT roll failed by this much knocks the unit out",
    )
    death_check_multiples: int = number(
        4,
        ge=0,
        le=10,
        unit="xHP",
        source=f"{BASIC}: B419 death checks",
        description="HT rolls to survive at -1xHP and each further multiple up to this",
    )
    auto_death_multiple: int = number(
        5,
        ge=1,
        le=20,
        unit="xHP",
        source=f"{BASIC}: B419 death",
        description="dead at minus this many times HP",
    )
    reeling_divisor: int = number(
        3,
        ge=1,
        le=10,
        unit="",
        source=f"{BASIC}: B419 reeling",
        description="below HP divided by this, Move and Dodge are halved",
    )

    # ---- movement (the text is silent: Basic Set) ----------------------------------------------
    step_move_divisor: int = number(
        10,
        ge=1,
        le=100,
        unit="",
        source=f"{BASIC}: B368 step",
        description="a step (and a retreat) is one yard or Move divided by this, whichever is more",
    )
    prone_move_yards: float = number(
        1.0,
        ge=0,
        le=10,
        unit="yd",
        source=f"{BASIC}: B551 posture",
        description="how far a prone unit crawls in one Move maneuver",
    )


#: The options at their defaults (the text), for callers that are given none.
DEFAULTS = GurpsOptions()
