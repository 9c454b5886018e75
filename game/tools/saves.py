"""Saved games: a match is its scenario, ruleset, options, seed and the commands applied so far.

Contract:

- :func:`save_match` ``(match, path)`` writes one JSON file (format ``skirmish-save``,
  :data:`SAVE_VERSION`) holding the scenario's path, sha256 and text, the stat blocks of the
  shared profiles its units use (with their sha256: :mod:`game.scenario.embed`), the ruleset, its
  options, the seed, the round limit, the controllers, every applied command
  (``match.commands``), the state of ``match.ai_rng``, the AI's memory
  (``match.ai_memory``: each unit's quarry) and, for verification, the number of events, the
  state hash, the match's engine snapshot (``snapshot``: :meth:`Match.snapshot`, as text; version
  6) and a sha256 of every field (:data:`DIGESTED`) over its canonical JSON
  (:mod:`game.tools.integrity`). It writes through :func:`game.core.events.atomic_write_text`
  (temp file + rename), so a crash never leaves a half-written save and an older save at
  ``path`` survives a failed write.
- :func:`load_match` ``(path, scenario_path=None) -> Match`` validates the file
  strictly (pydantic, unknown keys are errors) and rebuilds the scenario from the save
  itself (its text and profiles: the save loads anywhere, whatever happened to the files
  since); a ``scenario_path`` given with it must have the saved bytes, else it is refused,
  saying that the scenario embedded in the save differs from that file. Saves of versions 1
  and 2 (before the scenario was embedded) find it by the one rule of
  :func:`game.scenario.locate.find_scenario` (``scenario_path``, else the saved absolute
  path, else the saved path relative to the save's folder, else a file with the saved
  sha256 in the usual folders; a file whose sha256 differs from the saved one is refused).
  A version 6 save is restored from its snapshot (:meth:`Match.from_snapshot`: exact, no
  replay, nothing imported or run) and every other field must agree with the restored match
  (ruleset, options, seed, round limit, controllers, commands, AI generator and memory, event
  count and state hash), else it is refused naming the field. Older saves are rebuilt through
  :meth:`game.tools.session.Setup.build` with the same seed and the commands re-applied, then
  ``ai_rng`` and the AI's memory restored.
  Play it on with ``game.tools.session.Session(match, players)``, the players chosen by
  :func:`game.tools.integrity.trusted_players`: loading never runs code, and a side the save
  gives to a user policy is a person's unless the command line names it again. Saves of
  versions 1 to 5 still load. A replay that does not end with the saved event count and state
  hash is refused too (the rules changed since the save).
- Integrity (version 3 and later): the digests are checked first, before anything is built from
  the fields, except ``ai_rng``, ``ai_memory`` and ``commands``, checked after the replay (a
  command refused on replay is named by its index). Version 5 covers every field, so any edit
  is refused naming the first field edited (:data:`DIGESTED` order); versions 3 and 4 cover
  the fields that decide how the game continues (their profiles are checked against their
  sha256, their paths and game version are informational). Duplicate JSON keys, seeds outside
  ``0 <= seed < 2**63``, round limits outside 1..1000 and controllers that do not name exactly
  the scenario's sides (each ``human`` or an AI policy) are refused. The file itself is read
  by :func:`game.core.files.read_capped` (a regular file of at most 64 MiB). Every problem raises
  :class:`~game.core.errors.ScenarioError` whose lines read ``save:line: key.path: what is wrong``;
  a problem of the embedded scenario names the save too (``save:line: scenario.text: ...``).
- Why the AI stream is saved rather than re-derived: ``ai_rng`` advances only when an
  AI policy draws, and how often it drew depends on which sides were human; the dice
  stream (``match.rng``) needs nothing saved, since re-applying the commands redraws
  exactly the same dice. The AI's memory is saved for the same reason: no event records
  whom a unit chose to chase. So the loaded match continues exactly as the original would
  have: same dice, same AI choices, same log.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError

from components.specs import ScenarioSpec
from game import __version__
from game.core.commands import command_from_json
from game.core.errors import IllegalCommand, Problem, ScenarioError, SkirmishError
from game.core.events import MAX_JSON_DEPTH, atomic_write_text, json_depth
from game.core.files import LIMITS, FileRefused, read_capped
from game.engine.match import Match
from game.rules import RULESET_NAMES
from game.scenario.embed import EmbeddedInvalid, EmbeddedMismatch, embedded, rebuild
from game.scenario.locate import ScenarioNotFound, find_scenario, resolve_scenario, sha256_of
from game.scenario.schema import MAX_ROUNDS
from game.scenario.yaml_source import KeyPath, format_path, parse_yaml
from game.tools.headers import MAX_SEED, controllers_problem, header_problem
from game.tools.integrity import AFTER_REPLAY, EVERY_FIELD_6, SNAPSHOT_SINCE, digested, edited
from game.tools.integrity import digests as field_digests
from game.tools.session import Setup

#: The ``format`` field of every save.
SAVE_FORMAT = "skirmish-save"
#: Version of the save layout written (2: adds ``ai_memory``; 3: adds ``check.digests``; 4: the
#: scenario's text and the profiles its units use; 5: the digests cover every field; 6: the
#: match's engine snapshot, restored instead of replayed).
SAVE_VERSION = 6
#: Versions read; any other is refused. A version 1 save loads with an empty AI memory;
#: versions 1 and 2 have no digests (their fields are checked by the replay only); saves before
#: version 4 find their scenario file; versions 3 and 4 have digests of the fields that decide
#: how the game continues only (:data:`game.tools.integrity.DECIDING`).
READABLE_VERSIONS = (1, 2, 3, 4, 5, 6)
#: The first version that embeds its scenario's text and profiles.
EMBEDDED_SINCE = 4
#: The first version whose ``check`` holds ``digests``.
DIGESTS_SINCE = 3
#: The fields the digests of this version's saves cover: every one
#: (:data:`game.tools.integrity.EVERY_FIELD_6`: version 5's and the snapshot), checked in this
#: order on load, so any edit (a
#: round limit, a controller, the AI generator, a move nudged so that it still ends in the same
#: place, the embedded profiles with their hash recomputed, the recorded path, the game version)
#: is refused naming the first field that differs.
DIGESTED = EVERY_FIELD_6
#: Largest save accepted (bytes): far above any real match, small enough to refuse junk quickly.
MAX_SAVE_BYTES = LIMITS["save"]

StrictStr = Annotated[str, Strict()]
StrictInt = Annotated[int, Strict()]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScenarioRef(_Model):
    """Where the scenario was and which bytes it had."""

    path: StrictStr = Field(min_length=1, description="absolute path when saved")
    relative: StrictStr | None = Field(None, description="path relative to the save's folder, if any")
    sha256: Annotated[str, Strict(), Field(pattern=r"^[0-9a-f]{64}$")]
    text: StrictStr | None = Field(None, description="the scenario file's text (version 3)")


U128 = Annotated[int, Strict(), Field(ge=0, lt=2**128)]


class PcgState(_Model):
    state: U128
    inc: U128


class RngState(_Model):
    """``numpy.random.PCG64`` state (what ``default_rng`` uses), as ``bit_generator.state`` gives it."""

    bit_generator: Literal["PCG64"]
    state: PcgState
    has_uint32: Annotated[int, Strict(), Field(ge=0, le=1)]
    uinteger: Annotated[int, Strict(), Field(ge=0, lt=2**32)]


class Verification(_Model):
    """What the re-applied commands must lead to."""

    events: StrictInt = Field(ge=1)
    state_hash: Annotated[str, Strict(), Field(pattern=r"^[0-9a-f]{16}$")]
    digests: dict[StrictStr, Annotated[str, Strict(), Field(pattern=r"^[0-9a-f]{64}$")]] | None = Field(
        None, description="version 3 and later: sha256 of each field the version covers"
    )


class AiMemory(_Model):
    """What the AI policies remember that no event records (``Match.ai_memory``)."""

    quarry: dict[StrictStr, StrictStr] = Field(default_factory=dict)


class SaveFile(_Model):
    """A saved game (see the module docstring)."""

    format: Literal["skirmish-save"]
    version: StrictInt
    game_version: StrictStr
    scenario: ScenarioRef
    ruleset: StrictStr
    options: dict[str, Any]
    seed: StrictInt = Field(ge=0, lt=MAX_SEED)
    round_limit: StrictInt = Field(ge=1, le=MAX_ROUNDS)
    controllers: dict[str, StrictStr]
    ai_rng: RngState
    ai_memory: AiMemory = Field(default_factory=AiMemory)
    profiles: dict[StrictStr, dict[StrictStr, Any]] | None = Field(
        None, description="the shared profiles' stat blocks the units use (version 3)"
    )
    profiles_sha256: Annotated[str, Strict(), Field(pattern=r"^[0-9a-f]{64}$")] | None = None
    commands: list[dict[str, Any]]
    check: Verification
    snapshot: StrictStr | None = Field(
        None, description="version 6: the match's engine snapshot (game.engine.snapshot), as text"
    )

    def embedded(self) -> dict[str, Any] | None:
        """The save's scenario as :func:`game.scenario.embed.rebuild` takes it (None before version 3)."""
        if self.scenario.text is None or self.profiles is None:
            return None
        return {
            "scenario_text": self.scenario.text,
            "scenario_sha256": self.scenario.sha256,
            "scenario_path": self.scenario.path,
            "profiles": self.profiles,
            "profiles_sha256": self.profiles_sha256,
            "ruleset": self.ruleset,
        }


