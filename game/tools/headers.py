"""The header fields a log or save carries about how its match was built, checked where read.

Contract:

- :func:`header_problem` ``(fields) -> (key, why) | None`` checks the fields of a log's
  ``match_start`` event or of a save that rebuild the match: ``seed`` (an ``int``, not a
  bool, ``0 <= seed < 2**63``), ``ruleset`` (a ruleset name), ``options`` (a mapping the
  ruleset's ``Options`` model accepts), ``round_limit`` (an int from 1 to
  :data:`~game.scenario.schema.MAX_ROUNDS`, or absent), ``controllers`` (a mapping of side ->
  AI policy name, a user policy's spec ``FILE.py:FUNCTION`` (never loaded here) or ``human``),
  ``scenario_sha256`` (64 hex digits) and, when present, the informational ``version`` (a
  version like ``0.1.0``, at most 40 characters), ``scenario`` (the scenario's name) and
  ``scenario_path`` (text without control characters: they are shown in messages, where an
  escape sequence would rewrite the terminal). It returns the first bad field and why, in one
  line, or None; it never raises on any JSON value.
- :func:`controllers_problem` ``(controllers, sides)`` checks the controllers name exactly
  the scenario's sides.
- :data:`~game.tools.session.MAX_SEED` bounds every seed (CLI options included).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from pydantic import ValidationError

from game.ai import is_policy_spec, policy_names
from game.rules import RULESET_NAMES, get_ruleset
from game.scenario.schema import MAX_ROUNDS
from game.tools.session import HUMAN, MAX_SEED

_SHA256 = re.compile(r"[0-9a-f]{64}")
#: A package version as written in a log: digits first, then letters, digits and ``.+!-_``.
_VERSION = re.compile(r"[0-9][0-9A-Za-z.+!_-]{0,39}")
#: Longest recorded scenario path and name accepted.
MAX_PATH_CHARS = 4096
MAX_NAME_CHARS = 200


def _text_problem(value: Any, limit: int) -> str | None:
    """Why ``value`` is not text of at most ``limit`` characters without control characters."""
    import unicodedata

    if not isinstance(value, str):
        return f"expected text, got {_shown(value)}"
    if len(value) > limit:
        return f"expected at most {limit} characters, got {len(value)}"
    bad = next((c for c in value if unicodedata.category(c) == "Cc"), None)
    if bad is not None:
        return f"expected text without control characters, got U+{ord(bad):04X} in {_shown(value)}"
    return None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_int(value: Any) -> bool:
    return type(value) is int


def header_problem(fields: Mapping[str, Any], *, sha256: bool = True) -> tuple[str, str] | None:
    """The first bad header field and why (see the module docstring), or None."""
    seed: Any = fields.get("seed")
    if not _is_int(seed) or not 0 <= seed < MAX_SEED:
        return "seed", f"expected an integer from 0 to 2**63-1, got {_shown(seed)}"
    ruleset = fields.get("ruleset")
    if not isinstance(ruleset, str) or ruleset not in RULESET_NAMES:
        return "ruleset", f"expected one of {', '.join(RULESET_NAMES)}, got {_shown(ruleset)}"
    if "version" in fields:
        version = fields["version"]
        if not isinstance(version, str) or not _VERSION.fullmatch(version):
            return "version", f"expected a skirmish version such as 0.1.0, got {_shown(version)}"
    for key, limit in (("scenario_path", MAX_PATH_CHARS), ("scenario", MAX_NAME_CHARS)):
        if key in fields and fields[key] is not None:
            why = _text_problem(fields[key], limit)
            if why is not None:
                return key, why
    if sha256:
        digest = fields.get("scenario_sha256")
        if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
            return "scenario_sha256", f"expected 64 hex digits, got {_shown(digest)}"
    if "round_limit" in fields and fields["round_limit"] is not None:
        limit = fields["round_limit"]
        if not _is_int(limit) or not 1 <= limit <= MAX_ROUNDS:
            return "round_limit", f"expected an integer from 1 to {MAX_ROUNDS}, got {_shown(limit)}"
    options = fields.get("options")
    if options is not None:
        if not isinstance(options, dict):
            return "options", f"expected a mapping of option -> value, got {_shown(options)}"
        try:
            get_ruleset(ruleset, options)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "options"
            return "options", f"invalid {ruleset} option {where}: {first['msg']}"
        except (TypeError, ValueError) as e:
            return "options", f"invalid {ruleset} options: {e}"
    controllers = fields.get("controllers")
    if controllers is not None:
        if not isinstance(controllers, dict):
            return "controllers", f"expected a mapping of side -> policy, got {_shown(controllers)}"
        known = set(policy_names()) | {HUMAN}
        for side, who in controllers.items():
            # a user policy's spec is a name here: a replay re-applies its commands, never loads it
            if not isinstance(who, str) or not (who in known or is_policy_spec(who)):
                return (
                    "controllers",
                    f"side {side!r}: expected human or one of {', '.join(sorted(known - {HUMAN}))}, "
                    f"got {_shown(who)}",
                )
    return None


def controllers_problem(controllers: Mapping[str, Any], sides: Collection[str]) -> str | None:
    """Why ``controllers`` do not name exactly ``sides`` (None when they do)."""
    extra = [s for s in controllers if s not in sides]
    if extra:
        return f"no side {extra[0]!r} in the scenario (its sides: {', '.join(sides)})"
    missing = [s for s in sides if s not in controllers]
    if missing:
        return f"side {missing[0]!r} has no controller"
    return None
