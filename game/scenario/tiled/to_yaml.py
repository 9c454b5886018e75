"""A converted Tiled map written as a readable, commented scenario YAML file.

Contract: :func:`scenario_yaml` renders a :class:`~game.scenario.tiled.TiledScenario` as the
text of a scenario file: the keys in the order of ``docs/scenario-format.md`` (name,
description, ruleset, scale, map, rounds, obstacles, units, controllers), a header comment
naming the map it came from, each obstacle and unit preceded by a comment naming its map object
(``object 7: rectangle, rotated 30°, layer 'obstacles'``), points and units in flow style as
the shipped scenarios write them, multi-line text as a literal block. Loading the text gives back the
same data (``ruleset`` replaced when one is given).
"""

from __future__ import annotations

import io
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import LiteralScalarString

from game.scenario.tiled import TiledScenario

#: Scenario keys in the order the file writes them.
ORDER = ("name", "description", "ruleset", "scale", "map", "rounds", "obstacles", "units", "controllers")


def _flow(values: list[Any]) -> CommentedSeq:
    seq = CommentedSeq(values)
    seq.fa.set_flow_style()
    return seq


def _flow_map(item: dict[str, Any]) -> CommentedMap:
    out = CommentedMap()
    for key, value in item.items():
        out[key] = _flow(value) if isinstance(value, list) else value
    out.fa.set_flow_style()
    return out


def _items(kind: str, items: list[dict[str, Any]], tiled: TiledScenario, indent: int) -> CommentedSeq:
    seq = CommentedSeq()
    for i, item in enumerate(items):
        if kind == "obstacles":
            entry = CommentedMap()
            for key, value in item.items():
                entry[key] = _flow([_flow(p) for p in value]) if key == "polygon" else value
        else:
            entry = _flow_map(item)
        seq.append(entry)
        note = tiled.notes.get((kind, i))
        if note:
            seq.yaml_set_comment_before_after_key(i, before=note, indent=indent)
    return seq


def scenario_yaml(tiled: TiledScenario, made_from: str, ruleset: str | None = None) -> str:
    """The scenario file text of ``tiled`` (see the module docstring).

    Args:
        tiled: the converted map.
        made_from: the map's name as the header comment gives it.
        ruleset: replaces the map's ``ruleset`` property (or supplies a missing one).
    """
    data = dict(tiled.data)
    if ruleset is not None:
        data["ruleset"] = ruleset
    doc = CommentedMap()
    for key in ORDER:
        if key not in data:
            continue
        value = data[key]
        if key == "description" and "\n" in value:
            value = LiteralScalarString(value)
        elif key in ("scale", "map", "controllers"):
            value = _flow_map(value)
        elif key in ("obstacles", "units"):
            value = _items(key, value, tiled, indent=2)
        doc[key] = value
    doc.yaml_set_start_comment(
        f"Converted from the Tiled map {made_from} by `skirmish import-tiled`.\n"
        "One tile is one inch unless the map sets inches_per_tile; coordinates are in inches."
    )
    yaml = YAML()
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096  # long polygons stay on one line
    out = io.StringIO()
    yaml.dump(doc, out)
    return out.getvalue()
