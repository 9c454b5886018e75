"""Shared judgement for the built-in AI policies: health, odds, cover at candidate points.

Contract:
- Everything here only reads the match through the :class:`~game.engine.view.MatchView`
  (its live read-only unit table, the vectorized cover kernel, straight slides and paths)
  and draws randomness only from the generator passed in. Nothing changes the match.
- :func:`condition` is a unit's remaining health as a fraction in [0, 1],
  whatever the ruleset's tracks mean: a track that started at its maximum
  (hit points) counts down, one that started at 0 (wounds, stun) counts up.
  :func:`remaining` is the same in track points (the smallest margin of any track).
- :func:`attack_value` ranks an attack option: the probability it hurts
  (``detail["p_hurt"]``, else ``p_success``) times the share of the target's
  remaining health it is expected to take (``detail["expected_damage"]``), so a
  likely finishing blow beats a scratch on a fresh target.
- :func:`next_turn_value` values a maneuver that promises a better attack next turn
  (GURPS Aim): from ``detail["p_hurt_next_turn"]`` / ``detail["p_success_next_turn"]``
  when the option gives them, else from ``detail["eff_next_turn"]`` on the scale of the
  matching attack option's ``detail["eff"]``, but only where that scale is a roll-under
  3d6 one, which the attack option's own ``p_success`` must confirm.
  :func:`best_setup` is the best such option; :data:`SETUP_GAIN` how much better than
  attacking now it must be (it gives up this turn's attack).
- :func:`cover_matrix` runs the geometry's exact cover kernel for a unit placed
  at many candidate points against many enemies in one numpy call: both how well
  each enemy sees the unit there (exposure) and how well the unit would see each
  enemy from there (its shot). :func:`threat` folds the exposure into one number
  per point; :func:`exposure_now` and :func:`cover_here` give the same numbers
  for where the unit stands from the match's cached sight facts, without a
  kernel call. Single-point queries are remembered per match (by its unit table)
  by everything they depend on (they recur while nobody moves). :func:`exposure_matrix`
  is the exposure alone (the same numbers, half the kernel's work) for threat-only scores;
  :func:`best_shot` the best weighted shot from each point, asking only the enemies that
  could still raise it.
- Answers about the match as it stands (health margins, enemies in action, a
  unit's place) are remembered per view until the match logs an event or the
  table changes (``view.table.stamp``); a decision's attack and maneuver options are
  sorted out once. Returned arrays and tuples are shared: callers must not change them.
- :func:`first_legal` validates ranked candidates, straight-line reachable
  ones first (the validator may run an exact shortest-path search).
- Chosen points are rounded to :data:`POINT_DECIMALS` places *before* they are
  validated: the event log stores commands rounded, and a replay must apply the
  very same point the policy chose.
"""

from __future__ import annotations

import itertools
import math
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from components.spatial import POSTURE_HEIGHT, Posture
from game.ai.points import sample_in, sampling_region
from game.core.commands import Attack, Decision, Maneuver, Option
from game.engine.view import FloatArray, IntArray, MatchView, UnitTableView
from game.movement.path import Path

#: Decimal places of every point an AI chooses (the log keeps 9; 6 is a micro-inch).
POINT_DECIMALS = 6

#: Enemies farther than this (inches) count for less in threat sums (1/(1 + d/THREAT_RANGE)).
THREAT_RANGE = 24.0

Point = tuple[float, float]


@dataclass
class _Memo:
    """What the policies remember about one view, brought up to date from new log events only.

    ``start``: each unit's health at match start; ``attacked``: units that attacked in their
    current turn; ``now``: answers that hold until the match logs an event or the table
    changes (see :func:`_now`), valid for ``now_at`` = (events seen, ``view.table.stamp``).
    """

    seen: int = 0
    start: dict[str, dict[str, int]] = field(default_factory=dict)
    attacked: set[str] = field(default_factory=set)
    now: dict[tuple[str, str], Any] = field(default_factory=dict)
    now_at: tuple[int, int] = (-1, -1)


_MEMO: weakref.WeakKeyDictionary[MatchView, _Memo] = weakref.WeakKeyDictionary()


#: The last view asked about (weakly) and its memo: a battle asks about one view thousands of
#: times in a row.
_LAST: tuple[Callable[[], MatchView | None], _Memo | None] = (lambda: None, None)


