"""Moving reactions on the real map (issue 5): dodge-and-drop cover timing on the hedgerow
scenario, posture changes updating cover at once, the ap-pool 2" dodge move."""

from __future__ import annotations

import math

import pytest

from components.sight import CoverLevel
from components.spatial import Posture
from game.core.commands import Attack, ChangePosture, Decision, Defend, EndTurn
from game.engine.match import Match
from game.rules.ap_pool.commands import DodgeMove
from game.rules.gurps.commands import GurpsDefend
from game.scenario import load_scenario


def _end_turn(d: Decision):
    return next(o.command for o in d.options if isinstance(o.command, EndTurn))


def _drive_to_attack(m: Match, attacker: str, target: str) -> Decision | None:
    """End every turn; whenever ``attacker`` can attack ``target``, do it, until the attack calls
    for a decision other than a turn (e.g. the target's defence). Defences of others: none."""
    for _ in range(2000):
        d = m.pending
        if m.outcome is not None or d is None:
            return None
        if d.kind != "turn":
            if d.unit == target:
                return d
            m.apply(next(o.command for o in d.options if getattr(o.command, "kind", "") == "none"))
            continue
        if d.unit == attacker:
            shot = next(
                (o for o in d.options if isinstance(o.command, Attack) and o.command.target == target), None
            )
            if shot is not None:
                m.apply(shot.command)
                continue
        m.apply(_end_turn(d))
    return None


def test_dodge_and_drop_cover_counts_only_after_the_triggering_attack():
    spec = load_scenario("scenarios/hedgerows.yaml", ruleset="gurps")
    before = None
    for seed in range(20):
        m = Match(spec, seed=seed)
        before = m.sight("blue-2", "red-2")
        d = _drive_to_attack(m, "blue-2", "red-2")
        if d is None or d.kind != "defence" or d.unit != "red-2":
            m.close()
            continue
        drop = [o for o in d.options if isinstance(o.command, GurpsDefend) and o.command.drop]
        assert drop, "dodge-and-drop must be offered against a ranged attack"
        attack = m.log.of_type("attack")[-1]
        m.apply(drop[0].command if drop[0].point_field is None else drop[0].with_point(None))
        assert m.posture("red-2") == Posture.PRONE
        assert m.log.of_type("drop_prone")[-1]["unit"] == "red-2"
        # the triggering attack was judged with the cover red-2 had standing ...
        assert not any("cover" in mod["source"] and "total" in mod["source"] for mod in attack["modifiers"])
        assert before.visible and before.cover in (CoverLevel.NONE, CoverLevel.LIGHT)
        # ... and from now on the hedge hides the prone figure from blue-2 completely.
        after = m.sight("blue-2", "red-2")
        assert not after.visible and after.cover == CoverLevel.TOTAL
        m.close()
        return
    pytest.fail("no seed produced a hit from blue-2 on red-2 in 20 matches")


def test_posture_change_updates_cover_immediately():
    spec = load_scenario("scenarios/hedgerows.yaml", ruleset="gurps")
    m = Match(spec, seed=1)
    for _ in range(100):
        d = m.pending
        if d.unit == "red-2" and d.kind == "turn":
            break
        m.apply(_end_turn(d) if d.kind == "turn" else d.options[0].command)
    else:
        pytest.fail("red-2 never got a turn")
    standing = m.sight("blue-2", "red-2")
    opt = next(o for o in d.options if isinstance(o.command, ChangePosture) and o.command.posture == "prone")
    m.apply(opt.command)
    prone = m.sight("blue-2", "red-2")
    assert standing.visible and not prone.visible
    assert prone.cover_fraction == 1.0 > standing.cover_fraction
    m.close()


def test_ap_pool_dodge_move_is_a_2_inch_disc_and_updates_sight():
    spec = load_scenario("scenarios/duel.yaml", ruleset="ap-pool")
    for seed in range(150):
        m = Match(spec, seed=seed)
        attacker, target = spec.units[0].id, spec.units[1].id
        if m.pending.unit != attacker:
            attacker, target = target, attacker
        d = _drive_to_attack(m, attacker, target)
        while d is not None and d.kind == "defence":
            dodge = [o for o in d.options if isinstance(o.command, Defend) and o.command.kind == "dodge"]
            if not dodge:
                break
            m.apply(max(dodge, key=lambda o: o.p_success or 0).command)
            d = m.pending
        if d is None or d.kind != "dodge_move":
            m.close()
            continue
        move = next(o for o in d.options if o.point_field == "to")
        assert move.region.bounds[2] - move.region.bounds[0] <= 4.0 + 1e-6
        start = m.pos(target)
        far = (start[0] + 2.5, start[1])
        assert move.validate(far) is not None  # beyond 2"
        dest = None
        for ang in range(0, 360, 15):
            p = (start[0] + 2.0 * math.cos(math.radians(ang)), start[1] + 2.0 * math.sin(math.radians(ang)))
            if move.validate(p) is None:
                dest = p
                break
        assert dest is not None
        m.apply(DodgeMove(target, dest))
        ev = m.log.of_type("dodge_move")[-1]
        assert ev["unit"] == target and ev["to"] == [round(dest[0], 6), round(dest[1], 6)]
        assert math.isclose(
            m.sight(attacker, target).distance, math.dist(m.pos(attacker), dest), abs_tol=1e-9
        )
        m.close()
        return
    pytest.fail("no successful ap-pool dodge in 150 seeds")
