"""The semantic checks of one scenario file, and the spec built from a sound one.

Contract: :class:`ScenarioChecker` runs the shape check (:mod:`game.scenario.schema`) and
then the semantic checks over every well-formed part, so one run reports every mistake:
unique ids (units and obstacles share one namespace), simple polygons on the map, bases
inside the map and clear of each other and of obstacles, at least two sides, controllers
naming sides and known policies (never a user policy's ``FILE.py:FUNCTION``: a scenario
does not load code), known profiles with a valid stat block for the rulesets in
play, ruleset options. :meth:`ScenarioChecker.run` returns the frozen spec, or ``None``
with :attr:`ScenarioChecker.problems` saying why.
"""

from __future__ import annotations

import copy
import difflib
import functools
import re
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import shapely
from pydantic import BaseModel, TypeAdapter, ValidationError
from shapely.validation import explain_validity

from components.spatial import Posture, normalize_degrees
from components.specs import ScenarioSpec, UnitSpec
from components.terrain import ObstacleSpec
from game.core.errors import Problem
from game.core.files import readable_name
from game.rules import RULESET_NAMES
from game.scenario.idents import lookalike_problems, normalise_ids
from game.scenario.messages import fmt_num, shown, validation_problems
from game.scenario.profiles import (
    DEFAULT_PROFILE,
    RULESET_BUGS,
    Profiles,
    ProfilesText,
    available_ruleset,
    collect_blocks,
    read_profiles,
    ruleset_bug,
    unavailable,
    validate_blocks,
)
from game.scenario.schema import (
    DEFAULT_CONTROLLER,
    DEFAULT_ROUNDS,
    MapModel,
    ObstacleModel,
    ScaleModel,
    ScenarioFile,
    UnitModel,
)
from game.scenario.yaml_source import KeyPath, YamlDoc, format_path

#: Slack for "touching is fine" comparisons (bases touching each other or a wall).
EPS = 1e-9


@functools.cache
def _field_adapter(model: type[BaseModel], name: str) -> TypeAdapter[Any]:
    """A validator for one field of ``model`` (its type with all its constraints)."""
    info = model.model_fields[name]
    tp: Any = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
    return TypeAdapter(tp)


def _partial(model: type[BaseModel], item: Any, required: Sequence[str]) -> Any:
    """``model`` built from the fields of ``item`` that are valid on their own.

    Invalid optional fields take their defaults. Returns None when ``item`` is not a
    mapping or one of ``required`` is missing or invalid. Why: a unit with a bad
    posture should still be checked for overlapping its neighbours, so one run
    reports both mistakes (the bad posture itself is reported by the shape check).
    """
    if not isinstance(item, dict):
        return None
    values: dict[str, Any] = {}
    for name in model.model_fields:
        if name not in item:
            continue
        try:
            values[name] = _field_adapter(model, name).validate_python(item[name])
        except ValidationError:
            continue
    if any(name not in values for name in required):
        return None
    return model.model_construct(**values)


