"""A unit's sheet: what it carries and how it defends, in the ruleset's own terms, for players.

Contract (pure data; no pygame, no match): :meth:`game.rules.base.Ruleset.sheet` answers a
:class:`UnitSheet` for a unit as the battle stands: its weapons (:class:`WeaponLine`: kind, the
AP an attack costs, the damage in the ruleset's words, how far it reaches and how that is
measured, its range bands with their modifiers), its defences and protection as short lines, the
health tracks harm counts on with what is left of each (:class:`HarmLeft`), and, when no attack
at all is possible now, why (``attack_limit``: "one attack a turn: it has attacked"). The window
reads it through :meth:`game.engine.view.MatchView.sheet` to show the selected and the hovered
unit and to name the one reason an attack is refused (:mod:`game.render.price`).

:class:`DiceReading` says how the ruleset counts a roll's faces (summed, each face on its own,
or successes at or above a face), so a log sentence shows a roll as the rules count it.

The expected harm an option carries (``Option.detail``), the same in every ruleset:

- ``expected_harm``: on an attack option, the harm the attack is expected to do to its target
  (every outcome counted, the target's best defence assumed as for ``p_hurt``); on a defence
  option, the harm the defender is expected to take if it chooses it. A mapping of health track
  (as the unit's health names it) to points of harm, always positive (HP lost, wounds taken).
- ``expected_harm_without``: on a defence option, the same if the unit took the choice that
  costs nothing (no defence, its innate defence, no protection).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class RangeBand:
    """One range band of a weapon: its name, how far it reaches (inches) and its modifier text."""

    name: str
    upto: float
    modifier: str = ""


@dataclass(frozen=True)
class WeaponLine:
    """One weapon as a player reads it.

    Attributes:
        name: the weapon's name (as attack options name it).
        kind: melee, ranged, missile, thrown (the ruleset's word).
        ap: AP one attack with it costs (None: it cannot attack now).
        damage: its damage in the ruleset's words (``sw+1 cut: 1d6+2``, ``2 wounds + 1 per extra
            success``, ``track 1, 2, 2, 3, 3, 3, 4``).
        reach: the farthest it attacks, inches.
        edge_to_edge: True when ``reach`` is measured base edge to base edge (melee), False
            when centre to centre (shots).
        bands: its range bands, nearest first (empty for a melee weapon).
        notes: anything else a player weighs (parry score, accuracy, rate of fire, bonus dice).
    """

    name: str
    kind: str
    ap: int | None
    damage: str
    reach: float
    edge_to_edge: bool
    bands: tuple[RangeBand, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class HarmLeft:
    """What is left of one health track before the unit is out of action: ``left`` of ``of``."""

    track: str
    left: int
    of: int


@dataclass(frozen=True)
class UnitSheet:
    """A unit's weapons, defences, protection and health left (see the module doc)."""

    weapons: tuple[WeaponLine, ...] = ()
    defences: tuple[str, ...] = ()
    protection: tuple[str, ...] = ()
    harm: tuple[HarmLeft, ...] = ()
    attack_limit: str | None = None

    def weapon(self, name: str) -> WeaponLine | None:
        """The weapon called ``name``, if the unit carries it."""
        return next((w for w in self.weapons if w.name == name), None)

    def left(self, track: str) -> HarmLeft | None:
        """What is left of ``track``, if harm counts on it."""
        return next((h for h in self.harm if h.track == track), None)


@dataclass(frozen=True)
class DiceReading:
    """How a ruleset counts the faces of a logged roll.

    ``total``: the faces are summed (3d6, 2d6, step dice); ``faces``: each face counts on its
    own (aim dice: every face is an aim); ``successes``: each face of ``success_at`` or more is
    one success (d6 pools: 5s and 6s).
    """

    kind: Literal["total", "faces", "successes"] = "total"
    success_at: int = 0

    def read(self, faces: list[int]) -> str:
        """The faces as the rules count them: ``1+2+5 = 8``, ``aims 3, 7, 9``, ``6, 1, 5: 2 successes``."""
        shown = ", ".join(str(f) for f in faces)
        if self.kind == "successes":
            n = sum(1 for f in faces if f >= self.success_at)
            return f"{shown}: {n} success{'' if n == 1 else 'es'} ({self.success_at}s and up count)"
        if self.kind == "faces":
            return shown
        if len(faces) == 1:
            return str(faces[0])
        return f"{'+'.join(str(f) for f in faces)} = {sum(faces)}"


def in_inches(yards: float, yards_per_inch: float) -> float:
    """A distance in yards as inches of the table (``yards_per_inch`` > 0)."""
    return yards / yards_per_inch if yards_per_inch > 0 else yards


__all__ = [
    "DiceReading",
    "HarmLeft",
    "RangeBand",
    "UnitSheet",
    "WeaponLine",
    "in_inches",
]
