"""GURPS attacks: effective skill, which attacks are legal, damage and exact odds.

The rule text (shared/rules/gurps-active-defense.txt) starts after the attack
roll; the attack numbers here are the standard GURPS ones the ruleset documents
(docs/rulesets/gurps.md): Size and Speed/Range table, posture table (B551),
-4 per figure in the way, cover mapping, Acc after Aim, RoF bonus, effective
skill 3+, wound modifiers, DR, 1/2D. Monte Carlo runs check the exact
``p_success``/``p_hurt`` of attack options against the real attack flow.
"""

from __future__ import annotations

import time

import pytest

from components.sight import CoverLevel
from components.spatial import Posture
from components.state import ActionPoints
from game.core.commands import Attack
from game.dice.gurps import p_success
from game.rules.gurps.damage import basic_damage, injury, injury_pmf
from game.rules.gurps.ruleset import COVER_PENALTY, GurpsRuleset
from game.rules.gurps.state import turn_record
from game.rules.gurps.stats import DAMAGE_BY_ST, parse_damage, range_penalty, rof_bonus
from tests.rules.fakes import FakeBattle, run_flow
from tests.rules.fakes import mc_bound as bound
from tests.rules.test_gurps_common import SWORD, chooser, duel, heal, mk, profiles


def _opt(rules: GurpsRuleset, b: FakeBattle, weapon: str, target: str = "d"):  # type: ignore[no-untyped-def]
    for o in rules.attack_options(b, "a"):
        if o.command.weapon == weapon and o.command.target == target:
            return o
    return None


@pytest.mark.parametrize(
    ("yards", "mod"),
    [
        (1, 0),
        (2, 0),
        (2.5, -1),
        (3, -1),
        (4, -2),
        (5, -2),
        (7, -3),
        (10, -4),
        (15, -5),
        (20, -6),
        (30, -7),
        (50, -8),
        (70, -9),
        (100, -10),
        (150, -11),
        (200, -12),
        (300, -13),
    ],
)
def test_range_table(yards: float, mod: int) -> None:
    assert range_penalty(yards) == mod


@pytest.mark.parametrize(("rof", "bonus"), [(1, 0), (4, 0), (5, 1), (8, 1), (9, 2), (16, 3), (17, 4)])
def test_rof_bonus(rof: int, bonus: int) -> None:
    assert rof_bonus(rof) == bonus


def test_damage_table_and_parsing() -> None:
    assert DAMAGE_BY_ST[10] == ((1, -2), (1, 0))
    assert DAMAGE_BY_ST[13] == ((1, 0), (2, -1))
    assert parse_damage("sw+1 cut").dice_adds(11) == (1, 2)
    assert parse_damage("thr imp").dice_adds(12) == (1, -1)
    assert parse_damage("2d-1 cr").dice_adds(5) == (2, -1)
    with pytest.raises(ValueError):
        parse_damage("2d+1 zap")


@pytest.mark.parametrize(
    ("rolled", "dtype", "dr", "halved", "inj"),
    [
        (5, "cut", 0, False, 7),  # x1.5 rounded down
        (5, "imp", 2, False, 6),  # (5-2) x2
        (5, "pi", 2, False, 3),
        (3, "pi-", 2, False, 1),  # 0.5 rounds down to 0, but a penetrating hit does at least 1
        (4, "cr", 4, False, 0),  # no penetration
        (0, "cut", 0, False, 1),  # basic damage at least 1
        (-1, "cr", 0, False, 0),  # crushing at least 0
        (9, "cut", 1, True, 4),  # halved beyond 1/2D: 4 - 1 = 3, x1.5 = 4
    ],
)
def test_injury(rolled: int, dtype: str, dr: int, halved: bool, inj: int) -> None:
    assert injury(rolled, dtype, dr, halved) == inj


def test_injury_pmf_is_exact() -> None:
    dist = dict(injury_pmf(1, 2, "cut", 2, False))  # 1d+2 cut vs DR 2: rolls 3..8 -> pen 1..6
    assert dist == pytest.approx({1: 1 / 6, 3: 1 / 6, 4: 1 / 6, 6: 1 / 6, 7: 1 / 6, 9: 1 / 6})
    assert basic_damage(-3, "cut", False) == 1


def test_melee_modifiers_and_reach() -> None:
    rules, b = duel(a=mk(), dist=1.0)
    assert _opt(rules, b, "sword").p_success == p_success(12)
    b.u["a"].posture = Posture.KNEELING
    assert _opt(rules, b, "sword").detail["eff"] == 12 - 2
    b.u["a"].posture = Posture.PRONE
    assert _opt(rules, b, "sword").detail["eff"] == 12 - 4
    rules, b = duel(dist=2.5)  # gap 1.5 yd > reach 1 (0.5 yd slack)
    assert _opt(rules, b, "sword") is None
    rules, b = duel(dist=1.5)
    assert _opt(rules, b, "sword") is not None
    rules, b = duel(dist=1.5, ypi=2.0)  # at 2 yards per inch a 0.5 in gap is 1 yard: out of reach
    assert _opt(rules, b, "sword") is None


