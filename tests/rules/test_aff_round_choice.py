"""AFF Ubiquitous Dodging: the armour-or-dodge choice at the start of the round (issue 26).

The text: "A character may choose at the start of each round whether to reduce damage with their
armour or their Dodge." By default (``ubiquitous_dodging_choice=round_start``) every unit in
action that may do either is asked a ``protection`` decision after ``round_start`` and before the
first turn; the answer binds its hits for the round. ``first_hit`` restores the old reading (the
first protection rolled in a round binds it). The decision is a flow the round's start pushes
(``Ruleset.start_round``): a clone and a snapshot taken while it waits play on identically.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from game.ai import get_policy
from game.core.codec import decode, encode
from game.core.commands import Attack, Defend
from game.core.errors import IllegalCommand
from game.core.flow import FlowRun
from game.dice.aff import expected_damage, p_no_damage
from game.engine.match import Match
from game.engine.view import MatchView
from game.rules.aff.ruleset import AffRuleset, AffState, RoundChoices
from game.scenario import load_scenario
from tests.rules import in_play
from tests.rules.fakes import FakeBattle, run_flow
from tests.rules.test_aff import ARMOUR, LEATHER, SWORD, protect, script, stats

UD = {"ubiquitous": True}
BOW = (1, 2, 3, 3, 3, 4, 5)


def _match(seed: int = 1, **options: Any) -> Match:
    spec = load_scenario("scenarios/duel.yaml", ruleset="aff")
    return Match(
        spec,
        ruleset="aff",
        seed=seed,
        options={**UD, **options},
        controllers=dict(zip(spec.sides, ("cautious", "aggressive"), strict=True)),
    )


def _play(m: Match, steps: int | None = None) -> list[str]:
    policies = {s: get_policy(p) for s, p in m.controllers.items()}
    view = MatchView(m)
    hashes, n = [], 0
    while m.outcome is None and (steps is None or n < steps):
        d = m.pending
        m.apply(policies[m.side(d.unit)](view, d, m.ai_rng))
        hashes.append(m.state_hash())
        n += 1
    return hashes


def test_the_choice_is_asked_at_the_start_of_the_round_before_any_turn() -> None:
    m = _match()
    try:
        d = m.pending
        assert d.kind == "protection" and d.unit == "hendrik"  # mail and Dodge 1: a real choice
        assert d.context["round"] == 1 == m.round
        types = [e["type"] for e in m.log.events]
        assert "round_start" in types and "turn_start" not in types
        assert [o.command for o in d.options] == [Defend("hendrik", "armour"), Defend("hendrik", "dodge")]
        m.apply(Defend("hendrik", "dodge"))
        assert m.rules_state == AffState({"hendrik": (1, "dodge")})
        assert m.pending.kind == "turn"  # the first turn starts once every unit has chosen
        assert [c.kind for c in m.rules.protection_choices(m, "hendrik")] == ["dodge"]
        with pytest.raises(IllegalCommand, match="waits for vasco"):
            m.apply(Defend("hendrik", "armour"))  # nothing asks it now
    finally:
        m.close()


def test_the_choice_binds_every_hit_of_its_round_and_is_asked_every_round() -> None:
    chosen: dict[int, str] = {}
    offered: list[tuple[int, set[str]]] = []

    def watch(match: Any, view: Any, decision: Any, cmd: Any) -> None:
        if decision.kind == "protection":
            assert match.round not in chosen
            chosen[match.round] = cmd.kind
        elif decision.kind == "defence" and decision.unit == "hendrik":
            kinds = {o.command.kind for o in decision.options if isinstance(o.command, Defend)}
            if kinds & {"armour", "dodge"} and kinds != {"normal", "defensive"}:
                offered.append((match.round, kinds))

    log = in_play.play("duel", "aff", 2, ("aggressive", "aggressive"), watch, UD)
    rounds = [e["round"] for e in log if e["type"] == "round_start"]
    alive_rounds = {r for r in rounds if r <= max(chosen)}
    assert set(chosen) == alive_rounds  # every round hendrik was in action began with its choice
    assert offered, "hendrik was never hit"
    for rnd, kinds in offered:
        assert kinds == {chosen[rnd]}
    # in the log: the choice comes after round_start and before the round's first turn_start
    for i, e in enumerate(log):
        if e["type"] == "command" and e["decision"] == "protection":
            before = [x["type"] for x in log[:i] if x["type"] in ("round_start", "turn_start")]
            assert before[-1] == "round_start"


def test_first_hit_restores_the_old_reading() -> None:
    kinds_seen: list[str] = []

    def watch(match: Any, view: Any, decision: Any, cmd: Any) -> None:
        kinds_seen.append(decision.kind)

    log = in_play.play(
        "duel",
        "aff",
        2,
        ("aggressive", "aggressive"),
        watch,
        {**UD, "ubiquitous_dodging_choice": "first_hit"},
    )
    assert "protection" not in kinds_seen
    assert any(e["type"] == "defence" and e["unit"] == "hendrik" for e in log)
    # the old binding, with a fake battle: the first protection rolled binds the round
    r = AffRuleset({**UD, "ubiquitous_dodging_choice": "first_hit", "defensive": False})
    b = FakeBattle(r)
    b.add("a", "red", (0.0, 0.0), stats=stats())
    b.add("t", "blue", (1.5, 0.0), facing=180.0, stats=stats(armour=ARMOUR, talents=["swashbuckler"]))
    assert r.start_round(b) is None
    script(b, [6, 6, 1, 1, 3, 2])
    run_flow(r.attack(b, Attack("a", "t", "sword")), protect("dodge"))
    assert [c.kind for c in r.protection_choices(b, "t")] == ["dodge"]


def test_under_round_start_a_hit_does_not_bind() -> None:
    r = AffRuleset({**UD, "defensive": False})
    b = FakeBattle(r)
    b.add("a", "red", (0.0, 0.0), stats=stats())
    b.add("t", "blue", (1.5, 0.0), facing=180.0, stats=stats(armour=ARMOUR, talents=["swashbuckler"]))
    script(b, [6, 6, 1, 1, 3, 2])
    run_flow(r.attack(b, Attack("a", "t", "sword")), protect("dodge"))
    assert b.rules_state is None  # only the round's start binds


def test_the_options_are_priced_exactly_against_the_attacks_it_can_expect() -> None:
    r = AffRuleset(UD)
    b = FakeBattle(r)
    b.add("a", "red", (0.0, 0.0), stats=stats())
    b.add("t", "blue", (1.5, 0.0), facing=180.0, stats=stats(armour=ARMOUR, talents=["swashbuckler"]))
    b.add("lone", "blue", (40.0, 0.0), stats=stats(special_skills={"sword": 1}))  # armour only
    frame = r.start_round(b)
    # "a" (Dodge, no armour or shield) and "lone" (neither) have no choice to make
    assert frame is not None and frame.data == RoundChoices(("t",))
    d = r.ask(b, "round_protection", "t")
    assert d.kind == "protection" and d.unit == "t"
    opts = {o.command.kind: o for o in d.options}
    arm, dod = r._round_options(b, "t")
    # within 1.5 in both of a's weapons reach t (the sword in reach, the bow at short range)
    for kind, p in (("armour", arm), ("dodge", dod)):
        want = (p_no_damage(SWORD, p.track, 0, p.bonus) + p_no_damage(BOW, p.track, 0, p.bonus)) / 2
        mean = (expected_damage(SWORD, p.track, 0, p.bonus) + expected_damage(BOW, p.track, 0, p.bonus)) / 2
        assert opts[kind].p_success == pytest.approx(want)
        assert opts[kind].detail["expected_damage"] == pytest.approx(mean)
    assert arm.track == LEATHER


def test_only_units_with_both_protections_are_asked() -> None:
    r = AffRuleset(UD)
    b = FakeBattle(r)
    b.add("a", "red", (0.0, 0.0), stats=stats(special_skills={"sword": 2}, armour=ARMOUR))  # no Dodge
    b.add("t", "blue", (1.5, 0.0), stats=stats(armour=ARMOUR))
    b.add("u", "blue", (3.0, 0.0), stats=stats())  # Dodge, no armour, no shield
    frame = r.start_round(b)
    assert frame is not None and frame.data == RoundChoices(("t",))
    assert AffRuleset({}).start_round(b) is None  # standard rules: no choice
    seen = run_flow(FlowRun(r, b, frame), protect("armour"))  # type: ignore[arg-type]
    assert [(d.kind, d.unit) for d in seen] == [("protection", "t")]
    assert b.rules_state == AffState({"t": (b.round, "armour")})


def test_the_option_is_validated() -> None:
    with pytest.raises(ValidationError):
        AffRuleset({**UD, "ubiquitous_dodging_choice": "at_lunch"})


def test_a_clone_and_a_snapshot_at_the_round_choice_play_on_identically() -> None:
    ref = _match(seed=3)
    ref_hashes = _play(ref)
    ref_log = ref.log.text()
    ref.close()
    m = _match(seed=3)
    cut = 0
    while True:  # the choice of round 2
        d = m.pending
        if d.kind == "protection" and m.round == 2:
            break
        _play(m, 1)
        cut += 1
    assert m.flow.frames and roundtrip(m.flow.frames) == m.flow.frames
    twin = m.clone()
    assert twin.pending is m.pending
    back = Match.from_snapshot(m.snapshot())
    assert back.pending.kind == "protection" and back.pending.unit == "hendrik"
    assert [o.label for o in back.pending.options] == [o.label for o in m.pending.options]
    assert _play(twin) == _play(back) == _play(m) == ref_hashes[cut:]
    assert twin.log.text() == back.log.text() == m.log.text() == ref_log
    for x in (twin, back, m):
        x.close()


def roundtrip(value: Any) -> Any:
    return decode(json.loads(json.dumps(encode(value))))
