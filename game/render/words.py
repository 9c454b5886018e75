"""Plain words for the fields rulesets and the engine put in events, options and decisions.

Contract (pure, no pygame): :func:`name` turns a field or flag name into words a tabletop
player reads (``p_hurt`` -> ``chance to hurt``, ``fight_or_flight`` -> ``fight or flight``);
:func:`value` writes a value without any Python notation (booleans as yes / no, ``None`` as
none, chances as percentages, sequences as comma lists, mappings as ``name value`` pairs,
numbers briefly, options by their label); :func:`phrase` is ``name value`` of one field. The
panel, the log sentences and the tooltips use these, so no repr (``=(``, ``[1, 2``, ``True``,
``{'``) reaches a player.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Field names that read better than their words with spaces.
NAMES: dict[str, str] = {
    "p_success": "chance to succeed",
    "p_hurt": "chance to hurt",
    "eff": "effective skill",
    "attack_eff": "effective skill",
    "eff_next_turn": "effective skill next turn",
    "attack_kind": "attack",
    "attack_roll": "attack roll",
    "faces": "dice",
    "dr": "DR",
    "ap": "AP",
    "inches_per_ap": "inches per AP",
    "max_len": "reach in inches",
    "target_dodge_dice": "the target's dodge dice",
    "defender_total": "the defender's total",
    "hp": "HP",
    "fp": "FP",
    "at": "at",
    "stage": "defence",  # GURPS: the first or (All-Out Defence) second defence against one attack
}


def name(key: str) -> str:
    """A field or flag name in words."""
    return NAMES.get(key, key.replace("_", " "))


def _number(v: float, key: str = "") -> str:
    if key.startswith("p_") and 0.0 <= v <= 1.0:
        return f"{100.0 * v:.1f}%"
    if float(v).is_integer():
        return str(int(v))
    return f"{v:.2f}".rstrip("0").rstrip(".")


def value(v: Any, key: str = "") -> str:
    """A value in words (``key`` tells chances, ``p_...``, to write them as percentages)."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        return _number(v, key)
    if isinstance(v, str):
        return v.replace("_", " ") if v.isidentifier() else v
    if isinstance(v, Mapping):
        return ", ".join(phrase(str(k), x) for k, x in v.items()) or "none"
    if isinstance(v, (list, tuple, set, frozenset)):
        items = list(v)
        if len(items) == 2 and all(isinstance(c, float) for c in items):
            return f"({_number(items[0])}, {_number(items[1])})"  # a point
        return ", ".join(value(x, key) for x in items) or "none"
    label = getattr(v, "label", None)  # an Option (e.g. a declaration's priced attacks)
    if isinstance(label, str):
        return label
    return str(v)


def phrase(key: str, v: Any) -> str:
    """``name value`` of one field (``chance to hurt 7.2%``, ``hit yes``)."""
    return f"{name(key)} {value(v, key)}"
