"""Tiled maps (``.tmj``/``.json`` JSON, ``.tmx`` XML) turned into scenario data (docs/tiled.md).

Contract:

- :func:`is_tiled` says whether a file is a Tiled map: a ``.tmj`` or ``.tmx`` name, or a
  ``.json`` one whose text is a JSON object with ``"type": "map"`` (any other ``.json`` is a
  scenario written as JSON, read as YAML as before).
- :func:`convert` turns the map's bytes into a :class:`TiledScenario`: the plain data of a
  scenario file (the shape :class:`~game.scenario.schema.ScenarioFile` validates) and where each
  obstacle and unit came from. One tile is one inch, or the map's float property
  ``inches_per_tile``; object coordinates are pixels, divided by ``tilewidth``/``tileheight``.
  Tiled's y axis points down like ours. Objects of class (``type`` in the file; ``class`` in
  Tiled 1.9) ``obstacle``, or in an object layer (or group layer) named ``obstacles``, are
  obstacles: polygons (points relative to the object), rectangles and tile objects (rotated
  clockwise about their origin: top-left, bottom-left for tiles), ellipses (polygonised with
  :data:`ELLIPSE_POINTS` points, rotated likewise); the id is the object's name, else
  ``obstacle-<id>``; a name with spaces or characters an id cannot hold (``yard wall``) becomes
  a safe id (:func:`safe_id`: ``yard-wall``) and the name is kept in the
  item's note (a comment of the written YAML) and in problems; properties ``height`` (``low``,
  ``high`` or a number; default ``high``) and ``size``. Objects of class ``unit``, or in a layer
  named ``units``, are units: point objects (or tile objects, at the tile's centre); the id is
  the name (made safe likewise), else ``unit-<id>``; properties
  ``side`` (required), ``facing``, ``posture``, ``profile``, ``base``, ``size``. Map properties
  ``name``, ``description``, ``ruleset``, ``rounds``, ``yards_per_inch`` fill those keys, and
  ``controller.<side>`` the AI policy of a side (``controllers``). Other
  objects, layers and properties are ignored (a property name close to a known one is an error:
  a typo). Hidden layers count (collision layers are often hidden). Templates, infinite and
  non-orthogonal maps are refused with a message saying what to do in Tiled.
- Every problem is a :class:`~game.core.errors.Problem` located as ``map.tmj: object 7
  (hedge): ...`` (the TMX line too: ``map.tmx:42: object 7 (hedge): ...``); :func:`convert`
  raises :class:`~game.core.errors.ScenarioError` with all of them. :meth:`TiledScenario.document`
  gives the data as a :class:`~game.scenario.yaml_source.YamlDoc` for the scenario checker, and
  :meth:`TiledScenario.relocate` words the checker's problems (``units.2.at``) in the map's terms
  (``object 12 (red-1): position``). Nothing here raises anything else on any input.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

import shapely

from game.core.errors import Problem, ScenarioError
from game.scenario.tiled.tmx import TmxError, tmx_to_json
from game.scenario.yaml_source import KeyPath, YamlDoc

#: File suffixes always read as Tiled maps; ``.json`` is one when its ``type`` is ``map``.
MAP_SUFFIXES = (".tmj", ".tmx")
#: Points of a polygonised ellipse.
ELLIPSE_POINTS = 24
#: Decimal places kept of every coordinate, in inches (a ten-thousandth of an inch).
PLACES = 4
#: Most obstacles plus units read from one map.
MAX_OBJECTS = 5_000
#: Deepest nesting of group layers read.
MAX_GROUP_DEPTH = 32
#: Height of an obstacle without a ``height`` property: a wall, which blocks sight.
DEFAULT_HEIGHT = "high"

#: Map properties read, with the kind of value each takes.
MAP_PROPERTIES = {
    "name": "text",
    "description": "text",
    "ruleset": "text",
    "rounds": "number",
    "inches_per_tile": "number",
    "yards_per_inch": "number",
}
#: Map properties ``controller.<side>`` name the AI policy of a side (the scenario's ``controllers``).
CONTROLLER_PREFIX = "controller."
OBSTACLE_PROPERTIES = {"height": "height", "size": "number"}
UNIT_PROPERTIES = {
    "side": "text",
    "facing": "number",
    "posture": "text",
    "profile": "text",
    "base": "number",
    "size": "number",
}


class _Bad(Exception):
    """One problem with the thing being converted (caught per object or for the map)."""


@dataclass(frozen=True)
class Origin:
    """Where a converted item came from: ``label`` (``object 7 (hedge)``) and its TMX line (or 0)."""

    label: str
    line: int = 0


@dataclass
class TiledScenario:
    """A map converted to scenario data (see the module docstring).

    Attributes:
        source: the map's name in problems.
        data: the scenario's plain data (only keys the map gives: defaults stay the schema's).
        origins: the map object behind each ``("obstacles", i)`` / ``("units", i)``.
        notes: a short description of each converted item, for comments in written YAML.
    """

    source: str
    data: dict[str, Any]
    origins: dict[KeyPath, Origin] = field(default_factory=dict)
    notes: dict[KeyPath, str] = field(default_factory=dict)
    map_line: int = 0

    def document(self) -> YamlDoc:
        """The data as a parsed document, each item at its map object's line (0 for JSON)."""
        doc = YamlDoc(self.source, self.data)
        doc.lines[()] = self.map_line
        for path, origin in self.origins.items():
            doc.lines[path] = origin.line
        return doc

    def relocate(self, problems: Iterable[Problem]) -> list[Problem]:
        """The checker's problems about :attr:`data` worded in the map's terms."""
        return [self._relocated(p) for p in problems]

    def _label_of(self, match: re.Match[str]) -> str:
        origin = self.origins.get((match.group(1), int(match.group(2))))
        return origin.label if origin is not None else match.group(0)

    def _relocated(self, p: Problem) -> Problem:
        if p.source != self.source:
            return p  # a problem of another file (the shared profiles)
        parts = p.path.split(".") if p.path else []
        message = re.sub(r"\b(obstacles|units)\.(\d+)\b", self._label_of, p.message)
        if not self.map_line:  # a JSON map has no lines to cite
            message = message.replace(" (line 0)", "").replace(", line 0)", ")")
        if len(parts) >= 2 and parts[0] in ("obstacles", "units") and parts[1].isdigit():
            origin = self.origins.get((parts[0], int(parts[1])), Origin(f"{parts[0][:-1]} {parts[1]}"))
            rest = parts[2] if len(parts) > 2 else ""
            what = {"at": "position", "polygon": "shape", "id": "name", "": ""}.get(
                rest, f"property {rest!r}"
            )
            return Problem(p.source, origin.line, origin.label, f"{what}: {message}" if what else message)
        if (parts and parts[0] in MAP_PROPERTIES) or parts[:2] == ["scale", "yards_per_inch"]:
            return Problem(p.source, p.line, f"map property {parts[-1]!r}", message)
        if len(parts) == 2 and parts[0] == "controllers":
            return Problem(p.source, p.line, f"map property '{CONTROLLER_PREFIX}{parts[1]}'", message)
        if parts and parts[0] == "map":
            key = parts[1] if len(parts) > 1 else ""
            what = {"width": "width", "height": "height", "cell": "inches_per_tile"}.get(key, key)
            return Problem(p.source, p.line, "map", f"{what}: {message}" if what else message)
        return Problem(p.source, p.line, "map", message)


