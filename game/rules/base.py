"""The one interface every ruleset implements.

Contract:
- A ruleset is a subclass of :class:`Ruleset`. It is pure rules: it never
  imports pygame or esper and never touches the ECS directly. It reads and
  changes the match only through the :class:`~game.core.battle.Battle` protocol
  the engine passes in, so every state change is carried out by a system and
  logged as an event, and every draw comes from the match's one seeded
  generator (``battle.dice``).
- Attacks and maneuvers are flows of explicit steps (:mod:`game.core.flow`): the engine
  starts :meth:`Ruleset.attack_frame` (the step ``"attack"`` with the command) or
  :meth:`Ruleset.maneuver_frame` (``"maneuver"``); each step reads, rolls and acts through the
  ``Battle`` and returns what comes next, asking for a decision (a defence, a retreat point,
  the 2" dodge move) through a builder (:func:`game.core.flow.asks`). A round may start with a
  flow too (:meth:`Ruleset.start_round`: decisions taken at the start of the round). The flow in progress is
  data (frames of frozen values), so a match can be cloned and written down mid-attack. The
  engine routes each decision to a human or an AI policy and validates the answer against the
  decision's options before the next step gets it.
- A ruleset keeps no state of its own: per-unit bookkeeping is a frozen record on the unit's
  ``TurnState``/``DefenceState`` (``game.rules.unit_state``), battle-wide bookkeeping one
  frozen value (``Battle.rules_state``), both replaced through the ``Battle``.
- ``Stats`` is a pydantic model of one profile stat block for this ruleset
  (``scenarios/profiles.yaml``, key = :attr:`Ruleset.name`); ``Options`` is a
  pydantic model of the ruleset's options (scenario ``options:`` / CLI
  ``--option key=value``). Both forbid unknown keys.
- Odds are exact: every defence option carries ``p_success`` computed by
  enumeration/convolution (``game.dice``), never by sampling.
- A ruleset owns its specifics: command types of its own
  (``game.core.commands.register_command``, in a module ``game.rules.COMMAND_MODULES``
  lists), per-unit bookkeeping (a record in the per-turn components,
  ``game.rules.unit_state``), its reaction windows and limits (:attr:`Ruleset.reaction_limits`,
  :attr:`Ruleset.choice_bindings`, ``game.rules.limits``) and its ``skirmish odds`` query
  (a module ``game.rules.ODDS_QUERIES`` names, ``game.rules.odds``).
- ``mechanics`` declares the ruleset's mechanics (:class:`~game.rules.mechanics.Mechanic`:
  name, description, a tally over the event log), so batch results can say how often
  each fired per side.
- ``reaction_regions`` names the moving reactions whose legal region the ruleset answers
  with :meth:`Ruleset.reaction_region` (:data:`REACTION_KINDS`: a retreat from an attacker, the
  move after a dodge), the region its reaction decision offers; ``skirmish reach`` and
  ``skirmish path`` ask through it, naming no ruleset.
- For players (read by the window, never by the rules): :meth:`Ruleset.sheet` is a unit's
  weapons, defences, protection and health left (:mod:`game.rules.sheet`);
  :meth:`Ruleset.reaction_ap` the AP the unit's reaction costs where reactions cost AP;
  :attr:`Ruleset.dice_reading` how a logged roll's faces count. Attack and defence options
  carry ``expected_harm`` (and defences ``expected_harm_without``) in their ``detail``.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from components.spatial import Posture
from components.state import Health
from game.core.battle import Battle, Flow, Region
from game.core.commands import Attack, Decision, Maneuver, Option
from game.core.flow import FlowRun, Frame, Outcome, Stepper, collect
from game.rules.limits import Binding, Reaction
from game.rules.mechanics import Mechanic
from game.rules.sheet import DiceReading, UnitSheet

T = TypeVar("T")

#: Moving reactions a ruleset may answer :meth:`Ruleset.reaction_region` for, and what a player
#: calls each: ``retreat`` (from an attacker), ``dodge`` (the move after a successful dodge).
REACTION_KINDS: dict[str, str] = {"retreat": "retreat", "dodge": "dodge move"}


@dataclass(frozen=True)
class ReactionRegion:
    """The legal region of one moving reaction, as the ruleset's decision offers it.

    Attributes:
        region: geometry (for drawing and sampling) and the engine's validator.
        min_len: the shortest move it allows, inches (0: any).
        max_len: the longest, inches.
    """

    region: Region
    min_len: float
    max_len: float


class StrictModel(BaseModel):
    """Base for stat blocks and options: unknown keys are errors, values frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class BlockMemo:
    """Answers that depend only on a frozen stat block and a hashable key, memoised by the block.

    Rulesets re-derive the same scores from the same few stat blocks for every option of
    every decision. Blocks are unhashable (dict fields), so entries key on ``id`` and keep
    the block: while an entry lives no other block can take that id, and a frozen block
    never changes, so no entry goes stale. The memo is only emptied when full.
    """

    def __init__(self, maxsize: int = 1024) -> None:
        self._memo: dict[tuple[int, Any], tuple[StrictModel, Any]] = {}
        self._maxsize = maxsize

    def get(self, block: StrictModel, key: Any, compute: Callable[[], T]) -> T:
        """``compute()`` for ``block`` and ``key``, worked out once while memoised."""
        hit = self._memo.get((id(block), key))
        if hit is not None and hit[0] is block:
            value: T = hit[1]
            return value
        if len(self._memo) >= self._maxsize:
            self._memo.clear()
        value = compute()
        self._memo[(id(block), key)] = (block, value)
        return value

    def __len__(self) -> int:
        return len(self._memo)


