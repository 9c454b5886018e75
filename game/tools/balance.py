"""Balance a scenario: the value of one number at which the first side wins a target share.

Contract:
- A :class:`Knob` is the number varied: ``profiles.PROFILE.RULESET.FIELD[.SUBFIELD...]`` (a field of
  a profile's stat block, as the scenario's ``profiles:`` overrides it, else as the shared
  ``scenarios/profiles.yaml`` gives it) or ``option.NAME`` (a ruleset option, set in the
  scenario's ``options:``). :func:`parse_knob` reads it; :func:`with_value` returns the scenario's
  text with the knob at a value (ruamel round trip: comments and the rest of the file kept; a
  profile block the scenario lacks is copied from the shared file first), :func:`variant` that
  text loaded and validated. Bad keys (no such profile, ruleset, field or option; a field that
  is not a number; a profile no unit uses under that ruleset) and bad ranges (LO >= HI, an end
  the ruleset refuses) are :class:`~game.core.errors.SkirmishError` with one line, raised before
  any battle.
- :func:`search` is the stochastic search (docs/batch.md argues the choice): a design of
  ``points`` values over [LO, HI], every value played on the same seeds (common random numbers:
  seed ``s`` gives every value the same dice stream, so the differences between values are not
  seed noise), mirror ``policy``. A logistic regression (statsmodels GLM, binomial family) of
  "the first side won" on the value, over the decisive battles, gives the root where the fitted
  share equals ``target``; a second design of ``points`` values around the root (where the
  fitted share is target +- 0.2) refines it, and the fit over both designs is final. Integer
  knobs take the integer whose fitted share is nearest the target. The value found is then
  played on ``n`` seeds more if the designs did not already play it, and its observed share
  with the 95 % Wilson interval is reported. When the fitted share does not cross the target
  inside [LO, HI] the result says so (``reached`` False) and names the end nearest to it.
- Everything is a pure function of the arguments (any number of workers).
- :func:`plot` draws the observed share per value (Wilson intervals), the fitted curve, the
  target and the value found (PNG).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from components.specs import ScenarioSpec
from game.core.errors import ScenarioError, SkirmishError
from game.tools.stats import Proportion, wilson

#: Accepted range text: ``LO..HI``.
RANGE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*\.\.\s*(-?\d+(?:\.\d+)?)\s*$")
#: Half-width, in share, of the second design around the first root.
REFINE = 0.2


@dataclass(frozen=True)
class Knob:
    """The number ``balance`` varies: a profile field or a ruleset option."""

    key: str  # as the user wrote it
    kind: str  # "profile" or "option"
    path: tuple[str, ...]  # profile: (profile, ruleset, field, ...); option: (name,)

    @property
    def ruleset(self) -> str | None:
        """The ruleset a profile knob belongs to (None for an option)."""
        return self.path[1] if self.kind == "profile" else None


def parse_knob(key: str) -> Knob:
    """``profiles.P.R.FIELD...`` or ``option.NAME`` (SkirmishError otherwise)."""
    parts = key.split(".")
    if parts[0] == "profiles" and len(parts) >= 4 and all(parts[1:]):
        return Knob(key, "profile", tuple(parts[1:]))
    if parts[0] == "option" and len(parts) == 2 and parts[1]:
        return Knob(key, "option", (parts[1],))
    raise SkirmishError(
        f"{key!r}: give profiles.PROFILE.RULESET.FIELD or option.NAME, e.g. profiles.veteran.gurps.dx"
    )


def parse_range(text: str) -> tuple[float, float]:
    """``LO..HI`` with LO < HI (SkirmishError otherwise)."""
    m = RANGE.match(text)
    if m is None:
        raise SkirmishError(f"range {text!r} is not LO..HI (numbers, e.g. 9..14)")
    lo, hi = float(m.group(1)), float(m.group(2))
    if not lo < hi:
        raise SkirmishError(f"range {text!r}: LO must be below HI")
    return lo, hi


# --------------------------------------------------------------------------- the scenario's text
def _yaml() -> Any:
    from ruamel.yaml import YAML

    y = YAML(typ="rt", pure=True)
    y.preserve_quotes = True
    y.width = 4096
    y.indent(mapping=2, sequence=4, offset=2)  # the shipped scenarios' style
    return y


def _load_rt(text: str, source: str) -> Any:
    from ruamel.yaml.error import YAMLError

    try:
        data = _yaml().load(text)
    except YAMLError as e:
        raise SkirmishError(f"{source}: not YAML: {e}") from None
    if not hasattr(data, "get"):
        raise SkirmishError(f"{source}: not a YAML mapping")
    return data


def _shared_block(profile: str, ruleset: str) -> Any:
    from game.scenario.profiles import DEFAULT_PROFILES_PATH

    shared = _load_rt(Path(DEFAULT_PROFILES_PATH).read_text(encoding="utf-8"), str(DEFAULT_PROFILES_PATH))
    return (shared.get(profile) or {}).get(ruleset)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def current_value(text: str, source: str, knob: Knob, ruleset: str) -> float | int | None:
    """The knob's value in the scenario as written (a profile field from the scenario or the
    shared file; an option from ``options:``, else None: the ruleset's default)."""
    from copy import deepcopy

    data = _load_rt(text, source)
    if knob.kind == "option":
        value = ((data.get("options") or {}).get(ruleset) or {}).get(knob.path[0])
        return value if _number(value) else None
    block = _profile_block(data, knob)
    node: Any = deepcopy(block)
    for part in knob.path[2:]:
        node = node.get(part) if hasattr(node, "get") else None
    if not _number(node):
        raise SkirmishError(f"{knob.key}: the field is not a number here ({node!r})")
    return node


