"""Records of what changed, for the readers that keep something derived from the components.

Both components sit on the battle entity and are only ever mutated, never replaced.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Revisions:
    """Per unit id, a count of the changes to what a unit's view snapshot shows (place,
    facing, posture, AP, health, status): a view keeps a snapshot while its count stands."""

    by_unit: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class TableChanges:
    """The units whose place, silhouette (posture), facing or presence (in action or not)
    changed since the sight system last synced its numpy mirror, in the order they changed
    (a dict used as an ordered set)."""

    units: dict[str, None] = field(default_factory=dict)
