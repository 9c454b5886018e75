"""``skirmish los SCENARIO FROM_ID TO_ID [--json]``: line of sight and cover between two units.

Contract (DESIGN §4): with ``--json`` prints exactly one JSON object with the keys
``from, to, visible, cover_fraction, cover, intervening, hidden, arc, distance``
(``cover_fraction`` rounded to 4 decimals, ``distance`` in inches, centre to centre, rounded
to 4 decimals). Without it prints a short human-readable report that also names the obstacles
responsible for the cover (with their share of the silhouette) and the intervening units.
Unknown unit ids are a usage error (exit status 2) listing the valid ids; scenario errors are
reported by the CLI group (exit status 2).
"""

from __future__ import annotations

import json
from typing import Any

import click

from components.sight import SightFacts
from game.cli.params import UNIT_ID, NumbersCommand
from game.geometry import SightIndex, UnitTable


def los_payload(facts: SightFacts) -> dict[str, Any]:
    """The contract's JSON object for one pair of sight facts."""
    return {
        "from": facts.attacker,
        "to": facts.target,
        "visible": facts.visible,
        "cover_fraction": round(facts.cover_fraction, 4),
        "cover": str(facts.cover),
        "intervening": list(facts.intervening),
        "hidden": facts.hidden,
        "arc": str(facts.arc),
        "distance": round(facts.distance, 4),
    }


def _report(facts: SightFacts, shares: dict[str, float]) -> str:
    lines = [f"{facts.attacker} -> {facts.target}: {facts.distance:.2f} in, attack on the {facts.arc} arc"]
    if facts.visible:
        lines.append(
            f"line of sight: yes; cover {facts.cover} ({facts.cover_fraction:.1%} of the silhouette hidden)"
        )
    else:
        lines.append("line of sight: no (total cover)")
    if shares:
        parts = ", ".join(
            f"{oid} {share:.1%}" for oid, share in sorted(shares.items(), key=lambda kv: -kv[1])
        )
        lines.append(f"cover from: {parts}")
    else:
        lines.append("cover from: nothing")
    if facts.intervening:
        lines.append(f"intervening units (nearest first): {', '.join(facts.intervening)}")
    else:
        lines.append("intervening units: none")
    lines.append(f"hidden: {'yes' if facts.hidden else 'no'}")
    return "\n".join(lines)


@click.command("los", cls=NumbersCommand)
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.argument("from_id", type=UNIT_ID)
@click.argument("to_id", type=UNIT_ID)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (the documented keys).")
def los(scenario: str, from_id: str, to_id: str, as_json: bool) -> None:
    """Line of sight and cover from unit FROM_ID to unit TO_ID in SCENARIO."""
    from game.scenario import load_scenario  # imported here: the CLI group stays light

    spec = load_scenario(scenario)
    units = UnitTable.from_specs(spec.units)
    valid = ", ".join(units.ids) or "(none)"
    for label, uid in (("FROM_ID", from_id), ("TO_ID", to_id)):
        if uid not in units.ids:
            raise click.UsageError(f"unknown unit id {uid!r} for {label}; valid ids: {valid}")
    if from_id == to_id:
        raise click.UsageError("FROM_ID and TO_ID must be different units")
    index = SightIndex(spec.obstacles, spec.width, spec.height)
    a, t = units.index(from_id), units.index(to_id)
    facts = index.facts(units, a, t)
    if as_json:
        click.echo(json.dumps(los_payload(facts)))
    else:
        click.echo(_report(facts, index.contributions(units, a, t)))
