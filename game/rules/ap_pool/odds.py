"""``skirmish odds ap-pool``: the exact chance that a dodge pool meets the attacker's successes.

Contract: ``odds ap-pool --dice N --vs S [--json]``: P(a pool of N d6, each face of at least the
``success_face`` option (5 by the text) succeeding, meets or beats S successes)
(shared/rules/ap-dodge-reaction.txt: ties go to the dodge). ``answer`` takes the ruleset's
options as ``options`` (``--option``; the text's by default). ``--json`` prints exactly
``{"p_success": x}``; otherwise the pool and the probability as a decimal and an exact fraction.
"""

from __future__ import annotations

from fractions import Fraction

from game.dice.pools import successes_pmf_exact
from game.rules.ap_pool.options import DEFAULTS, ApPoolOptions
from game.rules.odds import OddsAnswer, OddsParam, OddsQuery


def answer(dice: int, vs: int, options: ApPoolOptions = DEFAULTS) -> OddsAnswer:
    """The query's answer: ``{"p_success": x}`` and the pool with the exact fraction."""
    face = options.success_face
    p = sum(successes_pmf_exact(dice, face)[max(0, vs) :], Fraction(0)) if vs > 0 else Fraction(1)
    faces = f"{face}-6 succeed" if face < 6 else "6 succeeds"
    return OddsAnswer(
        {"p_success": float(p)},
        (
            f"dodge pool: {dice} dice ({faces}) vs {vs} attacker successes (ties go to the dodge)",
            f"p_success: {float(p):.6f}  ({p.numerator}/{p.denominator})",
        ),
    )


QUERY = OddsQuery(
    help="AP pool: P(N d6, 5-6 (option success_face) succeeding, meet or beat S successes).",
    params=(
        OddsParam("dice", ("--dice",), int, required=True, minimum=0, help="Dice in the dodge pool."),
        OddsParam("vs", ("--vs",), int, required=True, minimum=0, help="The attacker's successes."),
    ),
    answer=answer,
    json_help='Print {"p_success": x}.',
)
