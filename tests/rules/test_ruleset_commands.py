"""Rulesets register their own command types; logs and saves keep their records byte for byte.

The shared vocabulary (``game.core.commands``) knows no ruleset: GURPS registers ``Interpose``,
``Follow`` and a ``Defend`` variant with ``drop``/``acrobatic``; AP pool registers ``DodgeMove``
and a ``Defend`` variant with ``combo``. Importing ``game.rules`` registers them all (the
rulesets themselves stay unimported), and every command of every golden log decodes and
re-encodes to the same JSON text.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from game.core.commands import (
    Defend,
    Move,
    command_from_json,
    command_records,
    command_to_json,
    register_command,
)
from game.rules import COMMAND_MODULES, RULESET_NAMES
from game.rules.ap_pool.commands import DodgeMove, PoolDodge
from game.rules.gurps.commands import Follow, GurpsDefend, Interpose, defence_flags, defend

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "logs"

#: The Defend record as every log before the restructure wrote it.
DEFEND_KEYS = ("unit", "kind", "weapon", "retreat_to", "drop", "acrobatic", "combo")


def _text(record: dict[str, object]) -> str:
    return json.dumps(record, separators=(",", ":"))


def test_a_fresh_interpreter_decodes_ruleset_commands_without_importing_the_rulesets() -> None:
    code = """
import json, sys
import game.rules
from game.core.commands import command_from_json, command_to_json
lines = [
    '{"type":"Interpose","unit":"b","friend":"c","to":[1.5,2.0],"drop":true,"acrobatic":false}',
    '{"type":"Follow","unit":"a","to":null}',
    '{"type":"DodgeMove","unit":"d","to":[3.0,4.0]}',
    '{"type":"Defend","unit":"d","kind":"dodge","weapon":null,"retreat_to":null,"drop":true,"acrobatic":false,"combo":null}',
    '{"type":"Defend","unit":"d","kind":"dodge","weapon":null,"retreat_to":null,"drop":false,"acrobatic":false,"combo":"mind"}',
]
for line in lines:
    cmd = command_from_json(json.loads(line))
    again = json.dumps(command_to_json(cmd), separators=(",", ":"))
    assert again == line, (line, again)
    print(type(cmd).__module__, type(cmd).__name__)
print(sorted(m for m in sys.modules if m.endswith(".ruleset")))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[:5] == [
        "game.rules.gurps.commands Interpose",
        "game.rules.gurps.commands Follow",
        "game.rules.ap_pool.commands DodgeMove",
        "game.rules.gurps.commands GurpsDefend",
        "game.rules.ap_pool.commands PoolDodge",
    ]
    assert out[5] == "[]"  # the command modules are small; no ruleset was imported


def test_every_command_of_the_golden_logs_round_trips_byte_for_byte() -> None:
    seen: set[str] = set()
    for path in sorted(GOLDEN.iterdir()):
        for line in gzip.decompress(path.read_bytes()).decode().splitlines():
            event = json.loads(line)
            if event.get("type") != "command":
                continue
            record = event["command"]
            cmd = command_from_json(record)
            assert _text(command_to_json(cmd)) == _text(record)
            seen.add(type(cmd).__name__)
    # the logs hold ruleset-owned types and both Defend variants (no Follow was played)
    assert {"Interpose", "DodgeMove", "GurpsDefend", "PoolDodge", "Defend"} <= seen


def test_the_defend_record_keeps_its_fields_and_their_order() -> None:
    records = command_records()
    assert records["Defend"] == DEFEND_KEYS
    for cmd in (
        Defend("u", "parry", "sword"),
        GurpsDefend("u", "dodge", drop=True),
        PoolDodge("u", "dodge", combo="body"),
    ):
        assert tuple(command_to_json(cmd))[1:] == DEFEND_KEYS
    assert _text(command_to_json(Defend("u"))) == (
        '{"type":"Defend","unit":"u","kind":"none","weapon":null,"retreat_to":null,'
        '"drop":false,"acrobatic":false,"combo":null}'
    )
    assert {"Interpose", "Follow", "DodgeMove"} <= set(records)


def test_decoding_picks_the_variant_that_holds_the_values() -> None:
    base = {"type": "Defend", "unit": "u", "kind": "dodge", "weapon": None, "retreat_to": [1.0, 2.0]}
    assert command_from_json({**base, "drop": False, "acrobatic": False, "combo": None}) == Defend(
        "u", "dodge", None, (1.0, 2.0)
    )
    assert type(command_from_json({**base, "acrobatic": True})) is GurpsDefend
    assert command_from_json({**base, "combo": "spirit"}) == PoolDodge(
        "u", "dodge", None, (1.0, 2.0), "spirit"
    )
    with pytest.raises(ValueError, match="no Defend has all of"):
        command_from_json({**base, "drop": True, "combo": "body"})
    with pytest.raises(ValueError, match="has no field 'friend'"):
        command_from_json({**base, "friend": "x"})
    with pytest.raises(ValueError, match="not a command"):
        command_from_json({"type": "Teleport", "unit": "u"})


def test_gurps_builds_a_variant_only_for_a_flag() -> None:
    assert type(defend("u", "dodge")) is Defend
    assert type(defend("u", "parry", "sword", drop=False, acrobatic=False)) is Defend
    assert defend("u", "dodge", drop=True) == GurpsDefend("u", "dodge", None, None, True, False)
    assert defence_flags(defend("u", "dodge", acrobatic=True)) == (False, True)
    assert defence_flags(Defend("u", "dodge")) == (False, False)
    assert isinstance(GurpsDefend("u"), Defend) and isinstance(PoolDodge("u"), Defend)


def test_ruleset_command_types_round_trip() -> None:
    for cmd in (
        Interpose("b", "c", (1.0, 2.0), True),
        Follow("a", None),
        DodgeMove("d", (0.5, 0.25)),
        GurpsDefend("d", "block", None, (3.0, 3.0), False, True),
        PoolDodge("d", "dodge", combo="mind"),
    ):
        assert command_from_json(json.loads(_text(command_to_json(cmd)))) == cmd


def test_unregistered_and_twice_registered_types_are_refused() -> None:
    @dataclass(frozen=True)
    class Teleport:
        unit: str

    with pytest.raises(TypeError, match="not a registered command type"):
        command_to_json(Teleport("u"))

    @dataclass(frozen=True)
    class Move2:  # a second type under an existing record name
        unit: str

    Move2.__name__ = "Move"
    with pytest.raises(ValueError, match="registered twice"):
        register_command(Move2)
    assert type(command_from_json({"type": "Move", "unit": "u", "to": [1, 2]})) is Move


def test_command_modules_name_registered_rulesets() -> None:
    assert set(COMMAND_MODULES) <= set(RULESET_NAMES)
    assert list(COMMAND_MODULES) == [n for n in RULESET_NAMES if n in COMMAND_MODULES]
