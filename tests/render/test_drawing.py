"""Pictures: every shipped scenario renders with the right colours in the right places."""

from __future__ import annotations

import math

import numpy as np
import pytest

from game.engine.match import Match
from game.engine.view import MatchView
from game.render import colors
from game.render.ui import OVERLAYS, UiState
from tests.render.conftest import SCENARIOS
from tests.render.helpers import duel_spec

SIZE = (1100, 680)


def _frame(pg, match, ui, humans=()):
    from game.render.png import draw_frame
    from game.render.renderer import Renderer, snapshot

    renderer = Renderer(MatchView(match), SIZE)
    surface = draw_frame(renderer, ui, humans=humans)
    return renderer, snapshot(surface)


def _back_of_base(renderer, u):
    """Pixels in the half of a base behind its facing (plain side colour there)."""
    from game.render.units import GLYPH_MIN_RADIUS_PX, radius_px

    cx, cy = renderer.camera.world_to_screen(*u.pos)
    r = radius_px(u, renderer.camera)
    out = []
    # just inside the outline, clear of the posture glyph (about half a radius wide)
    d = r - 3.5 if r >= GLYPH_MIN_RADIUS_PX else 0.5 * r
    for da in (180, 165, 195, 172, 188):
        a = math.radians(u.facing + da)
        out.append((round(cx + d * math.cos(a)), round(cy + d * math.sin(a))))
    return out


def test_world_to_screen_on_a_non_square_map(pg):
    """Computed by hand: the 24 x 14 map is fitted into the map area left of the panel."""
    from game.render.panel import PANEL_W

    match = Match(duel_spec(), seed=1)
    renderer, img = _frame(pg, match, UiState(overlays={"grid"}))
    vw, vh = SIZE[0] - PANEL_W, SIZE[1]
    scale = min(0.92 * vw / 24.0, 0.92 * vh / 14.0)
    for u in MatchView(match).units():
        x = vw / 2 + (u.pos[0] - 12.0) * scale
        y = vh / 2 + (u.pos[1] - 7.0) * scale
        assert renderer.camera.world_to_screen(*u.pos) == pytest.approx((x, y))
        # behind the facing: red units face east, so their west half is plain red
        back = (round(x - (-1 if u.side == "blue" else 1) * 0.75 * u.base * scale), round(y))
        assert tuple(img[back[1], back[0]]) == colors.side_color(u.side, ("red", "blue")), u.id
    # a swapped transform would put red-2 (4, 9) at (9, 4): the wall's corner, not a red base
    assert (
        tuple(img[round(vh / 2 + (4.0 - 7.0) * scale), round(vw / 2 + (9.0 - 12.0) * scale)])
        != colors.NAMED_SIDES["red"]
    )
    match.close()


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_every_shipped_scenario_renders_its_units_in_side_colours(pg, path):
    from game.scenario import load_scenario

    spec = load_scenario(path)
    match = Match(spec, seed=1)
    view = MatchView(match)
    ui = UiState(overlays=set(OVERLAYS))
    renderer, img = _frame(pg, match, ui, humans=spec.sides)
    packed = img[::3, ::3].astype(np.uint32) @ np.array([1 << 16, 1 << 8, 1], dtype=np.uint32)
    assert len(np.unique(packed)) > 50  # not blank: table, obstacles, units, overlays, text
    for u in view.units():
        want = colors.side_color(u.side, spec.sides)
        got = [tuple(img[y, x]) for x, y in _back_of_base(renderer, u)]
        assert sum(g == want for g in got) >= 3, (path.stem, u.id, got, want)
    # obstacles are drawn with their height shade
    for o in spec.obstacles:
        c = np.mean(np.array(o.polygon), axis=0)
        from shapely.geometry import Point, Polygon

        if not Polygon(o.polygon).buffer(-0.3).contains(Point(*c)):
            continue
        if any(math.dist(c, u.pos) < u.base + 4.0 for u in view.units()):
            continue  # overlays around units may cover it
        x, y = (round(v) for v in renderer.camera.world_to_screen(*c))
        shade = np.array(colors.obstacle_color(o.height), dtype=int)
        assert np.abs(img[y, x].astype(int) - shade).max() <= 90, (path.stem, o.id)
    match.close()


