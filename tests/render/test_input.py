"""Input events translate into the expected commands (and refusals into messages)."""

from __future__ import annotations

import math
import sys

import pytest

from game.core.commands import Attack, ChangePosture, Defend, EndTurn, Face, Move
from game.engine.match import Match
from tests.render.helpers import duel_spec, pin_camera, px


@pytest.fixture
def app(pg):
    from game.render.window import App

    match = Match(duel_spec(), seed=3)
    a = App(match, {"red": "human", "blue": "human"}, screen=pg.Surface((1180, 720)))
    pin_camera(a.renderer)
    a.tick()
    yield a
    match.close()


def click(pg, pos, button=1):
    return [
        pg.event.Event(pg.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0)),
        pg.event.Event(pg.MOUSEBUTTONDOWN, pos=pos, button=button),
        pg.event.Event(pg.MOUSEBUTTONUP, pos=pos, button=button),
    ]


def key(pg, k):
    return pg.event.Event(pg.KEYDOWN, key=k, mod=0, unicode="", scancode=0)


def feed(app, events):
    """Pass events to the input handler; return the commands it produced."""
    out = []
    for e in events:
        cmd = app.input.handle(e)
        if cmd is not None:
            out.append(cmd)
    return out


def test_click_on_the_map_moves_the_deciding_unit(app, pg):
    d = app.match.pending
    uid = d.unit
    x, y = app.match.pos(uid)
    dest = (x + (1.5 if x < 10 else -1.5), y + 0.75)
    cmds = feed(app, click(pg, px(app.renderer, dest)))
    assert cmds == [Move(uid, dest)]
    assert app.apply(cmds[0]) and app.match.pos(uid) == dest


def test_hover_shows_the_path_and_its_ap_cost(app, pg):
    uid = app.match.pending.unit
    x, y = app.match.pos(uid)
    dest = (x + (2.0 if x < 10 else -2.0), y)
    app.tick([pg.event.Event(pg.MOUSEMOTION, pos=px(app.renderer, dest), rel=(0, 0), buttons=(0, 0, 0))])
    pv = app.ui.preview
    assert pv is not None and pv.reason is None and pv.ap == 1
    assert pv.length == pytest.approx(2.0, abs=0.01) and pv.label == f"{pv.length:.2f} in, 1 AP"
    # the preview goes where a click there goes: the cursor's point rounded to the hundredth
    assert pv.to == (round(app.ui.hover[0], 2), round(app.ui.hover[1], 2))


def test_refused_point_shows_the_reason_and_changes_nothing(app, pg):
    uid = app.match.pending.unit
    before = app.match.state_hash()
    cmds = feed(app, click(pg, px(app.renderer, (8.5, 2.0))))  # inside the wall
    assert cmds == []
    assert app.ui.message_error and app.ui.message.startswith("move")
    assert app.match.state_hash() == before and app.match.pending.unit == uid


def test_click_on_an_enemy_attacks_it_and_hover_explains_the_odds(app, pg):
    d = app.match.pending
    uid = d.unit
    enemy = "blue-1" if app.match.side(uid) == "red" else "red-1"
    pos = px(app.renderer, app.match.pos(enemy))
    app.tick([pg.event.Event(pg.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0))])
    assert app.ui.target == enemy
    from game.render.inspect import target_lines

    lines = target_lines(app.view, app.match.pending, uid, enemy)
    assert lines[1].startswith("cover 0.0% (none)") and f"shoot {enemy}: 50.0%" in lines
    assert "   +0 base (roll)" in lines and "   expected damage: 1" in lines
    cmds = feed(app, click(pg, pos))
    assert cmds == [Attack(uid, enemy, "gun")]


def test_keys_end_turn_posture_and_face(app, pg):
    uid = app.match.pending.unit
    assert feed(app, [key(pg, pg.K_z)]) == [ChangePosture(uid, "crouching")]
    x, y = app.match.pos(uid)
    south = px(app.renderer, (x, y + 2.0))
    assert feed(app, click(pg, south, button=3)) == [Face(uid, 90.0)]
    feed(app, [key(pg, pg.K_f)])
    assert app.ui.armed is not None
    west = px(app.renderer, (x - 2.0, y))
    assert feed(app, click(pg, west)) == [Face(uid, 180.0)]
    assert feed(app, [key(pg, pg.K_RETURN)]) == [EndTurn(uid)]


