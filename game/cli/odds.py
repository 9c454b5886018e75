"""``skirmish odds RULESET ...``: exact odds of one defence (DESIGN §4).

Contract:
- ``odds gurps --defense N [--kind dodge|parry|block] [--retreat] [--fencing]
  [--drop --ranged] [--acrobatic SKILL] [--json]`` prints the exact
  probability that an active defence of score N succeeds (3d6 <= effective
  score, 3-4 always succeed, 17-18 always fail), with the retreat,
  dodge-and-drop and Acrobatic Dodge rules of
  shared/rules/gurps-active-defense.txt. A combination those rules forbid is
  an error: exit status 2 and one line on stderr.
- ``odds ap-pool --dice N --vs S [--json]``: P(a pool of N d6, 5-6 succeeding,
  meets or beats S successes) (shared/rules/ap-dodge-reaction.txt).
- ``--json`` prints exactly ``{"p_success": x}``; otherwise the effective score,
  its modifiers and the probability as a decimal and an exact fraction.
- ``cortex``, ``aff`` and ``defence-dice`` come from ``game.cli.odds_cortex``,
  ``game.cli.odds_aff`` and ``game.cli.odds_defence_dice`` (each exposing a click
  command of that name), imported only when used and listed only once installed.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from dataclasses import dataclass
from fractions import Fraction

import click

from game.dice.gurps import ACROBATIC_BONUS, p_success_exact
from game.dice.pools import p_at_least_exact
from game.rules.gurps.defence import DROP_DODGE, RETREAT_DODGE, RETREAT_PARRY_BLOCK, RETREAT_PARRY_FENCING

#: Subcommands written elsewhere: name -> (module, attribute).
EXTERNAL: dict[str, tuple[str, str]] = {
    "cortex": ("game.cli.odds_cortex", "cortex"),
    "aff": ("game.cli.odds_aff", "aff"),
    "defence-dice": ("game.cli.odds_defence_dice", "defence_dice"),
}


class OddsError(click.ClickException):
    """A combination the rules forbid: one line, exit status 2."""

    exit_code = 2


class OddsGroup(click.Group):
    """The built-in subcommands plus the lazily imported ones of :data:`EXTERNAL`."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        extra = [n for n, (mod, _) in EXTERNAL.items() if importlib.util.find_spec(mod) is not None]
        return sorted({*super().list_commands(ctx), *extra})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        cmd = super().get_command(ctx, cmd_name)
        if cmd is not None or cmd_name not in EXTERNAL:
            return cmd
        module, attr = EXTERNAL[cmd_name]
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name == module:
                return None
            raise
        found = getattr(mod, attr, None) or getattr(mod, cmd_name.replace("-", "_"), None)
        return found if isinstance(found, click.Command) else None


@dataclass(frozen=True)
class GurpsOdds:
    """An answer of ``odds gurps``."""

    p: Fraction
    eff: int  # before the Acrobatics roll
    modifiers: tuple[tuple[str, int], ...]
    acrobatic: int | None


def gurps_odds(
    defense: int,
    kind: str = "dodge",
    retreat: bool = False,
    fencing: bool = False,
    drop: bool = False,
    ranged: bool = False,
    acrobatic: int | None = None,
) -> GurpsOdds:
    """Exact odds of a GURPS active defence; ``ValueError`` for a forbidden combination."""
    if kind not in ("dodge", "parry", "block"):
        raise ValueError(f"--kind must be dodge, parry or block, not {kind!r}")
    if drop and not ranged:
        raise ValueError("--drop needs --ranged: dodge-and-drop works only against ranged attacks")
    if drop and kind != "dodge":
        raise ValueError(f"--drop is a dodge option, not a {kind} option")
    if retreat and ranged:
        raise ValueError("--retreat works only against melee attacks, not with --ranged")
    if fencing and kind != "parry":
        raise ValueError(f"--fencing changes a parry's retreat bonus; it does not apply to a {kind}")
    if acrobatic is not None and kind != "dodge":
        raise ValueError(f"--acrobatic is a dodge option, not a {kind} option")
    mods: list[tuple[str, int]] = [(kind.capitalize(), defense)]
    if retreat:
        if kind == "dodge":
            mods.append(("retreat", RETREAT_DODGE))
        elif fencing:
            mods.append(("retreat (fencing parry)", RETREAT_PARRY_FENCING))
        else:
            mods.append(("retreat", RETREAT_PARRY_BLOCK))
    if drop:
        mods.append(("dodge and drop", DROP_DODGE))
    eff = sum(v for _, v in mods)
    if acrobatic is None:
        p = p_success_exact(eff)
    else:
        pa = p_success_exact(acrobatic)
        p = pa * p_success_exact(eff + ACROBATIC_BONUS) + (1 - pa) * p_success_exact(eff - ACROBATIC_BONUS)
    return GurpsOdds(p, eff, tuple(mods), acrobatic)


