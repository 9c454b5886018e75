"""Is a scenario fair? Mirror-AI battles in the scenario's own ruleset, and the weaker side's share.

Contract:
- :func:`measure` plays one scenario with the same policy on every side (mirror AI), in
  the ruleset the scenario names (or ``ruleset``) with the options the scenario gives that
  ruleset, seeds ``seed, seed+1, ...``. It plays at
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
  ruleset, policy, battles, decisive, draws (their share of the battles), wins of each side, the
  weaker side's share with its interval, and whether it passes.
- :func:`heatmap` draws the weaker side's share per scenario (rows) and ruleset (columns), one
  panel per policy, each cell annotated with the share and the draws (PNG, matplotlib).
- :func:`replace_block` puts a table into a Markdown file between :data:`BEGIN` and :data:`END`
  marker lines (the command that made it recorded in the first), keeping the rest of the file.
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
    def draws(self) -> int:
        """Battles nobody won (round limit, or every unit down)."""
        return self.battles - self.decisive

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
    ruleset: str | None = None,
) -> Fairness:
    """Play mirror battles of ``scenario`` with ``policy`` on every side; see the module contract.
    ``options``: ruleset options over the scenario's own (checked by the caller).

    Raises:
        SkirmishError: a bad scenario or policy; BattleFailed: a battle broke down.
    """
    from game.tools.batch import load_spec, plan, run_batch

    spec = load_spec(scenario, ruleset)
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
            ruleset=ruleset,
        )
        desc = f"{Path(scenario).stem} {spec.ruleset} {policy}"
        rows = run_batch(jobs, workers=workers, progress=progress, desc=desc)
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
        f"| scenario | ruleset | policy | battles | decisive | draws | {a} wins | {b} wins "
        f"| weaker side's share [95% CI] | ≥ {pct} |",
        "|---|---|---|---:|---:|---:|---:|---:|---|:-:|",
    ]
    for r in rows:
        s = r.share
        w0 = f"{r.wins[0]}" if named else f"{r.sides[0]} {r.wins[0]}"
        w1 = f"{r.wins[1]}" if named else f"{r.sides[1]} {r.wins[1]}"
        share = (
            f"{r.weaker} {100 * s.p:.1f}% [{100 * s.lo:.1f}, {100 * s.hi:.1f}]" if r.decisive else "no winner"
        )
        lines.append(
            f"| {r.scenario} | {r.ruleset} | {r.policy} | {r.battles} | {r.decisive} "
            f"| {r.draws} ({100 * r.draws / r.battles:.0f}%) | {w0} | {w1} "
            f"| {share} | {'yes' if r.passes(threshold) else 'NO'} |"
        )
    return "\n".join(lines)


#: The marker lines around a generated table in a Markdown file (:func:`replace_block`).
BEGIN = "<!-- fairness table: generated by"
END = "<!-- fairness table: end -->"


def replace_block(text: str, table: str, command: str) -> str:
    """``text`` with the lines between its :data:`BEGIN` and :data:`END` markers replaced by
    ``table`` (the BEGIN line records ``command``).

    Raises:
        ValueError: the text lacks the two markers in that order.
    """
    lines = text.splitlines(keepends=True)
    begin = next((i for i, ln in enumerate(lines) if ln.startswith(BEGIN)), None)
    end = next((i for i, ln in enumerate(lines) if ln.strip() == END), None)
    if begin is None or end is None or end < begin:
        raise ValueError(f"no '{BEGIN} ... -->' line followed by a '{END}' line")
    block = [f"{BEGIN} {command} -->\n", table.rstrip("\n") + "\n"]
    return "".join(lines[:begin] + block + lines[end:])


def recorded_command(text: str) -> str | None:
    """The command a Markdown file's generated table says it came from (None: no block)."""
    for ln in text.splitlines():
        if ln.startswith(BEGIN):
            return ln[len(BEGIN) :].strip().removesuffix("-->").strip()
    return None


def heatmap(rows: Sequence[Fairness], path: Path, threshold: float = THRESHOLD) -> Path:
    """Draw the weaker side's share, scenario x ruleset, one panel per policy (see the contract)."""
    import matplotlib
    import numpy as np

    from game.tools.plots import new_figure, save_figure

    scenarios = list(dict.fromkeys(r.scenario for r in rows))
    rulesets = list(dict.fromkeys(r.ruleset for r in rows))
    policies = list(dict.fromkeys(r.policy for r in rows))
    fig = new_figure(1.6 + 1.35 * len(rulesets) * len(policies), 1.4 + 0.62 * len(scenarios))
    axes = fig.subplots(1, len(policies), squeeze=False)
    cmap = matplotlib.colormaps["RdYlGn"].copy()
    cmap.set_bad("#bbbbbb")
    image = None
    for ax, policy in zip(axes[0], policies, strict=True):
        grid = np.full((len(scenarios), len(rulesets)), np.nan)
        for r in rows:
            if r.policy != policy:
                continue
            i, j = scenarios.index(r.scenario), rulesets.index(r.ruleset)
            text = f"{100 * r.share.p:.0f}%" if r.decisive else "no winner"
            if r.decisive:
                grid[i, j] = r.share.p
            mark = "" if r.passes(threshold) else " ✗"
            ax.text(
                j,
                i,
                f"{text}{mark}\ndraws {100 * r.draws / r.battles:.0f}%",
                ha="center",
                va="center",
                fontsize=8,
            )
        image = ax.imshow(grid, cmap=cmap, vmin=0.0, vmax=0.5, aspect="auto")
        ax.set_xticks(range(len(rulesets)), rulesets, rotation=30, ha="right")
        ax.set_yticks(range(len(scenarios)), scenarios)
        ax.set_title(f"mirror {policy}")
    if image is not None:
        fig.colorbar(image, ax=axes[0].tolist(), label="weaker side's share of decisive battles")
    fig.suptitle(f"Fairness under mirror AI (pass: ≥ {100 * threshold:g}%)")
    return save_figure(fig, path)


__all__ = [
    "BEGIN",
    "END",
    "MIN_DECISIVE",
    "THRESHOLD",
    "Fairness",
    "heatmap",
    "markdown_table",
    "measure",
    "recorded_command",
    "replace_block",
]