# ----------------------------------------------------------------------------------
# Saving
# ----------------------------------------------------------------------------------


def _scenario_path(match: Match) -> Path | None:
    """The scenario file on disk (absolute), or None when the match has only its text."""
    source = match.spec.source
    path = Path(source)
    if not source.startswith("<") and path.is_file():
        return path.resolve()
    if match.spec.text:
        return None
    raise SkirmishError(
        f"cannot save: the match's scenario {source!r} is neither a file on disk nor a loaded text"
    )


def save_dict(match: Match, save_dir: Path | None = None) -> dict[str, Any]:
    """The save of ``match`` as plain JSON data (``save_dir``: where it will be written, for ``relative``)."""
    scenario = _scenario_path(match)
    relative = None
    if save_dir is not None and scenario is not None:
        try:
            relative = os.path.relpath(scenario, save_dir.resolve())
        except ValueError:  # another drive on Windows: no relative path
            relative = None
    inside = embedded(match.spec, match.ruleset_name)
    ref: dict[str, Any] = {
        "path": str(scenario) if scenario is not None else match.spec.source,
        "relative": relative,
        "sha256": match.spec.sha256,
        "text": inside.get("scenario_text"),
    }
    data: dict[str, Any] = {
        "format": SAVE_FORMAT,
        "version": SAVE_VERSION,
        "game_version": __version__,
        "scenario": ref,
        "profiles": inside.get("profiles"),
        "profiles_sha256": inside.get("profiles_sha256"),
        "ruleset": match.ruleset_name,
        "options": match.rules.options.model_dump(mode="json"),
        "seed": match.seed,
        "round_limit": match.round_limit,
        "controllers": dict(match.controllers),
        "ai_rng": match.ai_rng.bit_generator.state,
        "ai_memory": {"quarry": dict(match.ai_memory.get("quarry", {}))},
        "commands": list(match.commands),
        "check": {"events": len(match.log), "state_hash": match.state_hash()},
        "snapshot": match.snapshot().decode("utf-8"),
    }
    data["check"]["digests"] = digests(data, SAVE_VERSION)
    return data


