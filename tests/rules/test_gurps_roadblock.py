"""The shipped GURPS content for rules no other scenario plays: scenarios/roadblock.yaml.

Its dispatch riders dodge as vehicles (Vehicular Dodge: half Driving-14 plus Handling +1 is
Dodge 8, the text's own example) and its gunners fire bursts (submachine guns RoF 8, pistols
RoF 3): a successful burst scores one hit plus one per Recoil of margin, and a successful Dodge
avoids one hit plus its margin (all of them on a critical success). Three seeds of the scenario
are played under GURPS (the golden cases) and the logged events are checked against the text.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from game.ai import get_policy
from game.engine.match import Match
from game.engine.view import MatchView
from game.scenario import load_scenario
from tests.golden.play import _log_text, _play, play_log

SEEDS = {1: ("cautious", "aggressive"), 2: ("aggressive", "cautious"), 3: ("random", "cautious")}
BURSTS = {"smg": (8, 3), "pistol": (3, 2)}  # weapon -> (RoF, Recoil), as the scenario writes them


SCENARIO = "scenarios/roadblock.yaml"


@cache
def events(seed: int, options: tuple[tuple[str, Any], ...] = ()) -> list[dict[str, Any]]:
    """The events of seed ``seed`` (the golden case's policies) under GURPS and ``options``."""
    if not options:
        log = play_log(SCENARIO, "gurps", seed, SEEDS[seed])
    else:
        spec = load_scenario(SCENARIO, ruleset="gurps")
        pols = dict(zip(spec.sides, SEEDS[seed]))
        match = Match(spec, ruleset="gurps", seed=seed, options=dict(options), controllers=pols)
        try:
            _play(match, {s: get_policy(p) for s, p in match.controllers.items()}, MatchView)
            log = _log_text(match)
        finally:
            match.close()
    return [json.loads(line) for line in log.splitlines()]


def _all() -> list[dict[str, Any]]:
    return [e for seed in SEEDS for e in events(seed)]


def test_bursts_score_one_hit_plus_one_per_recoil_of_margin() -> None:
    bursts = [e for e in _all() if e["type"] == "attack" and e["weapon"] in BURSTS and e["hit"]]
    assert bursts
    assert any(e["hits"] > 1 for e in bursts), "no burst scored more than one hit"
    for e in bursts:
        rof, recoil = BURSTS[e["weapon"]]
        assert e["hits"] == min(rof, 1 + max(0, e["eff"] - e["roll"]) // recoil)
        assert any(m["source"].startswith("RoF") for m in e["modifiers"]) is (rof >= 5)


def test_a_dodge_avoids_one_hit_plus_its_margin() -> None:
    seen = 0
    evs = _all()
    for i, e in enumerate(evs):
        if e["type"] != "defence" or e.get("kind") != "dodge" or not e["success"]:
            continue
        attack = next(a for a in reversed(evs[:i]) if a["type"] == "attack")
        if attack["hits"] < 2:
            continue
        seen += 1
        want = attack["hits"] if e["critical"] else min(attack["hits"], 1 + max(0, e["margin"]))
        assert e["hits_stopped"] == want
    assert seen, "no dodge against a multi-hit burst"


def test_riders_dodge_as_vehicles() -> None:
    dodges = [
        e for e in _all() if e["type"] == "defence" and e["unit"].endswith("-rider") and e["kind"] == "dodge"
    ]
    assert dodges
    for e in dodges:
        mods = {m["source"]: m["value"] for m in e["modifiers"]}
        assert mods.get("Vehicular Dodge") == 14 // 2 + 1, mods
    others = [
        e
        for e in _all()
        if e["type"] == "defence" and e["kind"] == "dodge" and not e["unit"].endswith("-rider")
    ]
    assert others and all("Vehicular Dodge" not in {m["source"] for m in e["modifiers"]} for e in others)


def test_vehicular_dodge_switched_off_the_riders_dodge_on_foot() -> None:
    for seed in SEEDS:
        got = [
            e
            for e in events(seed, (("vehicular_dodge", False),))
            if e["type"] == "defence" and e["unit"].endswith("-rider") and e["kind"] == "dodge"
        ]
        if got:
            break
    else:
        pytest.fail("no rider dodged with vehicular_dodge off")
    for e in got:
        sources = {m["source"] for m in e["modifiers"]}
        assert "Dodge" in sources and "Vehicular Dodge" not in sources
