"""Write edited units and obstacles back into a scenario's YAML text, keeping everything else.

Contract: :func:`rewrite_items` takes the file's text and, for ``units`` and ``obstacles``, the
new list of items, each an :class:`EditedItem` (plain data plus the index it had in the text, or
None for a new item). It returns the new text in which:

- every byte outside the changed items is the original's: comments, blank lines, key order,
  quoting and line breaks of untouched items, of other sections and of the comment lines between
  items (a deleted item's text goes, the comment lines after it stay);
- an item whose data did not change keeps its exact text; a changed item is written again by
  ruamel's round-trip dumper from its own node (flow ``{...}`` or block style as it was, its
  inner comments kept, coordinates in flow style); a new item takes the style of the list's
  first item (flow when the list is empty or absent);
- a section the text does not hold as a block list with items (absent, ``obstacles: []``) is
  written again whole, at its place or appended at the end.

It raises :class:`~game.core.errors.SkirmishError` when the text is not a YAML mapping (the
editor only opens files that parse). Numbers are written as given: the editor rounds them.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from game.core.errors import SkirmishError

#: The sections the editor rewrites, in the order a new file section is appended.
SECTIONS = ("obstacles", "units")
#: Key order of a new item (keys not listed follow in their own order).
KEY_ORDER = {
    "units": ("id", "side", "at", "facing", "posture", "profile", "base", "size"),
    "obstacles": ("id", "height", "polygon", "size"),
}


@dataclass(frozen=True)
class EditedItem:
    """One unit or obstacle after editing: ``data`` (plain YAML data) and ``origin``, its index in
    the original text's list (None: added by the editor)."""

    origin: int | None
    data: dict[str, Any]


def _yaml() -> YAML:
    y = YAML(typ="rt", pure=True)
    y.preserve_quotes = True
    y.width = 4096  # a rewritten item stays on its lines: no folding of long flow lists
    return y


def _flow_seq(values: Sequence[Any]) -> CommentedSeq:
    seq = CommentedSeq([_node(v) for v in values])
    seq.fa.set_flow_style()
    return seq


def _node(value: Any) -> Any:
    """Plain data as round-trip nodes; lists in flow style (``[x, y]``, polygons)."""
    if isinstance(value, dict):
        m = CommentedMap()
        for k, v in value.items():
            m[k] = _node(v)
        return m
    if isinstance(value, list):
        return _flow_seq(value)
    return value


def _update(node: CommentedMap, data: dict[str, Any], old: dict[str, Any]) -> None:
    """Make ``node`` hold ``data``, touching only the keys whose values changed."""
    for k in [k for k in node if k not in data]:
        del node[k]
    for k, v in data.items():
        if k in node and old.get(k) == v:
            continue
        node[k] = _node(v)


def _ordered(section: str, data: dict[str, Any]) -> dict[str, Any]:
    order = KEY_ORDER[section]
    keys = sorted(data, key=lambda k: order.index(k) if k in order else len(order))
    return {k: data[k] for k in keys}


def _dump(y: YAML, node: Any) -> list[str]:
    out = io.StringIO()
    y.dump(node, out)
    return out.getvalue().rstrip("\n").split("\n")


def _is_gap(line: str) -> bool:
    """A blank or comment-only line: it belongs between items, not to the item above it."""
    s = line.strip()
    return not s or s.startswith("#")


@dataclass
class _Section:
    """Where one block list sits in the text: item i spans lines ``starts[i]`` to ``ends[i]``
    (exclusive); lines from ``ends[i]`` to the next item's start are the gap after it."""

    key_line: int
    end: int
    starts: list[int]
    ends: list[int]
    prefixes: list[str]


def _locate(root: CommentedMap, key: str, lines: list[str]) -> _Section | None:
    """The section's layout, or None when it is not a block list with at least one item."""
    seq = root.get(key)
    if not isinstance(seq, CommentedSeq) or not seq or seq.fa.flow_style():
        return None
    keys = list(root)
    key_line = root.lc.key(key)[0]
    later = [root.lc.key(k)[0] for k in keys[keys.index(key) + 1 :]]
    end = min(later) if later else len(lines)
    starts, prefixes = [], []
    for i in range(len(seq)):
        line, col = seq.lc.item(i)
        starts.append(line)
        prefixes.append(lines[line][:col])
    ends = []
    for i, s in enumerate(starts):
        e = starts[i + 1] if i + 1 < len(starts) else end
        while e > s + 1 and _is_gap(lines[e - 1]):
            e -= 1
        ends.append(e)
    return _Section(key_line, end, starts, ends, prefixes)


