"""GURPS ruleset options: named variants of rules, each off by default (the text's reading).

The defaults follow shared/rules/gurps-active-defense.txt; each option restores a reading
that is a reasonable house rule (docs/rulesets/gurps.md lists them with the rule they vary):

- ``ground_retreat_roll``: a defender lying down needs a roll against the better of DX and
  Acrobatics to retreat (a failed roll: no move, no bonus, the retreat is spent). In the text a
  defender lying down retreats by rolling over on the ground, with no dice: by default it
  retreats like anyone else.
- ``double_defence_different``: All-Out Defence's second defence against an attack must differ
  from the first (another kind, or a parry with another weapon), as in the Basic Set. The text
  only asks for a second defence; by default a second parry with the same weapon is allowed (at
  the cumulative multiple-parry penalty), while a second Dodge is not (one Dodge roll per attack)
  and a second Block cannot happen (one block per turn).
"""

from __future__ import annotations

from game.rules.base import StrictModel


class GurpsOptions(StrictModel):
    """Variants of the GURPS rules (all off: the rule text as written)."""

    ground_retreat_roll: bool = False
    double_defence_different: bool = False
