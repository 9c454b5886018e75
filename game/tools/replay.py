"""Re-simulate a recorded battle from its event log and verify every event.

Contract:
- :func:`load` reads a JSON-lines log (:func:`game.core.events.read_log`) and rebuilds its
  scenario from the log alone when ``match_start`` embeds it (the scenario's text and the
  profiles its units use, :mod:`game.scenario.embed`): the log replays from any folder, after
  the scenario file moved or changed and after ``profiles.yaml`` was edited. A ``--scenario``
  given with such a log must be the embedded one: a file with other bytes is refused, saying
  that the scenario embedded in the log differs from that file. Embedded parts that do not
  hash to their recorded sha256 (an edited log) are refused too.
- Logs written before the scenario was embedded still load: their scenario is found by the
  one rule of :func:`game.scenario.locate.find_scenario` (the ``--scenario`` path if given,
  else the recorded ``scenario_path``, else a file next to the log, else the first YAML file in
  the usual folders whose sha256 equals the logged ``scenario_sha256``), with today's shared
  profiles, and named by the recorded path so the rebuilt ``match_start`` matches wherever it
  was found. When such a log's match starts differently (``seq 0``), :func:`explain` says the
  profiles (or the rules) changed since it was recorded.
- Every refusal is a :class:`ReplayError` reading ``LOG:1: key: why`` (a user error: exit 2
  from the CLI). A scenario that does not validate is a ``ScenarioError`` naming the log too
  (``LOG:1: scenario_text: the scenario it embeds (recorded from P) is invalid, line 7: ...``),
  never only the file it was recorded from.
- :func:`verify` rebuilds the match from ``match_start`` (seed, ruleset,
  options, controllers, round limit) through
  :meth:`game.tools.session.Session.from_header` and re-applies the logged ``command``
  events. The dice stream does not depend on who chose the commands, so the
  re-simulation must reproduce the log exactly: every event is compared field
  by field, including the ``state_hash`` of every ``round_start``. The result
  names the first divergence (seq, event type, field, expected vs got) or
  says OK. A line deleted, added or reordered shows up as a ``seq`` mismatch.
- Before anything is replayed, ``match_start`` is checked (:func:`check_header`): a
  ``log_format`` this version does not read (:data:`READABLE_LOG_FORMATS`; a log without one is
  format 1) is refused up front saying so, as is a seed, ruleset, options, round limit or
  controllers no match could be built from (``LOG:1: key: why``). The package ``version`` is
  informational: a log from another version of a readable format is replayed and ``version``
  is not compared.
- Controllers are verified too: when the side deciding is played by an AI policy according to
  ``controllers``, that policy is asked (drawing from the match's AI generator, as in the
  battle) and must choose the logged command; otherwise the result diverges at that command
  with field ``controllers``. A log whose controllers (or AI commands) were edited never
  verifies. A side the log gives to a person or to a user policy cannot be re-chosen from the
  log alone (a log never runs code): its commands are replayed as logged and the result says so
  (``unverified``), unless the caller names a policy for it (``policies``, the command line's
  ``--policy SIDE=SPEC``: trusted, it may be a user policy), which is then asked like a built-in.
- :func:`undetermined` names what a log claims that neither its scenario nor its battle shows:
  an option or a round limit that departs from the embedded scenario's (whose sha256 vouches for
  what it sets itself) although the battle replays just as well with the scenario's value. Each
  such claim is re-simulated with the scenario's value; a claim the battle shows (the other
  value diverges) is verified by that.
- Nothing here writes files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from components.specs import ScenarioSpec
from game.ai import Policy, get_policy, policy_names
from game.core.errors import IllegalCommand, Problem, ScenarioError, SkirmishError
from game.core.events import read_log
from game.core.files import FileRefused
from game.rules import ruleset_class
from game.scenario.embed import FIELDS, EmbeddedMismatch, has_embedded, rebuild, resourced
from game.scenario.locate import ScenarioNotFound, find_scenario, resolve_scenario, sha256_of
from game.tools.headers import header_problem
from game.tools.session import HUMAN, Session

#: Characters of a value shown in a divergence message.
SHOWN = 120
#: Log formats this version replays. The format is ``match_start``'s ``log_format`` (absent:
#: 1, every log written so far); it changes only when the events of a battle change meaning.
#: The package version (``version``) is informational: a log from another version whose
#: format is readable is replayed, and the version is not compared.
READABLE_LOG_FORMATS = (1,)
#: ``match_start`` fields that do not take part in the comparison (who wrote the log).
INFORMATIONAL = frozenset({"version", "log_format"})


class ReplayError(SkirmishError):
    """The log or its scenario cannot be used for a replay (bad file, missing or changed scenario)."""


@dataclass(frozen=True)
class Divergence:
    """The first place where the re-simulation differs from the log."""

    seq: int
    type: str
    field: str
    expected: Any
    got: Any

    def __str__(self) -> str:
        where = f"seq {self.seq} ({self.type})" + (f" {self.field}" if self.field else "")
        return f"{where}: expected {_shown(self.expected)}, got {_shown(self.got)}"


@dataclass(frozen=True)
class ReplayResult:
    """Outcome of :func:`verify`: ``divergence`` is None when every event matched."""

    events: int
    commands: int
    rounds: int
    divergence: Divergence | None
    #: Whether the log runs to the match's end (``match_end``); a log cut short (an interrupted
    #: battle) verifies as far as it goes, and says so.
    complete: bool = True
    #: What the log claims that the replay could not re-derive (one line each): sides whose
    #: commands were replayed as logged (a person's, a user policy's not named by the caller).
    unverified: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.divergence is None

    def __str__(self) -> str:
        if self.divergence is None:
            ends = "" if self.complete else " (the log ends before the match did)"
            caveat = f"; {len(self.unverified)} claim(s) not verified (below)" if self.unverified else ""
            return (
                f"OK: {self.events} events, {self.commands} commands, {self.rounds} rounds verified"
                f"{ends}{caveat}"
            )
        return f"DIVERGED at {self.divergence}"


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) and value.startswith("(") else json.dumps(value, default=str)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


# --------------------------------------------------------------------------- loading
def read_events(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The events of a log; :class:`ReplayError` if it is unreadable or not a battle log."""
    try:
        events = read_log(Path(path))
    except FileRefused as e:
        if e.reason.startswith("is a directory"):
            raise ReplayError(f"{path}: is a directory, expected a battle log (.jsonl)") from None
        raise ReplayError(str(e)) from None
    except OSError as e:
        raise ReplayError(f"{path}: cannot read: {e.strerror or e}") from None
    except ValueError as e:
        raise ReplayError(str(e)) from None
    if not events or events[0].get("type") != "match_start":
        first = events[0].get("type") if events else "nothing"
        raise ReplayError(f"{path}: not a battle log: the first event is {first}, not match_start")
    start = events[0]
    missing = [k for k in ("seed", "scenario_sha256", "ruleset") if k not in start]
    if missing:
        raise ReplayError(f"{path}: match_start lacks {', '.join(missing)}")
    check_header(path, start)
    return events


