"""Benchmark: PettingZoo steps per CPU second, random legal actions, skirmish duel vs connect_four.

Run: ``.venv/bin/python benchmarks/rl.py [--steps N] [--ruleset R] [--scenario PATH] [--seed S]``.
Both environments are stepped in this process with uniformly random legal actions (an action
drawn from ``observation["action_mask"]`` returned by ``last()``, ``None`` for finished agents),
resetting when every agent is done, for ``--steps`` steps each. Rates are steps per CPU second
of this process (``time.process_time``: the machine's cores are shared, wall-clock rates swing);
wall-clock rates are printed alongside. ``--profile`` prints where the skirmish steps spend
their time (cProfile, top 25 by cumulative time). The last line is
``rl duel: <n> steps/s skirmish (<ruleset>), <n> connect_four, ratio <r>``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DUEL = ROOT / "scenarios" / "duel.yaml"
# Measure this checkout's code, not whichever copy the environment has installed.
sys.path.insert(0, str(ROOT))


def rollout(e: Any, steps: int, seed: int) -> tuple[int, float, float]:
    """Step ``e`` with random legal actions ``steps`` times; (steps, CPU s, wall s)."""
    rng = np.random.default_rng(seed)
    episode = seed
    e.reset(seed=episode)
    done = 0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    while done < steps:
        if not e.agents:
            episode += 1
            e.reset(seed=episode)
            continue
        obs, _reward, terminated, truncated, _info = e.last()
        if terminated or truncated:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        e.step(action)
        done += 1
    return done, time.process_time() - cpu0, time.perf_counter() - wall0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=3000, help="steps per environment (default 3000)")
    ap.add_argument("--ruleset", default="ap-pool", help="skirmish ruleset (default ap-pool)")
    ap.add_argument("--scenario", default=str(DUEL), help="skirmish scenario (default the duel)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile", action="store_true", help="profile the skirmish rollout")
    args = ap.parse_args(argv)
    if args.steps <= 0:
        print("rl: --steps must be positive", file=sys.stderr)
        return 2

    from pettingzoo.classic import connect_four_v3

    from game.rl import env

    sk = env(args.scenario, ruleset=args.ruleset, seed=args.seed)
    rollout(sk, min(200, args.steps), args.seed + 1)  # warm the kernels and caches
    prof = cProfile.Profile() if args.profile else None
    if prof is not None:
        prof.enable()
    n, cpu, wall = rollout(sk, args.steps, args.seed)
    if prof is not None:
        prof.disable()
    sk.close()
    c4 = connect_four_v3.env()
    rollout(c4, min(200, args.steps), args.seed + 1)
    n4, cpu4, wall4 = rollout(c4, args.steps, args.seed)
    c4.close()
    rate, rate4 = n / cpu, n4 / cpu4
    print(f"skirmish  {n} steps: {cpu:.2f} s CPU, {rate:,.0f} steps/s CPU ({n / wall:,.0f} wall)")
    print(f"connect4  {n4} steps: {cpu4:.2f} s CPU, {rate4:,.0f} steps/s CPU ({n4 / wall4:,.0f} wall)")
    if prof is not None:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
    print(
        f"rl duel: {rate:.0f} steps/s skirmish ({args.ruleset}), {rate4:.0f} connect_four, "
        f"ratio {rate / rate4:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
