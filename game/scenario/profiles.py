"""Profiles: the shared stat blocks file, a scenario's own blocks, and a unit's stats.

Contract: a profiles file is ``profile -> ruleset -> stat block`` (``null``: not written
yet); ``scenarios/profiles.yaml`` (:data:`DEFAULT_PROFILES_PATH`) is the shared one. Blocks
are validated by the ruleset's ``Stats`` model, and a problem names the file and line the
block was written in. A profiles file may also be given by its text (:class:`ProfilesText`:
the stat blocks a log or a save embeds). :func:`check_profiles` checks a profiles file on its own;
:func:`resolve_stats` gives a unit of a loaded spec its validated stat block;
:func:`available_ruleset` tells a ruleset not installed yet from a broken one.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from components.specs import ScenarioSpec, UnitSpec
from game.core.errors import Problem, ScenarioError, UnknownName
from game.core.files import FileRefused, read_capped
from game.core.shipped import PROFILES_PATH
from game.rules import REGISTRY, RULESET_NAMES, ruleset_class
from game.rules.base import Ruleset, StrictModel
from game.scenario.messages import ordered, shown, validation_problems
from game.scenario.schema import Ident, ProfileBlocks
from game.scenario.yaml_source import KeyPath, YamlDoc, parse_yaml

#: The shared archetype stat blocks shipped with the project.
DEFAULT_PROFILES_PATH = PROFILES_PATH  # inside the installed package (game.core.shipped)
#: Profile a unit without ``profile:`` uses, if the merged profiles have it for the ruleset.
DEFAULT_PROFILE = "trooper"

#: Shape of a profiles file: profile -> ruleset -> block.
_PROFILES_TYPE: Any = dict[Ident, ProfileBlocks | None]
_PROFILES_ADAPTER: TypeAdapter[Any] = TypeAdapter(_PROFILES_TYPE)


def available_ruleset(name: str) -> type[Ruleset] | None:
    """The ruleset class for ``name``, or None if its module/class is not installed yet.

    Only a *missing* module or class counts as "not available"; a module that fails
    for another reason (a bug) raises, so it is never silently skipped.
    """
    module = REGISTRY[name].partition(":")[0]
    try:
        return ruleset_class(name)
    except ModuleNotFoundError as e:
        if e.name == module:
            return None
        raise
    except AttributeError:
        return None


@dataclass(frozen=True)
class ProfileBlock:
    """One (profile, ruleset) stat block and where it was written."""

    block: Any
    doc: YamlDoc
    path: KeyPath  # inside doc.data


Profiles = dict[str, dict[str, ProfileBlock]]


def _display_source(path: Path) -> str:
    """``path`` relative to the working directory when it is below it (shorter messages)."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return rel if not rel.startswith("..") else str(path)


#: Parsed profiles files by (source, sha256 of bytes). Parsing the shared file is most of
#: the cost of a load (pure-Python YAML); batch runs and tests load many scenarios.
_SHARED_DOCS: dict[tuple[str, str], YamlDoc] = {}
_SHARED_DOCS_MAX = 8


def _parse_shared(raw: bytes, source: str) -> YamlDoc:
    """``parse_yaml`` with a small cache; callers must not mutate the returned doc."""
    key = (source, hashlib.sha256(raw).hexdigest())
    doc = _SHARED_DOCS.get(key)
    if doc is None:
        if len(_SHARED_DOCS) >= _SHARED_DOCS_MAX:
            _SHARED_DOCS.clear()
        doc = _SHARED_DOCS[key] = parse_yaml(raw, source)
    return doc


@dataclass(frozen=True)
class ProfilesText:
    """A profiles file given by its text, named ``source`` in problems (e.g. a log's embedded blocks)."""

    text: str
    source: str


def read_profiles(path: Path | ProfilesText | None) -> tuple[YamlDoc | None, Profiles, list[Problem]]:
    """Parse and shape-check a profiles file (or :class:`ProfilesText`).

    ``path`` None means the default file, which may be absent (an installation
    without the shared file simply has no shared profiles); an explicit path that
    cannot be read is a problem.
    """
    if isinstance(path, ProfilesText):
        raw, source = path.text.encode("utf-8"), path.source
    else:
        explicit = path is not None
        path = DEFAULT_PROFILES_PATH if path is None else path
        source = _display_source(path)
        if not explicit and not path.exists():
            return None, {}, []
        try:
            raw = read_capped(path, "profiles")
        except FileRefused as e:
            return None, {}, [Problem(source, 0, "", f"cannot read profiles file: {e.reason}")]
    doc = _parse_shared(raw, source)
    problems = list(doc.problems)
    if doc.data is None:
        return doc, {}, problems
    if not isinstance(doc.data, dict):
        problems.append(
            doc.problem((), f"expected a mapping: profile -> ruleset -> stat block, got {shown(doc.data)}")
        )
        return doc, {}, problems
    try:
        _PROFILES_ADAPTER.validate_python(doc.data)
    except ValidationError as e:
        problems += validation_problems(doc, e, (), _PROFILES_TYPE)
    return doc, collect_blocks(doc, doc.data, ()), problems


