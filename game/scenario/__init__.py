"""Load and validate scenario files into frozen :class:`~components.specs.ScenarioSpec` values.

Contract (DESIGN §2; the user-facing reference is ``docs/scenario-format.md``):

- :func:`load_scenario` / :func:`load_scenario_text` read one YAML scenario and
  return a :class:`ScenarioSpec`, or raise :class:`~game.core.errors.ScenarioError`
  carrying *every* problem found, each located as ``file:line``, a dotted key path
  (``units.2.at``, indexes from 0) and a message saying what was expected. Bad
  bytes, empty files, YAML syntax errors, duplicate keys and tags are problems
  too; nothing a user writes can cause a traceback or build a Python object.
- Validation is strict: pydantic v2 models with ``extra="forbid"`` check the
  shape (:func:`scenario_schema` is their JSON Schema); then the semantic checks
  run over every well-formed part: unique ids, simple polygons, bases inside the
  map and clear of each other and of obstacles, at least two sides, known
  profiles with a valid stat block for the ruleset, ruleset options, controllers.
- Profiles: ``scenarios/profiles.yaml`` (or ``profiles_path``) merged with the
  scenario's own ``profiles:`` block by block (the scenario's block for a
  (profile, ruleset) pair wins). Blocks are validated by the ruleset's ``Stats``
  model; problems in the profiles file name that file and line.
- The spec holds plain data only (dicts, lists, tuples, floats, str): the
  sha256 of the file bytes, the source path, sides in order of first appearance,
  facings normalized to [0, 360), named heights turned into numbers, and the
  merged raw profile blocks (null blocks, meaning "not written yet", dropped).

Modules: ``yaml_source`` (YAML with line numbers, no Python objects), ``schema`` (the
pydantic models of the file), ``messages`` (validation errors as located problems),
``profiles`` (profiles files and stat blocks), ``checks`` (the semantic checks and the
spec), ``loader`` (the entry points). This package exports the public API below.
"""

from game.scenario.loader import load_scenario, load_scenario_text
from game.scenario.profiles import (
    DEFAULT_PROFILE,
    DEFAULT_PROFILES_PATH,
    available_ruleset,
    check_profiles,
    resolve_stats,
)
from game.scenario.schema import scenario_schema

__all__ = [
    "DEFAULT_PROFILE",
    "DEFAULT_PROFILES_PATH",
    "available_ruleset",
    "check_profiles",
    "load_scenario",
    "load_scenario_text",
    "resolve_stats",
    "scenario_schema",
]
