"""A PettingZoo AEC environment over one scenario: every unit is an agent (optional ``[rl]`` extra).

Contract:

- :func:`env` ``(scenario_path, ruleset=None, seed=None, render_mode=None, opponents=None)``
  loads the scenario (a bad file raises :class:`~game.core.errors.ScenarioError`) and returns a
  :class:`SkirmishEnv`, a ``pettingzoo.AECEnv``. Agents are the unit ids of the learning sides
  (every side not in ``opponents``) in scenario order; ``agent_selection`` is
  the unit of the match's pending decision: its turn, or a reaction that interrupts
  another unit's turn (a defence when it is attacked, a retreat or dodge move, a
  sacrificial dodge, a follow). The environment never imports pygame.
- Spaces are fixed for the environment's lifetime and the same for every agent:
  ``observation_space(agent)`` is a ``Dict`` of ``"observation"`` (a ``Box`` in
  [-1, 1], float32, :data:`N_FEATURES` columns: one context row, then one row for the
  agent itself, its friends and its enemies, each in scenario order) and
  ``"action_mask"`` (``Box`` {0, 1}, int8, one entry per action).
  ``action_space(agent)`` is ``Discrete(n)`` over the fixed :class:`ActionCatalogue`
  (documented in ``docs/rl.md``): end turn, six postures, eight facings, moves to
  eight directions × three distances, steps to eight directions, attacks as enemy slot
  × weapon slot × variant, maneuver slots (plain, and targeted: maneuver × enemy slot ×
  weapon slot, e.g. the GURPS aim ``aim:<weapon>:<target>``), and for reactions (defence, retreat point,
  dodge move, ...) option slot × (the option itself, or a point in one of eight
  directions).
- The mask is exact: an action is unmasked iff the command it stands for passes the
  decision's validation (points are tested with each option's validator, so an
  unmasked action is always accepted; an option's region only proposes candidates,
  since e.g. the move region is a plain reach disc). Stepping a masked action raises
  ``ValueError``. It is worked out once per decision, in bulk (the move validator's
  ``legal_many``; candidate points remembered by their region's values) and
  :meth:`SkirmishEnv.reference_legal_commands` is its plain one-by-one definition, which
  ``legal_commands`` equals (``tests/robustness/test_rl_mask.py``).
- Rewards (per agent, accumulated as PettingZoo does): for every ``damage`` event,
  the harm (the fraction of each health track's reference value lost) is subtracted
  from the victim and added to the attacker (subtracted for friendly fire); a unit
  taken out of action gets ``-CASUALTY_REWARD`` and its last enemy attacker
  ``+CASUALTY_REWARD``; when the match ends every remaining agent gets
  ``+WIN_REWARD``/``-WIN_REWARD`` for a win/loss (0 for a draw).
- A unit out of action is terminated (and removed after its ``None`` step); at the end
  every agent is terminated, or truncated when the round limit ended the match.
- ``opponents`` maps sides to AI policies (a built-in name or whatever
  :func:`game.ai.get_policy` accepts): those sides are played inside the environment, through
  the session, with the match's AI generator (so a seed fixes their choices too), right after
  every step and at ``reset``, until a learning unit must decide; their units are no agents
  (they still fill the observation's rows and attack slots). An unknown side, or every side,
  is a ``ValueError``; an unknown policy what ``get_policy`` raises (``UnknownName``). Each
  ``reset`` starts a :class:`game.tools.session.Session` whose other sides are played by the
  agents; the log's ``controllers`` name the opponents' policies.
- Rendering: ``render_mode="ansi"`` returns one line per unit; ``"rgb_array"`` returns the
  ``frame`` function's picture of the match view, an ``(h, w, 3)`` uint8 array (the headless
  renderer's, injected by :func:`game.rl.env`, so this module never imports pygame); ``close``
  calls the frame function's ``close`` if it has one.
- Seeding: ``reset(seed=s)`` plays the match with seed ``s`` (dice), so two
  environments reset with the same seed and fed the same actions give identical
  observations, rewards and logs. ``reset()`` without a seed draws the next match seed
  from a generator seeded by the constructor's ``seed`` (fresh entropy if ``None``).
"""

from __future__ import annotations

import math
import os
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np
import shapely
from shapely.geometry import Point as SPoint
from shapely.ops import nearest_points

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError("game.rl needs the optional [rl] extra: pip install 'skirmish-tabletop-sim[rl]'") from e

from components.spatial import Posture
from components.specs import ScenarioSpec
from game.ai import get_policy
from game.core.commands import (
    Attack,
    ChangePosture,
    Decision,
    EndTurn,
    Face,
    Maneuver,
    Move,
    Option,
    Step,
    matches,
)
from game.engine.match import Match
from game.engine.view import MatchView
from game.geometry.discs import ClippedDisc
from game.tools.session import HUMAN, Session, Setup

#: Draws a match view as an (h, w, 3) uint8 picture (``render_mode="rgb_array"``).
FrameFunction = Callable[[MatchView], np.ndarray]

