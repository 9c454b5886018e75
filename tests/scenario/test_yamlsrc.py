"""The YAML layer: plain data, a line for every key and item, never an object."""

from __future__ import annotations

import pytest

from game.scenario.yaml_source import MAX_DEPTH, format_path, parse_yaml


def test_lines_for_every_key_and_item() -> None:
    doc = parse_yaml("a: 1\nb:\n  - x: 2\n    y: [3,\n        4]\n  - 5\n", "f.yaml")
    assert doc.problems == []
    assert doc.data == {"a": 1, "b": [{"x": 2, "y": [3, 4]}, 5]}
    assert doc.lines[("a",)] == 1
    assert doc.lines[("b", 0)] == 3
    assert doc.lines[("b", 0, "y")] == 4
    assert doc.lines[("b", 0, "y", 1)] == 5
    assert doc.lines[("b", 1)] == 6
    # A missing key is located at its nearest ancestor.
    assert doc.line(("b", 0, "z")) == 3
    assert format_path(("b", 0, "y")) == "b.0.y"


def test_core_scalars_are_plain_python() -> None:
    doc = parse_yaml("[1, 2.5, 0x10, true, null, yes, '3', 1e3, 2024-06-01]", "f.yaml")
    assert doc.data == [1, 2.5, 16, True, None, "yes", "3", 1000.0, "2024-06-01"]
    assert [type(v) for v in doc.data] == [int, float, int, bool, type(None), str, str, float, str]


def test_anchors_aliases_and_merge_keys() -> None:
    text = "base: &b {side: red, facing: 90}\nunit: {<<: *b, facing: 0, id: u}\n"
    doc = parse_yaml(text, "f.yaml")
    assert doc.problems == []
    assert doc.data["unit"] == {"facing": 0, "id": "u", "side": "red"}
    # A merged key is located where it was written (the anchor).
    assert doc.lines[("unit", "side")] == 1


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("a: !!python/object:os.system {}", "tag !!python/object:os.system is not allowed"),
        ("a: !!python/name:os.system ''", "tag !!python/name:os.system is not allowed"),
        ("a: !!binary aGVsbG8=", "tag !!binary is not allowed"),
        ("a: !local [1]", "tag !local is not allowed"),
        ("a: !!set {x}", "tag !!set is not allowed"),
        ("a: !!int twelve", "expected int for tag !!int"),
    ],
)
def test_tags_are_located_problems_never_objects(text: str, start: str) -> None:
    doc = parse_yaml("ok: 1\n" + text, "f.yaml")
    assert [(p.line, p.path) for p in doc.problems] == [(2, "a")]
    assert doc.problems[0].message.startswith(start)
    assert doc.data["a"] is None
    assert doc.was_reported(("a", "deeper"))


def test_duplicate_and_non_text_keys() -> None:
    doc = parse_yaml("a: 1\nb: 2\na: 3\n4: x\n? [1]\n: y\n", "f.yaml")
    messages = [(p.line, p.path, p.message.split(" (")[0]) for p in doc.problems]
    assert messages[0] == (3, "a", "duplicate key 'a'")
    assert messages[1][:2] == (4, "4") and messages[1][2].startswith("expected a text key, got 4")
    assert messages[2][0] == 5
    assert doc.data == {"a": 1, "b": 2}  # the first value of a duplicate key is kept


@pytest.mark.parametrize(
    ("data", "line", "start"),
    [
        (b"", 1, "empty file"),
        (b"# only a comment\n", 1, "empty file"),
        (b"~\n", 1, "empty file"),
        (b"# comment\n!", 2, "empty file"),
        (b"a: 1\nb: \xff\n", 2, "expected UTF-8 text, got byte(s) 0xff at column 4"),
        (b"a: [1\n", 2, "YAML syntax error"),
        (b"a: 1\n  b: 2\n", 2, "YAML syntax error"),
        (b"a: 1\n---\nb: 2\n", 2, "YAML syntax error"),
        (b"a: *nowhere\n", 1, "YAML syntax error"),
        (b"a: 1\nb: \x07\n", 2, "expected printable text"),
        (b"\t- x\n", 1, "YAML syntax error"),
    ],
)
def test_unparseable_input_is_one_located_problem(data: bytes, line: int, start: str) -> None:
    doc = parse_yaml(data, "f.yaml")
    assert doc.data is None
    assert len(doc.problems) == 1
    assert (doc.problems[0].source, doc.problems[0].line) == ("f.yaml", line)
    assert doc.problems[0].message.startswith(start), doc.problems[0].message


def test_utf8_bom_is_accepted() -> None:
    assert parse_yaml("\ufeffa: 1\n".encode(), "f.yaml").data == {"a": 1}


def test_alias_bomb_stops_cleanly() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    doc = parse_yaml("\n".join(lines), "bomb.yaml")
    assert doc.data is None
    assert doc.problems[0].message.startswith("document too large")


def test_deep_nesting_stops_cleanly() -> None:
    deep = "[" * (MAX_DEPTH + 10) + "]" * (MAX_DEPTH + 10)
    doc = parse_yaml(deep, "deep.yaml")
    assert doc.data is None
    assert "nesting too deep" in doc.problems[0].message
