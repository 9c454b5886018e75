"""The searching ``planner`` (game/ai/planner/search.py): registered, legal, deterministic, and
its clones never touch the real match or read its coming dice."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from game.ai import get_policy
from game.ai.planner.search import SearchPlanner, material, planner_policy
from game.core.commands import find_option
from game.engine.view import MatchView
from game.tools.batch import load_spec
from game.tools.session import HUMAN, Session, Setup

ROOT = Path(__file__).resolve().parents[2]


def test_registered_as_planner_and_planner1_kept() -> None:
    assert get_policy("planner") is planner_policy
    assert isinstance(get_policy("planner", budget=8), SearchPlanner)
    assert type(get_policy("planner1")).__name__ == "Planner"


def test_fork_has_its_own_dice_and_leaves_the_match_alone() -> None:
    spec = load_spec(str(ROOT / "scenarios" / "duel.yaml"), "gurps")
    with Session.start(spec, Setup(ruleset="gurps", seed=5), HUMAN) as s:
        m = s.match
        before = (m.state_hash(), m.log.count if hasattr(m.log, "count") else len(m.log.events))
        a, b, c = s.view.fork(1), s.view.fork(1), s.view.fork(2)
        ga, gb, gc = a.rng.integers(0, 2**30, 4), b.rng.integers(0, 2**30, 4), c.rng.integers(0, 2**30, 4)
        assert list(ga) == list(gb) and list(ga) != list(gc)
        real = m.clone().rng.integers(0, 2**30, 4)
        assert list(real) != list(ga)  # the search never samples the real match's next rolls
        for x in (a, b, c):
            x.close()
        after = (m.state_hash(), m.log.count if hasattr(m.log, "count") else len(m.log.events))
        assert before == after


def _play(seed: int) -> list[str]:
    spec = load_spec(str(ROOT / "scenarios" / "duel.yaml"), "ap-pool")
    policy = get_policy("planner", budget=12)
    cautious = get_policy("cautious")
    out = []
    with Session.start(spec, Setup(ruleset="ap-pool", seed=seed), HUMAN) as s:
        m = s.match
        for _ in range(30):
            d = m.pending
            if m.outcome is not None or d is None:
                break
            mine = m.side(d.unit) == spec.sides[0]
            cmd = (policy if mine else cautious)(s.view, d, m.ai_rng)
            find_option(d, cmd)  # legal: raises if not
            s.apply(cmd)
            out.append(repr(cmd))
    return out


def test_deterministic_for_a_seed() -> None:
    assert _play(3) == _play(3)


def test_material_counts_friends_plus_enemies_minus() -> None:
    spec = load_spec(str(ROOT / "scenarios" / "skirmish-5v5.yaml"), "gurps")
    with Session.start(spec, Setup(ruleset="gurps", seed=1), HUMAN) as s:
        v = MatchView(s.match)
        a, b = spec.sides[0], spec.sides[1]
        assert material(v, a) == -material(v, b)
        assert np.isclose(material(v, a), 0.0)  # equal sides, untouched


def test_no_search_where_the_scripts_agree(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Where every script of the portfolio gives the same command it is played without a clone;
    where they disagree, the candidates are played forward through clones."""
    spec = load_spec(str(ROOT / "scenarios" / "duel.yaml"), "gurps")
    forks: list[int] = []
    real_fork = MatchView.fork

    def counting_fork(self: MatchView, seed: int, *, synced: bool = False):  # type: ignore[no-untyped-def]
        forks.append(seed)
        return real_fork(self, seed, synced=synced)

    monkeypatch.setattr(MatchView, "fork", counting_fork)
    with Session.start(spec, Setup(ruleset="gurps", seed=2), HUMAN) as s:
        d = s.match.pending
        assert d is not None and len(d.options) > 1
        plain = [o.command for o in d.options if o.point_field is None]
        assert len(plain) > 1
        first, other = plain[0], plain[-1]
        agree = SearchPlanner()
        agree._scripts = [("a", lambda v, dd, r: first), ("b", lambda v, dd, r: first)]
        assert agree(s.view, d, np.random.default_rng(0)) == first
        assert forks == []
        differ = SearchPlanner()
        differ._scripts = [("a", lambda v, dd, r: first), ("b", lambda v, dd, r: other)]
        differ(s.view, d, np.random.default_rng(0))
        assert len(forks) >= 2 * differ.options.samples
