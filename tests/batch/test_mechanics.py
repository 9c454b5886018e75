"""Rule mechanics in the results: declarations, tallies over hand-built logs, batch columns."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from types import SimpleNamespace

import pytest

from game.core.events import read_log
from game.rules import RULESET_NAMES, ruleset_class
from game.rules import mechanics as mech
from game.scenario import load_scenario, resolve_stats
from game.tools import batch
from game.tools.stats import mechanic_totals, mechanics_table
from tests.batch.conftest import DUEL, ROOT, SCENARIOS

#: The row columns before rulesets declared mechanics (a two-side scenario), in order.
OLD_COLUMNS = [
    "variant", "scenario", "ruleset", "seed", "swapped", "policy_red", "policy_blue", "winner",
    "winner_policy", "reason", "rounds", "commands", "survivors_red", "survivors_blue", "damage_red",
    "damage_blue",
    *(f"{name}_{side}" for name in (
        "attacks", "dodges", "parries", "blocks", "retreats", "drops", "dodge_moves", "interposes", "follows"
    ) for side in ("red", "blue")),
    "final_hash", "log",
]  # fmt: skip


def cmd(unit: str, type_: str, **fields: object) -> dict[str, object]:
    return {
        "type": "command",
        "unit": unit,
        "decision": "x",
        "command": {"type": type_, "unit": unit, **fields},
    }


#: A hand-built log: two turns of "a", one of "b", commands, defences and a few events.
LOG: list[dict[str, object]] = [
    {"type": "turn_start", "unit": "a"},
    cmd("a", "Attack", target="b"),
    {"type": "ap", "unit": "a", "spent": 1, "reason": "attack"},
    {"type": "attack", "attacker": "a", "target": "b", "result": "critical success", "hits": 2,
     "modifiers": [{"source": "hidden", "value": 1}, {"source": "2 in the way", "value": -8}]},
    cmd("b", "Defend", kind="dodge", retreat_to=[1.0, 2.0], drop=False, acrobatic=True),
    {"type": "defence", "unit": "b", "kind": "dodge", "success": False,
     "outcome": [{"aim": 3, "result": "dodged"}, {"aim": 5, "result": "cover", "unit": "c"}]},
    cmd("b", "Defend", kind="parry", retreat_to=None, drop=False),
    {"type": "defence", "unit": "b", "kind": "parry", "success": True},
    cmd("a", "Follow", to=[2.0, 2.0]),
    {"type": "move", "unit": "a", "ap": 1},
    {"type": "ap", "unit": "a", "spent": 1, "reason": "move"},
    {"type": "damage", "unit": "b", "deltas": {"stun": 2, "wounds": 0}},
    {"type": "turn_end", "unit": "a"},
    {"type": "turn_start", "unit": "b"},
    cmd("b", "Attack", target="a"),
    {"type": "attack", "attacker": "b", "target": "a", "result": "failure", "hits": 0, "modifiers": []},
    cmd("a", "Defend", kind="block", drop=True),
    cmd("c", "Interpose", friend="a", to=[0.5, 0.5], drop=True),
    cmd("c", "Interpose", friend="a", to=None, drop=True),  # declined: counts nowhere
    cmd("a", "DodgeMove", to=None),  # stayed: no dodge move
    cmd("a", "DodgeMove", to=[3.0, 3.0]),
    {"type": "move", "unit": "b", "ap": 2},
    {"type": "ap", "unit": "b", "spent": 2, "reason": "move"},
    {"type": "ap", "unit": "a", "spent": 2, "reason": "dodge"},  # not b's action
    {"type": "turn_end", "unit": "b"},
    {"type": "turn_start", "unit": "a"},
    {"type": "ap", "unit": "a", "spent": 3, "reason": "all-out defence"},
    {"type": "block", "unit": "a", "memory": "mail", "still_hits": False},
    {"type": "block", "unit": "a", "memory": "shield wall", "still_hits": False},
    {"type": "turn_end", "unit": "a"},
]  # fmt: skip


def test_legacy_counters_count_the_hand_built_commands():
    got = mech.count_all(mech.LEGACY, LOG)
    assert [m.name for m in mech.LEGACY] == list(batch.COUNTERS)
    assert got["attacks"] == Counter({"a": 1, "b": 1})
    assert got["dodges"] == Counter({"b": 1})
    assert got["parries"] == Counter({"b": 1})
    assert got["blocks"] == Counter({"a": 1})
    assert got["retreats"] == Counter({"b": 1})
    assert got["drops"] == Counter({"a": 1, "c": 1})  # a Defend drop and a sacrificial drop
    assert got["dodge_moves"] == Counter({"a": 1})
    assert got["interposes"] == Counter({"c": 1})
    assert got["follows"] == Counter({"a": 1})


def test_builders_count_events_items_turns_and_repeats():
    crits = mech.event("attack", credit="attacker", result="critical success")
    assert crits(LOG) == Counter({"a": 1})
    assert mech.event("attack", credit="target", hits=lambda n: n > 1)(LOG) == Counter({"b": 1})
    assert mech.event("attack", credit="attacker", modifiers=mech.has_modifier("hidden"))(LOG) == {"a": 1}
    way = mech.has_modifier(pattern=r"\d+ in the way")
    assert mech.event("attack", credit="attacker", modifiers=way)(LOG) == {"a": 1}
    assert mech.event("defence", kind={"dodge", "parry"})(LOG) == Counter({"b": 2})
    assert mech.command("Defend", acrobatic=True)(LOG) == Counter({"b": 1})
    # List entries: credited to the event's unit, or to the entry's own unit.
    assert mech.items("defence", "outcome", result="dodged")(LOG) == Counter({"b": 1})
    assert mech.items("defence", "outcome", item_credit="unit", result="cover")(LOG) == Counter({"c": 1})
    # Per turn: a's first turn spent 2 AP, b's turn 2 (a's reaction on b's turn is not b's),
    # a's second turn 3, of which the all-out defence is excluded here.
    spent = mech.turns("ap", amount=lambda e: e["spent"], at_least=2, reason=lambda r: r != "all-out defence")
    assert spent(LOG) == Counter({"a": 1, "b": 1})
    hustle = mech.turns("move", amount=lambda e: e["ap"], at_least=1, at_most=1)
    run = mech.turns("move", amount=lambda e: e["ap"], at_least=2)
    assert hustle(LOG) == Counter({"a": 1}) and run(LOG) == Counter({"b": 1})
    # A second defence by the same unit before the next attack.
    assert mech.again("defence", reset="attack", kind={"dodge", "parry"})(LOG) == Counter({"b": 1})
    assert mech.event("damage", deltas=mech.field_above("stun"))(LOG) == Counter({"b": 1})
    assert mech.event("damage", deltas=mech.field_above("wounds"))(LOG) == Counter()
    both = mech.combined(crits, mech.command("Follow", to=mech.present))
    assert both(LOG) == Counter({"a": 2})


def test_a_predicate_may_read_the_stat_block():
    armour = {"mail"}
    is_armour = mech.Predicate(lambda memory, e, facts: memory in facts.stats(e["unit"]).armour)
    tally = mech.event("block", memory=is_armour)
    assert tally(LOG, mech.Facts(lambda uid: SimpleNamespace(armour=armour))) == Counter({"a": 1})
    with pytest.raises(LookupError):
        tally(LOG)  # no stat blocks given


def test_mechanic_names_and_descriptions_are_checked():
    with pytest.raises(ValueError):
        mech.Mechanic("Not A Name", "x", mech.event("attack"))
    with pytest.raises(ValueError):
        mech.Mechanic("fine_name", "  ", mech.event("attack"))


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_every_ruleset_declares_described_mechanics(name):
    mechanics = ruleset_class(name).mechanics
    assert mechanics, f"{name} declares no mechanics"
    names = [m.name for m in mechanics]
    assert len(set(names)) == len(names), f"{name}: a mechanic is declared twice"
    assert mech.ATTACKS in mechanics
    legacy = {m.name: m for m in mech.LEGACY}
    for m in mechanics:
        assert isinstance(m, mech.Mechanic)
        assert m.description.strip(), f"{name}.{m.name} has no description"
        assert mech.NAME_PATTERN.match(m.name)
        if m.name in legacy:  # a legacy column keeps its meaning
            assert m is legacy[m.name], f"{name}.{m.name} redefines a legacy counter"


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_docs_batch_lists_every_mechanic(name):
    text = (ROOT / "docs" / "batch.md").read_text(encoding="utf-8")
    section = text.split(f"#### `{name}`", 1)
    assert len(section) == 2, f"docs/batch.md has no section for {name}"
    body = section[1].split("\n#", 1)[0]
    for m in ruleset_class(name).mechanics:
        assert re.search(rf"`{m.name}`", body), f"docs/batch.md ({name}) does not list {m.name}"


SHIPPED = {p.stem: p for p in sorted(SCENARIOS.glob("*.yaml")) if p.stem != "profiles"}


@pytest.mark.parametrize("stem", sorted(SHIPPED))
def test_rows_keep_the_old_columns_and_add_the_rulesets_mechanics(stem, tmp_path):
    log = tmp_path / "b.jsonl"
    job = batch.plan(
        seeds=[2], scenario=str(SHIPPED[stem]), policies={"red": "aggressive", "blue": "cautious"}
    )
    row = batch.run_battle(replace(job[0], log_path=str(log)))
    keys = list(row)
    assert keys[: len(OLD_COLUMNS)] == OLD_COLUMNS
    rules = ruleset_class(row["ruleset"])
    extra = [m.name for m in batch.row_mechanics(row["ruleset"])[len(mech.LEGACY) :]]
    assert keys[len(OLD_COLUMNS) :] == [
        *(f"{n}_{s}" for n in extra for s in ("red", "blue")),
        "damage_taken_red",
        "damage_taken_blue",
        "profiles",  # per side and unit profile, JSON (profiles.csv)
    ]
    assert set(extra) == {m.name for m in rules.mechanics} - set(batch.COUNTERS)
    # The row's counts are the tallies of the log read back from disk.
    spec = load_scenario(str(SHIPPED[stem]))
    side = {u.id: u.side for u in spec.units}
    units = {u.id: u for u in spec.units}
    facts = mech.Facts(lambda uid: resolve_stats(spec, units[uid], row["ruleset"]), spec)
    fired = mech.count_all(batch.row_mechanics(row["ruleset"]), read_log(log), facts)
    for m in batch.row_mechanics(row["ruleset"]):
        for s in ("red", "blue"):
            want = sum(v for uid, v in fired[m.name].items() if side[uid] == s)
            assert row[f"{m.name}_{s}"] == want, (m.name, s)


def test_mechanics_table_prints_every_mechanic_per_side():
    rows = [{"attacks_red": 3, "attacks_blue": 1, "dodges_red": 0, "dodges_blue": ""}, {"attacks_red": 1}]
    totals = mechanic_totals(rows, ("red", "blue"), ["attacks", "dodges"])
    assert [(t.name, t.totals) for t in totals] == [
        ("attacks", {"red": 4, "blue": 1}),
        ("dodges", {"red": 0, "blue": 0}),
    ]
    assert totals[0].mean("red") == 2.0
    text = mechanics_table(totals, ("red", "blue")).splitlines()
    assert "red" in text[0] and "blue" in text[0]
    assert text[1].split() == ["attacks", "4", "(", "2.00)", "1", "(", "0.50)"]


def test_battle_summary_shows_the_rulesets_mechanics(tmp_path):
    from click.testing import CliRunner

    from game.cli import cli

    res = CliRunner().invoke(
        cli,
        [
            "battle",
            str(DUEL),
            "-n",
            "2",
            "--workers",
            "1",
            "--no-plots",
            "--no-progress",
            "--out",
            str(tmp_path),
        ],
    )
    assert res.exit_code == 0, res.output
    for m in ruleset_class("aff").mechanics:
        assert re.search(rf"^{m.name}\s+\d+ \(", res.output, re.M), m.name


def test_skirmish_rulesets_lists_the_mechanics():
    import json

    from click.testing import CliRunner

    from game.cli import cli

    res = CliRunner().invoke(cli, ["rulesets", "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.output)
    for name in RULESET_NAMES:
        assert [m["name"] for m in info[name]["mechanics"]] == [m.name for m in ruleset_class(name).mechanics]


WALLED = """
name: walled
ruleset: ap-pool
map: {width: 20, height: 12}
obstacles:
  - {id: wall, height: high, polygon: [[8, 4], [8.5, 4], [8.5, 8], [8, 8]]}
