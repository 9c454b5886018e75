"""``skirmish rulesets``: list the rulesets, the rule text each implements, and its options.

Contract: prints one block per ruleset (name, source file, one-line summary, every option
with its type, range, unit, default and source (:func:`game.rules.options.describe`), the
stat-block fields profiles give it, and the names of the mechanics batch results count,
``Ruleset.mechanics``); ``--json`` prints the same as one JSON object keyed by ruleset name.
Never imports pygame.
"""

from __future__ import annotations

import json
from typing import Any, Literal, get_args, get_origin

import click

from game.rules import RULESET_NAMES, ruleset_class
from game.rules.options import bounds, describe, shown


def _type_name(annotation: Any) -> str:
    if get_origin(annotation) is Literal:
        return "one of " + "|".join(str(a) for a in get_args(annotation))
    return getattr(annotation, "__name__", str(annotation))


def _fields(model: Any) -> list[dict[str, Any]]:
    out = []
    for name, f in model.model_fields.items():
        default = None if f.is_required() else f.get_default(call_default_factory=True)
        out.append(
            {
                "name": name,
                "type": _type_name(f.annotation),
                "bounds": bounds(f),
                "required": f.is_required(),
                "default": default
                if isinstance(default, (int, float, str, bool, type(None)))
                else str(default),
                "description": f.description or "",
            }
        )
    return out


def describe_rulesets() -> dict[str, dict[str, Any]]:
    """Name -> {source, summary, options, stats} for every registered ruleset."""
    info: dict[str, dict[str, Any]] = {}
    for name in RULESET_NAMES:
        cls = ruleset_class(name)
        doc = (cls.__doc__ or "").strip().splitlines()
        info[name] = {
            "source": cls.source,
            "summary": doc[0] if doc else "",
            "options": describe(cls.Options),
            "stats": [f["name"] for f in _fields(cls.Stats)],
            "mechanics": [{"name": m.name, "description": m.description} for m in cls.mechanics],
        }
    return info


@click.command("rulesets")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def rulesets(as_json: bool) -> None:
    """List the rulesets, their rule texts, options (for --option key=value) and stat fields."""
    info = describe_rulesets()
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return
    for name, d in info.items():
        click.echo(f"{name}  ({d['source']})")
        if d["summary"]:
            click.echo(f"  {d['summary']}")
        if d["options"]:
            click.echo("  options:")
            for o in d["options"]:
                desc = f" — {o['description']}" if o["description"] else ""
                src = f" [{o['source']}]" if o["source"] else ""
                click.echo(f"    {shown(o)}{desc}{src}")
        else:
            click.echo("  options: none")
        click.echo(f"  stat fields: {', '.join(d['stats'])}")
        click.echo(f"  mechanics counted by battle: {', '.join(m['name'] for m in d['mechanics'])}")
        click.echo("")
