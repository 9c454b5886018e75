"""The view's geometry contract: read-only arrays, live table, queries equal to the engine's own.

AI and render read the table only through :class:`~game.engine.view.MatchView`; each query here
is compared with the direct construction on the match's arena and navigation mesh it replaces
(the AI's logs depend on the exact floats, so equal means bit for bit).
"""

from __future__ import annotations

import threading
import tomllib
from pathlib import Path

import grimp
import numpy as np
import pytest

from components.spatial import EYE_FRACTION
from game.core.commands import Move
from game.engine.match import Match
from game.engine.view import MatchView
from tests.engine.conftest import make_spec

REPO = Path(__file__).resolve().parents[2]
READERS = ("game.ai", "game.render")
FORBIDDEN = ("game.battlefield", "game.movement.navmesh")


def _step_aside(match: Match) -> tuple[str, tuple[float, float]]:
    """Move the deciding unit 1 inch east: (its id, where it went)."""
    d = match.pending
    x, y = match.pos(d.unit)
    move = next(o for o in d.options if isinstance(o.command, Move))
    match.apply(move.with_point((x + 1.0, y)))
    return d.unit, (x + 1.0, y)


@pytest.fixture
def match():
    m = Match(make_spec(), seed=1)
    yield m
    m.close()


def test_the_view_hands_out_no_arena(match):
    assert not hasattr(MatchView(match), "arena")


def test_table_arrays_are_read_only(match):
    table = MatchView(match).table
    for name in ("xy", "base", "height"):
        a = getattr(table, name)
        assert not a.flags.writeable, name
        with pytest.raises(ValueError, match="read-only"):
            a[0] = 0.0
    with pytest.raises(TypeError):
        table.index_of["red-1"] = 3  # type: ignore[index]
    assert np.array_equal(match.arena.xy[0], (3.0, 3.0))  # nothing written through


def test_table_is_live_and_one_per_match(match):
    view, other = MatchView(match), MatchView(match)
    table = view.table
    assert other.table is table and MatchView(view).table is table
    stamp = table.stamp
    uid, to = _step_aside(match)
    i = table.index_of[uid]
    assert table.stamp != stamp
    assert tuple(table.xy[i].tolist()) == to == tuple(match.arena.xy[i].tolist())
    assert np.shares_memory(table.xy, match.arena.xy)  # a view, not a copy


def test_snapshot_is_a_frozen_copy(match):
    table = MatchView(match).table
    snap = table.snapshot()
    want = match.arena.table()
    assert snap.ids == want.ids == table.ids
    for name in ("xy", "base", "height", "size", "facing"):
        assert np.array_equal(getattr(snap, name), getattr(want, name)), name
    assert not np.shares_memory(snap.xy, match.arena.xy)


def _direct_cover(arena, base, h, pts, rows):
    """The AI's former construction on the arena (before the view answered it)."""
    m, k = len(pts), len(rows)
    xy = np.concatenate([arena.xy[rows], pts])
    radius = np.concatenate([arena.base[rows], np.full(m, base)])
    height = np.concatenate([arena.height[rows], np.full(m, h)])
    source = np.concatenate([np.tile(np.arange(k), m), k + np.repeat(np.arange(m), k)])
    target = np.concatenate([k + np.repeat(np.arange(m), k), np.tile(np.arange(k), m)])
    res = arena.sight_index.cover_rows(xy, EYE_FRACTION * height, radius, height, source, target)
    frac = np.asarray(res.fraction)
    return frac[: m * k].reshape(m, k), frac[m * k :].reshape(m, k)


def test_cover_at_points_is_the_direct_kernel_call(match):
    view = MatchView(match)
    arena = match.arena
    rows = np.array([arena.index_of["blue-1"], arena.index_of["blue-2"]], dtype=np.int64)
    rng = np.random.default_rng(3)
    for m in (1, 2, 9):
        pts = np.column_stack([rng.uniform(1, 19, m), rng.uniform(1, 11, m)])
        got = view.cover_at_points(pts, 0.5, 1.4, rows)
        want = _direct_cover(arena, 0.5, 1.4, pts, rows)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
        assert got[0].flags.writeable  # fresh arrays: the caller's to keep
    assert (np.asarray(got) < 1.0).any() and (np.asarray(got) > 0.0).any()  # the wall covers some
    empty = view.cover_at_points(np.empty((0, 2)), 0.5, 1.4, rows)
    assert empty[0].shape == empty[1].shape == (0, 2)