def _profile_block(data: Any, knob: Knob) -> Any:
    profile, ruleset = knob.path[0], knob.path[1]
    own = ((data.get("profiles") or {}).get(profile) or {}).get(ruleset)
    block = own if own is not None else _shared_block(profile, ruleset)
    if block is None:
        raise SkirmishError(f"{knob.key}: no profile {profile!r} with a {ruleset} block")
    return block


def with_value(text: str, source: str, knob: Knob, ruleset: str, value: float | int) -> str:
    """The scenario text with the knob at ``value`` (see the module contract)."""
    import io
    from copy import deepcopy

    from ruamel.yaml.comments import CommentedMap

    data = _load_rt(text, source)
    if knob.kind == "option":
        options = data.setdefault("options", CommentedMap())
        options.setdefault(ruleset, CommentedMap())[knob.path[0]] = value
    else:
        profile, block_ruleset = knob.path[0], knob.path[1]
        profiles = data.get("profiles")
        if profiles is None:
            profiles = data["profiles"] = CommentedMap()
        entry = profiles.get(profile)
        if entry is None:
            entry = profiles[profile] = CommentedMap()
        if entry.get(block_ruleset) is None:
            entry[block_ruleset] = deepcopy(_profile_block(data, knob))
        node = entry[block_ruleset]
        for part in knob.path[2:-1]:
            node = node.get(part) if hasattr(node, "get") else None
            if node is None:
                raise SkirmishError(f"{knob.key}: no field {part!r} in the block")
        last = knob.path[-1]
        if not hasattr(node, "get") or not _number(node.get(last)):
            raise SkirmishError(f"{knob.key}: the block has no number {last!r}")
        node[last] = value
    buf = io.StringIO()
    _yaml().dump(data, buf)
    return buf.getvalue()


def variant(text: str, source: str, knob: Knob, ruleset: str, value: float | int) -> ScenarioSpec:
    """The scenario with the knob at ``value``, loaded and validated under ``ruleset``.

    Raises:
        SkirmishError: the value is refused (one line: the first problem, located).
    """
    from game.scenario import load_scenario_text

    new = with_value(text, source, knob, ruleset, value)
    try:
        return load_scenario_text(new, source, ruleset=ruleset)
    except ScenarioError as e:
        first = e.problems[0] if getattr(e, "problems", None) else e
        raise SkirmishError(f"{knob.key} = {value:g}: {first}") from None


