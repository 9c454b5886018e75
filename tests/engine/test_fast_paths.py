"""The engine's shortcuts answer exactly what the plain computation would (speed, not behaviour)."""

from __future__ import annotations

from enum import StrEnum

import numpy as np
import pytest
import shapely

from components.spatial import Posture
from game.core.commands import LazyRegion, Move, Option, matches
from game.core.events import _clean
from game.engine.match import Match
from game.engine.view import MatchView


def _clean_reference(value):
    """``events._clean`` before its fast paths."""
    if isinstance(value, dict):
        return {str(k): _clean_reference(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean_reference(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_clean_reference(v) for v in value)
    if hasattr(value, "item") and callable(value.item):
        return _clean_reference(value.item())
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


class _Colour(StrEnum):
    RED = "red"


@pytest.mark.parametrize(
    "value",
    [
        1,
        2.5,
        True,
        None,
        "x",
        _Colour.RED,
        np.float64(0.1),
        np.int64(3),
        np.bool_(True),
        (1.0, 2.0),
        [np.float64(1.5), (2, 3)],
        {"a": {1: np.int32(2)}, _Colour.RED: {"b", "a"}},
        frozenset({3, 1}),
        object,
    ],
)
def test_event_cleaning_is_unchanged(value):
    got, want = _clean(value), _clean_reference(value)
    assert got == want and type(got) is type(want)
    assert repr(got) == repr(want)


def _arena(spec):
    """The arena of a new match on ``spec`` (the sight system builds it from the components)."""
    m = Match(spec, seed=0)
    arena = m.arena
    m.close()
    return arena


def test_clipped_disc_is_the_geos_construction_vertex_for_vertex(spec):
    arena = _arena(spec)
    w, h = spec.width, spec.height
    rng = np.random.default_rng(7)
    cases = [
        ((10.0, 6.0), 0.5, 4.0),
        ((1.0, 1.0), 0.5, 3.0),
        ((10.0, 6.0), 0.5, 0.0),
        ((3.3, 5.1), 0.25, 2.7),
    ]
    cases += [
        ((float(rng.uniform(0, w)), float(rng.uniform(0, h))), 0.5, float(rng.uniform(0.2, 12)))
        for _ in range(200)
    ]
    for centre, r, reach in cases:
        want = shapely.box(r, r, w - r, h - r).intersection(shapely.Point(centre).buffer(reach, quad_segs=16))
        got = arena.clipped_disc(centre, r, reach)()
        assert got.geom_type == want.geom_type
        assert got.equals_exact(want, 0.0), (centre, r, reach)
    # remembered by its whole input (a shapely geometry is immutable): asked again, the same one
    for centre, r, reach in cases:
        again = arena.clipped_disc(centre, r, reach)()
        assert again is arena.clipped_disc(centre, r, reach)()
        want = shapely.box(r, r, w - r, h - r).intersection(shapely.Point(centre).buffer(reach, quad_segs=16))
        assert again.equals_exact(want, 0.0)


def _disc_cases(rng, w, h, n):
    """Move discs all over the map: well inside, crossing sides and corners, with extremes,
    vertices and centres on or within rounding of the map's sides."""
    out = []
    for k in range(n):
        r = float(rng.choice([0.25, 0.5, 1.0]))
        reach = float(rng.choice([rng.uniform(0.05, 30.0), float(rng.integers(1, 20))]))
        c = [float(rng.uniform(r, w - r)), float(rng.uniform(r, h - r))]
        nudge = float(rng.choice([0.0, 1e-12, -1e-12, 1e-7, float(rng.uniform(-1, 1))]))
        if k % 4 == 1:
            c[k % 2] = r + reach + nudge  # an extreme on (or near) a side
        elif k % 4 == 2:
            c = [round(float(rng.uniform(r, r + reach)), 6), round(float(rng.uniform(r, r + reach)), 6)]
        elif k % 4 == 3:
            c[0] = float(rng.choice([r, r + 1e-13, float(rng.uniform(-1, w + 1))]))  # centre on / off the box
        out.append(((r, r, w - r, h - r), (c[0], c[1]), reach))
    return out


def test_clipped_disc_answers_sampling_like_geos(spec):
    """is_empty, bounds and contains_xy are GEOS's answers exactly, also for points on, and
    within rounding of, the boundary; the fast answers do not build the geometry."""
    from game.geometry.discs import ClippedDisc

    rng = np.random.default_rng(11)
    fast = 0
    for box, centre, reach in _disc_cases(rng, spec.width, spec.height, 1500):
        want = shapely.box(*box).intersection(shapely.Point(centre).buffer(reach, quad_segs=16))
        disc = ClippedDisc(box, centre, reach)
        fast += disc._answers() is not None
        assert disc.is_empty == want.is_empty
        if want.is_empty:
            continue
        assert disc.bounds == want.bounds
        v = np.asarray(want.exterior.coords)
        mid = (v[1:] + v[:-1]) / 2
        minx, miny, maxx, maxy = want.bounds
        pts = np.concatenate(
            [
                np.column_stack([rng.uniform(minx, maxx, 200), rng.uniform(miny, maxy, 200)]),
                v,
                mid,
                v + 1e-15,
                mid - 1e-14,
                mid * (1 + 1e-12),
            ]
        )
        got = disc.contains_xy(pts[:, 0], pts[:, 1])
        assert np.array_equal(got, shapely.contains_xy(want, pts[:, 0], pts[:, 1]))
        assert disc().equals_exact(want, 0.0)
    assert fast > 800  # most cases (even of these close calls) are answered without GEOS


def test_sampling_a_lazy_move_region_does_not_build_it(spec):
    from game.ai.points import sample_in, sampling_region
    from game.geometry.discs import ClippedDisc

    m = Match(spec, seed=1)
    move = next(o for o in m.pending.options if isinstance(o.command, Move))
    region = sampling_region(move)
    assert type(region) is ClippedDisc and "region" not in move.__dict__
    got = sample_in(region, 24, np.random.default_rng(3))
    assert "region" not in move.__dict__ and region._geom is None
    assert np.array_equal(got, sample_in(move.region, 24, np.random.default_rng(3)))
    assert sampling_region(move) is region  # also once built
    m.close()


def test_a_lazy_region_is_built_once_on_first_read():
    built = []
    opt = Option(Move("a"), "move", point_field="to", region=LazyRegion(lambda: built.append(1) or "disc"))
    assert opt.has_region and not built
    assert matches(opt, Move("a", (1.0, 2.0))) is None and not built  # legality needs no geometry
    assert opt.region == "disc" and opt.region == "disc" and built == [1]
    assert not Option(Move("a"), "move").has_region
    assert opt == Option(Move("a"), "move", point_field="to", region="disc")


def test_turn_decisions_build_their_regions_lazily(spec):
    m = Match(spec, seed=1)
    move = next(o for o in m.pending.options if isinstance(o.command, Move))
    assert "region" not in move.__dict__
    assert move.region.contains(shapely.Point(m.pos(m.pending.unit)))
    m.close()


def test_memoised_validators_answer_each_point_once(spec):
    # A region's validator is a pure function of the table as it stood when the region was
    # made (a decision is a value a clone shares): remembered per point for good.
    from game.battlefield.arena import memoised

    calls = []
    check = memoised(lambda p: calls.append(p) or ("no" if p[0] < 1.5 else None))
    assert check((1.0, 2.0)) == "no" and check((1.0, 2.0)) == "no" and len(calls) == 1
    assert check((2.0, 2.0)) is None and len(calls) == 2
    assert check([1.0, 2.0]) == "no" and len(calls) == 3  # only (float, float) tuples are remembered


def test_a_region_made_before_a_change_keeps_judging_the_table_it_was_made_on(spec):
    m = Match(spec, seed=1)
    uid = m.units()[0]
    other = next(u for u in m.units() if u != uid)
    region = m.arena.move_region(uid, 6.0)
    x, y = m.pos(uid)
    target = (x + 2.0, y)
    before = region.validate(target)
    m.arena.update(other, target, 1.0, 0.0)  # another unit now stands on the point
    assert region.validate(target) == before  # the old region judges the old table
    assert m.arena.move_region(uid, 6.0).validate(target) is not None  # a new one, the new table
    m.close()


def _fresh_view(m, uid):
    """The snapshot a new view takes (nothing remembered)."""
    return MatchView(m).unit(uid)


def test_unit_snapshots_follow_every_change(spec):
    m = Match(spec, seed=3)
    view = MatchView(m)
    uid = m.pending.unit
    other = next(u for u in m.units() if u != uid)
    before, bystander = view.unit(uid), view.unit(other)
    assert view.unit(uid) is before  # nothing happened: the same snapshot
    x, y = before.pos
    m.apply(Move(uid, (x + (1.0 if x < 10 else -1.0), y + 1.0)))
    after = view.unit(uid)
    assert after.pos != before.pos and after.ap == before.ap - 1
    assert view.unit(other) is bystander  # its state did not change: kept
    # every way the match changes a unit is seen at once, by that unit's snapshot only
    changes = [
        lambda: m.set_facing(other, 123.0),
        lambda: m.set_posture(other, Posture.KNEELING),
        lambda: m.damage(other, {next(iter(m.health(other).tracks)): -1}, None),
        lambda: m.set_status(other, "stunned", True, "test"),
        lambda: m.spend_ap(other, 1, "test"),
        lambda: m.systems.turns.refill_ap(m, other),
        lambda: m.set_status(other, "dead", True, "test"),
    ]
    for change in changes:
        kept = view.unit(uid)
        old = view.unit(other)
        change()
        assert view.unit(other) == _fresh_view(m, other) != old
        assert view.unit(uid) is kept
    m.close()


def _fields_match_the_snapshot(view, uid):
    u = view.unit(uid)
    names = ("pos", "posture", "base", "size", "health", "maxima")
    got = tuple(getattr(view, name)(uid) for name in names)
    want = tuple(getattr(u, name) for name in names)
    assert got == want and [type(v) for v in got] == [type(v) for v in want]


def test_view_field_readers_equal_the_snapshot_through_changes(spec):
    m = Match(spec, seed=3)
    view = MatchView(m)
    other = next(u for u in m.units() if u != m.pending.unit)
    changes = [
        lambda: m.set_posture(other, Posture.KNEELING),
        lambda: m.damage(other, {next(iter(m.health(other).tracks)): -1}, None),
        lambda: m.set_status(other, "dead", True, "test"),
    ]
    for change in [lambda: None, *changes]:
        change()
        for uid in m.units(alive=False):
            _fields_match_the_snapshot(view, uid)
    m.close()


def test_dice_draw_the_faces_and_words_of_one_array_draw():
    """``Dice.roll`` draws die by die; the faces and the generator's state after them must be
    those of numpy's ``integers(1, sides + 1, size=n)`` (the replayable logs depend on it)."""
    from game.dice import Dice

    plan = np.random.default_rng(7)
    for seed in range(20):
        ours, ref = np.random.default_rng(seed), np.random.default_rng(seed)
        dice = Dice(ours)
        for _ in range(60):
            n = int(plan.integers(0, 9))
            sides = int(plan.choice([1, 2, 3, 6, 8, 10, 12, 20, 100, 2**31, 2**32 + 5]))
            want = ref.integers(1, sides + 1, size=n).tolist() if n > 0 else []
            got = dice.roll(n, sides, "test")
            assert got == want and all(type(f) is int for f in got)
            if plan.random() < 0.3:  # other draws in between (a float takes a whole word)
                assert ours.random() == ref.random()
        assert ours.bit_generator.state == ref.bit_generator.state


def test_turn_options_share_their_fixed_commands_and_keep_their_labels(spec):
    from game.core.commands import ChangePosture, Decision, EndTurn, Face
    from systems.turn_options import _posture_labels

    first, second = Match(spec, seed=1), Match(spec, seed=2)
    uid = first.pending.unit
    d1 = first.pending
    second_d = second.pending
    cmds = [o.command for o in d1.options]
    assert EndTurn(uid) in cmds and Face(uid, 0.0) in cmds
    for o in d1.options:  # each command and label is what a fresh one would be
        if isinstance(o.command, ChangePosture):
            assert o.command == ChangePosture(uid, o.command.posture)
            assert o.label.startswith(f"posture {o.command.posture} (")
    if second_d.unit == uid:  # the same unit in another match: the very same command objects
        shared = {id(o.command) for o in second_d.options}
        assert id(next(o.command for o in d1.options if isinstance(o.command, EndTurn))) in shared
    # labels print the cost as given (1 and 1.0 differ)
    assert _posture_labels(1)[0] == "posture standing (1 AP)"
    assert _posture_labels(1.0)[0] == "posture standing (1.0 AP)"
    # a decision made by hand: own context dict per instance, dataclass equality
    a, b = Decision(uid, "turn", ()), Decision(uid, "turn", ())
    assert a == b and a.context == {} and a.context is not b.context
    assert Decision(uid, "turn", (), context={"x": 1}).context == {"x": 1}
    first.close()
    second.close()


def test_event_positions_and_reserved_fields():
    from game.core.events import POS_DECIMALS, EventLog, round_pos

    for p in [
        (1.23456789, -2.0),
        (np.float64(0.1) * 3, np.int64(2)),
        [1.0000005, 2],
        np.array([3.3333333, 4.0]),
    ]:
        want = [round(float(c), POS_DECIMALS) for c in p]
        got = round_pos(p)
        assert got == want and [type(c) for c in got] == [float, float]
    assert round_pos((1.0, 2.0, 3.0)) == [1.0, 2.0, 3.0]
    log = EventLog()
    with pytest.raises(ValueError, match="'round' is reserved"):
        log.append(0, "x", {"a": 1, "round": 2, "seq": 3})
    assert len(log) == 0
    assert log.append(1, "x", {"a": (1, 2)}) == {"seq": 0, "round": 1, "type": "x", "a": [1, 2]}


def test_a_point_set_on_an_option_is_what_replace_makes():
    from dataclasses import replace

    from game.core.commands import Defend, Face, Step
    from game.rules.ap_pool.commands import DodgeMove
    from game.rules.gurps.commands import GurpsDefend, Interpose

    cases = [
        (Move("a", (0.0, 0.0)), "to", (1.5, 2.5)),
        (Step("a"), "to", (3.0, 4.0)),
        (Face("a", 10.0), "degrees", 99.5),
        (Interpose("a", "b", None, True), "to", (1.0, 1.0)),
        (DodgeMove("a"), "to", None),
        (Defend("a", "dodge", "sword"), "retreat_to", (2.0, 2.0)),
        (GurpsDefend("a", "dodge", None, None, True, False), "retreat_to", (2.0, 2.0)),
    ]
    for cmd, free, value in cases:
        got = Option(cmd, "x", point_field=free).with_point(value)
        want = replace(cmd, **{free: value})
        assert got == want and type(got) is type(want)
    assert Option(Move("a"), "x").with_point((1.0, 1.0)) == Move("a")  # no free field
    with pytest.raises(TypeError):
        Option(Move("a"), "x", point_field="nope").with_point((1.0, 1.0))
    # matching ignores only the free field
    opt = Option(Move("a"), "x", point_field="to", validate=lambda p: None)
    assert matches(opt, Move("a", (5.0, 5.0))) is None
    assert matches(opt, Move("b", (5.0, 5.0))) == "does not match"
    assert matches(Option(Face("a", 1.0), "x"), Face("a", 2.0)) == "does not match"
    assert matches(Option(Face("a", 1.0), "x"), Face("a", 1.0)) is None


def test_units_in_action_follow_status_changes(spec):
    m = Match(spec, seed=4)

    def plain():
        alive = [u for u in m.units(alive=False) if not m.health(u).out_of_action]
        return alive, sorted({m.side(u) for u in alive})

    uid = m.units()[0]
    enemy = m.enemies(uid)[0]
    assert (m.units(), m.sides_in_action()) == plain()
    got = m.units()
    got.clear()  # callers get their own lists
    assert m.units() == plain()[0]
    for flag, on in [("stunned", True), ("dead", True), ("dead", False), ("unconscious", True)]:
        m.set_status(enemy, flag, on, "test")
        assert (m.units(), m.sides_in_action()) == plain()
        assert (enemy in m.enemies(uid)) == (not m.health(enemy).out_of_action)
        assert all(not m.health(f).out_of_action and m.side(f) == m.side(uid) for f in m.friends(uid))
        assert uid not in m.friends(uid)
    m.close()


def test_segment_clear_is_the_segment_reason_verdict(spec):
    """Destinations in obstacles, in units, off the map, ways blocked and clear: the code-only
    verdict equals "no reason to refuse"."""
    arena = _arena(spec)
    rng = np.random.default_rng(5)
    seen = set()
    for uid in arena.ids:
        blk, _ = arena.blockers(uid)
        i = arena.index_of[uid]
        a = (float(arena.xy[i, 0]), float(arena.xy[i, 1]))
        r = float(arena.base[i])
        top = max(spec.width, spec.height) + 2.0
        ends = [(float(x), float(y)) for x, y in [*rng.uniform(-2.0, top, (150, 2)), *arena.xy]]
        for b in ends:
            why = arena.nav.segment_reason(a, b, r, blk)
            assert arena.nav.segment_clear(a, b, r, blk) is (why is None)
            seen.add(True if why is None else why.split()[0])
    assert {True, "destination", "the"} <= seen  # clear, refused at the end, blocked on the way


def _played_log(spec, commands: int = 40):
    m = Match(spec, seed=5, controllers={s: "random" for s in spec.sides})
    from game.ai import get_policy

    view, policy = MatchView(m), get_policy("random")
    for _ in range(commands):
        if m.outcome is not None:
            break
        m.apply(policy(view, m.pending, m.ai_rng))
    return m


def test_a_log_read_from_its_text_is_the_log_read_from_its_lines(spec):
    """EventLog.from_text (split when first read) reads as EventLog.from_lines of the same lines:
    events, length, lines, text, UTF-8 bytes, forks and appends."""
    from game.core.events import EventLog

    m = _played_log(spec)
    text = m.log.text()
    for read in (
        lambda lg: lg.events,
        len,
        lambda lg: lg.lines(),
        lambda lg: lg.utf8(),
        lambda lg: lg.fork().lines(),
    ):
        lazy, plain = EventLog.from_text(text), EventLog.from_lines(text.splitlines())
        assert read(lazy) == read(plain)
        lazy.append(3, "note", {"x": 1})
        plain.append(3, "note", {"x": 1})
        assert lazy.lines() == plain.lines() and lazy.utf8() == plain.utf8() == plain.text().encode()
    # an unsplit log's fork shares the text and stays independent
    lazy = EventLog.from_text(text)
    twin = lazy.fork()
    twin.append(1, "note", {})
    assert len(twin) == len(lazy) + 1 and lazy.text() == text


def test_log_bytes_grow_with_the_log_and_a_fork_starts_afresh(spec):
    m = _played_log(spec, 10)
    first = m.log.utf8()
    assert first == m.log.text().encode()
    twin = m.clone()
    m.log.append(m.round, "note", {"y": "é"})
    assert m.log.utf8() == m.log.text().encode() and m.log.utf8().startswith(first)
    assert twin.log.utf8() == first


def test_a_snapshot_read_back_and_written_again_is_the_same_bytes():
    """A restored match writes the snapshot it was read from (its log split on that write), and
    reads the same log."""
    from game.scenario import load_scenario

    m = _played_log(load_scenario("scenarios/duel.yaml", ruleset="gurps"), 30)
    data = m.snapshot()
    back = Match.from_snapshot(data)
    assert back.snapshot() == data
    m2 = Match.from_snapshot(data)
    assert len(m2.log) == len(m.log) and m2.log.events == m.log.events