def test_segment_clear_is_the_meshs_answer_among_the_other_units(match):
    view = MatchView(match)
    arena = match.arena
    i = arena.index_of["red-1"]
    start = (float(arena.xy[i, 0]), float(arena.xy[i, 1]))
    blk, _ = arena.blockers("red-1")
    ends = [(8.0, 2.5), (12.0, 2.5), (3.0, 5.5), (3.0, 9.0), (16.0, 3.0), (5.0, 10.0)]
    got = [view.segment_clear("red-1", start, b) for b in ends]
    want = [arena.nav.segment_clear(start, b, float(arena.base[i]), blk) for b in ends]
    assert got == want
    assert True in got and False in got  # the wall and red-2 block some, not all


def test_path_is_the_engines_path_and_ignore_drops_one_blocker(match):
    view = MatchView(match)
    arena = match.arena
    assert view.path("red-1", (6.0, 8.0)) == arena.path("red-1", (6.0, 8.0))
    # Into blue-1's base: refused unless blue-1 is ignored.
    assert view.path("red-1", (16.5, 3.0)) is None
    i = arena.index_of["red-1"]
    keep = arena.alive.copy()
    keep[[i, arena.index_of["blue-1"]]] = False
    blk = np.column_stack([arena.xy[keep], arena.base[keep]])
    start = (float(arena.xy[i, 0]), float(arena.xy[i, 1]))
    want = arena.nav.path(start, (16.5, 3.0), float(arena.base[i]), blk)
    got = view.path("red-1", (16.5, 3.0), ignore="blue-1")
    assert got is not None and got == want


def test_exposure_is_the_index_query_on_a_snapshot(match):
    view = MatchView(match)
    arena = match.arena
    exposure = view.exposure("red-1")
    assert exposure.enemies == ("blue-1", "blue-2")
    pts = np.array([[5.0, 2.0], [8.5, 6.0], [11.0, 2.0], [8.4, 4.3], [7.0, 4.6]])
    table = arena.table()
    rows = np.array([table.index("blue-1"), table.index("blue-2")])
    h = float(table.height[table.index("red-1")])
    body = match.body("red-1")
    want = arena.sight_index.exposure_at_points(table, pts, h, body.base, body.size, rows)
    assert np.array_equal(exposure.at(pts), want)
    # Taken as the table stood: a later move does not change its answers.
    _step_aside(match)
    assert np.array_equal(exposure.at(pts), want)
    assert not np.array_equal(view.exposure("red-1").at(pts), want)  # (the move mattered)


def test_reach_never_uses_the_matchs_mesh(match, monkeypatch):
    view = MatchView(match)
    arena = match.arena
    blk, _ = arena.blockers("red-1")
    want = arena.nav.reachable(match.pos("red-1"), match.body("red-1").base, 5.0, blk)
    reach = view.reach("red-1", 5.0)

    def refuse(*args, **kwargs):
        raise AssertionError("the match's navigation mesh was used")

    monkeypatch.setattr(arena.nav, "reachable", refuse)
    got: list = []
    worker = threading.Thread(target=lambda: got.append(reach()))
    worker.start()
    worker.join()
    assert got and got[0].equals(want)


def test_readers_import_neither_arena_nor_navmesh():
    """The forbidden contract, checked here too: no module of game.ai or game.render imports
    game.battlefield or game.movement.navmesh (TYPE_CHECKING imports count)."""
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    declared = [c for c in contracts if c["type"] == "forbidden" and set(c["source_modules"]) == set(READERS)]
    assert declared and set(declared[0]["forbidden_modules"]) == set(FORBIDDEN)
    graph = grimp.build_graph("game")
    bad = [
        (src, dst)
        for reader in READERS
        for src in graph.find_descendants(reader) | {reader}
        for dst in graph.find_modules_directly_imported_by(src)
        if any(dst == f or dst.startswith(f + ".") for f in FORBIDDEN)
    ]
    assert bad == []
