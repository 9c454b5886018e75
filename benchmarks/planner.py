"""The planner's cost and strength against ``cautious`` (and other policies), in the same battles.

Usage::

    .venv/bin/python benchmarks/planner.py              # 2 seeds: 100 battles, a few minutes
    .venv/bin/python benchmarks/planner.py --seeds 20 --opponent cautious --opponent aggressive \
        --tables --workers 2                            # 2000 battles: the figures in docs/ai.md
    .venv/bin/python benchmarks/planner.py --scenario village-battle --seeds 1 \
        --opponent cautious --opponent aggressive       # the 40v40 village, measured apart
    .venv/bin/python benchmarks/planner.py --seeds 8 --opponent aggressive --cells --workers 2
                                                        # a row per scenario and ruleset
    .venv/bin/python benchmarks/planner.py --budget 4   # the budget knob (planner.budget)
    .venv/bin/python benchmarks/planner.py --planner-option samples=4   # any planner option
    .venv/bin/python benchmarks/planner.py --clone-cost # what one look-ahead copy of a match costs

Every shipped scenario but the 40v40 village (:data:`SEPARATE`: it costs as much as all the
others together, so it is measured on its own with ``--scenario``) under every ruleset, on seeds
``--first-seed`` onwards, each seed with ``planner`` on either side against each ``--opponent``
(default ``cautious``; the same battles ``skirmish battle --swap-sides`` plays). Each policy call
is timed with ``time.process_time`` (CPU time of the process playing the battle: a busy host
slows both policies alike, so compare them in one run, as here); a policy's CPU per battle is the
sum of its own calls over the battles, divided by the number of battles. The engine's own work
(applying commands, posing decisions) belongs to neither and is left out. The last lines are, two
per opponent::

    battle CPU: planner vs cautious <ms> ms/battle, cautious vs cautious <ms>, ratio <r>x (...)
    planner: <ms> ms/battle, cautious <ms>, ratio <r>x, win rate vs cautious <p>

the first the whole battle's CPU (engine included) against the same battle played by ``cautious``
on both sides, the issue's measure (at most 20x at the default budget), the second the policies'
own calls, with the win rate among decisive battles and its 95 % Wilson interval.

``--tables`` first prints the planner's win rates per ruleset and per scenario against each
opponent (Markdown, with Wilson intervals); ``--cells`` a row per scenario and ruleset, with how
many seeds the side decided (the planner won on one side and lost on the other: whoever played,
that side won; a cell decided so on every seed sits at 50 % whatever the policies do, and fair
coins would split half the seeds); ``--workers`` plays the battles in that many processes (the
results are the same).

``--clone-cost`` measures instead what a search over copies of the match would pay for each
copy, on the 5v5 map after 60 commands under every ruleset: rebuilding the match from its seed
and commands (the only faithful copy), and ``copy.deepcopy`` of it (not a usable copy: it shares
the engine's world by name and the dice stream); docs/ai.md weighs these against the budget.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from game.ai import get_policy  # noqa: E402
from game.rules import RULESET_NAMES  # noqa: E402
from game.tools.batch import load_spec  # noqa: E402
from game.tools.session import HUMAN, Session, Setup  # noqa: E402
from game.tools.stats import wilson  # noqa: E402

SCENARIOS = sorted(p for p in (ROOT / "scenarios").glob("*.yaml") if p.stem != "profiles")
#: Shipped scenarios measured on their own (``--scenario NAME``), not by default: the 40v40
#: village costs as much as all the others together.
SEPARATE = ("village-battle",)


def timed(policy: Callable[..., Any], spent: dict[str, float], name: str) -> Callable[..., Any]:
    """``policy`` with the CPU time of each call added to ``spent[name]``."""

    def call(view: Any, decision: Any, rng: Any) -> Any:
        t0 = time.process_time()
        try:
            return policy(view, decision, rng)
        finally:
            spent[name] += time.process_time() - t0

    return call


def clone_cost() -> None:
    """Print what copying a match costs (see the module docstring)."""
    import copy

    from game.core.commands import command_from_json

    for ruleset in RULESET_NAMES:
        spec = load_spec(str(ROOT / "scenarios" / "skirmish-5v5.yaml"), ruleset)
        players = {spec.sides[0]: "cautious", spec.sides[1]: "aggressive"}
        with Session.start(spec, Setup(ruleset=ruleset, seed=3), players) as s:
            s.play(steps=60)
            commands = list(s.match.commands)
            t0 = time.process_time()
            for _ in range(5):
                again = Setup(ruleset=ruleset, seed=3, controllers=players).build(spec)
                for c in commands:
                    again.apply(command_from_json(c))
                again.close()
            rebuild = (time.process_time() - t0) / 5
            t0 = time.process_time()
            copy.deepcopy(s.match)
            deep = time.process_time() - t0
        print(
            f"{ruleset}: rebuild after {len(commands)} commands {1000 * rebuild:.1f} ms "
            f"({1e6 * rebuild / len(commands):.0f} us/command), deepcopy {1000 * deep:.1f} ms"
        )


@dataclass(frozen=True)
class Battle:
    """One battle of the benchmark: ``planner`` against ``opponent``, ``planner`` on the first
    side unless ``swapped``."""

    scenario: str
    ruleset: str
    seed: int
    opponent: str
    swapped: bool


@dataclass(frozen=True)
class Result:
    battle: Battle
    winner: str | None  # "planner", the opponent's name, or None (a draw)
    spent: dict[str, float]  # CPU seconds of each policy's own calls
    battle_cpu: float  # CPU seconds of the whole battle (engine and both policies)
    baseline_cpu: float  # CPU seconds of the same battle with cautious on both sides


def cautious_battle(battle: Battle) -> float:
    """CPU seconds of the whole battle ``battle`` names with ``cautious`` on both sides."""
    spec = load_spec(str(ROOT / "scenarios" / f"{battle.scenario}.yaml"), battle.ruleset)
    players = {side: "cautious" for side in spec.sides}
    t0 = time.process_time()
    with Session.start(
        spec, Setup(ruleset=battle.ruleset, seed=battle.seed, controllers=players), players
    ) as s:
        s.play()
    return time.process_time() - t0


def play(job: tuple[Battle, dict[str, Any]]) -> Result:
    """Play one battle, timing each policy's calls (runs in a worker process too)."""
    battle, options = job
    spent = {"planner": 0.0, battle.opponent: 0.0}
    players = {
        "planner": timed(get_policy("planner", **options), spent, "planner"),
        battle.opponent: timed(get_policy(battle.opponent), spent, battle.opponent),
    }
    spec = load_spec(str(ROOT / "scenarios" / f"{battle.scenario}.yaml"), battle.ruleset)
    first, second = spec.sides[0], spec.sides[1]
    a, b = ("planner", battle.opponent) if not battle.swapped else (battle.opponent, "planner")
    side_of = {first: a, second: b}
    setup = Setup(ruleset=battle.ruleset, seed=battle.seed, controllers=side_of)
    # Both sides "human" to the session: this loop answers with the timed policies.
    t0 = time.process_time()
    with Session.start(spec, setup, HUMAN) as s:
        m = s.match
        while m.outcome is None:
            d = m.pending
            assert d is not None
            s.apply(players[side_of[m.side(d.unit)]](s.view, d, m.ai_rng))
        winner = side_of.get(m.outcome.winner) if m.outcome.winner else None
    battle_cpu = time.process_time() - t0
    return Result(battle, winner, spent, battle_cpu, cautious_battle(battle))


