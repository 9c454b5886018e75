"""The built-in AIs use every GURPS defence mechanic in play, and use it legally.

GURPS battles (``cautious`` against ``aggressive``, both ways round) on every shipped scenario,
three fixed seeds each, are played once for the module; each test finds one mechanic of
shared/rules/gurps-active-defense.txt in the event logs and checks that the events around it
follow the text:

- Retreat: the defender moved straight away from a melee attacker, exactly one yard (at least a
  yard, at most a tenth of Move, which is under 10 yd), ending farther from it, at most
  once until its next turn, not while sitting, kneeling or stunned, with +3 to a Dodge (+1 to a
  parry or block, +3 with a fencing weapon).
- Dodge and drop: only against a ranged attack, +3 to the Dodge, the defender ends prone.
- Acrobatic Dodge: an Acrobatics roll comes first (+2 made, -2 failed), once until the unit's
  next turn, by a unit with the skill.
- Sacrificial Dodge: a friend of the target steps (at most a step) into the line of fire before
  the target defends; if it succeeds it takes the hits, if it fails the target defends; it does
  not retreat until its next turn.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from game.rules.gurps.stats import GurpsStats
from game.scenario.loader import load_scenario
from game.scenario.profiles import resolve_stats
from tests.golden.play import play_log

SCENARIOS = ("duel", "firing-line", "hedgerows", "skirmish-5v5", "street")
SEEDS = (1, 2, 3)
REPO = Path(__file__).resolve().parents[2]
YARD = 1.0  # inches per yard on every shipped scenario (scale: yards_per_inch 1.0)
TOL = 1e-6  # logged positions and lengths are rounded to 6 decimals


@dataclass
class Battle:
    """One battle's events, with the table replayed from them (positions, postures, sides)."""

    name: str
    events: list[dict[str, Any]]
    side: dict[str, str] = field(default_factory=dict)
    stats: dict[str, GurpsStats] = field(default_factory=dict)

    def walk(self) -> Iterator[tuple[int, dict[str, Any], dict[str, tuple[float, float]], dict[str, str]]]:
        """(index, event, positions before it, postures before it) for every event."""
        start = self.events[0]
        pos = {u["id"]: tuple(u["at"]) for u in start["units"]}
        posture = {u["id"]: u["posture"] for u in start["units"]}
        for i, e in enumerate(self.events):
            yield i, e, pos, posture
            unit, to = e.get("unit"), e.get("to")
            if unit is None or to is None:
                continue
            if isinstance(to, list):
                pos = {**pos, unit: (float(to[0]), float(to[1]))}
            elif isinstance(to, str) and e["type"] in ("posture", "drop_prone", "knockdown"):
                posture = {**posture, unit: to}

    def attack_before(self, i: int, attacker: str) -> dict[str, Any]:
        return next(
            e for e in reversed(self.events[:i]) if e["type"] == "attack" and e["attacker"] == attacker
        )

    def weapon_kind(self, attack: dict[str, Any]) -> str:
        return self.stats[attack["attacker"]].weapon(attack["weapon"]).kind


def _battle(scenario: str, seed: int, pols: tuple[str, str]) -> Battle:
    log = play_log(f"scenarios/{scenario}.yaml", "gurps", seed, pols)
    events = [json.loads(line) for line in log.splitlines()]
    start = events[0]
    assert start["ruleset"] == "gurps"
    # Each unit's GURPS block as this scenario resolves it (a scenario may override a profile).
    spec = load_scenario(REPO / "scenarios" / f"{scenario}.yaml", "gurps")
    stats: dict[str, GurpsStats] = {}
    for u in spec.units:
        block = resolve_stats(spec, u, "gurps")
        assert isinstance(block, GurpsStats)
        stats[u.id] = block
    return Battle(
        f"{scenario} seed {seed} {pols[0]}-{pols[1]}",
        events,
        {u["id"]: u["side"] for u in start["units"]},
        {u["id"]: stats[u["id"]] for u in start["units"]},
    )


@pytest.fixture(scope="module")
def battles() -> list[Battle]:
    out = []
    for scenario in SCENARIOS:
        for seed in SEEDS:
            pols = ("cautious", "aggressive") if seed % 2 else ("aggressive", "cautious")
            out.append(_battle(scenario, seed, pols))
    return out


