"""Safe, line-tracking YAML loading for user-written files (scenarios, profiles).

Contract:

- :func:`parse_yaml` turns bytes or text into a :class:`YamlDoc`: plain Python data
  (``dict``, ``list``, ``str``, ``int``, ``float``, ``bool``, ``None``; never a ruamel
  type and never an object built from a tag) plus the 1-based line of every mapping
  key and sequence item, addressed by key path (``("units", 2, "at")``).
- It never raises on bad input. Every problem comes back as a located
  :class:`~game.core.errors.Problem`: bytes that are not UTF-8, an empty file, YAML syntax
  errors, several documents, duplicate keys, non-text keys, and any tag outside the
  plain-data core schema (``!!python/object``, ``!custom``, ``!!binary``...). When
  the file cannot be parsed at all, :attr:`YamlDoc.data` is ``None``.
- Problems that still leave a usable tree (duplicate keys, bad tags) are reported
  and parsing goes on, so a caller can report every problem of a file at once; the
  paths already reported are in :attr:`YamlDoc.reported` so that later validation
  can avoid a second, confusing message about the same value.
- Anchors, aliases and merge keys (``<<: *defaults``) work; the number of nodes written is
  capped while ruamel composes (the parse stops there) and the number built after alias
  expansion is capped too, so a huge or "exponential entities" file fails cleanly and fast;
  only the second message mentions aliases.

Why compose and not load: ruamel's composer gives us the node tree with marks and
resolved core tags but constructs nothing, so no tag can ever run code, and we see
duplicate keys (which constructors silently resolve) ourselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.reader import ReaderError

from game.core.errors import Problem

#: A key path into a document: mapping keys (str) and sequence indexes (int).
KeyPath = tuple[str | int, ...]

#: Prefix of the YAML core-schema tags.
_CORE = "tag:yaml.org,2002:"

#: Core tags whose scalars become plain values (timestamps are kept as their text:
#: a scenario has no dates, but ``name: 2024-06-01`` should not be an error).
_SCALAR_TAGS = frozenset({"str", "int", "float", "bool", "null", "timestamp"})

#: Upper bound on nodes written and on nodes built (after alias expansion): a real scenario
#: has a few hundred (the shared profiles file ~1,500), and this many compose in well under a
#: second, so a huge file or a "billion laughs" file stops quickly.
MAX_NODES = 20_000

#: Deepest nesting accepted; real files nest 5-6 levels.
MAX_DEPTH = 64


def format_path(path: Sequence[str | int]) -> str:
    """Dotted form of a key path: ``("units", 2, "at")`` -> ``"units.2.at"``."""
    return ".".join(str(p) for p in path)


def _tag_text(tag: Any) -> str:
    """The tag as written by a user (``!!python/object``), whatever ruamel's tag type."""
    raw = str(getattr(tag, "value", tag) or "")
    return "!!" + raw[len(_CORE) :] if raw.startswith(_CORE) else raw


def _core_name(tag: Any) -> str | None:
    """``"int"`` for ``tag:yaml.org,2002:int``; None for any non-core tag."""
    raw = str(getattr(tag, "value", tag) or "")
    return raw[len(_CORE) :] if raw.startswith(_CORE) else None


