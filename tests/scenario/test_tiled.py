"""Tiled maps as scenarios (game.scenario.tiled): the example map, the mapping, every error located."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import time
from pathlib import Path
from typing import Any

import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core.errors import ScenarioError
from game.core.files import LIMITS
from game.scenario import load_scenario, load_scenario_text
from game.scenario.embed import embedded, rebuild
from game.scenario.tiled import ELLIPSE_POINTS, convert, is_tiled
from game.scenario.tiled.to_yaml import scenario_yaml

REPO = Path(__file__).resolve().parents[2]
MAPS = REPO / "scenarios" / "maps"
TMJ = MAPS / "crossroads.tmj"
TMX = MAPS / "crossroads.tmx"
#: Keys of Tiled's JSON format (and ours), for the fuzz test.
_KEYS = ["type", "width", "height", "tilewidth", "tileheight", "infinite", "orientation", "layers", "objects",
         "properties", "name", "value", "id", "x", "y", "rotation", "polygon", "ellipse", "point", "gid",
         "offsetx", "offsety", "side", "height", "class", "_line"]  # fmt: skip


def _props(**values: Any) -> list[dict[str, Any]]:
    kinds = {str: "string", int: "int", float: "float", bool: "bool"}
    return [{"name": k, "type": kinds[type(v)], "value": v} for k, v in values.items()]


def _unit(oid: int, name: str, x: float, y: float, **props: Any) -> dict[str, Any]:
    return {"id": oid, "name": name, "point": True, "x": x, "y": y, "properties": _props(**props)}


def small_map(**top: Any) -> dict[str, Any]:
    """A 10 x 8 map of 32-pixel tiles: one wall, a red and a blue unit."""
    data: dict[str, Any] = {
        "type": "map",
        "version": "1.10",
        "tiledversion": "1.10.2",
        "orientation": "orthogonal",
        "renderorder": "right-down",
        "infinite": False,
        "width": 10,
        "height": 8,
        "tilewidth": 32,
        "tileheight": 32,
        "properties": _props(ruleset="gurps", rounds=3),
        "layers": [
            {"id": 1, "name": "ground", "type": "tilelayer", "width": 10, "height": 8, "data": [1] * 80},
            {
                "id": 2,
                "name": "obstacles",
                "type": "objectgroup",
                "objects": [
                    {"id": 1, "name": "wall", "x": 128, "y": 64, "width": 32, "height": 96, "rotation": 0},
                ],
            },
            {
                "id": 3,
                "name": "units",
                "type": "objectgroup",
                "objects": [
                    _unit(2, "red-1", 64, 128, side="red"),
                    _unit(3, "blue-1", 256, 128, side="blue", facing=180.0),
                ],
            },
        ],
    }
    data.update(top)
    return data


def load(data: Any, name: str = "map.tmj") -> Any:
    return load_scenario_text(json.dumps(data).encode(), name)


def problems(data: Any, name: str = "map.tmj") -> list[str]:
    with pytest.raises(ScenarioError) as e:
        load_scenario_text(json.dumps(data).encode() if not isinstance(data, bytes) else data, name)
    return [str(p) for p in e.value.problems]


def obstacles(data: dict[str, Any]) -> list[dict[str, Any]]:
    return data["layers"][1]["objects"]


# ---------------------------------------------------------------------------- the example map


def test_the_example_map_loads_the_same_from_json_and_xml() -> None:
    a, b = load_scenario(TMJ), load_scenario(TMX)
    assert (a.name, a.ruleset, a.round_limit, a.width, a.height) == ("Crossroads", "gurps", 40, 30, 24)
    assert a.controllers == b.controllers == {"red": "aggressive", "blue": "cautious"}
    assert a.description.startswith("Two patrols meet")
    assert len(a.obstacles) == 7 and len(a.units) == 8 and a.sides == ("red", "blue")
    assert a.obstacles == b.obstacles
    assert a.description == b.description
    # the same units; only the TMX ones know their line in the file
    assert [dataclasses.replace(u, line=0) for u in a.units] == [
        dataclasses.replace(u, line=0) for u in b.units
    ]
    assert all(u.line == 0 for u in a.units) and all(u.line > 0 for u in b.units)
    assert a.text == TMJ.read_text() and a.sha256 != b.sha256


def test_the_example_map_is_point_symmetric() -> None:
    """Each side's half of the table is the other's turned 180 degrees about the centre."""
    spec = load_scenario(TMJ)

    def turned(points: Any) -> Any:
        return shapely.affinity.rotate(shapely.Polygon(points), 180, origin=(15, 12))

    shapes = [shapely.Polygon(o.polygon) for o in spec.obstacles]
    for shape in shapes:
        assert any(turned(shape.exterior.coords).symmetric_difference(s).area < 1e-3 for s in shapes)
    spots = {u.id: u.at for u in spec.units}
    for uid, (x, y) in spots.items():
        if uid.startswith("red"):
            bx, by = spots[uid.replace("red", "blue")]
            assert (bx, by) == pytest.approx((30 - x, 24 - y))


def test_the_example_map_has_every_kind_of_object() -> None:
    top = json.loads(TMJ.read_text())
    assert {"version", "tiledversion", "orientation", "renderorder", "tilesets"} <= set(top)
    objects = [o for layer in top["layers"] if layer["type"] == "objectgroup" for o in layer["objects"]]
    assert any(o.get("ellipse") and o["rotation"] for o in objects)
    assert any("polygon" in o for o in objects)
    assert any(o["rotation"] and not o.get("ellipse") and "polygon" not in o for o in objects)
    assert any(o.get("point") for o in objects)
    assert any(layer["type"] == "tilelayer" for layer in top["layers"])


# ---------------------------------------------------------------------------- the mapping


def test_rectangles_turn_clockwise_about_their_top_left_corner() -> None:
    data = small_map()
    obstacles(data)[0].update(x=96, y=32, width=64, height=32, rotation=90)
    (wall,) = load(data).obstacles
    # (0,0) stays; (64,0) goes south to (0,64); all in 32-pixel tiles, offset by (3, 1) tiles
    assert wall.polygon == ((3, 1), (3, 3), (2, 3), (2, 1))  # rounded to 4 places: exact


def test_ellipses_become_polygons_on_the_ellipse_turned_like_rectangles() -> None:
    data = small_map()
    obstacles(data)[0].update(x=96, y=32, width=64, height=32, ellipse=True, rotation=30)
    (pond,) = load(data).obstacles
    assert len(pond.polygon) == ELLIPSE_POINTS
    a = math.radians(30)
    # the centre: the box's centre (1, 0.5) tiles from the origin, turned 30 degrees clockwise
    cx, cy = 3 + math.cos(a) - 0.5 * math.sin(a), 1 + math.sin(a) + 0.5 * math.cos(a)
    for x, y in pond.polygon:
        # back into the ellipse's own axes: on the ellipse of half-axes 1 and 0.5
        dx, dy = x - cx, y - cy
        u, v = dx * math.cos(a) + dy * math.sin(a), -dx * math.sin(a) + dy * math.cos(a)
        assert u**2 + (v / 0.5) ** 2 == pytest.approx(1, abs=1e-3)  # coordinates rounded to 1e-4
    area = shapely.Polygon(pond.polygon).area
    assert area == pytest.approx(math.pi * 1 * 0.5, rel=0.02)


def test_polygon_points_are_relative_to_the_object_and_layer_offsets_count() -> None:
    data = small_map()
    obstacles(data)[0] = {"id": 1, "name": "hedge", "x": 64, "y": 32, "polygon": [
        {"x": 0, "y": 0}, {"x": 64, "y": 0}, {"x": 0, "y": 32}]}  # fmt: skip
    data["layers"][1]["offsetx"] = 32
    (hedge,) = load(data).obstacles
    assert hedge.polygon == ((3, 1), (5, 1), (3, 2))


def test_properties_and_scale() -> None:
    data = small_map(properties=_props(ruleset="cortex", rounds="7", name="Tiny", inches_per_tile=0.5))
    wall = obstacles(data)[0]
    wall["properties"] = _props(height=1.5, size=2)
    data["layers"][2]["objects"][0]["properties"] = _props(
        side="red", facing=90.0, posture="kneeling", profile="veteran", base=0.4
    )
    spec = load(data)
    assert (spec.name, spec.ruleset, spec.round_limit) == ("Tiny", "cortex", 7)
    assert (spec.width, spec.height, spec.cell) == (5, 4, 0.5)
    (o,) = spec.obstacles
    assert (o.height, o.size) == (1.5, 2) and o.polygon[0] == (2, 1)
    red = spec.units[0]
    assert (red.at, red.facing, red.posture, red.profile, red.base) == (
        (1, 2),
        90,
        "kneeling",
        "veteran",
        0.4,
    )


def test_controller_properties_name_the_policy_of_each_side() -> None:
    data = small_map(properties=_props(ruleset="gurps", **{"controller.red": "cautious"}))
    assert load(data).controllers == {"red": "cautious", "blue": "random"}
    data = small_map(properties=_props(ruleset="gurps", **{"controller.red": "clever"}))
    with pytest.raises(ScenarioError) as e:
        load_scenario_text(json.dumps(data), "map.tmj", policies=["random", "cautious"])
    assert (
        str(e.value)
        == "map.tmj: map property 'controller.red': expected an AI policy (cautious, random), got 'clever'"
    )


def test_named_heights_default_high_and_ids_from_object_ids() -> None:
    data = small_map()
    obstacles(data)[0]["name"] = ""
    obstacles(data).append(
        {"id": 9, "x": 0, "y": 0, "width": 32, "height": 32, "properties": _props(height="low")}
    )
    data["layers"][2]["objects"][0]["name"] = ""
    spec = load(data)
    assert [(o.id, o.height) for o in spec.obstacles] == [("obstacle-1", 2.0), ("obstacle-9", 0.5)]
    assert spec.units[0].id == "unit-2"


def test_names_with_spaces_become_safe_ids_and_stay_in_the_notes() -> None:
    """An ordinary Tiled name ("yard wall") is imported as a safe id, the name kept for display
    (the written YAML's comment)."""
    data = small_map()
    obstacles(data)[0]["name"] = "yard wall"
    obstacles(data).append({"id": 9, "name": " well,  north ", "x": 0, "y": 0, "width": 32, "height": 32})
    data["layers"][2]["objects"][0]["name"] = "Captain\tRed"
    spec = load(data)
    assert [o.id for o in spec.obstacles] == ["yard-wall", "well,-north"]
    assert spec.units[0].id == "Captain-Red"
    text = scenario_yaml(convert(json.dumps(data).encode(), "map.tmj"), "map.tmj")
    assert "'yard wall'" in text and "id: yard-wall" in text
    assert load_scenario_text(text.encode(), "map.yaml").obstacles[0].id == "yard-wall"


def test_classes_groups_old_property_lists_and_tile_objects() -> None:
    """Class (1.9's ``class`` or ``type``) wins over the layer; group layers pass their role on;
    the pre-1.2 ``{"name": value}`` properties; a tile object unit stands at the tile's centre."""
    data = small_map()
    units = data["layers"].pop(2)
    units["name"] = "red team"
    units["objects"] = [units["objects"][0] | {"class": "unit"}, units["objects"][1] | {"type": "unit"}]
    units["objects"][1]["properties"] = {"side": "blue"}
    units["objects"][1].pop("point")
    units["objects"][1].update(gid=3, width=32, height=32, x=240, y=144)
    data["layers"].append({"id": 4, "name": "scenery", "type": "group", "layers": [units]})
    data["layers"].append({"id": 5, "name": "Obstacles", "type": "group", "offsetx": 0, "layers": [
        {"id": 6, "name": "rocks", "type": "objectgroup", "objects": [
            {"id": 7, "name": "rock", "x": 0, "y": 0, "width": 32, "height": 32}]}]})  # fmt: skip
    data["layers"].append({"id": 8, "name": "notes", "type": "objectgroup", "objects": [
        {"id": 10, "name": "label", "x": 0, "y": 0, "text": {"text": "hi"}}]})  # fmt: skip
    spec = load(data)
    assert [o.id for o in spec.obstacles] == ["wall", "rock"]
    assert [(u.id, u.side, u.at) for u in spec.units] == [
        ("red-1", "red", (2, 4)),
        ("blue-1", "blue", (8, 4)),
    ]


def test_is_tiled_reads_json_scenarios_as_scenarios() -> None:
    assert is_tiled("a.tmj", b"") and is_tiled("a.TMX", b"")
    assert is_tiled("a.json", json.dumps(small_map()).encode())
    assert not is_tiled("a.json", b'{"map": {"width": 5, "height": 5}, "units": []}')
    assert not is_tiled("a.yaml", b"type: map")
    assert load(small_map(), "map.json").name == "map"


def test_the_yaml_it_writes_loads_as_the_same_scenario() -> None:
    raw = TMJ.read_bytes()
    text = scenario_yaml(convert(raw, str(TMJ)), TMJ.name)
    a, b = load_scenario_text(raw, str(TMJ)), load_scenario_text(text, "crossroads.yaml")
    assert (a.obstacles, a.name, a.description, a.round_limit) == (
        b.obstacles,
        b.name,
        b.description,
        b.round_limit,
    )
    assert [dataclasses.replace(u, line=0) for u in a.units] == [
        dataclasses.replace(u, line=0) for u in b.units
    ]
    assert text.startswith("# Converted from the Tiled map crossroads.tmj")
    assert "# object 1: rectangle, rotated 20°, layer 'obstacles'" in text
    assert scenario_yaml(convert(raw, "m.tmj"), "m.tmj", ruleset="cortex").count("ruleset: cortex") == 1


def test_a_log_of_a_map_battle_rebuilds_without_the_file() -> None:
    """A log embeds the map's own text; rebuilding reads it as a map again (by the recorded name)."""
    spec = load_scenario(TMJ)
    header = {"scenario_path": str(TMJ), "scenario_sha256": spec.sha256, "ruleset": "gurps"}
    header |= embedded(spec, "gurps")
    assert header["scenario_text"] == TMJ.read_text()
    again = rebuild(header, "battle.jsonl")
    assert again.obstacles == spec.obstacles and again.units == spec.units


# ---------------------------------------------------------------------------- errors, located


def _mutate(change: Any) -> dict[str, Any]:
    data = small_map()
    change(data)
    return data


def _wall(data: dict[str, Any], **fields: Any) -> None:
    obstacles(data)[0].update(fields)


def _red(data: dict[str, Any], **fields: Any) -> None:
    data["layers"][2]["objects"][0].update(fields)


ERRORS = [
    (lambda d: d.pop("tilewidth"), "map.tmj: map: missing tilewidth (the tile width in pixels)"),
    (lambda d: d.update(tileheight=0), "map.tmj: map: tileheight: expected a number > 0"),
    (lambda d: d.update(infinite=True), "map.tmj: map: infinite maps have no edges"),
    (lambda d: d.update(orientation="isometric"), "map.tmj: map: orientation: expected an orthogonal map"),
    (lambda d: d.update(type="tileset"), 'map.tmj: map: expected a Tiled map ("type": "map")'),
    (
        lambda d: d.update(properties=_props(ruleset="gurps", rounds=3, inches_per_tile=-1.0)),
        "map.tmj: map: property 'inches_per_tile': expected a number > 0, got -1",
    ),
    (
        lambda d: d.update(properties=_props(rulset="gurps")),
        "map.tmj: map: unknown property 'rulset' (did you mean 'ruleset'?)",
    ),
    (
        lambda d: d.update(properties=_props(ruleset="gurps", rounds="many")),
        "map.tmj: map: property 'rounds': expected a number, got 'many'",
    ),
    (
        lambda d: _wall(d, properties=_props(height="tall")),
        "map.tmj: object 1 (wall): property 'height': expected low, high or a number > 0, got 'tall'",
    ),
    (
        lambda d: _wall(d, properties=_props(height=-1.0)),
        "map.tmj: object 1 (wall): property 'height': expected low, high or a number > 0, got -1",
    ),
    (
        lambda d: _wall(d, polygon=[{"x": 0, "y": 0}, {"x": 32, "y": 0}]),
        "map.tmj: object 1 (wall): a polygon needs at least 3 points, got 2",
    ),
    (
        lambda d: _wall(
            d, polygon=[{"x": 0, "y": 0}, {"x": 32, "y": 32}, {"x": 32, "y": 0}, {"x": 0, "y": 32}]
        ),
        "map.tmj: object 1 (wall): the polygon's edges cross each other: expected a simple outline",
    ),
    (lambda d: _wall(d, polyline=[{"x": 0, "y": 0}]), "map.tmj: object 1 (wall): a polyline is not closed"),
    (lambda d: _wall(d, point=True), "map.tmj: object 1 (wall): a point has no area"),
    (
        lambda d: _wall(d, width=0),
        "map.tmj: object 1 (wall): expected a rectangle with a width and height > 0",
    ),
    (lambda d: _wall(d, template="wall.tx"), "map.tmj: object 1 (wall): uses the template 'wall.tx'"),
    (lambda d: _wall(d, x="left"), "map.tmj: object 1 (wall): x: expected a number, got 'left'"),
    (lambda d: _red(d, properties=_props(facing=0.0)), "map.tmj: object 2 (red-1): missing property 'side'"),
    (
        lambda d: _red(d, properties=_props(side=3)),
        "map.tmj: object 2 (red-1): property 'side': expected text, got 3",
    ),
    (
        lambda d: _red(d, point=False, width=32, height=32),
        "map.tmj: object 2 (red-1): expected a point object for a unit",
    ),
    (
        lambda d: _red(d, properties=_props(side="red", sidde="x")),
        "map.tmj: object 2 (red-1): unknown property 'sidde' (did you mean 'side'?)",
    ),
    (
        lambda d: d["layers"][1].update(objects=5),
        "map.tmj: layer 2 (obstacles): objects: expected a list, got 5",
    ),
    # the scenario checker's problems, in the map's terms
    (
        lambda d: _red(d, x=144, y=96),
        "map.tmj: object 2 (red-1): position: expected the base clear of obstacles, but 'red-1' is inside "
        "obstacle 'wall'",
    ),
    (
        lambda d: _red(d, name="blue-1"),
        "map.tmj: object 3 (blue-1): name: expected a unique id, got 'blue-1' again (already the unit "
        "object 2 (blue-1))",
    ),
    (
        lambda d: _red(d, properties=_props(side="red", posture="lying")),
        "map.tmj: object 2 (red-1): property 'posture': expected one of 'standing'",
    ),
    (lambda d: _red(d, properties=_props(side="blue")), "map.tmj: map: expected units on at least 2 sides"),
    (
        lambda d: _red(d, x=-100),
        "map.tmj: object 2 (red-1): position: expected the base (radius 0.5) inside the map",
    ),
    (
        lambda d: d.update(properties=_props(ruleset="chess")),
        "map.tmj: map property 'ruleset': expected one of",
    ),
    (
        lambda d: d.update(properties=[]),
        "map.tmj: map property 'ruleset': missing required key 'ruleset' (or give --ruleset)",
    ),
    (lambda d: d.update(width=5000), "map.tmj: map: width: expected a number <= 1000"),
]


@pytest.mark.parametrize(("change", "expected"), ERRORS, ids=[e[1][9:60] for e in ERRORS])
def test_every_problem_is_one_located_line(change: Any, expected: str) -> None:
    found = problems(_mutate(change))
    assert any(p.startswith(expected) for p in found), found
    assert all("\n" not in p for p in found)


def test_every_bad_object_is_reported_at_once() -> None:
    def two_bad(d: dict[str, Any]) -> None:
        _wall(d, point=True)
        _red(d, properties={})

    found = problems(_mutate(two_bad))
    assert [p.split(":")[1] for p in found] == [" object 1 (wall)", " object 2 (red-1)"]


def test_tmx_problems_name_the_line() -> None:
    text = TMX.read_text().replace(
        '<property name="height" value="high"/>', '<property name="height" value="huge"/>', 1
    )
    found = problems(text.encode(), "map.tmx")
    line = (
        text.splitlines().index(
            '  <object id="1" name="farmhouse" x="224" y="96" width="128" height="80" rotation="20">'
        )
        + 1
    )
    assert found == [
        f"map.tmx:{line}: object 1 (farmhouse): property 'height': "
        "expected low, high or a number > 0, got 'huge'"
    ]


@pytest.mark.parametrize(
    ("raw", "name", "expected"),
    [
        (b'{"type": "map",', "m.tmj", "m.tmj:1: <root>: JSON syntax error"),
        (b"[" * 100_000 + b"]" * 100_000, "m.tmj", "m.tmj:1: <root>: JSON nested too deep"),
        (b'{"type": "map", "width": NaN}', "m.tmj", "m.tmj:1: <root>: JSON refused: NaN is not a number"),
        (b"\xff\xfe", "m.tmj", "m.tmj:1: <root>: expected UTF-8 text, got byte 0xff"),
        (b"[1, 2]", "m.tmj", "m.tmj: map: expected a Tiled map (a JSON object), got a list of 2"),
        (b"<map", "m.tmx", "m.tmx:1: <root>: XML syntax error"),
        (b"<tileset/>", "m.tmx", "m.tmx:1: <root>: expected a Tiled map (<map> element), got a tileset"),
        (b"<map>" + b"<group>" * 100 + b"</group>" * 100 + b"</map>", "m.tmx", "elements nested too deep"),
        (
            b'<!DOCTYPE map [<!ENTITY x SYSTEM "file:///etc/passwd">]><map>&x;</map>',
            "m.tmx",
            "m.tmx:1: <root>: a DTD (<!DOCTYPE ...>) is not allowed",
        ),
    ],
)
def test_hostile_or_broken_files_are_one_located_line(raw: bytes, name: str, expected: str) -> None:
    found = problems(raw, name)
    assert len(found) == 1 and expected in found[0], found


def test_billion_laughs_is_refused_at_once() -> None:
    lol = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10))
    raw = f'<?xml version="1.0"?><!DOCTYPE map [<!ENTITY l0 "lol">{lol}]><map width="&l9;"/>'.encode()
    start = time.perf_counter()
    found = problems(raw, "lol.tmx")
    assert time.perf_counter() - start < 1
    assert found == [
        "lol.tmx:1: <root>: a DTD (<!DOCTYPE ...>) is not allowed in a map (Tiled never writes one)"
    ]