#: Compass directions of the point actions, degrees (0 = east, 90 = south, DESIGN §1).
DIRECTIONS: tuple[float, ...] = tuple(45.0 * k for k in range(8))
#: Move distances, as fractions of the move option's reach this turn.
MOVE_RINGS: tuple[float, ...] = (1 / 3, 2 / 3, 1.0)
#: Back-off fractions along a ray when its target point is not legal (farthest first).
_BACKOFF = np.array([1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1])
#: Weapons per unit, variants per (target, weapon), maneuvers and reaction options addressable.
WEAPON_SLOTS = 4
ATTACK_VARIANTS = 2
MANEUVER_SLOTS = 6
#: Kinds of targeted maneuvers (named ``<kind>:<weapon>:<target>``), each over enemy × weapon slots.
TARGETED_MANEUVER_SLOTS = 2
REACTION_SLOTS = 12
#: Sub-actions of a reaction slot: the option itself (or any legal point of it), then 8 directions.
REACTION_SUBACTIONS = 1 + len(DIRECTIONS)

POSTURES: tuple[Posture, ...] = tuple(Posture)
DECISION_KINDS: tuple[str, ...] = ("turn", "defence", "dodge_move", "follow", "interpose")

DAMAGE_REWARD = 1.0
CASUALTY_REWARD = 1.0
WIN_REWARD = 1.0

#: Columns of each observation row (see :func:`SkirmishEnv.observe` and docs/rl.md).
UNIT_FEATURES: tuple[str, ...] = (
    "present",
    "alive",
    "is_self",
    "friend",
    "x",
    "y",
    "dx",
    "dy",
    "distance",
    "facing_cos",
    "facing_sin",
    *(f"posture_{p.value}" for p in POSTURES),
    "ap",
    "health",
    "i_see_it",
    "its_cover_from_me",
    "it_sees_me",
    "my_cover_from_it",
    "my_arc_on_it",
    "is_attacker",
    "has_status",
    "base",
)
CONTEXT_FEATURES: tuple[str, ...] = (
    *(f"decision_{k}" for k in DECISION_KINDS),
    "decision_other",
    "round",
    "my_decision",
    "legal_fraction",
)
N_FEATURES = len(UNIT_FEATURES)
#: Column of each unit feature.
_COL = {name: i for i, name in enumerate(UNIT_FEATURES)}
#: ``my_arc_on_it`` by the arc the target is seen in.
_ARC_FEATURE = {"front": 0.0, "side": 0.5, "rear": 1.0}


@dataclass(frozen=True)
class ActionCatalogue:
    """The fixed Discrete action layout of one environment.

    Args:
        targets: enemy slots (the most enemies any unit of the scenario has).
    """

    targets: int

    @property
    def end_turn(self) -> int:
        return 0

    @property
    def posture(self) -> int:
        return 1

    @property
    def face(self) -> int:
        return self.posture + len(POSTURES)

    @property
    def move(self) -> int:
        return self.face + len(DIRECTIONS)

    @property
    def step(self) -> int:
        return self.move + len(DIRECTIONS) * len(MOVE_RINGS)

    @property
    def attack(self) -> int:
        return self.step + len(DIRECTIONS)

    @property
    def maneuver(self) -> int:
        return self.attack + self.targets * WEAPON_SLOTS * ATTACK_VARIANTS

    @property
    def targeted(self) -> int:
        return self.maneuver + MANEUVER_SLOTS

    @property
    def reaction(self) -> int:
        return self.targeted + TARGETED_MANEUVER_SLOTS * self.targets * WEAPON_SLOTS

    @property
    def size(self) -> int:
        return self.reaction + REACTION_SLOTS * REACTION_SUBACTIONS

    def attack_action(self, target_slot: int, weapon_slot: int, variant: int) -> int:
        return self.attack + (target_slot * WEAPON_SLOTS + weapon_slot) * ATTACK_VARIANTS + variant

    def targeted_action(self, kind_slot: int, target_slot: int, weapon_slot: int) -> int:
        return self.targeted + (kind_slot * self.targets + target_slot) * WEAPON_SLOTS + weapon_slot

    def reaction_action(self, option_slot: int, sub: int) -> int:
        return self.reaction + option_slot * REACTION_SUBACTIONS + sub

    def describe(self, action: int) -> str:
        """What ``action`` stands for, in words (for messages and docs)."""
        a = int(action)
        if not 0 <= a < self.size:
            return f"no action {a} (0..{self.size - 1})"
        if a == self.end_turn:
            return "end turn"
        if a < self.face:
            return f"posture {POSTURES[a - self.posture].value}"
        if a < self.move:
            return f"face {DIRECTIONS[a - self.face]:g} deg"
        if a < self.step:
            k, ring = divmod(a - self.move, len(MOVE_RINGS))
            return f"move {DIRECTIONS[k]:g} deg, {MOVE_RINGS[ring]:.2f} of reach"
        if a < self.attack:
            return f"step {DIRECTIONS[a - self.step]:g} deg"
        if a < self.maneuver:
            rest, variant = divmod(a - self.attack, ATTACK_VARIANTS)
            target, weapon = divmod(rest, WEAPON_SLOTS)
            return f"attack enemy slot {target} with weapon slot {weapon} (variant {variant})"
        if a < self.targeted:
            return f"maneuver slot {a - self.maneuver}"
        if a < self.reaction:
            rest, weapon = divmod(a - self.targeted, WEAPON_SLOTS)
            kind, target = divmod(rest, self.targets)
            return f"targeted maneuver slot {kind} at enemy slot {target} with weapon slot {weapon}"
        slot, sub = divmod(a - self.reaction, REACTION_SUBACTIONS)
        if sub == 0:
            return f"reaction option {slot}"
        return f"reaction option {slot} toward {DIRECTIONS[sub - 1]:g} deg"


