"""``skirmish odds cortex``: the exact chance that a Cortex attack meets its Difficulty.

Contract: the exact probability that the attack roll meets the Difficulty (a fixed number,
or a rolled defence pool: innate Agility, dodge or block), plus cover and visibility, and
with ``--weapon`` the chance of any damage and the expected stun and wounds of a hit.
``--json`` prints one object with ``p_success`` first. Bad dice or conflicting flags are an
:class:`~game.rules.odds.OddsUsageError`.
"""

from __future__ import annotations

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
from game.rules.cortex.attacks import (
    RANGE_STEPS,
    VISIBILITY_DIFFICULTY,
    cover_table,
    range_table,
    visibility_table,
)
from game.rules.cortex.options import CortexOptions
from game.rules.odds import OddsAnswer, OddsParam, OddsQuery, OddsUsageError

_COVERS = tuple(c.value for c in CoverLevel if c != CoverLevel.TOTAL)


#: Most dice in one pool, and the largest die, a query takes (the exact odds of bigger pools
#: take minutes to count; the ladder's top step is five dice).
MAX_POOL_DICE = 30
MAX_DIE = 100


def _pool(text: str, flag: str) -> Pool:
    if len(text) > 8 * MAX_POOL_DICE:
        raise OddsUsageError(f"{flag}: a pool of at most {MAX_POOL_DICE} dice, got {len(text)} characters")
    try:
        pool = parse_pool(text)
    except ValueError as e:
        raise OddsUsageError(f"{flag}: {e}") from None
    if len(pool) > MAX_POOL_DICE or any(d > MAX_DIE for d in pool):
        raise OddsUsageError(
            f"{flag}: a pool of at most {MAX_POOL_DICE} dice of at most d{MAX_DIE}, got {text.strip()!r}"
        )
    return pool


def _step(text: str, flag: str) -> int:
    try:
        return parse_step(text)
    except ValueError as e:
        raise OddsUsageError(f"{flag}: {e}") from None


def answer(
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
    options: CortexOptions | None = None,
) -> OddsAnswer:
    """The query's answer (see the module docstring), under the ruleset ``options`` (default: the
    text's numbers): cover, visibility and range steps follow them."""
    opts = options if options is not None else CortexOptions()
    if (attack_text is None) == (attribute is None):
        raise OddsUsageError("give exactly one of --attack DICE or --attribute DIE")
    if attack_text is not None and (steps or range_band or skill != "d0"):
        raise OddsUsageError("--skill, --steps and --range go with --attribute, not --attack")
    if (difficulty is None) == (defence_text is None):
        raise OddsUsageError("give exactly one of --difficulty N or --defence DICE")
    if attack_text is not None:
        pool = _pool(attack_text, "--attack")
    else:
        net = steps + (range_table(opts)[range_band] if range_band else 0)
        pool = trait_pool(_step(attribute or "", "--attribute"), _step(skill, "--skill"), net)
    if not pool:
        raise OddsUsageError("the attack has no dice left")
    defence = _pool(defence_text, "--defence") if defence_text is not None else ()
    if visibility == "pitch_black":
        raise OddsUsageError(
            "--visibility pitch_black: the lowest innate roll nearby is hit, not a Difficulty"
        )
    constant = (difficulty or 0) + cover_table(opts)[CoverLevel(cover)] + visibility_table(opts)[visibility]
    p_hit = p_meet_or_beat(pool, defence, constant)
    bonus = constant - (difficulty or 0)
    out: dict[str, object] = {
        "p_success": p_hit,
        "attack": format_pool(pool),
        "difficulty": difficulty if defence_text is None else format_pool(defence),
        "difficulty_bonus": bonus,
    }
    against = f"Difficulty {difficulty}" if defence_text is None else f"a rolled {format_pool(defence)}"
    lines = [
        f"attack {out['attack']} vs {against}" + (f" +{bonus}" if bonus else ""),
        f"  P(hit)      = {p_hit:.6f}",
    ]
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
        lines.append(f"  P(hurt)     = {p_hurt:.6f}")
        lines.append(f"  E[stun|hit] = {e_stun:.4f}, E[wounds|hit] = {e_wounds:.4f}")
    return OddsAnswer(out, tuple(lines))


QUERY = OddsQuery(
    help="""Exact P(a Cortex attack meets its Difficulty); attacks hit on a tie.

    Give the attack as --attack DICE, or as --attribute/--skill with --steps and
    --range (step modifiers come off the skill die first). Give the Difficulty
    as --difficulty N or a rolled --defence DICE.
    """,
    params=(
        OddsParam("attack_text", ("--attack",), metavar="DICE", help="Attack pool as rolled, e.g. d8+d6."),
        OddsParam(
            "attribute", ("--attribute",), metavar="DIE", help="Attribute die (instead of --attack), e.g. d8."
        ),
        OddsParam(
            "skill",
            ("--skill",),
            metavar="DIE",
            default="d0",
            show_default=True,
            help="Skill die with --attribute.",
        ),
        OddsParam(
            "steps",
            ("--steps",),
            int,
            default=0,
            show_default=True,
            help="Net skill steps (with --attribute).",
        ),
        OddsParam(
            "range_band",
            ("--range",),
            choices=tuple(RANGE_STEPS),
            help="Range band: adds its steps (with --attribute).",
        ),
        OddsParam(
            "difficulty",
            ("--difficulty",),
            int,
            help="Fixed Difficulty (3 when the target is caught unaware).",
        ),
        OddsParam(
            "defence_text",
            ("--defence",),
            metavar="DICE",
            help="Rolled Difficulty instead, e.g. d8 or d8+d6.",
        ),
        OddsParam(
            "cover",
            ("--cover",),
            default="none",
            choices=_COVERS,
            show_default=True,
            help="Adds +0/4/8/12/16 (options cover_light .. cover_near_total).",
        ),
        OddsParam(
            "visibility",
            ("--visibility",),
            default="clear",
            choices=tuple(VISIBILITY_DIFFICULTY),
            show_default=True,
            help="dim/light fog +4, dark/thick fog +8.",
        ),
        OddsParam(
            "weapon_text",
            ("--weapon",),
            metavar="DIE",
            help="Weapon damage die, e.g. d6: also report damage odds.",
        ),
        OddsParam("damage_type", ("--type",), default="W", choices=tuple(DAMAGE_TYPES), show_default=True),
        OddsParam(
            "armour",
            ("--armour",),
            int,
            default=0,
            minimum=0,
            show_default=True,
            help="Wound points armour stops.",
        ),
    ),
    answer=answer,
)
