"""Choices a unit makes before it acts: how many actions to commit to, free standing choices.

Contract: every function reads only the view and the decision's options (their ``detail``, as
the rulesets document it) and returns an option of the decision, or None when it has nothing
to choose; nothing here draws random numbers.

- :func:`free_choice`: a free maneuver (``detail["ap"] == 0``) whose ``detail["value_gain"]``
  is positive, e.g. the defence-dice standing choice whether moves reroll the dodge dice (its
  gain is the expected number of aims defended after the switch minus now). Taking it costs
  nothing; the opposite switch then shows a negative gain, so a unit never flips back and forth.
- Declarations of the round's actions (Cortex: ``detail["declare_actions"]`` N, every action
  of the round at the penalty of N): :func:`declare_for_attacks` chooses by expected value when
  the unit can attack from where it stands: N times the best :func:`~game.ai.tactics.attack_value`
  among the attacks priced at N (``detail["attacks"]``), the largest total winning, ties to the
  fewer actions (they keep better odds for what the unit does not plan). It declines (None) when
  every attack is :func:`~game.ai.tactics.hopeless` even at one action: the policy then walks
  its free movement first. :func:`declare_to_move` chooses for a unit that must move further
  than its free movement: with a quarry, the fewest actions whose movement (``detail
  ["move_tiers"]``: (inches still to go this turn, actions) per tier) brings it into contact with
  an action left to strike, else the most movement without a useless action; without a quarry
  (looking for a target), one action.
"""

from __future__ import annotations

from game.ai import tactics as t
from game.core.commands import Decision, Maneuver, Option
from game.engine.view import MatchView

#: Totals within this of each other are a tie (the fewer actions win).
TIE = 1e-9
#: Gap (inches) between bases a unit closing in aims for (the aggressive policy's contact gap).
CONTACT_GAP = 0.05


def free_choice(decision: Decision) -> Option | None:
    """The free maneuver with the largest positive ``value_gain`` (first on ties), or None."""
    best: Option | None = None
    gain = 0.0
    for o in decision.options:
        d = o.detail or {}
        if not isinstance(o.command, Maneuver) or d.get("ap", 1) != 0 or "value_gain" not in d:
            continue
        if float(d["value_gain"]) > gain + TIE:
            best, gain = o, float(d["value_gain"])
    return best


def declarations(decision: Decision) -> list[Option]:
    """The options that declare the round's actions, fewest actions first."""
    got = [o for o in decision.options if "declare_actions" in (o.detail or {})]
    return sorted(got, key=lambda o: int(o.detail["declare_actions"]))


def declaration_value(view: MatchView, opt: Option) -> float:
    """N x the best attack value at N (0 without an attack)."""
    attacks = opt.detail.get("attacks") or ()
    if not attacks:
        return 0.0
    n = int(opt.detail["declare_actions"])
    return n * max(t.attack_value(view, a) for a in attacks)


def declare_for_attacks(view: MatchView, decision: Decision) -> Option | None:
    """The declaration of highest expected value when the unit can attack from here (see the
    module docstring), or None (no declaration offered, no attack, or only hopeless ones)."""
    opts = declarations(decision)
    if not opts:
        return None
    first = opts[0].detail.get("attacks") or ()
    if not first or all(t.hopeless(a) for a in first):
        return None
    best, value = opts[0], declaration_value(view, opts[0])
    for o in opts[1:]:
        v = declaration_value(view, o)
        if v > value + TIE:
            best, value = o, v
    return best


def declare_to_move(view: MatchView, decision: Decision, quarry: str | None) -> Option | None:
    """The declaration for a unit that must move beyond its free movement (see the module
    docstring), or None when no declaration is offered."""
    opts = declarations(decision)
    if not opts:
        return None
    if quarry is None:
        return opts[0]
    uid = decision.unit
    need = view.distance(uid, quarry) - view.base(uid) - view.base(quarry) - CONTACT_GAP
    for o in opts:  # fewest actions first: the first that reaches with an action to spare
        cost = moving_actions(o, need)
        if cost is not None and cost < int(o.detail["declare_actions"]):
            return o
    # Out of reach this turn: the most movement, without actions it cannot use.
    far = max(reach(o) for o in opts)
    return next(o for o in opts if reach(o) >= far - TIE)


def reach(opt: Option) -> float:
    """The farthest a declaration lets the unit move on this turn (inches)."""
    return max((float(inches) for inches, _ in opt.detail.get("move_tiers", ())), default=0.0)


def moving_actions(opt: Option, need: float) -> int | None:
    """Actions a move of ``need`` inches costs under declaration ``opt`` (None: beyond reach)."""
    costs = [int(actions) for inches, actions in opt.detail.get("move_tiers", ()) if float(inches) >= need]
    return min(costs) if costs else None
