"""Per-profile results: which unit types a rule favours (``profiles.csv``, beside ``battles.csv``).

Contract:
- :func:`battle_profiles` reads a finished match into one record per (side, unit profile): the
  units of that profile on the side, how many were still in action at the end, the damage they
  dealt and took (as ``battles.csv`` counts it per side: the sum of ``|change|`` over the health
  tracks of every ``damage`` event, by its ``source`` and its ``unit``) and how often they fired
  each mechanic of the ruleset. :func:`encode` packs them into the battle row's ``profiles`` cell
  (a JSON string: rows stay flat) and :func:`decode` unpacks it.
- :func:`profile_rows` turns finished battle rows into the tidy rows of ``profiles.csv``
  (:data:`LEADING` columns, then :data:`TRAILING`, then one column per mechanic in first-seen
  order; empty where the row's ruleset has no such mechanic). A battle row without a
  ``profiles`` cell (one read back by ``--resume``) takes its rows from the previous
  ``profiles.csv`` (``previous``), matched by variant, seed and swapped.
- :func:`write` writes them atomically (:func:`game.tools.batch.write_csv`).
- :class:`ProfilesFile` keeps ``profiles.csv`` battle by battle while a run records
  ``battles.csv`` (a :class:`game.tools.results.Companion`): each battle's rows are appended
  (one write, the same appender as ``battles.csv``) just before its ``battles.csv`` rows, so a
  run killed with ``kill -9`` and resumed ends with the same file as an uninterrupted run: the
  battles resumed keep their rows of the file, the rest are played again.
- Nothing here plays a battle.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: File name, beside ``battles.csv`` / ``results.csv``.
PROFILES = "profiles.csv"
#: The battle's columns.
LEADING = ("variant", "scenario", "ruleset", "options", "seed", "swapped", "result_side")
#: The profile's columns, before the mechanic counts.
TRAILING = ("side", "profile", "units", "survived", "survival", "damage_dealt", "damage_taken", "won")
#: Meaning of each column, for the docs.
COLUMN_DOC = {
    "variant": "the battle's variant (as in battles.csv)",
    "scenario": "scenario name",
    "ruleset": "ruleset played",
    "options": "the ruleset options played (as in battles.csv)",
    "seed": "match seed",
    "swapped": "1 for the swapped game of a seed under --swap-sides",
    "result_side": "the winning side, or 'draw'",
    "side": "the side these units fought on",
    "profile": "the unit profile (the scenario's 'profile:' of the units; trooper when none)",
    "units": "units of this profile on this side",
    "survived": "of them, still in action at the end",
    "survival": "survived / units",
    "damage_dealt": "damage these units dealt (sum of |change| over the health tracks they hit)",
    "damage_taken": "damage these units took, from anyone",
    "won": "1 if their side won",
    "<mechanic>": "how often these units fired the mechanic (empty: not a mechanic of the ruleset)",
}


def battle_profiles(
    match: Any, fired: Mapping[str, Mapping[str, int]], mechanics: Sequence[str]
) -> list[dict[str, Any]]:
    """One record per (side, profile) of ``match`` (see the module docstring); ``fired`` is
    mechanic -> unit id -> times (:func:`game.rules.mechanics.count_all`)."""
    from game.scenario.profiles import DEFAULT_PROFILE

    profile_of = {u.id: u.profile or DEFAULT_PROFILE for u in match.spec.units}
    side_of = {u: match.side(u) for u in match.units(alive=False)}
    dealt: dict[str, int] = {}
    taken: dict[str, int] = {}
    for e in match.log.events:
        if e["type"] == "damage":
            amount = sum(abs(int(v)) for v in e["deltas"].values())
            src, hit = e.get("source") or "", e.get("unit") or ""
            if src in side_of:
                dealt[src] = dealt.get(src, 0) + amount
            if hit in side_of:
                taken[hit] = taken.get(hit, 0) + amount
    alive = set(match.units())
    groups: dict[tuple[str, str], list[str]] = {}
    for uid, side in side_of.items():
        groups.setdefault((side, profile_of.get(uid, DEFAULT_PROFILE)), []).append(uid)
    out = []
    for (side, profile), uids in sorted(
        groups.items(), key=lambda kv: (match.spec.sides.index(kv[0][0]), kv[0][1])
    ):
        out.append(
            {
                "side": side,
                "profile": profile,
                "units": len(uids),
                "survived": sum(1 for u in uids if u in alive),
                "damage_dealt": sum(dealt.get(u, 0) for u in uids),
                "damage_taken": sum(taken.get(u, 0) for u in uids),
                "mechanics": {m: sum(int(fired.get(m, {}).get(u, 0)) for u in uids) for m in mechanics},
            }
        )
    return out


def encode(records: Sequence[Mapping[str, Any]]) -> str:
    """The battle row's ``profiles`` cell."""
    return json.dumps(list(records), separators=(",", ":"))  # mechanics in the ruleset's order


