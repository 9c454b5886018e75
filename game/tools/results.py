"""Tidy battle results: one CSV row per battle and side, recorded as battles finish, resumable.

Contract:
- :func:`side_rows` turns the row of one battle (:func:`game.tools.batch.run_battle`, one
  ``<field>_<side>`` column per side) into tidy rows, one per side: :data:`LEADING` columns,
  one ``option.<key>`` column per option a sweep varies, :data:`TRAILING` columns, then one
  column per mechanic of the rulesets played (:func:`columns`). Side names are values of the
  ``side`` column, never parts of column names, so the file loads with ``pandas.read_csv`` as
  it is and battles of scenarios with other side names stack in one table.
  :func:`battle_row` is the inverse (for the summaries and plots of a resumed run).
- :func:`record` plays planned battles through :func:`game.tools.batch.iter_batch` and appends
  each battle's rows to the CSV the moment it finishes (one write, flushed; a fresh run's
  first rows replace an older file atomically, a failed append is cut back to the last whole
  battle). When the run ends,
  is interrupted (``KeyboardInterrupt``, also with worker processes) or a battle fails, the
  finished battles are rewritten atomically in plan order, so a finished run's file is the same
  whatever the number of workers and however often it was interrupted and resumed.
- ``resume=True`` reads the CSV back, drops a torn last line (a run killed mid-write) and any
  battle missing some of its side rows, keeps the battles whose key (:func:`job_key`: variant,
  scenario, ruleset, options, seed, swapped, policies) the plan holds and plays the rest. A
  battle in the file that the plan lacks is a :class:`ResumeRefused`.
- :func:`check_manifest` keeps the run's parameters in ``run.json`` beside the CSV and refuses
  to resume a run whose parameters differ (other than the number of battles: a larger ``-n``
  adds seeds).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from game.core.errors import SkirmishError
from game.core.events import atomic_write_text
from game.tools import batch
from game.tools.appender import Appender, to_text
from game.tools.stats import DRAW

#: Columns before the ``option.<key>`` ones.
LEADING = ("variant", "scenario", "ruleset", "options")
#: Columns after the ``option.<key>`` ones, before the mechanic counts.
TRAILING = (
    "seed",
    "swapped",
    "side",
    "policy",
    "opponent",
    "result",
    "won",
    "reason",
    "rounds",
    "commands",
    "survivors",
    "opponent_survivors",
    "damage_dealt",
    "damage_taken",
    "final_hash",
    "log",
)
#: Meaning of each column, for the docs and ``--help``.
COLUMN_DOC = {
    "variant": "the variant's label: the varied factors of a sweep, the compared arm of battle --compare, "
    "else the scenario file's stem",
    "scenario": "scenario name",
    "ruleset": "ruleset played",
    "options": "the ruleset options played (the scenario's, overridden by --option): "
    "key=value;... sorted by key, values as JSON (strings bare); 'none' for none",
    "option.<key>": "(sweep) the value of each option the sweep varies; "
    "empty where the ruleset has no such option",
    "seed": "match seed",
    "swapped": "1 for the swapped game of a seed under --swap-sides",
    "side": "the side this row is about",
    "policy": "the policy that played it",
    "opponent": "the other side's policy ('/'-joined for more than two sides)",
    "result": "win, loss or draw; error for a battle a user policy broke (reason says how)",
    "won": "1 if the side won, else 0",
    "reason": "why the battle ended (for an error: the policy, unit and decision, and what happened)",
    "rounds": "rounds played",
    "commands": "commands applied (turn commands and reactions)",
    "survivors": "the side's units still in action at the end",
    "opponent_survivors": "the other sides' units still in action",
    "damage_dealt": "damage the side's units dealt: sum of |change| over the health tracks they hit",
    "damage_taken": "damage the side's units took (from anyone, friends in the way included)",
    "final_hash": "state hash at the end (equal hashes: the same battle)",
    "log": "the battle's event log, if kept",
    "<mechanic>": "how often the side fired the mechanic (empty: not a mechanic of the row's ruleset)",
}
#: Name of the run's parameters beside its CSV.
MANIFEST = "run.json"
#: ``options`` cell of a battle played with no ruleset options.
NO_OPTIONS = "none"


class ResumeRefused(SkirmishError):
    """``--resume`` cannot continue the run in this folder (the message says why)."""


@dataclass(frozen=True)
class Planned:
    """One battle of a run with what its tidy rows say beyond the battle row.

    Attributes:
        job: the battle.
        variant: its variant's label (never empty).
        scenario: the scenario's name.
        ruleset: the ruleset played.
        sides: the scenario's sides in order.
        factors: ``option.<key>`` column -> cell, the options a sweep varies.
    """

    job: batch.BattleJob
    variant: str
    scenario: str
    ruleset: str
    sides: tuple[str, ...]
    factors: tuple[tuple[str, str], ...] = ()


def value_text(value: Any) -> str:
    """An option value as a cell: strings as they are, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def options_text(options: Mapping[str, Any] | Sequence[tuple[str, Any]]) -> str:
    """The stable ``options`` cell: ``key=value`` sorted by key, joined by ``;``."""
    items = sorted(dict(options).items())
    return ";".join(f"{k}={value_text(v)}" for k, v in items) or NO_OPTIONS


