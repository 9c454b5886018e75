"""AI policies, registered by name, with options.

Contract: a policy is a callable ``policy(view, decision, rng) -> command``
that sees only a read-only :class:`~game.engine.view.MatchView`, the pending
:class:`~game.core.commands.Decision` (its options are the legal commands) and an
injected ``numpy.random.Generator``; it must return a legal command. Policies
answer every kind of decision: turns and reactions (defence, retreat point,
dodge move, interposition, follow).

A policy may take options (``--policy-option POLICY.KEY=VALUE``): it then registers a factory
``"module:function"`` whose keyword arguments are the options (:func:`register` with
``factory=``). :func:`get_policy(name, **options) <get_policy>` returns the registered policy
itself when no option is given, else what the factory makes of the options; bad options raise
:class:`PolicyOptionError` with one line naming the policy and the key.

A *user policy* is named by a spec instead of a name: ``path/to/file.py:function`` or
``package.module:function`` (:mod:`game.ai.loader`; a class is made with the options as keyword
arguments). :func:`get_policy` loads it, so every caller that takes a policy name takes a spec
too; :func:`check_policy` checks a name or spec without making a policy. :func:`policy_names`
lists the registered names only: scenario files, logs and saves never load a user's code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from game.ai.errors import PolicyOptionError
from game.core.commands import Command, Decision
from game.core.errors import UnknownName
from game.engine.view import MatchView

__all__ = [
    "Policy",
    "PolicyOptionError",
    "check_policy",
    "describe",
    "get_policy",
    "is_policy_spec",
    "policy_names",
    "register",
    "takes_options",
]

Policy = Callable[[MatchView, Decision, np.random.Generator], Command]

_REGISTRY: dict[str, str] = {
    "random": "game.ai.random_policy:random_policy",
    "aggressive": "game.ai.aggressive:aggressive_policy",
    "cautious": "game.ai.cautious:cautious_policy",
    "planner": "game.ai.planner.search:planner_policy",
    "planner1": "game.ai.planner.onestep:planner_policy",
}

#: Policies that take options: name -> ``"module:function"`` of the factory ``(**options) -> Policy``.
_FACTORIES: dict[str, str] = {
    "planner": "game.ai.planner.search:make_planner",
    "planner1": "game.ai.planner.onestep:make_planner",
}


#: How each registered policy plays and how strong it is, one line each (``skirmish play --help``;
#: strengths as measured in docs/ai.md: a round robin of 600 battles and the planner's benchmark).
STRENGTH: dict[str, str] = {
    "random": "any legal choice at random; the weakest by far (3% of its decisive battles won)",
    "aggressive": "closes in and attacks where its odds are best; about as strong as cautious",
    "cautious": "fights from cover, advances only to a better spot; about as strong as aggressive",
    "planner": "searches: plays its candidate plans and reactions forward through clones of the match "
    "with sampled dice and replies (W shows the lines and their values); the strongest (65% of "
    "decisive battles against cautious, 60% against aggressive, 54% against planner1: 400 "
    "battles each on fresh seeds)",
    "planner1": "weighs every plan with a one-ply position evaluator; narrowly stronger than cautious "
    "(55% of decisive battles won against cautious and against aggressive)",
}


#: Each registered policy's strength in two words (``skirmish play`` says it at the start).
RANK: dict[str, str] = {
    "random": "the weakest",
    "aggressive": "middling",
    "cautious": "middling",
    "planner": "the strongest (and the costliest)",
    "planner1": "strong",
}


def describe(name: str) -> str:
    """One line on how policy ``name`` plays and how strong it is ('' for one not described)."""
    return STRENGTH.get(name, "")


#: The pydantic model of each factory's options (``"module:Class"``), for listing them.
_OPTION_MODELS: dict[str, str] = {
    "planner": "game.ai.planner.search:SearchOptions",
    "planner1": "game.ai.planner.onestep:PlannerOptions",
}


def register(name: str, target: str, factory: str | None = None) -> None:
    """Register ``"module:function"`` under ``name`` (and the factory of its options, if any)."""
    _REGISTRY[name] = target
    if factory is not None:
        _FACTORIES[name] = factory
    else:
        _FACTORIES.pop(name, None)


def policy_names() -> list[str]:
    import importlib.util

    return [n for n, t in _REGISTRY.items() if importlib.util.find_spec(t.partition(":")[0]) is not None]


def _load(target: str) -> Any:
    import importlib

    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def get_policy(name: str, **options: Any) -> Policy:
    """The policy registered as ``name``, made with ``options`` if any are given.

    ``name`` may be a user policy's spec (``file.py:function``, ``module:function``): see
    :mod:`game.ai.loader`.

    Raises:
        UnknownName: no policy of that name (the message lists the valid ones).
        PolicyOptionError: the policy takes no options, or not these (one line: policy, key, why).
        PolicyLoadError: a user policy that cannot be loaded (one line in the user's code).
    """
    from game.ai import loader

    if loader.is_policy_spec(name):
        return loader.make_policy(name, **options)
    if name not in policy_names():
        raise UnknownName(f"unknown AI policy {name!r}; choose one of {', '.join(policy_names())}")
    if not options:
        fn: Policy = _load(_REGISTRY[name])
        return fn
    factory = _FACTORIES.get(name)
    if factory is None:
        raise PolicyOptionError(f"policy {name!r} takes no options (given: {', '.join(sorted(options))})")
    from pydantic import ValidationError

    try:
        made: Policy = _load(factory)(**options)
    except ValidationError as e:
        model = _OPTION_MODELS.get(name)
        if model is not None:  # the option at fault, then every option with its type and bounds
            from game.rules.options import option_problem

            raise PolicyOptionError(option_problem(f"policy {name}", _load(model), e)) from None
        err = e.errors()[0]
        key = ".".join(str(x) for x in err.get("loc", ())) or "?"
        raise PolicyOptionError(f"policy {name}: option {key}: {err.get('msg')}") from None
    except TypeError as e:
        raise PolicyOptionError(f"policy {name}: {e}") from None
    return made


def is_policy_spec(name: str) -> bool:
    """Whether ``name`` is a user policy's spec (``file.py:function``, ``module:function``)."""
    from game.ai.loader import is_policy_spec as spec

    return spec(name)


def check_policy(name: str) -> None:
    """Check that ``name`` is a registered policy or a user policy's spec that loads (loading it).

    Raises:
        UnknownName: neither (the message lists the registered names).
        PolicyLoadError: a user policy that cannot be loaded (one line in the user's code).
    """
    from game.ai import loader

    if loader.is_policy_spec(name):
        loader.load_target(name)
    elif name not in policy_names():
        raise UnknownName(
            f"unknown AI policy {name!r}; choose one of {', '.join(policy_names())}, "
            "or your own: FILE.py:FUNCTION"
        )


def takes_options(name: str) -> bool:
    """Whether the policy registered (or the user policy specified) as ``name`` takes options."""
    from game.ai import loader

    if loader.is_policy_spec(name):
        return loader.takes_options(name)
    return name in _FACTORIES
