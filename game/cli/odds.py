"""``skirmish odds RULESET ...``: exact odds of one defence, answered by the ruleset (DESIGN §4).

Contract: every registered ruleset whose :meth:`~game.rules.base.Ruleset.odds` declares a
query (:mod:`game.rules.odds`) is a subcommand: its options are the query's parameters,
plus ``--json``, which prints the answer's object (``{"p_success": x}`` for ``gurps`` and
``ap-pool``, as DESIGN §4 gives them); without it, the answer's readable lines. A usage error
exits 2 with click's usage line; a combination the rules forbid exits 2 with one line
(``Error: ...``). Every whole number lies in ``-100 .. 100`` (:data:`MAX_NUMBER`; and at least
the parameter's minimum). A ruleset is imported only when the group lists or runs it; its query
module only when asked.

Every subcommand also takes ``--option KEY=VALUE`` (repeatable, :data:`game.cli.params.RULESET_OPTIONS`),
checked against the ruleset's options as ``battle`` checks them (one line, exit 2). The odds
are exact under the options set: an option that is also a query parameter (``aim_die``,
``ubiquitous``, ``visibility``) sets that parameter (an explicit flag of its own wins); the
validated options object goes to a query whose ``answer`` takes ``options``
(:class:`game.rules.odds.OddsQuery`); an option changed from its default that the query does not
read is refused, naming it, rather than answered as if it were not set.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

import click

from game.rules import REGISTRY, odds_query
from game.rules.odds import OddsForbidden, OddsParam, OddsQuery, OddsUsageError

#: Every whole-number parameter of a query lies in ``-MAX_NUMBER .. MAX_NUMBER`` (and at least
#: its own minimum): tabletop scores and dice counts are far smaller, and the exact odds of a pool
#: of thousands of dice take minutes to count.
MAX_NUMBER = 100


class OddsError(click.ClickException):
    """A combination the rules forbid: one line, exit status 2."""

    exit_code = 2


def _query(name: str) -> OddsQuery | None:
    return odds_query(name) if name in REGISTRY else None


class OddsGroup(click.Group):
    """One subcommand per ruleset that declares an odds query."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name in REGISTRY if _query(name) is not None)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        query = _query(cmd_name)
        return None if query is None else odds_command(cmd_name, query)


def _option(p: OddsParam) -> click.Option:
    decls = [*p.flags, p.name]
    if p.kind is bool:
        return click.Option(decls, is_flag=True, help=p.help)
    kind: Any = p.kind
    if p.choices:
        kind = click.Choice(list(p.choices))
    elif p.kind is int:
        low = -MAX_NUMBER if p.minimum is None else max(p.minimum, -MAX_NUMBER)
        kind = click.IntRange(min=low, max=MAX_NUMBER)
    # No default is not a default of None to click: a required option given None is satisfied.
    default: dict[str, Any] = {} if p.default is None else {"default": p.default}
    return click.Option(
        decls,
        type=kind,
        required=p.required,
        multiple=p.multiple,
        metavar=p.metavar,
        help=p.help,
        show_default=p.show_default,
        **default,
    )


def _with_options(
    name: str, query: OddsQuery, option: tuple[str, ...], values: dict[str, Any]
) -> dict[str, Any]:
    """The query's arguments under the ruleset options ``option`` (see the module docstring)."""
    from game.cli.params import BadInput, parse_options, ruleset_options
    from game.rules import ruleset_class

    given = ruleset_options(name, parse_options(option))
    model = ruleset_class(name).Options.model_validate(given)
    defaults = ruleset_class(name).Options()
    ctx = click.get_current_context()
    by_name = {p.name: p for p in query.params}
    takes_options = "options" in inspect.signature(query.answer).parameters
    out = dict(values)
    for key in given:
        value = getattr(model, key)
        param = by_name.get(key)
        if param is not None:
            if ctx.get_parameter_source(key) is click.core.ParameterSource.DEFAULT:
                out[key] = str(value) if param.kind is str and not isinstance(value, str) else value
        elif not takes_options and value != getattr(defaults, key):
            raise BadInput(
                "--option",
                f"the {name} odds do not read the option {key!r} yet; leave it at its default "
                f"({getattr(defaults, key)!r}) or use 'skirmish battle --option'",
            )
    if takes_options:
        out["options"] = model
    return out


def odds_command(name: str, query: OddsQuery) -> click.Command:
    """The click command of a ruleset's odds query."""

    def run(as_json: bool, option: tuple[str, ...], **values: Any) -> None:
        try:
            values = _with_options(name, query, option, values)
            got = query.answer(**values)
        except OddsUsageError as e:
            raise click.UsageError(str(e)) from None
        except OddsForbidden as e:
            raise OddsError(str(e)) from None
        if as_json:
            click.echo(json.dumps(got.data))
            return
        for line in got.lines:
            click.echo(line)

    params: list[click.Parameter] = [_option(p) for p in query.params]
    params.append(click.Option(["--json", "as_json"], is_flag=True, help=query.json_help))
    params.append(
        click.Option(
            ["--option", "option"],
            multiple=True,
            metavar="KEY=VALUE",
            help="Ruleset option the odds are computed under (repeatable; 'skirmish rulesets' lists them).",
        )
    )
    return click.Command(name, callback=run, params=params, help=inspect.cleandoc(query.help))


@click.group(cls=OddsGroup, name="odds", context_settings={"help_option_names": ["-h", "--help"]})
def odds() -> None:
    """Exact odds of a defence under a ruleset."""