class ScenarioChecker:
    """Runs the shape and semantic checks of one scenario, collecting problems."""

    def __init__(
        self,
        doc: YamlDoc,
        ruleset: str | None,
        profiles_path: Path | ProfilesText | None,
        also: tuple[str, ...],
        policies: Collection[str] | None,
        *,
        min_sides: int = 2,
    ) -> None:
        self.doc = doc
        #: Sides the units must be on: 2 for a scenario; the editor's picture of a scenario being
        #: made (no units yet) asks for none.
        self.min_sides = min_sides
        self.ruleset_override = ruleset
        self.profiles_path = profiles_path
        self.also = also
        self.policies = policies
        self.problems: list[Problem] = list(doc.problems)

    def add(self, path: KeyPath, message: str) -> None:
        self.problems.append(self.doc.problem(path, message))

    def run(self, sha256: str) -> ScenarioSpec | None:
        data = self.doc.data
        if data is None:
            return None
        if not isinstance(data, dict):
            self.add((), f"expected a mapping of scenario keys (name, map, units, ...), got {shown(data)}")
            return None
        # One spelling per name (NFC) before anything reads one; names that only look alike refused.
        before = len(self.doc.problems)
        normalise_ids(self.doc)
        lookalike_problems(self.doc)
        self.problems += self.doc.problems[before:]
        data = self.doc.data
        try:
            ScenarioFile.model_validate(data)
        except ValidationError as e:
            self.problems += validation_problems(self.doc, e, (), ScenarioFile)

        # Semantic checks run over every well-formed part, so one run reports
        # both shape mistakes and, say, overlapping units elsewhere in the file.
        mapm: MapModel | None = _partial(MapModel, data.get("map"), ("width", "height"))
        units = self._items("units", UnitModel, ("id", "at"))
        obstacles = self._items("obstacles", ObstacleModel, ("id", "polygon"))
        ruleset = self._ruleset(data)
        self._unique_ids(data)
        polygons = self._polygons(obstacles, mapm)
        self._placement(units, polygons, mapm)
        sides = self._sides(data)
        self._controllers(data, sides)
        profiles = self._profiles(data, units, ruleset)
        self._options(data)
        if self.problems or mapm is None or ruleset is None:
            return None

        scale = ScaleModel.model_validate(data.get("scale", {}))
        name = data.get("name") or (
            readable_name(Path(self.doc.source).stem) if self.doc.source != "<memory>" else "scenario"
        )
        controllers = {side: DEFAULT_CONTROLLER for side in sides}
        controllers.update(data.get("controllers") or {})
        return ScenarioSpec(
            name=name,
            ruleset=ruleset,
            width=mapm.width,
            height=mapm.height,
            cell=mapm.cell,
            yards_per_inch=scale.yards_per_inch,
            round_limit=data.get("rounds", DEFAULT_ROUNDS),
            obstacles=tuple(
                ObstacleSpec(o.id, _ring(o.polygon), float(o.height), float(o.size)) for _, o in obstacles
            ),
            units=tuple(
                UnitSpec(
                    id=u.id,
                    side=u.side,
                    at=(float(u.at[0]), float(u.at[1])),
                    facing=normalize_degrees(u.facing),
                    posture=Posture(u.posture),
                    profile=u.profile,
                    base=float(u.base),
                    size=float(u.size),
                    line=self.doc.line(("units", i)),
                )
                for i, u in units
            ),
            profiles={
                # Deep copies: the shared file's parsed data is cached and must not be
                # changed through a spec.
                name: {rs: copy.deepcopy(b.block) for rs, b in per.items() if b.block is not None}
                for name, per in profiles.items()
            },
            options={k: copy.deepcopy(v) for k, v in (data.get("options") or {}).items()},
            sides=tuple(sides),
            controllers=controllers,
            source=self.doc.source,
            sha256=sha256,
            description=str(data.get("description") or ""),
        )

    # ---- pieces ------------------------------------------------------------------

    def _items(self, key: str, model: type[BaseModel], required: Sequence[str]) -> list[tuple[int, Any]]:
        """(index, partial model) for the items of the list under ``key`` that have ``required``."""
        items = self.doc.data.get(key)
        if not isinstance(items, list):
            return []
        out = []
        for i, item in enumerate(items):
            m = _partial(model, item, required)
            if m is not None:
                out.append((i, m))
        return out

    def _ruleset(self, data: dict[str, Any]) -> str | None:
        rs = self.ruleset_override or data.get("ruleset")
        if rs is None:
            self.add(
                ("ruleset",),
                "missing required key 'ruleset' (or give --ruleset): one of " + ", ".join(RULESET_NAMES),
            )
            return None
        if rs not in RULESET_NAMES:
            return None  # reported by the shape check
        self.problems += unavailable(self.doc, ("ruleset",), dict.fromkeys((rs, *self.also)))
        return str(rs)

    def _unique_ids(self, data: dict[str, Any]) -> None:
        # One namespace for units and obstacles: both appear by id in sight output
        # ("intervening", "hidden by") and events, where a shared id is ambiguous.
        seen: dict[str, KeyPath] = {}
        for key in ("obstacles", "units"):
            items = data.get(key)
            if not isinstance(items, list):
                continue
            for i, item in enumerate(items):
                uid = item.get("id") if isinstance(item, dict) else None
                if not isinstance(uid, str):
                    continue
                if uid in seen:
                    first = seen[uid]
                    what = "unit" if first[0] == "units" else "obstacle"
                    self.add(
                        (key, i, "id"),
                        f"expected a unique id, got {uid!r} again "
                        f"(already the {what} {format_path(first[:2])}, line {self.doc.line(first)})",
                    )
                else:
                    seen[uid] = (key, i, "id")

    def _polygons(
        self, obstacles: list[tuple[int, ObstacleModel]], mapm: MapModel | None
    ) -> list[tuple[int, ObstacleModel, Any]]:
        """Shapely polygons of the obstacles whose outline is a valid simple polygon."""
        out = []
        table = shapely.box(0, 0, mapm.width, mapm.height) if mapm is not None else None
        for i, o in obstacles:
            path = ("obstacles", i, "polygon")
            ring = _ring(o.polygon)
            # Zero area first: shapely calls a collinear outline "self-intersecting",
            # which would hide the real mistake.
            if len(ring) < 3 or shapely.MultiPoint(ring).convex_hull.area <= EPS:
                self.add(path, "expected a polygon with non-zero area, got points on one line")
                continue
            poly = shapely.Polygon(ring)
            if not poly.is_valid:
                self.add(path, f"expected a simple polygon (edges must not cross or touch), got {_why(poly)}")
                continue
            if table is not None and not poly.intersects(table):
                self.add(
                    path,
                    f"expected the obstacle on the map (0..{fmt_num(mapm.width)} × "  # type: ignore[union-attr]
                    f"0..{fmt_num(mapm.height)}), it lies entirely outside",  # type: ignore[union-attr]
                )
            out.append((i, o, poly))
        return out

    def _placement(
        self,
        units: list[tuple[int, UnitModel]],
        polygons: list[tuple[int, ObstacleModel, Any]],
        mapm: MapModel | None,
    ) -> None:
        """Bases inside the map, clear of each other and of every obstacle."""
        if not units:
            return
        xy = np.array([u.at for _, u in units], dtype=float)
        r = np.array([u.base for _, u in units], dtype=float)
        if mapm is not None:
            for k, (i, u) in enumerate(units):
                x, y = xy[k]
                if (
                    x - r[k] < -EPS
                    or y - r[k] < -EPS
                    or x + r[k] > mapm.width + EPS
                    or y + r[k] > mapm.height + EPS
                ):
                    self.add(
                        ("units", i, "at"),
                        f"expected the base (radius {fmt_num(u.base)}) inside the map "
                        f"0..{fmt_num(mapm.width)} × 0..{fmt_num(mapm.height)}, "
                        f"got centre [{fmt_num(x)}, {fmt_num(y)}]",
                    )
        # Unit-unit: all pairs at once (scenarios hold tens of units, not thousands).
        gap = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1]) - (
            r[:, None] + r[None, :]
        )
        for a, b in zip(*np.nonzero(np.triu(gap < -EPS, k=1))):
            (ia, ua), (ib, ub) = units[a], units[b]
            self.add(
                ("units", ib, "at"),
                f"expected bases not to overlap, but {ub.id!r} overlaps unit {ua.id!r} "
                f"(line {self.doc.line(('units', ia))}) by {fmt_num(round(-float(gap[a, b]), 3))} in",
            )
        if not polygons:
            return
        # Unit-obstacle: STRtree broad phase, exact distance to the polygon after.
        tree = shapely.STRtree([p for _, _, p in polygons])
        points = shapely.points(xy)
        hits = tree.query(points, predicate="dwithin", distance=float(r.max()))
        for k, j in zip(*hits):
            dist = float(shapely.distance(points[k], polygons[j][2]))
            if dist < r[k] - EPS:
                i, u = units[k]
                oi, o, _ = polygons[j]
                where = "is inside" if polygons[j][2].contains(points[k]) else "overlaps"
                self.add(
                    ("units", i, "at"),
                    f"expected the base clear of obstacles, but {u.id!r} {where} obstacle {o.id!r} "
                    f"(line {self.doc.line(('obstacles', oi))})",
                )

    def _sides(self, data: dict[str, Any]) -> list[str]:
        """Side names in order of first appearance; at least two are required."""
        items = data.get("units")
        sides: list[str] = []
        if not isinstance(items, list):
            return sides
        unreadable = False
        for item in items:
            side = item.get("side") if isinstance(item, dict) else None
            if not isinstance(side, str):
                unreadable = True  # already reported; counting sides now would only add noise
            elif side not in sides:
                sides.append(side)
        if len(sides) >= self.min_sides:
            return sides
        if not items:
            self.add(("units",), "expected units on at least 2 sides, got no units")
        elif len(sides) < 2 and not unreadable:
            self.add(("units",), f"expected units on at least 2 sides, got only side {sides[0]!r}")
        return sides

    def _controllers(self, data: dict[str, Any], sides: list[str]) -> None:
        controllers = data.get("controllers")
        if not isinstance(controllers, dict):
            return
        for side, policy in controllers.items():
            if isinstance(side, str) and sides and side not in sides:
                self.add(
                    ("controllers", side),
                    f"expected a side that has units ({', '.join(sides)}), got {side!r}",
                )
            elif isinstance(policy, str) and ":" in policy:  # a scenario never loads code
                self.add(
                    ("controllers", side),
                    f"a scenario names built-in AI policies only, got {policy!r}; "
                    "play your own with --red/--blue FILE.py:FUNCTION",
                )
            elif self.policies is not None and isinstance(policy, str) and policy not in self.policies:
                self.add(
                    ("controllers", side),
                    f"expected an AI policy ({', '.join(sorted(self.policies))}), got {policy!r}",
                )

    def _profiles(
        self, data: dict[str, Any], units: list[tuple[int, UnitModel]], ruleset: str | None
    ) -> Profiles:
        """Merge profiles, validate the blocks in use and every unit's profile reference."""
        _, merged, problems = read_profiles(self.profiles_path)
        self.problems += problems
        own = collect_blocks(self.doc, data.get("profiles"), ("profiles",))
        for name, own_blocks in own.items():
            merged.setdefault(name, {}).update(own_blocks)
        rulesets = list(dict.fromkeys([*([ruleset] if ruleset else []), *self.also]))
        # The scenario's own blocks are checked under every installed ruleset (its
        # author wants to hear about a broken cortex block while testing with gurps);
        # shared blocks only for the rulesets in play, so a half-written profiles.yaml
        # block of another ruleset does not fail every scenario.
        self.problems += validate_blocks(own, RULESET_NAMES)
        self.problems += validate_blocks(merged, rulesets, only=lambda b: b.doc is not self.doc)
        for i, u in units:
            name = u.profile or DEFAULT_PROFILE
            per = merged.get(name)
            if u.profile is not None and per is None:
                known = sorted(merged)
                close = difflib.get_close_matches(name, known, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                self.add(
                    ("units", i, "profile"),
                    f"expected a known profile ({', '.join(known) or 'none defined'}), got {name!r}{hint}",
                )
                continue
            for rs in rulesets:
                entry = (per or {}).get(rs)
                if entry is not None and entry.block is not None:
                    continue
                if u.profile is None:
                    # No trooper block: the ruleset's built-in standard trooper is used.
                    continue
                self.add(
                    ("units", i, "profile"),
                    f"expected profile {name!r} to have a stat block for ruleset {rs!r}; "
                    f"add profiles.{name}.{rs} to the scenario or to profiles.yaml",
                )
        return merged

    def _options(self, data: dict[str, Any]) -> None:
        options = data.get("options")
        if not isinstance(options, dict):
            return
        for rs, block in options.items():
            if rs not in RULESET_NAMES or not isinstance(block, dict):
                continue  # reported by the shape check
            cls = available_ruleset(rs)
            if cls is None:
                continue  # validated once that ruleset is installed
            try:
                cls.Options.model_validate(block)
            except ValidationError as e:
                # one line per option: what it cannot be, its type, range and default, the ruleset
                from game.rules.options import located_text

                for err in e.errors():
                    self.add(("options", rs, *err.get("loc", ())), located_text(rs, cls.Options, err))
            except RULESET_BUGS as e:
                self.add(("options", rs), ruleset_bug(rs, e))


def _why(poly: Any) -> str:
    """Shapely's reason a polygon is invalid, in words: "self-intersection at (11, 2)"."""
    why = explain_validity(poly)
    m = re.fullmatch(r"\s*(.*?)\s*\[\s*(\S+)\s+(\S+)\s*\]\s*", why)
    if m is None:
        return why.lower()
    return f"{m.group(1).lower()} at ({fmt_num(float(m.group(2)))}, {fmt_num(float(m.group(3)))})"


def _ring(points: Sequence[Sequence[float]]) -> tuple[tuple[float, float], ...]:
    """Outline as float tuples, without a repeated closing point."""
    ring = [(float(x), float(y)) for x, y in points]
    if len(ring) > 1 and ring[0] == ring[-1]:
        ring.pop()
    return tuple(ring)
