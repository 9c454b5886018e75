"""The event log: every state change and every random draw, one JSON line each.

Contract:
- Each event is a flat JSON object ``{"seq", "round", "type", ...}``; ``seq``
  counts from 0. Positions are ``[x, y]`` in inches, rounded to
  :data:`POS_DECIMALS` places so logs are stable text.
- Types include ``match_start`` (seed, scenario hash, ruleset, version, every
  unit's id/side/position/facing/posture, and what rebuilds the match anywhere: the scenario's
  text and the profiles its units use, with their hashes: :mod:`game.scenario.embed`),
  ``round_start`` (with a state hash),
  ``turn_start``, ``command``, ``move``, ``step``, ``posture``, ``facing``,
  ``attack``, ``roll``, ``defence``, ``retreat``, ``dodge_move``, ``drop_prone``,
  ``damage``, ``status``, ``casualty``, ``ap``, ``turn_end``, ``match_end``.
- Reading a log (:func:`read_log`) renames the event types of :data:`RENAMED_TYPES`, so logs
  written before a rename still replay and check.
- The same seed, scenario and version give a byte-identical log: serialisation
  is ``json.dumps(event, separators=(",", ":"))`` in insertion order, and
  nothing time- or address-dependent is ever logged.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

POS_DECIMALS = 6

#: Event types renamed since logs were first written: old name -> name written today. Logs before
#: the project settled on one spelling called the defence event ``defense``.
RENAMED_TYPES: dict[str, str] = {"defense": "defence"}


def round_pos(p: Iterable[float]) -> list[float]:
    """``[x, y]`` rounded for the log."""
    if type(p) is tuple and len(p) == 2:  # the usual point: no list comprehension
        x, y = p
        return [round(float(x), POS_DECIMALS), round(float(y), POS_DECIMALS)]
    return [round(float(c), POS_DECIMALS) for c in p]


#: Types ``_clean`` passes through unchanged (exact types: numpy scalars subclass some of them).
_PLAIN = frozenset({str, int, float, bool, type(None)})


def _clean(value: Any) -> Any:
    """JSON-safe copy: tuples -> lists, numpy scalars -> Python, sets -> sorted lists.

    Floats keep full precision (Python's repr round-trips exactly), so a command read back
    from a log is the very command that was applied.
    """
    t = type(value)
    if t in _PLAIN:  # the common case first: every event has many plain fields
        return value
    if t is dict:
        return {
            k if type(k) is str else str(k): v if type(v) in _PLAIN else _clean(v) for k, v in value.items()
        }
    if t is list or t is tuple:
        return [v if type(v) in _PLAIN else _clean(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_clean(v) for v in value)
    if hasattr(value, "item") and callable(value.item):  # numpy scalar
        return _clean(value.item())
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


#: The fields every event starts with.
_RESERVED = frozenset({"seq", "round", "type"})


class EventLog:
    """An append-only list of events.

    ``events`` is the list of event dicts (never change one: a logged event is a fact, and the
    dicts are shared with forks). :meth:`lines` / :meth:`text` serialise them, remembering the
    lines already written, so writing a growing log again (a snapshot after each decision)
    serialises only the new events. A log read back from its lines (:meth:`from_lines`) parses
    them only when ``events`` is first read; one read back from its text (:meth:`from_text`)
    does not even split the text until it is first read (a restored snapshot read only for its
    state never is).
    """

    __slots__ = ("_blob", "_events", "_raw", "_text", "_utf8", "_utf8_lines")

    def __init__(self) -> None:
        self._events: list[dict[str, Any]] = []
        #: Lines read back and not parsed yet: the first events (``_events`` follow them).
        self._raw: list[str] | None = None
        #: The JSON lines of the first ``len(_text)`` events.
        self._text: list[str] = []
        #: The text of a log read back and not split yet (then ``_events`` and ``_text`` are empty).
        self._blob: str | None = None
        #: :meth:`utf8` of the first ``_utf8_lines`` lines (not copied by :meth:`fork`).
        self._utf8 = bytearray()
        self._utf8_lines = 0

    @classmethod
    def from_lines(cls, lines: list[str]) -> EventLog:
        """The log whose :meth:`lines` are ``lines`` (parsed when first read)."""
        log = cls()
        log._raw = list(lines)
        log._text = list(lines)
        return log

    @classmethod
    def from_text(cls, text: str) -> EventLog:
        """The log whose lines are ``text.splitlines()``: split when first read, each line parsed
        when ``events`` is first read (:meth:`from_lines`)."""
        log = cls()
        log._blob = text
        return log

    def _split(self) -> None:
        """Split the text of :meth:`from_text` into lines (once, on the first read)."""
        blob = self._blob
        if blob is not None:
            self._blob = None
            lines = blob.splitlines()
            self._raw = lines
            self._text = lines.copy()

    @property
    def events(self) -> list[dict[str, Any]]:
        if self._blob is not None:
            self._split()
        if self._raw is not None:
            self._events = [json.loads(line) for line in self._raw] + self._events
            self._raw = None
        return self._events

    def append(self, round_no: int, type_: str, fields: dict[str, Any]) -> dict[str, Any]:
        if not _RESERVED.isdisjoint(fields):
            k = next(k for k in fields if k in _RESERVED)
            raise ValueError(f"event field {k!r} is reserved")
        event: dict[str, Any] = {"seq": len(self), "round": round_no, "type": type_}
        plain = _PLAIN
        for k, v in fields.items():
            event[k] = v if type(v) in plain else _clean(v)
        self._events.append(event)
        return event

    def fork(self) -> EventLog:
        """An independent log with the same events so far (the event dicts are shared: a logged
        event is never changed)."""
        twin = EventLog()
        if self._blob is not None:  # not split yet: share the text (a str never changes)
            twin._blob = self._blob
            return twin
        twin._events = self._events.copy()
        twin._raw = self._raw  # never changed: replaced when parsed
        twin._text = self._text.copy()
        return twin

    def __len__(self) -> int:
        if self._blob is not None:
            self._split()
        raw = self._raw
        return len(self._events) + (0 if raw is None else len(raw))

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.events)

    def of_type(self, *types: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] in types]

    def lines(self) -> list[str]:
        """Every event as its JSON line (the lines written before are remembered)."""
        if self._blob is not None:
            self._split()
        text = self._text
        n = len(self)
        if len(text) < n:
            raw = self._raw
            offset = 0 if raw is None else len(raw)
            dumps = json.dumps
            text.extend(dumps(e, separators=(",", ":")) for e in self._events[len(text) - offset :])
        return text

    def utf8(self) -> bytes:
        """:meth:`text` encoded as UTF-8; the bytes of the lines encoded before are remembered, so
        writing a growing log again (a snapshot after each decision) encodes only the new ones."""
        lines = self.lines()
        done = self._utf8_lines
        if done < len(lines):
            self._utf8 += ("\n".join(lines[done:]) + "\n").encode("utf-8")
            self._utf8_lines = len(lines)
        return bytes(self._utf8)

    def text(self) -> str:
        """The log as JSON lines, each ended by a newline."""
        lines = self.lines()
        return "\n".join(lines) + "\n" if lines else ""

    def to_text(self) -> str:
        return self.text()

    def write(self, path: str | Path) -> Path:
        """Write the log atomically (temp file + rename): never a half-written file."""
        return atomic_write_text(Path(path), self.to_text())


#: A temp file of :func:`atomic_write_text` older than this (seconds) was left by a writer that
#: died (``kill -9``, power loss): the next write to the same file removes it.
STALE_TEMP_SECONDS = 600


def _remove_stale_temps(path: Path) -> None:
    """Delete ``.NAME.*.tmp`` files next to ``path`` (our naming pattern) older than
    :data:`STALE_TEMP_SECONDS`; a younger one may belong to a writer still at work."""
    import time

    cutoff = time.time() - STALE_TEMP_SECONDS
    try:
        candidates = list(path.parent.glob(f".{glob_escape(path.name)}.*.tmp"))
    except OSError:
        return
    for tmp in candidates:
        try:
            st = tmp.lstat()
            if stat.S_ISREG(st.st_mode) and st.st_mtime < cutoff:
                tmp.unlink()
        except OSError:
            continue


def glob_escape(name: str) -> str:
    """``name`` with glob metacharacters escaped."""
    return "".join(f"[{c}]" if c in "*?[]" else c for c in name)


def _fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (POSIX; a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str, before_rename: Callable[[], object] | None = None) -> Path:
    """Write ``text`` to ``path`` via a temp file in the same folder and ``os.replace``.

    The temp file is ``.NAME.<random>.tmp``, fsynced before the rename; the folder is fsynced
    after it, so the new file survives a crash. Temp files of this pattern left by a writer that
    was killed are removed by the next write to ``path`` once they are
    :data:`STALE_TEMP_SECONDS` old. ``before_rename`` runs once the new text is safely in the
    temp file, before it replaces ``path``: if it raises, ``path`` is left as it was (a second
    file that must change together with this one, written first).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_temps(path)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        raise naming(e, path) from None
    try:
        # mkstemp makes the file private (0600); give it the usual permissions instead.
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if before_rename is not None:
            before_rename()
        os.replace(tmp, path)
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise naming(e, path) from None
        raise
    _fsync_dir(path.parent)
    return path


def naming(e: OSError, path: Path) -> OSError:
    """``e`` naming the file the user asked for (not a temp file, not nothing): one line
    ``PATH: reason`` for the CLI (:func:`game.cli.os_error_line`)."""
    if e.errno is None:
        return e
    return OSError(e.errno, e.strerror or str(e), str(path))


#: Longest line of a log read (characters): events are a few hundred characters.
MAX_LINE_CHARS = 1024 * 1024
#: Deepest nesting of a logged value read (events nest 4-5 levels).
MAX_JSON_DEPTH = 32


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json`` object hook refusing duplicate keys (a log line never has any)."""
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def json_depth(value: Any, limit: int = MAX_JSON_DEPTH) -> int:
    """Nesting depth of parsed JSON, counting at most to ``limit + 1`` (iterative: no recursion)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (dict, list)):
            d += 1
            if d > deepest:
                deepest = d
                if deepest > limit:
                    return deepest
            stack.extend((c, d) for c in (v.values() if isinstance(v, dict) else v))
    return deepest


