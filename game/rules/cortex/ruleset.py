"""Cortex ruleset: step dice, actions with a multiple-action penalty, rolled Difficulties.

Implements shared/rules/cortex-actions-defense-damage.txt (initiative, actions,
movement, innate/block/dodge/all-out defence, cover, poor visibility, range,
armour, damage, passing out, shock, seriously wounded, dying). The numbers of
the text are options (:mod:`game.rules.cortex.options`, defaults the text's);
docs/rulesets/cortex.md lists them with every decision.

The package, by concept (each module states its contract): ``stats`` and
``options`` (the models), ``state`` (what the match remembers: frozen values in
the match, never on the ruleset), ``rolls``, ``damage`` (stun, wounds, shock,
seriously wounded, passing out, dying), ``actions`` (declarations and the
multiple-action penalty), ``movement`` (the tiers and the run roll), ``defence``
(innate, dodge, block, all-out), ``attacks`` (pools, reach, range, cover,
visibility, the options and their odds), ``flow`` (the attack's steps),
``maneuvers`` (``declare:N``, all-out defence) and ``mechanics``. Each part is a
mixin on the one below it; this module assembles them into
:class:`CortexRuleset` and holds set-up, initiative and turn starts.

From the text:
- Traits are step dice (``game.dice.cortex``); a roll is attribute + skill.
- Initiative: Agility + Alertness each round, highest first.
- One action a turn; every extra action is a cumulative -1 skill step.
- Movement: 15 ft a turn free, hustle to 30 ft for 1 action, run 30 ft +
  an Agility + Athletics/Running roll in feet for 2 actions.
- Defence sets the Difficulty the attack must meet: innate (an unskilled
  Agility roll if the target sees it coming and is moving around, else 3),
  dodge (Agility + Athletics/Dodge), block (Agility + skill, opposed), all-out
  defence (+2 steps to dodge and block). Cover adds +4/+8/+12/+16 (light,
  medium, heavy, near-total); dim light/fog +4, dark/thick fog +8; in pitch
  black every potential target rolls an innate defence and the lowest is hit.
- Range: point-blank +1 step, short 0, medium -2, long -4.
- Damage: (attack - Difficulty) split stun/wounds, plus the weapon's damage;
  armour reduces wounds. Stun + wounds > life points: Vitality + Willpower at
  Difficulty 7 to stay conscious, again each turn the unit acts at +4 a turn.
  Stun taken while unconscious is shock. Wounds >= half life points: -2 steps
  to every action. Wounds >= life points: dying, Vitality + Willpower at
  Difficulty 3, again every minute at +4 each; a failure kills.

Where the text is silent (standard Cortex Classic / Serenity practice):
- Life points = Vitality + Willpower die maxima. Below d2 a trait adds no die.
  Step penalties come off the skill die first, then the attribute die; bonuses
  raise the skill die. A roll meets the Difficulty on a tie (attacks hit on a
  tie); a block is the Difficulty the attack must meet, so ties go to the
  attacker there too.
- A Cortex "turn" is the engine's round (every unit acts once, actions refresh).
  Actions: 3 a round (AP = actions). The multiple-action penalty applies to
  all actions of the round, so a unit **declares** its number of actions N
  with its first action of the round: a free ``declare:N`` maneuver on its
  turn, or an active defence that declares N when it is attacked first. The
  AP beyond N are forfeit; every action of the round is at -(N-1) steps.
  Before declaring, a unit may only face and walk its free 15 ft. Attacks,
  posture changes, hustling and running are actions; facing and the free 15 ft
  are not. Several attacks a round are allowed, each an action. Option
  ``prospective_penalty``: the old reading, no declaration, each action at -1
  step per action already taken this round.
- Movement adds up over a turn's moves; the tier the total reaches is paid
  once (a later move only pays the difference); a path within
  ``TIER_TOLERANCE`` of a tier's limit is in it. The run roll (Agility +
  Athletics/Running, in feet) is made once the unit's actions are declared on
  its turn, and only if it can afford a run, so pricing a move never rolls; it
  carries the round's penalty.
- Active defences (dodge, block) are reactions costing one declared action
  of the current round; with no action left only the innate defence applies.
  They need the attacker outside the defender's rear arc ("sees it coming").
  Block works against melee only, with the defender's best melee skill.
  All-out defence is the alternative declaration (only while undeclared): it
  spends every action; until the unit's next turn its dodges and blocks are
  free, at +2 steps and without the multiple-action penalty.
- The attack is rolled first; the defender sees the total and then chooses
  (each defence option carries the exact chance it makes the attack miss).
- "Moving around": on its feet (not sitting, crawling or prone). A target lying
  down counts as at least light cover against ranged and thrown attacks (the
  text's "prone" light cover); the geometric cover level applies otherwise.
  Total cover (no line of sight) allows no attack.
- Damage types: W weapons add their die to wounds, S weapons make all damage
  stun, B weapons add their die before the split. Splits give the odd point
  to stun. The weapon's damage rating is a die expression (normally one step
  die) rolled on a hit, as Cortex weapon damage dice are. Armour removes wound points only.
- Reach (melee) is measured base edge to base edge, in yards
  (``Weapon.reach``, default 1). Ranged bands use the centre-to-centre
  distance and the weapon's range increment: point-blank within 3 yards,
  short within 1 increment, medium within 2, long within 4; beyond that no
  attack.
- Pitch black (``visibility: pitch_black``): potential targets are the chosen
  target and every other unit within 2 yards of it (base edge to base edge)
  the weapon could reach; each rolls unskilled Agility (its innate defence);
  the lowest (ties broken by a die roll) is hit if the attack meets that roll
  plus its cover. Nobody can actively defend in the dark.
- Passing out: the first roll comes when stun + wounds first exceed life
  points; then one roll in each round the unit takes an action, with its
  first action (the declaration or all-out defence), at +4 per earlier roll;
  failing it on an active defence leaves the attack against Difficulty 3.
  Further damage while already reeling adds no extra roll.
- Dying and unconsciousness take the unit out of action. A minute is 20
  rounds (a Cortex turn is about 3 seconds): a dying unit rolls when it
  starts dying and again every 20 rounds, +4 each time. The hourly shock
  recovery roll is outside a battle's span and is not modelled.
- Seriously wounded applies to actions (attacks, active defences, runs), not
  to the innate defence, initiative or Vitality + Willpower rolls.
- Initiative ties: higher Agility, then higher Alertness, then a roll-off of
  Agility + Alertness among the still-tied units (repeated until they differ).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from components.state import Health
from game.core.battle import Battle
from game.dice.cortex import Pool, format_pool, step_dice, trait_pool
from game.rules.base import Ruleset, StrictModel, UnitSetup
from game.rules.cortex.actions import ACTION_COSTS
from game.rules.cortex.attacks import RANGE_BAND_INCREMENTS
from game.rules.cortex.damage import REELING
from game.rules.cortex.flow import CortexAttackFlow
from game.rules.cortex.maneuvers import CortexManeuvers
from game.rules.cortex.mechanics import MECHANICS
from game.rules.cortex.options import CortexOptions
from game.rules.cortex.rolls import roll_total
from game.rules.cortex.state import defence_record, note
from game.rules.cortex.stats import TROOPER, CortexStats
from game.rules.limits import Reaction
from game.rules.mechanics import Mechanic
from game.rules.sheet import HarmLeft, RangeBand, UnitSheet, WeaponLine, in_inches


def initiative_pool(stats: CortexStats) -> Pool:
    """Agility + Alertness (text: "Roll Agility + Alertness. Highest roll goes first.")."""
    return step_dice(stats.attr("agility")) + step_dice(stats.attr("alertness"))


class CortexRuleset(CortexAttackFlow, CortexManeuvers, Ruleset[CortexStats, CortexOptions]):
    """Cortex: step dice, multi-action penalty, rolled Difficulties, stun and wounds."""

    name: ClassVar[str] = "cortex"
    source: ClassVar[str] = "cortex-actions-defense-damage.txt"
    Stats: ClassVar[type[StrictModel]] = CortexStats
    Options: ClassVar[type[StrictModel]] = CortexOptions
    # A unit declares its actions once a round (unless prospective_penalty: no declarations).
    reaction_limits: ClassVar[tuple[Reaction, ...]] = (
        Reaction(
            "actions declaration",
            lambda e: e.get("type") == "actions_declared",
            "round",
            applies=lambda options: not options.get("prospective_penalty"),
        ),
    )

    mechanics: ClassVar[tuple[Mechanic, ...]] = MECHANICS

    # ---- set-up ----------------------------------------------------------------------------------
    @classmethod
    def default_stats(cls) -> CortexStats:
        return TROOPER

    def setup_unit(self, stats: Any) -> UnitSetup:
        lp = stats.life_points
        return UnitSetup(
            Health({"stun": 0, "wounds": 0, "shock": 0}, {"stun": lp, "wounds": lp, "shock": lp}),
            self.options.max_actions,
        )

    # ---- rounds and turns ------------------------------------------------------------------------
    def initiative(self, battle: Battle, units: Sequence[str]) -> list[str]:
        keys: dict[str, list[int]] = {}
        for u in units:
            s = battle.stats(u)
            keys[u] = [
                roll_total(battle, initiative_pool(s), "initiative", u),
                s.attr("agility"),
                s.attr("alertness"),
            ]
        # Roll-offs among units still tied on every key, until none are.
        while True:
            groups: dict[tuple[int, ...], list[str]] = {}
            for u in units:
                groups.setdefault(tuple(keys[u]), []).append(u)
            tied = [g for g in groups.values() if len(g) > 1]
            if not tied:
                break
            for g in tied:
                for u in g:
                    keys[u].append(
                        roll_total(battle, initiative_pool(battle.stats(u)), "initiative roll-off", u)
                    )
        return sorted(units, key=lambda u: [-k for k in keys[u]])

    def start_round(self, battle: Battle) -> None:
        self.minute_rolls(battle)

    def start_turn(self, battle: Battle, uid: str) -> bool:
        if battle.health(uid).out_of_action:
            return False
        note(battle, "turn_round", uid, battle.round)
        if self.prospective:
            if REELING in battle.health(uid).status and not self._conscious_roll(battle, uid):
                return False
            self._roll_run(battle, uid)
        elif self.declared(battle, uid) is not None:
            self._roll_run(battle, uid)  # declared already (by an active defence this round)
        return True

    # ---- for players -----------------------------------------------------------------------------
    def reaction_ap(self, battle: Battle, uid: str) -> tuple[str, int] | None:
        return ("dodge or block", 1)

    def sheet(self, battle: Battle, uid: str) -> UnitSheet:
        stats: CortexStats = battle.stats(uid)
        ypi = battle.yards_per_inch
        weapons = []
        kinds = {"W": "wounds", "S": "stun", "B": "split into stun and wounds"}
        for w in stats.weapons:
            pool = trait_pool(stats.attr(w.attribute), stats.skill(w.skill), 0)
            damage = (
                f"margin split into stun and wounds + {w.damage} ({w.damage_type}: {kinds[w.damage_type]})"
            )
            notes = (f"{format_pool(pool)} ({w.attribute} + {w.skill.replace('_', ' ')})",)
            if w.kind == "melee":
                reach = in_inches(w.reach, ypi)
                weapons.append(
                    WeaponLine(w.name, w.kind, ACTION_COSTS["attack"], damage, reach, True, (), notes)
                )
                continue
            inc = w.range_increment or 0.0
            pb = self.range_steps("point-blank")
            bands = [
                RangeBand(
                    "point-blank",
                    in_inches(self.options.point_blank_yards, ypi),
                    f"{pb:+d} step{'s' if abs(pb) != 1 else ''}" if pb else "",
                )
            ]
            for band, mult in RANGE_BAND_INCREMENTS:
                steps = self.range_steps(band)
                bands.append(
                    RangeBand(band, in_inches(inc * mult, ypi), f"{steps:+d} steps" if steps else "")
                )
            weapons.append(
                WeaponLine(
                    w.name, w.kind, ACTION_COSTS["attack"], damage, bands[-1].upto, False, tuple(bands), notes
                )
            )
        agility = stats.attr("agility")
        defences = [
            f"innate: Agility {format_pool(step_dice(agility))} "
            f"({self.options.static_difficulty} when attacked from behind or not moving)",
            f"dodge: {format_pool(trait_pool(agility, stats.skill('athletics/dodge'), 0))}, one action",
        ]
        if any(w.kind == "melee" for w in stats.weapons):
            defences.append(
                f"block (melee): {format_pool(trait_pool(agility, stats.block_skill(), 0))}, one action"
            )
        if defence_record(battle, uid).all_out_defence:
            defences.append(
                f"all-out defence: dodges and blocks free, {self.options.all_out_defence_steps:+d} steps, "
                "until its next turn"
            )
        h = battle.health(uid)
        lp = h.maxima["wounds"]
        stun, wounds = h.tracks.get("stun", 0), h.tracks.get("wounds", 0)
        declared = self.declared(battle, uid)
        limit = None
        if not self.can_act(battle, uid):
            limit = "declare its actions this round first (a free choice in the panel)"
        elif declared == 0:
            limit = "in all-out defence this round"
        return UnitSheet(
            weapons=tuple(weapons),
            defences=tuple(defences),
            protection=(f"armour {stats.armour} (off wounds)",),
            harm=(
                HarmLeft("wounds", max(0, lp - wounds), lp),
                HarmLeft("stun", max(0, lp - wounds - stun), lp),
            ),
            attack_limit=limit,
        )
