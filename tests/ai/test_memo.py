"""What the policies remember between questions, and the cheaper constructions behind them.

The per-state answers of :func:`game.ai.tactics._now` (health margins, enemies, a unit's place)
must be dropped as soon as the match logs an event or the table changes; the rebuilt cover-matrix
inputs, route blockers and region samples must equal the straightforward constructions.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from components.spatial import EYE_FRACTION
from game.ai import tactics as t
from game.ai.points import sample_in
from game.core.commands import Attack, Decision, EndTurn, Maneuver, Move, Option
from game.engine.match import Match
from game.engine.view import MatchView
from tests.engine.conftest import make_spec


@pytest.fixture
def match():
    m = Match(make_spec(), seed=1)
    yield m
    m.close()


def test_health_answers_follow_logged_damage(match):
    view = MatchView(match)
    assert t.condition(view, "blue-1") == 1.0 and t.remaining(view, "blue-1") == 3.0
    match.damage("blue-1", {"hp": -1}, None)
    assert t.condition(view, "blue-1") == pytest.approx(2 / 3) and t.remaining(view, "blue-1") == 2.0


def test_enemies_follow_a_casualty(match):
    view = MatchView(match)
    assert t.enemies(view, "red-1") == ("blue-1", "blue-2")
    match.set_status("blue-1", "dead", True, "test")
    assert t.enemies(view, "red-1") == ("blue-2",)
    ids, rows = t.enemy_rows(view, "red-1")
    assert ids == ["blue-2"] and rows.tolist() == [match.arena.index_of["blue-2"]]


def test_enemy_rows_are_not_shared_mutably(match):
    view = MatchView(match)
    ids, rows = t.enemy_rows(view, "red-1")
    ids.append("nobody")
    with pytest.raises(ValueError):
        rows[0] = 0
    assert t.enemy_rows(view, "red-1")[0] == ["blue-1", "blue-2"]


def test_place_follows_a_move(match):
    view = MatchView(match)
    d = match.pending
    assert t.me(view, d.unit).xy == match.pos(d.unit)
    move = next(o for o in d.options if isinstance(o.command, Move))
    to = (match.pos(d.unit)[0] + 1.0, match.pos(d.unit)[1])
    match.apply(move.with_point(to))
    assert t.me(view, d.unit).xy == to


def test_place_follows_the_table_without_an_event(match):
    """A table change alone (a new ``view.table.stamp``, no event) drops the remembered answers too."""
    view = MatchView(match)
    arena = match.arena
    assert t.me(view, "red-2").xy == (3.0, 6.0)
    arena.update("red-2", (4.0, 6.5), 1.5, 0.0)
    got = t.me(view, "red-2")
    assert got.xy == (4.0, 6.5) and got.height == 1.5


def test_route_ignores_exactly_the_quarry(match):
    view = MatchView(match)
    match.apply(EndTurn(match.pending.unit))
    arena = match.arena
    unit = t.me(view, "red-1")
    keep = arena.alive.copy()
    keep[unit.row] = False
    keep[arena.index_of["blue-1"]] = False
    blk = np.column_stack([arena.xy[keep], arena.base[keep]])
    want = arena.nav.path(unit.xy, (16.0, 3.0), unit.base, blk)
    got = t.route(view, unit, (16.0, 3.0), ignore="blue-1")
    assert got is not None and want is not None
    assert got.points == want.points and got.length == want.length
    # Without ``ignore`` the quarry blocks: the goal inside its base is unreachable.
    assert t.route(view, unit, (16.5, 3.0)) is None


def test_sample_in_draws_like_two_uniform_columns():
    region = shapely.Point(5.0, 5.0).buffer(4.0).difference(shapely.box(5.0, 0.0, 6.0, 10.0))
    got = sample_in(region, 24, np.random.default_rng(7))
    rng = np.random.default_rng(7)
    minx, miny, maxx, maxy = region.bounds
    pts = np.column_stack([rng.uniform(minx, maxx, 96), rng.uniform(miny, maxy, 96)])
    want = pts[shapely.contains_xy(region, pts[:, 0], pts[:, 1])][:24]
    assert got.shape == want.shape == (24, 2) and np.array_equal(got, want)


def test_cover_matrix_asks_the_kernel_for_every_pair(match):
    """Each enemy looking at each point, then each point looking at each enemy, point-major."""
    view = MatchView(match)
    arena = match.arena
    unit = t.me(view, "red-1")
    _, rows = t.enemy_rows(view, "red-1")
    pts = np.array([[3.0, 3.0], [5.0, 2.5], [8.5, 5.0]])
    exposed, shot = t.cover_matrix(view, unit, pts, rows)
    m, k = len(pts), len(rows)
    for i in range(m):
        for j, r in enumerate(rows):
            src = np.array([arena.xy[r], pts[i]])
            eye = np.array([EYE_FRACTION * arena.height[r], EYE_FRACTION * unit.height])
            res = arena.sight_index.cover_kernel(
                src,
                eye,
                np.array([0, 1]),
                np.array([pts[i, 0], arena.xy[r, 0]]),
                np.array([pts[i, 1], arena.xy[r, 1]]),
                np.array([unit.base, arena.base[r]]),
                np.array([unit.height, arena.height[r]]),
            )
            assert (exposed[i, j], shot[i, j]) == (res.fraction[0], res.fraction[1])
    assert exposed.shape == shot.shape == (m, k)


def test_cover_rows_is_cover_kernel_on_the_gathered_targets(match):
    """Pairs naming rows of one table (targets shared by many pairs, which lets the kernel
    remember their blockers) get the fractions of the same pairs with targets written out."""
    index = match.arena.sight_index
    rng = np.random.default_rng(4)
    for n in (2, 7, 25):
        xy = np.column_stack([rng.uniform(0, match.spec.width, n), rng.uniform(0, match.spec.height, n)])
        radius = rng.uniform(0.3, 1.0, n)
        height = rng.uniform(0.5, 2.0, n)
        src = rng.integers(0, n, 4 * n)
        tgt = rng.integers(0, n, 4 * n)
        got = index.cover_rows(xy, EYE_FRACTION * height, radius, height, src.copy(), tgt.copy())
        want = index.cover_kernel(
            xy, EYE_FRACTION * height, src.copy(), xy[tgt, 0], xy[tgt, 1], radius[tgt], height[tgt]
        )
        assert np.array_equal(got.fraction, want.fraction)
        assert (np.asarray(want.fraction) > 0).any()  # some cover among them


def test_option_kinds_follow_the_decision():
    """The sorted-out options belong to one decision: another decision is sorted out afresh."""

    def turn(*opts: Option) -> Decision:
        return Decision("red-1", "turn", opts)

    shoot = Option(Attack("red-1", "blue-1", "gun"), "shoot", 0.5)
    aim = Option(Maneuver("red-1", "aim:gun:blue-1"), "aim", detail={"p_hurt_next_turn": 0.9})
    first, second = turn(shoot, Option(EndTurn("red-1"), "end")), turn(aim, Option(EndTurn("red-1"), "end"))
    assert t.attacks(first) == [shoot]
    assert t.attacks(second) == [] and t.next_turn_attack(second, aim) is None
    assert t.attacks(first) == [shoot]
    third = turn(shoot, aim)
    promised = t.next_turn_attack(third, aim)
    assert promised is not None and promised.command == shoot.command


def test_single_point_cover_is_remembered_per_match(match, monkeypatch):
    """One point's cover matrix is asked of the view once per match (every view of the match
    shares the memo, keyed by the match's one table) until something it depends on changes."""
    view, other = MatchView(match), MatchView(match)
    unit = t.me(view, "red-1")
    _, rows = t.enemy_rows(view, "red-1")
    here = np.array([unit.xy])
    want = t.cover_matrix(view, unit, here, rows)
    calls = []
    real = MatchView.cover_at_points

    def counted(self, *args):
        calls.append(args)
        return real(self, *args)

    monkeypatch.setattr(MatchView, "cover_at_points", counted)
    again = t.cover_matrix(other, unit, here, rows)
    assert calls == [] and all(np.array_equal(a, b) for a, b in zip(again, want))
    again[0][0, 0] = -1.0  # the caller's copy: the remembered answer is untouched
    assert np.array_equal(t.cover_matrix(view, unit, here, rows)[0], want[0]) and calls == []
    t.cover_matrix(view, unit, here, rows, height=0.5 * unit.height)  # another question
    assert len(calls) == 1