def test_static_layer_is_redrawn_only_when_the_zoom_changes(pg):
    from game.render.layers import MARGIN_PX
    from game.render.renderer import Renderer

    match = Match(duel_spec(), seed=1)
    renderer = Renderer(MatchView(match), SIZE)
    surface = pg.Surface(SIZE)
    ui = UiState(overlays={"grid"})
    for _ in range(3):
        renderer.draw(surface, ui)
    assert renderer.static.redraws == 1 and renderer.board_redraws == 1
    renderer.camera.pan(37, -12)
    renderer.draw(surface, ui)
    renderer.draw(surface, ui)
    assert renderer.static.redraws == 1 and renderer.board_redraws == 1  # a pan only moves the layers
    # the table's top-left corner moved with the pan
    x, y = renderer.camera.to_px(0.0, 0.0)
    assert tuple(surface.get_at((x + 1, y + 1)))[:3] == colors.TABLE
    assert tuple(surface.get_at((x - MARGIN_PX - 2, y - MARGIN_PX - 2)))[:3] == colors.BACKGROUND
    ui.selected = "blue-2"  # another point of view: the board (overlays, rings) is redrawn
    renderer.draw(surface, ui)
    assert renderer.static.redraws == 1 and renderer.board_redraws == 2
    renderer.camera.zoom_at(300, 300, 1.5)
    renderer.draw(surface, ui)
    assert renderer.static.redraws == 2 and renderer.board_redraws == 3
    match.close()


def test_overlays_draw_sight_fans_in_cover_colours_and_the_threat_map(pg):
    match = Match(duel_spec(), seed=1)
    view = MatchView(match)
    viewer = "red-1"
    plain = UiState(overlays={"grid"}, selected=viewer)
    _, base_img = _frame(pg, match, plain)
    ui = UiState(overlays={"grid", "sight", "threat"}, selected=viewer, target="blue-1")
    renderer, img = _frame(pg, match, ui)
    # the sight line to the target, half way, has the "none" cover colour (open ground)
    a, t = view.unit(viewer).pos, view.unit("blue-1").pos
    mid = renderer.camera.to_px((a[0] + t[0]) / 2, (a[1] + t[1]) / 2)
    assert view.sight(viewer, "blue-1").cover == "none"
    assert tuple(img[mid[1], mid[0]]) == colors.COVER_COLORS["none"]
    tm = renderer.scene.threat(viewer)
    assert tm.finished
    assert tm.at((6.0, 12.0)) == (2, 0.0)  # open ground: both blue units see it, no cover
    assert tm.at((8.5, 2.0)) is None  # inside the wall: no unit can stand there
    count, best = tm.at((11.5, 1.5))  # east of the wall: the blue units see it in the open
    assert count >= 1 and best < 0.1
    assert (img != base_img).any()
    match.close()


def test_silhouette_inset_shows_hidden_part(pg):
    from game.render.scene import Scene

    match = Match(duel_spec(), seed=1)
    scene = Scene(MatchView(match))
    sil = scene.silhouette("red-1", "blue-1")
    assert sil is not None and sil.parts.hidden.is_empty and not sil.parts.exposed.is_empty  # open ground
    assert sil.hidden_wedge == [] and len(sil.exposed_wedge) == 1
    # behind the high wall (x 8-9, y 0.5-3.5) from red-1 at (4, 5): a unit at (10.5, 1.5) is hidden
    from game.core.commands import EndTurn, Move

    while match.pending.unit != "blue-1":
        match.apply(EndTurn(match.pending.unit))
    match.apply(Move("blue-1", (10.5, 1.5)))
    scene.sync()
    sil = scene.silhouette("red-1", "blue-1")
    assert sil.facts.cover_fraction > 0.5 and not sil.parts.hidden.is_empty
    assert sil.parts.hidden.area / (sil.parts.hidden.area + sil.parts.exposed.area) == pytest.approx(
        sil.facts.cover_fraction, abs=0.01
    )
    match.close()


