"""Pure parts of the presentation layer: camera, colours, sentences, menus, click snapping."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from shapely.geometry import Point as SPoint

from components.sight import CoverLevel
from game.core.commands import Attack, Decision, Defend, EndTurn, Modifier, Move, Option
from game.engine.view import UnitView
from game.render import colors
from game.render.camera import MAX_SCALE, Camera
from game.render.inspect import option_lines, percent, resolve_point
from game.render.sentences import sentence, sentences
from game.render.shapes import fan_polygon, region_rings
from game.render.ui import UiState, menu_rows


# ---------------------------------------------------------------------- camera
def test_camera_fits_a_non_square_map_and_round_trips():
    cam = Camera.fitted(40.0, 20.0, (0, 0, 800, 600))
    # the wide map is limited by the width: 800 px * 0.92 / 40 in
    assert cam.scale == pytest.approx(800 * 0.92 / 40)
    cx, cy = cam.world_to_screen(20.0, 10.0)
    assert (cx, cy) == pytest.approx((400.0, 300.0))
    # x east -> right, y south -> down, not swapped
    x1, y1 = cam.world_to_screen(30.0, 10.0)
    x2, y2 = cam.world_to_screen(20.0, 15.0)
    assert x1 > cx and y1 == pytest.approx(cy)
    assert y2 > cy and x2 == pytest.approx(cx)
    for p in [(0.0, 0.0), (40.0, 20.0), (3.25, 17.5)]:
        assert cam.screen_to_world(*cam.world_to_screen(*p)) == pytest.approx(p)


def test_camera_zoom_keeps_the_point_under_the_cursor():
    cam = Camera.fitted(64.0, 32.0, (10, 20, 900, 700))
    before = cam.screen_to_world(300, 250)
    cam.zoom_at(300, 250, 1.7)
    assert cam.screen_to_world(300, 250) == pytest.approx(before)
    cam.zoom_at(300, 250, 1e6)
    assert cam.scale == MAX_SCALE


def test_camera_pan_moves_the_map_with_the_drag_and_changes_the_key():
    cam = Camera.fitted(20.0, 12.0, (0, 0, 640, 480))
    key = cam.key()
    p = cam.world_to_screen(5.0, 5.0)
    cam.pan(30, -10)
    q = cam.world_to_screen(5.0, 5.0)
    assert (q[0] - p[0], q[1] - p[1]) == pytest.approx((30.0, -10.0))
    assert cam.key() != key


def test_resize_keeps_the_centre():
    cam = Camera.fitted(20.0, 12.0, (0, 0, 640, 480))
    centre = cam.screen_to_world(320, 240)
    cam.set_viewport((0, 0, 1000, 800))
    assert cam.screen_to_world(500, 400) == pytest.approx(centre)


# ---------------------------------------------------------------------- colours
def test_side_colours_are_stable():
    assert colors.side_color("red", ("red", "blue")) == colors.NAMED_SIDES["red"]
    assert colors.side_color("blue", ("blue", "red")) == colors.NAMED_SIDES["blue"]
    sides = ("red", "green", "blue", "gold")
    assert colors.side_color("green", sides) == colors.EXTRA_SIDES[0]
    assert colors.side_color("gold", sides) == colors.EXTRA_SIDES[1]


def test_obstacles_darken_with_height():
    low, high, tall = (colors.obstacle_color(h) for h in (0.5, 2.0, 5.0))
    assert sum(low) > sum(high)
    assert high == tall == colors.OBSTACLE_HIGH


# ---------------------------------------------------------------------- units
def _unit(health, maxima, alive=True):
    return UnitView(
        "u", "red", (1.0, 1.0), 0.0, "standing", 0.5, 1.0, 2, 2, health, maxima, (), alive, "trooper", "human"
    )


def test_health_fraction_counts_down_hit_points_and_up_wounds():
    from game.render.units import health_fraction

    assert health_fraction(_unit((("hp", 6),), (("hp", 12),)), {"hp": 12}) == pytest.approx(0.5)
    assert health_fraction(_unit((("wounds", 1),), (("wounds", 4),)), {"wounds": 0}) == pytest.approx(0.75)
    both = _unit((("stun", 3), ("wounds", 2)), (("stun", 6), ("wounds", 4)))
    assert health_fraction(both, {"stun": 0, "wounds": 0}) == pytest.approx(0.5)
    assert health_fraction(_unit((), ())) == 1.0


# ---------------------------------------------------------------------- geometry of overlays
def test_fan_is_tangent_to_the_target_base():
    a, t, r = (0.0, 0.0), (10.0, 0.0), 1.0
    _, p1, p2 = fan_polygon(a, t, r)
    for p in (p1, p2):
        assert math.dist(p, t) == pytest.approx(r)
        # tangent: radius at the touching point is perpendicular to the sight ray
        assert (p[0] - a[0]) * (p[0] - t[0]) + (p[1] - a[1]) * (p[1] - t[1]) == pytest.approx(0.0, abs=1e-9)
    assert p1[1] < 0 < p2[1]


def test_region_rings_keep_holes():
    ring = SPoint(0, 0).buffer(3).difference(SPoint(0, 0).buffer(1))
    (ext, holes), *_ = region_rings(ring)
    assert len(holes) == 1 and ext.shape[1] == 2
    assert region_rings(None) == []


# ---------------------------------------------------------------------- sentences
EVENTS = [
    {
        "seq": 0,
        "round": 0,
        "type": "match_start",
        "scenario": "Duel",
        "ruleset": "gurps",
        "seed": 3,
        "units": [{}, {}],
    },
    {"seq": 1, "round": 1, "type": "round_start", "order": ["a", "b"], "state_hash": "x"},
    {"seq": 2, "round": 1, "type": "turn_start", "unit": "a", "ap": 2, "at": [1, 2]},
    {
        "seq": 3,
        "round": 1,
        "type": "command",
        "unit": "a",
        "decision": "turn",
        "command": {"type": "EndTurn"},
    },
    {
        "seq": 4,
        "round": 1,
        "type": "move",
        "unit": "a",
        "from": [1, 2],
        "to": [3.5, 2],
        "ap": 1,
        "length": 2.5,
    },
    {"seq": 5, "round": 1, "type": "facing", "unit": "a", "from": 0, "to": 90.0, "ap": 0},
    {"seq": 6, "round": 1, "type": "posture", "unit": "a", "from": "standing", "to": "kneeling", "ap": 1},
    {
        "seq": 7,
        "round": 1,
        "type": "roll",
        "purpose": "attack",
        "unit": "a",
        "dice": "3d6",
        "faces": [1, 2, 3],
    },
    {"seq": 8, "round": 1, "type": "attack", "attacker": "a", "target": "b", "weapon": "sword", "hit": True},
    {"seq": 9, "round": 1, "type": "defence", "unit": "b", "kind": "dodge", "success": False},
    {
        "seq": 10,
        "round": 1,
        "type": "retreat",
        "unit": "b",
        "from": [5, 5],
        "to": [6, 5],
        "ap": 0,
        "length": 1.0,
    },
    {
        "seq": 11,
        "round": 1,
        "type": "damage",
        "unit": "b",
        "source": "a",
        "deltas": {"hp": -3},
        "before": {"hp": 10},
        "after": {"hp": 7},
    },
    {"seq": 12, "round": 1, "type": "status", "unit": "b", "flag": "dead", "on": True, "reason": "shot"},
    {"seq": 13, "round": 1, "type": "casualty", "unit": "b", "reason": "shot", "at": [6, 5]},
    {"seq": 14, "round": 1, "type": "ap", "unit": "a", "spent": 1, "left": 0, "reason": "move"},
    {"seq": 15, "round": 1, "type": "turn_end", "unit": "a", "ap_left": 0},
    {"seq": 16, "round": 1, "type": "omen", "unit": "b", "attacker": "a", "net_successes": 0},
    {
        "seq": 17,
        "round": 1,
        "type": "match_end",
        "winner": "red",
        "reason": "last side standing",
        "rounds": 1,
    },
]


def test_every_event_type_reads_as_a_sentence():
    out = sentences(EVENTS)
    assert len(out) == len(EVENTS) - 2  # ap and turn_end are bookkeeping; an ended turn is told
    text = "\n".join(out)
    for expected in (
        "Match starts: Duel under gurps rules, seed 3, 2 units.",
        "Round 1 begins; order: a, b.",
        "a's turn (2 AP).",
        "a ends its turn.",
        "a moves 2.50 in to (3.50, 2) (1 AP).",
        "a turns to face 90° (S).",
        "a goes from standing to kneeling (1 AP).",
        "a rolls 3d6 for attack: 1+2+3 = 6.",
        "a attacks b with sword: hit.",
        "b tries to dodge: fails.",
        "b retreats 1 in to (6, 5).",
        "b loses 3 HP from a (HP 10 -> 7).",
        "b is dead (shot).",
        "b is out of action: shot.",
        "b: omen (net successes 0).",  # a type no sentence knows: told from its fields
        "red wins (last side standing) after 1 round.",
    ):
        assert expected in text, expected
    assert sentence({"seq": 0, "round": 0, "type": "ap"}) is None


# ---------------------------------------------------------------------- menus and odds text
def _decision():
    return Decision(
        "red-1",
        "turn",
        (
            Option(Move("red-1"), "move", point_field="to", region=SPoint(0, 0).buffer(2)),
            Option(Attack("red-1", "blue-1", "gun"), "shoot blue-1", p_success=0.5),
            Option(Attack("red-1", "blue-2", "gun"), "shoot blue-2", p_success=0.25),
            Option(Attack("red-1", "blue-2", "knife"), "stab blue-2", p_success=0.75),
            Option(EndTurn("red-1"), "end turn"),
        ),
    )


def test_numbered_rows_never_depend_on_the_cursor_and_attacks_are_listed_by_target():
    from game.core.commands import ChangePosture, Decision, Option
    from game.render.ui import attack_rows, own_key_rows

    d = _decision()
    kneel = Option(ChangePosture("red-1", "kneeling"), "kneel")
    d = Decision(d.unit, d.kind, (*d.options[:4], kneel, d.options[4]))
    ui = UiState()
    assert menu_rows(d, ui) == [4]  # the move is a click, attacks a click or Ctrl+N, end turn Enter
    for target, menu in (("blue-2", None), ("blue-1", "blue-1"), (None, None)):
        ui.target, ui.attack_menu = target, menu
        assert menu_rows(d, ui) == [4]
    assert own_key_rows(d) == [("Enter", 5)]
    assert attack_rows(d, "blue-2") == [2, 3] and attack_rows(d, "blue-1") == [1]
    assert menu_rows(None, ui) == [] and attack_rows(None, "blue-1") == []
    defence = Decision("red-1", "defence", d.options[:2])
    assert menu_rows(defence, ui) == [0, 1]  # a reaction numbers all its options


def test_option_lines_show_odds_modifiers_and_details():
    opt = Option(
        Defend("b", "dodge"),
        "dodge and retreat",
        p_success=0.740740740,
        modifiers=(Modifier("retreat", 3, "defence"), Modifier("shock", -2, "defence")),
        detail={"effective": 11, "p_hurt": 0.125},
    )
    lines = option_lines(opt)
    assert lines[0] == "dodge and retreat: 74.1%"
    assert "+3 retreat (defence)" in lines[1] and "-2 shock (defence)" in lines[2]
    assert lines[3].strip() == "effective: 11" and lines[4].strip() == "chance to hurt: 12.5%"
    assert percent(None) == "—" and percent(1.0) == "100.0%"


def test_resolve_point_rounds_snaps_and_explains():
    region = (
        SPoint(5.0, 5.0).buffer(1.0, quad_segs=64).exterior.buffer(1e-3)
    )  # a thin ring, like a 1-yd retreat

    def validate(p):  # like the engine's: within 0.001" of the band (RETREAT_SNAP_TOL)
        d = math.dist(p, (5.0, 5.0))
        return None if abs(d - 1.0) <= 1e-3 else f"a retreat is exactly 1 in (this is {d:.2f} in)"

    opt = Option(
        Defend("b", "dodge"), "dodge and retreat", point_field="retreat_to", region=region, validate=validate
    )
    p, why = resolve_point(opt, (6.03, 5.0), (5.0, 5.0), snap=0.1)
    assert why is None and math.dist(p, (5.0, 5.0)) == pytest.approx(1.0, abs=1e-3)
    p, why = resolve_point(opt, (7.5, 5.0), (5.0, 5.0), snap=0.1)
    assert p is None and why == (
        "a retreat is exactly 1 in (this is 2.50 in); the click is 1.50 in from the drawn region: "
        "click on or next to it"
    )
    free = Option(Move("a"), "move", point_field="to", region=SPoint(0, 0).buffer(5), validate=lambda p: None)
    assert resolve_point(free, (1.23456, 2.34567), (0.0, 0.0), 0.1) == ((1.23, 2.35), None)


def test_cover_colours_cover_every_level():
    assert set(colors.COVER_COLORS) == set(CoverLevel)


def test_help_lists_every_binding_and_overlay_state():
    from game.render.ui import ACTION_KEYS, OVERLAY_KEYS, help_rows

    rows = help_rows({"sight"})
    keys = {(k, t) for _, k, t in rows}
    assert ("Enter, E", "end turn") in keys and ("arrows", "pan the map") in keys
    overlays = [t for s, _, t in rows if s.startswith("Overlays")]
    assert len(overlays) == len(OVERLAY_KEYS)
    assert overlays[0].startswith("[on] sight") and all(t.startswith("[off]") for t in overlays[1:])
    actions = {a for a, _ in ACTION_KEYS.values()}
    # the numbered rows and the Ctrl+N attacks are told besides the actions (pan once)
    assert (
        len([r for r in rows if r[0] == "Keys"]) == len({a for a in actions if not a.startswith("pan_")}) + 3
    )
    assert any(k == "Ctrl+1-9" for _, k, _ in rows) and any(k == "O" for _, k, _ in rows)


def test_option_rows_say_the_odds_once_and_context_says_which_defence() -> None:
    from game.core.commands import Decision, Option
    from game.render.inspect import context_line
    from game.render.panel import option_row

    named = Option(command=None, label="dodge and retreat 11 (62.5%)", p_success=0.625)
    bare = Option(command=None, label="parry", p_success=0.5)
    assert option_row(named, "3") == "[3] dodge and retreat 11 (62.5%)"
    assert option_row(bare, "4") == "[4] parry  50.0%"
    d = Decision("hendrik", "defence", (bare,), context={"attacker": "vasco", "stage": 2})
    assert context_line(d) == "attacked by vasco, defence 2"


def test_every_event_of_the_golden_logs_has_a_sentence_of_its_own() -> None:
    """No logged event type falls back to the field-by-field sentence (issue 19: no internal text)."""
    import gzip
    import json

    from game.render import sentences as s

    root = Path(__file__).resolve().parents[1] / "golden" / "logs"
    kinds = set()
    for f in sorted(root.glob("*.jsonl.gz")):
        with gzip.open(f, "rt") as lines:
            kinds |= {json.loads(line)["type"] for line in lines}
    told = set(s.SKIPPED) | set(s.MOVE_VERBS) | set(s._PHRASES)
    assert kinds - told == set()
