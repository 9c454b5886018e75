"""Is a scenario fair? Mirror-AI battles in the scenario's own ruleset, and the weaker side's share.

Contract:
- :func:`measure` plays one scenario with the same policy on every side (mirror AI), in
  the ruleset and options the scenario names, seeds ``seed, seed+1, ...``. It plays at
  least ``n`` battles and, while fewer than ``min_decisive`` of them were decisive
  (someone won), more seeds, up to ``max_battles`` in all. With the same policy on
  both sides, swapping the sides' policies (``--swap-sides``) would replay every
  battle identically, so each seed is played once. The stopping rule depends only on
  the rows, so the result is a pure function of the arguments (any number of workers).
- The weaker side is the one of the first two sides with fewer wins (the second on a
  tie); its share is its wins over the decisive battles, with a 95 % Wilson interval
  (:func:`game.tools.stats.wilson`). A scenario passes at ``threshold`` when the share's
  point estimate is at least that.
- :func:`markdown_table` prints the measured rows as a Markdown table: scenario,
  ruleset, policy, battles, decisive, wins of each side, the weaker side's share with
  its interval, and whether it passes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from game.tools.stats import Proportion, wilson

#: The pass mark: the weaker side wins at least this share of decisive battles.
THRESHOLD = 0.30
#: Decisive battles wanted before a share is reported (about +-9 points at 95 %).
MIN_DECISIVE = 100
#: Seeds added at least per extra round of battles.
MIN_CHUNK = 20


@dataclass(frozen=True)
class Fairness:
    """One scenario under one mirror policy: who won how often."""

    scenario: str  # the file's stem
    name: str  # the scenario's name
    ruleset: str
    policy: str
    sides: tuple[str, str]
    battles: int
    wins: tuple[int, int]  # wins of sides[0], sides[1]
    errors: tuple[str, ...] = ()  # battles a user policy broke (not counted), their messages

    @property
    def decisive(self) -> int:
        """Battles one of the two sides won."""
        return sum(self.wins)

    @property
    def weaker(self) -> str:
        """The side with fewer wins (the second side on a tie)."""
        return self.sides[0] if self.wins[0] < self.wins[1] else self.sides[1]

    @property
    def share(self) -> Proportion:
        """The weaker side's wins over the decisive battles, with its 95 % Wilson interval."""
        return wilson(min(self.wins), self.decisive)

    def passes(self, threshold: float = THRESHOLD) -> bool:
        """Whether the weaker side's share reaches ``threshold`` (needs a decisive battle)."""
        return self.decisive > 0 and self.share.p >= threshold


def _next_chunk(battles: int, decisive: int, n: int, min_decisive: int, max_battles: int) -> int:
    """Seeds to play next (0: done)."""
    if battles < n:
        return min(n, max_battles) - battles
    if decisive >= min_decisive or battles >= max_battles:
        return 0
    # The decisive battles still missing at the rate so far, plus 10 % (integers: no rounding drift).
    want = -(-(min_decisive - decisive) * battles * 11 // (decisive * 10)) if decisive else battles
    return min(max(MIN_CHUNK, want), max_battles - battles)


def measure(
    scenario: str,
    policy: str,
    *,
    n: int = 200,
    seed: int = 1,
    min_decisive: int = MIN_DECISIVE,
    max_battles: int = 2000,
    workers: int = 1,
    progress: bool = False,
    policy_timeout: float | None = None,
    options: Mapping[str, Any] | None = None,
) -> Fairness:
    """Play mirror battles of ``scenario`` with ``policy`` on every side; see the module contract.
    ``options``: ruleset options over the scenario's own (checked by the caller).

    Raises:
        SkirmishError: a bad scenario or policy; BattleFailed: a battle broke down.
    """
    from game.tools.batch import load_spec, plan, run_batch

    spec = load_spec(scenario)
    sides = tuple(spec.sides)
    if len(sides) < 2:
        from game.core.errors import SkirmishError

        raise SkirmishError(f"{scenario}: fairness needs two sides, the scenario has {len(sides)}")
    first, second = sides[0], sides[1]
    wins = [0, 0]
    errors: list[str] = []
    battles = 0
    while True:
        chunk = _next_chunk(battles, wins[0] + wins[1], n, min_decisive, max_battles)
        if chunk <= 0:
            break
        jobs = plan(
            seeds=range(seed + battles, seed + battles + chunk),
            scenario=scenario,
            spec=spec,
            policies=dict.fromkeys(sides, policy),
            policy_timeout=policy_timeout,
            options={**spec.options.get(spec.ruleset, {}), **(options or {})},
        )
        rows = run_batch(jobs, workers=workers, progress=progress, desc=f"{Path(scenario).stem} {policy}")
        for row in rows:
            if "error" in row:
                errors.append(str(row["error"]))
            elif row["winner"] == first:
                wins[0] += 1
            elif row["winner"] == second:
                wins[1] += 1
        battles += chunk
    return Fairness(
        Path(scenario).stem,
        spec.name,
        spec.ruleset,
        policy,
        (first, second),
        battles,
        (wins[0], wins[1]),
        tuple(errors),
    )


def markdown_table(rows: Sequence[Fairness], threshold: float = THRESHOLD) -> str:
    """The measured rows as a Markdown table (see the module contract)."""
    pairs = {r.sides for r in rows}
    named = len(pairs) == 1
    a, b = next(iter(pairs)) if named else ("first side", "second side")
    pct = f"{100 * threshold:g}%"
    lines = [
        f"| scenario | ruleset | policy | battles | decisive | {a} wins | {b} wins "
        f"| weaker side's share [95% CI] | ≥ {pct} |",
        "|---|---|---|---:|---:|---:|---:|---|:-:|",
    ]
    for r in rows:
        s = r.share
        w0 = f"{r.wins[0]}" if named else f"{r.sides[0]} {r.wins[0]}"
        w1 = f"{r.wins[1]}" if named else f"{r.sides[1]} {r.wins[1]}"
        share = (
            f"{r.weaker} {100 * s.p:.1f}% [{100 * s.lo:.1f}, {100 * s.hi:.1f}]" if r.decisive else "no winner"
        )
        lines.append(
            f"| {r.scenario} | {r.ruleset} | {r.policy} | {r.battles} | {r.decisive} | {w0} | {w1} "
            f"| {share} | {'yes' if r.passes(threshold) else 'NO'} |"
        )
    return "\n".join(lines)


__all__ = ["MIN_DECISIVE", "THRESHOLD", "Fairness", "markdown_table", "measure"]
