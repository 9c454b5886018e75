"""``skirmish odds defence-dice``: exact odds of aim dice against rolled defence dice.

Contract: for ``--attack-dice`` aim dice against a target whose rolled dodge and cover dice
show ``--defended`` faces (plus ``--unrolled`` dice not rolled yet, averaged over exactly),
the chance that at least one attack die lands (``p_success``), the distribution of landed
dice, and with the target's Armour aimlines, Block memories (hits may target them; immune
to normal hits), blocks for other memories left and ordinary memories the chance and
expected number of memories replaced. ``--json`` prints one object. Faces off the aim die or
overlapping armour are an :class:`~game.rules.odds.OddsUsageError`.
"""

from __future__ import annotations

from game.dice.aims import AIM_DIE_SIZES, land_odds, parse_aimline, parse_faces
from game.rules.defence_dice.options import DDOptions
from game.rules.odds import OddsAnswer, OddsParam, OddsQuery, OddsUsageError


def answer(
    aim_die: str,
    attack_dice: int,
    defended: str,
    unrolled: int,
    hidden: bool,
    armour: tuple[str, ...],
    blocks: int,
    block_memories: int,
    memories: int | None,
    concussive: bool,
    control: bool,
    options: DDOptions | None = None,
) -> OddsAnswer:
    """The query's answer (see the module docstring), under the ruleset ``options`` (default:
    the text's numbers): a hidden attacker's extra dice follow them."""
    opts = options if options is not None else DDOptions()
    sides = int(aim_die)
    dice = attack_dice + (opts.hidden_attack_dice if hidden and opts.hiding else 0)
    try:
        faces = parse_faces(defended)
        lines = [parse_aimline(a) for a in armour]
    except ValueError as e:
        raise OddsUsageError(str(e)) from None
    bad = sorted(f for f in faces if not 1 <= f <= sides)
    if bad:
        raise OddsUsageError(f"--defended {bad}: not faces of a d{sides}")
    covered: set[int] = set()
    for lo, hi in lines:
        if hi > sides:
            raise OddsUsageError(f"--armour {lo}-{hi}: off the d{sides}")
        aims = set(range(lo, hi + 1))
        if aims & covered:
            raise OddsUsageError(f"--armour {lo}-{hi}: two pieces of armour cannot cover the same aimline")
        covered |= aims
    replaceable = memories if memories is not None else dice
    odds = land_odds(
        sides,
        dice,
        faces,
        unrolled,
        frozenset(covered),
        blocks,
        replaceable,
        concussive or control,
        block_memories,
    )
    shown = ",".join(str(f) for f in sorted(faces)) or "none"
    return OddsAnswer(
        {
            "p_success": odds.p_land,
            "p_per_die": odds.p_per_die,
            "land_pmf": list(odds.land_pmf),
            "p_hurt": odds.p_hurt,
            "expected_damage": odds.expected_damage,
            "damage_pmf": list(odds.damage_pmf),
            "attack_dice": dice,
            "aim_die": sides,
        },
        (
            f"{dice}d{sides} attack vs defended faces {shown}"
            + (f" + {unrolled} unrolled" if unrolled else ""),
            f"  P(at least one lands) = {odds.p_land:.6f} (each die {odds.p_per_die:.4f})",
            f"  P(a memory replaced)  = {odds.p_hurt:.6f}",
            f"  E[memories | lands]   = {odds.expected_damage:.4f}",
        ),
    )


QUERY = OddsQuery(
    help="""Exact P(at least one attack die lands on the target) and the memories it costs.

    A die lands unless its aim is among the --defended faces (or a face an
    --unrolled die will show). Landed dice on an armoured aim are blocked; each
    other one targets a random memory: a Block memory blocks it, an ordinary one
    is replaced unless one of the --blocks for other memories is left.
    Concussive and control attacks are blocked but still hit.
    """,
    params=(
        OddsParam(
            "aim_die",
            ("--aim-die",),
            default="10",
            choices=tuple(str(s) for s in AIM_DIE_SIZES),
            show_default=True,
            help="Faces of the aim die.",
        ),
        OddsParam(
            "attack_dice",
            ("--attack-dice",),
            int,
            required=True,
            minimum=1,
            help="Aim dice the attack rolls.",
        ),
        OddsParam(
            "defended",
            ("--defended",),
            default="",
            metavar="A,B,...",
            help="Faces the target's rolled dodge/cover dice show.",
        ),
        OddsParam(
            "unrolled",
            ("--unrolled",),
            int,
            default=0,
            minimum=0,
            show_default=True,
            help="Defence dice not rolled yet.",
        ),
        OddsParam(
            "hidden",
            ("--hidden",),
            bool,
            help="The attacker is hidden: +1 attack die (option hidden_attack_dice).",
        ),
        OddsParam(
            "armour",
            ("--armour",),
            multiple=True,
            metavar="A-B",
            help="An intact Armour(a-b) memory (repeatable).",
        ),
        OddsParam(
            "blocks",
            ("--blocks",),
            int,
            default=0,
            minimum=0,
            show_default=True,
            help="Blocks for other memories left this round (a Block(N) memory has N-1 a round).",
        ),
        OddsParam(
            "block_memories",
            ("--block-memories",),
            int,
            default=0,
            minimum=0,
            show_default=True,
            help="Intact Block(N) memories: hits may target them, and normal hits on them are blocked.",
        ),
        OddsParam(
            "memories", ("--memories",), int, minimum=1, help="Intact ordinary memories (default: no limit)."
        ),
        OddsParam("concussive", ("--concussive",), bool, help="Concussive damage: blocked hits still hit."),
        OddsParam("control", ("--control",), bool, help="A control attack: blocked hits still hit."),
    ),
    answer=answer,
)
