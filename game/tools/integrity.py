"""What a saved game or a log may claim, and what is trusted of it: digests, players, the setup.

The checks a save or log file goes through besides its shape, kept apart from the file layouts
(:mod:`game.tools.saves`, :mod:`game.tools.replay`) so that they carry over to any other layout
of the same facts (an engine snapshot).

Contract:

- **Digests** (:func:`digests`, :func:`edited`): a save carries a sha256 of each of its fields
  over canonical JSON (sorted keys, compact, ASCII), so reformatting a file is no edit and any
  change of a value is. :func:`digested` says which fields a version covers: version 5 covers
  *every* field (:data:`EVERY_FIELD`, the ``check`` block's event count and state hash
  included), version 6 every field and the engine snapshot (:data:`EVERY_FIELD_6`);
  versions 3 and 4 covered the fields that decide how the game continues
  (:data:`DECIDING`, the scenario by its sha256 only), and still load.
- **Players** (:func:`trusted_players`): a file never makes code run. A side that a file
  (save, log) says was played by a user policy (``FILE.py:FUNCTION``, ``MODULE:FUNCTION``) is
  played by a person unless the command line names a player for it; the notes say so, one line
  a side. Built-in policies and ``human`` are taken from the file.
- **Setup** (:func:`setup_conflicts`): a saved game continues under its own ruleset and seed:
  a ruleset or seed given with it that differs is refused (one line naming both); the same one
  is accepted (it changes nothing).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping
from typing import Any

#: Fields the version 3 and 4 digests cover, in the order they are checked: those that decide
#: how a saved game continues (``scenario`` by its ``sha256`` only: the file may move).
DECIDING = (
    "scenario",
    "ruleset",
    "options",
    "seed",
    "round_limit",
    "controllers",
    "ai_rng",
    "ai_memory",
    "commands",
)
#: Every field of a version 5 save, in the order checked (``check``: its ``events`` and
#: ``state_hash``; the digests themselves are what is checked against).
EVERY_FIELD = (
    "format",
    "version",
    "game_version",
    "scenario",
    "profiles",
    "profiles_sha256",
    "ruleset",
    "options",
    "seed",
    "round_limit",
    "controllers",
    "check",
    "ai_rng",
    "ai_memory",
    "commands",
)
#: The first save version whose digests cover every field.
EVERY_FIELD_SINCE = 5
#: Every field of a version 6 save: those of version 5 and the match's engine snapshot.
EVERY_FIELD_6 = (*EVERY_FIELD, "snapshot")
#: The first save version that holds the match's snapshot (game.engine.snapshot).
SNAPSHOT_SINCE = 6
#: Fields checked after the commands are replayed (a command refused on replay is named by its
#: index before its digest says the list was edited); the others before anything is built.
AFTER_REPLAY = frozenset({"ai_rng", "ai_memory", "commands"})


def digested(version: int) -> tuple[str, ...]:
    """The fields the digests of a save of ``version`` cover (``()`` before version 3)."""
    if version >= SNAPSHOT_SINCE:
        return EVERY_FIELD_6
    if version >= EVERY_FIELD_SINCE:
        return EVERY_FIELD
    if version >= 3:
        return DECIDING
    return ()


def _canonical(key: str, value: Any, version: int) -> bytes:
    if key == "scenario" and isinstance(value, dict) and version < EVERY_FIELD_SINCE:
        value = value.get("sha256")
    elif key == "check" and isinstance(value, dict):
        value = {k: v for k, v in value.items() if k != "digests"}
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def digests(data: Mapping[str, Any], version: int) -> dict[str, str]:
    """sha256 of each field :func:`digested` covers in a save's JSON data (canonical JSON)."""
    return {k: hashlib.sha256(_canonical(k, data.get(k), version)).hexdigest() for k in digested(version)}


def edited(
    data: Mapping[str, Any], recorded: Mapping[str, str], version: int, fields: Collection[str] | None = None
) -> str | None:
    """The first of ``fields`` (default: all covered) whose digest differs from ``recorded``;
    ``"check.digests"`` when ``recorded`` does not cover exactly the version's fields; else None."""
    covered = digested(version)
    if set(recorded) != set(covered):
        return "check.digests"
    now = digests(data, version)
    for key in covered:
        if (fields is None or key in fields) and now[key] != recorded[key]:
            return key
    return None


def is_user_policy(who: str) -> bool:
    """Whether a controller names a user policy's code (a spec holds ``:``), not a built-in or human."""
    return ":" in who


def trusted_players(
    recorded: Mapping[str, str], given: Mapping[str, str], source: str, human: str = "human"
) -> tuple[dict[str, str], list[str]]:
    """Who plays each side of a match read from ``source`` (a save or log).

    Args:
        recorded: side -> controller, as the file records it.
        given: side -> player named on the command line (trusted: it may be a user policy).
        source: the file, for the notes.
        human: the player name of a person.

    Returns:
        (side -> player for every recorded side, notes): a side the file gives to a user
        policy and the command line does not name is played by ``human``, with a note.
    """
    players: dict[str, str] = {}
    notes: list[str] = []
    for side, who in recorded.items():
        if side in given:
            players[side] = given[side]
        elif is_user_policy(who):
            players[side] = human
            notes.append(
                f"{source}: side {side!r} was played by the user policy {who!r}; a saved file never "
                f"runs code, so a person plays it now (name the policy on the command line to let it play)"
            )
        else:
            players[side] = who
    return players, notes


def setup_conflicts(
    source: str, saved_ruleset: str, saved_seed: int, ruleset: str | None, seed: int | None
) -> tuple[str, str] | None:
    """(option, why) when a ruleset or seed given with a saved game differs from the saved one."""
    if ruleset is not None and ruleset != saved_ruleset:
        return (
            "--ruleset",
            f"{source} was played under {saved_ruleset}; a saved game continues under its own ruleset "
            f"(its commands were chosen under those rules): leave out --ruleset {ruleset}",
        )
    if seed is not None and seed != saved_seed:
        return (
            "--seed",
            f"{source} was played with seed {saved_seed}; a saved game continues with its own dice: "
            f"leave out --seed {seed}",
        )
    return None
