"""Finding scenario files: a name the user gives, and the file a log or a save was made with.

Contract:

- :func:`resolve_scenario` turns what the user typed into a file: the path itself when it
  exists; else, for a bare name (no folder, no suffix or ``.yaml``/``.yml``), the shipped
  scenario of that name (``skirmish battle duel`` plays ``<shipped>/duel.yaml`` when there
  is no file ``duel`` here; ``skirmish scenarios`` lists them), and for a bare Tiled map name
  (``crossroads.tmj``) the shipped map of that name in ``<shipped>/maps``; else the path
  unchanged, to be reported missing. :func:`game.scenario.load_scenario` and :func:`find_scenario`'s ``given``
  go through it, so every command accepts a shipped scenario by name.
- :func:`find_scenario` returns the first of these that exists, in order:

1. ``given``, the file the user named (``skirmish replay --scenario``, the SCENARIO of
   ``skirmish play --load``, ``load_match(scenario_path=...)``). It is the answer or an error:
   it must be readable and hash to ``sha256``; nothing else is tried.
2. ``stored``, the path recorded in the file (as given when the battle was played, for a log;
   absolute, for a save), returned as recorded.
3. Next to the log or save (``relative_to``): its ``relative`` path (a save records the
   scenario's path relative to the save's folder) and ``stored`` when that is a relative path.
4. The first YAML file (or Tiled map, ``.tmj``/``.tmx``), by name, whose bytes hash to
   ``sha256`` in these folders: the working directory's ``scenarios/`` and the working
   directory itself, the folder of ``relative_to`` and its four parents (each with its
   ``scenarios/``), the shipped scenarios folder and its ``maps/``.

Candidates of 2-4 count only when their bytes hash to ``sha256``: a file edited since the
battle or the save is skipped, and only reported when nothing else matches. Every failure
raises :class:`ScenarioNotFound`, naming which recorded key is at fault (``"path"`` or
``"sha256"``) and why, so that the caller reports it located in its own file, in the
``file:line: key: message`` style of :class:`~game.core.errors.Problem`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from game.core.errors import SkirmishError
from game.core.files import FileRefused, read_capped
from game.core.shipped import SCENARIO_SUFFIXES, SCENARIOS_DIR, shipped_scenarios
from game.scenario.tiled import MAP_SUFFIXES, read_kind

#: The scenarios shipped with the project (package data of the wheel, ``scenarios/`` of a checkout).
SHIPPED_SCENARIOS = SCENARIOS_DIR
#: The Tiled maps shipped with the project.
SHIPPED_MAPS = SCENARIOS_DIR / "maps"
#: Parent folders of the log or save searched besides its own (step 4).
PARENTS_SEARCHED = 4


class ScenarioNotFound(SkirmishError):
    """No scenario file with the recorded bytes; ``key`` is ``"path"`` or ``"sha256"``."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.message = message


def resolve_scenario(name: str | os.PathLike[str]) -> Path:
    """The file the user means by ``name`` (see the module docstring)."""
    path = Path(name)
    if path.exists():
        return path
    bare = len(path.parts) == 1 and (path.suffix == "" or path.suffix in SCENARIO_SUFFIXES)
    if bare:
        shipped = shipped_scenarios().get(path.stem if path.suffix else path.name)
        if shipped is not None:
            return shipped
    if len(path.parts) == 1 and path.suffix in MAP_SUFFIXES and (SHIPPED_MAPS / path.name).is_file():
        return SHIPPED_MAPS / path.name
    return path


def shipped_names() -> str:
    """The shipped scenarios' names, for messages."""
    return ", ".join(shipped_scenarios()) or "(none installed)"


def sha256_of(path: str | os.PathLike[str]) -> str:
    """The hex sha256 of a scenario file's bytes (:class:`~game.core.files.FileRefused` if it cannot
    be read, is not a regular file or is over the scenario size limit)."""
    return hashlib.sha256(read_capped(path, read_kind(path))).hexdigest()


def search_dirs(relative_to: Path) -> Iterator[Path]:
    """The folders of step 4, in order (possibly repeated or missing)."""
    yield Path.cwd() / "scenarios"
    yield Path.cwd()
    here = relative_to.resolve().parent
    for d in (here, *list(here.parents)[:PARENTS_SEARCHED]):
        yield d
        yield d / "scenarios"
    yield SHIPPED_SCENARIOS
    yield SHIPPED_MAPS


def _hash_or_none(path: Path) -> str | None:
    try:
        return sha256_of(path) if path.is_file() else None
    except (OSError, FileRefused):
        return None


def _changed(path: Path, got: str, sha256: str, since: str) -> str:
    return (
        f"scenario {path} has changed since {since}: sha256 {got[:12]}… differs from {sha256[:12]}… recorded"
    )


def find_scenario(
    stored: str | None,
    *,
    sha256: str,
    relative_to: str | os.PathLike[str],
    relative: str | None = None,
    given: str | os.PathLike[str] | None = None,
    since: str = "it was recorded",
    hint: str = "pass the scenario file",
) -> Path:
    """The scenario file recorded as ``stored`` with ``sha256`` (see the module docstring).

    Args:
        stored: the recorded scenario path (None if none was recorded).
        sha256: the recorded sha256 of the scenario's bytes.
        relative_to: the log or save file that records them.
        relative: the recorded path relative to ``relative_to``'s folder, if any.
        given: the file the user named, if any.
        since: when the sha256 was recorded, for messages ("the game was saved").
        hint: how the user names the file, for messages ("pass --scenario PATH").

    Raises:
        ScenarioNotFound: ``given`` is unreadable or has other bytes, or no file matches.
    """
    if given is not None:
        path = resolve_scenario(given)
        try:
            got = sha256_of(path)
        except FileRefused as e:
            raise ScenarioNotFound("path", f"cannot read scenario {path}: {e.reason}") from None
        if got != sha256:
            raise ScenarioNotFound("sha256", _changed(path, got, sha256, since))
        return path
    home = Path(relative_to)
    near: list[Path] = []
    if stored:
        near.append(Path(stored))
    if relative:
        near.append(home.parent / relative)
    if stored and not Path(stored).is_absolute():
        near.append(home.parent / stored)
    changed: tuple[Path, str] | None = None
    for path in near:
        digest = _hash_or_none(path)
        if digest == sha256:
            return path
        if digest is not None and changed is None:
            changed = (path, digest)
    seen: set[Path] = set()
    for d in search_dirs(home):
        if d in seen or not d.is_dir():
            continue
        seen.add(d)
        for f in sorted(
            [*d.glob("*.yaml"), *d.glob("*.yml"), *(f for s in MAP_SUFFIXES for f in d.glob(f"*{s}"))]
        ):
            if _hash_or_none(f) == sha256:
                return f
    if changed is not None:
        path, got = changed
        raise ScenarioNotFound(
            "sha256", f"{_changed(path, got, sha256, since)}, and no other file has those bytes; {hint}"
        )
    raise ScenarioNotFound(
        "path",
        f"scenario {stored or '(none recorded)'} not found (nor next to {home.name}, "
        f"nor by its sha256 {sha256[:12]}… in the scenario folders); {hint}",
    )
