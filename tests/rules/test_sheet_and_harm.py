"""What the rules tell a player: each ruleset's unit sheet, and the expected harm its attack and
defence options carry (``expected_harm``, ``expected_harm_without``), checked against the rules
themselves in played battles under every ruleset."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from game.core.commands import Attack, Defend
from game.engine.view import MatchView
from game.rules import RULESET_NAMES
from game.rules.ap_pool.ruleset import dodged_wounds, expected_wounds
from game.rules.sheet import DiceReading
from game.scenario import load_scenario
from game.tools.session import Session, Setup

REPO = Path(__file__).resolve().parents[2]


def _session(ruleset: str, seed: int = 1, scenario: str = "duel") -> Session:
    spec = load_scenario(REPO / "scenarios" / f"{scenario}.yaml", ruleset)
    players = {"red": "aggressive", "blue": "cautious"}
    return Session(Setup(ruleset=ruleset, seed=seed, controllers=players).build(spec), players)


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
def test_every_unit_has_a_sheet_the_rules_agree_with(ruleset: str) -> None:
    s = _session(ruleset)
    view = MatchView(s.match)
    for u in view.units():
        sheet = view.sheet(u.id)
        stats = s.match.stats(u.id)
        assert [w.name for w in sheet.weapons] == [w.name for w in stats.weapons]
        cost = view.action_costs(u.id).get("attack")
        for w in sheet.weapons:
            assert w.reach > 0 and w.damage and w.kind
            assert cost is None or w.ap == cost
            assert w.edge_to_edge == (w.kind == "melee")
            assert list(w.bands) == sorted(w.bands, key=lambda b: b.upto)
            if w.bands:
                assert w.bands[-1].upto == pytest.approx(w.reach)
        tracks = dict(u.health)
        assert sheet.harm and all(h.track in tracks and 0 <= h.left <= h.of for h in sheet.harm)
        assert sheet.defences and sheet.protection
    s.close()


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
def test_every_attack_and_defence_is_priced_in_harm_while_a_battle_plays(ruleset: str) -> None:
    """Through a whole AI battle: every attack option carries expected harm on the target's health
    tracks, none without a chance to hurt and some with one; every defence option against a hit
    carries the harm with it and without it (the free choice's), never more than without."""
    s = _session(ruleset, seed=2)
    m = s.match
    attacks = defences = 0
    while m.outcome is None and s.applied < 600:
        d = m.pending
        for o in d.options:
            harm = (o.detail or {}).get("expected_harm")
            if isinstance(o.command, Attack):
                attacks += 1
                target_tracks = dict(m.health(o.command.target).tracks)
                assert harm and set(harm) <= set(target_tracks) and all(v >= 0 for v in harm.values())
                if o.detail["p_hurt"] <= 0:
                    assert sum(harm.values()) == pytest.approx(0, abs=1e-9)
                else:
                    assert sum(harm.values()) > 0
            elif d.kind == "defence" and harm is not None:
                defences += 1
                without = o.detail["expected_harm_without"]
                assert set(harm) == set(without)
                assert all(harm[k] <= without[k] + 1e-9 for k in harm)
        s.step()
    assert attacks > 0
    if ruleset != "defence-dice":  # its defence dice are rolled, not chosen: a decision is rare
        assert defences > 0
    s.close()


def test_ap_pool_expected_wounds_match_every_roll_of_the_dice() -> None:
    """The expected wounds of an attack, counted over every face of every die (small pools)."""
    for pool, dodge, damage, armour, reduces in itertools.product(
        (1, 2, 3), (0, 1, 2), (1, 2), (0, 1), (False, True)
    ):
        total = 0.0
        for faces in itertools.product(range(1, 7), repeat=pool):
            a = sum(f >= 5 for f in faces)
            if a == 0:
                continue
            if dodge == 0:
                total += max(0, damage + a - 1 - armour)
                continue
            for dfaces in itertools.product(range(1, 7), repeat=dodge):
                d = sum(f >= 5 for f in dfaces)
                if d >= a:
                    continue  # the dodge avoids it
                net = a - d if reduces else a
                total += max(0, damage + net - 1 - armour) / 6**dodge
        exact = total / 6**pool
        assert expected_wounds(pool, dodge, damage, armour, reduces) == pytest.approx(exact)
    assert dodged_wounds(3, 0, 2, 1) == 3  # no dodge: damage + extra successes - armour


def test_a_gurps_defence_spares_its_chance_of_the_harm_of_a_single_hit() -> None:
    s = _session("gurps", seed=9)
    m = s.match
    seen = 0
    while m.outcome is None and s.applied < 400:
        d = m.pending
        if d.kind == "defence" and d.context.get("hits") == 1:
            for o in d.options:
                if isinstance(o.command, Defend) and o.command.kind != "none" and o.point_field is None:
                    without = o.detail["expected_harm_without"]["hp"]
                    assert o.detail["expected_harm"]["hp"] == pytest.approx((1 - o.p_success) * without)
                    seen += 1
        s.step()
    assert seen > 0
    s.close()


def test_dice_readings_count_faces_as_the_rules_do() -> None:
    assert DiceReading().read([1, 2, 5]) == "1+2+5 = 8"
    assert DiceReading().read([4]) == "4"
    assert DiceReading("faces").read([3, 7, 9]) == "3, 7, 9"
    assert DiceReading("successes", 5).read([6, 1, 4, 5, 2]) == "6, 1, 4, 5, 2: 2 successes (5s and up count)"
    assert DiceReading("successes", 5).read([5]).endswith("1 success (5s and up count)")