def check_knob(text: str, source: str, knob: Knob, ruleset: str, lo: float, hi: float, integer: bool) -> None:
    """Refuse a knob that cannot be varied here, or a range the ruleset refuses (SkirmishError)."""
    from game.rules import ruleset_class

    if knob.kind == "profile":
        if knob.ruleset != ruleset:
            raise SkirmishError(f"{knob.key}: a {knob.ruleset} block does nothing under --ruleset {ruleset}")
        current_value(text, source, knob, ruleset)
        data = _load_rt(text, source)
        used = {str(u.get("profile", "trooper")) for u in data.get("units") or [] if hasattr(u, "get")}
        if knob.path[0] not in used:
            raise SkirmishError(f"{knob.key}: no unit of {source} uses profile {knob.path[0]!r}")
    else:
        fields = ruleset_class(ruleset).Options.model_fields
        name = knob.path[0]
        if name not in fields:
            raise SkirmishError(f"{knob.key}: ruleset {ruleset} has no option {name!r}")
        if fields[name].annotation not in (int, float):
            raise SkirmishError(f"{knob.key}: option {name!r} is not a number")
    for end in (lo, hi):
        variant(text, source, knob, ruleset, int(end) if integer else end)


def is_integer(text: str, source: str, knob: Knob, ruleset: str) -> bool:
    """Whether the knob takes whole numbers (the field as written, or the option's type)."""
    if knob.kind == "option":
        from game.rules import ruleset_class

        f = ruleset_class(ruleset).Options.model_fields.get(knob.path[0])
        return f is not None and f.annotation is int
    return isinstance(current_value(text, source, knob, ruleset), int)


# --------------------------------------------------------------------------- the search
@dataclass
class Balanced:
    """What :func:`search` found."""

    knob: str
    value: float | int
    reached: bool  # the fitted share crosses the target inside the range
    share: Proportion  # the first side's share of decisive battles at ``value``
    battles_at_value: int
    battles: int  # in all
    target: float
    design: dict[float, tuple[int, int, int]] = field(
        default_factory=dict
    )  # value -> battles, decisive, wins
    coef: tuple[float, float] = (0.0, 0.0)  # logistic intercept and slope
    root_interval: tuple[float, float] | None = None  # 95 % delta-method interval of the root

    def fitted(self, x: float) -> float:
        """The fitted share of the first side at ``x``."""
        z = self.coef[0] + self.coef[1] * x
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


Play = Callable[[float | int, Sequence[int]], list[dict[str, Any]]]


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def fit(design: dict[float, list[tuple[int, int]]]) -> tuple[tuple[float, float], Any]:
    """Logistic fit of the first side's wins on the value (decisive battles, one row per battle).

    Returns the (intercept, slope) and the covariance matrix (None if the fit failed)."""
    import warnings

    import numpy as np
    import statsmodels.api as sm

    xs: list[float] = []
    ys: list[int] = []
    for x, results in design.items():
        for decided, won in results:
            if decided:
                xs.append(x)
                ys.append(won)
    if len(set(xs)) < 2 or len(set(ys)) < 2:
        return (0.0, 0.0), None
    X = sm.add_constant(np.asarray(xs, dtype=float))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # separation: large but usable coefficients
        try:
            res = sm.GLM(np.asarray(ys, dtype=float), X, family=sm.families.Binomial()).fit()
        except (ValueError, np.linalg.LinAlgError):
            return (0.0, 0.0), None
    b0, b1 = (float(v) for v in res.params)
    if not (math.isfinite(b0) and math.isfinite(b1)):
        return (0.0, 0.0), None
    return (b0, b1), np.asarray(res.cov_params())


def _spread(lo: float, hi: float, k: int, integer: bool) -> list[float]:
    pts = [lo + (hi - lo) * i / (k - 1) for i in range(k)] if k > 1 else [(lo + hi) / 2]
    if integer:
        pts = [float(round(p)) for p in pts]
    return sorted(set(pts))


