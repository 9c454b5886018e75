"""The planner's position evaluator: what a unit's side expects to gain and lose, in unit-worths.

Contract:
- Everything is measured in **worth**: a unit in action is worth ``ALIVE`` plus its health fraction
  (:func:`game.ai.tactics.condition`), so taking a share ``s`` of a unit's health off a unit at
  health ``h`` costs its side :func:`loss` = ``min(s, h) + ALIVE * min(1, s / h) ** 2`` (the
  second term is a crude chance that the hit puts it out of action).
- :func:`attack_gain` is the exact expected worth an attack option takes: its ``detail["p_hurt"]``
  (else ``p_success``) times :func:`loss` of its ``detail["expected_damage"]`` as a share of the
  target's health track. :func:`kill_chance` is the matching chance that the target goes down.
- A :class:`Board` is one decision's picture of the table for the deciding unit: its enemies and
  friends in action, their health, how much each enemy sees each friend now (the match's cached
  sight facts, for the pairs within the enemy's range estimate: the unit's own, or as far as the
  log saw that kind of enemy attack from; 0 beyond, where no shot counts), whether
  each enemy has had its turn this round, the deciding unit's odds against
  each enemy read from the decision's attack options (``pot``: chance to hurt a fully visible
  target at the typical range, ``share``: health share of a hit), and, for every unit whose odds
  no option shows (the enemies always: a policy never sees their options), the evidence of the
  battle so far (:mod:`game.ai.planner.facts`): how often that unit's profile hurt with shots and
  with blows in contact, and how badly, shrunk towards its side's record and a prior. Odds fall
  with distance as ``1 / (1 + gap / F)`` with F fitted to the battle's shots, and in proportion
  to the fraction of the target in sight. :func:`board` builds it once per decision.
- :func:`score_points` evaluates a unit standing at many points (one vectorized call of the exact
  cover kernel, :func:`game.ai.tactics.cover_matrix`, both directions) and returns, per point:
  ``offence`` (the best expected gain of one attack from there, enemies where they stand, in
  range by the board's range estimate), ``incoming`` (the expected worth the unit's side loses to
  the enemies' best replies: every enemy attacks the unit of this side it gains most from, by a
  soft maximum, fully visible targets through their exposure, hidden ones only if the enemy can
  walk near enough to flank or charge), ``approach`` (how near the enemies' weak points it is) and
  the shares of the incoming attacks aimed at the unit itself.
- Nothing here changes the match or draws random numbers; no ruleset is named.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from game.ai import tactics as t
from game.ai.planner.facts import log_facts
from game.core.commands import Decision, Option

#: Worth of a unit being in action beyond its health fraction (a unit out of action stops fighting).
ALIVE = 1.0
#: Chance that an attack hurts, that a blow in base contact hurts, and health share of a hurting hit,
#: assumed before the log tells.
DEFAULT_POT = 0.35
DEFAULT_MELEE = 0.5
DEFAULT_SHARE = 0.3
#: Gap (inches, base edge to edge) within which units are in melee.
MELEE_GAP = 1.0
#: Visibility below which an attack's odds are not scaled up to full visibility (noise guard).
MIN_VIS = 0.2
#: Temperature of the enemies' soft choice of target, in worth.
TARGET_TEMPERATURE = 0.1
#: An enemy that cannot see a point but can walk near it (within its move of base contact) threatens
#: it this much (it flanks or charges) and, if it also sees it, at least this much.
MOBILITY = 0.3
#: Weight of the reply of an enemy that has already had its turn this round (it acts again only
#: next round, before or after the unit as the initiative falls): the others act before it for sure.
ACTED_WEIGHT = 0.25
#: Attack range assumed when nothing in the decision tells (inches).
DEFAULT_RANGE = 30.0
#: Range estimates never exceed the longest attack seen by more than this (inches).
RANGE_SLACK = 6.0
#: Distance scale of the approach term (inches).
APPROACH_SCALE = 24.0
#: Attacks are assumed to hurt less often with distance: odds scale as ``1 / (1 + d / FALLOFF)``
#: relative to their value at TYPICAL_RANGE (range penalties, range bands; no ruleset-specific fit).
FALLOFF = 16.0
TYPICAL_RANGE = 12.0
#: Visibility of a typical attack (the hurt rates read from the log are at it).
TYPICAL_VIS = 0.8
#: The prior of a side's hurt rate and hit share, worth PRIOR_WEIGHT attacks of evidence from the log.
PRIOR_WEIGHT = 4.0


def seen(vis: Any) -> Any:
    """How much of a target's chance a fraction ``vis`` of it in sight leaves: in proportion (the
    rulesets' cover penalties grow with the cover level; none is fitted to one ruleset)."""
    return np.asarray(vis, dtype=np.float64)


