"""Check that re-recorded golden logs differ from a copy of the old ones only in their header.

Usage, from the repository root: ``python -m tests.golden.header_only OLD_DIR`` where OLD_DIR
holds the golden files as they were before re-recording (``logs/``, ``saved-game.json``,
``saved-game-full.jsonl.gz``). For every log: every line but the first is byte-identical, and
the first (``match_start``) equals the old one once the fields of
:data:`game.scenario.embed.FIELDS` are taken out, byte for byte. For the saved game: the old
and the new save agree once the embedded scenario text and profiles, the version and
``check.digests`` (save version 3's) are taken out. Prints one line per difference and a
summary; exits 1 if anything else changed.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import Any

from game.scenario.embed import FIELDS
from tests.golden.record import HERE, LOGS


def _header_without_embedding(line: str) -> str:
    event = json.loads(line)
    return json.dumps({k: v for k, v in event.items() if k not in FIELDS}, separators=(",", ":"))


def compare_log(old: str, new: str) -> list[str]:
    """The differences between two logs other than the embedded header fields."""
    a, b = old.splitlines(), new.splitlines()
    problems = []
    if len(a) != len(b):
        problems.append(f"{len(a)} lines before, {len(b)} now")
    if a and b and _header_without_embedding(b[0]) != a[0]:
        problems.append("match_start differs beyond the embedded fields")
    if b and not set(FIELDS) <= set(json.loads(b[0])):
        problems.append("match_start lacks an embedded field")
    for i, (x, y) in enumerate(zip(a[1:], b[1:], strict=False), 2):
        if x != y:
            problems.append(f"line {i} differs")
            break
    return problems


def _save_without_embedding(save: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in save.items() if k not in ("version", "profiles", "profiles_sha256")}
    out["scenario"] = {k: v for k, v in save["scenario"].items() if k != "text"}
    # check.digests came with save version 3 (issue 18), not with the embedding
    out["check"] = {k: v for k, v in save["check"].items() if k != "digests"}
    return out


def main(old_dir: Path) -> int:
    bad = 0
    names = sorted(p.name for p in LOGS.iterdir())
    for name in names:
        old = gzip.decompress((old_dir / "logs" / name).read_bytes()).decode()
        new = gzip.decompress((LOGS / name).read_bytes()).decode()
        for problem in compare_log(old, new):
            bad += 1
            print(f"{name}: {problem}")
    full = "saved-game-full.jsonl.gz"
    for problem in compare_log(
        gzip.decompress((old_dir / full).read_bytes()).decode(),
        gzip.decompress((HERE / full).read_bytes()).decode(),
    ):
        bad += 1
        print(f"{full}: {problem}")
    old_save = json.loads((old_dir / "saved-game.json").read_text())
    new_save = json.loads((HERE / "saved-game.json").read_text())
    if _save_without_embedding(old_save) != _save_without_embedding(new_save):
        bad += 1
        print("saved-game.json: differs beyond the embedded scenario text, profiles and version")
    print(
        f"{len(names)} logs, the saved game and its log: {bad} differences besides the embedded header fields"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
