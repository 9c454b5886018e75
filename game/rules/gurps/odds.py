"""``skirmish odds gurps``: the exact chance that one GURPS active defence succeeds (DESIGN §4).

Contract: ``odds gurps --defense N [--kind dodge|parry|block] [--retreat] [--fencing]
[--drop --ranged] [--acrobatic SKILL] [--json]`` (``--defence`` is accepted too): the exact
probability that an active defence of score N succeeds (3d6 <= effective score, 3-4 always
succeed, 17-18 always fail), with the retreat, dodge-and-drop and Acrobatic Dodge rules of
shared/rules/gurps-active-defense.txt. A combination those rules forbid is
:class:`~game.rules.odds.OddsForbidden`. ``--json`` prints exactly ``{"p_success": x}``;
otherwise the effective score, its modifiers and the probability as a decimal and an exact
fraction. The numbers (the retreat and drop bonuses, the acrobatic bonus) are the ruleset's
options: ``answer`` and :func:`gurps_odds` take them as ``options`` (the text's by default), and a
mechanic switched off (``retreat``, ``dodge_and_drop``, ``acrobatic_dodge``) is forbidden.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from game.dice.gurps import p_success_exact
from game.rules.gurps.options import DEFAULTS, GurpsOptions
from game.rules.odds import OddsAnswer, OddsForbidden, OddsParam, OddsQuery

KINDS = ("dodge", "parry", "block")


@dataclass(frozen=True)
class GurpsOdds:
    """The exact chance of one defence, with how its score was made up."""

    p: Fraction
    eff: int  # before the Acrobatics roll
    modifiers: tuple[tuple[str, int], ...]
    acrobatic: int | None


def gurps_odds(
    defence: int,
    kind: str = "dodge",
    retreat: bool = False,
    fencing: bool = False,
    drop: bool = False,
    ranged: bool = False,
    acrobatic: int | None = None,
    options: GurpsOptions = DEFAULTS,
) -> GurpsOdds:
    """Exact odds of a GURPS active defence under ``options``; :class:`OddsForbidden` for a
    forbidden combination."""
    if kind not in KINDS:
        raise OddsForbidden(f"--kind must be dodge, parry or block, not {kind!r}")
    if drop and not ranged:
        raise OddsForbidden("--drop needs --ranged: dodge-and-drop works only against ranged attacks")
    if drop and kind != "dodge":
        raise OddsForbidden(f"--drop is a dodge option, not a {kind} option")
    if retreat and ranged:
        raise OddsForbidden("--retreat works only against melee attacks, not with --ranged")
    if fencing and kind != "parry":
        raise OddsForbidden(f"--fencing changes a parry's retreat bonus; it does not apply to a {kind}")
    if acrobatic is not None and kind != "dodge":
        raise OddsForbidden(f"--acrobatic is a dodge option, not a {kind} option")
    for given, on, flag, name in (
        (retreat, options.retreat and options.retreats_per_turn > 0, "--retreat", "retreat"),
        (drop, options.dodge_and_drop, "--drop", "dodge_and_drop"),
        (acrobatic is not None, options.acrobatic_dodge, "--acrobatic", "acrobatic_dodge"),
    ):
        if given and not on:
            raise OddsForbidden(f"{flag}: the gurps option {name} switches it off")
    mods: list[tuple[str, int]] = [(kind.capitalize(), defence)]
    if retreat:
        if kind == "dodge":
            mods.append(("retreat", options.retreat_dodge))
        elif fencing:
            mods.append(("retreat (fencing parry)", options.retreat_parry_fencing))
        else:
            mods.append(("retreat", options.retreat_parry_block))
    if drop:
        mods.append(("dodge and drop", options.drop_dodge))
    eff = sum(v for _, v in mods)
    if acrobatic is None:
        p = p_success_exact(eff)
    else:
        bonus = options.acrobatic_bonus
        pa = p_success_exact(acrobatic)
        p = pa * p_success_exact(eff + bonus) + (1 - pa) * p_success_exact(eff - bonus)
    return GurpsOdds(p, eff, tuple(mods), acrobatic)


def answer(
    defence: int,
    kind: str,
    retreat: bool,
    fencing: bool,
    drop: bool,
    ranged: bool,
    acrobatic: int | None,
    options: GurpsOptions = DEFAULTS,
) -> OddsAnswer:
    """The query's answer under ``options``: ``{"p_success": x}`` and the score, its modifiers
    and the fraction."""
    got = gurps_odds(defence, kind, retreat, fencing, drop, ranged, acrobatic, options)
    parts = " ".join(f"{'+' if v >= 0 and i else ''}{v} {name}" for i, (name, v) in enumerate(got.modifiers))
    lines = [f"effective {kind}: {got.eff}  ({parts})"]
    if got.acrobatic is not None:
        lines.append(
            f"acrobatic dodge: Acrobatics-{got.acrobatic} roll first; "
            f"{got.eff + options.acrobatic_bonus} if it succeeds, "
            f"{got.eff - options.acrobatic_bonus} if it fails"
        )
    lines.append(f"p_success: {float(got.p):.6f}  ({got.p.numerator}/{got.p.denominator})")
    return OddsAnswer({"p_success": float(got.p)}, tuple(lines))


QUERY = OddsQuery(
    help="GURPS: P(3d6 <= effective defence), 3-4 always succeed, 17-18 always fail.",
    params=(
        OddsParam(
            "defence",
            ("--defense", "--defence"),
            int,
            required=True,
            help="Active defence score (Dodge, Parry or Block).",
        ),
        OddsParam("kind", ("--kind",), default="dodge", choices=KINDS, show_default=True),
        OddsParam(
            "retreat",
            ("--retreat",),
            bool,
            help="Retreat (melee only): +3 Dodge, +1 Parry/Block (+3 fencing parry).",
        ),
        OddsParam(
            "fencing",
            ("--fencing",),
            bool,
            help="The parry uses a fencing skill (or Boxing/Judo/Karate).",
        ),
        OddsParam("drop", ("--drop",), bool, help="Dodge-and-drop (+3, ranged attacks only)."),
        OddsParam("ranged", ("--ranged",), bool, help="The attack is a ranged one."),
        OddsParam(
            "acrobatic",
            ("--acrobatic",),
            int,
            minimum=1,
            metavar="SKILL",
            help="Acrobatic Dodge with this Acrobatics skill.",
        ),
    ),
    answer=answer,
    json_help='Print {"p_success": x}.',
)