def check_header(path: str | os.PathLike[str], start: dict[str, Any]) -> None:
    """:class:`ReplayError` ``LOG:1: key: why`` for a log of a format this version cannot replay
    (:data:`READABLE_LOG_FORMATS`; a log without ``log_format`` is format 1) or a ``match_start``
    field no match could be built from."""
    fmt = start.get("log_format", 1)
    if type(fmt) is not int or fmt not in READABLE_LOG_FORMATS:
        from game import __version__

        by = start.get("version")
        raise ReplayError(
            str(
                Problem(
                    str(path),
                    1,
                    "log_format",
                    f"this log has format {_shown(fmt)}"
                    + (f" (written by skirmish {_shown(by)})" if by is not None else "")
                    + f"; skirmish {__version__} replays log formats "
                    + ", ".join(map(str, READABLE_LOG_FORMATS))
                    + " only, so it cannot be replayed",
                )
            )
        )
    bad = header_problem(start)
    if bad is not None:
        raise ReplayError(str(Problem(str(path), 1, *bad)))


def load(
    log_path: str | os.PathLike[str], scenario: str | os.PathLike[str] | None = None
) -> tuple[list[dict[str, Any]], ScenarioSpec]:
    """The log's events and its scenario, loaded under the logged ruleset: rebuilt from the log
    when it embeds it, else found by :func:`game.scenario.locate.find_scenario` (see the module
    docstring).

    Raises:
        ReplayError: unreadable log, a given scenario other than the embedded one, an edited
            embedded part, or (older logs) a scenario not found or with another sha256.
        ScenarioError: the scenario no longer validates.
    """
    from game.scenario import load_scenario_text

    events = read_events(log_path)
    start = events[0]
    recorded = start.get("scenario_path")
    sha256 = str(start["scenario_sha256"])

    def refuse(key: str, message: str) -> ReplayError:
        return ReplayError(str(Problem(str(log_path), 1, key, message)))

    if has_embedded(start):
        if scenario is not None:
            given = resolve_scenario(scenario)
            try:
                got = sha256_of(given)
            except OSError as e:
                raise refuse("scenario_path", f"cannot read scenario {given}: {e.strerror or e}") from None
            if got != sha256:
                raise refuse(
                    "scenario_sha256",
                    f"the scenario embedded in the log (sha256 {sha256[:12]}…, recorded from {recorded}) "
                    f"differs from {given} (sha256 {got[:12]}…); leave out --scenario to replay the "
                    "embedded one",
                )
        try:
            return events, rebuild(start, str(log_path))
        except EmbeddedMismatch as e:
            key = "scenario_text" if e.key == "scenario" else "profiles"
            raise refuse(key, e.message) from None
    try:
        found = find_scenario(
            recorded if isinstance(recorded, str) else None,
            sha256=sha256,
            relative_to=log_path,
            given=scenario,
            since="the battle was played",
            hint="pass --scenario PATH",
        )
    except ScenarioNotFound as e:
        raise refuse(f"scenario_{e.key}", e.message) from None
    try:
        raw = found.read_bytes()
    except OSError as e:
        raise refuse("scenario_path", f"cannot read scenario {found}: {e.strerror or e}") from None
    # Named as recorded, so the rebuilt match_start matches wherever the file was found.
    source = recorded if isinstance(recorded, str) and recorded else str(found)
    try:
        return events, load_scenario_text(raw, source, ruleset=str(start["ruleset"]))
    except ScenarioError as e:  # name the log and the file read, not the recorded path
        what = f"its scenario, found as {found}, is invalid"
        raise ScenarioError(resourced(e.problems, source, str(log_path), 1, "scenario_path", what)) from None