def _memo(view: MatchView) -> _Memo:
    global _LAST
    memo = _LAST[1]
    if memo is None or _LAST[0]() is not view:
        memo = _MEMO.get(view)
        if memo is None:
            memo = _MEMO[view] = _Memo()
        _LAST = (weakref.ref(view), memo)
    if view.event_count == memo.seen:
        return memo  # nothing new (the common case: many questions per decision)
    new = view.events(memo.seen)
    if new:
        for e in new:
            kind = e["type"]
            if kind == "turn_start":
                memo.attacked.discard(e["unit"])
            elif kind == "command" and e["command"].get("type") == "Attack":
                memo.attacked.add(e["unit"])
            elif kind == "match_start":
                memo.start = {u["id"]: dict(u.get("health", {})) for u in e.get("units", [])}
        memo.seen += len(new)
    return memo


def inherit_memo(child: MatchView, parent: MatchView) -> None:
    """Give ``child`` (a view of a clone of ``parent``'s match, whose log begins with all of
    ``parent``'s events) a copy of what the policies remember of ``parent``, so that it reads only
    the clone's own events instead of the whole log again."""
    src = _memo(parent)
    _MEMO[child] = _Memo(
        seen=src.seen,
        start={u: dict(h) for u, h in src.start.items()},
        attacked=set(src.attacked),
    )


def _now(view: MatchView) -> dict[tuple[str, str], Any]:
    """Answers about the match as it stands, by (question, unit id).

    Cached: one decision asks the same questions many times (every attack option asks for its
    target's health, every scoring for the unit's place and its enemies), and so do the
    decisions of one turn while nothing happens. Health and who is in action change only with
    a logged event (the view's contract), places and heights only with a new table stamp:
    the answers are dropped on the first question after either.
    """
    global _NOW
    ref, count, stamp, now = _NOW
    if ref() is view and view.event_count == count and view.table.stamp == stamp:
        return now  # the common case, without reading the log (many questions per state)
    memo = _memo(view)
    at = (memo.seen, view.table.stamp)
    if memo.now_at != at:
        memo.now.clear()
        memo.now_at = at
    if view.event_count == memo.seen:
        _NOW = (weakref.ref(view), memo.seen, at[1], memo.now)
    return memo.now


#: The last view's current answers and the (event count, stamp) they hold for: the fast path
#: of :func:`_now`.
_NOW: tuple[Callable[[], MatchView | None], int, int, dict[tuple[str, str], Any]] = (lambda: None, -1, -1, {})


def _margins(view: MatchView, uid: str) -> list[tuple[float, float]]:
    """(points left, maximum) per health track of ``uid``."""
    now = _now(view)
    got: list[tuple[float, float]] | None = now.get(("margins", uid))
    if got is not None:
        return got
    start = _memo(view).start.get(uid, {})
    maxima = dict(view.maxima(uid))
    out = []
    for track, value in view.health(uid):
        top = maxima.get(track, 0)
        if top <= 0:
            continue
        if start.get(track, top) >= top:  # started full: counts down (hit points)
            left = float(value)
        else:  # started empty: counts up (wounds, stun)
            left = float(top - value)
        out.append((max(0.0, left), float(top)))
    now[("margins", uid)] = out
    return out


def remembered_quarry(view: MatchView, uid: str, quarry: str | None = None) -> str | None:
    """The quarry ``uid`` chose before (None if none); with ``quarry``, remember that one.

    Kept in the match's AI memory, not the view's: no event records it, and a saved game
    must carry it to continue as the original would.
    """
    if quarry is not None:
        view.remember("quarry", uid, quarry)
        return quarry
    return view.ai_memory.get("quarry", {}).get(uid)


def attacked_this_turn(view: MatchView, uid: str) -> bool:
    """Whether ``uid`` has attacked since its last ``turn_start``."""
    return uid in _memo(view).attacked


def condition(view: MatchView, uid: str) -> float:
    """Remaining health of ``uid`` in [0, 1] (1 = untouched, 0 = at a track's limit)."""
    now = _now(view)
    got: float | None = now.get(("condition", uid))
    if got is None:
        m = _margins(view, uid)
        got = now[("condition", uid)] = min((min(1.0, left / top) for left, top in m), default=1.0)
    return got


def remaining(view: MatchView, uid: str) -> float:
    """Smallest number of track points ``uid`` can still lose (at least 1)."""
    now = _now(view)
    got: float | None = now.get(("remaining", uid))
    if got is None:
        m = _margins(view, uid)
        got = now[("remaining", uid)] = max(1.0, min((left for left, _ in m), default=1.0))
    return got