def collect_blocks(doc: YamlDoc, profiles: Any, prefix: KeyPath) -> Profiles:
    """Well-formed blocks of a ``profile -> ruleset -> block`` mapping (others were reported)."""
    out: Profiles = {}
    if not isinstance(profiles, dict):
        return out
    for name, per in profiles.items():
        if not isinstance(per, dict):
            continue
        for rs, block in per.items():
            if rs in RULESET_NAMES and (block is None or isinstance(block, dict)):
                out.setdefault(name, {})[rs] = ProfileBlock(block, doc, (*prefix, name, rs))
    return out


def validate_blocks(
    profiles: Profiles, rulesets: Iterable[str], only: Callable[[ProfileBlock], bool] = lambda b: True
) -> list[Problem]:
    """Validate every written block of ``rulesets`` with that ruleset's Stats model."""
    problems: list[Problem] = []
    for rs in rulesets:
        cls = available_ruleset(rs)
        if cls is None:
            continue
        for per in profiles.values():
            entry = per.get(rs)
            if entry is None or entry.block is None or not only(entry):
                continue
            try:
                cls.parse_stats(entry.block)
            except ValidationError as e:
                problems += validation_problems(entry.doc, e, entry.path, cls.Stats)
            except RULESET_BUGS as e:
                problems.append(entry.doc.problem(entry.path, ruleset_bug(rs, e)))
    return problems


#: What a ruleset's own validator might raise on odd input instead of a ValueError.
#: Reported as a located problem (naming the ruleset) rather than a traceback.
RULESET_BUGS = (TypeError, KeyError, IndexError, AttributeError, ArithmeticError)


def ruleset_bug(ruleset: str, error: Exception) -> str:
    return (
        f"expected a block the {ruleset} ruleset can read; its validator failed with "
        f"{type(error).__name__}: {error} (a bug in game/rules, please report it)"
    )


def check_profiles(profiles_path: Path | None = None, rulesets: Iterable[str] | None = None) -> int:
    """Validate a profiles file on its own; return the number of profiles.

    Args:
        profiles_path: the file (default: ``scenarios/profiles.yaml``).
        rulesets: rulesets every profile must have a valid block for (and which must
            be installed). None checks the blocks that are written, for every
            installed ruleset, and lets a profile leave a ruleset out (null).

    Raises:
        ScenarioError: with every problem, located in the profiles file.
    """
    doc, profiles, problems = read_profiles(DEFAULT_PROFILES_PATH if profiles_path is None else profiles_path)
    required = list(dict.fromkeys(rulesets)) if rulesets is not None else []
    problems += validate_blocks(profiles, required or RULESET_NAMES)
    if doc is not None and isinstance(doc.data, dict):
        problems += unavailable(doc, (), required)
        for name, per in doc.data.items():
            for rs in required:
                entry = profiles.get(name, {}).get(rs)
                if isinstance(per, dict | None) and (entry is None or entry.block is None):
                    problems.append(
                        doc.problem((name,), f"expected a stat block for ruleset {rs!r}, got none")
                    )
    if problems:
        raise ScenarioError(ordered(problems))
    return len(doc.data) if doc is not None and isinstance(doc.data, dict) else 0


def unavailable(doc: YamlDoc, path: KeyPath, rulesets: Iterable[str]) -> list[Problem]:
    out = []
    for rs in rulesets:
        if available_ruleset(rs) is None:
            module = REGISTRY[rs].partition(":")[0]
            out.append(
                doc.problem(path, f"ruleset {rs!r} is not available yet (module {module} is not installed)")
            )
    return out


def resolve_stats(spec: ScenarioSpec, unit: UnitSpec, ruleset: str | None = None) -> StrictModel:
    """The validated stat block of ``unit`` under ``ruleset`` (default: the scenario's).

    A unit without a profile gets the ``trooper`` block if the scenario's merged
    profiles have one for the ruleset, else the ruleset's ``default_stats()``.

    Raises:
        UnknownName: the profile has no block for the ruleset (a spec loaded with
            that ruleset, or checked with it, never does).
    """
    rs = ruleset or spec.ruleset
    cls = ruleset_class(rs)
    name = unit.profile or DEFAULT_PROFILE
    block = spec.profiles.get(name, {}).get(rs)
    if block is None:
        if unit.profile is None:
            return cls.default_stats()
        raise UnknownName(f"profile {name!r} has no stat block for ruleset {rs!r}")
    return cls.parse_stats(block)