def search(
    play: Play,
    lo: float,
    hi: float,
    *,
    integer: bool,
    knob: str = "",
    target: float = 0.5,
    n: int = 40,
    seed: int = 1,
    points: int = 5,
    progress: Callable[[str], None] | None = None,
) -> Balanced:
    """The two-stage logistic search (see the module contract). ``play(value, seeds)`` returns the
    battle rows (``winner`` and ``first``: the first side's name, in each)."""
    seeds = list(range(seed, seed + n))
    design: dict[float, list[tuple[int, int]]] = {}

    def run(values: Sequence[float]) -> None:
        for v in values:
            if v in design:
                continue
            if progress is not None:
                progress(f"{knob} = {v:g}")
            rows = play(int(v) if integer else v, seeds)
            design[v] = [(int(r["winner"] != "draw"), int(r["winner"] == r["first"])) for r in rows]

    run(_spread(lo, hi, points, integer))
    coef, _ = fit(design)
    root = _root(coef, target, lo, hi)
    if root is not None and coef[1] != 0.0:
        a = (_logit(min(0.95, target + REFINE)) - coef[0]) / coef[1]
        b = (_logit(max(0.05, target - REFINE)) - coef[0]) / coef[1]
        near = sorted((max(lo, min(hi, a)), max(lo, min(hi, b))))
        run(_spread(near[0], near[1], points, integer))
        coef, _ = fit(design)
    cov = fit(design)[1]
    root = _root(coef, target, lo, hi)
    reached = root is not None
    if root is None:  # the end whose fitted share is nearest the target
        ends = {lo: _share(coef, lo), hi: _share(coef, hi)}
        root = min(ends, key=lambda x: abs(ends[x] - target))
    if integer:
        cands = {math.floor(root), math.ceil(root)}
        value: float | int = int(min(cands, key=lambda x: (abs(_share(coef, x) - target), x)))
    else:
        step = 10 ** (math.floor(math.log10(hi - lo)) - 2)
        value = round(round(root / step) * step, 10)
    key = float(value)
    if key not in design:
        run([key])
    res = design[key]
    decisive = sum(d for d, _ in res)
    wins = sum(w for _, w in res)
    interval = None
    if cov is not None and coef[1] != 0.0 and reached:
        # delta method on x* = (logit(t) - b0) / b1
        import numpy as np

        g = np.array([-1.0 / coef[1], -(_logit(target) - coef[0]) / coef[1] ** 2])
        se = float(math.sqrt(max(0.0, g @ cov @ g)))
        interval = (float(root) - 1.96 * se, float(root) + 1.96 * se)
    return Balanced(
        knob=knob,
        value=value,
        reached=reached,
        share=wilson(wins, decisive),
        battles_at_value=len(res),
        battles=sum(len(r) for r in design.values()),
        target=target,
        design={x: (len(r), sum(d for d, _ in r), sum(w for _, w in r)) for x, r in sorted(design.items())},
        coef=coef,
        root_interval=interval,
    )


def _share(coef: tuple[float, float], x: float) -> float:
    z = coef[0] + coef[1] * x
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def _root(coef: tuple[float, float], target: float, lo: float, hi: float) -> float | None:
    """Where the fitted share equals ``target``, if that is inside [lo, hi]."""
    if coef[1] == 0.0:
        return None
    x = (_logit(target) - coef[0]) / coef[1]
    return x if lo <= x <= hi else None


# --------------------------------------------------------------------------- the picture
def plot(result: Balanced, path: Path, title: str = "") -> Path:
    """The observed share per value with Wilson intervals, the fitted curve, target and value (PNG)."""
    import numpy as np

    from game.tools.plots import new_figure, save_figure

    fig = new_figure(7.0, 4.2)
    ax = fig.add_subplot(1, 1, 1)
    xs, ps, los, his = [], [], [], []
    for x, (_, decisive, wins) in result.design.items():
        if decisive:
            w = wilson(wins, decisive)
            xs.append(x)
            ps.append(w.p)
            los.append(w.p - w.lo)
            his.append(w.hi - w.p)
    ax.errorbar(xs, ps, yerr=[los, his], fmt="o", capsize=4, label="observed (95% Wilson)")
    if xs:
        grid = np.linspace(min(result.design), max(result.design), 200)
        ax.plot(grid, [result.fitted(float(g)) for g in grid], "-", label="logistic fit")
    ax.axhline(result.target, color="grey", linestyle="--", linewidth=1, label=f"target {result.target:g}")
    ax.axvline(float(result.value), color="tab:red", linewidth=1, label=f"value {result.value:g}")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(result.knob)
    ax.set_ylabel("first side's share of decisive battles")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return save_figure(fig, path)


__all__ = [
    "Balanced",
    "Knob",
    "check_knob",
    "current_value",
    "fit",
    "is_integer",
    "parse_knob",
    "parse_range",
    "plot",
    "search",
    "variant",
    "with_value",
]