def decode(cell: str) -> list[dict[str, Any]]:
    """The records of a ``profiles`` cell."""
    got = json.loads(cell)
    return list(got) if isinstance(got, list) else []


def _key(row: Mapping[str, Any]) -> tuple[str, str, str]:
    return (str(row.get("variant", "")), str(row.get("seed", "")), str(int(row.get("swapped") or 0)))


def read_previous(path: Path) -> list[dict[str, str]]:
    """The rows of an earlier ``profiles.csv`` (none if there is none or it cannot be read)."""
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            return list(csv.DictReader(fh))
    except (OSError, csv.Error, UnicodeDecodeError):
        return []


def profile_rows(
    battles: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]],
    previous: Sequence[Mapping[str, str]] = (),
) -> list[dict[str, Any]]:
    """Tidy rows of ``profiles.csv`` from ``(battle row, head)`` pairs in plan order: ``head`` holds
    the battle's :data:`LEADING` cells (variant label, options text); see the module docstring."""
    old: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for r in previous:
        old.setdefault(_key(r), []).append(dict(r))
    out: list[dict[str, Any]] = []
    for row, head in battles:
        lead = {k: head.get(k, row.get(k, "")) for k in LEADING[:-1]}
        lead["swapped"] = int(row.get("swapped") or 0)
        lead["result_side"] = row.get("winner", "")
        cell = row.get("profiles")
        if not cell:
            out += old.get(_key(lead), [])
            continue
        for p in decode(str(cell)):
            units = int(p["units"])
            out.append(
                {
                    **lead,
                    "side": p["side"],
                    "profile": p["profile"],
                    "units": units,
                    "survived": p["survived"],
                    "survival": round(p["survived"] / units, 6) if units else 0.0,
                    "damage_dealt": p["damage_dealt"],
                    "damage_taken": p["damage_taken"],
                    "won": int(row.get("winner") == p["side"]),
                    **p.get("mechanics", {}),
                }
            )
    return out


def header(rows: Sequence[Mapping[str, Any]], mechanics: Sequence[str] = ()) -> list[str]:
    """The columns: :data:`LEADING`, :data:`TRAILING`, then the mechanics (``mechanics`` and any
    the rows have) sorted: one order, however the rows came."""
    fixed = [*LEADING, *TRAILING]
    return fixed + sorted({*mechanics, *(k for r in rows for k in r if k not in fixed)})


def write(rows: Sequence[Mapping[str, Any]], path: Path, mechanics: Sequence[str] = ()) -> Path:
    """``profiles.csv`` with the columns in the documented order (atomically)."""
    from game.core.events import atomic_write_text
    from game.tools.csvtext import rows_to_csv

    header_ = header(rows, mechanics)
    full = [{k: r.get(k, "") for k in header_} for r in rows]
    if not full:
        return atomic_write_text(path, ",".join(header_) + "\n")
    return atomic_write_text(path, rows_to_csv(full))


class ProfilesFile:
    """``profiles.csv`` written battle by battle beside ``battles.csv`` (see the module docstring).

    Args:
        path: the file.
        heads: planned index -> the battle's :data:`LEADING` cells (variant label, options text).
        mechanics: every mechanic of the rulesets planned (the columns, fixed for the run).
    """

    def __init__(self, path: Path, heads: Sequence[Mapping[str, Any]], mechanics: Sequence[str]) -> None:
        self.path, self.heads, self.mechanics = path, heads, list(mechanics)
        self.columns = header((), mechanics)
        self.rows: dict[int, list[dict[str, Any]]] = {}
        self.appender: Any = None

    def _rows(self, i: int, row: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [] if "error" in row else profile_rows([(row, self.heads[i])])

    def begin(self, resumed: Mapping[int, Mapping[str, Any]], resume: bool) -> None:
        """Keep the rows of the battles resumed (from the file as an earlier run left it, a torn
        last line dropped) and start appending after them."""
        from game.tools.appender import Appender

        previous = _read_whole(self.path) if resume else []
        for i in sorted(resumed):
            self.rows[i] = (
                profile_rows([(resumed[i], self.heads[i])], previous) if "error" not in resumed[i] else []
            )
        if self.rows:
            self._rewrite()
        self.appender = Appender(self.path, self.columns, fresh=not resumed)

    def write(self, i: int, row: Mapping[str, Any]) -> None:
        rows = self._rows(i, row)
        self.rows[i] = rows
        if rows:
            self.appender.write(rows)

    def end(self, rows: Mapping[int, Mapping[str, Any]]) -> None:
        """Close the file and rewrite it in plan order (atomically)."""
        if self.appender is not None:
            self.appender.close()
        self._rewrite()

    def _rewrite(self) -> None:
        write([r for i in sorted(self.rows) for r in self.rows[i]], self.path, self.mechanics)


def _read_whole(path: Path) -> list[dict[str, str]]:
    """:func:`read_previous` without a torn last line (a run killed mid-write)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    import io

    try:
        return [r for r in csv.DictReader(io.StringIO(text)) if None not in r and None not in r.values()]
    except csv.Error:
        return []