def test_panel_rows_are_clickable_and_numbered(app, pg):
    uid = app.match.pending.unit
    end_row = next(
        b for b in app.renderer.panel.buttons if b.action == ("option", len(app.match.pending.options) - 1)
    )
    assert feed(app, click(pg, end_row.rect.center)) == [EndTurn(uid)]


def _until_defence(match):
    """Attack (or end turns) until a defence decision is pending."""
    for _ in range(300):
        d = match.pending
        if d.kind == "defence":
            return d
        attack = next((o for o in d.options if isinstance(o.command, Attack)), None)
        if d.kind == "turn":
            match.apply(attack.command if attack else EndTurn(d.unit))
        else:
            match.apply(d.options[0].command)
    pytest.fail("no defence came up")


def test_retreat_point_is_chosen_by_clicking_inside_the_drawn_region(app, pg):
    d = _until_defence(app.match)
    app.tick()  # draws the retreat region, syncs the decision
    rows = [b for b in app.renderer.panel.buttons]
    assert len(rows) == 3 and app.renderer.scene.regions(d)[0].overlay == "retreat"
    retreat = d.options[2]
    me = app.match.pos(d.unit)
    # a click toward the attacker is refused with the validator's reason
    attacker = d.context["attacker"]
    bad = feed(app, [key(pg, pg.K_3), *click(pg, px(app.renderer, app.match.pos(attacker)))])
    assert bad == [] and app.ui.message_error and app.ui.armed == 2
    assert app.ui.message.startswith("dodge and retreat: ")
    # straight away from the attacker, one inch: on the legal ring (drawn 0.001 in wide); the
    # click lands on the nearest pixel and is snapped back onto the ring
    ax, ay = app.match.pos(attacker)
    k = 1.0 / math.dist(me, (ax, ay))
    p = (me[0] + (me[0] - ax) * k, me[1] + (me[1] - ay) * k)
    assert retreat.validate(p) is None
    x, y = app.renderer.camera.world_to_screen(*p)
    cmds = feed(app, click(pg, (round(x), round(y))))
    assert len(cmds) == 1 and isinstance(cmds[0], Defend) and cmds[0].kind == "dodge"
    assert math.dist(cmds[0].retreat_to, p) < 2.0 / app.renderer.camera.scale + 0.01
    assert retreat.validate(cmds[0].retreat_to) is None
    assert app.apply(cmds[0])
    assert app.match.pos(d.unit) != me


def test_save_and_load_without_the_saves_module_show_a_message(app, pg, monkeypatch):
    monkeypatch.setitem(sys.modules, "game.tools.saves", None)  # importing it now fails
    app.tick([key(pg, pg.K_F5)])
    assert app.ui.message_error and "game.tools.saves" in app.ui.message
    app.tick([key(pg, pg.K_F9)])
    assert app.ui.message_error and "game.tools.saves" in app.ui.message


def test_overlay_keys_toggle_and_help_lists_them(app, pg):
    assert "threat" not in app.ui.overlays
    app.tick([key(pg, pg.K_t), key(pg, pg.K_h)])
    assert "threat" in app.ui.overlays and app.ui.show_help
    app.tick([key(pg, pg.K_t), key(pg, pg.K_ESCAPE)])
    assert "threat" not in app.ui.overlays and not app.ui.show_help


def test_ai_side_answers_one_decision_per_frame(pg):
    from game.render.window import App

    match = Match(duel_spec(), seed=5)
    app = App(match, {"red": "random", "blue": "random"}, screen=pg.Surface((1000, 640)))
    for k in range(1, 6):
        app.tick()
        assert len(match.commands) == k
    match.close()


