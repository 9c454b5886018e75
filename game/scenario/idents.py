"""Identifiers in a scenario: one spelling per name, nothing invisible, no two that look alike.

Contract:

- :func:`invisible` names the first character of a text that a reader cannot see or that
  changes how the text around it is shown: control characters (``Cc``), format characters
  (``Cf``: zero-width spaces and joiners, bidi embeddings and overrides, the soft hyphen),
  private-use, surrogate and unassigned code points, line and paragraph separators, and the
  other *default ignorable* code points of Unicode (the combining grapheme joiner, variation
  selectors, the Hangul fillers, ...) and the blank Braille pattern; a combining mark that
  starts the text (it has nothing to sit on). None when there is none.
- :func:`nfc` is the one spelling of a name: its Unicode NFC form. Two names that differ only
  by how an accent is encoded (``é`` as one code point or as ``e`` + U+0301) are the same
  name; :func:`normalise_ids` rewrites every identifier of a parsed scenario (unit and
  obstacle ids, sides, unit profiles, the keys of ``controllers:`` and ``profiles:``) to it,
  before anything else reads them, so the spec, the log and every command use one spelling.
  Two keys of one mapping that become equal are a problem (a duplicate key).
- :func:`lookalike` is what two names are compared by when they must differ: the NFKC form
  (compatibility characters such as ``ﬁ``, fullwidth ``Ａ`` or superscript digits fold to their
  plain letters). :func:`lookalike_problems` refuses two unit/obstacle ids, two sides or two
  profile names that are different but fold to the same text.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Any

from game.scenario.yaml_source import KeyPath, YamlDoc, format_path

#: Code points that render as nothing (or blank) though their category does not say so: the
#: default ignorables outside ``Cf`` (combining grapheme joiner, Hangul fillers, Khmer inherent
#: vowels, Mongolian free variation selectors, variation selectors) and the blank Braille cell.
_BLANK_RANGES: tuple[tuple[int, int], ...] = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xE0100, 0xE01EF),
)
#: Categories of characters never allowed in a name.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})


def _blank(code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in _BLANK_RANGES)


def describe(c: str, at: int) -> str:
    """``U+200B (ZERO WIDTH SPACE) at position 3`` (control characters have no Unicode name)."""
    name = unicodedata.name(c, "a control character" if unicodedata.category(c) == "Cc" else "unnamed")
    return f"U+{ord(c):04X} ({name}) at position {at}"


def invisible(text: str, allow: str = "") -> str | None:
    """The first character of ``text`` nobody can see (see the module docstring), described, or
    None. ``allow`` lists characters let through (a description's newlines and tabs)."""
    for i, c in enumerate(text):
        if c in allow:
            continue
        code = ord(c)
        cat = unicodedata.category(c)
        if cat in _HIDDEN_CATEGORIES or _blank(code):
            return describe(c, i + 1)
        if i == 0 and cat in ("Mn", "Me"):
            return describe(c, 1) + ", a combining mark with nothing before it"
    return None


def nfc(text: str) -> str:
    """The one spelling of a name (Unicode NFC)."""
    return unicodedata.normalize("NFC", text)


def lookalike(text: str) -> str:
    """What names that must differ are compared by (Unicode NFKC)."""
    return unicodedata.normalize("NFKC", text)


def _renamed_key(doc: YamlDoc, container: dict[Any, Any], parent: KeyPath) -> dict[Any, Any] | None:
    """``container`` with its string keys in NFC (None when none changes); lines move with them;
    two keys that become one are reported and the later is dropped."""
    if not any(isinstance(k, str) and nfc(k) != k for k in container):
        return None
    out: dict[Any, Any] = {}
    for key, value in container.items():
        new = nfc(key) if isinstance(key, str) else key
        if new in out:
            doc.problems.append(
                doc.problem(
                    (*parent, key),
                    f"duplicate key {new!r}: {key!r} is the same name spelled another way "
                    "(Unicode normalisation, NFC)",
                )
            )
            doc.reported.add((*parent, key))
            continue
        out[new] = value
        if new != key:
            for path in [p for p in doc.lines if p[: len(parent) + 1] == (*parent, key)]:
                doc.lines[(*parent, new, *path[len(parent) + 1 :])] = doc.lines.pop(path)
    return out


def normalise_ids(doc: YamlDoc) -> None:
    """Rewrite every identifier of ``doc.data`` (a parsed scenario) to NFC, in place."""
    data = doc.data
    if not isinstance(data, dict):
        return
    for key, fields in (("units", ("id", "side", "profile")), ("obstacles", ("id",))):
        items = data.get(key)
        if not isinstance(items, list):
            continue
        for item in items:
            if not isinstance(item, dict):
                continue
            for f in fields:
                if isinstance(item.get(f), str):
                    item[f] = nfc(item[f])
    for key in ("controllers", "profiles"):
        block = data.get(key)
        if isinstance(block, dict):
            renamed = _renamed_key(doc, block, (key,))
            if renamed is not None:
                data[key] = renamed
            if key == "controllers":
                for side, who in list(data[key].items()):
                    if isinstance(who, str):
                        data[key][side] = nfc(who)


def _pairs(doc: YamlDoc) -> Iterable[tuple[str, str, KeyPath]]:
    """(kind, name, key path) of every identifier whose look-alikes are refused."""
    data = doc.data
    for key in ("obstacles", "units"):
        items = data.get(key)
        if isinstance(items, list):
            for i, item in enumerate(items):
                if isinstance(item, dict) and isinstance(item.get("id"), str):
                    yield "id", item["id"], (key, i, "id")
    items = data.get("units")
    if isinstance(items, list):
        for i, item in enumerate(items):
            if isinstance(item, dict) and isinstance(item.get("side"), str):
                yield "side", item["side"], ("units", i, "side")
    profiles = data.get("profiles")
    if isinstance(profiles, dict):
        for name in profiles:
            if isinstance(name, str):
                yield "profile", name, ("profiles", name)


def lookalike_problems(doc: YamlDoc) -> None:
    """Report, in ``doc.problems``, names of one kind that differ but fold to one
    :func:`lookalike` (see the module docstring)."""
    if not isinstance(doc.data, dict):
        return
    seen: dict[tuple[str, str], tuple[str, KeyPath]] = {}
    for kind, name, path in _pairs(doc):
        key = (kind, lookalike(name))
        first = seen.setdefault(key, (name, path))
        if first[0] != name:
            what = {"id": "an id", "side": "a side", "profile": "a profile"}[kind]
            doc.problems.append(
                doc.problem(
                    path,
                    f"{name!r} looks like {first[0]!r}, already {what} ({format_path(first[1][:2])}, "
                    f"line {doc.line(first[1])}): names must differ by more than Unicode "
                    "compatibility forms (NFKC)",
                )
            )
            doc.reported.add(path)