def test_ranged_modifiers() -> None:
    rules, b = duel(a=mk(extra_skills={"Bow": 18}), dist=10.0)
    o = _opt(rules, b, "bow")
    assert o.detail["eff"] == 18 - 4  # 10 yards
    b.u["d"].posture = Posture.KNEELING
    assert _opt(rules, b, "bow").detail["eff"] == 18 - 4 - 2
    b.u["d"].posture = Posture.STANDING
    b.set_sight("a", "d", intervening=("x", "y"))
    assert _opt(rules, b, "bow").detail["eff"] == 18 - 4 - 8  # -4 per figure in the way
    b.set_sight("a", "d", cover=CoverLevel.MEDIUM, cover_fraction=0.6)
    assert _opt(rules, b, "bow").detail["eff"] == 18 - 4 - 3
    b.set_sight("a", "d", cover=CoverLevel.TOTAL, cover_fraction=1.0, visible=False)
    assert _opt(rules, b, "bow") is None


@pytest.mark.parametrize(
    ("level", "mod"),
    [
        (CoverLevel.NONE, 0),
        (CoverLevel.LIGHT, -2),
        (CoverLevel.MEDIUM, -3),
        (CoverLevel.HEAVY, -4),
        (CoverLevel.NEAR_TOTAL, -5),
    ],
)
def test_cover_mapping(level: CoverLevel, mod: int) -> None:
    assert COVER_PENALTY[level] == mod
    rules, b = duel()
    b.set_sight("a", "d", cover=level)
    assert _opt(rules, b, "sword").detail["eff"] == 12 + mod


def test_out_of_range_and_low_skill() -> None:
    rules, b = duel(dist=201.0)
    assert _opt(rules, b, "bow") is None  # Max 200 yards
    rules, b = duel(dist=100.0)  # 12 - 10 = 2 < 3: no attack roll allowed
    assert _opt(rules, b, "bow") is None
    rules2, b2 = duel(dist=70.0)
    assert _opt(rules2, b2, "bow").detail["eff"] == 3


def test_aim_adds_acc_next_turn() -> None:
    rules, b = duel(dist=10.0)
    opts = {o.command.name: o for o in rules.maneuver_options(b, "a")}
    assert opts["aim:bow:d"].detail["eff_next_turn"] == 12 - 4 + 2
    run_flow(rules.maneuver(b, opts["aim:bow:d"].command), lambda d: None)
    assert b.ap("a").current == 0 and turn_record(b, "a").maneuver == "aim"
    b.u["a"].ap = ActionPoints(1, 1)
    b.u["a"].turn = type(b.u["a"].turn)()
    assert rules.start_turn(b, "a")
    assert _opt(rules, b, "bow").detail["eff"] == 12 - 4 + 2
    assert "aimed (Acc)" in {m.source for m in _opt(rules, b, "bow").modifiers}


def test_rear_attack_has_no_defence_in_p_hurt() -> None:
    rules, b = duel()
    front = _opt(rules, b, "sword").detail["p_hurt"]
    b.u["d"].facing = 0.0
    rear = _opt(rules, b, "sword").detail["p_hurt"]
    exp = _opt(rules, b, "sword").detail["expected_damage"]
    pen = sum(p for inj, p in injury_pmf(1, 1, "cut", 0, False) if inj > 0)
    assert rear == pytest.approx(p_success(12) * pen)
    assert front < rear
    assert exp == pytest.approx(sum(i * p for i, p in injury_pmf(1, 1, "cut", 0, False)))


def _mc_attack(a, d, weapon: str, dist: float, n: int, seed: int, **sight):  # type: ignore[no-untyped-def]
    """Run ``n`` fresh attacks through the flow with the defender taking its best option."""
    rules, b = duel(a=a, d=d, dist=dist, seed=seed)
    if sight:
        b.set_sight("a", "d", **sight)
    opt = _opt(rules, b, weapon)
    choose = chooser({"defence": "best", "follow": "stay", "interpose": "do not"}, b)
    hit = hurt = 0
    for _ in range(n):
        heal(b, "d")
        b.u["d"].pos = (dist, 0.0)
        b.u["d"].posture = Posture.STANDING
        b.u["d"].defence = type(b.u["d"].defence)()
        b.u["a"].turn = type(b.u["a"].turn)()
        b.u["a"].pos = (0.0, 0.0)
        start = len(b.events)
        run_flow(rules.attack(b, Attack("a", "d", weapon)), choose)
        new = b.events[start:]
        hit += any(e["type"] == "attack" and e["hit"] for e in new)
        hurt += any(e["type"] == "damage" for e in new)
    return opt, hit / n, hurt / n