def test_a_map_over_the_size_limit_is_not_read(tmp_path: Path) -> None:
    big = tmp_path / "big.tmx"
    big.write_bytes(b"<map>" + b" " * LIMITS["map"] + b"</map>")
    with pytest.raises(ScenarioError) as e:
        load_scenario(big)
    assert (
        str(e.value)
        == f"{big}: too large ({LIMITS['map'] + 11} bytes; the limit for a map is {LIMITS['map']})"
    )


def test_junk_never_raises_anything_but_a_scenario_error() -> None:
    base = small_map()
    junk: list[Any] = [None, 3, "x", [], {}, [None], {"x": None}, -1e308, True]
    wall, red = ("layers", 1, "objects", 0), ("layers", 2, "objects", 0)
    paths = [("layers",), ("layers", 1), wall[:3], wall, (*wall, "properties"), (*red, "properties", 0),
             ("properties",), ("properties", 0, "value"), (*wall, "rotation")]  # fmt: skip
    for path in paths:
        for value in junk:
            data = copy.deepcopy(base)
            holder = data
            for key in path[:-1]:
                holder = holder[key]
            holder[path[-1]] = value
            try:
                load(data)
            except ScenarioError as e:
                assert all("\n" not in str(p) for p in e.problems)


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(_KEYS), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(_KEYS), _json, max_size=8))
def test_any_json_map_is_a_spec_or_located_problems(top: dict[str, Any]) -> None:
    """Random trees over Tiled's own keys: a spec, or problems each one line; nothing else raised."""
    try:
        load(small_map(**top))
    except ScenarioError as e:
        assert e.problems and all("\n" not in str(p) for p in e.problems)
