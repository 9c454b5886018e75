"""The price of AP held for a reaction (game/ai/planner/reserve.py): what the AP would otherwise buy."""

from __future__ import annotations

import numpy as np
import pytest

from game.ai.planner import reserve as rs

# AP-pool's frame: 4 AP a round, an attack costs 2.
POOL = {"c_attack": 2}


def test_a_dodge_that_costs_the_attack_is_priced_at_the_attack():
    """4 AP before its turn: a 3-AP dodge leaves 1 AP (no attack): it costs both attacks the turn
    could make; a 1-AP dodge leaves 3 (one attack and a reaction): it costs only the second attack
    less the later reaction the last AP still buys."""
    attack, later = 0.4, [0.1]
    three = rs.reaction_price(4, 3, turn=True, attack=attack, dodges=later, **POOL)
    one = rs.reaction_price(4, 1, turn=True, attack=attack, dodges=later, **POOL)
    assert three == pytest.approx(attack * (1 + rs.SECOND_ATTACK) - rs.MOVE_AP)
    assert one == pytest.approx(attack * rs.SECOND_ATTACK - 0.1)
    assert three > 2 * one


def test_ap_that_would_lapse_cost_nothing():
    """Its turn over and no enemy left to act this round: the AP lapse at the round's end, so a
    dodge costs only the step they might buy; a dodge it cannot afford is never worth its price."""
    assert rs.reaction_price(2, 1, turn=False, attack=0.5, dodges=[], **POOL) == pytest.approx(rs.MOVE_AP)
    assert rs.reaction_price(1, 3, turn=False, attack=0.5, dodges=[], **POOL) == float("inf")


def test_a_dodge_now_costs_the_best_later_one_it_can_no_longer_pay():
    """Its turn over, 3 AP, 3-AP dodges: dodging now costs the dodge against the most dangerous
    enemy still to act (one reaction per enemy)."""
    price = rs.reaction_price(3, 3, turn=False, attack=0.5, dodges=[0.05, 0.3, 0.2], **POOL)
    assert price == pytest.approx(0.3)


def test_held_ap_pay_one_reaction_per_enemy_most_dangerous_first():
    dodges = np.array([[0.1, 0.4, 0.2], [0.3, 0.0, 0.0]])
    got = rs.held_worth(np.array([2.0, 5.0]), 1, dodges)
    assert got == pytest.approx([0.6, 0.3])
    assert rs.held_worth(np.array([2.0, 2.0]), 3, dodges) == pytest.approx([0.0, 0.0])


def test_a_unit_without_a_shot_here_still_prices_the_step_and_shot_it_would_buy():
    """4 AP before its turn, no shot from where it stands (the least action worth) but one after a
    1-AP step: a 3-AP dodge leaves 1 AP and costs that step-and-shot; a 1-AP dodge leaves 3, still
    enough for the step and the shot, and costs only the spare AP. Without the step the two prices
    were nearly the same (both the least action's worth)."""
    here, moved = 0.1, 0.4
    kw = {"turn": True, "attack": here, "dodges": [], "moved_attack": moved, "c_move": 1, **POOL}
    three = rs.reaction_price(4, 3, **kw)
    one = rs.reaction_price(4, 1, **kw)
    assert three == pytest.approx(moved)  # 4 AP: step, shot and a spare AP; 1 AP: the spare AP
    assert one == pytest.approx(rs.MOVE_AP)
    blind = {k: v for k, v in kw.items() if k not in ("moved_attack", "c_move")}
    assert rs.reaction_price(4, 3, **blind) < three / 2
    # A move that buys a worse shot than the one here is never taken.
    assert rs.ap_worth(4, c_react=3, **{**kw, "attack": 0.5, "moved_attack": 0.3}) == pytest.approx(
        0.5 * (1 + rs.SECOND_ATTACK)
    )