def mechanic_names(rulesets: Sequence[str]) -> list[str]:
    """Mechanic columns for these rulesets: the legacy nine first, then each ruleset's others."""
    seen: dict[str, None] = {}
    for name in rulesets:
        for m in batch.row_mechanics(name):
            seen.setdefault(m.name, None)
    return list(seen)


def columns(rulesets: Sequence[str], option_keys: Sequence[str] = ()) -> list[str]:
    """The header of a results file (see the module docstring)."""
    return [*LEADING, *(f"option.{k}" for k in option_keys), *TRAILING, *mechanic_names(rulesets)]


#: ``result`` of the rows of a battle that ended in an error (``reason`` says which).
ERROR = "error"


def side_rows(row: Mapping[str, Any], planned: Planned) -> list[dict[str, Any]]:
    """The tidy rows of one battle row, one per side in scenario order (a battle that ended in an
    error: ``result`` ``error``, ``reason`` its message, the counts left empty)."""
    sides = planned.sides
    if "error" in row:
        return [
            {
                "variant": planned.variant,
                "scenario": row["scenario"],
                "ruleset": row["ruleset"],
                "options": options_text(planned.job.options),
                **dict(planned.factors),
                "seed": row["seed"],
                "swapped": row["swapped"],
                "side": side,
                "policy": row[f"policy_{side}"],
                "opponent": "/".join(str(row[f"policy_{s}"]) for s in sides if s != side),
                "result": ERROR,
                "reason": row["error"],
                "log": row.get("log", ""),
            }
            for side in sides
        ]
    winner = row["winner"]
    mechanics = [m.name for m in batch.row_mechanics(row["ruleset"])]
    out = []
    for side in sides:
        others = [s for s in sides if s != side]
        result = DRAW if winner == DRAW else ("win" if winner == side else "loss")
        tidy: dict[str, Any] = {
            "variant": planned.variant,
            "scenario": row["scenario"],
            "ruleset": row["ruleset"],
            "options": options_text(planned.job.options),
            **dict(planned.factors),
            "seed": row["seed"],
            "swapped": row["swapped"],
            "side": side,
            "policy": row[f"policy_{side}"],
            "opponent": "/".join(str(row[f"policy_{s}"]) for s in others),
            "result": result,
            "won": int(result == "win"),
            "reason": row["reason"],
            "rounds": row["rounds"],
            "commands": row["commands"],
            "survivors": row[f"survivors_{side}"],
            "opponent_survivors": sum(int(row[f"survivors_{s}"]) for s in others),
            "damage_dealt": row[f"damage_{side}"],
            "damage_taken": row[f"damage_taken_{side}"],
            "final_hash": row["final_hash"],
            "log": row["log"],
        }
        for m in mechanics:
            tidy[m] = row[f"{m}_{side}"]
        out.append(tidy)
    return out


