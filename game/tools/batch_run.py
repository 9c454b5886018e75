"""``batch_run``: many battles as one pandas DataFrame (as Mesa's ``batch_run`` is for agent models).

Contract:
- :func:`batch_run` plays the full cross product scenarios x rulesets x option grid x policies x
  seeds and returns a :class:`pandas.DataFrame` with one row per battle and side and the columns of
  ``battles.csv`` (:func:`game.tools.results.columns`: ``variant, scenario, ruleset, options``, one
  ``option.<key>`` column per option the grid varies, ``seed ... log``, then the mechanic counts of
  the rulesets played). Numbers are numbers (``seed``, ``won``, ``damage_dealt``, ...), the
  ``option.<key>`` cells are the values as played.
- ``options`` is a grid: ``{name: value or list of values}`` applies to every ruleset played
  that has the option (a name no ruleset has is a :class:`~game.core.errors.SkirmishError`);
  ``{ruleset: {name: values}}`` applies to that ruleset only. Lists multiply (every combination);
  the scenario's own ``options:`` for the ruleset stay underneath.
- ``policies``: each item is one arm, a policy name (every side plays it: mirror AI), a pair
  ``(first side's, second side's)`` or a mapping side -> policy.
- ``seeds``: an int ``n`` (seeds 1..n) or the seeds themselves. Every arm plays the same seeds
  (common random numbers: an arm's difference from another is not seed noise).
- Rows come in plan order (scenario, ruleset, options, policies, seed) whatever ``workers`` or
  ``dask``: the same call gives the same frame. ``workers`` local processes
  (:func:`game.tools.batch.run_batch`), or ``dask="local"`` / a scheduler address.
- Without pandas the call raises :class:`ImportError` saying what to install (the ``analysis``
  extra); bad input (scenario, ruleset, option, policy) raises before any battle is played.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from game.core.errors import SkirmishError

if TYPE_CHECKING:
    import pandas as pd

#: What to install for :func:`batch_run` (and ``skirmish balance``).
ANALYSIS_EXTRA = "pip install 'skirmish-tabletop-sim[analysis]'"

PolicyArm = str | Sequence[str] | Mapping[str, str]
Grid = Mapping[str, Any]


def require_pandas(what: str = "batch_run") -> Any:
    """The pandas module, or an ImportError saying how to get it."""
    try:
        import pandas
    except ImportError:
        raise ImportError(f"{what} needs pandas: {ANALYSIS_EXTRA} (or pip install pandas)") from None
    return pandas


def _values(v: Any) -> list[Any]:
    return list(v) if isinstance(v, list | tuple | range) else [v]


def _grids(options: Grid | None, rulesets: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Per ruleset, the option combinations to play (``[{}]`` when nothing varies)."""
    from game.rules import RULESET_NAMES, ruleset_class

    shared: dict[str, list[Any]] = {}
    own: dict[str, dict[str, list[Any]]] = {}
    for key, value in (options or {}).items():
        if key in RULESET_NAMES:
            if not isinstance(value, Mapping):
                raise SkirmishError(f"options[{key!r}] must map option names to values")
            own[key] = {k: _values(v) for k, v in value.items()}
        else:
            shared[key] = _values(value)
    for name in shared:
        if not any(name in ruleset_class(r).Options.model_fields for r in rulesets):
            raise SkirmishError(
                f"option {name!r}: none of the rulesets played ({', '.join(rulesets)}) has it"
            )
    out: dict[str, list[dict[str, Any]]] = {}
    for r in rulesets:
        fields = ruleset_class(r).Options.model_fields
        axes = {k: v for k, v in shared.items() if k in fields} | own.get(r, {})
        keys = list(axes)
        out[r] = [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*axes.values())]
    return out


def _arm(policy: PolicyArm, sides: Sequence[str]) -> dict[str, str]:
    if isinstance(policy, str):
        return dict.fromkeys(sides, policy)
    if isinstance(policy, Mapping):
        unknown = set(policy) - set(sides)
        if unknown:
            raise SkirmishError(f"policies name side(s) {sorted(unknown)} the scenario lacks ({sides})")
        return {s: str(policy.get(s, "random")) for s in sides}
    pair = list(policy)
    if len(pair) != 2:
        raise SkirmishError(f"a policy pair names two policies, not {pair!r}")
    return {sides[0]: pair[0], sides[1]: pair[1], **{s: pair[1] for s in sides[2:]}}


def _seeds(seeds: int | Iterable[int]) -> list[int]:
    if isinstance(seeds, int):
        if seeds < 1:
            raise SkirmishError(f"seeds: at least one battle, not {seeds}")
        return list(range(1, seeds + 1))
    out = [int(s) for s in seeds]
    if not out or min(out) < 0:
        raise SkirmishError("seeds: give at least one seed, none negative")
    return out