@click.group(cls=OddsGroup, name="odds", context_settings={"help_option_names": ["-h", "--help"]})
def odds() -> None:
    """Exact odds of a defence under a ruleset."""


@odds.command("gurps")
@click.option(
    "--defense",
    "--defence",
    "defense",
    type=int,
    required=True,
    help="Active defence score (Dodge, Parry or Block).",
)
@click.option("--kind", type=click.Choice(["dodge", "parry", "block"]), default="dodge", show_default=True)
@click.option(
    "--retreat", is_flag=True, help="Retreat (melee only): +3 Dodge, +1 Parry/Block (+3 fencing parry)."
)
@click.option("--fencing", is_flag=True, help="The parry uses a fencing skill (or Boxing/Judo/Karate).")
@click.option("--drop", is_flag=True, help="Dodge-and-drop (+3, ranged attacks only).")
@click.option("--ranged", is_flag=True, help="The attack is a ranged one.")
@click.option(
    "--acrobatic",
    type=click.IntRange(min=1),
    default=None,
    metavar="SKILL",
    help="Acrobatic Dodge with this Acrobatics skill.",
)
@click.option("--json", "as_json", is_flag=True, help='Print {"p_success": x}.')
def gurps(
    defense: int,
    kind: str,
    retreat: bool,
    fencing: bool,
    drop: bool,
    ranged: bool,
    acrobatic: int | None,
    as_json: bool,
) -> None:
    """GURPS: P(3d6 <= effective defence), 3-4 always succeed, 17-18 always fail."""
    try:
        got = gurps_odds(defense, kind, retreat, fencing, drop, ranged, acrobatic)
    except ValueError as e:
        raise OddsError(str(e)) from None
    if as_json:
        click.echo(json.dumps({"p_success": float(got.p)}))
        return
    parts = " ".join(f"{'+' if v >= 0 and i else ''}{v} {name}" for i, (name, v) in enumerate(got.modifiers))
    click.echo(f"effective {kind}: {got.eff}  ({parts})")
    if got.acrobatic is not None:
        click.echo(
            f"acrobatic dodge: Acrobatics-{got.acrobatic} roll first; "
            f"{got.eff + ACROBATIC_BONUS} if it succeeds, {got.eff - ACROBATIC_BONUS} if it fails"
        )
    click.echo(f"p_success: {float(got.p):.6f}  ({got.p.numerator}/{got.p.denominator})")


@odds.command("ap-pool")
@click.option("--dice", type=click.IntRange(min=0), required=True, help="Dice in the dodge pool.")
@click.option("--vs", type=click.IntRange(min=0), required=True, help="The attacker's successes.")
@click.option("--json", "as_json", is_flag=True, help='Print {"p_success": x}.')
def ap_pool(dice: int, vs: int, as_json: bool) -> None:
    """AP pool: P(N d6, 5-6 succeeding, meet or beat S successes)."""
    p = p_at_least_exact(dice, vs)
    if as_json:
        click.echo(json.dumps({"p_success": float(p)}))
        return
    click.echo(f"dodge pool: {dice} dice (5-6 succeed) vs {vs} attacker successes (ties go to the dodge)")
    click.echo(f"p_success: {float(p):.6f}  ({p.numerator}/{p.denominator})")