#: A candidate point of a point action (None: no candidate).
_Candidate = tuple[float, float] | None


def _unit_vector(degrees: float) -> tuple[float, float]:
    r = math.radians(degrees)
    return math.cos(r), math.sin(r)


#: Unit vectors of :data:`DIRECTIONS`, (8, 2).
_DIRS = np.array([_unit_vector(d) for d in DIRECTIONS])


def _accepts(opt: Option, value: Any) -> bool:
    """``matches(opt, opt.with_point(value)) is None`` for a finite free value (a float, or an
    (x, y) tuple of finite floats): that command differs from the template only in the free
    field, and is finite, so the option's validator alone decides."""
    return opt.validate is None or opt.validate(value) is None


def _disc_of(opt: Option) -> ClippedDisc | None:
    """The option's region as a :class:`ClippedDisc` (it answers GEOS's ``contains_xy`` and
    ``is_empty`` mostly without building the polygon), or None."""
    lazy = opt.lazy_region
    build = lazy.build if lazy is not None else None
    return build if isinstance(build, ClippedDisc) else None


def _region_empty(opt: Option) -> bool:
    """``opt.region is None or opt.region.is_empty`` (a clipped disc answers without building)."""
    disc = _disc_of(opt)
    if disc is not None:
        return disc.is_empty
    return opt.region is None or bool(opt.region.is_empty)


#: Candidate points by (clipped disc's key, pos, reach, rings), and a clipped disc's reach
#: from pos: a unit that stays put is offered the same disc again (and every episode starts
#: from the same places). Pure functions of their keys, so what is remembered changes nothing.
_RAYS: OrderedDict[Any, Any] = OrderedDict()
_REACH: OrderedDict[Any, Any] = OrderedDict()
_MEMO_MAX = 4096

_T = TypeVar("_T")


def _remember(memo: OrderedDict[Any, Any], key: Any, compute: Callable[[], _T]) -> _T:
    """``compute()``, remembered in ``memo`` by ``key`` (least recently used forgotten first)."""
    got = memo.get(key)
    if got is None:
        got = memo[key] = compute()
        if len(memo) > _MEMO_MAX:
            memo.popitem(last=False)
    else:
        memo.move_to_end(key)
    return got  # type: ignore[no-any-return]


def _ray_points(
    opt: Option, pos: tuple[float, float], reach: float, rings: Sequence[float]
) -> list[_Candidate]:
    """:func:`_reference_ray_points`, the same points with fewer GEOS calls: a clipped move disc
    answers ``contains_xy`` itself, its points are remembered by the disc's values, and the
    rays that miss the region ask GEOS for their nearest points in one vectorized call
    (``nearest_points`` is ``shortest_line``'s first point)."""
    disc = _disc_of(opt)
    if disc is None:
        return _compute_ray_points(opt, pos, reach, rings)
    return _remember(
        _RAYS, (disc.key, pos, reach, tuple(rings)), lambda: _compute_ray_points(opt, pos, reach, rings)
    )


def _compute_ray_points(
    opt: Option, pos: tuple[float, float], reach: float, rings: Sequence[float]
) -> list[_Candidate]:
    # GEOS answers on the built region (a clipped disc builds it, once, anyway: the rays at
    # full reach end on its rim, where only GEOS can tell inside from out).
    region = opt.region
    if region is None or region.is_empty or reach <= 0:
        return [None] * (len(DIRECTIONS) * len(rings))
    # (the reference's arithmetic, operation for operation: the same floats)
    scale = (reach * np.asarray(rings, dtype=float))[:, None] * _BACKOFF
    xs = (pos[0] + _DIRS[:, 0, None, None] * scale).ravel()  # (direction, ring, backoff)
    ys = (pos[1] + _DIRS[:, 1, None, None] * scale).ravel()
    inside = shapely.contains_xy(region, xs, ys).reshape(-1, len(_BACKOFF))
    # per ray, the farthest backoff inside (where any is), else the full-reach target
    pick = np.arange(0, xs.size, len(_BACKOFF)) + inside.argmax(axis=1)
    out_x, out_y = xs[pick].tolist(), ys[pick].tolist()
    miss = np.flatnonzero(~inside.any(axis=1))
    if miss.size:
        targets = shapely.points(xs[pick[miss]], ys[pick[miss]])
        near = shapely.get_coordinates(shapely.get_point(shapely.shortest_line(region, targets), 0))
        for i, (nx, ny) in zip(miss.tolist(), near.tolist(), strict=True):
            out_x[i], out_y[i] = nx, ny
    return list(zip(out_x, out_y, strict=True))


