"""``skirmish odds cortex``: exact odds of a Cortex attack against a Difficulty.

Contract: prints the exact probability that the attack roll meets the
Difficulty (a fixed number, or a rolled defence pool: innate Agility, dodge or
block), plus cover and visibility, and with ``--weapon`` the chance of any
damage and the expected stun and wounds of a hit. ``--json`` prints one
object with ``p_success`` first. Bad dice or conflicting flags exit 2.
"""

from __future__ import annotations

import json

import click

from components.sight import CoverLevel
from game.dice.cortex import (
    DAMAGE_TYPES,
    Pool,
    format_pool,
    hit_damage,
    p_meet_or_beat,
    parse_pool,
    parse_step,
    trait_pool,
)
from game.rules.cortex.ruleset import COVER_DIFFICULTY, RANGE_STEPS, VISIBILITY_DIFFICULTY

_COVERS = [c.value for c in CoverLevel if c != CoverLevel.TOTAL]


def _pool(text: str, flag: str) -> Pool:
    try:
        return parse_pool(text)
    except ValueError as e:
        raise click.UsageError(f"{flag}: {e}") from None


def _step(text: str, flag: str) -> int:
    try:
        return parse_step(text)
    except ValueError as e:
        raise click.UsageError(f"{flag}: {e}") from None


@click.command("cortex")
@click.option("--attack", "attack_text", metavar="DICE", help="Attack pool as rolled, e.g. d8+d6.")
@click.option("--attribute", metavar="DIE", help="Attribute die (instead of --attack), e.g. d8.")
@click.option("--skill", metavar="DIE", default="d0", show_default=True, help="Skill die with --attribute.")
@click.option("--steps", type=int, default=0, show_default=True, help="Net skill steps (with --attribute).")
@click.option(
    "--range",
    "range_band",
    type=click.Choice(list(RANGE_STEPS)),
    help="Range band: adds its steps (with --attribute).",
)
@click.option("--difficulty", type=int, help="Fixed Difficulty (3 when the target is caught unaware).")
@click.option(
    "--defence", "defence_text", metavar="DICE", help="Rolled Difficulty instead, e.g. d8 or d8+d6."
)
@click.option(
    "--cover", type=click.Choice(_COVERS), default="none", show_default=True, help="Adds +0/4/8/12/16."
)
@click.option(
    "--visibility",
    type=click.Choice(list(VISIBILITY_DIFFICULTY)),
    default="clear",
    show_default=True,
    help="dim/light fog +4, dark/thick fog +8.",
)
@click.option(
    "--weapon", "weapon_text", metavar="DIE", help="Weapon damage die, e.g. d6: also report damage odds."
)
@click.option("--type", "damage_type", type=click.Choice(DAMAGE_TYPES), default="W", show_default=True)
@click.option(
    "--armour", type=click.IntRange(min=0), default=0, show_default=True, help="Wound points armour stops."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def cortex(
    attack_text: str | None,
    attribute: str | None,
    skill: str,
    steps: int,
    range_band: str | None,
    difficulty: int | None,
    defence_text: str | None,
    cover: str,
    visibility: str,
    weapon_text: str | None,
    damage_type: str,
    armour: int,
    as_json: bool,
) -> None:
    """Exact P(a Cortex attack meets its Difficulty); attacks hit on a tie.

    Give the attack as --attack DICE, or as --attribute/--skill with --steps and
    --range (step modifiers come off the skill die first). Give the Difficulty
    as --difficulty N or a rolled --defence DICE.
    """
    if (attack_text is None) == (attribute is None):
        raise click.UsageError("give exactly one of --attack DICE or --attribute DIE")
    if attack_text is not None and (steps or range_band or skill != "d0"):
        raise click.UsageError("--skill, --steps and --range go with --attribute, not --attack")
    if (difficulty is None) == (defence_text is None):
        raise click.UsageError("give exactly one of --difficulty N or --defence DICE")
    if attack_text is not None:
        pool = _pool(attack_text, "--attack")
    else:
        net = steps + (RANGE_STEPS[range_band] if range_band else 0)
        pool = trait_pool(_step(attribute or "", "--attribute"), _step(skill, "--skill"), net)
    if not pool:
        raise click.UsageError("the attack has no dice left")
    defence = _pool(defence_text, "--defence") if defence_text is not None else ()
    constant = (difficulty or 0) + COVER_DIFFICULTY[CoverLevel(cover)] + VISIBILITY_DIFFICULTY[visibility]
    out: dict[str, object] = {
        "p_success": p_meet_or_beat(pool, defence, constant),
        "attack": format_pool(pool),
        "difficulty": difficulty if defence_text is None else format_pool(defence),
        "difficulty_bonus": constant - (difficulty or 0),
    }
    if weapon_text is not None:
        weapon = _pool(weapon_text, "--weapon")
        _, p_hurt, e_stun, e_wounds = hit_damage(pool, defence, constant, weapon, damage_type, armour)
        out.update(
            {
                "p_hurt": p_hurt,
                "expected_stun": e_stun,
                "expected_wounds": e_wounds,
                "expected_damage": e_stun + e_wounds,
            }
        )
    if as_json:
        click.echo(json.dumps(out))
        return
    against = f"Difficulty {difficulty}" if defence_text is None else f"a rolled {format_pool(defence)}"
    bonus = int(out["difficulty_bonus"])  # type: ignore[call-overload]
    click.echo(f"attack {out['attack']} vs {against}" + (f" +{bonus}" if bonus else ""))
    click.echo(f"  P(hit)      = {out['p_success']:.6f}")
    if weapon_text is not None:
        click.echo(f"  P(hurt)     = {out['p_hurt']:.6f}")
        click.echo(
            f"  E[stun|hit] = {out['expected_stun']:.4f}, E[wounds|hit] = {out['expected_wounds']:.4f}"
        )
