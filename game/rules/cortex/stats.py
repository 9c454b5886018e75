"""Cortex stat blocks: trait dice, skills, armour and weapons (``cortex:`` in profiles.yaml).

Contract: :class:`CortexStats` validates one profile block (unknown keys, bad dice, duplicate
weapon names are errors) and answers trait steps: :meth:`CortexStats.attr`,
:meth:`CortexStats.skill` (the better of a specialty and its general skill),
:meth:`CortexStats.block_skill`, and :attr:`CortexStats.life_points`. Traits are step dice
(``game.dice.cortex``), as in shared/rules/cortex-actions-defense-damage.txt ("Agility +
Alertness", "Agility + Athletics/Dodge", "Vitality + Willpower"); where the text is silent,
life points are the Vitality + Willpower die maxima and a weapon's damage rating is a die rolled
on a hit (docs/rulesets/cortex.md). Steps are memoised per frozen block.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from game.dice.cortex import Pool, parse_pool, parse_step, step_dice
from game.rules.base import BlockMemo, StrictModel

#: Skill used to block without a melee weapon.
UNARMED_SKILL = "unarmed_combat"

Attribute = Literal["agility", "strength", "vitality", "alertness", "intelligence", "willpower"]


def _step_text(v: Any) -> str:
    parse_step(str(v))
    return str(v)


class CortexWeapon(StrictModel):
    """A weapon: the skill it uses (``general`` or ``general/specialty``) and its damage.

    ``damage`` is a step die rolled on a hit; ``reach`` (melee) and
    ``range_increment`` (ranged, thrown) are yards.
    """

    name: str
    kind: Literal["melee", "ranged", "thrown"]
    skill: str
    attribute: Attribute = "agility"
    damage: str
    damage_type: Literal["W", "S", "B"]
    reach: float = Field(default=1.0, ge=0.0)
    range_increment: float | None = Field(default=None, gt=0.0)

    @field_validator("damage")
    @classmethod
    def _damage_die(cls, v: str) -> str:
        parse_pool(v)
        return v

    @model_validator(mode="after")
    def _check(self) -> CortexWeapon:
        if self.kind != "melee" and self.range_increment is None:
            raise ValueError(f"{self.kind} weapon {self.name!r} needs range_increment (yards)")
        return self

    @property
    def damage_dice(self) -> Pool:
        return parse_pool(self.damage)


class CortexStats(StrictModel):
    """A Cortex stat block: six attribute dice, skill dice, armour and weapons."""

    agility: str
    strength: str
    vitality: str
    alertness: str
    intelligence: str
    willpower: str
    skills: dict[str, str] = Field(default_factory=dict)
    armour: int = Field(default=0, ge=0)
    weapons: tuple[CortexWeapon, ...] = Field(min_length=1)

    @field_validator("agility", "strength", "vitality", "alertness", "intelligence", "willpower")
    @classmethod
    def _attribute_die(cls, v: str) -> str:
        if parse_step(str(v)) < 1:
            raise ValueError("an attribute is at least d2")
        return str(v)

    @field_validator("skills")
    @classmethod
    def _skill_dice(cls, v: dict[str, str]) -> dict[str, str]:
        for name, die in v.items():
            if not name or name.count("/") > 1:
                raise ValueError(f"skill name {name!r}: write general or general/specialty")
            _step_text(die)
        return v

    @model_validator(mode="after")
    def _unique_weapons(self) -> CortexStats:
        names = [w.name for w in self.weapons]
        if len(set(names)) != len(names):
            raise ValueError("weapon names must be unique")
        return self

    def attr(self, name: str) -> int:
        """Step of an attribute."""
        return _ATTR_STEPS.get(self, name, lambda: parse_step(getattr(self, name)))

    def skill(self, name: str) -> int:
        """Step of ``general/specialty`` (the better of the specialty and its general skill)."""

        def step() -> int:
            general = name.split("/")[0]
            return max((parse_step(self.skills[k]) for k in (name, general) if k in self.skills), default=0)

        return _SKILL_STEPS.get(self, name, step)

    def weapon(self, name: str) -> CortexWeapon:
        for w in self.weapons:
            if w.name == name:
                return w
        raise KeyError(name)

    @property
    def life_points(self) -> int:
        return sum(step_dice(self.attr("vitality"))) + sum(step_dice(self.attr("willpower")))

    def block_skill(self) -> int:
        """Best melee skill step for a block (unarmed combat without a melee weapon)."""
        melee = [self.skill(w.skill) for w in self.weapons if w.kind == "melee"]
        return max([*melee, self.skill(UNARMED_SKILL)])


#: Trait steps per stat block: every attack option and defence of every decision reads them
#: again, and a frozen block never changes them.
_ATTR_STEPS = BlockMemo()
_SKILL_STEPS = BlockMemo()

TROOPER = CortexStats(
    agility="d8",
    strength="d6",
    vitality="d6",
    alertness="d6",
    intelligence="d6",
    willpower="d6",
    skills={"melee_weapons": "d6", "ranged_weapons": "d4", "athletics": "d4"},
    armour=2,
    weapons=(
        CortexWeapon(
            name="short sword", kind="melee", skill="melee_weapons/swords", damage="d4", damage_type="W"
        ),
        CortexWeapon(
            name="crossbow",
            kind="ranged",
            skill="ranged_weapons/crossbows",
            damage="d6",
            damage_type="W",
            range_increment=20,
        ),
    ),
)