def _reference_ray_points(
    opt: Option, pos: tuple[float, float], reach: float, rings: Sequence[float]
) -> list[_Candidate]:
    """One candidate per (direction, ring): the farthest point of the ray inside the region.

    The target is ``pos + reach * ring`` in each direction; if it is outside the
    region the point backs off toward ``pos``; if the whole ray misses (a region
    that does not contain ``pos``, like a retreat ring), the region's nearest point
    to the target is used. Validation decides afterwards. (The plain version, kept as the
    reference of :func:`_ray_points`.)
    """
    region = opt.region
    out: list[_Candidate] = []
    if region is None or region.is_empty or reach <= 0:
        return [None] * (len(DIRECTIONS) * len(rings))
    dirs = np.array([_unit_vector(d) for d in DIRECTIONS])
    ring_arr = np.asarray(rings, dtype=float)
    # (direction, ring, backoff) candidate points, tested in one vectorized call.
    scale = reach * ring_arr[None, :, None] * _BACKOFF[None, None, :]
    xs = pos[0] + dirs[:, 0, None, None] * scale
    ys = pos[1] + dirs[:, 1, None, None] * scale
    inside = shapely.contains_xy(region, xs.ravel(), ys.ravel()).reshape(xs.shape)
    for k in range(len(DIRECTIONS)):
        for r in range(len(rings)):
            hits = np.flatnonzero(inside[k, r])
            if hits.size:
                b = int(hits[0])
                out.append((float(xs[k, r, b]), float(ys[k, r, b])))
            else:
                target = SPoint(float(xs[k, r, 0]), float(ys[k, r, 0]))
                near = nearest_points(region, target)[0]
                out.append((near.x, near.y))
    return out