def test_event_log_panel_reads_sentences(pg):
    from game.render.scene import Scene

    match = Match(duel_spec(), seed=1)
    scene = Scene(MatchView(match))
    assert scene.sentences[0].startswith("Match starts: render test under test-simple rules, seed 1")
    v = scene.version
    assert not scene.sync() and scene.version == v
    uid = match.pending.unit
    from game.core.commands import EndTurn

    match.apply(EndTurn(uid))
    assert scene.sync() and scene.version == v + 1
    match.close()


def test_facing_arcs_follow_the_facing(pg):
    from shapely.geometry import Point, Polygon

    from components.sight import Arc
    from game.render.scene import Scene

    match = Match(duel_spec(), seed=1)
    scene = Scene(MatchView(match))
    arcs = {arc: rings for arc, rings in scene.arcs("blue-1", 2.5)}  # blue-1 at (13, 5) faces west
    front = Polygon(arcs[Arc.FRONT][0][0])
    rear = Polygon(arcs[Arc.REAR][0][0])
    assert front.contains(Point(11.5, 5.0)) and rear.contains(Point(14.5, 5.0))
    assert len(arcs[Arc.SIDE]) == 2
    match.close()


def test_a_players_move_region_becomes_the_exact_reach(pg):
    """The engine's Move region is the cheap disc; for a human's turn the window replaces it with
    the geodesic reach (computed in the background), which goes round the wall."""
    from shapely.geometry import Polygon
    from shapely.ops import unary_union

    from game.render.scene import Scene

    match = Match(duel_spec(), seed=1)
    scene = Scene(MatchView(match))
    d = match.pending
    (move,) = [s for s in scene.regions(d) if s.overlay == "move"]
    disc = Polygon(move.rings[0][0])
    version = scene.regions_version
    scene.regions(d, exact_reach=True)
    scene.finish_regions(d)
    assert scene.regions_version == version + 1
    (exact,) = [s for s in scene.regions(d) if s.overlay == "move"]
    reach = unary_union([Polygon(ext, holes) for ext, holes in exact.rings])
    arena = match.arena
    blockers, _ = arena.blockers(d.unit)
    u = match.pos(d.unit)
    want = arena.nav.reachable(u, match.body(d.unit).base, d.options[move.option].detail["max_len"], blockers)
    assert reach.area == pytest.approx(want.area, rel=1e-6) and reach.area < disc.area
    scene.close()
    match.close()


def test_the_cached_view_is_a_view_of_the_same_match():
    """The scene's CachedView is a typed MatchView: the same table, its snapshots cached until the
    next event."""
    from game.render.scene import CachedView

    match = Match(duel_spec(), seed=1)
    view = MatchView(match)
    cached = CachedView(view)
    assert isinstance(cached, MatchView) and cached.table is view.table
    d = match.pending
    first = cached.unit(d.unit)
    assert cached.unit(d.unit) is first and first == view.unit(d.unit)
    x, y = first.pos
    match.apply(next(o for o in d.options if type(o.command).__name__ == "Move").with_point((x - 1.0, y)))
    assert cached.unit(d.unit) == view.unit(d.unit) != first  # new events: taken afresh
    assert cached.unit(d.unit).pos == (x - 1.0, y)
    match.close()


def test_path_preview_is_the_engines_path():
    from game.render.inspect import path_preview

    match = Match(duel_spec(), seed=1)
    view = MatchView(match)
    d = match.pending
    x, y = match.pos(d.unit)
    to = (x + 2.0, y + 1.0)
    got = path_preview(view, d, to, lambda length: 1)
    want = match.arena.path(d.unit, to)
    assert got is not None and want is not None
    assert got.points == want.points and got.length == want.length and got.reason is None
    other = next(u for u in match.units() if u != d.unit)
    refused = path_preview(view, d, match.pos(other), lambda length: 1)
    assert refused is not None and refused.reason and refused.ap is None
    match.close()
