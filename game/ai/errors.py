"""The errors a policy name or a user policy can cause (all :class:`~game.core.errors.SkirmishError`:
one line, exit 2 from the CLI).

Contract: :class:`PolicyOptionError` (an option the policy does not take, or a bad value),
:class:`PolicyLoadError` (a user policy that cannot be loaded: the message is located in the
user's code) and :class:`PolicyFailed` (a user policy that raised, or returned no legal
command, during a match). ``game.ai`` and ``game.ai.loader`` both raise them; this module
imports neither, so neither imports the other to name them.
"""

from __future__ import annotations

from game.core.errors import SkirmishError, UnknownName


class PolicyOptionError(UnknownName):
    """A policy option the policy does not take, or a bad value for one."""


class PolicyLoadError(SkirmishError):
    """A user policy could not be loaded; the message is located in the user's code."""


class PolicyFailed(SkirmishError):
    """A user policy raised, or returned no legal command, during a match."""