def explain(result: ReplayResult, events: Sequence[dict[str, Any]]) -> str | None:
    """Why a replay diverged, when the log alone can tell: a log without embedded profiles whose
    match starts differently was recorded with other profiles (or other rules)."""
    div = result.divergence
    if div is None or div.seq != 0 or div.type != "match_start" or has_embedded(events[0]):
        return None
    return (
        "this log embeds no profiles (it was recorded before logs carried them) and its match starts "
        f"differently ({div.field}): the shared profiles (profiles.yaml) or the rules changed since "
        "the battle was played"
    )


# --------------------------------------------------------------------------- verifying
def _diff(expected: dict[str, Any], got: dict[str, Any], pos: int) -> Divergence | None:
    if expected == got:
        return None
    if got.get("type") == "match_start" and expected.get("type") == "match_start":
        expected = {k: v for k, v in expected.items() if k not in INFORMATIONAL}
        got = {k: v for k, v in got.items() if k not in INFORMATIONAL}
        # A log records the options it was played with; options added since take their
        # defaults (the rules the log was played under), so compare the options filled in.
        expected["options"] = filled_options(expected.get("ruleset"), expected.get("options"))
        if not has_embedded(expected):
            # A log written before match_start embedded its scenario: compare what it recorded.
            got = {k: v for k, v in got.items() if k not in FIELDS or k in expected}
        if expected == got:
            return None
    seq = int(got.get("seq", pos))
    if expected.get("seq") != got.get("seq"):
        return Divergence(
            seq,
            str(expected.get("type", "?")),
            "seq",
            expected.get("seq"),
            f"(seq {got.get('seq')} here: a line of the log was deleted, added or reordered)",
        )
    kind = str(got.get("type", "?"))
    for key in [*got, *(k for k in expected if k not in got)]:
        if expected.get(key, "(missing)") != got.get(key, "(missing)"):
            return Divergence(seq, kind, key, expected.get(key, "(missing)"), got.get(key, "(missing)"))
    return None  # pragma: no cover - unequal dicts differ in some key


