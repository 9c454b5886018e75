"""``skirmish odds aff``: exact AFF damage odds of one hit against a protection.

Contract: for a weapon damage track and the defender's protection (Dodge
protection track row, armour track, shield), prints the exact chance that the
hit harms nothing (``p_no_damage``) and the expected damage. The standard
Dodge restrictions apply unless ``--ubiquitous``: a forbidden dodge (no
Swashbuckler talent, wearing armour, no Dodge skill) exits 2. Optional
``--attack-score/--defence-score`` (melee) or ``--missile-target`` add the
chance to hit and to hurt. ``--json`` prints one object.
"""

from __future__ import annotations

import json

import click

from game.dice.aff import damage_pmf, expected_damage, p_no_damage, p_opposed, p_roll_under, parse_track
from game.rules.aff.ruleset import ARMOUR_TRAINING, SWASHBUCKLER, AffArmour, AffStats, AffWeapon, protections


def _track(text: str, flag: str) -> tuple[int, ...]:
    try:
        return parse_track(text)
    except ValueError as e:
        raise click.UsageError(f"{flag}: {e}") from None


@click.command("aff")
@click.option(
    "--weapon-track", required=True, metavar="T1,...,T7", help="Weapon damage track (rolls 1-6, 7+)."
)
@click.option(
    "--dodge-skill", type=click.IntRange(min=0), default=0, show_default=True, help="Dodge special skill."
)
@click.option("--swashbuckler", is_flag=True, help="The defender has the Swashbuckler talent.")
@click.option("--ubiquitous", is_flag=True, help="Use the Ubiquitous Dodging alternative rule.")
@click.option("--armour-track", metavar="T1,...,T7", help="The defender wears armour with this track.")
@click.option("--armour-training", is_flag=True, help="Armour Training talent (+1 to armour rolls).")
@click.option("--shield", is_flag=True, help="The defender carries a shield.")
@click.option("--shield-bonus", type=click.IntRange(min=0), default=1, show_default=True)
@click.option(
    "--protection",
    type=click.Choice(["dodge", "armour", "none"]),
    help="Protection rolled (default: dodge with --dodge-skill, else armour if any, else none).",
)
@click.option(
    "--attack-score", type=int, help="Melee: attacker SKILL + special skill (with --defence-score)."
)
@click.option("--defence-score", type=int, help="Melee: defender SKILL + special skill.")
@click.option("--missile-target", type=int, help="Missile: roll-under target (SKILL + skill + modifiers).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def aff(
    weapon_track: str,
    dodge_skill: int,
    swashbuckler: bool,
    ubiquitous: bool,
    armour_track: str | None,
    armour_training: bool,
    shield: bool,
    shield_bonus: int,
    protection: str | None,
    attack_score: int | None,
    defence_score: int | None,
    missile_target: int | None,
    as_json: bool,
) -> None:
    """Exact P(no damage) and E[damage] of one AFF hit: weapon track minus protection track.

    Dodge rows 1-6 are the rules table (higher skills read row 6). Under the
    standard rules only a Swashbuckler out of armour may dodge, and a dodge
    gets no shield bonus; with --ubiquitous any Dodge skill may dodge,
    Swashbuckler adds +1 and a shield adds its bonus to the dodge roll.
    """
    track = _track(weapon_track, "--weapon-track")
    talents = tuple(t for t, on in ((SWASHBUCKLER, swashbuckler), (ARMOUR_TRAINING, armour_training)) if on)
    stats = AffStats(
        skill=1,
        stamina=1,
        special_skills={"dodge": dodge_skill},
        talents=talents,
        armour=AffArmour(name="armour", track=_track(armour_track, "--armour-track"))
        if armour_track
        else None,
        shield=shield,
        shield_bonus=shield_bonus,
        weapons=(AffWeapon(name="weapon", kind="melee", skill="weapon", track=track),),
    )
    choices, forbidden = protections(stats, ubiquitous)
    wanted = protection or ("dodge" if dodge_skill else "armour" if (armour_track or shield) else "none")
    if wanted in forbidden:
        rules = "ubiquitous dodging" if ubiquitous else "standard rules"
        raise click.UsageError(f"{wanted} is not allowed ({rules}): {forbidden[wanted]}")
    if (attack_score is None) != (defence_score is None):
        raise click.UsageError("--attack-score and --defence-score go together")
    if attack_score is not None and missile_target is not None:
        raise click.UsageError(
            "give a melee (--attack-score/--defence-score) or a missile (--missile-target) roll"
        )
    chosen = next(c for c in choices if c.kind == wanted)
    pmf = damage_pmf(track, chosen.track, 0, chosen.bonus)
    out: dict[str, object] = {
        "p_no_damage": p_no_damage(track, chosen.track, 0, chosen.bonus),
        "expected_damage": expected_damage(track, chosen.track, 0, chosen.bonus),
        "protection": wanted,
        "protection_track": list(chosen.track),
        "roll_bonus": chosen.bonus,
        "damage_pmf": [float(p) for p in pmf],
    }
    p_hit: float | None = None
    if attack_score is not None and defence_score is not None:
        win, tie, _ = p_opposed(attack_score, defence_score)
        p_hit = win
        out["p_tie"] = tie
    elif missile_target is not None:
        p_hit = p_roll_under(missile_target)
    if p_hit is not None:
        out["p_hit"] = p_hit
        out["p_hurt"] = p_hit * (1.0 - float(out["p_no_damage"]))  # type: ignore[arg-type]
    if as_json:
        click.echo(json.dumps(out))
        return
    bonus = f" +{chosen.bonus}" if chosen.bonus else ""
    click.echo(f"weapon track {list(track)} vs {wanted} track {list(chosen.track)}{bonus}")
    click.echo(f"  P(no damage) = {out['p_no_damage']:.6f}")
    click.echo(f"  E[damage]    = {out['expected_damage']:.4f}")
    if p_hit is not None:
        click.echo(f"  P(hit)       = {p_hit:.6f}, P(hurt) = {out['p_hurt']:.6f}")