def tally(results: list[Result]) -> tuple[int, int, int]:
    """Planner wins, losses and draws among ``results``."""
    won = sum(r.winner == "planner" for r in results)
    drawn = sum(r.winner is None for r in results)
    return won, len(results) - won - drawn, drawn


def table(results: list[Result], opponents: list[str], key: Callable[[Battle], str], title: str) -> str:
    """A Markdown table of the planner's decisive win rate against each opponent, per ``key``."""
    keys = sorted({key(r.battle) for r in results})
    head = f"| {title} | " + " | ".join(f"vs `{o}`: W-L-D, win rate (95 % CI)" for o in opponents) + " |"
    lines = [head, "|---" * (1 + len(opponents)) + "|"]
    for k in [*keys, "all"]:
        cells = []
        for o in opponents:
            rs = [r for r in results if r.battle.opponent == o and (k == "all" or key(r.battle) == k)]
            w, lost, d = tally(rs)
            cells.append(f"{w}-{lost}-{d}, {wilson(w, w + lost)}")
        name = "**all**" if k == "all" else f"`{k}`"
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def side_decided(results: list[Result]) -> tuple[int, int]:
    """(seeds whose two battles the same side won, seeds with both battles played): the planner
    won one and lost the other, so the side, not the player, decided that seed."""
    pairs: dict[tuple[str, str, int, str], dict[bool, str | None]] = {}
    for r in results:
        b = r.battle
        pairs.setdefault((b.scenario, b.ruleset, b.seed, b.opponent), {})[b.swapped] = r.winner
    both = [p for p in pairs.values() if len(p) == 2]
    decisive = [p for p in both if None not in p.values()]
    same = sum(1 for p in decisive if (p[False] == "planner") != (p[True] == "planner"))
    return same, len(both)