def parse_json_line(line: str, where: str) -> Any:
    """One JSON value of a log or save line: ``ValueError`` (naming ``where``) when it is too long,
    too deep, not JSON or has a duplicate key; no ``RecursionError`` ever escapes."""
    if len(line) > MAX_LINE_CHARS:
        raise ValueError(f"{where}: line too long ({len(line)} characters; at most {MAX_LINE_CHARS})")
    try:
        obj = json.loads(line, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as e:
        raise ValueError(f"{where}: not JSON ({e.msg})") from None
    except RecursionError:
        raise ValueError(f"{where}: nested too deep (at most {MAX_JSON_DEPTH} levels)") from None
    except ValueError as e:  # a duplicate key
        raise ValueError(f"{where}: {e}") from None
    if json_depth(obj) > MAX_JSON_DEPTH:
        raise ValueError(f"{where}: nested too deep (at most {MAX_JSON_DEPTH} levels)")
    return obj


def read_log(path: str | Path) -> list[dict[str, Any]]:
    """Parse a JSON-lines log; raises ``ValueError`` naming the bad line.

    The file must be a regular file of at most ``LIMITS["log"]`` bytes
    (:class:`game.core.files.FileRefused` otherwise); a line longer than
    :data:`MAX_LINE_CHARS`, nested deeper than :data:`MAX_JSON_DEPTH` or with a duplicate
    key is refused.
    """
    from game.core.files import read_capped_text

    text = read_capped_text(path, "log")
    events: list[dict[str, Any]] = []
    for n, line in enumerate(text.split("\n"), 1):
        line = line.strip()
        if not line:
            continue
        obj = parse_json_line(line, f"{path}:{n}")
        if not isinstance(obj, dict) or not {"seq", "round", "type"} <= obj.keys():
            raise ValueError(f"{path}:{n}: not an event (needs seq, round, type)")
        renamed = RENAMED_TYPES.get(obj["type"]) if isinstance(obj["type"], str) else None
        if renamed is not None:
            obj["type"] = renamed
        events.append(obj)
    return events