def battle_row(rows: Sequence[Mapping[str, Any]], planned: Planned) -> dict[str, Any]:
    """The battle row (as :func:`game.tools.batch.run_battle` returned it) of one battle's tidy rows."""
    by_side = {str(r["side"]): r for r in rows}
    first = rows[0]
    ruleset = str(first["ruleset"])
    if first["result"] == ERROR:
        back: dict[str, Any] = {
            "variant": planned.job.variant,
            "scenario": first["scenario"],
            "ruleset": ruleset,
            "seed": int(first["seed"]),
            "swapped": int(first["swapped"]),
        }
        for s in planned.sides:
            back[f"policy_{s}"] = by_side[s]["policy"]
        back.update(winner="", error=first["reason"], log=first["log"] or "")
        return back
    winner = next((s for s, r in by_side.items() if r["result"] == "win"), DRAW)
    out: dict[str, Any] = {
        "variant": planned.job.variant,
        "scenario": first["scenario"],
        "ruleset": ruleset,
        "seed": int(first["seed"]),
        "swapped": int(first["swapped"]),
    }
    for s in planned.sides:
        out[f"policy_{s}"] = by_side[s]["policy"]
    out["winner"] = winner
    out["winner_policy"] = by_side[winner]["policy"] if winner != DRAW else ""
    out["reason"] = first["reason"]
    out["rounds"] = int(first["rounds"])
    out["commands"] = int(first["commands"])
    for s in planned.sides:
        out[f"survivors_{s}"] = int(by_side[s]["survivors"])
    for s in planned.sides:
        out[f"damage_{s}"] = int(by_side[s]["damage_dealt"])
    out["final_hash"] = first["final_hash"]
    out["log"] = first["log"] or ""
    for m in batch.row_mechanics(ruleset):
        for s in planned.sides:
            out[f"{m.name}_{s}"] = int(by_side[s][m.name])
    for s in planned.sides:
        out[f"damage_taken_{s}"] = int(by_side[s]["damage_taken"])
    return out


# --------------------------------------------------------------------------- keys
Key = tuple[str, ...]


def _cell(value: Any) -> str:
    return str(batch.neutralised(value))


def job_key(planned: Planned) -> Key:
    """The key of a planned battle, as its rows in the CSV read back."""
    job = planned.job
    pols = ",".join(f"{s}={p}" for s, p in sorted(job.policies))
    parts = (
        planned.variant,
        planned.scenario,
        planned.ruleset,
        options_text(job.options),
        job.seed,
        int(job.swapped),
        pols,
    )
    return tuple(_cell(x) for x in parts)


def rows_key(rows: Sequence[Mapping[str, str]]) -> Key:
    """The key of one battle's rows read back from a results file."""
    r = rows[0]
    pols = ",".join(f"{x['side']}={x['policy']}" for x in sorted(rows, key=lambda x: x["side"]))
    return (r["variant"], r["scenario"], r["ruleset"], r["options"], r["seed"], r["swapped"], pols)


#: Columns a results file needs to be read back (the battle key's).
KEY_COLUMNS = ("variant", "scenario", "ruleset", "options", "seed", "swapped", "side", "policy")


def rows_key_of_row(row: Mapping[str, str]) -> Key:
    """The part of a battle's key that each of its rows carries (all but the policies)."""
    return (row["variant"], row["scenario"], row["ruleset"], row["options"], row["seed"], row["swapped"])


# --------------------------------------------------------------------------- the file
@dataclass(frozen=True)
class ReadBack:
    """A results file read back: its header, its whole battles, and what was dropped."""

    header: list[str]
    battles: list[list[dict[str, str]]]
    dropped_lines: int


