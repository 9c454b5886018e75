"""``skirmish odds defence-dice``: exact odds of aim dice against rolled defence dice.

Contract: for ``--attack-dice`` aim dice against a target whose rolled dodge
and cover dice show ``--defended`` faces (plus ``--unrolled`` dice not rolled
yet, averaged over exactly), prints the chance that at least one attack die
lands (``p_success``), the distribution of landed dice, and with the target's
Armour aimlines, Block charges and memories the chance and expected number of
memories replaced. ``--json`` prints one object. Faces off the aim die or
overlapping armour exit 2.
"""

from __future__ import annotations

import json

import click

from game.dice.aims import AIM_DIE_SIZES, land_odds, parse_aimline, parse_faces


@click.command("defence-dice")
@click.option(
    "--aim-die",
    type=click.Choice([str(s) for s in AIM_DIE_SIZES]),
    default="10",
    show_default=True,
    help="Faces of the aim die.",
)
@click.option("--attack-dice", type=click.IntRange(min=1), required=True, help="Aim dice the attack rolls.")
@click.option(
    "--defended", default="", metavar="A,B,...", help="Faces the target's rolled dodge/cover dice show."
)
@click.option(
    "--unrolled",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Defence dice not rolled yet.",
)
@click.option("--hidden", is_flag=True, help="The attacker is hidden: +1 attack die.")
@click.option(
    "--armour", "armour", multiple=True, metavar="A-B", help="An intact Armour(a-b) memory (repeatable)."
)
@click.option(
    "--blocks", type=click.IntRange(min=0), default=0, show_default=True, help="Block charges left."
)
@click.option("--memories", type=click.IntRange(min=1), help="Intact ordinary memories (default: no limit).")
@click.option("--concussive", is_flag=True, help="Concussive damage: blocked hits still hit.")
@click.option("--control", is_flag=True, help="A control attack: blocked hits still hit.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def defence_dice(
    aim_die: str,
    attack_dice: int,
    defended: str,
    unrolled: int,
    hidden: bool,
    armour: tuple[str, ...],
    blocks: int,
    memories: int | None,
    concussive: bool,
    control: bool,
    as_json: bool,
) -> None:
    """Exact P(at least one attack die lands on the target) and the memories it costs.

    A die lands unless its aim is among the --defended faces (or a face an
    --unrolled die will show). Landed dice on an armoured aim are blocked, the
    first --blocks others are blocked, the rest replace memories; concussive
    and control attacks are blocked but still hit.
    """
    sides = int(aim_die)
    dice = attack_dice + (1 if hidden else 0)
    try:
        faces = parse_faces(defended)
        lines = [parse_aimline(a) for a in armour]
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    bad = sorted(f for f in faces if not 1 <= f <= sides)
    if bad:
        raise click.UsageError(f"--defended {bad}: not faces of a d{sides}")
    covered: set[int] = set()
    for lo, hi in lines:
        if hi > sides:
            raise click.UsageError(f"--armour {lo}-{hi}: off the d{sides}")
        aims = set(range(lo, hi + 1))
        if aims & covered:
            raise click.UsageError(f"--armour {lo}-{hi}: two pieces of armour cannot cover the same aimline")
        covered |= aims
    replaceable = memories if memories is not None else dice
    odds = land_odds(
        sides, dice, faces, unrolled, frozenset(covered), blocks, replaceable, concussive or control
    )
    out = {
        "p_success": odds.p_land,
        "p_per_die": odds.p_per_die,
        "land_pmf": list(odds.land_pmf),
        "p_hurt": odds.p_hurt,
        "expected_damage": odds.expected_damage,
        "damage_pmf": list(odds.damage_pmf),
        "attack_dice": dice,
        "aim_die": sides,
    }
    if as_json:
        click.echo(json.dumps(out))
        return
    shown = ",".join(str(f) for f in sorted(faces)) or "none"
    click.echo(
        f"{dice}d{sides} attack vs defended faces {shown}" + (f" + {unrolled} unrolled" if unrolled else "")
    )
    click.echo(f"  P(at least one lands) = {odds.p_land:.6f} (each die {odds.p_per_die:.4f})")
    click.echo(f"  P(a memory replaced)  = {odds.p_hurt:.6f}")
    click.echo(f"  E[memories | lands]   = {odds.expected_damage:.4f}")