units:
  - {id: a, side: red, at: [1.0, 6.0]}
  - {id: d, side: blue, at: [12.0, 9.5]}
"""


def test_moves_into_cover_replays_positions_and_asks_the_cover_model(tmp_path):
    path = tmp_path / "walled.yaml"
    path.write_text(WALLED, encoding="utf-8")
    spec = load_scenario(str(path))
    log = [
        {"type": "match_start", "units": [
            {"id": "a", "at": [1.0, 6.0], "posture": "standing"},
            {"id": "d", "at": [12.0, 9.5], "posture": "standing"},
        ]},
        {"type": "defence", "unit": "d", "attacker": "a", "kind": "dodge", "success": True},
        {"type": "dodge_move", "unit": "d", "from": [12.0, 9.5], "to": [12.0, 6.0]},  # behind the wall
        {"type": "defence", "unit": "d", "attacker": "a", "kind": "dodge", "success": True},
        {"type": "dodge_move", "unit": "d", "from": [12.0, 6.0], "to": [12.0, 9.5]},  # out again
        {"type": "move", "unit": "a", "from": [1.0, 6.0], "to": [12.0, 1.0]},
        {"type": "defence", "unit": "d", "attacker": "a", "kind": "dodge", "success": True},
        {"type": "dodge_move", "unit": "d", "from": [12.0, 9.5], "to": [12.0, 6.5]},  # a moved: still seen
    ]  # fmt: skip
    tally = mech.moves_into_cover("dodge_move")
    assert tally(log, mech.Facts(spec=spec)) == Counter({"d": 1})
    with pytest.raises(LookupError):
        tally(log)  # no scenario given
