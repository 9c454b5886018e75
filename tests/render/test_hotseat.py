"""A scripted hotseat game played through the window (game.render.script lines) ends exactly like the same
commands given to the match directly (same event log, byte for byte)."""

from __future__ import annotations

from game.core.commands import Attack, ChangePosture, Defend, EndTurn, Move, command_to_json
from game.engine.match import Match
from game.render.script import ScriptRunner, parse_script
from game.render.ui import menu_rows
from game.rules.ap_pool.commands import DodgeMove
from tests.render.helpers import axis_points, duel_spec, pin_camera, toward

SEED = 7


def intend(match):
    """The scripted player's choice for the pending decision (a pure function of the match)."""
    d = match.pending
    opts = d.options
    if d.kind == "defence":
        for o in opts:
            if o.point_field == "retreat_to":
                for p in axis_points(match.pos(d.unit), 1.0):
                    if o.validate(p) is None:
                        return o.with_point(p)
        return next(o.command for o in opts if o.command.kind == "dodge")
    if d.kind == "dodge_move":
        for o in opts:
            if o.point_field == "to":
                for p in axis_points(match.pos(d.unit), 2.0):
                    if o.validate(p) is None:
                        return o.with_point(p)
        return opts[0].command
    move = next((o for o in opts if isinstance(o.command, Move)), None)
    me = match.pos(d.unit)
    enemy = min(match.enemies(d.unit), key=lambda e: match.distance(d.unit, e))
    if move is not None and match.ap(d.unit).current == 2 and match.distance(d.unit, enemy) > 6.0:
        for dist in (3.0, 2.0, 1.0):
            p = toward(me, match.pos(enemy), dist)
            if move.validate(p) is None:
                return move.with_point(p)
    attack = next((o for o in opts if isinstance(o.command, Attack)), None)
    if attack is not None:
        return attack.command
    posture = next((o for o in opts if isinstance(o.command, ChangePosture)), None)
    if posture is not None and match.posture(d.unit) == "standing" and match.round == 2:
        return posture.command
    return EndTurn(d.unit)


def gestures(app, cmd):
    """The script lines (game.render.script) a player uses to give ``cmd``."""
    d = app.match.pending

    def at(p):
        return [f"click {p[0]!r} {p[1]!r}"]

    def row_key(pred):
        idx = next(i for i, o in enumerate(d.options) if pred(o))
        row = menu_rows(d, app.ui).index(idx)
        return f"key {(row + 1) % 10}"

    if isinstance(cmd, Move):
        return at(cmd.to)
    if isinstance(cmd, Attack):
        return [f"click {cmd.target}"]
    if isinstance(cmd, EndTurn):
        return ["key return"]
    if isinstance(cmd, ChangePosture):
        return ["key z"]
    if isinstance(cmd, Defend):
        if cmd.retreat_to is not None:
            return [row_key(lambda o: o.point_field == "retreat_to"), *at(cmd.retreat_to)]
        return [row_key(lambda o: o.point_field is None and o.command == cmd)]
    if isinstance(cmd, DodgeMove):
        if cmd.to is not None:
            return [row_key(lambda o: o.point_field == "to"), *at(cmd.to)]
        return [row_key(lambda o: o.point_field is None)]
    raise AssertionError(f"no gesture for {cmd!r}")


def test_hotseat_through_the_input_layer_matches_direct_commands(pg):
    from game.render.window import App

    ui_match = Match(duel_spec(), seed=SEED)
    app = App(ui_match, {"red": "human", "blue": "human"}, screen=pg.Surface((1180, 720)))
    pin_camera(app.renderer)
    app.tick()
    runner = ScriptRunner(app)
    given = []
    while ui_match.outcome is None:
        cmd = intend(ui_match)
        given.append(cmd)
        n = len(ui_match.commands)
        runner.run(parse_script("\n".join(gestures(app, cmd)), "hotseat"))
        assert len(ui_match.commands) == n + 1, (cmd, app.ui.message)
        assert ui_match.commands[-1] == command_to_json(cmd)
        assert len(given) < 400
    kinds = {e["type"] for e in ui_match.log}
    assert {"move", "attack", "retreat", "match_end"} <= kinds  # the script exercised the main gestures

    direct = Match(duel_spec(), seed=SEED)
    for cmd in given:
        direct.apply(cmd)
    assert direct.outcome == ui_match.outcome
    assert direct.log.to_text() == ui_match.log.to_text()
    ui_match.close()
    direct.close()