def _mods(e: dict[str, Any]) -> dict[str, int]:
    return {m["source"]: m["value"] for m in e.get("modifiers", [])}


def _since_turn_start(b: Battle, i: int, unit: str) -> list[dict[str, Any]]:
    """The events from ``unit``'s last turn start up to event ``i`` (exclusive)."""
    out: list[dict[str, Any]] = []
    for e in reversed(b.events[:i]):
        if e["type"] == "turn_start" and e["unit"] == unit:
            break
        out.append(e)
    return out[::-1]


def test_retreats_occur_and_move_exactly_one_yard_away(battles: list[Battle]) -> None:
    seen = 0
    for b in battles:
        for i, e, pos, posture in b.walk():
            if e["type"] != "retreat":
                continue
            seen += 1
            unit = e["unit"]
            d = next(x for x in b.events[i + 1 :] if x["type"] == "defence" and x["unit"] == unit)
            assert d["retreat"] and d["retreated"], b.name
            att = pos[d["attacker"]]
            frm, to = tuple(e["from"]), tuple(e["to"])
            assert math.isclose(e["length"], YARD, abs_tol=TOL), (b.name, e)
            assert math.isclose(math.dist(frm, to), YARD, abs_tol=2 * TOL), (b.name, e)
            assert len(e["path"]) == 2, b.name  # straight
            assert math.dist(to, att) > math.dist(frm, att), b.name  # farther from the attacker
            away = (frm[0] - att[0], frm[1] - att[1])
            assert (to[0] - frm[0]) * away[0] + (to[1] - frm[1]) * away[1] >= -TOL, b.name  # within 90°
            assert b.weapon_kind(b.attack_before(i, d["attacker"])) == "melee", b.name
            assert posture[unit] not in ("sitting", "kneeling"), b.name
            earlier = _since_turn_start(b, i, unit)
            assert not any(x["type"] == "retreat" and x["unit"] == unit for x in earlier), b.name
            assert not any(x["type"] == "interpose" and x["unit"] == unit for x in earlier), b.name
            stun = [
                x["on"]
                for x in b.events[:i]
                if x["type"] == "status" and x["unit"] == unit and x["flag"] == "stunned"
            ]
            assert not (stun and stun[-1]), b.name  # not while stunned
            bonus = _mods(d)["retreat"]
            if d["kind"] == "dodge":
                assert bonus == 3, b.name
            elif d["kind"] == "block":
                assert bonus == 1, b.name
            else:
                fencing = b.stats[unit].weapon(d["weapon"]).fencing if d["weapon"] != "bare hands" else False
                assert bonus == (3 if fencing else 1), b.name
    assert seen >= 5, f"only {seen} retreats in {len(battles)} battles"


def test_dodge_and_drop_occurs_against_ranged_attacks_and_leaves_the_dodger_prone(
    battles: list[Battle],
) -> None:
    seen = 0
    for b in battles:
        for i, e, _, posture in b.walk():
            if e["type"] != "defence" or not e.get("drop") or e["kind"] != "dodge":
                continue
            seen += 1
            unit = e["unit"]
            assert posture[unit] not in ("prone", "crawling"), b.name
            assert b.weapon_kind(b.attack_before(i, e["attacker"])) in ("missile", "thrown"), b.name
            assert _mods(e)["dodge and drop"] == 3, b.name
            after = next(x for x in b.events[i + 1 :] if x.get("unit") == unit)
            assert after["type"] == "drop_prone" and after["to"] == "prone", (b.name, after)
    assert seen >= 5, f"only {seen} dodge-and-drops in {len(battles)} battles"


