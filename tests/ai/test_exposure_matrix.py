"""The exposure-only cover question equals the exposed half of the two-way one, bit for bit.

Threat-only scores (``dodge_move``, the reactions) ask :func:`game.ai.tactics.exposure_matrix`,
which has the kernel compute only the enemies looking at the points; the policies' play must not
change, so its numbers must be exactly those of :func:`~game.ai.tactics.cover_matrix`.
"""

from __future__ import annotations

import numpy as np
import pytest

from game.ai import tactics as t
from game.engine.match import Match
from game.engine.view import MatchView
from tests.engine.conftest import make_spec


@pytest.fixture
def match():
    m = Match(make_spec(), seed=1)
    yield m
    m.close()


@pytest.mark.parametrize("m", [0, 1, 2, 30])
def test_exposure_is_the_exposed_half_of_cover(match, m: int) -> None:
    view = MatchView(match)
    unit = t.me(view, "red-1")
    _, rows = t.enemy_rows(view, "red-1")
    rng = np.random.default_rng(m)
    pts = np.column_stack([rng.uniform(1, 19, m), rng.uniform(1, 11, m)])
    for height in (None, 0.4 * unit.height):
        want, _ = t.cover_matrix(view, unit, pts, rows, height)
        got = t.exposure_matrix(view, unit, pts, rows, height)
        assert got.shape == (m, len(rows)) and np.array_equal(got, want)
        h = unit.height if height is None else height
        direct = view.exposure_at_points(pts, unit.base, h, rows)
        assert np.array_equal(direct, view.cover_at_points(pts, unit.base, h, rows)[0])
    if m == 30:  # the wall covers some points from some enemies, not all
        assert (got < 1.0).any() and (got > 0.0).any()


def test_best_shot_is_the_max_over_every_shot(match, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pruned shots give the full maximum bit for bit, asking fewer pairs than all of them."""
    view = MatchView(match)
    unit = t.me(view, "red-1")
    _, rows = t.enemy_rows(view, "red-1")
    rng = np.random.default_rng(5)
    pts = np.column_stack([rng.uniform(1, 19, 60), rng.uniform(1, 11, 60)])
    asked = []
    real = view.shot_from_points

    def counting(*args):
        asked.append(len(args[4]))
        return real(*args)

    monkeypatch.setattr(view, "shot_from_points", counting)
    for weights in (t.distance_weights(pts, view, rows), rng.uniform(0.2, 1.0, (len(pts), len(rows)))):
        for height in (None, 0.4 * unit.height):
            exposed, shot_cover = t.cover_matrix(view, unit, pts, rows, height)
            want = ((1.0 - shot_cover) * weights).max(axis=1)
            got = t.best_shot(view, unit, pts, rows, weights, exposed, height)
            assert np.array_equal(got, want)
    assert (want > 0.0).any() and (want < want.max()).any()
    assert sum(asked) < 4 * len(pts) * len(rows)  # some pairs were never asked