def read_results(path: Path, sides_of: Mapping[Key, int] | None = None) -> ReadBack:
    """Read a results file, dropping a torn last line and rows of unfinished battles.

    Args:
        path: the CSV.
        sides_of: battle key without its policies (:func:`rows_key_of_row`) -> number of sides,
            for the planned battles; a battle with fewer rows is dropped (a write cut short).
            Battles not in it are kept as they are.

    Raises:
        ValueError: the file lacks a column of :data:`KEY_COLUMNS` (not a results file).
    """
    text = path.read_text(encoding="utf-8")
    dropped = 0
    if text and not text.endswith("\n"):  # killed in the middle of a line
        text = text[: text.rfind("\n") + 1]
        dropped += 1
    reader = csv.reader(io.StringIO(text))
    header = next(reader, [])
    missing = [c for c in KEY_COLUMNS if c not in header]
    if missing:
        raise ValueError(f"not a results file: no column {missing[0]!r}")
    groups: dict[Key, list[dict[str, str]]] = {}
    for cells in reader:
        if len(cells) != len(header):
            dropped += 1
            continue
        row = dict(zip(header, cells, strict=True))
        groups.setdefault(rows_key_of_row(row), []).append(row)
    battles = []
    for part, rows in groups.items():
        want = (sides_of or {}).get(part)
        if want is not None and len(rows) != want:
            dropped += len(rows)
            continue
        battles.append(rows)
    return ReadBack(header, battles, dropped)


@dataclass
class Recorded:
    """What :func:`record` kept.

    Attributes:
        rows: planned index -> battle row, for every finished battle (resumed ones included).
        tidy: planned index -> its tidy rows.
        resumed: battles found finished in the CSV.
        dropped_lines: torn or orphaned lines dropped from the CSV.
        interrupted: the run was interrupted (KeyboardInterrupt) before it ended.
        signum: the signal that interrupted it (SIGINT for Ctrl-C, SIGTERM).
    """

    rows: dict[int, dict[str, Any]] = field(default_factory=dict)
    tidy: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    resumed: int = 0
    dropped_lines: int = 0
    interrupted: bool = False
    signum: int = 2

    def in_order(self) -> list[dict[str, Any]]:
        """The battle rows of the finished battles, in plan order."""
        return [self.rows[i] for i in sorted(self.rows)]


def record(
    planned: Sequence[Planned],
    path: Path,
    header: Sequence[str],
    *,
    resume: bool = False,
    workers: int = 1,
    dask: str | None = None,
    progress: bool = True,
    desc: str = "battles",
    before_first_write: Callable[[], object] | None = None,
    companion: Companion | None = None,
) -> Recorded:
    """Play ``planned`` into the results file ``path`` (see the module docstring).

    ``companion`` (e.g. ``profiles.csv``, :class:`game.tools.profiles.ProfilesFile`) is a file
    kept with the same care: told the battles resumed (``begin``), given each finished battle
    just before its rows are appended (``write``: so a battle in the CSV is whole in the
    companion, and one the companion has but the CSV lacks is played again), and rewritten in
    plan order when the run ends (``end``).

    Returns the finished battles; ``interrupted`` says whether a KeyboardInterrupt stopped it.
    ``before_first_write`` runs before a fresh run first replaces the file (its manifest), so a
    run that fails or stops before its first battle leaves the folder as it was.

    Raises:
        ResumeRefused: ``resume`` and the file holds a battle the plan lacks, or is unreadable.
        BattleFailed: a battle broke down (the finished ones are in the file).
    """
    out = Recorded()
    keys = [job_key(p) for p in planned]
    index = {k: i for i, k in enumerate(keys)}
    if resume and path.exists():
        try:
            back = read_results(path, {k[:-1]: len(p.sides) for k, p in zip(keys, planned, strict=True)})
        except (OSError, ValueError, csv.Error) as e:  # UnicodeDecodeError is a ValueError
            raise ResumeRefused(f"cannot read {path}: {e}") from None
        for rows in back.battles:
            key = rows_key(rows)
            i = index.get(key)
            if i is None:
                raise ResumeRefused(
                    f"{path} holds a battle this command does not plan ({rows[0]['variant']}, "
                    f"seed {rows[0]['seed']}): resume with the same arguments (a larger -n is fine)"
                )
            out.tidy[i] = [dict(r) for r in rows]
            out.rows[i] = battle_row(rows, planned[i])
        out.resumed = len(out.rows)
        out.dropped_lines = back.dropped_lines
        _rewrite(out, path, header)
    # else: a previous run's file is replaced by this run's first rows (atomically, see Appender)
    todo = [i for i in range(len(planned)) if i not in out.rows]
    if companion is not None:
        companion.begin(out.rows, resume)
    appender = Appender(path, header, fresh=not out.rows, first=before_first_write)
    try:
        for j, row in batch.iter_batch(
            [planned[i].job for i in todo],
            workers=workers,
            dask=dask,
            progress=progress,
            desc=desc,
            done=out.resumed,
        ):
            i = todo[j]
            tidy = side_rows(row, planned[i])
            if companion is not None:
                companion.write(i, row)
            appender.write(tidy)
            out.tidy[i], out.rows[i] = tidy, row
    except KeyboardInterrupt as e:
        out.interrupted = True
        out.signum = int(getattr(e, "signum", 2))
    finally:
        appender.close()
        if out.rows:
            _rewrite(out, path, header)
        if companion is not None:
            companion.end(out.rows)
    return out