def attack_value(view: MatchView, opt: Option) -> float:
    """Expected share of the target's remaining health this attack takes (see module doc)."""
    d = opt.detail or {}
    p = d.get("p_hurt", opt.p_success)
    p = float(p) if p is not None else 0.0
    dmg = d.get("expected_damage")
    target = getattr(opt.command, "target", "")
    if dmg is None or not target:
        return p
    return p * min(1.0, float(dmg) / remaining(view, target)) + 1e-3 * p


def attacks(decision: Decision) -> list[Option]:
    """The attack options of a decision."""
    return list(_kinds(decision)[0])


def _kinds(decision: Decision) -> tuple[tuple[Option, ...], tuple[Option, ...]]:
    """The attack and the maneuver options of ``decision``, in order.

    Cached for the last decision asked about: one decision's options are scanned for attacks and
    maneuvers several times (best attack, setups and the attacks they prepare), and a decision
    never changes.
    """
    global _KINDS
    ref, got = _KINDS
    if ref() is not decision:
        opts = decision.options
        got = (
            tuple(o for o in opts if isinstance(o.command, Attack)),
            tuple(o for o in opts if isinstance(o.command, Maneuver)),
        )
        _KINDS = (weakref.ref(decision), got)
    return got


_KINDS: tuple[Callable[[], Any], tuple[tuple[Option, ...], tuple[Option, ...]]] = (lambda: None, ((), ()))


def best_attack(view: MatchView, decision: Decision) -> Option | None:
    """The attack option with the highest :func:`attack_value` (first on ties), or None."""
    best: Option | None = None
    best_v = -1.0
    for o in _kinds(decision)[0]:
        v = attack_value(view, o)
        if v > best_v + 1e-12:
            best, best_v = o, v
    return best


#: An attack whose chance to hurt (``detail["p_hurt"]``, else ``p_success``) is below this is
#: hopeless: the policies would rather aim, close in or find a better firing position.
HOPELESS_P = 0.05


def hopeless(opt: Option | None) -> bool:
    """Whether ``opt`` (an attack option, or None for no attack) is hardly worth its AP."""
    if opt is None:
        return True
    d = opt.detail or {}
    p = d.get("p_hurt", opt.p_success)
    return p is not None and float(p) < HOPELESS_P


#: A maneuver for a better next-turn attack gives up this turn's attack: it must promise at
#: least this many times the value of attacking now (two attacks against one, and a margin
#: for the target moving or the aim being spoiled).
SETUP_GAIN = 2.5
#: Ways to roll each total on 3d6 (index = total).
_WAYS_3D6 = [0, 0, 0, 1, 3, 6, 10, 15, 21, 25, 27, 27, 25, 21, 15, 10, 6, 3, 1]


def roll_under_3d6(eff: float) -> float:
    """P(3d6 <= eff), where 3-4 always succeed and 17-18 always fail (the roll-under scale)."""
    limit = max(4, min(int(eff), 16))
    return sum(_WAYS_3D6[: limit + 1]) / 216.0


def _matching_attack(decision: Decision, opt: Option) -> Option | None:
    """The attack option a setup maneuver prepares: the one whose target and weapon both
    appear in the maneuver's ``:``-separated name (e.g. ``aim:bow:red-1``), else None."""
    parts = set(str(getattr(opt.command, "name", "")).split(":"))
    for a in _kinds(decision)[0]:
        cmd = a.command
        if cmd.target in parts and (not getattr(cmd, "weapon", None) or cmd.weapon in parts):
            return a
    return None


def next_turn_attack(decision: Decision, opt: Option) -> Option | None:
    """The attack option ``opt`` (a maneuver) promises for next turn, with the promised odds.

    None when the option promises nothing the policy can read (see the module doc).
    """
    d = opt.detail or {}
    if not any(k in d for k in ("p_hurt_next_turn", "p_success_next_turn", "eff_next_turn")):
        return None
    now = _matching_attack(decision, opt)
    if now is None or now.p_success is None:
        return None
    nd = now.detail or {}
    p_now = float(now.p_success)
    hurt_now = float(nd.get("p_hurt", p_now))
    if "p_hurt_next_turn" in d:
        p_next = float(d["p_hurt_next_turn"])
    else:
        if "p_success_next_turn" in d:
            succ_next = float(d["p_success_next_turn"])
        else:
            eff_now = nd.get("eff")
            if eff_now is None or abs(roll_under_3d6(eff_now) - p_now) > 1e-6:
                return None  # not a roll-under 3d6 scale: eff_next_turn cannot be read
            succ_next = roll_under_3d6(d["eff_next_turn"])
        if p_now <= 0.0:
            return None
        p_next = min(1.0, hurt_now * succ_next / p_now)
    return Option(now.command, now.label, p_success=p_next, detail={**nd, "p_hurt": p_next})