def test_acrobatic_dodges_occur_and_roll_acrobatics_first(battles: list[Battle]) -> None:
    seen = 0
    for b in battles:
        for i, e, _, _ in b.walk():
            if e["type"] != "defence" or not e.get("acrobatic"):
                continue
            seen += 1
            unit = e["unit"]
            assert "Acrobatics" in b.stats[unit].skills, b.name
            attack = next(
                k for k in range(i - 1, -1, -1) if b.events[k]["type"] == "attack"
            )  # this defence's attack
            checks = [
                x
                for x in b.events[attack:i]
                if x["type"] == "check" and x["unit"] == unit and x["purpose"].startswith("Acrobatics roll")
            ]
            assert len(checks) == 1, b.name
            made = checks[0]["success"]
            mods = _mods(e)
            assert mods.get("Acrobatics roll made" if made else "Acrobatics roll failed") == (
                2 if made else -2
            )
            earlier = _since_turn_start(b, i, unit)
            assert not any(
                x["type"] == "defence" and x.get("unit") == unit and x.get("acrobatic") for x in earlier
            ), f"{b.name}: two acrobatic dodges by {unit} in one turn"
    assert seen >= 5, f"only {seen} acrobatic dodges in {len(battles)} battles"


def test_sacrificial_dodges_occur_and_take_the_hit_for_a_friend(battles: list[Battle]) -> None:
    seen = 0
    for b in battles:
        for i, e, _, _ in b.walk():
            if e["type"] != "defence" or e["kind"] != "sacrificial dodge":
                continue
            seen += 1
            unit, friend, attacker = e["unit"], e["protects"], e["attacker"]
            assert b.side[unit] == b.side[friend] != b.side[attacker], b.name
            attack_at = next(k for k in range(i - 1, -1, -1) if b.events[k]["type"] == "attack")
            assert b.events[attack_at]["target"] == friend and b.events[attack_at]["hit"], b.name
            moves = [x for x in b.events[attack_at:i] if x["type"] == "interpose"]
            assert len(moves) == 1 and moves[0]["unit"] == unit, b.name
            assert moves[0]["length"] <= YARD + TOL, b.name  # a step
            # the rest of this attack (up to the next turn command): who defends, who is hit
            rest: list[dict[str, Any]] = []
            for x in b.events[i + 1 :]:
                if x["type"] == "command" and x["decision"] == "turn":
                    break
                rest.append(x)
            hit = {x["unit"] for x in rest if x["type"] in ("damage", "no_penetration")}
            defended = {x["unit"] for x in rest if x["type"] == "defence"}
            if e["success"]:  # the interposer takes the hits (or, dropping by 3+, nobody does)
                assert hit <= {unit}, b.name
                assert not any(
                    x["type"] == "defence" and x["unit"] == friend and x["kind"] != "none" for x in rest
                )
            else:
                assert friend in defended, b.name  # the friend still gets its normal defence
            # no retreat by the interposer until its next turn
            for x in b.events[i + 1 :]:
                if x["type"] == "turn_start" and x["unit"] == unit:
                    break
                assert not (x["type"] == "retreat" and x["unit"] == unit), b.name
    assert seen >= 2, f"only {seen} sacrificial dodges in {len(battles)} battles"


def _enumerated(eff: int) -> float:
    """P(3d6 <= eff) by counting the 216 rolls, 3-4 always succeeding and 17-18 always failing."""
    ok = sum(
        1
        for dice in itertools.product(range(1, 7), repeat=3)
        if sum(dice) <= 4 or (sum(dice) <= 16 and sum(dice) <= eff)
    )
    return ok / 216


def test_logged_odds_match_exact_enumeration(battles: list[Battle]) -> None:
    """Every attack's and every defence's logged ``p_success`` (an Acrobatic Dodge's before its
    Acrobatics roll) is the enumerated chance of its roll."""
    checked = 0
    for b in battles:
        for e in b.events:
            if e["type"] == "attack":
                assert e["p_success"] == pytest.approx(_enumerated(e["eff"]), abs=1e-12), b.name
            elif e["type"] == "defence" and e["kind"] != "none":
                eff = e["eff"]
                if e.get("acrobatic"):
                    mods = _mods(e)
                    made = "Acrobatics roll made" in mods
                    base = eff - (2 if made else -2)
                    pa = _enumerated(b.stats[e["unit"]].skills["Acrobatics"])
                    want = pa * _enumerated(base + 2) + (1 - pa) * _enumerated(base - 2)
                else:
                    want = _enumerated(eff)
                assert e["p_success"] == pytest.approx(want, abs=1e-12), (b.name, e)
            else:
                continue
            checked += 1
    assert checked > 100
