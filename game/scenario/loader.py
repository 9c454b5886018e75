"""Load one scenario file (or YAML text) into a frozen :class:`~components.specs.ScenarioSpec`.

Contract: :func:`load_scenario` / :func:`load_scenario_text` return the validated spec or
raise :class:`~game.core.errors.ScenarioError` with every problem found (see the package
docstring); an unknown ``ruleset`` argument is an :class:`~game.core.errors.UnknownName`.
:func:`load_scenario` accepts a shipped scenario's name for its path
(:func:`game.scenario.locate.resolve_scenario`); the spec's ``source`` is then the shipped file.
Both accept a Tiled map (``.tmj``, ``.tmx``, a ``.json`` map) wherever a scenario goes
(:mod:`game.scenario.tiled`): converted, checked like a scenario, problems located to its
objects; the spec's ``text`` and ``sha256`` are the map's own.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Collection, Iterable
from pathlib import Path

from components.specs import ScenarioSpec
from game.core.errors import Problem, ScenarioError, UnknownName
from game.core.files import FileRefused, read_capped
from game.rules import RULESET_NAMES
from game.scenario.checks import ScenarioChecker
from game.scenario.locate import resolve_scenario, shipped_names
from game.scenario.messages import ordered
from game.scenario.profiles import ProfilesText
from game.scenario.tiled import convert, is_tiled, read_kind
from game.scenario.yaml_source import parse_yaml


def load_scenario(
    path: str | os.PathLike[str],
    ruleset: str | None = None,
    profiles_path: Path | ProfilesText | None = None,
    *,
    check_rulesets: Iterable[str] = (),
    policies: Collection[str] | None = None,
) -> ScenarioSpec:
    """Load and validate a scenario file.

    Args:
        path: the YAML file, or the name of a shipped scenario (when no such file exists).
        ruleset: overrides the file's ``ruleset:`` (the CLI's ``--ruleset``).
        profiles_path: shared profiles file (default ``scenarios/profiles.yaml``).
        check_rulesets: further rulesets under which every unit's profile must have
            a valid block (``skirmish check --all-rulesets``).
        policies: AI policy names ``controllers:`` may use (the CLI passes
            ``game.ai.policy_names()``; this module sits below ``game.ai`` and does not
            import it). None skips that check.

    Returns:
        The validated, frozen scenario.

    Raises:
        ScenarioError: with every problem found, each located by file:line and key path.
        UnknownName: ``ruleset`` (the argument) is not a ruleset name.
    """
    file = resolve_scenario(path)
    try:
        data = read_capped(file, read_kind(file))
    except FileRefused as e:
        problem = e.problem()
        # a bare name (no folder, no suffix) was meant as a shipped scenario's: say which exist
        if e.reason == "no such file" and len(file.parts) == 1 and not file.suffix:
            names = shipped_names()
            problem = Problem(problem.source, 0, "", f"no such file (nor a shipped scenario: {names})")
        raise ScenarioError([problem]) from None
    return load_scenario_text(
        data,
        str(file),
        ruleset=ruleset,
        profiles_path=profiles_path,
        check_rulesets=check_rulesets,
        policies=policies,
    )


def load_scenario_text(
    text: str | bytes,
    source: str = "<memory>",
    ruleset: str | None = None,
    profiles_path: Path | ProfilesText | None = None,
    *,
    check_rulesets: Iterable[str] = (),
    policies: Collection[str] | None = None,
) -> ScenarioSpec:
    """Validate scenario YAML given as text or bytes; see :func:`load_scenario`.

    ``source`` names the file in problems and in the spec; ``sha256`` is taken over
    the bytes (text is encoded as UTF-8 first), and the spec keeps the text (``spec.text``) so
    that a log or a save can embed it. ``profiles_path`` may be a :class:`ProfilesText`.
    """
    if ruleset is not None and ruleset not in RULESET_NAMES:
        raise UnknownName(f"unknown ruleset {ruleset!r}; choose one of {', '.join(RULESET_NAMES)}")
    raw = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    tiled = convert(raw, source) if is_tiled(source, raw) else None
    doc = tiled.document() if tiled is not None else parse_yaml(raw, source)
    checker = ScenarioChecker(doc, ruleset, profiles_path, tuple(check_rulesets), policies)
    spec = checker.run(hashlib.sha256(raw).hexdigest())
    if checker.problems or spec is None:
        problems = tiled.relocate(checker.problems) if tiled is not None else checker.problems
        raise ScenarioError(ordered(problems))
    return dataclasses.replace(spec, text=raw.decode("utf-8"))
