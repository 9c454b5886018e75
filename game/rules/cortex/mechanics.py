"""What batch results count per side for Cortex: one mechanic per rule of
shared/rules/cortex-actions-defense-damage.txt a battle can fire (``game.rules.mechanics``).

Contract: :data:`MECHANICS` names each mechanic, says what it counts and tallies it over the
event log (declarations and the multiple-action penalty, hustles and runs, range bands, cover,
visibility, pitch black, innate/static/active/all-out defences, armour, stun, wounds, shock,
seriously wounded, passing out, dying, deaths); docs/rulesets/cortex.md lists the events.
"""

from __future__ import annotations

from game.rules import mechanics as mech
from game.rules.cortex.damage import DYING, SERIOUSLY_WOUNDED
from game.rules.cortex.movement import HUSTLE_ACTIONS, RUN_ACTIONS

MECHANICS: tuple[mech.Mechanic, ...] = (
    mech.ATTACKS,
    mech.Mechanic(
        "multi_action_turns",
        "turns in which the unit took two or more actions (forfeits and all-out defence aside)",
        mech.turns(
            "ap",
            amount=lambda e: e["spent"],
            at_least=2,
            reason=lambda r: r != "all-out defence" and not str(r).startswith("declared"),
        ),
    ),
    mech.Mechanic(
        "multi_action_declarations",
        "rounds the unit declared two or more actions (-1 step to all of them per extra one)",
        mech.event("actions_declared", actions=lambda n: isinstance(n, int) and n >= 2),
    ),
    mech.Mechanic(
        "declared_in_defence",
        "declarations made by an active defence, attacked before the unit's turn",
        mech.event("actions_declared", reason="defence"),
    ),
    mech.Mechanic(
        "multi_action_penalties",
        "attack and defence rolls at the multiple-action step penalty",
        mech.combined(
            mech.event("attack", credit="attacker", modifiers=mech.has_modifier("multiple actions")),
            mech.event("defence", modifiers=mech.has_modifier("multiple actions")),
        ),
    ),
    mech.Mechanic(
        "hustles",
        "turns moving beyond 15 ft up to 30 ft (hustle: 1 action)",
        mech.turns("move", amount=lambda e: e.get("ap", 0), at_least=HUSTLE_ACTIONS, at_most=HUSTLE_ACTIONS),
    ),
    mech.Mechanic(
        "runs",
        "turns moving beyond 30 ft (run: 2 actions)",
        mech.turns("move", amount=lambda e: e.get("ap", 0), at_least=RUN_ACTIONS),
    ),
    mech.Mechanic(
        "range_point_blank",
        "attacks at point-blank range (+1 step), by the attacker",
        mech.event("attack", credit="attacker", modifiers=mech.has_modifier("range: point-blank")),
    ),
    mech.Mechanic(
        "range_medium",
        "attacks at medium range (-2 steps), by the attacker",
        mech.event("attack", credit="attacker", modifiers=mech.has_modifier("range: medium")),
    ),
    mech.Mechanic(
        "range_long",
        "attacks at long range (-4 steps), by the attacker",
        mech.event("attack", credit="attacker", modifiers=mech.has_modifier("range: long")),
    ),
    mech.Mechanic(
        "cover_light",
        "attacks on a target in light cover or lying down (+4), by the target",
        mech.event(
            "attack", credit="target", modifiers=mech.has_modifier("cover: light", "cover: lying down")
        ),
    ),
    mech.Mechanic(
        "cover_medium",
        "attacks on a target in medium cover (+8), by the target",
        mech.event("attack", credit="target", modifiers=mech.has_modifier("cover: medium")),
    ),
    mech.Mechanic(
        "cover_heavy",
        "attacks on a target in heavy cover (+12), by the target",
        mech.event("attack", credit="target", modifiers=mech.has_modifier("cover: heavy")),
    ),
    mech.Mechanic(
        "cover_near_total",
        "attacks on a target in near-total cover (+16), by the target",
        mech.event("attack", credit="target", modifiers=mech.has_modifier("cover: near-total")),
    ),
    mech.Mechanic(
        "poor_visibility_attacks",
        "attacks in dim light or fog (+4/+8 Difficulty), by the attacker",
        mech.event("attack", credit="attacker", modifiers=mech.has_modifier(pattern=r"visibility: .*")),
    ),
    mech.Mechanic(
        "pitch_black_attacks",
        "attacks in pitch black (the lowest innate roll nearby is hit)",
        mech.event("defence", credit="attacker", kind="pitch_black"),
    ),
    mech.Mechanic(
        "innate_defences",
        "attacks met by the innate defence (unskilled Agility roll), by the target",
        mech.event("defence", kind="none", dice=mech.present),
    ),
    mech.Mechanic(
        "static_defences",
        "attacks at Difficulty 3 (rear attack, or not moving around), by the target",
        mech.event("defence", kind="none", dice=None),
    ),
    mech.DODGES,
    mech.BLOCKS,
    mech.Mechanic(
        "defences_made",
        "dodges and blocks that made the attack miss, by the defender",
        mech.event("defence", kind={"dodge", "block"}, success=True),
    ),
    mech.Mechanic(
        "all_out_defences",
        "all-out defence maneuvers (+2 steps, free defences)",
        mech.event("maneuver", name="all_out_defence"),
    ),
    mech.Mechanic(
        "armoured_hits",
        "hits on a target whose armour reduces Wound damage, by the target",
        mech.event("damage", armour=lambda a: isinstance(a, int) and a > 0),
    ),
    mech.Mechanic(
        "stun_hits",
        "hits dealing Stun, by the unit hit",
        mech.event("damage", deltas=mech.field_above("stun")),
    ),
    mech.Mechanic(
        "wound_hits",
        "hits dealing Wounds, by the unit hit",
        mech.event("damage", deltas=mech.field_above("wounds")),
    ),
    mech.Mechanic(
        "shock_hits",
        "Stun taken while unconscious (Shock Points), by the unit hit",
        mech.event("damage", deltas=mech.field_above("shock")),
    ),
    mech.Mechanic(
        "seriously_wounded",
        "units becoming seriously wounded (-2 steps)",
        mech.event("status", flag=SERIOUSLY_WOUNDED, on=True),
    ),
    mech.Mechanic(
        "conscious_rolls",
        "Vitality + Willpower rolls to stay conscious",
        mech.event("check", kind="stay conscious"),
    ),
    mech.Mechanic("passed_out", "units passing out", mech.event("status", flag="unconscious", on=True)),
    mech.Mechanic(
        "dying",
        "units starting to die (Wounds >= Life Points)",
        mech.event("status", flag=DYING, on=True),
    ),
    mech.Mechanic("deaths", "units dead of their wounds", mech.event("status", flag="dead", on=True)),
)