def batch_run(
    scenarios: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    rulesets: str | Sequence[str] | None = None,
    options: Grid | None = None,
    policies: PolicyArm | Sequence[PolicyArm] = "cautious",
    seeds: int | Iterable[int] = 10,
    workers: int = 1,
    dask: str | None = None,
    swap_sides: bool = False,
    round_limit: int | None = None,
    display_progress: bool = False,
) -> pd.DataFrame:
    """Play the cross product (see the module contract) and return the tidy DataFrame.

    Args:
        scenarios: scenario files (or shipped scenario names).
        rulesets: ruleset names (``"all"``: every installed one); None: each scenario's own.
        options: the option grid.
        policies: the policy arms (one, or a list).
        seeds: ``n`` (seeds 1..n) or the seeds.
        workers: local worker processes; with ``dask="local"`` the number of Dask workers.
        dask: None, ``"local"`` or a scheduler address.
        swap_sides: also play each seed with the first two sides' policies swapped.
        round_limit: overrides the scenarios' round limits.
        display_progress: a tqdm bar on stderr.

    Raises:
        ImportError: pandas is not installed.
        SkirmishError: bad input (also :class:`~game.core.errors.ScenarioError`), before any battle.
        game.tools.batch.BattleFailed: a battle broke down.
    """
    pandas = require_pandas()
    from pydantic import ValidationError

    from game.ai import check_policy
    from game.rules import RULESET_NAMES, get_ruleset, ruleset_class
    from game.rules.options import option_problem
    from game.tools import batch, results
    from game.tools.sweep import label

    paths = [scenarios] if isinstance(scenarios, str | os.PathLike) else list(scenarios)
    if not paths:
        raise SkirmishError("batch_run needs at least one scenario")
    names: list[str] | None
    if rulesets is None:
        names = None
    elif rulesets == "all":
        names = list(RULESET_NAMES)
    else:
        names = [rulesets] if isinstance(rulesets, str) else list(rulesets)
        for r in names:
            if r not in RULESET_NAMES:
                raise SkirmishError(f"unknown ruleset {r!r}; choose one of {', '.join(RULESET_NAMES)}")
    arms = [policies] if isinstance(policies, str | Mapping) else list(policies)
    if not arms:
        raise SkirmishError("batch_run needs at least one policy")
    for arm in arms:
        for p in (
            [arm] if isinstance(arm, str) else list(dict(arm).values() if isinstance(arm, Mapping) else arm)
        ):
            check_policy(p)
    seed_list = _seeds(seeds)
    specs = [(str(p), batch.load_spec(str(p))) for p in paths]
    played = names or list(dict.fromkeys(s.ruleset for _, s in specs))
    grids = _grids(options, played)
    varied = list(dict.fromkeys(k for g in grids.values() for combo in g for k in combo))
    planned: list[results.Planned] = []
    for path, spec0 in specs:
        for r in names or [spec0.ruleset]:
            spec = spec0 if r == spec0.ruleset else batch.load_spec(path, r)
            for combo in grids[r]:
                merged = {**spec.options.get(r, {}), **combo}
                try:
                    get_ruleset(r, merged)
                except ValidationError as e:
                    raise SkirmishError(option_problem(f"ruleset {r}", ruleset_class(r).Options, e)) from None
                factors = {f"option.{k}": results.value_text(v) for k, v in combo.items()}
                for arm in arms:
                    pols = _arm(arm, spec.sides)
                    varying = list(factors)
                    tag = label(factors, varying, "")
                    who = " ".join(f"{side}={p}" for side, p in pols.items()) if len(arms) > 1 else ""
                    variant = " ".join(x for x in (Path(path).stem, r, tag, who) if x)
                    jobs = batch.plan(
                        seeds=seed_list,
                        scenario=path,
                        spec=spec,
                        policies=pols,
                        ruleset=r,
                        options=merged,
                        swap_sides=swap_sides,
                        variant=variant,
                        round_limit=round_limit,
                    )
                    cells = tuple(
                        (f"option.{k}", results.value_text(combo[k])) if k in combo else (f"option.{k}", "")
                        for k in varied
                    )
                    planned += [
                        results.Planned(job, variant, spec.name, r, tuple(spec.sides), cells) for job in jobs
                    ]
    rows = batch.run_batch(
        [p.job for p in planned], workers=workers, dask=dask, progress=display_progress, desc="batch_run"
    )
    tidy = [t for row, p in zip(rows, planned, strict=True) for t in results.side_rows(row, p)]
    header = results.columns(played, varied)
    frame = pandas.DataFrame(tidy, columns=header)
    for k in varied:  # the values as played, not their text
        col = f"option.{k}"
        frame[col] = [_played(v) for v in frame[col]]
    return frame


def _played(cell: Any) -> Any:
    """An ``option.<key>`` cell's value (JSON text back to the value; '' to None)."""
    import json

    if cell in ("", None):
        return None
    try:
        return json.loads(cell)
    except (TypeError, ValueError):
        return cell


__all__ = ["ANALYSIS_EXTRA", "batch_run", "require_pandas"]