def is_tiled(source: str, raw: bytes) -> bool:
    """Whether the file named ``source`` with bytes ``raw`` is a Tiled map (module docstring)."""
    suffix = PurePath(source).suffix.lower()
    if suffix in MAP_SUFFIXES:
        return True
    if suffix != ".json":
        return False
    try:
        top = json.loads(raw.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return False
    return isinstance(top, dict) and top.get("type") == "map"


def read_kind(path: str | os.PathLike[str]) -> str:
    """The :data:`~game.core.files.LIMITS` kind a scenario path is read as: a map may be larger."""
    return "map" if PurePath(path).suffix.lower() in (*MAP_SUFFIXES, ".json") else "scenario"


def _line(holder: dict[str, Any], default: int = 0) -> int:
    """The TMX line :mod:`~game.scenario.tiled.tmx` recorded (a JSON map has none: any it writes
    is not ours)."""
    value = holder.get("_line")
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def _label(kind: str, holder: dict[str, Any]) -> str:
    """``object 7 (hedge)``: what Tiled's Objects and Layers panels show."""
    ident = holder.get("id", "?")
    name = holder.get("name")
    text = f"{kind} {ident if isinstance(ident, int) and not isinstance(ident, bool) else _shown(ident)}"
    if isinstance(name, str) and name:
        text += f" ({name if len(name) <= 40 else name[:37] + '...'})"
    return text


def _fmt(x: float) -> str:
    return f"{x:g}"


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _finite(value: Any, what: str) -> float:
    """``value`` as a finite float (a string holding a number counts), or :class:`_Bad`."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise _Bad(f"{what}: expected a number, got {_shown(value)}") from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Bad(f"{what}: expected a number, got {_shown(value)}")
    x = float(value)
    if not math.isfinite(x) or abs(x) > 1e9:
        raise _Bad(f"{what}: expected a finite number, got {_shown(value)}")
    return x


def _tidy(x: float) -> float | int:
    """``x`` rounded to :data:`PLACES`, as an int when whole (for readable YAML)."""
    r = round(x, PLACES) + 0.0  # + 0.0: no -0.0
    return int(r) if r.is_integer() else r


def _properties(holder: dict[str, Any], known: dict[str, str], what: str) -> dict[str, Any]:
    """The known properties of a map, layer or object, by name (typo'd names are errors)."""
    raw = holder.get("properties")
    if raw is None:
        return {}
    if isinstance(raw, dict):  # Tiled before 1.2: {"name": value}
        items = [{"name": k, "value": v} for k, v in raw.items()]
    elif isinstance(raw, list):
        items = raw
    else:
        raise _Bad(f"properties: expected a list of properties, got {_shown(raw)}")
    out: dict[str, Any] = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise _Bad(f"properties: expected {{name, type, value}} entries, got {_shown(item)}")
        name = item["name"]
        if name in known or (known is MAP_PROPERTIES and name.startswith(CONTROLLER_PREFIX)):
            out[name] = item.get("value")
            continue
        close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.75)
        if close:
            raise _Bad(
                f"unknown property {name!r} (did you mean {close[0]!r}?); {what} read: " + ", ".join(known)
            )
    return out


def _text(props: dict[str, Any], key: str) -> str | None:
    value = props.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _Bad(f"property {key!r}: expected text, got {_shown(value)}")
    return value


def _number(props: dict[str, Any], key: str) -> float | int | None:
    if key not in props:
        return None
    return _tidy(_finite(props[key], f"property {key!r}"))


def _rotate(points: list[tuple[float, float]], degrees: float) -> list[tuple[float, float]]:
    """Points relative to an object's origin, turned ``degrees`` clockwise on screen (y down)."""
    if not degrees:
        return points
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    return [(x * c - y * s, x * s + y * c) for x, y in points]


class _Converter:
    def __init__(self, top: Any, source: str) -> None:
        self.top = top
        self.source = source
        self.problems: list[Problem] = []
        self.obstacles: list[dict[str, Any]] = []
        self.units: list[dict[str, Any]] = []
        self.out = TiledScenario(source, {})
        self.sx = self.sy = 1.0

    # ---- the map -----------------------------------------------------------------

    def run(self) -> TiledScenario:
        top = self.top
        line = _line(top) if isinstance(top, dict) else 0
        self.out.map_line = line
        try:
            self._map()
        except _Bad as e:
            self.problems.append(Problem(self.source, line, "map", str(e)))
            raise ScenarioError(self.problems) from None
        self._layers(top.get("layers"), (0.0, 0.0), None, 0, "map")
        if len(self.obstacles) + len(self.units) > MAX_OBJECTS:
            self.problems.append(
                Problem(self.source, line, "map", f"too many obstacles and units (more than {MAX_OBJECTS})")
            )
        if self.problems:
            raise ScenarioError(self.problems)
        data = self.out.data
        data["obstacles"] = self.obstacles
        data["units"] = self.units
        return self.out

    def _map(self) -> None:
        top = self.top
        if not isinstance(top, dict):
            raise _Bad(f"expected a Tiled map (a JSON object), got {_shown(top)}")
        kind = top.get("type", "map")
        if kind != "map":
            raise _Bad(f'expected a Tiled map ("type": "map"), got {_shown(kind)}')
        orientation = top.get("orientation", "orthogonal")
        if orientation != "orthogonal":
            raise _Bad(
                f"orientation: expected an orthogonal map, got {_shown(orientation)} "
                "(Map > Map Properties > Orientation)"
            )
        if top.get("infinite") not in (None, False, 0):
            raise _Bad(
                "infinite maps have no edges, and a battlefield needs them: untick Map > Map Properties "
                "> Infinite"
            )
        size: dict[str, float] = {}
        for key, what in (
            ("width", "the map's width in tiles"),
            ("height", "the map's height in tiles"),
            ("tilewidth", "the tile width in pixels"),
            ("tileheight", "the tile height in pixels"),
        ):
            if key not in top:
                raise _Bad(f"missing {key} ({what})")
            x = _finite(top[key], key)
            if x <= 0:
                raise _Bad(f"{key}: expected a number > 0 ({what}), got {_fmt(x)}")
            size[key] = x
        props = _properties(top, MAP_PROPERTIES, "map properties")
        inches = _finite(props.get("inches_per_tile", 1.0), "property 'inches_per_tile'")
        if inches <= 0:
            raise _Bad(f"property 'inches_per_tile': expected a number > 0, got {_fmt(inches)}")
        self.sx, self.sy = inches / size["tilewidth"], inches / size["tileheight"]
        data = self.out.data
        for key in ("name", "description", "ruleset"):
            value = _text(props, key)
            if value is not None:
                data[key] = value
        rounds = _number(props, "rounds")
        if rounds is not None:
            data["rounds"] = rounds
        for key in props:
            if key.startswith(CONTROLLER_PREFIX):
                policy = _text(props, key)
                data.setdefault("controllers", {})[key.removeprefix(CONTROLLER_PREFIX)] = policy
        yards = _number(props, "yards_per_inch")
        if yards is not None:
            data["scale"] = {"yards_per_inch": yards}
        data["map"] = {
            "width": _tidy(size["width"] * inches),
            "height": _tidy(size["height"] * inches),
            "cell": _tidy(inches),
        }

    # ---- layers and objects ------------------------------------------------------

    def _layers(
        self, layers: Any, offset: tuple[float, float], role: str | None, depth: int, parent: str
    ) -> None:
        if layers is None:
            return
        if not isinstance(layers, list):
            self.problems.append(
                Problem(self.source, 0, parent, f"layers: expected a list, got {_shown(layers)}")
            )
            return
        if depth > MAX_GROUP_DEPTH:
            self.problems.append(
                Problem(self.source, 0, parent, f"group layers nested too deep (at most {MAX_GROUP_DEPTH})")
            )
            return
        for layer in layers:
            if not isinstance(layer, dict):
                self.problems.append(
                    Problem(self.source, 0, parent, f"expected a layer, got {_shown(layer)}")
                )
                continue
            name = str(layer.get("name") or "") if isinstance(layer.get("name"), str) else ""
            label = _label("layer", layer)
            line = _line(layer)
            try:
                dx = _finite(layer.get("offsetx", 0), "offsetx")
                dy = _finite(layer.get("offsety", 0), "offsety")
            except _Bad as e:
                self.problems.append(Problem(self.source, line, label, str(e)))
                continue
            here = (offset[0] + dx, offset[1] + dy)
            own = name.strip().lower()
            layer_role = {"obstacles": "obstacle", "units": "unit"}.get(own, role)
            if layer.get("type") == "group":
                self._layers(layer.get("layers"), here, layer_role, depth + 1, label)
            elif layer.get("type") == "objectgroup":
                objects = layer.get("objects", [])
                if not isinstance(objects, list):
                    self.problems.append(
                        Problem(self.source, line, label, f"objects: expected a list, got {_shown(objects)}")
                    )
                    continue
                for obj in objects:
                    self._object(obj, here, layer_role, label, line, name)

    def _object(
        self, obj: Any, offset: tuple[float, float], role: str | None, layer: str, line: int, layer_name: str
    ) -> None:
        if not isinstance(obj, dict):
            self.problems.append(Problem(self.source, line, layer, f"expected an object, got {_shown(obj)}"))
            return
        name = str(obj.get("name") or "") if isinstance(obj.get("name"), str) else ""
        oid = obj.get("id", "?")
        where = Origin(_label("object", obj), _line(obj, line))
        cls = obj.get("type") or obj.get("class") or ""
        kind = str(cls).strip().lower() if isinstance(cls, str) else ""
        role = kind if kind in ("obstacle", "unit") else role
        try:
            if "template" in obj:
                # Its class and shape may be in the template file: it could be an obstacle or a unit.
                raise _Bad(
                    f"uses the template {obj['template']!r}, which skirmish does not read: detach it in "
                    "Tiled (right-click the object > Detach) and save again"
                )
            if role is None:
                return  # scenery: not ours
            if role == "obstacle":
                self._obstacle(obj, offset, name, oid, where, layer_name)
            else:
                self._unit(obj, offset, name, oid, where, layer_name)
        except _Bad as e:
            self.problems.append(Problem(self.source, where.line, where.label, str(e)))

    def _inches(self, x: float, y: float) -> list[float | int]:
        return [_tidy(x * self.sx), _tidy(y * self.sy)]

    def _origin(self, obj: dict[str, Any], offset: tuple[float, float]) -> tuple[float, float, float]:
        x = _finite(obj.get("x", 0), "x") + offset[0]
        y = _finite(obj.get("y", 0), "y") + offset[1]
        return x, y, _finite(obj.get("rotation", 0), "rotation")

    def _size(self, obj: dict[str, Any], shape: str) -> tuple[float, float]:
        w, h = _finite(obj.get("width", 0), "width"), _finite(obj.get("height", 0), "height")
        if w <= 0 or h <= 0:
            raise _Bad(f"expected {shape} with a width and height > 0, got {_fmt(w)} × {_fmt(h)} pixels")
        return w, h

    def _outline(self, obj: dict[str, Any]) -> tuple[list[tuple[float, float]], str]:
        """The obstacle's outline in pixels relative to its origin, before rotation, and its shape."""
        if obj.get("point"):
            raise _Bad("a point has no area: expected a rectangle, ellipse or polygon for an obstacle")
        if "polyline" in obj:
            raise _Bad("a polyline is not closed: draw the obstacle as a polygon (or a rectangle)")
        if "text" in obj:
            raise _Bad("a text object is not a shape: expected a rectangle, ellipse or polygon")
        if "polygon" in obj:
            raw = obj["polygon"]
            if not isinstance(raw, list):
                raise _Bad(f"polygon: expected a list of points, got {_shown(raw)}")
            pts = []
            for i, p in enumerate(raw):
                if not isinstance(p, dict):
                    raise _Bad(f"polygon point {i + 1}: expected {{x, y}}, got {_shown(p)}")
                pts.append(
                    (
                        _finite(p.get("x"), f"polygon point {i + 1} x"),
                        _finite(p.get("y"), f"polygon point {i + 1} y"),
                    )
                )
            if len(pts) < 3:
                raise _Bad(f"a polygon needs at least 3 points, got {len(pts)}")
            return pts, "polygon"
        if obj.get("ellipse"):
            w, h = self._size(obj, "an ellipse")
            steps = [2 * math.pi * k / ELLIPSE_POINTS for k in range(ELLIPSE_POINTS)]
            return [(w / 2 * (1 + math.cos(t)), h / 2 * (1 + math.sin(t))) for t in steps], "ellipse"
        if "gid" in obj:
            w, h = self._size(obj, "a tile object")
            return [(0, -h), (w, -h), (w, 0), (0, 0)], "tile"  # a tile's origin is its bottom-left corner
        w, h = self._size(obj, "a rectangle")
        return [(0, 0), (w, 0), (w, h), (0, h)], "rectangle"

    def _obstacle(
        self, obj: dict[str, Any], offset: tuple[float, float], name: str, oid: Any, where: Origin, layer: str
    ) -> None:
        x, y, rotation = self._origin(obj, offset)
        outline, shape = self._outline(obj)
        polygon = [self._inches(x + px, y + py) for px, py in _rotate(outline, rotation)]
        ring = shapely.LinearRing(polygon) if len({tuple(p) for p in polygon}) >= 3 else None
        if ring is not None and not ring.is_simple:
            raise _Bad(f"the {shape}'s edges cross each other: expected a simple outline")
        props = _properties(obj, OBSTACLE_PROPERTIES, "obstacle properties")
        height = props.get("height", DEFAULT_HEIGHT)
        if isinstance(height, str) and height.strip().lower() in ("low", "high"):
            height = height.strip().lower()
        else:
            try:
                height = _tidy(_finite(height, "property 'height'"))
            except _Bad:
                raise _Bad(
                    f"property 'height': expected low, high or a number > 0, got {_shown(height)}"
                ) from None
            if height <= 0:
                raise _Bad(f"property 'height': expected low, high or a number > 0, got {_fmt(height)}")
        item: dict[str, Any] = {"id": self._id(name, f"obstacle-{oid}"), "polygon": polygon, "height": height}
        size = _number(props, "size")
        if size is not None:
            item["size"] = size
        path: KeyPath = ("obstacles", len(self.obstacles))
        self.obstacles.append(item)
        self.out.origins[path] = where
        turned = f", rotated {_fmt(rotation)}°" if rotation else ""
        self.out.notes[path] = f"object {oid}{_named(name, item['id'])}: {shape}{turned}, layer {layer!r}"

    def _unit(
        self, obj: dict[str, Any], offset: tuple[float, float], name: str, oid: Any, where: Origin, layer: str
    ) -> None:
        x, y, rotation = self._origin(obj, offset)
        if "gid" in obj:  # a token drawn as a tile: the tile's centre (its origin is bottom-left)
            w, h = self._size(obj, "a tile object")
            ((cx, cy),) = _rotate([(w / 2, -h / 2)], rotation)
            x, y = x + cx, y + cy
        elif not obj.get("point"):
            raise _Bad("expected a point object for a unit (Insert Point, or a tile object)")
        props = _properties(obj, UNIT_PROPERTIES, "unit properties")
        side = _text(props, "side")
        if side is None or not side.strip():
            raise _Bad("missing property 'side' (text: units with the same side are friends)")
        item: dict[str, Any] = {
            "id": self._id(name, f"unit-{oid}"),
            "side": side.strip(),
            "at": self._inches(x, y),
        }
        for key in ("facing", "base", "size"):
            value = _number(props, key)
            if value is not None:
                item[key] = value
        for key in ("posture", "profile"):
            text = _text(props, key)
            if text is not None:
                item[key] = text.strip()
        path: KeyPath = ("units", len(self.units))
        self.units.append(item)
        self.out.origins[path] = where
        self.out.notes[path] = f"object {oid}{_named(name, item['id'])}, layer {layer!r}"

    @staticmethod
    def _id(name: str, fallback: str) -> str:
        """The item's id: its name made safe (:func:`safe_id`), else ``fallback`` (two objects of
        one name are two items of one id: the scenario checker reports it, naming both)."""
        return safe_id(name) or fallback


#: Longest id a name becomes (the scenario's id limit is 64).
MAX_ID = 60


def safe_id(name: str) -> str:
    """A Tiled object's name as a scenario id: spaces and characters an id cannot hold become
    ``-`` (``yard wall`` -> ``yard-wall``), runs of them one, none at the ends; '' for a name
    with nothing printable."""
    out = []
    for c in name.strip():
        ok = c.isprintable() and not c.isspace() and unicodedata.category(c)[0] != "C"
        out.append(c if ok else "-")
    return re.sub(r"-{2,}", "-", "".join(out)).strip("-")[:MAX_ID]


def _named(name: str, item_id: str) -> str:
    """``' ("yard wall")'`` when the id differs from the name the map gave, else ''."""
    shown = name.strip()
    return f" ({shown!r})" if shown and shown != item_id else ""


def _decode(raw: bytes, source: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise ScenarioError(
            [Problem(source, line, "", f"expected UTF-8 text, got byte 0x{raw[e.start]:02x}")]
        ) from None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a map may hold")


def read_map(raw: bytes, source: str) -> Any:
    """The map's data as Tiled's JSON holds it (TMX converted), or ScenarioError."""
    text = _decode(raw, source)
    if PurePath(source).suffix.lower() == ".tmx" or text.lstrip().startswith("<"):
        try:
            return tmx_to_json(text)
        except TmxError as e:
            raise ScenarioError([Problem(source, e.line, "", e.message)]) from None
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise ScenarioError([Problem(source, e.lineno, "", f"JSON syntax error: {e.msg}")]) from None
    except RecursionError:
        raise ScenarioError([Problem(source, 1, "", "JSON nested too deep")]) from None
    except ValueError as e:
        raise ScenarioError([Problem(source, 1, "", f"JSON refused: {e}")]) from None


def convert(raw: bytes, source: str) -> TiledScenario:
    """The Tiled map ``raw`` (named ``source``) as scenario data (see the module docstring).

    Raises:
        ScenarioError: every problem found, each located to the map object (or the map).
    """
    return _Converter(read_map(raw, source), source).run()
