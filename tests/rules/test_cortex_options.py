"""Cortex rule numbers as options: every numeric option and every switch reaches the rules.

Each numeric option of :class:`~game.rules.cortex.options.CortexOptions` has a probe in
``PROBES``: a small situation (FakeBattle, scripted dice) whose observable outcome (a cost, a
tier, a Difficulty, a modifier, a roll's Difficulty) is computed under the default options and
under another value, and must differ. ``test_every_numeric_option_has_a_probe`` fails when an
option is added without one; the switches have the same check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from components.sight import CoverLevel
from components.spatial import Posture
from game.rules.cortex.damage import DYING
from game.rules.cortex.odds import answer
from game.rules.cortex.options import CortexOptions
from game.rules.cortex.state import note
from game.rules.cortex.stats import TROOPER
from game.rules.options import describe
from tests.rules.test_cortex import duel, option, script

Probe = Callable[[dict[str, Any]], Any]


def _bonus(cover: CoverLevel | None = None, **extra: Any) -> Probe:
    def probe(opts: dict[str, Any]) -> Any:
        r, b = duel(**{**extra, **opts})
        if cover is not None:
            b.set_sight("a", "t", cover=cover)
        return option(r, b, "crossbow").detail["difficulty_bonus"]

    return probe


def _range_mods(gap: float) -> Probe:
    def probe(opts: dict[str, Any]) -> Any:
        r, b = duel(gap_in=gap, **opts)
        return [(m.source, m.value) for m in option(r, b, "crossbow").modifiers]

    return probe


def _tiers(opts: dict[str, Any]) -> Any:
    r, b = duel(actions=(3, 1), **opts)
    return r.move_tiers(b, "a")


def _expected_tiers(opts: dict[str, Any]) -> Any:
    r, b = duel(actions=(None, 1), **opts)
    return r.expected_move_tiers(b, "a", 3)


def _checks(kind: str) -> Probe:
    """Two rolls to stay conscious (or alive) in a row: their Difficulties."""

    def probe(opts: dict[str, Any]) -> Any:
        r, b = duel(**opts)
        script(b, [1] * 8)
        roll = r._conscious_roll if kind == "conscious" else r._dying_roll
        roll(b, "t")
        b.u["t"].health = replace(b.u["t"].health, status=frozenset())  # up again for the next roll
        roll(b, "t")
        return [e["difficulty"] for e in b.events if e["type"] == "check"]

    return probe


def _serious(opts: dict[str, Any]) -> Any:
    r, b = duel(**opts)
    h = b.u["a"].health
    b.u["a"].health = replace(h, tracks={**h.tracks, "wounds": h.maxima["wounds"] // 2})
    return [(m.source, m.value) for m in r.action_steps(b, "a", 0)]


def _minute(opts: dict[str, Any]) -> Any:
    r, b = duel(**opts)
    script(b, [6] * 8)
    b.set_status("t", DYING, True, "test")
    note(b, "dying_since", "t", 1)
    b.round = 6
    r.minute_rolls(b)
    return [e["kind"] for e in b.events if e["type"] == "check"]


def _static(opts: dict[str, Any]) -> Any:
    r, b = duel(**opts)
    b.set_posture("t", Posture.PRONE)
    w = b.stats("a").weapon("short sword")
    return r.defences(b, "t", "a", w, b.sight("a", "t"), 0, [])[0].fixed


def _aod(opts: dict[str, Any]) -> Any:
    r, b = duel(actions=(None, None), **opts)
    return [(m.source, m.value) for m in r.maneuver_options(b, "a")[-1].modifiers]


def _spread(opts: dict[str, Any]) -> Any:
    r, b = duel(gap_in=1.0, **{"visibility": "pitch_black", **opts})
    b.add("u", "blue", (1.0, 4.0), facing=180.0)  # 4 yd from t: an edge gap of 3 yd
    return r.potential_targets(b, "a", "t", b.stats("a").weapon("crossbow"))


def _point_blank_yards(opts: dict[str, Any]) -> Any:
    r, b = duel(**opts)
    return r.range_band(b, b.stats("a").weapon("crossbow"), 5.0)


def _extra_steps(opts: dict[str, Any]) -> Any:
    r, b = duel(**opts)
    return [(m.source, m.value) for m in r.action_steps(b, "a", 2)]


PROBES: dict[str, tuple[Probe, Any]] = {
    "max_actions": (lambda o: duel(**o)[0].setup_unit(TROOPER).ap_max, 4),
    "extra_action_steps": (_extra_steps, -2),
    "all_out_defence_steps": (_aod, 3),
    "base_move_feet": (_tiers, 20.0),
    "hustle_feet": (_tiers, 40.0),
    "hustle_actions": (_tiers, 2),
    "run_base_feet": (_expected_tiers, 40.0),
    "run_actions": (_expected_tiers, 3),
    "static_difficulty": (_static, 5),
    "cover_light": (_bonus(CoverLevel.LIGHT), 2),
    "cover_medium": (_bonus(CoverLevel.MEDIUM), 6),
    "cover_heavy": (_bonus(CoverLevel.HEAVY), 10),
    "cover_near_total": (_bonus(CoverLevel.NEAR_TOTAL), 20),
    "dim_difficulty": (_bonus(visibility="dim"), 2),
    "dark_difficulty": (_bonus(visibility="dark"), 6),
    "pitch_black_spread_yards": (_spread, 10.0),
    "point_blank_steps": (_range_mods(1.0), 2),
    "medium_range_steps": (_range_mods(30.0), -1),
    "long_range_steps": (_range_mods(70.0), -3),
    "point_blank_yards": (_point_blank_yards, 6.0),
    "conscious_difficulty": (_checks("conscious"), 5),
    "conscious_step": (_checks("conscious"), 2),
    "dying_difficulty": (_checks("dying"), 2),
    "dying_step": (_checks("dying"), 1),
    "serious_wound_steps": (_serious, -3),
    "rounds_per_minute": (_minute, 5),
}

SWITCHES: dict[str, Probe] = {
    "prospective_penalty": lambda o: _undeclared_can_act(o),
    "prone_is_light_cover": lambda o: _lying_bonus(o),
    "passing_out": lambda o: _overwhelm(o, "stun"),
    "seriously_wounded": _serious,
    "dying": lambda o: _overwhelm(o, "wounds"),
    "shock": lambda o: _hit_while_unconscious(o),
}


def _undeclared_can_act(opts: dict[str, Any]) -> bool:
    r, b = duel(actions=(None, None), **opts)
    return r.can_act(b, "a")


def _lying_bonus(opts: dict[str, Any]) -> Any:
    r, b = duel(**opts)
    b.set_posture("t", Posture.PRONE)
    return option(r, b, "crossbow").detail["difficulty_bonus"]


def _hit_while_unconscious(opts: dict[str, Any]) -> Any:
    r, b = duel(**opts)
    script(b, [2])  # the short sword's d4
    b.u["t"].health = replace(b.u["t"].health, status=frozenset({"unconscious"}))
    r._damage(b, "t", "a", b.stats("a").weapon("short sword"), 4)
    return dict(b.u["t"].health.tracks)


def _overwhelm(opts: dict[str, Any], what: str) -> Any:
    """Damage the target past its life points (stun, wounds, or stun while unconscious)."""
    r, b = duel(**opts)
    script(b, [6] * 8)  # every roll to stay up succeeds
    h = b.u["t"].health
    lp = h.maxima["wounds"]
    tracks = {"stun": lp, "wounds": 1} if what == "stun" else {"stun": 0, "wounds": lp}
    b.damage("t", tracks, source="a")
    r._after_damage(b, "t")
    after = b.u["t"].health
    return sorted(after.status), dict(after.tracks)


def _numeric() -> set[str]:
    return {o["name"] for o in describe(CortexOptions) if o["type"] in ("int", "float")}


def _switches() -> set[str]:
    return {o["name"] for o in describe(CortexOptions) if o["type"] == "bool"}


def test_at_least_fifteen_numeric_options_each_sourced_and_ranged() -> None:
    opts = describe(CortexOptions)
    numeric = [o for o in opts if o["type"] in ("int", "float")]
    assert len(numeric) >= 15
    for o in opts:
        assert o["source"].startswith("cortex-actions-defense-damage.txt"), o
        assert o["description"], o
    for o in numeric:
        assert o["min"] is not None and o["max"] is not None, o


def test_every_numeric_option_has_a_probe() -> None:
    assert set(PROBES) == _numeric()


def test_every_switch_has_a_probe() -> None:
    assert set(SWITCHES) == _switches()


@pytest.mark.parametrize("name", sorted(PROBES))
def test_a_numeric_option_reaches_the_rules(name: str) -> None:
    probe, other = PROBES[name]
    default = CortexOptions.model_fields[name].default
    assert other != default
    assert probe({}) == probe({name: default})
    assert probe({name: other}) != probe({}), name


@pytest.mark.parametrize("name", sorted(SWITCHES))
def test_a_switch_reaches_the_rules(name: str) -> None:
    default = CortexOptions.model_fields[name].default
    probe = SWITCHES[name]
    assert probe({name: not default}) != probe({}), name


def test_odds_follow_the_options() -> None:
    base: dict[str, Any] = dict(
        attack_text=None,
        attribute="d8",
        skill="d6",
        steps=0,
        range_band="medium",
        difficulty=3,
        defence_text=None,
        cover="light",
        visibility="dim",
        weapon_text=None,
        damage_type="W",
        armour=0,
    )
    plain = answer(**base).data
    assert plain == answer(**base, options=CortexOptions()).data
    for change in ({"cover_light": 0}, {"dim_difficulty": 0}, {"medium_range_steps": 0}):
        got = answer(**base, options=CortexOptions.model_validate(change)).data
        assert got["p_success"] > plain["p_success"], change
