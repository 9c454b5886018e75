"""PostureSystem: how a unit stands where it is: its posture and its facing.

Contract: :meth:`PostureSystem.set_posture` carries out a posture change: chosen on a turn,
a dodge-and-drop (``kind="drop_prone"``) or a knockdown (``kind="knockdown"``);
:meth:`PostureSystem.set_facing` a turn to face a direction (normalised to [0, 360)). Each
pays ``ap`` first (an ``ap`` event before its own), replaces the component, tells the sight
system the table changed and logs its event. Both act when asked, not per step.

Facing lives here rather than with movement: like a posture it changes the unit's
silhouette as sight sees it (arcs; for posture, height) but never its base's place, so
neither needs a path nor touches blockers, and neither grows ``TurnState.moved``.
"""

from __future__ import annotations

from components.spatial import Facing, Position, Posture, Stance, normalize_degrees
from game.core.events import round_pos
from systems.host import Host
from systems.turns import TurnSystem


class PostureSystem:
    """Changes postures and facings (see the module docstring)."""

    def __init__(self, turns: TurnSystem) -> None:
        self._turns = turns

    def set_posture(self, host: Host, uid: str, posture: Posture, kind: str = "posture", ap: int = 0) -> None:
        """``uid`` takes ``posture`` for ``ap`` AP; ``kind`` is the event type."""
        self._turns.spend_ap(host, uid, ap, kind)
        store = host.store
        old = store.get(uid, Stance).posture
        stance = Stance(Posture(posture))
        store.put(uid, stance)
        store.bump(uid)
        store.note_table(uid)
        p: Position = store.get(uid, Position)
        host.emit(
            kind,
            unit=uid,
            **{"from": str(old), "to": str(stance.posture)},
            ap=ap,
            at=round_pos((p.x, p.y)),
        )

    def set_facing(self, host: Host, uid: str, degrees: float, ap: int = 0) -> None:
        """``uid`` turns to face ``degrees`` for ``ap`` AP."""
        self._turns.spend_ap(host, uid, ap, "facing")
        store = host.store
        old = store.get(uid, Facing).degrees
        f = Facing(normalize_degrees(degrees))
        store.put(uid, f)
        store.bump(uid)
        store.note_table(uid)
        host.emit("facing", unit=uid, **{"from": round(old, 6), "to": round(f.degrees, 6)}, ap=ap)
