"""AP costs of distances (game.movement.costs)."""

from __future__ import annotations

import pytest

from game.movement import ap_for_distance, max_distance_for_ap


@pytest.mark.parametrize(
    ("distance", "rate", "ap"),
    [(0.0, 2.0, 0), (0.1, 2.0, 1), (2.0, 2.0, 1), (2.0000001, 2.0, 2), (6.0, 2.0, 3), (7.5, 1.5, 5)],
)
def test_ap_for_distance_rounds_up(distance: float, rate: float, ap: int) -> None:
    assert ap_for_distance(distance, rate) == ap


def test_float_noise_does_not_cost_an_extra_ap() -> None:
    # 0.1 + 0.2 = 0.30000000000000004: three tenths of an inch at 0.1"/AP is 3 AP, not 4
    assert ap_for_distance(0.1 + 0.2, 0.1) == 3
    assert ap_for_distance(3 * 2.0 + 1e-12, 2.0) == 3


def test_max_distance_inverts_the_cost() -> None:
    assert max_distance_for_ap(3, 2.0) == 6.0
    assert ap_for_distance(max_distance_for_ap(3, 2.0), 2.0) == 3
    assert max_distance_for_ap(0, 2.0) == 0.0
    assert max_distance_for_ap(-1, 2.0) == 0.0


@pytest.mark.parametrize("rate", [0.0, -1.0, float("nan")])
def test_bad_rates_are_rejected(rate: float) -> None:
    with pytest.raises(ValueError):
        ap_for_distance(1.0, rate)
    with pytest.raises(ValueError):
        max_distance_for_ap(1, rate)


def test_negative_distance_is_rejected() -> None:
    with pytest.raises(ValueError):
        ap_for_distance(-0.5, 1.0)
