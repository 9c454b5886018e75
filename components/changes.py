"""Records of what changed, for the readers that keep something derived from the components.

Both components sit on the battle entity and are replaced, never edited.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True, slots=True)
class Revisions:
    """Per unit id, a count of the changes to what a unit's view snapshot shows (place,
    facing, posture, AP, health, status): a view keeps a snapshot while its count stands."""

    by_unit: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    def bumped(self, uid: str) -> Revisions:
        counts = dict(self.by_unit)
        counts[uid] = counts.get(uid, 0) + 1
        return Revisions(MappingProxyType(counts))


@dataclass(frozen=True, slots=True)
class TableChanges:
    """The units whose place, silhouette (posture), facing or presence (in action or not)
    changed since the sight system last synced its numpy mirror, in the order they changed."""

    units: tuple[str, ...] = ()

    def noted(self, uid: str) -> TableChanges:
        return self if uid in self.units else TableChanges((*self.units, uid))
