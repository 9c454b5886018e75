"""Tiled's XML map format (TMX) read safely into the shape of its JSON format (TMJ).

Contract: :func:`tmx_to_json` parses TMX text into the plain data Tiled's JSON export of the
same map holds (``{"width": 30, "layers": [{"type": "objectgroup", "objects": [...]}], ...}``):
map and object attributes become numbers where they read as numbers, ``<properties>`` become
``[{"name", "type", "value"}]`` lists with typed values (a string value may be the element's
text), ``<polygon points>`` / ``<polyline points>`` become ``[{"x", "y"}]`` lists, ``<ellipse/>``,
``<point/>`` and ``<text>`` become the JSON flags, group layers nest their ``layers``. Every
element this returns as a dict also carries ``"_line"``, its line in the file, for located
messages (:mod:`game.scenario.tiled` reads it). Tile layer data and tilesets are not read
(skirmish needs only the map's size and its objects).

Hostile input: :mod:`defusedxml` refuses any DTD, so entity expansion ("billion laughs") and
external entities cannot happen; nesting deeper than :data:`MAX_DEPTH` and more than
:data:`MAX_ELEMENTS` elements are refused; the caller caps the file's size before this runs.
Every failure is a :class:`TmxError` with a line and a one-line reason.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import defusedxml
from defusedxml.ElementTree import DefusedXMLParser

#: Deepest element nesting read (a map nests groups a few levels; Tiled has no limit, we do).
MAX_DEPTH = 64
#: Most elements read: far above a hand-drawn battlefield (tile data is one element per layer).
MAX_ELEMENTS = 200_000
#: Attributes whose values stay text even when they look like numbers.
_TEXT_ATTRS = frozenset({"name", "type", "class", "version", "tiledversion", "template", "propertytype"})


class TmxError(Exception):
    """A TMX file that cannot be read; ``line`` is 0 when unknown."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


class _LineBuilder(ET.TreeBuilder):
    """A tree builder that records each element's line and stops deep or huge documents."""

    def __init__(self) -> None:
        super().__init__()
        self.expat: Any = None
        self.lines: dict[int, int] = {}
        self.depth = 0
        self.count = 0

    def start(self, tag: Any, attrs: Any) -> ET.Element:
        line = int(self.expat.CurrentLineNumber) if self.expat is not None else 0
        self.depth += 1
        self.count += 1
        if self.depth > MAX_DEPTH:
            raise TmxError(line, f"elements nested too deep (at most {MAX_DEPTH} levels)")
        if self.count > MAX_ELEMENTS:
            raise TmxError(line, f"too many elements (more than {MAX_ELEMENTS})")
        element = super().start(tag, attrs)
        self.lines[id(element)] = line
        return element

    def end(self, tag: Any) -> ET.Element:
        self.depth -= 1
        return super().end(tag)


def _parse(text: str) -> tuple[ET.Element, dict[int, int]]:
    builder = _LineBuilder()
    parser = DefusedXMLParser(target=builder, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    builder.expat = parser.parser
    try:
        parser.feed(text)
        root = parser.close()
    except TmxError:
        raise
    except ET.ParseError as e:
        line = e.position[0] if getattr(e, "position", None) else 0
        raise TmxError(line, f"XML syntax error: {e.msg if hasattr(e, 'msg') else e}") from None
    except defusedxml.DTDForbidden:
        raise TmxError(1, "a DTD (<!DOCTYPE ...>) is not allowed in a map (Tiled never writes one)") from None
    except (defusedxml.DefusedXmlException, ValueError) as e:
        raise TmxError(1, f"refused XML: {e}") from None
    return root, builder.lines


def _number(text: str) -> Any:
    """An attribute's text as an int or float when it reads as one, else the text itself."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _attrs(element: ET.Element) -> dict[str, Any]:
    return {k: (v if k in _TEXT_ATTRS else _number(v)) for k, v in element.attrib.items()}


def _typed(kind: str, text: str) -> Any:
    """A property value as Tiled's JSON export types it (text left as is when it does not parse)."""
    if kind == "int":
        try:
            return int(text)
        except ValueError:
            return _number(text)
    if kind == "float":
        return _number(text)
    if kind == "bool":
        return {"true": True, "false": False}.get(text, text)
    return text


class _Reader:
    def __init__(self, lines: dict[int, int]) -> None:
        self.lines = lines

    def line(self, element: ET.Element) -> int:
        return self.lines.get(id(element), 0)

    def properties(self, element: ET.Element) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for block in element.findall("properties"):
            for prop in block.findall("property"):
                kind = prop.get("type", "string")
                entry: dict[str, Any] = {"name": prop.get("name", ""), "type": kind, "_line": self.line(prop)}
                if kind == "class":
                    entry["value"] = {p["name"]: p["value"] for p in self.properties(prop)}
                else:
                    value = prop.get("value")
                    entry["value"] = _typed(kind, prop.text or "" if value is None else value)
                out.append(entry)
        return out

    def points(self, element: ET.Element) -> list[Any]:
        out: list[Any] = []
        for pair in (element.get("points") or "").split():
            x, _, y = pair.partition(",")
            out.append({"x": _number(x), "y": _number(y)})
        return out

    def obj(self, element: ET.Element) -> dict[str, Any]:
        out = _attrs(element)
        out["_line"] = self.line(element)
        props = self.properties(element)
        if props:
            out["properties"] = props
        for child in element:
            if child.tag in ("polygon", "polyline"):
                out[child.tag] = self.points(child)
            elif child.tag in ("ellipse", "point"):
                out[child.tag] = True
            elif child.tag == "text":
                out["text"] = {"text": child.text or ""}
        return out

    def layers(self, element: ET.Element) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        kinds = {
            "layer": "tilelayer",
            "objectgroup": "objectgroup",
            "imagelayer": "imagelayer",
            "group": "group",
        }
        for child in element:
            kind = kinds.get(str(child.tag))
            if kind is None:
                continue
            layer = _attrs(child)
            layer["type"] = kind
            layer["_line"] = self.line(child)
            props = self.properties(child)
            if props:
                layer["properties"] = props
            if kind == "objectgroup":
                layer["objects"] = [self.obj(o) for o in child.findall("object")]
            elif kind == "group":
                layer["layers"] = self.layers(child)
            out.append(layer)
        return out


def tmx_to_json(text: str) -> dict[str, Any]:
    """The TMX map ``text`` as the data of its JSON export (see the module docstring).

    Raises:
        TmxError: not well-formed XML, a DTD, too deep or too many elements, or not a ``<map>``.
    """
    root, lines = _parse(text)
    reader = _Reader(lines)
    if root.tag != "map":
        what = "a tileset" if root.tag == "tileset" else f"<{root.tag}>"
        raise TmxError(reader.line(root), f"expected a Tiled map (<map> element), got {what}")
    out = _attrs(root)
    out["type"] = "map"
    out["_line"] = reader.line(root)
    props = reader.properties(root)
    if props:
        out["properties"] = props
    out["layers"] = reader.layers(root)
    return out
