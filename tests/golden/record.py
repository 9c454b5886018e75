"""Record the golden event logs: every ruleset x every shipped scenario x 3 seeds, plus a saved game.

Run from the repository root: ``python -m tests.golden.record``. The logs are the proof that a
refactoring changed no behaviour: ``tests/golden/test_golden.py`` replays the same seeds and
demands byte-identical logs. Re-record only when a change of behaviour is intended, and say so in
the commit message.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
LOGS = HERE / "logs"


def _registry() -> tuple[str, ...]:
    from game.rules import RULESET_NAMES

    return RULESET_NAMES


#: Every registered ruleset (the registry is the one list: a new ruleset is recorded at once).
RULESETS = _registry()
SCENARIOS = ("duel", "firing-line", "hedgerows", "night-raid", "roadblock", "skirmish-5v5", "street")
#: seed -> (red policy, blue policy): the three built-in policies all play.
SEEDS = {1: ("cautious", "aggressive"), 2: ("aggressive", "cautious"), 3: ("random", "cautious")}
#: The saved game: scenario, ruleset, seed, policies, commands played before saving.
SAVE = ("duel", "gurps", 7, ("aggressive", "cautious"), 25)


def cases() -> list[tuple[str, str, int, tuple[str, str]]]:
    return [(sc, rs, seed, pol) for sc in SCENARIOS for rs in RULESETS for seed, pol in SEEDS.items()]


def name(scenario: str, ruleset: str, seed: int) -> str:
    return f"{scenario}-{ruleset}-{seed}.jsonl.gz"


def scenario_path(scenario: str) -> str:
    """The path the logs carry (relative to the repository root, the cwd of record and test)."""
    return f"scenarios/{scenario}.yaml"


def write_gz(path: Path, text: str) -> None:
    # mtime=0: the fixture's bytes depend only on the log.
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        gz.write(text.encode())


def main() -> None:
    import os

    os.chdir(ROOT)
    from tests.golden.play import play_log, play_saved

    LOGS.mkdir(exist_ok=True)
    for scenario, ruleset, seed, pol in cases():
        write_gz(LOGS / name(scenario, ruleset, seed), play_log(scenario_path(scenario), ruleset, seed, pol))
        print(".", end="", flush=True)
    scenario, ruleset, seed, pol, n = SAVE
    save_text, full_log = play_saved(scenario_path(scenario), ruleset, seed, pol, n)
    (HERE / "saved-game.json").write_text(save_text)
    write_gz(HERE / "saved-game-full.jsonl.gz", full_log)
    print(f"\nrecorded {len(cases())} logs and one saved game in {HERE}", file=sys.stderr)


if __name__ == "__main__":
    main()