def digests(data: dict[str, Any], version: int = SAVE_VERSION) -> dict[str, str]:
    """sha256 of each field a save of ``version`` covers (:func:`game.tools.integrity.digests`)."""
    return field_digests(data, version)


def _check_digests(data: dict[str, Any], save: SaveFile, probs: _Problems, after: bool) -> None:
    """Refuse a save (version 3 and later) a field of which was edited, naming the first: the
    fields replayed commands check (``after``) or the others."""
    if save.check.digests is None:
        return  # versions 1 and 2: checked by the replay only
    fields = [k for k in digested(save.version) if (k in AFTER_REPLAY) == after]
    key = edited(data, save.check.digests, save.version, fields)
    if key == "check.digests":
        raise probs.error(("check", "digests"), f"expected digests of {', '.join(digested(save.version))}")
    if key is not None:
        raise probs.error(
            (key,),
            "edited since the game was saved (its digest differs from check.digests); "
            "a save is loaded only as it was written",
        )


def _dumps(data: dict[str, Any]) -> str:
    """JSON with one top-level key per line and one command per line (diffable, compact)."""
    parts = []
    for key, value in data.items():
        if key == "commands":
            if value:
                body = ",\n  ".join(json.dumps(c, separators=(", ", ": ")) for c in value)
                parts.append(f' "commands": [\n  {body}\n ]')
            else:
                parts.append(' "commands": []')
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(value, separators=(', ', ': '))}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def save_match(match: Match, path: str | os.PathLike[str]) -> Path:
    """Write ``match`` to ``path`` atomically (see the module docstring); returns the path.

    Raises:
        SkirmishError: the match was not built from a scenario file.
        OSError: the file cannot be written (an existing save is left as it was).
    """
    target = Path(path)
    return atomic_write_text(target, _dumps(save_dict(match, target.parent)))