def filled_options(ruleset: Any, options: Any) -> Any:
    """A log's recorded ``options`` with every option added since filled with its default (as
    ``match_start`` writes them today); as recorded if they are not valid options of the ruleset
    (the comparison then shows the difference)."""
    if not isinstance(ruleset, str) or not isinstance(options, dict):
        return options
    try:
        return ruleset_class(ruleset).Options.model_validate(options).model_dump(mode="json")
    except (SkirmishError, ValueError, TypeError):
        return options


def _policies(
    controllers: dict[str, str], given: Mapping[str, str] | None = None
) -> tuple[dict[str, Policy], tuple[str, ...]]:
    """The policy asked for each side's commands, and a line for each side none is asked for.

    A side the caller names (``given``: the command line) is asked that policy; else a side the
    log gives to a built-in policy is asked it; a person's side and a user policy's (a log
    never runs code) are replayed as logged.
    """
    names = set(policy_names())
    given = dict(given or {})
    out: dict[str, Policy] = {}
    notes: list[str] = []
    for side, name in controllers.items():
        if side in given:
            out[side] = get_policy(given[side])
        elif name in names:
            out[side] = get_policy(name)
        elif name == HUMAN:
            notes.append(
                f"not verified: side {side!r} was played by a person: its commands are replayed as "
                "logged, nothing can re-choose them"
            )
        else:
            notes.append(
                f"not verified: side {side!r} was played by the user policy {name!r}: its commands are "
                f"replayed as logged (a log never runs code; --policy {side}={name} re-chooses them)"
            )
    return out, tuple(notes)


def _controller_check(
    session: Session, policies: dict[str, Policy], ev: dict[str, Any], idx: int
) -> Divergence | None:
    """The divergence when the side deciding is an AI's and its policy would not send the logged command.

    The AI generator draws only here, as it did in the battle, so a log whose ``controllers`` were
    edited (or whose AI commands were) diverges at the first command the named policy would not
    have chosen.
    """
    from game.core.commands import command_to_json

    match = session.match
    decision = match.pending
    if decision is None:
        return None
    side = match.side(decision.unit)
    policy = policies.get(side)
    if policy is None:
        return None
    chosen = command_to_json(policy(session.view, decision, match.ai_rng))
    if chosen == ev.get("command"):
        return None
    return Divergence(
        int(ev.get("seq", idx)),
        "command",
        "controllers",
        ev.get("command"),
        f"(controllers or commands edited: side {side}'s controller {match.controllers[side]} "
        f"chooses {_shown(chosen)})",
    )


