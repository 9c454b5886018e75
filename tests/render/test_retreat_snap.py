"""A GURPS retreat a human can make: the one-yard arc is drawn as a band, and a click 0.1" off it
(headless scripted play, ``game.render.script``) is snapped onto its nearest legal point and
accepted; a click far from it is refused with one line saying how far it is."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from game.ai import policy_names
from game.render.overlays import BAND_PX
from game.render.script import ScriptRunner, parse_script
from game.scenario import load_scenario
from game.tools.session import Setup
from tests.render.conftest import REPO

DUEL = REPO / "tests" / "fixtures" / "scenarios" / "duel-classic.yaml"  # the knives duel
CONTROLLERS = {"red": "aggressive", "blue": "human"}


def _off_arc(match, unit, attacker, by):
    """The point straight away from ``attacker``, one inch plus ``by`` from ``unit``'s centre."""
    (x, y), (ax, ay) = match.pos(unit), match.pos(attacker)
    k = (1.0 + by) / math.dist((x, y), (ax, ay))
    return x + (x - ax) * k, y + (y - ay) * k


def test_a_click_near_the_arc_retreats_to_its_nearest_legal_point(pg, tmp_path):
    from game.render.window import App

    spec = load_scenario(DUEL, "gurps", policies=policy_names())
    match = Setup(ruleset="gurps", seed=9, controllers=CONTROLLERS).build(spec)
    app = App(match, CONTROLLERS, screen=pg.Surface((1280, 800)))
    runner = ScriptRunner(app, tmp_path)
    # hendrik waits; vasco attacks; hendrik chooses "dodge and retreat" (row 3)
    runner.run(parse_script("wait\nkey return\nwait\nkey 3\n", "retreat.txt"))
    d = match.pending
    assert d is not None and d.unit == "hendrik" and d.kind == "defence" and app.ui.armed == 2
    option = d.options[2]
    assert option.point_field == "retreat_to"
    # the one-yard retreat is drawn as a band of lines, not a 0.001"-wide ring
    shape = next(s for s in app.renderer.scene.regions(d) if s.option == 2)
    assert shape.lines and not shape.rings
    start = match.pos("hendrik")

    far = _off_arc(match, "hendrik", "vasco", 0.6)
    runner.run(parse_script(f"click {far[0]:.4f} {far[1]:.4f}\n", "far.txt"))
    assert match.pending is d and app.ui.message_error
    # (a click lands on a pixel: about 0.02 in at this zoom)
    assert re.search(r"; the click is 0\.(59|60|61) in from the drawn region", app.ui.message)
    assert "\n" not in app.ui.message

    near = _off_arc(match, "hendrik", "vasco", 0.1)
    assert option.validate(near) is not None  # 0.1" off: not legal as it is
    runner.run(parse_script(f"click {near[0]:.4f} {near[1]:.4f}\nshot retreated\n", "near.txt"))
    defends = [c for c in match.commands if c.get("type") == "Defend" and c.get("unit") == "hendrik"]
    assert defends and defends[-1]["retreat_to"] is not None
    to = tuple(defends[-1]["retreat_to"])
    # accepted at the arc's point nearest the click: one inch from where hendrik stood
    assert math.dist(to, start) == pytest.approx(1.0, abs=1e-3)
    assert math.dist(to, near) == pytest.approx(0.1, abs=2.0 / app.renderer.camera.scale)
    assert match.pending is not d
    assert math.dist(match.pos("hendrik"), start) == pytest.approx(1.0, abs=1e-3)
    assert [p.name for p in runner.saved] == ["retreated.png"]
    app.close()


def test_the_band_is_as_wide_on_screen_at_every_zoom(pg):
    from game.render.camera import Camera
    from game.render.overlays import draw_band
    from game.render.text import Text

    arc = [np.array([(5.0 + math.cos(a), 5.0 + math.sin(a)) for a in np.linspace(-1.5, 1.5, 200)])]
    widths = []
    for scale in (20.0, 80.0):
        surf = pg.Surface((800, 800))
        surf.fill((0, 0, 0))
        cam = Camera(10.0, 10.0, (0, 0, 800, 800), scale, 0.0, 0.0)
        draw_band(surf, Text(), cam, arc, (255, 0, 0))
        # across the band where the arc crosses y = 5 (x = 6): count red pixels in that row
        y = round(5.0 * scale)
        row = [surf.get_at((x, y))[:3] for x in range(800)]
        widths.append(sum(1 for c in row if c == (255, 0, 0)))
    assert widths[0] == widths[1] and BAND_PX - 1 <= widths[0] <= BAND_PX + 1


def test_while_the_tape_is_out_no_path_preview_covers_its_reading(pg, tmp_path):
    from game.render.window import App

    spec = load_scenario(DUEL, "gurps", policies=policy_names())
    controllers = {"red": "human", "blue": "human"}
    match = Setup(ruleset="gurps", seed=1, controllers=controllers).build(spec)
    app = App(match, controllers, screen=pg.Surface((1280, 800)))
    runner = ScriptRunner(app, tmp_path)
    runner.run(parse_script("wait\nhover 9 9\n", "hover.txt"))
    app.tick()
    assert app.ui.preview is not None  # the path overlay previews a move to the cursor
    runner.run(parse_script("key l\ndrag 5 5 9 9\n", "tape.txt"))
    app.tick()
    assert app.ui.tape is not None and app.ui.preview is None
    app.close()
