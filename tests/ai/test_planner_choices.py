"""The planner's structural choices: how far it assumes each enemy shoots, what a defence stops
and costs, and what a setup maneuver gives up.

Short battles on shipped maps (a few dozen commands each); the values are checked against the
formulas docs/ai.md states, so a change to one of them fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from game.ai import tactics as t
from game.ai.planner import evaluate as ev
from game.ai.planner import onestep as pl
from game.ai.planner import react as pr
from game.ai.planner.facts import log_facts
from game.core.commands import Maneuver
from game.tools.batch import load_spec
from game.tools.session import HUMAN, Session, Setup

ROOT = Path(__file__).resolve().parents[2]


def _session(scenario: str, ruleset: str, players=None) -> Session:
    spec = load_spec(str(ROOT / "scenarios" / f"{scenario}.yaml"), ruleset)
    return Session.start(spec, Setup(ruleset=ruleset, seed=1), players or HUMAN)


def test_an_enemy_reaches_as_far_as_its_kind_was_seen_to_attack():
    """An enemy's range is the unit's own estimate, or the longest attack its side and profile
    were seen to make, whichever is farther."""
    with _session("skirmish-5v5", "cortex", {"red": "cautious", "blue": "cautious"}) as s:
        for _ in range(200):
            s.play(steps=1)
            facts = log_facts(s.view)
            if facts.profile_reach and s.match.pending is not None:
                break
        facts = log_facts(s.view)
        assert facts.profile_reach
        d = s.match.pending
        b = ev.board(s.view, d, d.unit, 6.0)
        for i, e in enumerate(b.enemies):
            seen = facts.profile_reach.get((facts.side_of[e], facts.profile_of[e]), 0.0)
            assert b.erange[i] == max(b.range_est, seen)


def test_a_defence_is_worth_the_hit_it_stops_less_its_ap():
    """An ap-pool dodge scores its exact chance times the worth of the attacker's hit, less the
    price of the AP it spends (what they would otherwise buy: game.ai.planner.reserve); no dodge
    scores 0."""
    checked = 0
    with _session("skirmish-5v5", "ap-pool") as s:
        for _ in range(600):
            d = s.match.pending
            if d is None or checked >= 4:
                break
            if d.kind == "defence":
                cmd, weighed = pr.react(s.view, d, s.match.ai_rng)
                stake = pr.hit_worth(s.view, d.unit, d.context.get("attacker"))
                price = pr.ap_pricer(s.view, d.unit, d.context.get("attacker"))
                values = {c.label: c.value for c in weighed}
                for o in d.options:
                    ap = int((o.detail or {}).get("ap", 0))
                    want = float(o.p_success or 0.0) * stake - (price(ap) if ap else 0.0)
                    assert values[o.label] == pytest.approx(want, abs=1e-9)
                checked += 1
            else:
                cmd = pl.planner_policy(s.view, d, s.match.ai_rng)
            s.apply(cmd)
    assert checked


def test_a_defence_stops_the_worth_of_the_attackers_hit():
    """A hit is worth :func:`game.ai.planner.evaluate.loss` of the attacker's kind's hit share at the unit's
    health; an unknown attacker hits for the default share."""
    with _session("skirmish-5v5", "ap-pool", {"red": "cautious", "blue": "cautious"}) as s:
        s.play(steps=30)
        uid = s.view.units()[0].id
        b = ev.board(s.view, None, uid, 6.0)
        e = b.enemies[0]
        assert pr.hit_worth(s.view, uid, e) == pytest.approx(float(ev.loss(b.health, b.enemy_share[0])))
        assert pr.hit_worth(s.view, uid, None) == pytest.approx(float(ev.loss(b.health, ev.DEFAULT_SHARE)))
        assert pr.action_worth(0.0) == pr.MIN_ACTION and pr.action_worth(0.5) == 0.5


def test_a_setup_pays_only_by_its_gain_over_the_best_attack_now():
    """An aim is valued at SETUP_DISCOUNT × (promised attack − best attack now) over ending the
    turn where the unit stands (it gives up this turn's attack)."""
    checked = 0
    with _session("hedgerows", "gurps", {"red": "planner1", "blue": "planner1"}) as s:
        for _ in range(400):
            d = s.match.pending
            if d is None or checked >= 3:
                break
            aims = [o for o in d.options if isinstance(o.command, Maneuver) and t.next_turn_attack(d, o)]
            attacks = t.attacks(d)
            if d.kind == "turn" and aims and attacks and t.find(d, pl.EndTurn) is not None:
                _, weighed, _ = pl.plan_turn(s.view, d, s.match.ai_rng, pl.DEFAULT_BUDGET)
                values = {c.label: c.value for c in weighed}
                if "end turn" in values:
                    best = max(ev.attack_gain(s.view, o) for o in attacks)
                    for o in aims:
                        promised = ev.attack_gain(s.view, t.next_turn_attack(d, o))
                        want = values["end turn"] + pl.SETUP_DISCOUNT * (promised - best)
                        assert values[f"maneuver {o.label}"] == pytest.approx(want, abs=1e-9)
                        checked += 1
            s.play(steps=1)
    assert checked