def falloff(d: float | np.ndarray, scale: float = FALLOFF) -> Any:
    """The distance factor of attack odds at gap ``d`` (1 at :data:`TYPICAL_RANGE`)."""
    return (1.0 + TYPICAL_RANGE / scale) / (1.0 + np.asarray(d, dtype=np.float64) / scale)


def loss(h: float | np.ndarray, s: float | np.ndarray) -> Any:
    """Worth lost when a unit at health fraction ``h`` takes a hit of ``s`` of its health track."""
    h_arr = np.maximum(np.asarray(h, dtype=np.float64), 1e-6)
    s_arr = np.asarray(s, dtype=np.float64)
    return np.minimum(s_arr, h_arr) + ALIVE * np.minimum(1.0, s_arr / h_arr) ** 2


def top(view: Any, uid: str) -> float:
    """Length of ``uid``'s longest health track (the scale of a hit's share), at least 1."""
    return max([1.0, *(float(v) for _, v in view.maxima(uid))])


def hurt_chance(opt: Option) -> float:
    """An attack option's exact chance to hurt: ``detail["p_hurt"]``, else ``p_success``."""
    d = opt.detail or {}
    p = d.get("p_hurt", opt.p_success)
    return float(p) if p is not None else 0.0


def hit_share(view: Any, opt: Option) -> float | None:
    """Expected damage of a hurting hit as a share of the target's track (None: not given)."""
    dmg = (opt.detail or {}).get("expected_damage")
    target = getattr(opt.command, "target", "")
    if dmg is None or not target:
        return None
    return float(dmg) / top(view, target)


def attack_gain(view: Any, opt: Option) -> float:
    """Expected worth the attack option takes off its target (see the module doc)."""
    p = hurt_chance(opt)
    target = getattr(opt.command, "target", "")
    if p <= 0.0 or not target:
        return 0.0
    s = hit_share(view, opt)
    h = t.condition(view, target)
    return p * float(loss(h, s if s is not None else DEFAULT_SHARE))


def kill_chance(view: Any, opt: Option) -> float:
    """The chance (by the same crude model as :func:`loss`) that the attack puts its target out."""
    p = hurt_chance(opt)
    target = getattr(opt.command, "target", "")
    if p <= 0.0 or not target:
        return 0.0
    s = hit_share(view, opt)
    h = max(t.condition(view, target), 1e-6)
    return p * min(1.0, (s if s is not None else DEFAULT_SHARE) / h) ** 2


def kind_share(view: Any, who: str) -> float:
    """The health share a hurting attack of ``who``'s kind (side and profile) takes: the log's
    record, shrunk towards its side's and a prior (:meth:`~game.ai.planner.facts.LogFacts.share`)."""
    facts = log_facts(view)
    return facts.share(
        facts.side_of.get(who, ""),
        facts.profile_of.get(who, ""),
        prior=DEFAULT_SHARE,
        weight=PRIOR_WEIGHT,
        scale=facts.scale(TYPICAL_RANGE),
        typical=TYPICAL_RANGE,
    )


@dataclass(frozen=True)
class Board:
    """One decision's picture of the table for the deciding unit (see the module doc).

    Arrays over enemies have length k (order of ``enemies``), over friends nf (``friends``, the
    deciding unit not included).
    """

    uid: str
    me: t.Me
    health: float
    enemies: tuple[str, ...]
    rows: np.ndarray
    exy: np.ndarray
    ebase: np.ndarray
    eh: np.ndarray
    pot: np.ndarray
    share: np.ndarray
    friends: tuple[str, ...]
    fxy: np.ndarray
    fbase: np.ndarray
    fh: np.ndarray
    vis_fe: np.ndarray
    act: np.ndarray
    enemy_pot: np.ndarray
    enemy_share: np.ndarray
    scale: float
    melee: float
    melee_share: float
    enemy_melee: np.ndarray
    reach: float
    range_est: float
    erange: np.ndarray
    attacks_per_turn: float
    #: Point-independent parts of :func:`score_points`, worked out on first use.
    cache: dict[str, Any] = field(default_factory=dict, compare=False)