def test_dodge_move_point_is_clicked_in_the_disc(pg):
    """A real ruleset (ap-pool): after a successful dodge, the 2" disc is clicked."""
    from game.cli.render import advance
    from game.render.window import App
    from game.rules.ap_pool.commands import DodgeMove
    from game.scenario import load_scenario
    from game.tools.session import Session
    from tests.render.conftest import REPO

    spec = load_scenario(REPO / "scenarios" / "duel.yaml", "ap-pool")
    match = Match(spec, ruleset="ap-pool", seed=3, controllers={"red": "random", "blue": "random"})
    advance(Session(match), 0, "dodge_move")
    d = match.pending
    side = match.side(d.unit)
    app = App(
        match, {s: ("human" if s == side else "random") for s in spec.sides}, screen=pg.Surface((1180, 720))
    )
    app.tick()
    (shape,) = app.renderer.scene.regions(d)
    assert shape.overlay == "dodge"
    me = match.pos(d.unit)
    opt = d.options[shape.option]
    p = next(
        q
        for q in ((me[0], me[1] + 1.5), (me[0], me[1] - 1.5), (me[0] - 1.5, me[1]))
        if opt.validate(q) is None
    )
    x, y = app.renderer.camera.world_to_screen(*p)
    cmds = feed(app, click(pg, (round(x), round(y))))  # the only point option: no need to choose it first
    assert len(cmds) == 1 and isinstance(cmds[0], DodgeMove) and opt.validate(cmds[0].to) is None
    assert math.dist(cmds[0].to, p) < 1.0 / app.renderer.camera.scale + 0.01
    far = app.renderer.camera.world_to_screen(me[0] + 5.0, me[1])
    assert feed(app, click(pg, (round(far[0]), round(far[1])))) == []
    assert app.ui.message_error and app.ui.message.startswith(f"{opt.label}: ")
    match.close()


def test_window_ai_battle_logs_what_the_headless_runner_logs(pg):
    """AI against AI in the window (every overlay on, the cursor over units) changes nothing:
    the log is byte for byte the one game.tools.session.Session.play writes."""
    from game.render.ui import OVERLAYS
    from game.render.window import App
    from game.scenario import load_scenario
    from game.tools.session import Session
    from tests.render.conftest import REPO

    spec = load_scenario(REPO / "scenarios" / "duel.yaml", "ap-pool")
    windowed = Match(spec, ruleset="ap-pool", seed=2)
    app = App(windowed, {"red": "random", "blue": "random"}, screen=pg.Surface((1000, 640)))
    app.ui.overlays = set(OVERLAYS)
    for _ in range(400):
        if windowed.outcome is not None:
            break
        u = app.view.units()[app.frames % len(app.view.units())]
        app.tick(
            [
                pg.event.Event(
                    pg.MOUSEMOTION, pos=app.renderer.camera.to_px(*u.pos), rel=(0, 0), buttons=(0, 0, 0)
                )
            ]
        )
    headless = Match(spec, ruleset="ap-pool", seed=2)
    Session(headless, "random").play()
    assert windowed.outcome == headless.outcome
    assert windowed.log.to_text() == headless.log.to_text()
    windowed.close()
    headless.close()


def test_save_and_load_call_game_saves(app, pg, monkeypatch, tmp_path):
    import types

    calls = []
    fake = types.ModuleType("game.tools.saves")
    fresh = Match(duel_spec(), seed=11)

    def save_match(match, path):
        calls.append(("save", match, path))

    def load_match(path):
        calls.append(("load", path))
        return fresh

    fake.save_match, fake.load_match = save_match, load_match
    monkeypatch.setitem(sys.modules, "game.tools.saves", fake)
    app.save_path = tmp_path / "game.json"
    old = app.match
    app.tick([key(pg, pg.K_F5)])
    assert calls == [("save", old, tmp_path / "game.json")] and not app.ui.message_error
    app.tick([key(pg, pg.K_F9)])
    assert calls[-1] == ("load", tmp_path / "game.json")
    assert app.match is fresh and app.view.pending is fresh.pending and "loaded" in app.ui.message
    assert app.input.my_decision() is fresh.pending  # the window answers the loaded match now
    fresh.close()


def test_right_drag_pans_and_a_right_click_still_faces(app, pg):
    cam = app.renderer.camera
    before = (cam.origin_x, cam.origin_y)
    feed(
        app,
        [
            pg.event.Event(pg.MOUSEBUTTONDOWN, pos=(300, 300), button=3),
            pg.event.Event(pg.MOUSEMOTION, pos=(340, 320), rel=(40, 20), buttons=(0, 0, 1)),
            pg.event.Event(pg.MOUSEBUTTONUP, pos=(340, 320), button=3),
        ],
    )
    assert (cam.origin_x, cam.origin_y) != before  # dragged: the map moved, nobody turned
    cmds = feed(app, click(pg, (300, 300), button=3))
    assert len(cmds) == 1 and type(cmds[0]).__name__ == "Face"