@dataclass
class YamlDoc:
    """A parsed file: plain data, line of every key/item, and the problems found.

    Attributes:
        source: file name used in problems.
        data: the document as plain Python data, or None if it could not be parsed.
        lines: 1-based line of every mapping key and sequence item, by key path
            (the empty path is the document's first line).
        problems: located problems found while parsing.
        reported: key paths whose values were already reported as problems.
    """

    source: str
    data: Any = None
    lines: dict[KeyPath, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    reported: set[KeyPath] = field(default_factory=set)

    def line(self, path: Sequence[str | int]) -> int:
        """Line of ``path``, or of its nearest located ancestor (e.g. for a missing key)."""
        p = tuple(path)
        while p:
            if p in self.lines:
                return self.lines[p]
            p = p[:-1]
        return self.lines.get((), 1)

    def problem(self, path: Sequence[str | int], message: str, line: int | None = None) -> Problem:
        """A :class:`Problem` located at ``path`` in this file."""
        return Problem(self.source, self.line(path) if line is None else line, format_path(path), message)

    def was_reported(self, path: Sequence[str | int]) -> bool:
        """True if ``path`` or one of its ancestors was already reported as a problem."""
        p = tuple(path)
        return any(p[: len(r)] == r for r in self.reported)


class _Builder:
    """Turns a composed node tree into plain data, recording lines and problems."""

    def __init__(self, doc: YamlDoc, loader: YAML) -> None:
        self.doc = doc
        # Scalars are converted by the safe constructor's *scalar* methods only (int,
        # float, bool, null): they read the node's text and never build objects.
        self.ctor = loader.constructor
        self.count = 0

    def fail(self, path: KeyPath, node: Node, message: str) -> None:
        self.doc.problems.append(self.doc.problem(path, message, node.start_mark.line + 1))
        self.doc.reported.add(path)

    def build(self, node: Node, path: KeyPath, depth: int = 0) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise _TooBig(node)
        if depth > MAX_DEPTH:
            raise _TooDeep(node)
        core = _core_name(node.tag)
        if isinstance(node, ScalarNode):
            if core not in _SCALAR_TAGS:
                self.fail(path, node, self._tag_message(node))
                return None
            return self.scalar(node, core, path)
        if isinstance(node, SequenceNode):
            if core != "seq":
                self.fail(path, node, self._tag_message(node))
                return None
            out: list[Any] = []
            for i, item in enumerate(node.value):
                self.doc.lines[(*path, i)] = item.start_mark.line + 1
                out.append(self.build(item, (*path, i), depth + 1))
            return out
        if isinstance(node, MappingNode):
            if core != "map":
                self.fail(path, node, self._tag_message(node))
                return None
            return self.mapping(node, path, depth)
        self.fail(path, node, f"unsupported YAML node {type(node).__name__}")  # pragma: no cover
        return None  # pragma: no cover

    def _tag_message(self, node: Node) -> str:
        return (
            f"tag {_tag_text(node.tag)} is not allowed: scenario files hold plain data only "
            "(mappings, lists, text, numbers, true/false, null)"
        )

    def scalar(self, node: ScalarNode, core: str, path: KeyPath) -> Any:
        if core in ("str", "timestamp"):
            return str(node.value)
        convert = {
            "int": self.ctor.construct_yaml_int,
            "float": self.ctor.construct_yaml_float,
            "bool": self.ctor.construct_yaml_bool,
            "null": self.ctor.construct_yaml_null,
        }[core]
        try:
            return convert(node)
        except (ValueError, TypeError, YAMLError):
            # Only reachable with an explicit tag on bad text, e.g. ``!!int abc``.
            self.fail(path, node, f"expected {core} for tag {_tag_text(node.tag)}, got {node.value!r}")
            return None

    def mapping(self, node: MappingNode, path: KeyPath, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        first_line: dict[str, int] = {}
        merged: list[Node] = []
        merge_line = 0
        for key_node, value_node in node.value:
            if _core_name(key_node.tag) == "merge":
                if merged:
                    self.doc.problems.append(
                        self.doc.problem(
                            path,
                            f"duplicate merge key '<<' (first given on line {merge_line}); merge several "
                            "mappings with one '<<: [*a, *b]'",
                            key_node.start_mark.line + 1,
                        )
                    )
                    continue
                merge_line = key_node.start_mark.line + 1
                merged.append(value_node)
                continue
            key_line = key_node.start_mark.line + 1
            if not isinstance(key_node, ScalarNode) or _core_name(key_node.tag) not in _SCALAR_TAGS:
                self.doc.problems.append(
                    self.doc.problem(path, "expected a plain text key, got a list or mapping", key_line)
                )
                continue
            key_value = self.scalar(key_node, _core_name(key_node.tag) or "str", path)
            if not isinstance(key_value, str):
                shown = "null" if key_value is None else repr(key_value)
                self.doc.problems.append(
                    self.doc.problem(
                        (*path, str(key_value)),
                        f"expected a text key, got {shown} (quote it: '{key_node.value}')",
                        key_line,
                    )
                )
                continue
            if key_value in first_line:
                self.doc.problems.append(
                    self.doc.problem(
                        (*path, key_value),
                        f"duplicate key {key_value!r} (first given on line {first_line[key_value]}); "
                        "each key may appear once",
                        key_line,
                    )
                )
                continue
            first_line[key_value] = key_line
            self.doc.lines[(*path, key_value)] = key_line
            out[key_value] = self.build(value_node, (*path, key_value), depth + 1)
        for source in merged:
            self.merge(out, source, path, depth)
        return out

    def merge(self, out: dict[str, Any], node: Node, path: KeyPath, depth: int) -> None:
        """Apply a ``<<:`` merge: keys given explicitly (or merged earlier) win."""
        sources = node.value if isinstance(node, SequenceNode) else [node]
        for src in sources:
            if not isinstance(src, MappingNode) or _core_name(src.tag) != "map":
                self.fail(path, src, "expected a mapping (or a list of mappings) after '<<:'")
                continue
            for key_node, value_node in src.value:
                key = key_node.value if isinstance(key_node, ScalarNode) else None
                if not isinstance(key, str) or key in out:
                    continue
                self.doc.lines[(*path, key)] = key_node.start_mark.line + 1
                out[key] = self.build(value_node, (*path, key), depth + 1)


class _TooMany(Exception):
    """More than :data:`MAX_NODES` nodes written in the file (raised while composing)."""

    def __init__(self, line: int) -> None:
        self.line = line


def _cap_composer(loader: YAML) -> None:
    """Make ``loader``'s composer stop after :data:`MAX_NODES` nodes, during the parse.

    ruamel composes the whole node tree before :class:`_Builder` sees it, so a huge file
    would cost its full parse before the builder's cap could act. Aliases compose to the
    anchored node (nothing new), so this counts the nodes written; the builder's cap
    counts them again after alias expansion.
    """
    composer = loader.composer
    compose = composer.compose_node
    count = 0

    def counting(parent: Any, index: Any) -> Any:
        nonlocal count
        count += 1
        if count > MAX_NODES:
            mark = composer.parser.peek_event().start_mark
            raise _TooMany(mark.line + 1 if mark is not None else 1)
        return compose(parent, index)

    composer.compose_node = counting


class _TooBig(Exception):
    def __init__(self, node: Node) -> None:
        self.node = node


class _TooDeep(_TooBig):
    pass


def _decode(data: bytes, doc: YamlDoc) -> str | None:
    """UTF-8 text of ``data`` (a BOM is allowed), or None after recording a problem."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        bad = data[e.start : e.end].hex(" ")
        doc.problems.append(
            Problem(doc.source, line, "", f"expected UTF-8 text, got byte(s) 0x{bad} at column {column}")
        )
        return None


def parse_yaml(data: bytes | str, source: str) -> YamlDoc:
    """Parse one YAML document into plain data with lines; never raises on bad input.

    Args:
        data: the file's bytes (decoded as UTF-8) or already-decoded text.
        source: the name used in problems (usually the path as the user gave it).

    Returns:
        The document. ``doc.data`` is None if nothing usable could be read (then
        ``doc.problems`` says why); otherwise ``doc.problems`` lists the soft
        problems (duplicate keys, forbidden tags) found on the way.
    """
    doc = YamlDoc(source)
    text = _decode(data, doc) if isinstance(data, bytes) else data
    if text is None:
        return doc
    loader = YAML(typ="safe", pure=True)
    try:
        _cap_composer(loader)
        root = loader.compose(text)
    except _TooMany as e:
        doc.problems.append(Problem(source, e.line, "", f"document too large (more than {MAX_NODES} values)"))
        return doc
    except MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark is not None else 1
        what = " ".join(str(s) for s in (e.context, e.problem) if s)
        doc.problems.append(Problem(source, line, "", f"YAML syntax error: {what}"))
        return doc
    except ReaderError as e:
        line = text.count("\n", 0, max(e.position, 0)) + 1
        doc.problems.append(
            Problem(source, line, "", f"expected printable text, got character {e.character!r} ({e.reason})")
        )
        return doc
    except RecursionError:
        doc.problems.append(Problem(source, 1, "", f"nesting too deep (at most {MAX_DEPTH} levels)"))
        return doc
    except YAMLError as e:
        doc.problems.append(Problem(source, 1, "", f"YAML error: {e}"))
        return doc
    if root is None:
        doc.problems.append(Problem(source, 1, "", "empty file: expected a YAML mapping"))
        return doc
    doc.lines[()] = root.start_mark.line + 1
    try:
        doc.data = _Builder(doc, loader).build(root, ())
    except _TooDeep as e:
        doc.problems.append(
            Problem(source, e.node.start_mark.line + 1, "", f"nesting too deep (at most {MAX_DEPTH} levels)")
        )
        doc.data = None
    except _TooBig as e:
        doc.problems.append(
            Problem(
                source,
                e.node.start_mark.line + 1,
                "",
                f"document too large after expanding aliases (more than {MAX_NODES} values)",
            )
        )
        doc.data = None
    if doc.data is None and not doc.problems:
        # A document that is only "~", "null" or a bare "!" is as empty as no document;
        # callers rely on data None coming with a reason.
        doc.problems.append(
            Problem(source, doc.lines[()], "", "empty file: expected a YAML mapping, got null")
        )
    return doc
