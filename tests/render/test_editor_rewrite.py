"""``game.scenario.rewrite``: the editor's YAML write-back changes exactly the edited items."""

from __future__ import annotations

import copy
import difflib

import pytest
from ruamel.yaml import YAML

from game.core.errors import SkirmishError
from game.scenario.rewrite import EditedItem, rewrite_items
from tests.render.conftest import SCENARIOS


def _items(data, key):
    return [EditedItem(i, copy.deepcopy(d)) for i, d in enumerate(data.get(key) or [])]


def _load(text):
    return YAML(typ="safe", pure=True).load(text)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_each_shipped_scenario_round_trips_and_one_edit_changes_one_item(path):
    text = path.read_text()
    data = _load(text)
    units, obstacles = _items(data, "units"), _items(data, "obstacles")
    assert rewrite_items(text, {"units": units, "obstacles": obstacles}) == text
    # move the last unit and drop the first obstacle: only their lines change
    last = units[-1]
    units[-1] = EditedItem(last.origin, {**last.data, "at": [1.5, 2.5]})
    gone = obstacles.pop(0) if obstacles else None
    out = rewrite_items(text, {"units": units, "obstacles": obstacles})
    want = copy.deepcopy(data)
    want["units"][-1]["at"] = [1.5, 2.5]
    if gone is not None:
        del want["obstacles"][0]
    assert _load(out) == want
    removed = [s[2:] for s in difflib.ndiff(text.splitlines(), out.splitlines()) if s.startswith("- ")]
    for line in removed:  # every line that went belonged to the two edited items
        assert _in_item(text, last.data["id"], line) or (
            gone is not None and _in_item(text, gone.data["id"], line)
        )


def _in_item(text: str, oid: str, line: str) -> bool:
    """Whether ``line`` is one of the lines of the item with id ``oid`` in ``text``."""
    lines = text.splitlines()
    start = next(i for i, s in enumerate(lines) if f"id: {oid}" in s)
    stop = next((i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("- ")), len(lines))
    return line in lines[start:stop]


def test_sections_absent_or_empty_are_written_whole():
    text = (
        "# keep me\nname: t\nmap: {width: 10, height: 10}\nobstacles: []  # none yet\n"
        "units:\n  - {id: a, side: red, at: [1, 1]}\n"
    )
    new = [EditedItem(None, {"polygon": [[1, 1], [2, 1], [2, 2]], "id": "w", "height": "low"})]
    out = rewrite_items(text, {"obstacles": new})
    assert out.startswith("# keep me\nname: t\nmap: {width: 10, height: 10}\nobstacles:\n")
    assert "  - {id: w, height: low, polygon: [[1, 1], [2, 1], [2, 2]]}\nunits:\n" in out
    bare = "name: t\nunits:\n  - {id: a, side: red, at: [1, 1]}\n"
    out = rewrite_items(bare, {"obstacles": new})
    assert out == bare + "obstacles:\n  - {id: w, height: low, polygon: [[1, 1], [2, 1], [2, 2]]}\n"


def test_a_block_item_keeps_its_inner_comment_and_indentation():
    text = (
        "units:\n  - id: a\n    # the leader\n    side: red\n    at: [1, 1]  # start\n"
        "  # between\n  - id: b\n    side: blue\n    at: [5, 5]\n"
    )
    data = _load(text)
    units = _items(data, "units")
    units[0] = EditedItem(0, {**units[0].data, "side": "green"})
    out = rewrite_items(text, {"units": units})
    assert out == text.replace("side: red", "side: green")
    del units[1]
    out = rewrite_items(text, {"units": units})
    assert out.endswith("    at: [1, 1]  # start\n  # between\n")


def test_a_flow_item_keeps_its_end_of_line_comment():
    text = "units:\n  - {id: a, side: red, at: [1, 1]}  # the leader\n  - {id: b, side: blue, at: [5, 5]}\n"
    units = _items(_load(text), "units")
    units[0] = EditedItem(0, {**units[0].data, "at": [2, 1]})
    assert rewrite_items(text, {"units": units}) == text.replace("[1, 1]", "[2, 1]")


def test_text_that_is_not_a_mapping_is_refused():
    with pytest.raises(SkirmishError, match="not a YAML mapping"):
        rewrite_items("- a\n- b\n", {"units": []})
    with pytest.raises(SkirmishError, match="does not parse"):
        rewrite_items("a: [\n", {"units": []})