def next_turn_value(view: MatchView, decision: Decision, opt: Option) -> float | None:
    """:func:`attack_value` of the attack ``opt`` promises for next turn, or None."""
    promised = next_turn_attack(decision, opt)
    return None if promised is None else attack_value(view, promised)


def best_setup(view: MatchView, decision: Decision) -> tuple[Option, float] | None:
    """The maneuver option with the best :func:`next_turn_value` (first on ties), or None.

    Only options whose promised attack is not :func:`hopeless` count.
    """
    best: tuple[Option, float] | None = None
    for o in _kinds(decision)[1]:
        promised = next_turn_attack(decision, o)
        if promised is None or hopeless(promised):
            continue
        v = attack_value(view, promised)
        if best is None or v > best[1] + 1e-12:
            best = (o, v)
    return best


def setup_beats_attack(view: MatchView, decision: Decision, attack: Option | None) -> Option | None:
    """The setup maneuver to take instead of ``attack`` (None: attack, or nothing worth it)."""
    got = best_setup(view, decision)
    if got is None:
        return None
    now = attack_value(view, attack) if attack is not None else 0.0
    if got[1] <= SETUP_GAIN * now + 1e-9:
        return None
    return got[0]


def find(decision: Decision, cmd_type: type, point: bool | None = None) -> Option | None:
    """The first option whose command is a ``cmd_type`` (and is/isn't a point option)."""
    for o in decision.options:
        if isinstance(o.command, cmd_type) and (point is None or (o.point_field is not None) == point):
            return o
    return None


# --------------------------------------------------------------------------- the table
@dataclass(frozen=True)
class Me:
    """A unit as the geometry sees it: table row, centre, base radius and silhouette height."""

    uid: str
    row: int
    xy: Point
    base: float
    height: float


def me(view: MatchView, uid: str) -> Me:
    now = _now(view)
    got: Me | None = now.get(("me", uid))
    if got is None:
        table = view.table
        i = table.index_of[uid]
        x, y = table.xy[i].tolist()
        got = now[("me", uid)] = Me(uid, i, (x, y), float(table.base[i]), float(table.height[i]))
    return got


def posture_height(view: MatchView, uid: str, posture: str) -> float:
    """Silhouette height ``uid`` would have in ``posture``."""
    return POSTURE_HEIGHT[Posture(posture)] * float(view.size(uid))


def enemies(view: MatchView, uid: str) -> tuple[str, ...]:
    """Ids of the enemies of ``uid`` in action (``view.enemies``, remembered: see :func:`_now`)."""
    return _enemy_rows(view, uid)[0]


def enemy_rows(view: MatchView, uid: str) -> tuple[list[str], IntArray]:
    """Ids of the enemies in action and their table rows (read-only)."""
    ids, rows = _enemy_rows(view, uid)
    return list(ids), rows


def _enemy_rows(view: MatchView, uid: str) -> tuple[tuple[str, ...], IntArray]:
    now = _now(view)
    got: tuple[tuple[str, ...], IntArray] | None = now.get(("enemies", uid))
    if got is None:
        ids = tuple(view.enemies(uid))
        index_of = view.table.index_of
        rows = np.array([index_of[e] for e in ids], dtype=np.int64)
        rows.setflags(write=False)  # shared by every caller until the answers are dropped
        got = now[("enemies", uid)] = (ids, rows)
    return got


def cover_matrix(
    view: MatchView, unit: Me, points: npt.ArrayLike, rows: IntArray, height: float | None = None
) -> tuple[FloatArray, FloatArray]:
    """Exact cover for ``unit`` standing at each of ``points`` against the enemies in ``rows``.

    Args:
        view: the match view.
        unit: the unit (its base; its height unless ``height`` is given).
        points: (m, 2) candidate centres.
        rows: (k,) table rows of the enemies.
        height: silhouette height to assume there (a posture change), default the current one.

    Returns:
        ``(exposed, shot)``: (m, k) cover fractions of the unit at each point as each enemy
        sees it, and of each enemy as the unit would see it from that point (1.0: no sight).
    """
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    m, k = len(pts), len(rows)
    if m == 0 or k == 0:
        return np.ones((m, k)), np.ones((m, k))
    h = float(unit.height if height is None else height)
    if m == 1:
        # Single-point questions (a posture change where the unit stands) recur unchanged from
        # turn to turn while nobody moves: remember their answers by everything they depend on.
        table = view.table
        key = (
            pts.tobytes(),
            unit.base,
            h,
            rows.tobytes(),
            table.xy[rows].tobytes(),
            table.height[rows].tobytes(),
            table.base[rows].tobytes(),
        )
        memo = _SINGLE.get(table)
        if memo is None:
            memo = _SINGLE[table] = {}
        got = memo.get(key)
        if got is None:
            if len(memo) >= _SINGLE_SIZE:
                memo.clear()
            got = memo[key] = view.cover_at_points(pts, unit.base, h, rows)
        return got[0].copy(), got[1].copy()
    return view.cover_at_points(pts, unit.base, h, rows)


