"""Cortex options (scenario ``options:`` / ``--option key=value``), documented in
docs/rulesets/cortex.md.

Contract: :class:`CortexOptions` validates the options (unknown keys are errors):
``visibility`` is the poor visibility of shared/rules/cortex-actions-defense-damage.txt (dim
light or light fog +4, darkness or thick fog +8, pitch black: the lowest innate roll takes the
hit); ``prospective_penalty`` restores the old reading of its multiple-action penalty.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from game.rules.base import StrictModel


class CortexOptions(StrictModel):
    """``visibility``: clear, dim (or light fog), dark (or thick fog), pitch_black;
    ``prospective_penalty``: the old reading of the multiple-action penalty."""

    visibility: Literal["clear", "dim", "dark", "pitch_black"] = Field(
        default="clear", description="dim = dim light or light fog, dark = darkness or thick fog"
    )
    prospective_penalty: bool = Field(
        default=False,
        description="no declaration: each action is at -1 step per action already taken this round "
        "(the text: every action of the turn carries the penalty of all of them)",
    )