def _range_estimate(view: Any, uid: str, decision: Decision | None, enemies: tuple[str, ...]) -> float:
    """How far the unit's attacks reach, read from which enemies the decision offers attacks on.

    Enemies it could attack are within range; visible enemies it is offered no attack on (while it
    has attacks on others) are beyond it: the estimate lies between. With no attack option, the
    longest attack its side was seen to make (the log), else the default.
    """
    seen_reach = log_facts(view).reach.get(view.unit(uid).side, 0.0)
    if decision is None:
        return max(DEFAULT_RANGE, seen_reach)
    offered = {getattr(o.command, "target", "") for o in t.attacks(decision)}
    if not offered:
        return max(DEFAULT_RANGE, seen_reach)
    here = view.pos(uid)
    lo = max(math.dist(here, view.pos(e)) for e in offered if e in enemies) if offered & set(enemies) else 0.0
    hi = math.inf
    for e in enemies:
        if e in offered:
            continue
        d = math.dist(here, view.pos(e))
        if d > lo and view.sight(uid, e).visible:
            hi = min(hi, d)
    if math.isinf(hi):
        return lo + RANGE_SLACK
    return min(lo + RANGE_SLACK, 0.5 * (lo + hi))


def _friends_in_sight(
    view: Any,
    enemies: tuple[str, ...],
    friends: tuple[str, ...],
    exy: np.ndarray,
    ebase: np.ndarray,
    fxy: np.ndarray,
    fbase: np.ndarray,
    range_est: np.ndarray,
) -> np.ndarray:
    """How much of each friend each enemy sees, ``(k, nf)``, read from the match's sight facts
    only for the pairs within ``range_est`` (base to base, as :func:`chances` measures it): a
    shot beyond the range counts nothing however much is seen, so the others stay 0. In a big
    battle most pairs are out of range, and each sight lookup costs tens of microseconds."""
    k, nf = len(enemies), len(friends)
    vis = np.zeros((k, nf), dtype=np.float64)
    if k == 0 or nf == 0:
        return vis
    gap = np.maximum(0.0, t.distances(exy, fxy) - ebase[:, None] - fbase[None, :])
    for i, j in zip(*np.nonzero(gap <= range_est[:, None]), strict=True):
        vis[i, j] = 1.0 - view.sight(enemies[i], friends[j]).cover_fraction
    return vis


