"""The search planner's ``withdraw`` script (game/ai/planner/withdraw.py): it gets out of sight."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from game.ai.planner.withdraw import cover_points, withdraw_policy
from game.core.commands import EndTurn, Move, find_option
from game.rules import RULESET_NAMES
from game.tools.batch import load_spec
from game.tools.invariants import check
from game.tools.session import HUMAN, Session, Setup

ROOT = Path(__file__).resolve().parents[2]
SPRINT = ROOT / "tests" / "fixtures" / "scenarios" / "sprint.yaml"


def _guard_first_turn(s: Session) -> None:
    for _ in range(40):
        d = s.match.pending
        assert d is not None
        if d.kind == "turn" and d.unit == "guard":
            return
        s.apply(EndTurn(d.unit) if d.kind == "turn" else d.options[0].command)


def test_cover_points_hug_the_obstacles_within_reach():
    """Around the wall's corners and along its sides, a base and a gap out, outside the wall."""
    spec = load_spec(str(SPRINT), "cortex")
    with Session.start(spec, Setup(ruleset="cortex", seed=1), HUMAN) as s:
        v = s.view
        pts = cover_points(v, (6.0, 9.0), 0.5, 4.0)
        assert len(pts) and (np.hypot(pts[:, 0] - 6.0, pts[:, 1] - 9.0) <= 4.0).all()
        # outside the wall (x 4-5, y 0-8.5) by the base and the gap, to the nearest point of it
        dx = np.maximum(0.0, np.maximum(4.0 - pts[:, 0], pts[:, 0] - 5.0))
        dy = np.maximum(0.0, pts[:, 1] - 8.5)
        assert (np.hypot(dx, dy) >= 0.65 - 1e-5).all()
        near_edge = np.isclose(np.hypot(dx, dy), 0.65, atol=1e-5)
        assert near_edge.sum() >= len(pts) // 2  # most hug the wall itself
        assert ((pts[:, 0] < 4.0) & (pts[:, 1] < 8.5)).any()  # its west face: the crossbows' lee
        assert len(cover_points(v, (14.0, 6.0), 0.5, 1.0)) == 0  # no obstacle within reach


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_declares_a_run_and_gets_behind_the_wall(seed):
    """Out of sight is 11.4" of path away: beyond a hustle, within a run at its expected roll, so
    the script declares two actions (the fewest whose movement gets there), then runs to the
    wall's lee: out of every crossbowman's sight where the rolled run reaches (seeds 1 and 3:
    11.7" and 12.3"), in the wall's partial cover where it falls short (seed 2: 10.7")."""
    spec = load_spec(str(SPRINT), "cortex")
    with Session.start(spec, Setup(ruleset="cortex", seed=seed), HUMAN) as s:
        _guard_first_turn(s)
        rng = np.random.default_rng(0)
        d = s.match.pending
        cmd = withdraw_policy(s.view, d, rng)
        find_option(d, cmd)
        assert getattr(cmd, "name", None) == "declare:2", cmd
        s.apply(cmd)
        d = s.match.pending
        cmd = withdraw_policy(s.view, d, rng)
        find_option(d, cmd)
        assert isinstance(cmd, Move) and cmd.to[0] < 5.0, cmd
        s.apply(cmd)
        cover = [s.view.sight(e, "guard").cover_fraction for e in ("bolt-1", "bolt-2", "bolt-3")]
        if seed == 2:
            assert sum(cover) > 0.5 and min(cover) < 1.0, cover
        else:
            assert cover == [1.0, 1.0, 1.0], cover


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
def test_legal_in_every_ruleset(ruleset):
    """Both sides played by ``withdraw`` on the 5v5 (its reactions are ``cautious``'s): every
    command it gives is one of the decision's options, the invariants hold after each."""
    spec = load_spec(str(ROOT / "scenarios" / "skirmish-5v5.yaml"), ruleset)
    with Session.start(spec, Setup(ruleset=ruleset, seed=5), HUMAN) as s:
        rng = np.random.default_rng(5)
        for _ in range(120):
            d = s.match.pending
            if d is None or s.match.outcome is not None:
                break
            cmd = withdraw_policy(s.view, d, rng)
            find_option(d, cmd)
            s.apply(cmd)
            check(s.match)