def exposure_matrix(
    view: MatchView, unit: Me, points: npt.ArrayLike, rows: IntArray, height: float | None = None
) -> FloatArray:
    """The ``exposed`` half of :func:`cover_matrix` (equal to it bit for bit) for callers that
    weigh only the threat: the kernel skips the other direction."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(pts) == 1 or len(pts) == 0 or len(rows) == 0:
        return cover_matrix(view, unit, pts, rows, height)[0]  # single points are remembered there
    return view.exposure_at_points(pts, unit.base, float(unit.height if height is None else height), rows)


def best_shot(
    view: MatchView,
    unit: Me,
    points: npt.ArrayLike,
    rows: IntArray,
    weights: FloatArray,
    exposed: FloatArray,
    height: float | None = None,
) -> FloatArray:
    """(m,) the best weighted shot from each point, ``max_j weights * (1 - shot cover)`` over the
    enemies ``rows``, equal bit for bit to taking it over the whole ``shot`` of
    :func:`cover_matrix`, with far fewer pairs asked of the kernel.

    An enemy's term is at most its weight (``1 - cover`` is at most 1, and rounding keeps the
    product at most the weight), so once a point has a shot worth ``b``, enemies weighing at
    most ``b`` there cannot raise it. Each point first asks the enemy that sees it best
    (``exposed``, the other direction: sight is mostly mutual), then only the enemies
    weighing more than that shot.
    """
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    h = float(unit.height if height is None else height)
    idx = np.arange(len(pts))
    first = (weights * (1.0 - exposed)).argmax(axis=1)
    best = (1.0 - view.shot_from_points(pts, unit.base, h, rows, idx, first)) * weights[idx, first]
    need = weights > best[:, None]
    need[idx, first] = False
    at_point, at_unit = np.nonzero(need)
    if len(at_point):
        more = (1.0 - view.shot_from_points(pts, unit.base, h, rows, at_point, at_unit)) * weights[
            at_point, at_unit
        ]
        np.maximum.at(best, at_point, more)
    return best


#: Remembered single-point cover matrices, per match (by its table; see :func:`cover_matrix`).
_SINGLE: weakref.WeakKeyDictionary[UnitTableView, dict[tuple[Any, ...], tuple[FloatArray, FloatArray]]] = (
    weakref.WeakKeyDictionary()
)
_SINGLE_SIZE = 256


def distances(points: np.ndarray, exy: np.ndarray) -> np.ndarray:
    """(m, k) distances from each of ``points`` to each of the enemy centres ``exy``."""
    return np.hypot(points[:, None, 0] - exy[None, :, 0], points[:, None, 1] - exy[None, :, 1])


def weights_of(d: np.ndarray) -> np.ndarray:
    """Threat weights of enemies at distances ``d``: nearer enemies matter more."""
    return 1.0 / (1.0 + d / THREAT_RANGE)


def distance_weights(points: FloatArray, view: MatchView, rows: IntArray) -> FloatArray:
    """(m, k) weights of each enemy's threat at each point: nearer enemies matter more."""
    return weights_of(distances(points, view.table.xy[rows]))


def exposure_now(view: MatchView, uid: str) -> tuple[np.ndarray, np.ndarray]:
    """Where ``uid`` stands now: (k,) its cover fraction as each enemy sees it, and (k,) weights.

    Read from the match's cached sight facts (kept current by the visibility system), so it
    costs no kernel call; :func:`cover_matrix` at the same point gives the same fractions.
    """
    ids, rows = enemy_rows(view, uid)
    if not ids:
        return np.ones(0), np.ones(0)
    unit = me(view, uid)
    cover = np.array([view.sight(e, uid).cover_fraction for e in ids], dtype=np.float64)
    return cover, distance_weights(np.array([unit.xy]), view, rows)[0]


