"""A hypothesis state machine drives matches with random commands and checks every invariant after each step.

For every ruleset (issue 8, part 1): options and their free points are drawn by hypothesis
(legal points sampled inside an option's region, and raw points anywhere on or off the
table); a legal command must be accepted, an illegal one refused without any change, and
:func:`game.tools.invariants.check` must come back empty after every step. Few examples per
ruleset keep it short; the soak covers volume.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from game.ai.points import choose_point
from game.core.commands import Option, matches
from game.core.errors import IllegalCommand
from game.engine.match import Match
from game.scenario import load_scenario
from game.tools.invariants import check
from tests.engine.conftest import make_spec
from tests.robustness.conftest import RULESETS, SCENARIOS

#: Scenario each ruleset is driven on: small, with obstacles, varied across rulesets.
SCENARIO_FOR = {
    "gurps": "duel.yaml",
    "defence-dice": "street.yaml",
    "cortex": "hedgerows.yaml",
    "aff": "duel.yaml",
    "ap-pool": "firing-line.yaml",
}


def _point(data: st.DataObject, opt: Option, width: float, height: float) -> Any:
    """A value for the option's free field: usually a legal point, sometimes any point."""
    if opt.region is None:  # a free number (Face.degrees)
        return data.draw(st.floats(-720, 720, allow_nan=False), label="degrees")
    if data.draw(st.integers(0, 3), label="legal?") > 0:
        rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="sample seed"))
        p = choose_point(opt, rng, n=16)
        if p is not None:
            return p
    x = data.draw(st.floats(-1.0, width + 1.0), label="x")
    y = data.draw(st.floats(-1.0, height + 1.0), label="y")
    return (x, y)


class MatchMachine(RuleBasedStateMachine):
    """Subclassed once per ruleset (``ruleset``, ``spec``)."""

    ruleset = "test-simple"
    spec: Any = None

    def __init__(self) -> None:
        super().__init__()
        self.match: Match | None = None
        self.steps = 0

    @initialize(seed=st.integers(0, 2**31 - 1))
    def start(self, seed: int) -> None:
        self.match = Match(self.spec, ruleset=self.ruleset, seed=seed)

    def _snapshot(self) -> tuple[Any, ...]:
        m = self.match
        assert m is not None
        return (m.state_hash(), len(m.log), len(m.commands), m.rng.bit_generator.state)

    @precondition(lambda self: self.match is not None and self.match.outcome is None)
    @rule(data=st.data())
    def choose_option(self, data: st.DataObject) -> None:
        m = self.match
        assert m is not None and m.pending is not None
        opt = data.draw(st.sampled_from(m.pending.options), label="option")
        cmd = (
            opt.with_point(_point(data, opt, m.spec.width, m.spec.height)) if opt.point_field else opt.command
        )
        if matches(opt, cmd) is None:
            m.apply(cmd)  # legal: must be accepted
            self.steps += 1
        else:
            before, decision = self._snapshot(), m.pending
            try:
                m.apply(cmd)
            except IllegalCommand:
                assert self._snapshot() == before and m.pending is decision
            else:
                # Another option of the decision may accept the same command (e.g. a point
                # that one retreat option refuses and a plain move allows): that is legal.
                self.steps += 1

    @precondition(lambda self: self.match is not None and self.match.outcome is None)
    @rule(unit=st.text(max_size=6), x=st.floats(allow_nan=True), y=st.floats(allow_nan=True))
    def stray_command(self, unit: str, x: float, y: float) -> None:
        """A command for someone else, or to a nonsense point: refused, nothing changes."""
        from game.core.commands import Move

        m = self.match
        assert m is not None and m.pending is not None
        cmd = Move(unit if unit != m.pending.unit else unit + "?", (x, y))
        before = self._snapshot()
        try:
            m.apply(cmd)
        except IllegalCommand:
            pass
        else:  # pragma: no cover - the assertion explains
            raise AssertionError(f"{cmd} was accepted")
        assert self._snapshot() == before

    @precondition(lambda self: self.match is not None and self.match.outcome is not None)
    @rule(seed=st.integers(0, 2**31 - 1))
    def next_match(self, seed: int) -> None:
        assert self.match is not None
        self.match.close()
        self.match = Match(self.spec, ruleset=self.ruleset, seed=seed)

    @invariant()
    def sound(self) -> None:
        if self.match is not None:
            broken = check(self.match)
            assert broken == [], "\n".join(broken)

    def teardown(self) -> None:
        if self.match is not None:
            self.match.close()


def _machine(ruleset: str) -> type[MatchMachine]:
    if ruleset == "test-simple":
        spec = make_spec()
    else:
        spec = load_scenario(SCENARIOS / SCENARIO_FOR[ruleset], ruleset=ruleset)
    return type(f"Machine_{ruleset.replace('-', '_')}", (MatchMachine,), {"ruleset": ruleset, "spec": spec})


@pytest.mark.parametrize("ruleset", [*RULESETS, "test-simple"])
def test_random_legal_play_keeps_every_invariant(ruleset: str) -> None:
    machine = _machine(ruleset)
    run = machine.TestCase
    run.settings = settings(
        max_examples=10,
        stateful_step_count=60,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    run().runTest()