class NoOptions(StrictModel):
    """A ruleset with no options."""


@dataclass(frozen=True)
class UnitSetup:
    """What a ruleset gives a unit at the start of a match."""

    health: Health
    ap_max: int


StatsT = TypeVar("StatsT", bound=StrictModel)
OptionsT = TypeVar("OptionsT", bound=StrictModel)


class Ruleset(ABC, Stepper, Generic[StatsT, OptionsT]):
    """A rule system. Subclasses set :attr:`name`, :attr:`Stats`, :attr:`Options`, :attr:`source`,
    and, if the rules limit them, :attr:`reaction_limits` and :attr:`choice_bindings`.

    Typed by its stat block and its options (``class GurpsRuleset(Ruleset[GurpsStats,
    GurpsOptions])``): :attr:`options` is the validated options model, read as typed
    attributes; each default is stated once, in the model.
    """

    name: ClassVar[str]
    source: ClassVar[str]  # the rule text it implements, e.g. "gurps-active-defense.txt"
    Stats: ClassVar[type[StrictModel]]
    Options: ClassVar[type[StrictModel]] = NoOptions
    #: Reactions allowed once per window, as this ruleset logs them (see game.rules.limits).
    reaction_limits: ClassVar[tuple[Reaction, ...]] = ()
    #: Choices that bind a unit for a window, as this ruleset logs them.
    choice_bindings: ClassVar[tuple[Binding, ...]] = ()
    #: Every mechanic of the rule text a battle can fire, each with how the event log counts
    #: it (:mod:`game.rules.mechanics`); batch results report them per side.
    mechanics: ClassVar[tuple[Mechanic, ...]] = ()
    #: The moving reactions (keys of :data:`REACTION_KINDS`) :meth:`reaction_region` answers.
    reaction_regions: ClassVar[tuple[str, ...]] = ()
    #: The steps and decision builders of the ruleset's flows, by name (game.core.flow).
    _flow_steps: ClassVar[dict[str, Callable[..., Any]]] = {}
    _flow_builders: ClassVar[dict[str, Callable[..., Any]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._flow_steps, cls._flow_builders = collect(cls)

    #: How the faces of this ruleset's rolls count (summed unless it says otherwise).
    dice_reading: ClassVar[DiceReading] = DiceReading()

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        self.options: OptionsT = self.Options.model_validate(options or {})  # type: ignore[assignment]

    # ---- flows (game.core.flow) ------------------------------------------
    def run_step(self, battle: Battle, frame: Frame, answer: Any) -> Outcome:
        """Run the step ``frame`` names with its data and ``answer``."""
        try:
            fn = self._flow_steps[frame.step]
        except KeyError:
            raise ValueError(f"the {self.name} ruleset has no step {frame.step!r}") from None
        return fn(self, battle, frame.data, answer)  # type: ignore[no-any-return]

    def ask(self, battle: Battle, builder: str, args: Any) -> Decision:
        """The decision the builder ``builder`` makes from ``args`` as the battle stands."""
        try:
            fn = self._flow_builders[builder]
        except KeyError:
            raise ValueError(f"the {self.name} ruleset has no decision {builder!r}") from None
        return fn(self, battle, args)  # type: ignore[no-any-return]

    def attack_frame(self, cmd: Attack) -> Frame:
        """The first frame of an attack: the step ``"attack"`` given the command."""
        return Frame("attack", cmd)

    def maneuver_frame(self, cmd: Maneuver) -> Frame:
        """The first frame of a maneuver: the step ``"maneuver"`` given the command."""
        return Frame("maneuver", cmd)

    # ---- set-up ----------------------------------------------------------
    @classmethod
    def parse_stats(cls, block: dict[str, Any]) -> StrictModel:
        """Validate one raw profile block (raises ``pydantic.ValidationError``)."""
        return cls.Stats.model_validate(block)

    @classmethod
    @abstractmethod
    def default_stats(cls) -> StrictModel:
        """The ruleset's standard trooper (used when a unit names no profile)."""

    @abstractmethod
    def setup_unit(self, stats: Any) -> UnitSetup:
        """Health tracks and AP maximum for a unit with these stats."""

    # ---- rounds and turns --------------------------------------------------
    @abstractmethod
    def initiative(self, battle: Battle, units: Sequence[str]) -> list[str]:
        """Activation order for a new round (roll through ``battle.dice`` if the rules roll)."""

    def start_round(self, battle: Battle) -> Frame | None:
        """Hook at the start of each round (after initiative and ``round_start``): a flow to run
        before the first turn (its first frame; it may ask decisions of any unit, e.g. AFF's
        Ubiquitous Dodging armour-or-dodge choice), or None. Default: none."""
        return None

    @abstractmethod
    def start_turn(self, battle: Battle, uid: str) -> bool:
        """Start ``uid``'s turn: refresh AP (via the engine's ``ap`` object), roll what the
        rules roll at turn start (e.g. consciousness). Return False if the unit cannot act."""

    @abstractmethod
    def inches_per_ap(self, battle: Battle, uid: str) -> float:
        """How far one AP of movement takes this unit now (0: cannot move)."""

    def move_pricer(self, battle: Battle, uid: str) -> Callable[[float], int | None]:
        """How many AP a move of a given length costs ``uid`` as it stands now (None: too far this
        turn): a pure function of the length, made from the state now, so that a turn decision's
        move validator can keep it (decisions are values a clone shares). Default: one AP per
        :meth:`inches_per_ap` begun."""
        per = self.inches_per_ap(battle, uid)
        ap = battle.ap(uid).current

        def price(length: float) -> int | None:
            if per <= 0:
                return None
            cost = max(1, math.ceil(length / per - 1e-9))
            return cost if cost <= ap else None

        return price

    def move_ap_cost(self, battle: Battle, uid: str, length: float) -> int | None:
        """AP to move a path of ``length`` inches (None: too far this turn): :meth:`move_pricer`."""
        return self.move_pricer(battle, uid)(length)

    @abstractmethod
    def action_costs(self, battle: Battle, uid: str) -> dict[str, int]:
        """AP costs of ``attack``, ``posture``, ``face``, ``step`` for this unit now
        (a missing key means the action is not allowed)."""

    @abstractmethod
    def attack_options(self, battle: Battle, uid: str) -> list[Option]:
        """Every legal :class:`~game.core.commands.Attack` now, one option per target × weapon
        (× ruleset flags), each with ``p_success`` (exact chance to hurt) and modifiers."""

    def maneuver_options(self, battle: Battle, uid: str) -> list[Option]:
        """Ruleset-specific :class:`~game.core.commands.Maneuver` options. Default: none."""
        return []

    def attack(self, battle: Battle, cmd: Attack) -> Flow:
        """Resolve an attack, driven like a generator (:class:`~game.core.flow.FlowRun`): for tests
        and tools that answer its decisions themselves. The engine runs the frames itself."""
        return FlowRun(self, battle, self.attack_frame(cmd))  # type: ignore[return-value]

    def maneuver(self, battle: Battle, cmd: Maneuver) -> Flow:
        """Resolve a maneuver, driven like a generator (as :meth:`attack`)."""
        return FlowRun(self, battle, self.maneuver_frame(cmd))  # type: ignore[return-value]

    def posture_allowed(self, battle: Battle, uid: str, posture: Posture) -> bool:
        """Whether ``uid`` may change to ``posture`` now. Default: yes."""
        return True

    def on_moved(self, battle: Battle, uid: str, kind: str, length: float) -> None:
        """Hook after any movement of ``uid`` (e.g. defence-dice rerolls dodge dice). Default: nothing."""

    def on_damaged(self, battle: Battle, uid: str) -> None:
        """Hook after ``uid`` took damage (e.g. cover dice reroll). Default: nothing."""

    # ---- for players ---------------------------------------------------------
    def sheet(self, battle: Battle, uid: str) -> UnitSheet:
        """``uid``'s weapons, defences, protection and health left now (:mod:`game.rules.sheet`).
        Default: nothing known (a ruleset without one shows no sheet)."""
        return UnitSheet()

    def reaction_ap(self, battle: Battle, uid: str) -> tuple[str, int] | None:
        """(name, AP) of the reaction ``uid`` pays AP for, e.g. ``("dodge", 2)``; None where
        reactions cost no AP. The window warns before a move or an end of turn leaves less."""
        return None

    # ---- geometry queries --------------------------------------------------
    def reaction_region(
        self, battle: Battle, kind: str, uid: str, attacker: str | None = None
    ) -> ReactionRegion:
        """The legal region of the moving reaction ``kind`` (one of :attr:`reaction_regions`) of
        ``uid`` as the battle stands, ``attacker`` attacking it (a retreat needs one): the region
        the ruleset's decision would offer. Default: the ruleset has none (``ValueError``)."""
        raise ValueError(f"the {self.name} ruleset has no {REACTION_KINDS.get(kind, kind)}")
