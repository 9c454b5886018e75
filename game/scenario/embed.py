"""What a battle log or a saved game embeds to rebuild its match anywhere (issue 15).

Contract:

- :func:`embedded` gives the fields a log's ``match_start`` (and a save) carries besides the
  scenario's path and sha256: ``scenario_text``, the scenario file as it was loaded (its
  sha256 is the recorded ``scenario_sha256``), ``profiles``, the stat blocks of the shared
  profiles the units use under the match's ruleset (``{profile: {ruleset: block}}``, sorted by
  profile: the scenario's own ``profiles:`` are in its text already), and ``profiles_sha256``,
  :func:`profiles_digest` of them. A spec built in code (no text) embeds nothing.
- :func:`rebuild` loads the scenario from those fields alone: the embedded text, named by the
  recorded path (so a replay's ``match_start`` matches the recorded one wherever the log is),
  with the embedded blocks as the shared profiles file. A text or blocks that do not hash to
  their recorded sha256 raise :class:`EmbeddedMismatch` naming which (``"scenario"`` or
  ``"profiles"``): the log (or save) was edited.
- An embedded scenario that does not validate (another version's rules, an edit with the hashes
  recomputed) raises :class:`EmbeddedInvalid`, whose problems name the log or save that embeds
  it (``where``), never the file the scenario was recorded from: that file was not read, and
  may be a shipped scenario that is fine. :func:`resourced` does the same for a scenario found
  on disk under a name other than the recorded one.
- Nothing here reads files: a moved or edited scenario file, or an edited ``profiles.yaml``,
  cannot change what an embedded log replays.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from components.specs import ScenarioSpec
from game.core.errors import Problem, ScenarioError, SkirmishError
from game.scenario.loader import load_scenario_text
from game.scenario.profiles import DEFAULT_PROFILE, ProfilesText

#: The header fields :func:`embedded` adds.
FIELDS = ("scenario_text", "profiles", "profiles_sha256")


class EmbeddedMismatch(SkirmishError):
    """An embedded scenario or profiles do not hash to their recorded sha256; ``key`` says which."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.message = message


class EmbeddedInvalid(ScenarioError):
    """The scenario a log or save embeds does not validate; every problem names the log or save."""


def resourced(
    problems: list[Problem], recorded: str, where: str, line: int, key: str, what: str
) -> list[Problem]:
    """``problems`` of a scenario loaded under the name ``recorded`` as problems of ``where``
    (line ``line``, key ``key``): ``what`` says which scenario (the embedded one, the file found).
    Problems already naming another file (the embedded profiles) are kept as they are."""
    out = []
    for p in problems:
        if p.source != recorded:
            out.append(p)
            continue
        at = f"line {p.line}: " if p.line else ""
        inner = f"{p.path}: " if p.path else ""
        out.append(Problem(where, line, key, f"{what}, {at}{inner}{p.message}"))
    return out


def profiles_used(spec: ScenarioSpec, ruleset: str) -> dict[str, dict[str, Any]]:
    """``{profile: {ruleset: block}}`` of the merged profiles the units use under ``ruleset``."""
    names = sorted({u.profile or DEFAULT_PROFILE for u in spec.units})
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        block = spec.profiles.get(name, {}).get(ruleset)
        if block is not None:
            out[name] = {ruleset: block}
    return out


def profiles_digest(profiles: Mapping[str, Any]) -> str:
    """The sha256 of the blocks' canonical JSON (sorted keys, no spaces)."""
    blob = json.dumps(profiles, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def embedded(spec: ScenarioSpec, ruleset: str) -> dict[str, Any]:
    """The fields of :data:`FIELDS` for a match on ``spec`` under ``ruleset`` ({} without a text)."""
    if not spec.text:
        return {}
    blocks = profiles_used(spec, ruleset)
    return {"scenario_text": spec.text, "profiles": blocks, "profiles_sha256": profiles_digest(blocks)}


def has_embedded(header: Mapping[str, Any]) -> bool:
    """Whether a ``match_start`` (or a save) carries its scenario text and profiles."""
    return isinstance(header.get("scenario_text"), str) and isinstance(header.get("profiles"), dict)


def rebuild(
    header: Mapping[str, Any], where: str, ruleset: str | None = None, kind: str = "log"
) -> ScenarioSpec:
    """The scenario of a header with :func:`has_embedded` (see the module docstring).

    Args:
        header: the ``match_start`` event (or a save's equivalent fields).
        where: names the log or save in problems with the embedded profiles.
        ruleset: the ruleset to load it under (default: the header's).
        kind: what ``where`` is (``log`` or ``save``), for the messages.

    Raises:
        EmbeddedMismatch: the text or the blocks do not hash to their recorded sha256.
        EmbeddedInvalid: the embedded scenario does not validate (another version's rules); its
            problems name ``where`` (line 1, ``scenario_text``: callers locate them better).
    """
    text = str(header["scenario_text"])
    got = hashlib.sha256(text.encode("utf-8")).hexdigest()
    if got != header.get("scenario_sha256"):
        raise EmbeddedMismatch(
            "scenario",
            f"the embedded scenario hashes to {got[:12]}…, not the recorded "
            f"{str(header.get('scenario_sha256'))[:12]}…: the {kind} was edited",
        )
    blocks = header["profiles"]
    digest = profiles_digest(blocks)
    if digest != header.get("profiles_sha256"):
        raise EmbeddedMismatch(
            "profiles",
            f"the embedded profiles hash to {digest[:12]}…, not the recorded "
            f"{str(header.get('profiles_sha256'))[:12]}…: the {kind} was edited",
        )
    source = str(header.get("scenario_path") or "<embedded>")
    profiles = ProfilesText(json.dumps(blocks, ensure_ascii=False), f"{where} (embedded profiles)")
    try:
        return load_scenario_text(
            text, source, ruleset=ruleset or header.get("ruleset"), profiles_path=profiles
        )
    except ScenarioError as e:
        what = f"the scenario it embeds (recorded from {source}) is invalid"
        raise EmbeddedInvalid(resourced(e.problems, source, where, 1, "scenario_text", what)) from None