def verify(
    events: Sequence[dict[str, Any]], spec: ScenarioSpec, policies: Mapping[str, str] | None = None
) -> ReplayResult:
    """Re-simulate the logged battle and compare every event (see the module docstring).

    ``policies`` (side -> policy name or user policy spec, from the command line) re-chooses
    those sides' commands instead of the logged controllers'.
    """
    from game.core.commands import command_from_json

    session = Session.from_header(spec, events[0], players=HUMAN)  # the log answers every decision
    match = session.match
    asked, unverified = _policies(match.controllers, policies)
    produced: list[dict[str, Any]] = match.log.events
    commands = 0
    pos = 0

    def result(div: Divergence | None) -> ReplayResult:
        complete = bool(events) and events[-1].get("type") == "match_end"
        return ReplayResult(pos, commands, match.round, div, complete, unverified)

    def check_new() -> Divergence | None:
        nonlocal pos
        while pos < len(produced):
            if pos >= len(events):
                ev = produced[pos]
                return Divergence(int(ev["seq"]), str(ev["type"]), "", "(the log ends here)", ev)
            div = _diff(events[pos], produced[pos], pos)
            if div is not None:
                return div
            pos += 1
        return None

    try:
        for idx, ev in enumerate(events):
            if ev.get("type") != "command":
                continue
            div = check_new()
            if div is not None:
                return result(div)
            if pos != idx:
                waiting = (
                    "(the match ended)" if match.outcome is not None else "(the match waits for a command)"
                )
                exp = events[pos]
                return result(
                    Divergence(int(exp.get("seq", pos)), str(exp.get("type", "?")), "", exp, waiting)
                )
            try:
                cmd = command_from_json(ev.get("command"))  # type: ignore[arg-type]  # checked inside
            except ValueError as e:
                return result(
                    Divergence(int(ev.get("seq", idx)), "command", "command", ev.get("command"), f"({e})")
                )
            div = _controller_check(session, asked, ev, idx)
            if div is not None:
                return result(div)
            try:
                session.apply(cmd)
            except IllegalCommand as e:
                return result(
                    Divergence(
                        int(ev.get("seq", idx)), "command", "command", ev.get("command"), f"(refused: {e})"
                    )
                )
            commands += 1
        div = check_new()
        if div is not None:
            return result(div)
        if pos < len(events):
            exp = events[pos]
            waiting = "(the match ended)" if match.outcome is not None else "(the match waits for a command)"
            return result(Divergence(int(exp.get("seq", pos)), str(exp.get("type", "?")), "", exp, waiting))
        return result(None)
    finally:
        session.close()


# --------------------------------------------------------------------------- claims not shown
def _replays_with(
    events: Sequence[dict[str, Any]],
    spec: ScenarioSpec,
    change: dict[str, Any],
    policies: Mapping[str, str] | None,
) -> bool:
    start = {**events[0], **change}
    return verify([start, *events[1:]], spec, policies).ok


def undetermined(
    events: Sequence[dict[str, Any]], spec: ScenarioSpec, policies: Mapping[str, str] | None = None
) -> list[str]:
    """What a log that verifies claims but neither its scenario nor its battle shows, one line
    each (see the module docstring).

    The embedded scenario (checked by its sha256) backs the options and the round limit it sets
    itself; a logged value that departs from the scenario's is the log's own claim, which the
    battle must show: the battle is re-simulated with the scenario's value, and if that replays
    just as well the claim is not shown.
    """
    from game.rules import ruleset_class

    start = events[0]
    ruleset = str(start["ruleset"])
    notes: list[str] = []
    options = dict(start.get("options") or {})
    model = ruleset_class(ruleset).Options
    own = {**model().model_dump(mode="json"), **spec.options.get(ruleset, {})}
    for key in model.model_fields:
        logged, theirs = options.get(key), own.get(key)
        if logged != theirs and _replays_with(events, spec, {"options": {**options, key: theirs}}, policies):
            notes.append(
                f"not shown by this battle: option {key}={json.dumps(logged)}: the scenario says "
                f"{key}={json.dumps(theirs)}, and the battle replays the same with it"
            )
    limit = start.get("round_limit")
    if limit != spec.round_limit and _replays_with(events, spec, {"round_limit": spec.round_limit}, policies):
        notes.append(
            f"not shown by this battle: round_limit {limit}: the scenario says {spec.round_limit}, and "
            "the battle replays the same with it"
        )
    return notes