# ----------------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------------


class _Problems:
    """Collects problems of one save file, locating key paths by line when it can."""

    def __init__(self, source: str, raw: bytes) -> None:
        self.source = source
        self.raw = raw
        self._doc: Any = None

    def line(self, path: KeyPath) -> int:
        # JSON is YAML: the line-tracking YAML reader locates key paths (only parsed on error).
        if self._doc is None:
            self._doc = parse_yaml(self.raw, self.source)
        try:
            return int(self._doc.line(path)) if self._doc.data is not None else 0
        except (KeyError, IndexError, TypeError):
            return 0

    def error(self, path: KeyPath, message: str) -> ScenarioError:
        return ScenarioError([Problem(self.source, self.line(path), format_path(path), message)])

    def from_validation(self, err: ValidationError) -> ScenarioError:
        problems = []
        for e in err.errors():
            loc = tuple(p for p in e["loc"] if isinstance(p, (str, int)))
            msg = e["msg"]
            if e["type"] == "extra_forbidden":
                msg = "unknown key"
            elif e["type"] == "missing":
                msg = "missing key"
            elif "input" in e and e["type"] not in ("missing",):
                shown = repr(e["input"])
                msg = f"{msg}, got {shown if len(shown) <= 60 else shown[:57] + '...'}"
            problems.append(Problem(self.source, self.line(loc), format_path(loc), msg))
        return ScenarioError(problems)


