"""``skirmish odds ap-pool``: the exact chance that a dodge pool meets the attacker's successes.

Contract: ``odds ap-pool --dice N --vs S [--json]``: P(a pool of N d6, 5-6 succeeding, meets
or beats S successes) (shared/rules/ap-dodge-reaction.txt: ties go to the dodge).
``--json`` prints exactly ``{"p_success": x}``; otherwise the pool and the probability as a
decimal and an exact fraction.
"""

from __future__ import annotations

from game.dice.pools import p_at_least_exact
from game.rules.odds import OddsAnswer, OddsParam, OddsQuery


def answer(dice: int, vs: int) -> OddsAnswer:
    """The query's answer: ``{"p_success": x}`` and the pool with the exact fraction."""
    p = p_at_least_exact(dice, vs)
    return OddsAnswer(
        {"p_success": float(p)},
        (
            f"dodge pool: {dice} dice (5-6 succeed) vs {vs} attacker successes (ties go to the dodge)",
            f"p_success: {float(p):.6f}  ({p.numerator}/{p.denominator})",
        ),
    )


QUERY = OddsQuery(
    help="AP pool: P(N d6, 5-6 succeeding, meet or beat S successes).",
    params=(
        OddsParam("dice", ("--dice",), int, required=True, minimum=0, help="Dice in the dodge pool."),
        OddsParam("vs", ("--vs",), int, required=True, minimum=0, help="The attacker's successes."),
    ),
    answer=answer,
    json_help='Print {"p_success": x}.',
)
