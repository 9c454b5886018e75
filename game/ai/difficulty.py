"""Difficulty levels: the AI opponents a player picks by strength, not by policy name.

Contract:

- :data:`LEVELS` maps a level name (``easy``, ``normal``, ``hard``, weakest first) to a
  :class:`Level`: the registered policy that plays it, that policy's options, and one line a
  player reads. ``hard`` is the strongest policy, with its decision time capped at
  :data:`HARD_CAP_MS` (the window must answer within it; batch battles never use a time cap, so
  they stay deterministic under a node budget).
- :func:`level_of` names the level a policy (with its options) plays at, or None;
  :func:`next_level` cycles through the levels (the window's F2).
- :func:`players` replaces the policy of every AI side (not the humans') by a level's.

Only the presentation layer and the CLI use this; the levels name policies through the registry
(:func:`game.ai.policy_names`), so a level never imports a policy module itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: The hardest level answers a decision within this many milliseconds (the planner's time cap).
HARD_CAP_MS = 300


@dataclass(frozen=True)
class Level:
    """One difficulty level: the policy that plays it and the options it plays with."""

    name: str
    policy: str
    options: Mapping[str, Any] = field(default_factory=dict)
    text: str = ""

    def label(self) -> str:
        """``"hard (planner)"``: the level and the policy behind it."""
        return f"{self.name} ({self.policy})"


LEVELS: dict[str, Level] = {
    "easy": Level("easy", "aggressive", {}, "charges in and attacks where its odds are best"),
    "normal": Level("normal", "cautious", {}, "fights from cover and advances only to a better spot"),
    "hard": Level(
        "hard",
        "planner",
        {"time_cap_ms": HARD_CAP_MS},
        f"weighs its plans through the rules; answers within {HARD_CAP_MS} ms",
    ),
}

#: Level names, weakest first (the CLI's choices and the window's F2 order).
NAMES: tuple[str, ...] = tuple(LEVELS)


def level_of(policy: str) -> Level | None:
    """The level ``policy`` plays at (the first whose policy it is), or None."""
    return next((lv for lv in LEVELS.values() if lv.policy == policy), None)


def next_level(current: str | None) -> Level:
    """The level after ``current`` (wrapping round; ``easy`` after an unknown one)."""
    if current not in LEVELS:
        return LEVELS[NAMES[0]]
    return LEVELS[NAMES[(NAMES.index(current) + 1) % len(NAMES)]]


def players(controllers: Mapping[str, str], level: Level, human: str = "human") -> dict[str, str]:
    """``controllers`` with every AI side played at ``level`` (human sides unchanged)."""
    return {side: who if who == human else level.policy for side, who in controllers.items()}


def policy_options(
    level: Level, base: Mapping[str, Mapping[str, Any]] | None = None
) -> dict[str, dict[str, Any]]:
    """Policy options with ``level``'s added for its policy (``base``, e.g. ``--policy-option``, wins)."""
    out = {name: dict(opts) for name, opts in (base or {}).items()}
    supported = _supported(level.policy)
    mine = {k: v for k, v in level.options.items() if k in supported}
    if mine or level.policy in out:
        out[level.policy] = {**mine, **out.get(level.policy, {})}
    return out


def _supported(policy: str) -> set[str]:
    """The option names ``policy``'s factory takes (its options model's fields; none if it has none)."""
    from game.ai import _OPTION_MODELS, _load

    model = _OPTION_MODELS.get(policy)
    return set(_load(model).model_fields) if model is not None else set()
