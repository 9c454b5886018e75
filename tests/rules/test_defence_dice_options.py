"""Defence-dice rule numbers as options: every numeric option and every switch reaches the rules.

Each numeric option of :class:`~game.rules.defence_dice.options.DDOptions` has a probe in
``PROBES`` (a FakeBattle situation whose observable outcome is computed under the default and
under another value, and must differ); ``test_every_numeric_option_has_a_probe`` fails when an
option is added without one, and the switches have the same check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from game.rules.defence_dice.odds import answer
from game.rules.defence_dice.options import DDOptions
from game.rules.defence_dice.ruleset import TROOPER, Memory
from game.rules.options import describe
from tests.rules.test_defence_dice import cover_scene, hidden_trio, make, option, script, stats

Probe = Callable[[dict[str, Any]], Any]


def _hidden_attack(opts: dict[str, Any]) -> Any:
    r, b = cover_scene(**opts)
    b.set_sight("t", "a", hidden=True)  # a is hidden from t
    o = option(r, b, "t", "bow")
    return [(m.source, m.value) for m in o.modifiers], o.p_success


def _info(opts: dict[str, Any]) -> Any:
    r, b = hidden_trio(**opts)
    return r.info_scores(b, "a", "t")[:2]


def _cover(opts: dict[str, Any]) -> Any:
    r, b = cover_scene(**opts)
    return r.cover_dice(b, "c"), option(r, b, "t", "bow").p_success


def _dodge(opts: dict[str, Any]) -> Any:
    r, b = make(**opts)
    b.add("a", "red", (0.0, 0.0), stats=stats(vitality=2))
    r.start_round(b)
    return [len(e["faces"]) for e in b.events if e["type"] == "defence_dice"]


def _costs(opts: dict[str, Any]) -> Any:
    r, b = make(**opts)
    b.add("a", "red", (0.0, 0.0), stats=stats())
    return r.action_costs(b, "a"), r.inches_per_ap(b, "a"), r.setup_unit(TROOPER).ap_max


def _initiative(opts: dict[str, Any]) -> Any:
    r, b = hidden_trio(**opts)
    script(b, [5, 5, 5, 4, 6])
    return r.initiative(b, ["a", "t", "x"])


def _rerolls(opts: dict[str, Any]) -> Any:
    r, b = make(**opts)
    b.add("a", "red", (0.0, 0.0), stats=stats(vitality=2))
    r.start_round(b)
    r.on_moved(b, "a", "move", 1.0)
    return [e.get("reason") for e in b.events if e["type"] == "defence_dice"], len(r.maneuver_options(b, "a"))


def _cover_key(opts: dict[str, Any]) -> Any:
    r, _ = make(**opts)
    return r._cover_key("c", "a", "t")


PROBES: dict[str, tuple[Probe, Any]] = {
    "hidden_attack_dice": (_hidden_attack, 2),
    "hidden_info_modifier": (_info, -2),
    "cover_dice_per_size": (_cover, 2),
    "dodge_dice_per_vitality": (_dodge, 2),
    "block_for_others_offset": (lambda o: make(**o)[0].blocks_for_others(Memory(name="s", block=3)), 2),
    "max_ap": (_costs, 3),
    "move_yards_per_ap": (_costs, 6.0),
    "attack_ap": (_costs, 2),
    "posture_ap": (_costs, 0),
}

SWITCHES: dict[str, Probe] = {
    "cover_roll_per_pair": _cover_key,
    "always_reroll_dodge": _rerolls,
    "hidden_initiative_penalty": _initiative,
    "hiding": _hidden_attack,
    "cover_units": _cover,
    "dodge_rerolls": _rerolls,
}


def test_at_least_eight_numeric_options_each_sourced_and_ranged() -> None:
    opts = describe(DDOptions)
    numeric = [o for o in opts if o["type"] in ("int", "float")]
    assert len(numeric) >= 8
    for o in opts:
        assert o["source"].startswith("defence-dice-and-cover-units.txt"), o
        assert o["description"], o
    for o in numeric:
        assert o["min"] is not None and o["max"] is not None, o


def test_every_numeric_option_has_a_probe() -> None:
    assert set(PROBES) == {o["name"] for o in describe(DDOptions) if o["type"] in ("int", "float")}


def test_every_switch_has_a_probe() -> None:
    assert set(SWITCHES) == {o["name"] for o in describe(DDOptions) if o["type"] == "bool"}


@pytest.mark.parametrize("name", sorted(PROBES))
def test_a_numeric_option_reaches_the_rules(name: str) -> None:
    probe, other = PROBES[name]
    default = DDOptions.model_fields[name].default
    assert other != default
    assert probe({}) == probe({name: default})
    assert probe({name: other}) != probe({}), name


@pytest.mark.parametrize("name", sorted(SWITCHES))
def test_a_switch_reaches_the_rules(name: str) -> None:
    default = DDOptions.model_fields[name].default
    assert SWITCHES[name]({name: not default}) != SWITCHES[name]({}), name


def test_odds_follow_the_options() -> None:
    base: dict[str, Any] = dict(
        aim_die="10",
        attack_dice=1,
        defended="1,2,3",
        unrolled=0,
        hidden=True,
        armour=(),
        blocks=0,
        block_memories=0,
        memories=None,
        concussive=False,
        control=False,
    )
    plain = answer(**base).data
    assert plain["attack_dice"] == 2
    more = answer(**base, options=DDOptions.model_validate({"hidden_attack_dice": 3})).data
    assert more["attack_dice"] == 4 and more["p_success"] > plain["p_success"]
    off = answer(**base, options=DDOptions.model_validate({"hiding": False})).data
    assert off["attack_dice"] == 1