def _item_lines(key: str, node: CommentedMap, prefix: str, comment: Any = None) -> list[str]:
    """``node`` dumped as one item of list ``key`` whose first line starts with ``prefix``
    (``"  - "``): dumped inside such a list, so block lines and kept end-of-line comments sit at
    their columns. ``comment`` is the list's comment slot of the item (a flow item's ``# ...``)."""
    y = _yaml()
    y.indent(mapping=2, sequence=len(prefix), offset=prefix.find("-") if "-" in prefix else 0)
    seq = CommentedSeq([node])
    if comment is not None:
        seq.ca.items[0] = comment
    body = _dump(y, CommentedMap([(key, seq)]))[1:]
    # comment lines after the item stay in the text as the gap to the next item
    while body and _is_gap(body[-1]):
        body.pop()
    return body


def rewrite_items(text: str, items: Mapping[str, Sequence[EditedItem]]) -> str:
    """The scenario text with ``items[section]`` as its units / obstacles (see the module docstring).

    Args:
        text: the scenario file's text (as read).
        items: section (``"units"`` / ``"obstacles"``) -> the edited list; sections not given
            are left alone.

    Raises:
        SkirmishError: ``text`` is not a YAML mapping.
    """
    y = _yaml()
    try:
        root = y.load(text)
    except YAMLError as e:
        raise SkirmishError(f"cannot rewrite a file that does not parse: {e}") from None
    if not isinstance(root, CommentedMap):
        raise SkirmishError("cannot rewrite a file that is not a YAML mapping")
    lines = text.split("\n")
    # Plain data of the original items, to tell changed items from untouched ones.
    plain = YAML(typ="safe", pure=True).load(text) or {}
    # Splice from the bottom up so earlier line numbers stay valid.
    located = {k: _locate(root, k, lines) for k in items}
    order = sorted(
        (k for k in items if located[k] is not None),
        key=lambda k: -located[k].key_line,  # type: ignore[union-attr]
    )
    for key in order:
        sec = located[key]
        assert sec is not None
        lines[sec.starts[0] : sec.end] = _section_lines(y, key, sec, lines, root[key], plain[key], items[key])
    for key in [k for k in SECTIONS if k in items and located[k] is None]:
        lines = _whole_section(y, key, root, lines, items[key])
    return "\n".join(lines)


def _section_lines(
    y: YAML,
    key: str,
    sec: _Section,
    lines: list[str],
    seq: CommentedSeq,
    old: list[Any],
    new: Sequence[EditedItem],
) -> list[str]:
    """The new lines from the section's first item to its end."""
    by_origin = {it.origin: it for it in new if it.origin is not None}
    out: list[str] = []
    for i in range(len(sec.starts)):
        it = by_origin.get(i)
        if it is not None:
            if it.data == old[i]:
                out += lines[sec.starts[i] : sec.ends[i]]
            else:
                node = seq[i]
                _update(node, it.data, old[i] if isinstance(old[i], dict) else {})
                out += _item_lines(key, node, sec.prefixes[i], seq.ca.items.get(i))
        if i + 1 < len(sec.starts):
            out += lines[sec.ends[i] : sec.starts[i + 1]]
    # new items go after the last item, before the comment lines that close the section
    style = seq[0]
    for it in new:
        if it.origin is None:
            node = _node(_ordered(key, it.data))
            if isinstance(style, CommentedMap) and style.fa.flow_style():
                node.fa.set_flow_style()
            out += _item_lines(key, node, sec.prefixes[0])
    out += lines[sec.ends[-1] : sec.end]
    return out


def _whole_section(
    y: YAML, key: str, root: CommentedMap, lines: list[str], new: Sequence[EditedItem]
) -> list[str]:
    """Write section ``key`` whole: in place of its old lines, or appended at the end."""
    seq = CommentedSeq()
    for it in new:
        node = _node(_ordered(key, it.data))
        node.fa.set_flow_style()
        seq.append(node)
    body = (
        [f"{key}: []"] if not seq else [f"{key}:"] + [s for it in seq for s in _item_lines(key, it, "  - ")]
    )
    if key in root:
        keys = list(root)
        start = root.lc.key(key)[0]
        later = [root.lc.key(k)[0] for k in keys[keys.index(key) + 1 :]]
        end = min(later) if later else len(lines)
        while end > start + 1 and _is_gap(lines[end - 1]):
            end -= 1
        return lines[:start] + body + lines[end:]
    tail = lines[:-1] if lines and lines[-1] == "" else lines
    return [*tail, *body, ""]