class Companion(Protocol):
    """A file written beside the results file, battle by battle (see :func:`record`)."""

    def begin(self, resumed: Mapping[int, Mapping[str, Any]], resume: bool) -> None: ...
    def write(self, i: int, row: Mapping[str, Any]) -> None: ...
    def end(self, rows: Mapping[int, Mapping[str, Any]]) -> None: ...


def _rewrite(out: Recorded, path: Path, header: Sequence[str]) -> None:
    rows = [r for i in sorted(out.tidy) for r in out.tidy[i]]
    atomic_write_text(path, to_text(rows, header, with_header=True))


# --------------------------------------------------------------------------- the manifest
def check_manifest(
    folder: Path, params: Mapping[str, Any], resume: bool, results: Path, write: bool = True
) -> Callable[[], Path]:
    """Keep ``params`` in ``folder/run.json``; with ``resume``, refuse if they differ from the file's.

    The number of battles (``n``) may grow between a run and its resumption. With ``write``
    False the file is not written now: the returned function writes it (a fresh run calls it
    when its first rows are written, so a run that writes nothing leaves the old manifest).

    Raises:
        ResumeRefused: the parameters differ, or results exist without a manifest.
    """
    path = folder / MANIFEST
    now = json.loads(json.dumps(params, sort_keys=True, default=str))
    if resume and results.exists():
        try:
            before = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ResumeRefused(
                f"{results} has no {MANIFEST} beside it: it was not written by a run that can be resumed"
            ) from None
        except (OSError, ValueError) as e:
            raise ResumeRefused(f"cannot read {path}: {e}") from None
        diff = first_difference({**before, "n": None}, {**now, "n": None})
        if diff is not None:
            where, was, is_now = diff
            raise ResumeRefused(
                f"the run in {folder} was made with other parameters: {where} was {was}, now {is_now}; "
                "give the same arguments, or another --out for a new run"
            )

    def save() -> Path:
        return atomic_write_text(path, json.dumps(now, indent=2, sort_keys=True) + "\n")

    if write:
        save()
    return save


def first_difference(a: Any, b: Any, where: str = "") -> tuple[str, str, str] | None:
    """The first place two JSON values differ: (path like ``variants[0].policies.blue``, a, b)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            sub = f"{where}.{key}" if where else str(key)
            if key not in a or key not in b:
                return sub, json.dumps(a.get(key)), json.dumps(b.get(key))
            found = first_difference(a[key], b[key], sub)
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{where}[{i}]")
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        return where, f"{len(a)} entries", f"{len(b)} entries"
    return None if a == b else (where, json.dumps(a), json.dumps(b))
