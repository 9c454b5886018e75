"""Logs and saves as written before ``match_start`` and saves embedded their scenario (issue 15).

Tests of the compatibility paths age a fresh log or save with these instead of keeping old
files, which would stop replaying whenever the rules change.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from game.scenario.embed import FIELDS


def age_log(path: Path, to: Path | None = None) -> Path:
    """Write the log at ``path`` (or ``to``) without the embedded header fields."""
    lines = path.read_text().splitlines()
    start = {k: v for k, v in json.loads(lines[0]).items() if k not in FIELDS}
    lines[0] = json.dumps(start, separators=(",", ":"))
    out = to or path
    out.write_text("".join(line + "\n" for line in lines))
    return out


def age_save(data: dict[str, Any], version: int = 3) -> dict[str, Any]:
    """A save's data as ``version`` (1 to 5) wrote it: no engine snapshot (5), digests of the
    fields that decide how the game continues only (4), no embedded scenario text or profiles
    either (3), no digests either (2), no AI memory either (1). The layout was the same otherwise."""
    from game.tools.integrity import digests

    data = dict(data, version=version)
    data.pop("snapshot", None)  # version 6 on: the match's engine snapshot
    if version < 4:
        data.pop("profiles", None)
        data.pop("profiles_sha256", None)
        data["scenario"] = {k: v for k, v in data["scenario"].items() if k != "text"}
    data["check"] = {k: v for k, v in data["check"].items() if k != "digests"}
    if version >= 3:
        data["check"]["digests"] = digests(data, version)
    if version == 1:
        data.pop("ai_memory", None)
    return data