def cell_table(results: list[Result], opponents: list[str]) -> str:
    """A Markdown table per scenario and ruleset: the planner's decisive win rate against each
    opponent, and how many seeds the side decided (:func:`side_decided`). A cell where the side
    decides every seed sits at 50 % whoever plays: no choice the players made changed a winner.
    (Chance alone gives about half: if each battle were a fair coin, half the seeds would split.)"""
    keys = sorted({(r.battle.scenario, r.battle.ruleset) for r in results})
    head = (
        "| scenario | ruleset | "
        + " | ".join(f"vs `{o}`: W-L-D, win rate | side decided" for o in opponents)
        + " |"
    )
    lines = [head, "|---|---" + "|---|---" * len(opponents) + "|"]
    for sc, rs in keys:
        cells = []
        for o in opponents:
            got = [
                r
                for r in results
                if r.battle.opponent == o and (r.battle.scenario, r.battle.ruleset) == (sc, rs)
            ]
            w, lost, d = tally(got)
            same, both = side_decided(got)
            rate = f"{100.0 * w / (w + lost):.0f} %" if w + lost else "-"
            cells.append(f"{w}-{lost}-{d}, {rate} | {same}/{both}")
        lines.append(f"| `{sc}` | `{rs}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2, help="seeds per scenario and ruleset (default 2)")
    ap.add_argument("--first-seed", type=int, default=1, help="the first seed (default 1)")
    ap.add_argument("--budget", type=int, default=None, help="planner.budget (default: the planner's)")
    ap.add_argument(
        "--planner-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="another option of the planner, e.g. samples=1 (repeatable)",
    )
    ap.add_argument("--ruleset", action="append", help="only this ruleset (repeatable)")
    ap.add_argument(
        "--scenario",
        action="append",
        help=f"only this shipped scenario (repeatable; default all but {', '.join(SEPARATE)})",
    )
    ap.add_argument(
        "--opponent", action="append", help="play against this policy (repeatable; default cautious)"
    )
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    ap.add_argument("--tables", action="store_true", help="also print the win rates per ruleset and scenario")
    ap.add_argument(
        "--cells",
        action="store_true",
        help="also print a row per scenario and ruleset, with the seeds the side (not the player) decided",
    )
    ap.add_argument("--clone-cost", action="store_true", help="measure what copying a match costs")
    args = ap.parse_args()
    if args.clone_cost:
        clone_cost()
        return
    opponents = args.opponent or ["cautious"]
    scenarios = args.scenario or [p.stem for p in SCENARIOS if p.stem not in SEPARATE]
    options: dict[str, Any] = {} if args.budget is None else {"budget": args.budget}
    for item in args.planner_option:
        key, sep, value = item.partition("=")
        if not sep:
            ap.error(f"--planner-option {item!r}: expected KEY=VALUE")
        options[key.strip()] = value.strip()
    jobs = [
        (Battle(sc, ruleset, seed, opponent, swapped), options)
        for opponent in opponents
        for sc in scenarios
        for ruleset in args.ruleset or RULESET_NAMES
        for seed in range(args.first_seed, args.first_seed + args.seeds)
        for swapped in (False, True)
    ]
    bar = tqdm(total=len(jobs), unit="battle", file=sys.stderr)
    results: list[Result] = []
    if args.workers > 1:
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            for r in pool.imap_unordered(play, jobs):
                results.append(r)
                bar.update()
    else:
        for job in jobs:
            results.append(play(job))
            bar.update()
    bar.close()
    if args.tables:
        print(table(results, opponents, lambda b: b.ruleset, "ruleset"))
        print()
        print(table(results, opponents, lambda b: b.scenario, "scenario"))
        print()
    if args.cells:
        print(cell_table(results, opponents))
        print()
    for o in opponents:
        rs = [r for r in results if r.battle.opponent == o]
        won, lost, drawn = tally(rs)
        p_ms = 1000.0 * sum(r.spent["planner"] for r in rs) / len(rs)
        o_ms = 1000.0 * sum(r.spent[o] for r in rs) / len(rs)
        b_ms = 1000.0 * sum(r.battle_cpu for r in rs) / len(rs)
        c_ms = 1000.0 * sum(r.baseline_cpu for r in rs) / len(rs)
        print(
            f"battle CPU: planner vs {o} {b_ms:.1f} ms/battle, cautious vs cautious {c_ms:.1f}, "
            f"ratio {b_ms / c_ms:.2f}x (the issue's bound: 20x)"
        )
        print(f"{len(rs)} battles vs {o}: planner won {won}, lost {lost}, drew {drawn}", file=sys.stderr)
        print(
            f"planner: {p_ms:.1f} ms/battle, {o} {o_ms:.1f}, ratio {p_ms / o_ms:.2f}x, "
            f"win rate vs {o} {wilson(won, won + lost)}"
        )


if __name__ == "__main__":
    main()