def _read(path: Path) -> bytes:
    try:
        return read_capped(path, "save", MAX_SAVE_BYTES)
    except FileRefused as e:
        reason = "no such save file" if e.reason == "no such file" else e.reason
        raise ScenarioError([Problem(e.source, 0, "", reason)]) from None


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.path: KeyPath = (key,)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json`` object hook refusing a key given twice (json would keep the last silently)."""
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


def read_save(path: str | os.PathLike[str]) -> SaveFile:
    """Parse and validate a save file (nothing is replayed); raises ``ScenarioError``."""
    return _parse_save(Path(path))[2]


def _parse_save(p: Path) -> tuple[bytes, dict[str, Any], SaveFile]:
    """The save's bytes, its JSON data and the validated model (``ScenarioError`` if invalid)."""
    raw = _read(p)
    probs = _Problems(str(p), raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise ScenarioError([Problem(str(p), line, "", "expected UTF-8 JSON text")]) from None
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as e:
        raise ScenarioError(
            [Problem(str(p), e.lineno, "", f"not JSON: {e.msg} (column {e.colno})")]
        ) from None
    except RecursionError:
        raise ScenarioError([Problem(str(p), 0, "", "not a save: nested too deep")]) from None
    except _DuplicateKey as e:
        raise probs.error(e.path, f"duplicate key {e.path[-1]!r}: each key may appear once") from None
    except ValueError as e:  # e.g. an integer of more than 4,300 digits
        raise ScenarioError([Problem(str(p), 0, "", f"not a save: {e}")]) from None
    if json_depth(data) > MAX_JSON_DEPTH:
        raise ScenarioError([Problem(str(p), 0, "", "not a save: nested too deep")])
    if not isinstance(data, dict):
        raise ScenarioError([Problem(str(p), 1, "", f"expected a JSON object, got {type(data).__name__}")])
    if data.get("format") != SAVE_FORMAT:
        raise probs.error(
            ("format",), f"not a skirmish save (format must be {SAVE_FORMAT!r}, got {data.get('format')!r})"
        )
    if data.get("version") not in READABLE_VERSIONS or type(data.get("version")) is not int:
        raise probs.error(
            ("version",),
            f"unknown save version {data.get('version')!r}; this skirmish reads versions "
            + ", ".join(map(str, READABLE_VERSIONS)),
        )
    if data["version"] == 1 and "ai_memory" in data:
        raise probs.error(("ai_memory",), "version 1 saves have no ai_memory")
    has_digests = isinstance(data.get("check"), dict) and "digests" in data["check"]
    if has_digests != (data["version"] >= DIGESTS_SINCE):
        raise probs.error(
            ("check", "digests"),
            f"version {data['version']} saves {'have no' if has_digests else 'must have'} check.digests",
        )
    if data["version"] < EMBEDDED_SINCE:
        for key in ("profiles", "profiles_sha256"):
            if key in data:
                raise probs.error((key,), f"version {data['version']} saves have no {key}")
        if isinstance(data.get("scenario"), dict) and "text" in data["scenario"]:
            raise probs.error(("scenario", "text"), f"version {data['version']} saves have no scenario text")
    try:
        return raw, data, SaveFile.model_validate(data)
    except ValidationError as e:
        raise probs.from_validation(e) from None


def _check_setup(save: SaveFile, spec: ScenarioSpec, probs: _Problems) -> None:
    """Refuse header fields no match can be built from (``ScenarioError`` naming the key)."""
    bad = header_problem(
        {
            "seed": save.seed,
            "ruleset": save.ruleset,
            "options": save.options,
            "round_limit": save.round_limit,
            "controllers": save.controllers,
        },
        sha256=False,
    )
    if bad is not None:
        raise probs.error((bad[0],), bad[1])
    why = controllers_problem(save.controllers, spec.sides)
    if why is not None:
        raise probs.error(("controllers",), why)


def load_match(path: str | os.PathLike[str], scenario_path: str | os.PathLike[str] | None = None) -> Match:
    """Rebuild the saved match, ready to continue (see the module docstring).

    Args:
        path: the save file.
        scenario_path: the scenario file to use instead of the saved path (its bytes
            must still hash to the saved sha256).

    Returns:
        The match, with the saved commands re-applied and ``ai_rng`` restored.

    Raises:
        ScenarioError: the save (or the scenario) is invalid, the scenario changed,
            or the saved commands do not replay to the saved state.
    """
    from game.scenario import load_scenario

    save_path = Path(path)
    raw, data, save = _parse_save(save_path)
    probs = _Problems(str(save_path), raw)
    _check_digests(data, save, probs, after=False)  # before anything is built from the fields
    if (save.version >= SNAPSHOT_SINCE) != (save.snapshot is not None):
        has = save.snapshot is not None
        raise probs.error(
            ("snapshot",), f"version {save.version} saves {'have no' if has else 'must have a'} snapshot"
        )
    if save.ruleset not in RULESET_NAMES:
        raise probs.error(
            ("ruleset",), f"unknown ruleset {save.ruleset!r}; choose one of {', '.join(RULESET_NAMES)}"
        )
    inside = save.embedded()
    if inside is not None:
        if scenario_path is not None:
            given = resolve_scenario(scenario_path)
            try:
                got = sha256_of(given)
            except OSError as e:
                raise probs.error(
                    ("scenario", "path"), f"cannot read scenario {given}: {e.strerror or e}"
                ) from None
            if got != save.scenario.sha256:
                raise probs.error(
                    ("scenario", "sha256"),
                    f"the scenario embedded in the save (sha256 {save.scenario.sha256[:12]}…, saved from "
                    f"{save.scenario.path}) differs from {given} (sha256 {got[:12]}…); load the save "
                    "without a scenario file to play the embedded one",
                )
        try:
            spec = rebuild(inside, str(save_path), save.ruleset, kind="save")
        except EmbeddedMismatch as e:
            at: KeyPath = ("scenario", "text") if e.key == "scenario" else ("profiles",)
            raise probs.error(at, e.message) from None
        except EmbeddedInvalid as e:  # located at the save's scenario.text
            line = probs.line(("scenario", "text"))
            raise ScenarioError(
                [
                    Problem(p.source, line, "scenario.text", p.message)
                    if p.source == str(save_path) and p.path == "scenario_text"
                    else p
                    for p in e.problems
                ]
            ) from None
    else:
        try:
            scenario_file = find_scenario(
                save.scenario.path,
                sha256=save.scenario.sha256,
                relative_to=save_path,
                relative=save.scenario.relative,
                given=scenario_path,
                since="the game was saved",
                hint="pass the scenario file to load it",
            )
        except ScenarioNotFound as e:
            raise probs.error(("scenario", e.key), e.message) from None
        spec = load_scenario(scenario_file, ruleset=save.ruleset)
    _check_setup(save, spec, probs)
    commands = []
    for i, command in enumerate(save.commands):
        try:
            commands.append(command_from_json(command))
        except (ValueError, TypeError) as e:
            why = str(e)
            raise probs.error(
                ("commands", i), why if why.startswith("not a command") else f"not a command: {why}"
            ) from None
    if save.snapshot is not None:
        return _restore(save, commands, data, probs)
    setup = Setup(
        ruleset=save.ruleset,
        seed=save.seed,
        options=save.options,
        controllers=save.controllers,
        round_limit=save.round_limit,
    )
    try:
        match = setup.build(spec)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise probs.error(("options",), f"invalid {save.ruleset} option {where}: {first['msg']}") from None
    except SkirmishError as e:
        raise probs.error(("ruleset",), str(e)) from None
    try:
        for i, cmd in enumerate(commands):
            try:
                match.apply(cmd)
            except IllegalCommand as e:
                raise probs.error(("commands", i), f"refused on replay: {e}") from None
        try:
            match.ai_rng.bit_generator.state = save.ai_rng.model_dump()
        except (ValueError, TypeError) as e:
            raise probs.error(("ai_rng",), f"not a generator state: {e}") from None
        units = set(match.units(alive=False))
        for uid, quarry in save.ai_memory.quarry.items():
            if uid not in units or quarry not in units:
                bad = uid if uid not in units else quarry
                raise probs.error(("ai_memory", "quarry", uid), f"no unit {bad!r} in the scenario")
        _check_digests(data, save, probs, after=True)
        if len(match.log) != save.check.events or match.state_hash() != save.check.state_hash:
            raise probs.error(
                ("check",),
                f"the commands replay to {len(match.log)} events / state {match.state_hash()}, the save says "
                f"{save.check.events} / {save.check.state_hash} (saved by skirmish {save.game_version}, "
                f"this is {__version__})",
            )
        match.set_ai_memory({"quarry": dict(save.ai_memory.quarry)})
    except BaseException:
        match.close()
        raise
    return match


def _restore(save: SaveFile, commands: list[Any], data: dict[str, Any], probs: _Problems) -> Match:
    """A version 6 save: the match restored from its engine snapshot (no replay), then held to
    every claim of the save's other fields (setup, commands, AI generator and memory, events and
    state hash): a save whose snapshot and fields disagree is refused naming the field."""
    from game.engine.snapshot import SnapshotError

    assert save.snapshot is not None
    try:
        match = Match.from_snapshot(save.snapshot.encode("utf-8"), f"{probs.source}: snapshot")
    except SnapshotError as e:
        raise probs.error(("snapshot",), str(e)) from None
    try:
        _check_digests(data, save, probs, after=True)
        units = set(match.units(alive=False))
        for uid, quarry in save.ai_memory.quarry.items():
            if uid not in units or quarry not in units:
                bad = uid if uid not in units else quarry
                raise probs.error(("ai_memory", "quarry", uid), f"no unit {bad!r} in the scenario")
        claims: tuple[tuple[str, Any, Any], ...] = (
            ("ruleset", match.ruleset_name, save.ruleset),
            ("options", match.rules.options.model_dump(mode="json"), save.options),
            ("seed", match.seed, save.seed),
            ("round_limit", match.round_limit, save.round_limit),
            ("controllers", dict(match.controllers), save.controllers),
            ("commands", list(match.commands), save.commands),
            ("ai_rng", match.ai_rng.bit_generator.state, save.ai_rng.model_dump()),
            ("ai_memory", {"quarry": dict(match.ai_memory.get("quarry", {}))}, save.ai_memory.model_dump()),
            ("check", (len(match.log), match.state_hash()), (save.check.events, save.check.state_hash)),
        )
        for key, got, claimed in claims:
            if got != claimed:
                raise probs.error((key,), "differs from the match in the save's snapshot")
    except BaseException:
        match.close()
        raise
    del commands  # parsed above only to name a malformed one by its index
    return match
