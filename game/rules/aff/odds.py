"""``skirmish odds aff``: exact AFF damage odds of one hit against a protection.

Contract: for a weapon damage track and the defender's protection (Dodge protection track
row, armour track, shield), the exact chance that the hit harms nothing (``p_no_damage``)
and the expected damage. The standard Dodge restrictions apply unless ``--ubiquitous``: a
forbidden dodge (no Swashbuckler talent, wearing armour, no Dodge skill) is an
:class:`~game.rules.odds.OddsUsageError`, as are unreadable tracks and rolls that do not go
together. Optional ``--attack-score/--defence-score`` (melee) or ``--missile-target`` add
the chance to hit and to hurt. ``--json`` prints one object. The talents' bonuses are the
ruleset's options (``--option``: ``armour_training_bonus``, ``swashbuckler_dodge_bonus``;
``ubiquitous`` as the flag), given to ``answer`` as ``options``.
"""

from __future__ import annotations

from game.dice.aff import damage_pmf, expected_damage, p_no_damage, p_opposed, p_roll_under, parse_track
from game.rules.aff.options import DEFAULTS, AffOptions
from game.rules.aff.ruleset import ARMOUR_TRAINING, SWASHBUCKLER, AffArmour, AffStats, AffWeapon, protections
from game.rules.odds import OddsAnswer, OddsParam, OddsQuery, OddsUsageError

TRACK = "T1,...,T7"


def _track(text: str, flag: str) -> tuple[int, ...]:
    try:
        return parse_track(text)
    except ValueError as e:
        raise OddsUsageError(f"{flag}: {e}") from None


def answer(
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
    options: AffOptions = DEFAULTS,
) -> OddsAnswer:
    """The query's answer (see the module docstring), under the ruleset's ``options``."""
    ubiquitous = ubiquitous or options.ubiquitous
    bonuses = (options.armour_training_bonus, options.swashbuckler_dodge_bonus)
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
    choices, forbidden = protections(stats, ubiquitous, bonuses=bonuses)
    wanted = protection or ("dodge" if dodge_skill else "armour" if (armour_track or shield) else "none")
    if wanted in forbidden:
        rules = "ubiquitous dodging" if ubiquitous else "standard rules"
        raise OddsUsageError(f"{wanted} is not allowed ({rules}): {forbidden[wanted]}")
    if (attack_score is None) != (defence_score is None):
        raise OddsUsageError("--attack-score and --defence-score go together")
    if attack_score is not None and missile_target is not None:
        raise OddsUsageError(
            "give a melee (--attack-score/--defence-score) or a missile (--missile-target) roll"
        )
    chosen = next(c for c in choices if c.kind == wanted)
    pmf = damage_pmf(track, chosen.track, 0, chosen.bonus)
    p_none = p_no_damage(track, chosen.track, 0, chosen.bonus)
    expected = expected_damage(track, chosen.track, 0, chosen.bonus)
    out: dict[str, object] = {
        "p_no_damage": p_none,
        "expected_damage": expected,
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
    bonus = f" +{chosen.bonus}" if chosen.bonus else ""
    lines = [
        f"weapon track {list(track)} vs {wanted} track {list(chosen.track)}{bonus}",
        f"  P(no damage) = {p_none:.6f}",
        f"  E[damage]    = {expected:.4f}",
    ]
    if p_hit is not None:
        p_hurt = p_hit * (1.0 - float(p_none))
        out["p_hit"] = p_hit
        out["p_hurt"] = p_hurt
        lines.append(f"  P(hit)       = {p_hit:.6f}, P(hurt) = {p_hurt:.6f}")
    return OddsAnswer(out, tuple(lines))


QUERY = OddsQuery(
    help="""Exact P(no damage) and E[damage] of one AFF hit: weapon track minus protection track.

    Dodge rows 1-6 are the rules table (higher skills read row 6). Under the
    standard rules only a Swashbuckler out of armour may dodge, and a dodge
    gets no shield bonus; with --ubiquitous any Dodge skill may dodge,
    Swashbuckler adds +1 and a shield adds its bonus to the dodge roll.
    """,
    params=(
        OddsParam(
            "weapon_track",
            ("--weapon-track",),
            required=True,
            metavar=TRACK,
            help="Weapon damage track (rolls 1-6, 7+).",
        ),
        OddsParam(
            "dodge_skill",
            ("--dodge-skill",),
            int,
            default=0,
            minimum=0,
            show_default=True,
            help="Dodge special skill.",
        ),
        OddsParam(
            "swashbuckler", ("--swashbuckler",), bool, help="The defender has the Swashbuckler talent."
        ),
        OddsParam("ubiquitous", ("--ubiquitous",), bool, help="Use the Ubiquitous Dodging alternative rule."),
        OddsParam(
            "armour_track",
            ("--armour-track",),
            metavar=TRACK,
            help="The defender wears armour with this track.",
        ),
        OddsParam(
            "armour_training",
            ("--armour-training",),
            bool,
            help="Armour Training talent (+1 to armour rolls).",
        ),
        OddsParam("shield", ("--shield",), bool, help="The defender carries a shield."),
        OddsParam("shield_bonus", ("--shield-bonus",), int, default=1, minimum=0, show_default=True),
        OddsParam(
            "protection",
            ("--protection",),
            choices=("dodge", "armour", "none"),
            help="Protection rolled (default: dodge with --dodge-skill, else armour if any, else none).",
        ),
        OddsParam(
            "attack_score",
            ("--attack-score",),
            int,
            help="Melee: attacker SKILL + special skill (with --defence-score).",
        ),
        OddsParam("defence_score", ("--defence-score",), int, help="Melee: defender SKILL + special skill."),
        OddsParam(
            "missile_target",
            ("--missile-target",),
            int,
            help="Missile: roll-under target (SKILL + skill + modifiers).",
        ),
    ),
    answer=answer,
)
