"""The scenario being edited: its units and obstacles, the edits, undo / redo, checks and saving.

Contract (no pygame): :class:`EditModel` holds the file's text as opened and the current units
and obstacles as :class:`~game.scenario.rewrite.EditedItem` lists (never mutated: every edit
builds new items, so an undo snapshot is two tuples). Every edit is one method taking ids and
table points (inches); it rounds coordinates to :data:`SNAP` inches, refuses what cannot be
written (an unknown id, an obstacle under 3 corners) with :class:`EditRefused`, and bumps
:attr:`version`. :meth:`check` runs the scenario checker of ``skirmish check`` on the current
data (problems named by item id); :meth:`drawable` gives the spec the window shows: the whole
scenario, or, when it has problems, the scenario without the units and obstacles at fault.
:meth:`save` writes :meth:`text` (the opened text with only the edited items rewritten,
:func:`~game.scenario.rewrite.rewrite_items`) atomically; saving a scenario with problems is
allowed (a designer saves work in progress) and returns the problems for the window to warn.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from components.spatial import Posture
from components.specs import ScenarioSpec
from components.terrain import HEIGHT_NAMES
from game.core.errors import Problem, SkirmishError
from game.core.events import atomic_write_text
from game.scenario.checks import ScenarioChecker
from game.scenario.profiles import DEFAULT_PROFILE, read_profiles
from game.scenario.rewrite import EditedItem, rewrite_items
from game.scenario.yaml_source import YamlDoc, parse_yaml

#: Coordinates are rounded to this many inches (a tenth: what a tape measure reads).
SNAP = 0.1
#: Height step of the height keys, in standing-human heights.
HEIGHT_STEP = 0.25
#: Postures, tallest first (the posture key cycles through them).
POSTURES = [p.value for p in Posture]
#: Sections of a scenario the editor changes.
SECTIONS = ("units", "obstacles")
#: How often :meth:`EditModel.drawable` drops the items at fault and checks again.
DROP_ROUNDS = 3
#: A checker message's reference to a line of the file ("(line 12)", ", line 12)").
_LINE_REF = re.compile(r" \(line \d+\)|, line \d+(?=\))")
#: Undo steps kept.
MAX_UNDO = 500


class EditRefused(SkirmishError):
    """An edit that cannot be made (unknown id, an obstacle left with under 3 corners)."""


def snap(v: float) -> float | int:
    """``v`` rounded to :data:`SNAP`; a whole number is written without ``.0``."""
    r = round(round(v / SNAP) * SNAP, 2)
    return int(r) if r == int(r) else r


@dataclass(frozen=True)
class Checked:
    """The checker's verdict on the current data: the spec (None with problems) and the problems
    as ``(item id or None, text)``."""

    spec: ScenarioSpec | None
    problems: tuple[tuple[str | None, str], ...]


class EditModel:
    """One scenario file being edited.

    Args:
        text: the file's text.
        source: the file name shown in problems.
        out: where :meth:`save` writes (the opened file, or ``--out``).
        policies: AI policy names ``controllers:`` may use (None: not checked).

    Raises:
        SkirmishError: the text does not parse as a scenario mapping, or its units / obstacles
            are not lists (the editor needs the file's items to edit them).
    """

    def __init__(self, text: str, source: str, out: Path, policies: Sequence[str] | None = None) -> None:
        doc = parse_yaml(text, source)
        if doc.data is None or not isinstance(doc.data, dict):
            first = doc.problems[0] if doc.problems else f"{source}: expected a YAML mapping"
            raise SkirmishError(f"cannot edit: {first}")
        for key in SECTIONS:
            items = doc.data.get(key, [])
            if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
                raise SkirmishError(f"cannot edit: {source}: {key} must be a list of mappings")
        self.text_opened = text
        self.source = source
        self.out = out
        self.policies = policies
        self.base = {k: v for k, v in doc.data.items() if k not in SECTIONS}
        self.items: dict[str, tuple[EditedItem, ...]] = {
            k: tuple(EditedItem(i, d) for i, d in enumerate(doc.data.get(k, []))) for k in SECTIONS
        }
        #: The items as opened, and the sections the file has.
        self.opened = dict(self.items)
        self.present = {k for k in SECTIONS if k in doc.data}
        self._undo: list[dict[str, tuple[EditedItem, ...]]] = []
        self._redo: list[dict[str, tuple[EditedItem, ...]]] = []
        #: Grows with every change (edit, undo, redo); the window rebuilds its match on change.
        self.version = 0
        self.saved_version = 0
        self._checked: tuple[int, Checked] | None = None

    # ------------------------------------------------------------------ reading
    @property
    def dirty(self) -> bool:
        """Changes since the last save (or since opening)."""
        return self.version != self.saved_version

    def ids(self, section: str) -> list[str]:
        return [str(it.data.get("id")) for it in self.items[section]]

    def find(self, item_id: str) -> tuple[str, int]:
        """(section, index) of the item ``item_id``; :class:`EditRefused` if there is none."""
        for section in SECTIONS:
            for i, it in enumerate(self.items[section]):
                if it.data.get("id") == item_id:
                    return section, i
        raise EditRefused(f"no unit or obstacle {item_id!r}")

    def get(self, item_id: str) -> dict[str, Any]:
        """The data of item ``item_id`` (do not change it: edits go through the methods)."""
        section, i = self.find(item_id)
        return self.items[section][i].data

    def sides(self) -> list[str]:
        """The sides of the units, in order of first appearance."""
        out: list[str] = []
        for it in self.items["units"]:
            side = str(it.data.get("side"))
            if side not in out:
                out.append(side)
        return out

    def side_choices(self) -> list[str]:
        """Sides a unit may take: the units' sides, then those ``controllers:`` names, then red
        and blue (so the first units of a new scenario can go to two sides)."""
        out = self.sides()
        controllers = self.base.get("controllers")
        named = [str(k) for k in controllers] if isinstance(controllers, dict) else []
        for side in [*named, "red", "blue"]:
            if side not in out:
                out.append(side)
        return out

    def profiles(self) -> list[str]:
        """Profile names a unit may take: the shared file's, then the scenario's own."""
        _, shared, _ = read_profiles(None)
        own = self.base.get("profiles")
        names = list(shared) + [n for n in (own if isinstance(own, dict) else {}) if n not in shared]
        return names or [DEFAULT_PROFILE]

    def data(self) -> dict[str, Any]:
        """The whole scenario as plain data (a fresh copy)."""
        out = copy.deepcopy(self.base)
        for key in SECTIONS:
            if self.items[key] or key in self.present:
                out[key] = [copy.deepcopy(it.data) for it in self.items[key]]
        return out

    def text(self) -> str:
        """The file's text with the edits: untouched parts byte for byte as opened."""
        changed = {k: v for k, v in self.items.items() if v != self.opened[k]}
        return rewrite_items(self.text_opened, changed) if changed else self.text_opened

    # ------------------------------------------------------------------ checks
    def check(self) -> Checked:
        """The checker's verdict on the current data (cached per :attr:`version`)."""
        if self._checked is None or self._checked[0] != self.version:
            self._checked = (self.version, self._check(self.data()))
        return self._checked[1]

    def _check(self, data: dict[str, Any], min_sides: int = 2) -> Checked:
        checker = ScenarioChecker(
            YamlDoc(self.source, data=data), None, None, (), self.policies, min_sides=min_sides
        )
        spec = checker.run(hashlib.sha256(repr(data).encode()).hexdigest())
        problems = tuple(self._named(p, data) for p in checker.problems)
        return Checked(spec if not problems else None, problems)

    @staticmethod
    def _named(p: Problem, data: dict[str, Any]) -> tuple[str | None, str]:
        # the data checked has no lines: the checker's "(line N)" would point nowhere
        message = _LINE_REF.sub("", p.message)
        parts = p.path.split(".") if p.path else []
        if len(parts) >= 2 and parts[0] in SECTIONS and parts[1].isdigit():
            items = data.get(parts[0]) or []
            k = int(parts[1])
            if k < len(items) and isinstance(items[k], dict):
                uid = str(items[k].get("id"))
                field = f" {'.'.join(parts[2:])}" if len(parts) > 2 else ""
                return uid, f"{uid}{field}: {message}"
        return None, f"{p.path or 'scenario'}: {message}"

    def drawable(self) -> tuple[ScenarioSpec | None, tuple[str, ...]]:
        """The spec to show, and the ids left out of it because they have problems.

        With problems, the items at fault are dropped and the rest checked again (a few
        rounds); a scenario being made, with units on fewer than two sides (none yet), is shown
        as it stands (the map, its obstacles, the units placed so far); None when what remains
        still fails (a map problem).
        """
        checked = self.check()
        if checked.spec is not None:
            return checked.spec, ()
        data = self.data()
        dropped: list[str] = []
        faulty = {uid for uid, _ in checked.problems if uid is not None}
        for _ in range(DROP_ROUNDS):
            again = self._check(data, min_sides=0)  # what stands so far, sides or not
            if again.spec is not None:
                return again.spec, tuple(dropped)
            faulty = {uid for uid, _ in again.problems if uid is not None}
            if not faulty:
                return None, tuple(dropped)
            dropped += sorted(faulty)
            for key in SECTIONS:
                if key in data:
                    data[key] = [d for d in data[key] if str(d.get("id")) not in faulty]
        return None, tuple(dropped)

    # ------------------------------------------------------------------ edits
    def _commit(self, section: str, items: list[EditedItem]) -> None:
        self._undo.append(dict(self.items))
        del self._undo[:-MAX_UNDO]
        self._redo.clear()
        self.items = {**self.items, section: tuple(items)}
        self.version += 1

    def _change(self, item_id: str, **fields: Any) -> None:
        section, i = self.find(item_id)
        items = list(self.items[section])
        data = {**items[i].data, **fields}
        items[i] = dataclasses.replace(items[i], data=data)
        self._commit(section, items)

    def _new_id(self, stem: str) -> str:
        taken = set(self.ids("units")) | set(self.ids("obstacles"))
        n = 1
        while f"{stem}-{n}" in taken:
            n += 1
        return f"{stem}-{n}"

    def add_unit(self, at: tuple[float, float], side: str, profile: str | None, facing: float = 0) -> str:
        """A new standing unit of ``side`` at ``at``; returns its id (``<side>-<n>``)."""
        uid = self._new_id(side)
        data: dict[str, Any] = {"id": uid, "side": side, "at": [snap(at[0]), snap(at[1])]}
        data["facing"] = facing
        if profile is not None:
            data["profile"] = profile
        self._commit("units", [*self.items["units"], EditedItem(None, data)])
        return uid

    def move_unit(self, uid: str, at: tuple[float, float]) -> None:
        self._change(uid, at=[snap(at[0]), snap(at[1])])

    def face(self, uid: str, degrees: float) -> None:
        """Set the facing, in whole degrees in [0, 360) (0 east, 90 south)."""
        self._change(uid, facing=round(degrees) % 360)

    def set_field(self, item_id: str, key: str, value: Any) -> None:
        """Set ``side``, ``posture``, ``profile`` or ``height``; a None value removes the key."""
        section, i = self.find(item_id)
        data = {k: v for k, v in self.items[section][i].data.items() if k != key}
        if value is not None:
            data[key] = value
        items = list(self.items[section])
        items[i] = dataclasses.replace(items[i], data=data)
        self._commit(section, items)

    def delete(self, item_id: str) -> None:
        section, i = self.find(item_id)
        items = list(self.items[section])
        del items[i]
        self._commit(section, items)

    def add_obstacle(self, points: Sequence[tuple[float, float]], height: str | float = "low") -> str:
        """A new obstacle with corners ``points`` (at least 3); returns its id (``obstacle-<n>``)."""
        if len(points) < 3:
            raise EditRefused(f"an obstacle needs at least 3 corners, got {len(points)}")
        oid = self._new_id("obstacle")
        data = {"id": oid, "height": height, "polygon": [[snap(x), snap(y)] for x, y in points]}
        self._commit("obstacles", [*self.items["obstacles"], EditedItem(None, data)])
        return oid

    def polygon(self, oid: str) -> list[tuple[float, float]]:
        """The obstacle's corners (points that are not two numbers are left out: the checker
        reports them)."""
        poly = self.get(oid).get("polygon")
        return [(float(p[0]), float(p[1])) for p in (poly if isinstance(poly, list) else []) if is_point(p)]

    def _set_polygon(self, oid: str, pts: Sequence[tuple[float, float]]) -> None:
        self._change(oid, polygon=[[snap(x), snap(y)] for x, y in pts])

    def move_vertex(self, oid: str, k: int, at: tuple[float, float]) -> None:
        pts = self.polygon(oid)
        pts[k] = at
        self._set_polygon(oid, pts)

    def insert_vertex(self, oid: str, k: int) -> int:
        """A new corner halfway along the edge after corner ``k``; returns its index."""
        pts = self.polygon(oid)
        a, b = pts[k], pts[(k + 1) % len(pts)]
        pts.insert(k + 1, ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2))
        self._set_polygon(oid, pts)
        return k + 1

    def delete_vertex(self, oid: str, k: int) -> None:
        pts = self.polygon(oid)
        if len(pts) <= 3:
            raise EditRefused(f"{oid} has 3 corners, the fewest an obstacle can have (Delete it instead)")
        del pts[k]
        self._set_polygon(oid, pts)

    def move_obstacle(self, oid: str, dx: float, dy: float) -> None:
        self._set_polygon(oid, [(x + dx, y + dy) for x, y in self.polygon(oid)])

    def height_value(self, oid: str) -> float:
        """The obstacle's height as a number (named heights read as DESIGN §2 says)."""
        h = self.get(oid).get("height", "low")
        if isinstance(h, (int, float)) and not isinstance(h, bool):
            return float(h)
        return float(HEIGHT_NAMES.get(h, HEIGHT_NAMES["low"])) if isinstance(h, str) else HEIGHT_NAMES["low"]

    # ------------------------------------------------------------------ undo
    def undo(self) -> bool:
        if not self._undo:
            return False
        self._redo.append(self.items)
        self.items = self._undo.pop()
        self.version += 1
        return True

    def redo(self) -> bool:
        if not self._redo:
            return False
        self._undo.append(self.items)
        self.items = self._redo.pop()
        self.version += 1
        return True

    # ------------------------------------------------------------------ saving
    def save(self) -> tuple[Path, tuple[tuple[str | None, str], ...]]:
        """Write :meth:`text` to :attr:`out` atomically; returns the path and the problems it has."""
        atomic_write_text(self.out, self.text())
        self.saved_version = self.version
        return self.out, self.check().problems


def is_point(p: Any) -> TypeGuard[list[float]]:
    """Whether ``p`` is ``[x, y]`` with two numbers (what a unit's ``at`` or a corner must be)."""
    return (
        isinstance(p, list)
        and len(p) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in p)
    )


def number(d: dict[str, Any], key: str, default: float) -> float:
    """``d[key]`` if it is a number, else ``default`` (a bad value is the checker's to report)."""
    v = d.get(key, default)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else default


def unit_at(d: dict[str, Any]) -> tuple[float, float] | None:
    """A unit's ``at`` as a point, or None when it is not two numbers."""
    at = d.get("at")
    if not is_point(at):
        return None
    return (float(at[0]), float(at[1]))