def threat_now(view: MatchView, uid: str) -> float:
    """The weighted threat (:func:`threat`) where ``uid`` stands now, from the match's cached
    sight facts (:func:`exposure_now`)."""
    cover, weights = exposure_now(view, uid)
    return float(threat(cover[None, :], weights[None, :])[0])


def cover_here(view: MatchView, uid: str, ids: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`cover_matrix` for the one point where ``uid`` stands, at its current height,
    against the enemies ``ids``, read from the match's cached sight facts (no kernel call):
    (1, k) exposure and (1, k) shot cover."""
    exposed = np.array([[view.sight(e, uid).cover_fraction for e in ids]], dtype=np.float64)
    shot = np.array([[view.sight(uid, e).cover_fraction for e in ids]], dtype=np.float64)
    return exposed, shot


def threat(exposed: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(m,) weighted sum over enemies of how much of the unit each one sees."""
    if exposed.size == 0:
        return np.zeros(exposed.shape[0])
    return np.asarray(((1.0 - exposed) * weights).sum(axis=1))


# --------------------------------------------------------------------------- points
def rounded(p: Iterable[float]) -> Point:
    x, y = p
    return (round(float(x), POINT_DECIMALS), round(float(y), POINT_DECIMALS))


def candidates(option: Option, rng: np.random.Generator, n: int, extra: Sequence[Point] = ()) -> np.ndarray:
    """Candidate points for a point option: ``extra`` first, then ``n`` uniform samples of its region."""
    out = sample_in(sampling_region(option), n, rng)
    if len(extra):
        out = np.concatenate([np.asarray(extra, dtype=np.float64).reshape(-1, 2), out])
    return np.round(out, POINT_DECIMALS, out=out)  # (out is a fresh array)


#: Candidates whose straight line is blocked that are still validated (each may cost a full
#: shortest-path search) when no straight-line candidate is accepted.
DETOUR_TRIES = 2


def first_legal(
    option: Option,
    points: np.ndarray,
    order: Iterable[int],
    tries: int = 8,
    view: MatchView | None = None,
    uid: str | None = None,
) -> Point | None:
    """The first point (in ``order``) the option's validator accepts, or None.

    Validating a point can mean an exact shortest-path search (milliseconds); with ``view``
    and ``uid`` given, candidates the unit can reach in a straight line (a cheap swept-disc
    test) are validated first, in order, up to ``tries`` of them, and only then at most
    :data:`DETOUR_TRIES` of the others.
    """
    idx = order.tolist() if isinstance(order, np.ndarray) else [int(i) for i in order]
    rows = np.asarray(points, dtype=np.float64).tolist()  # Python floats: rounded() the same
    if view is None or uid is None:
        for i in idx[:tries]:
            p = rounded(rows[i])
            if option.validate is None or option.validate(p) is None:
                return p
        return None
    unit = me(view, uid)
    detours: list[Point] = []
    tried = 0
    for i in idx:
        x, y = rows[i]
        p = (round(x, POINT_DECIMALS), round(y, POINT_DECIMALS))
        if view.segment_clear(uid, unit.xy, p):
            tried += 1
            if option.validate is None or option.validate(p) is None:
                return p
            if tried >= tries:
                break
        elif len(detours) < DETOUR_TRIES:
            detours.append(p)
    for p in detours:
        if option.validate is None or option.validate(p) is None:
            return p
    return None


def along(path_points: Sequence[Point], budget: float, stop_short: float = 0.0) -> Point:
    """The point ``budget`` inches along a polyline, but at least ``stop_short`` before its end."""
    pts = [(float(p[0]), float(p[1])) for p in path_points]
    segs = [math.dist(a, b) for a, b in itertools.pairwise(pts)]
    total = sum(segs)
    go = max(0.0, min(budget, total - stop_short))
    for a, b, seg in zip(pts, pts[1:], segs):
        if go <= seg:
            t = go / seg if seg > 0 else 0.0
            return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
        go -= seg
    return pts[-1]


def route(view: MatchView, unit: Me, goal: Point, ignore: str | None = None) -> Path | None:
    """Shortest free path of ``unit`` towards ``goal`` (other units block, except ``ignore``)."""
    return view.path(unit.uid, goal, ignore=ignore)


def action_costs(view: MatchView, uid: str) -> dict[str, int]:
    """AP costs of ``attack``, ``posture``, ``face``, ``step`` for ``uid`` now."""
    costs: dict[str, int] = view.action_costs(uid)
    return costs