@pytest.mark.parametrize(
    ("attacker", "defender", "weapon", "dist"),
    [
        ("veteran", "heavy", "broadsword", 1.0),
        ("trooper", "swashbuckler", "broadsword", 1.0),
        ("marksman", "trooper", "longbow", 12.0),
    ],
)
def test_monte_carlo_attack_odds(attacker: str, defender: str, weapon: str, dist: float) -> None:
    p = profiles()
    n = 2000
    opt, p_hit, p_hurt = _mc_attack(p[attacker], p[defender], weapon, dist, n, seed=11)
    assert abs(p_hit - opt.p_success) <= bound(opt.p_success, n)
    assert abs(p_hurt - opt.detail["p_hurt"]) <= bound(opt.detail["p_hurt"], n)


def test_monte_carlo_rapid_fire_against_dodge() -> None:
    smg = {
        "name": "smg",
        "skill": "Bow",
        "kind": "missile",
        "damage": "1d pi",
        "max_range": 100,
        "rof": 4,
        "recoil": 2,
        "projectile": "bullet",
    }
    opt, _, p_hurt = _mc_attack(
        mk(weapons=[smg], extra_skills={"Bow": 16}), mk(weapons=[SWORD]), "smg", 2.0, 2000, seed=5
    )
    assert abs(p_hurt - opt.detail["p_hurt"]) <= bound(opt.detail["p_hurt"], 2000)
    assert opt.detail["expected_hits"] > 1.5


def test_attack_option_timing() -> None:
    # Each attack option (one target x weapon, with exact p_hurt) costs at most 1 ms.
    rules = GurpsRuleset()
    b = FakeBattle(rules)
    p = profiles()
    b.add("a", "red", (0.0, 0.0), p["veteran"])
    for i, name in enumerate(p):
        b.add(f"e{i}", "blue", (1.0 + 2.0 * i, 0.3 * i), p[name], facing=180.0)
    b.active = "a"
    rules.attack_options(b, "a")
    t = time.perf_counter()
    for _ in range(20):
        opts = rules.attack_options(b, "a")
    per = (time.perf_counter() - t) / 20 / len(opts)
    assert per < 1e-3, f"{per * 1e3:.3f} ms per option"


def test_injury_summary_matches_the_injury_distribution() -> None:
    # hurt_odds reads P(penetrate) and E[injury] from this memo: the same sums over injury_pmf.
    from game.rules.gurps.damage import injury_pmf
    from game.rules.gurps.ruleset import _injury_summary

    for args in [(1, 1, "cut", 2, False), (2, -1, "cr", 0, True), (1, 0, "imp", 9, False)]:
        dist = injury_pmf(*args)
        expected = (sum(p for inj, p in dist if inj > 0), sum(inj * p for inj, p in dist))
        assert _injury_summary(*args) == expected


@pytest.mark.parametrize("posture", list(Posture))
@pytest.mark.parametrize("cover", [c for c in CoverLevel if c != CoverLevel.TOTAL])
def test_posture_and_cover_modifiers_read_as_the_tables(posture: Posture, cover: CoverLevel) -> None:
    # attack_profile takes these modifiers from tables built once: each must carry the label and
    # value of the posture and cover tables (the labels go into the event log).
    from game.rules.gurps.stats import POSTURES

    rules, b = duel(a=mk(extra_skills={"Broadsword": 18, "Bow": 18}), dist=1.0)
    b.set_sight("a", "d", cover=cover)
    b.u["a"].posture = posture
    b.u["d"].posture = posture
    by_weapon = {}
    for w in b.stats("a").weapons:
        got = rules.attack_profile(b, "a", "d", w, b.sight("a", "d"))
        assert not isinstance(got, str)
        by_weapon[w.name] = {(m.source, m.value) for m in got[1]}
    row = POSTURES[posture]
    cover_mod = {(f"{cover.value} cover", COVER_PENALTY[cover])} - {(f"{cover.value} cover", 0)}
    melee = {(f"attacking while {posture.value}", row.melee_attack)} if row.melee_attack else set()
    ranged = {(f"target {posture.value}", row.target)} if row.target else set()
    assert by_weapon["sword"] == {("Broadsword", 18), *melee, *cover_mod}
    assert by_weapon["bow"] == {("Bow", 18), *ranged, *cover_mod}
    b.u["d"].pos = (3.0, 0.0)
    assert rules.attack_profile(b, "a", "d", b.stats("a").weapon("sword"), b.sight("a", "d")) == (
        "out of reach (2.00 yd gap)"
    )