def board(view: Any, decision: Decision | None, uid: str, reach: float) -> Board:
    """The :class:`Board` for ``uid`` deciding ``decision`` (None: a reaction, no attack options).

    Args:
        view: the match view.
        decision: the pending decision, read for its attack options (odds against each enemy).
        uid: the deciding unit.
        reach: how far an enemy is assumed to move in a turn (inches).
    """
    arena = view.table
    unit = t.me(view, uid)
    ids, rows = t.enemy_rows(view, uid)
    enemies = tuple(ids)
    exy = arena.xy[rows].copy() if len(rows) else np.zeros((0, 2))
    ebase = arena.base[rows].copy() if len(rows) else np.zeros(0)
    eh = np.array([t.condition(view, e) for e in enemies], dtype=np.float64)
    k = len(enemies)
    pot = np.full(k, np.nan)
    share = np.full(k, np.nan)
    facts = log_facts(view)
    scale = facts.scale(TYPICAL_RANGE)

    known_rates: dict[tuple[str, str, bool], float] = {}
    known_shares: dict[tuple[str, str], float] = {}

    def rate(who: str, blow: bool) -> float:
        key = (facts.side_of.get(who, ""), facts.profile_of.get(who, ""), blow)
        got = known_rates.get(key)
        if got is None:
            prior = DEFAULT_MELEE if blow else DEFAULT_POT
            got = facts.rate(
                blow, key[0], key[1], scale=scale, typical=TYPICAL_RANGE, prior=prior, weight=PRIOR_WEIGHT
            )
            got = known_rates[key] = got if blow else got / TYPICAL_VIS
        return got

    def share_of(who: str) -> float:
        key = (facts.side_of.get(who, ""), facts.profile_of.get(who, ""))
        got = known_shares.get(key)
        if got is None:
            got = known_shares[key] = kind_share(view, who)
        return got

    my_rate = rate(uid, False)
    my_share = share_of(uid)
    enemy_pot = np.array([rate(e, False) for e in enemies], dtype=np.float64)
    enemy_melee = np.array([rate(e, True) for e in enemies], dtype=np.float64)
    enemy_share = np.array([share_of(e) for e in enemies], dtype=np.float64)
    if decision is not None:
        index = {e: i for i, e in enumerate(enemies)}
        for o in t.attacks(decision):
            i = index.get(getattr(o.command, "target", ""))
            if i is None:
                continue
            vis = max(MIN_VIS, float(seen(1.0 - view.sight(uid, enemies[i]).cover_fraction)))
            near = float(
                falloff(max(0.0, math.dist(unit.xy, view.pos(enemies[i])) - unit.base - ebase[i]), scale)
            )
            p = hurt_chance(o) / vis / near
            s = hit_share(view, o)
            if np.isnan(pot[i]) or p > pot[i]:
                pot[i] = p
                share[i] = s if s is not None else DEFAULT_SHARE
    known = ~np.isnan(pot)
    pot = np.where(known, pot, my_rate)
    share = np.where(known, share, my_share)
    friends = tuple(f for f in view.friends(uid))
    fxy = np.array([view.pos(f) for f in friends], dtype=np.float64).reshape(-1, 2)
    fh = np.array([t.condition(view, f) for f in friends], dtype=np.float64)
    fbase = np.array([view.base(f) for f in friends], dtype=np.float64)
    range_est = _range_estimate(view, uid, decision, enemies)
    # An enemy reaches at least as far as the unit (nothing tells otherwise) and as far as its
    # kind of unit was seen to attack from (an outranging bow shoots from beyond the unit's range).
    kinds = [(facts.side_of.get(e, ""), facts.profile_of.get(e, "")) for e in enemies]
    erange = np.array([max(range_est, facts.profile_reach.get(k, 0.0)) for k in kinds], dtype=np.float64)
    vis_fe = _friends_in_sight(view, enemies, friends, exy, ebase, fxy, fbase, erange)
    costs = t.action_costs(view, uid)
    attack_cost = costs.get("attack")
    ap_max = view.unit(uid).ap_max
    per_turn = 1.0 if not attack_cost else max(1.0, min(2.0, float(ap_max // max(1, attack_cost))))
    return Board(
        uid=uid,
        me=unit,
        health=t.condition(view, uid),
        enemies=enemies,
        rows=rows,
        exy=exy,
        ebase=ebase,
        eh=eh,
        pot=pot,
        share=share,
        friends=friends,
        fxy=fxy,
        fbase=fbase,
        fh=fh,
        vis_fe=vis_fe,
        act=np.array([ACTED_WEIGHT if e in facts.acted else 1.0 for e in enemies], dtype=np.float64),
        enemy_pot=enemy_pot,
        enemy_share=enemy_share,
        scale=scale,
        melee=rate(uid, True),
        melee_share=my_share,
        enemy_melee=enemy_melee,
        reach=reach,
        range_est=range_est,
        erange=erange,
        attacks_per_turn=per_turn,
    )


@dataclass(frozen=True)
class PointScores:
    """Per candidate point (see :func:`score_points`)."""

    points: np.ndarray
    offence: np.ndarray
    incoming: np.ndarray
    mine: np.ndarray
    mine_e: np.ndarray
    approach: np.ndarray
    per_enemy: np.ndarray
    #: (m, k) the unit's cover fraction at each point from each enemy (1.0: out of its sight),
    #: for telling a player why (the trace); None where not computed.
    exposed: np.ndarray | None = None


def chances(
    pot: Any,
    melee: Any,
    gap: np.ndarray,
    vis: np.ndarray,
    range_est: float | np.ndarray,
    reach: float | None,
    scale: float = FALLOFF,
) -> tuple[np.ndarray, np.ndarray]:
    """Chances that a shot and that a blow hurt a unit seen ``vis`` of, ``gap`` inches away.

    A shot: ``pot`` scaled by :func:`falloff` and by what is seen, if in range. A blow: ``melee``
    in base contact (within :data:`MELEE_GAP`) and, with ``reach`` (an enemy moving first), a
    charge: :data:`MOBILITY` × ``melee`` if the attacker can walk into contact.
    """
    shot = np.minimum(1.0, pot * falloff(gap, scale)) * vis * (gap <= range_est)
    blow = melee * (gap <= MELEE_GAP) + 0.0 * gap
    if reach is not None:
        walk = np.clip(1.0 - (gap - reach) / max(1.0, 0.25 * reach), 0.0, 1.0)
        blow = np.maximum(blow, MOBILITY * melee * walk)
    return np.asarray(shot), np.asarray(blow)


def _fixed(b: Board) -> dict[str, Any]:
    """The parts of :func:`score_points` that do not depend on the points (cached on the board)."""
    f = b.cache
    if "gain_shot" not in f:
        f["gain_shot"] = loss(b.eh, b.share)[None, :]  # worth of a hurting shot / blow on each enemy
        f["gain_blow"] = loss(b.eh, b.melee_share)[None, :]
        f["approach"] = np.maximum(b.pot * f["gain_shot"][0], b.melee * f["gain_blow"][0])[None, :]
        f["loss_me"] = loss(b.health, b.enemy_share)[None, :]
        f["a_f"] = None
        if len(b.friends):
            d_fe = t.distances(b.exy, b.fxy)  # (k, nf)
            gap_f = np.maximum(0.0, d_fe - b.ebase[:, None] - b.fbase[None, :])
            shot_f, blow_f = chances(
                b.enemy_pot[:, None],
                b.enemy_melee[:, None],
                gap_f,
                seen(b.vis_fe),
                b.erange[:, None],
                b.reach,
                b.scale,
            )
            a_f = np.maximum(shot_f, blow_f) * loss(b.fh[None, :], b.enemy_share[:, None])  # (k, nf)
            f["a_f"] = a_f
            f["top_f"] = a_f.max(axis=1)
    return f


def score_points(
    view: Any, b: Board, points: np.ndarray, height: float | None = None, here: bool = False
) -> PointScores:
    """Evaluate ``b.uid`` standing at each of ``points`` (m, 2) (see the module doc).

    Args:
        view: the match view.
        b: the board.
        points: candidate centres.
        height: silhouette height to assume (a posture change); default the current one.
        here: ``points`` is the one spot where the unit stands, as it stands: cover from the
            match's sight facts instead of a kernel call.
    """
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    m, k = len(pts), len(b.enemies)
    if k == 0:
        z = np.zeros(m)
        return PointScores(pts, z, z, z, np.zeros((m, 0)), z, np.zeros((m, 0)))
    if here and height is None:
        exposed, shot_cover = t.cover_here(view, b.uid, b.enemies)
    else:
        exposed, shot_cover = t.cover_matrix(view, b.me, pts, b.rows, height)
    return score_covers(b, pts, exposed, shot_cover)


def score_heights(view: Any, b: Board, heights: list[float]) -> PointScores:
    """:func:`score_points` for the unit where it stands at each of ``heights`` (posture changes):
    one row per height, scored in one pass."""
    here = np.array([b.me.xy], dtype=np.float64)
    pts = np.repeat(here, len(heights), axis=0)
    if len(b.enemies) == 0 or not heights:
        return score_points(view, b, pts)
    covers = [t.cover_matrix(view, b.me, here, b.rows, h) for h in heights]
    exposed = np.concatenate([c[0] for c in covers])
    shot_cover = np.concatenate([c[1] for c in covers])
    return score_covers(b, pts, exposed, shot_cover)


def score_covers(b: Board, pts: np.ndarray, exposed: np.ndarray, shot_cover: np.ndarray) -> PointScores:
    """The scores of :func:`score_points` from the cover both ways at each point."""
    m, k = len(pts), len(b.enemies)
    f = _fixed(b)
    d = t.distances(pts, b.exy)  # (m, k)
    gap = np.maximum(0.0, d - b.me.base - b.ebase[None, :])
    # My offence from each point: enemies where they stand, in range and seen.
    shot, blow = chances(b.pot[None, :], b.melee, gap, seen(1.0 - shot_cover), b.range_est, None, b.scale)
    offence = np.maximum(shot * f["gain_shot"], blow * f["gain_blow"]).max(axis=1)
    approach = (f["approach"] / (1.0 + d / APPROACH_SCALE)).max(axis=1)
    # The enemies' best replies: each attacks the unit of this side it gains most from.
    shot, blow = chances(
        b.enemy_pot[None, :],
        b.enemy_melee[None, :],
        gap,
        seen(1.0 - exposed),
        b.erange[None, :],
        b.reach,
        b.scale,
    )
    a_me = np.maximum(shot, blow) * f["loss_me"]  # (m, k)
    a_f = f["a_f"]
    if a_f is not None:
        hi = np.maximum(a_me, f["top_f"][None, :])
        w_me = np.exp((a_me - hi) / TARGET_TEMPERATURE)
        w_f = np.exp((a_f[None, :, :] - hi[:, :, None]) / TARGET_TEMPERATURE)  # (m, k, nf)
        z = w_me + w_f.sum(axis=2)
        share_me = w_me / z
        per_enemy = (w_me * a_me + (w_f * a_f[None, :, :]).sum(axis=2)) / z
    else:
        share_me = np.ones((m, k))
        per_enemy = a_me
    per_enemy = per_enemy * (b.attacks_per_turn * b.act)[None, :]
    incoming = per_enemy.sum(axis=1)
    mine_e = share_me * a_me * (b.attacks_per_turn * b.act)[None, :]
    return PointScores(pts, offence, incoming, mine_e.sum(axis=1), mine_e, approach, per_enemy, exposed)