class SkirmishEnv(AECEnv[str, dict[str, np.ndarray], int]):
    """PettingZoo AEC environment; see the module docstring. Build it with :func:`env`."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "rgb_array"],
        "render_fps": 4,
        "name": "skirmish_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        spec: ScenarioSpec,
        ruleset: str | None = None,
        seed: int | None = None,
        render_mode: str | None = None,
        opponents: Mapping[str, str] | None = None,
        frame: FrameFunction | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, not {render_mode!r}"
            )
        if render_mode == "rgb_array" and frame is None:
            raise ValueError(
                "render_mode='rgb_array' draws with game.render: build the environment with game.rl.env"
            )
        self.spec = spec
        self.ruleset = ruleset or spec.ruleset
        self.render_mode = render_mode
        self._frame = frame
        self.opponents: dict[str, str] = dict(opponents or {})
        unknown = sorted(set(self.opponents) - set(spec.sides))
        if unknown:
            raise ValueError(
                f"opponents: no side {unknown[0]!r} in the scenario; sides are {', '.join(spec.sides)}"
            )
        if set(spec.sides) <= set(self.opponents):
            raise ValueError("opponents: every side is played by a policy, so no agent is left to learn")
        for name in set(self.opponents.values()):
            get_policy(name)  # an unknown policy fails here, not at the first reset
        units = [u.id for u in spec.units]
        self.possible_agents: list[str] = [u.id for u in spec.units if u.side not in self.opponents]
        self.agents: list[str] = []
        side_of = {u.id: u.side for u in spec.units}
        self._side_of = side_of
        #: Per unit: friend ids and enemy ids in scenario order (fixed slots; opponents included).
        self._friends = {a: [b for b in units if b != a and side_of[b] == side_of[a]] for a in side_of}
        self._enemies = {a: [b for b in units if side_of[b] != side_of[a]] for a in side_of}
        self._max_friends = max(len(v) for v in self._friends.values())
        self._max_enemies = max(len(v) for v in self._enemies.values())
        self.catalogue = ActionCatalogue(targets=max(1, self._max_enemies))
        rows = 2 + self._max_friends + self._max_enemies
        self._rows = rows
        #: Per agent, the units of observation rows 1.. (None: an empty friend slot).
        self._order: dict[str, list[str | None]] = {}
        for a in side_of:
            order: list[str | None] = [a, *self._friends[a]]
            order += [None] * (1 + self._max_friends - len(order))
            self._order[a] = (order + list(self._enemies[a]))[: rows - 1]
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 1.0, shape=(rows, N_FEATURES), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(self.catalogue.size,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(self.catalogue.size)
        # One object per agent, the same on every call (PettingZoo seeds spaces through them).
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._seeder = np.random.default_rng(seed)
        self._maneuvers: list[str] = []  # maneuver names in order of first sight (slot = index)
        self._targeted: list[str] = []  # targeted maneuver kinds, likewise
        self._weapons: dict[str, list[str]] = {}
        #: The current match, every side played by the agents (None before ``reset``).
        self.session: Session | None = None
        self._legal_for: Decision | None = None  # the decision _legal answers, and its match
        self._legal_match: Match | None = None
        self._legal: dict[int, tuple[Option, Any]] = {}
        self._start_health: dict[str, dict[str, int]] = {}
        self._last_attacker: dict[str, str] = {}

    # ---- spaces -----------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ---- life cycle ----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new match (``seed``: its dice seed; see the module docstring; ``options`` is unused)."""
        if seed is not None:
            self._seeder = np.random.default_rng(seed)
            match_seed = int(seed)
        else:
            match_seed = int(self._seeder.integers(2**63))
        if self.session is not None:
            self.session.close()
        players = {side: self.opponents.get(side, HUMAN) for side in self.spec.sides}
        setup = Setup(ruleset=self.ruleset, seed=match_seed, controllers=self.opponents or None)
        self.session = Session.start(self.spec, setup, players=players)
        start = self.session.match.log.events[0]
        self._start_health = {u["id"]: dict(u["health"]) for u in start["units"]}
        self._last_attacker = {}
        self._legal_for = self._legal_match = None
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self.agent_selection = self.agents[0]
        m = self.session.match
        first = len(m.log)
        self.session.play()  # the opponents' opening decisions, if they decide first
        if len(m.log) > first:
            self._score(m.log.events[first:])
            self._update_done()
            self._accumulate_rewards()
        if m.pending is not None and m.outcome is None:
            self.agent_selection = m.pending.unit

    def close(self) -> None:
        """Free the current match's esper world (and the frame function's resources: its ``close``)."""
        if self.session is not None:
            self.session.close()
            self.session = None
        close_frames = getattr(self._frame, "close", None)
        if close_frames is not None:
            close_frames()

    @property
    def match(self) -> Match | None:
        """The current match (None before ``reset`` and after ``close``)."""
        return self.session.match if self.session is not None else None

    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: one line per unit; ``"rgb_array"``: the match drawn as an (h, w, 3) uint8
        array (the environment never opens a window); None before ``reset`` or without a mode."""
        if self.render_mode is None or self.session is None:
            return None
        if self.render_mode == "rgb_array":
            assert self._frame is not None
            return self._frame(self.session.view)
        m = self.session.match
        lines = [f"round {m.round}, pending: {m.pending.unit + ' ' + m.pending.kind if m.pending else '-'}"]
        for uid in self._side_of:
            h = m.health(uid)
            x, y = m.pos(uid)
            state = "out" if h.out_of_action else f"ap {m.ap(uid).current}"
            lines.append(
                f"{uid:>12} {m.side(uid):>6} ({x:6.2f}, {y:6.2f}) "
                f"{m.posture(uid).value:<9} {state} {h.tracks}"
            )
        if m.outcome is not None:
            lines.append(f"over: {m.outcome.winner or 'draw'} ({m.outcome.reason})")
        return "\n".join(lines)

    # ---- observations ------------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation: feature rows and the action mask (zeros unless it must decide)."""
        m = self._require_match()
        rows = self._rows
        obs = np.zeros((rows, N_FEATURES), dtype=np.float32)
        mask = np.zeros(self.catalogue.size, dtype=np.int8)
        pending = m.pending
        mine = pending is not None and pending.unit == agent and m.outcome is None
        n_legal = 0
        if mine:
            legal = self._legal_actions()
            mask[list(legal)] = 1
            n_legal = len(legal)
        self._context_row(obs[0], pending, mine, n_legal)
        attacker = pending.context.get("attacker") if pending is not None else None
        for i, uid in enumerate(self._order[agent], start=1):
            if uid is not None:
                self._unit_row(obs[i], agent, uid, uid == attacker)
        np.clip(obs, -1.0, 1.0, out=obs)
        return {"observation": obs, "action_mask": mask}

    def _context_row(self, row: np.ndarray, pending: Decision | None, mine: bool, n_legal: int) -> None:
        m = self._require_match()
        if pending is not None:
            kind = pending.kind
            row[DECISION_KINDS.index(kind) if kind in DECISION_KINDS else len(DECISION_KINDS)] = 1.0
        row[len(DECISION_KINDS) + 1] = m.round / max(1, m.round_limit)
        row[len(DECISION_KINDS) + 2] = 1.0 if mine else 0.0
        row[len(DECISION_KINDS) + 3] = n_legal / self.catalogue.size

    def _health_fraction(self, uid: str) -> float:
        """Mean remaining fraction of the unit's health tracks (1 = unhurt)."""
        m = self._require_match()
        h = m.health(uid)
        start_health = self._start_health.get(uid, {})
        parts = []
        for k, v in h.tracks.items():
            ref = h.maxima.get(k, 0)
            if ref <= 0:
                continue
            start = start_health.get(k, 0)
            # A track that starts at its reference counts down (hp); one that starts at 0 counts up (wounds).
            parts.append(v / ref if start >= ref else 1.0 - v / ref)
        # (summed in order, as numpy's mean sums a handful of values)
        return float(sum(parts) / len(parts)) if parts else 1.0

    def _unit_row(self, row: np.ndarray, me: str, uid: str, is_attacker: bool) -> None:
        m = self._require_match()
        spec = self.spec
        diag = math.hypot(spec.width, spec.height)
        x, y = m.pos(uid)
        sx, sy = m.pos(me)
        h = m.health(uid)
        alive = not h.out_of_action
        ap = m.ap(uid)
        f = math.radians(m.facing(uid))
        row[_COL["present"]] = 1.0
        row[_COL["alive"]] = float(alive)
        row[_COL["is_self"]] = float(uid == me)
        row[_COL["friend"]] = float(self._side_of[uid] == self._side_of[me])
        row[_COL["x"]] = x / spec.width
        row[_COL["y"]] = y / spec.height
        row[_COL["dx"]] = (x - sx) / diag
        row[_COL["dy"]] = (y - sy) / diag
        row[_COL["distance"]] = math.hypot(x - sx, y - sy) / diag
        row[_COL["facing_cos"]] = math.cos(f)
        row[_COL["facing_sin"]] = math.sin(f)
        row[_COL[f"posture_{m.posture(uid).value}"]] = 1.0
        row[_COL["ap"]] = ap.current / max(1, ap.maximum)
        row[_COL["health"]] = self._health_fraction(uid)
        row[_COL["is_attacker"]] = float(is_attacker)
        row[_COL["has_status"]] = float(bool(h.status))
        row[_COL["base"]] = m.body(uid).base / 2.0
        if uid != me and alive and not m.health(me).out_of_action:
            seen = m.sight(me, uid)
            seer = m.sight(uid, me)
            row[_COL["i_see_it"]] = float(seen.visible)
            row[_COL["its_cover_from_me"]] = seen.cover_fraction
            row[_COL["it_sees_me"]] = float(seer.visible)
            row[_COL["my_cover_from_it"]] = seer.cover_fraction
            row[_COL["my_arc_on_it"]] = _ARC_FEATURE.get(str(seen.arc), 0.0)

    # ---- actions -----------------------------------------------------------------------------
    def _require_match(self) -> Match:
        if self.match is None:
            raise RuntimeError("call reset() before using the environment")
        return self.match

    def legal_commands(self) -> dict[int, Any]:
        """Action -> command for the pending decision (empty when the match is over)."""
        return {a: opt.with_point(value) for a, (opt, value) in self._legal_actions().items()}

    def _legal_actions(self) -> dict[int, tuple[Option, Any]]:
        """Action -> (option, free value) of the pending decision, worked out once per decision
        (``last()`` and ``step`` ask again); the command is ``option.with_point(value)``, built
        only for the action taken."""
        m = self._require_match()
        d = m.pending
        # A decision is a value replaced by every change of the match: its identity is the key
        # (kept alive by _legal_for, so the id is never reused while it is the key).
        if self._legal_for is d and self._legal_match is m:
            return self._legal
        legal: dict[int, tuple[Option, Any]] = {}
        if m.outcome is None and d is not None:
            if d.kind == "turn":
                self._turn_actions(d, legal)
            else:
                self._reaction_actions(d, legal)
        self._legal_for, self._legal_match, self._legal = d, m, legal
        return legal

    def _weapon_slot(self, uid: str, weapon: str) -> int:
        names = self._weapons.get(uid)
        if names is None:
            m = self._require_match()
            listed = getattr(m.stats(uid), "weapons", None) or []
            names = [str(getattr(w, "name", w)) for w in listed]
            self._weapons[uid] = names
        if weapon not in names:
            names.append(weapon)
        return names.index(weapon)

    @staticmethod
    def _slot(registry: list[str], name: str) -> int:
        """``name``'s slot: its index in ``registry``, appended on first sight."""
        if name not in registry:
            registry.append(name)
        return registry.index(name)

    def _turn_actions(self, d: Decision, legal: dict[int, tuple[Option, Any]]) -> None:
        cat = self.catalogue
        m = self._require_match()
        pos = m.pos(d.unit)
        variants: dict[tuple[int, int], int] = {}
        for opt in d.options:
            cmd = opt.command
            if isinstance(cmd, EndTurn):
                legal[cat.end_turn] = (opt, None)
            elif isinstance(cmd, ChangePosture) and opt.point_field is None:
                legal[cat.posture + POSTURES.index(Posture(cmd.posture))] = (opt, None)
            elif isinstance(cmd, Face) and opt.point_field == "degrees":
                for k, deg in enumerate(DIRECTIONS):
                    if _accepts(opt, deg):
                        legal[cat.face + k] = (opt, deg)
            elif isinstance(cmd, Move) and opt.point_field == "to":
                reach = float(opt.detail.get("max_len") or self._reach(opt, pos))
                self._offer_all(legal, cat.move, opt, _ray_points(opt, pos, reach, MOVE_RINGS))
            elif isinstance(cmd, Step) and opt.point_field == "to":
                self._offer_all(legal, cat.step, opt, _ray_points(opt, pos, self._reach(opt, pos), (1.0,)))
            elif isinstance(cmd, Attack) and opt.point_field is None:
                enemies = self._enemies[d.unit]
                if cmd.target not in enemies:
                    continue
                slot = (enemies.index(cmd.target), self._weapon_slot(d.unit, cmd.weapon))
                variant = variants.get(slot, 0)
                variants[slot] = variant + 1
                if slot[1] < WEAPON_SLOTS and variant < ATTACK_VARIANTS:
                    legal[cat.attack_action(slot[0], slot[1], variant)] = (opt, None)
            elif isinstance(cmd, Maneuver) and opt.point_field is None:
                parts = cmd.name.split(":")
                if len(parts) == 3 and parts[2] in self._enemies[d.unit]:
                    kind_slot = self._slot(self._targeted, parts[0])
                    w_slot = self._weapon_slot(d.unit, parts[1])
                    if kind_slot < TARGETED_MANEUVER_SLOTS and w_slot < WEAPON_SLOTS:
                        t_slot = self._enemies[d.unit].index(parts[2])
                        legal[cat.targeted_action(kind_slot, t_slot, w_slot)] = (opt, None)
                else:
                    slot_m = self._slot(self._maneuvers, cmd.name)
                    if slot_m < MANEUVER_SLOTS:
                        legal[cat.maneuver + slot_m] = (opt, None)

    def _reaction_actions(self, d: Decision, legal: dict[int, tuple[Option, Any]]) -> None:
        cat = self.catalogue
        m = self._require_match()
        pos = m.pos(d.unit)
        for j, opt in enumerate(d.options[:REACTION_SLOTS]):
            if opt.point_field is None:
                if matches(opt, opt.command) is None:
                    legal[cat.reaction_action(j, 0)] = (opt, None)
                continue
            if _region_empty(opt):
                continue
            inside = opt.region.representative_point()
            self._offer_all(legal, cat.reaction_action(j, 0), opt, [(inside.x, inside.y)])
            rays = _ray_points(opt, pos, self._reach(opt, pos), (1.0,))
            self._offer_all(legal, cat.reaction_action(j, 1), opt, rays)

    @staticmethod
    def _offer_all(
        legal: dict[int, tuple[Option, Any]], first: int, opt: Option, candidates: Sequence[_Candidate]
    ) -> None:
        """Unmask ``first + k`` for each legal candidate point ``k`` of ``opt``.

        A validator with ``legal_many`` (the turn's move) judges them in one call; any other is
        asked point by point (each distinct point once). Either way the verdict is the engine's
        own for that command (:func:`_accepts`).
        """
        points = [(float(c[0]), float(c[1])) if c is not None else None for c in candidates]
        todo = list(dict.fromkeys(p for p in points if p is not None))
        if not all(math.isfinite(x) and math.isfinite(y) for x, y in todo):
            ok = {p: matches(opt, opt.with_point(p)) is None for p in todo}
        else:
            many = getattr(opt.validate, "legal_many", None)
            verdicts = many(todo) if many is not None else [_accepts(opt, p) for p in todo]
            ok = dict(zip(todo, verdicts, strict=True))
        for k, p in enumerate(points):
            if p is not None and ok[p]:
                legal[first + k] = (opt, p)

    @staticmethod
    def _reach(opt: Option, pos: tuple[float, float]) -> float:
        """Farthest distance from ``pos`` to the option's region (its vertices); a clipped
        disc's is remembered by its values (the step disc recurs: GEOS builds it to answer)."""
        disc = _disc_of(opt)
        if disc is None:
            return SkirmishEnv._reference_reach(opt, pos)
        return _remember(_REACH, (disc.key, pos), lambda: SkirmishEnv._reference_reach(opt, pos))

    # ---- the reference mask ----------------------------------------------------------------
    def reference_legal_commands(self) -> dict[int, Any]:
        """Action -> command for the pending decision, worked out the plain slow way (the
        environment's first version): every candidate point computed with GEOS alone, built as
        a command and checked with :func:`game.core.commands.matches`, one by one. The
        definition :meth:`legal_commands` must equal (the tests compare them). Attack and
        maneuver slots have no point to judge: their entries are the fast table's, for each
        option that ``matches`` accepts."""
        m = self._require_match()
        legal: dict[int, Any] = {}
        d = m.pending
        if m.outcome is not None or d is None:
            return legal
        cat = self.catalogue
        pos = m.pos(d.unit)

        def offer(action: int, opt: Option, candidate: _Candidate) -> None:
            if candidate is not None:
                cmd = opt.with_point((float(candidate[0]), float(candidate[1])))
                if matches(opt, cmd) is None:
                    legal[action] = cmd

        if d.kind != "turn":
            for j, opt in enumerate(d.options[:REACTION_SLOTS]):
                if opt.point_field is None:
                    if matches(opt, opt.command) is None:
                        legal[cat.reaction_action(j, 0)] = opt.command
                    continue
                if opt.region is None or opt.region.is_empty:
                    continue
                inside = opt.region.representative_point()
                offer(cat.reaction_action(j, 0), opt, (inside.x, inside.y))
                reach = self._reference_reach(opt, pos)
                for k, point in enumerate(_reference_ray_points(opt, pos, reach, (1.0,))):
                    offer(cat.reaction_action(j, 1 + k), opt, point)
            return legal
        fast = self._legal_actions()
        for opt in d.options:
            cmd = opt.command
            if isinstance(cmd, Face) and opt.point_field == "degrees":
                for k, deg in enumerate(DIRECTIONS):
                    face = opt.with_point(deg)
                    if matches(opt, face) is None:
                        legal[cat.face + k] = face
            elif isinstance(cmd, Move) and opt.point_field == "to":
                reach = float(opt.detail.get("max_len") or self._reference_reach(opt, pos))
                for k, point in enumerate(_reference_ray_points(opt, pos, reach, MOVE_RINGS)):
                    offer(cat.move + k, opt, point)
            elif isinstance(cmd, Step) and opt.point_field == "to":
                reach = self._reference_reach(opt, pos)
                for k, point in enumerate(_reference_ray_points(opt, pos, reach, (1.0,))):
                    offer(cat.step + k, opt, point)
            elif opt.point_field is None and matches(opt, cmd) is None:
                legal.update({a: o.command for a, (o, _) in fast.items() if o is opt})
        return legal

    @staticmethod
    def _reference_reach(opt: Option, pos: tuple[float, float]) -> float:
        if opt.region is None or opt.region.is_empty:
            return 0.0
        return float(shapely.hausdorff_distance(SPoint(pos), opt.region))

    # ---- stepping ------------------------------------------------------------------------------
    def step(self, action: int | None) -> None:
        """Apply ``action`` for ``agent_selection`` (``None`` for a terminated or truncated agent)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is still in play: it needs an action, not None")
        m = self._require_match()
        a = int(action)
        legal = self._legal_actions()
        if a not in legal:
            raise ValueError(
                f"action {a} ({self.catalogue.describe(a)}) is not legal for {agent} now; "
                f"legal actions: {sorted(legal)}"
            )
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        first = len(m.log)
        opt, value = legal[a]
        m.apply(opt.with_point(value))
        assert self.session is not None
        self.session.play()  # the opponents answer until a learning unit must decide (or the end)
        self._score(m.log.events[first:])
        self._update_done()
        if m.pending is not None:
            self.agent_selection = m.pending.unit
        self._accumulate_rewards()
        self._deads_step_first()

    def _harm(self, e: dict[str, Any]) -> float:
        m = self._require_match()
        uid = e["unit"]
        maxima = m.health(uid).maxima
        start = self._start_health.get(uid, {})
        harm = 0.0
        for k, d in e.get("deltas", {}).items():
            ref = maxima.get(k, 0)
            if ref <= 0:
                continue
            harm += (-d if start.get(k, 0) >= ref else d) / ref
        return harm

    def _give(self, agent: str | None, amount: float) -> None:
        if agent is not None and agent in self.rewards:
            self.rewards[agent] += float(amount)

    def _score(self, events: list[dict[str, Any]]) -> None:
        for e in events:
            kind = e["type"]
            if kind == "damage":
                victim, source = e["unit"], e.get("source")
                harm = self._harm(e) * DAMAGE_REWARD
                self._give(victim, -harm)
                if source in self._side_of and source != victim:
                    friendly = self._side_of[source] == self._side_of[victim]
                    self._give(source, -harm if friendly else harm)
                    if not friendly:
                        self._last_attacker[victim] = source
            elif kind == "casualty":
                victim = e["unit"]
                self._give(victim, -CASUALTY_REWARD)
                self._give(self._last_attacker.get(victim), CASUALTY_REWARD)
            elif kind == "match_end":
                winner = e.get("winner")
                if winner is not None:
                    for a in self.agents:
                        self._give(a, WIN_REWARD if self._side_of[a] == winner else -WIN_REWARD)

    def _update_done(self) -> None:
        m = self._require_match()
        for a in self.agents:
            if m.health(a).out_of_action:
                self.terminations[a] = True
        if m.outcome is not None:
            truncated = m.outcome.reason == "round limit"
            for a in self.agents:
                if truncated and not self.terminations[a]:
                    self.truncations[a] = True
                else:
                    self.terminations[a] = True


def env(
    scenario_path: str | os.PathLike[str],
    ruleset: str | None = None,
    seed: int | None = None,
    render_mode: str | None = None,
    opponents: Mapping[str, str] | None = None,
    frame: FrameFunction | None = None,
) -> SkirmishEnv:
    """A :class:`SkirmishEnv` for the scenario file (see the module docstring).

    Args:
        scenario_path: the scenario YAML.
        ruleset: overrides the scenario's ruleset.
        seed: seeds the match seeds of ``reset()`` calls without a seed.
        render_mode: ``None``, ``"ansi"`` or ``"rgb_array"`` (which needs ``frame``:
            :func:`game.rl.env` gives it).
        opponents: side -> AI policy playing it inside the environment.
        frame: draws a match view as an (h, w, 3) uint8 array.

    Raises:
        ScenarioError: the scenario file is invalid.
        UnknownName: ``ruleset`` is not a ruleset name.
    """
    from game.scenario import load_scenario

    spec = load_scenario(scenario_path, ruleset=ruleset)
    return SkirmishEnv(
        spec, ruleset=ruleset, seed=seed, render_mode=render_mode, opponents=opponents, frame=frame
    )
