"""Rule flows as data: an attack or a maneuver is a stack of frames, not a suspended generator.

Contract:
- A :class:`Frame` names one step of the match's ruleset and carries that step's data: a
  frozen value (numbers, strings, tuples, frozen dataclasses registered with
  :func:`game.core.codec.value`), so a flow in progress can be copied (a clone shares it) and
  written down (a snapshot encodes it). The battle entity's ``FlowStack`` holds the frames.
- A step is a ruleset method registered with :func:`step`; it runs as
  ``step(self, battle, data, answer)`` and returns what happens next:

  * :class:`Ask` ``(builder, args, then)``: the flow waits for a decision, which the ruleset's
    builder (a method registered with :func:`asks`) makes from ``args`` as the battle stands.
    A builder only reads: a clone or a restored snapshot builds the same decision again. The
    chosen command is the ``answer`` of the frame ``then``.
  * :class:`Call` ``(child, then)``: run the frame ``child``; what it returns is the ``answer``
    of ``then`` (``then=None``: of the frame below, a tail call).
  * :class:`Done` ``(value)``, or ``None`` for ``Done(None)``: this frame is over; ``value`` is
    the ``answer`` of the frame below (the flow is over when no frame is left).

  A step does what the generator code between two ``yield``\\ s did: it reads, rolls and acts
  through the ``Battle``, then says what comes next.
- :func:`advance` runs a stack until it asks or ends; :class:`FlowRun` drives one flow like a
  generator (``next``, ``send``), for tests and tools that answer decisions themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from game.core.codec import value

if TYPE_CHECKING:
    from game.core.battle import Battle
    from game.core.commands import Decision


@value("flow.frame")
@dataclass(frozen=True, slots=True)
class Frame:
    """One step of a flow waiting to run: the step's name and its data."""

    step: str
    data: Any = None


@dataclass(frozen=True, slots=True)
class Ask:
    """Wait for the decision ``builder`` makes from ``args``; its answer resumes ``then``.

    ``decision`` may hand over the decision the step already built (to see whether there was
    anything to ask): the very one the builder would make now, so it is not built twice.
    """

    builder: str
    args: Any
    then: Frame
    decision: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Call:
    """Run ``child``; its value resumes ``then`` (``None``: the frame below)."""

    child: Frame
    then: Frame | None = None


@dataclass(frozen=True, slots=True)
class Done:
    """This frame is over; ``value`` goes to the frame below."""

    value: Any = None


Outcome = Ask | Call | Done | None
F = TypeVar("F", bound=Callable[..., Any])


def step(name: str) -> Callable[[F], F]:
    """Register a ruleset method as the step ``name`` (see the module docstring)."""

    def mark(fn: F) -> F:
        fn._flow_step = name  # type: ignore[attr-defined]
        return fn

    return mark


def asks(name: str) -> Callable[[F], F]:
    """Register a ruleset method as the decision builder ``name`` (see :class:`Ask`)."""

    def mark(fn: F) -> F:
        fn._flow_builder = name  # type: ignore[attr-defined]
        return fn

    return mark


def collect(cls: type) -> tuple[dict[str, Callable[..., Any]], dict[str, Callable[..., Any]]]:
    """The steps and builders of ``cls`` and its bases (a subclass's own win), by name."""
    steps: dict[str, Callable[..., Any]] = {}
    builders: dict[str, Callable[..., Any]] = {}
    for klass in reversed(cls.__mro__):
        for attr in vars(klass).values():
            fn = getattr(attr, "__func__", attr)
            name = getattr(fn, "_flow_step", None)
            if name is not None:
                steps[name] = fn
            name = getattr(fn, "_flow_builder", None)
            if name is not None:
                builders[name] = fn
    return steps, builders


class Stepper:
    """What :func:`advance` needs of a ruleset (``game.rules.base.Ruleset`` is one)."""

    def run_step(self, battle: Battle, frame: Frame, answer: Any) -> Outcome:  # pragma: no cover
        raise NotImplementedError

    def ask(self, battle: Battle, builder: str, args: Any) -> Decision:  # pragma: no cover
        raise NotImplementedError


Frames = tuple[Frame, ...]


def advance(rules: Stepper, battle: Battle, frames: Frames, answer: Any) -> tuple[Frames, Ask | None]:
    """Run the top frames of ``frames`` (the top one given ``answer``) until one asks or none is
    left; returns the frames left and the :class:`Ask` (``None``: the flow is over)."""
    while frames:
        top = frames[-1]
        frames = frames[:-1]
        res = rules.run_step(battle, top, answer)
        if res is None:
            answer = None
        elif isinstance(res, Ask):
            return (*frames, res.then), res
        elif isinstance(res, Call):
            frames = (*frames, res.then, res.child) if res.then is not None else (*frames, res.child)
            answer = None
        elif isinstance(res, Done):
            answer = res.value
        else:
            raise TypeError(f"step {top.step!r} returned {res!r}, not Ask, Call, Done or None")
    return (), None


class FlowRun:
    """One flow driven like a generator: ``next(run)`` runs to the first decision, ``run.send(cmd)``
    answers it and runs to the next; ``StopIteration`` when the flow is over."""

    def __init__(self, rules: Stepper, battle: Battle, frame: Frame) -> None:
        self.rules = rules
        self.battle = battle
        self.frames: Frames = (frame,)
        self.started = False

    def __iter__(self) -> FlowRun:
        return self

    def __next__(self) -> Decision:
        return self.send(None)

    def send(self, answer: Any) -> Decision:
        if not self.frames:
            raise StopIteration
        if not self.started:
            self.started, answer = True, None
        self.frames, asking = advance(self.rules, self.battle, self.frames, answer)
        if asking is None:
            raise StopIteration
        got: Decision | None = asking.decision
        return got if got is not None else self.rules.ask(self.battle, asking.builder, asking.args)
