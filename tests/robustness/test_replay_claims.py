"""A replay vouches only for what it checked (issue 28): an edited log header never reads as a
plain "OK".

Each case edits one ``match_start`` field of a real battle log the way a hostile user would and
replays it through the console entry point: the edit either diverges (exit 1), is refused
(exit 2, one line naming the log and the field), or the ``OK`` says how many claims it could not
check and names each.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.robustness.cli_run import run

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios" / "duel.yaml"


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("claims")
    code, _, err = run(
        "battle", str(DUEL), "-n", "1", "--seed", "3", "--log", str(folder / "b.jsonl"),
        "--out", str(folder / "o"), "--no-plots", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    return folder / "b.jsonl"


def _edited(log: Path, tmp_path: Path, edit: Callable[[dict[str, Any]], object]) -> Path:
    lines = log.read_text().splitlines()
    start = json.loads(lines[0])
    edit(start)
    out = tmp_path / "edited.jsonl"
    out.write_text("\n".join([json.dumps(start, separators=(",", ":")), *lines[1:]]) + "\n")
    return out


def test_an_untouched_log_is_ok_without_caveats(log: Path) -> None:
    code, out, err = run("replay", str(log))
    assert code == 0 and out.strip().endswith("rounds verified"), out + err


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda h: h["controllers"].update(red="human"), "not verified: side 'red' was played by a person"),
        (
            lambda h: h["controllers"].update(blue="evil.py:policy"),
            "not verified: side 'blue' was played by the user policy 'evil.py:policy'",
        ),
        (
            lambda h: h["controllers"].update(red="os:system"),
            "side 'red' was played by the user policy 'os:system'",
        ),
        (
            lambda h: h.update(round_limit=900),
            "not shown by this battle: round_limit 900: the scenario says 16",
        ),
    ],
    ids=["human", "user-file", "user-module", "round-limit"],
)
def test_claims_a_replay_cannot_check_are_named_after_the_ok(
    log: Path, tmp_path: Path, edit: Callable[[dict[str, Any]], object], says: str
) -> None:
    code, out, err = run("replay", str(_edited(log, tmp_path, edit)))
    first, *rest = out.strip().splitlines()
    assert code == 0 and "1 claim(s) not verified (below)" in first, out + err
    assert any(says in line for line in rest), out


@pytest.mark.parametrize(
    "edit",
    [
        lambda h: h["controllers"].update(red="random"),
        lambda h: h["controllers"].update(red="cautious", blue="aggressive"),
        lambda h: h["options"].update(ubiquitous=True),
        lambda h: h.update(seed=h["seed"] + 1),
        lambda h: h.update(round_limit=4),
    ],
    ids=["controller", "controllers-swapped", "option-that-matters", "seed", "round-limit-too-low"],
)
def test_edits_the_battle_shows_diverge(
    log: Path, tmp_path: Path, edit: Callable[[dict[str, Any]], object]
) -> None:
    code, out, err = run("replay", str(_edited(log, tmp_path, edit)))
    assert code == 1 and "DIVERGED" in out and "Traceback" not in err, out + err


def test_an_option_the_battle_does_not_show_is_named(log: Path, tmp_path: Path) -> None:
    code, out, _ = run(
        "replay", str(_edited(log, tmp_path, lambda h: h["options"].update(optional_protection=True)))
    )
    if code == 1:  # this battle happens to show it: the edit diverges, which is as good
        assert "DIVERGED" in out
        return
    assert code == 0 and "not shown by this battle: option optional_protection=true" in out, out


@pytest.mark.parametrize(
    ("edit", "key"),
    [
        (lambda h: h.update(version="0.1.0\x1b[2J"), "version"),
        (lambda h: h.update(version=12), "version"),
        (lambda h: h.update(version="x" * 500), "version"),
        (lambda h: h.update(scenario_path="/tmp/\x1b]0;owned\x07duel.yaml"), "scenario_path"),
        (lambda h: h.update(scenario_path=["a"]), "scenario_path"),
        (lambda h: h.update(scenario="Duel\r\nOK: 1 events verified"), "scenario"),
        (lambda h: h["controllers"].update(red="no-such-policy"), "controllers"),
        (lambda h: h["controllers"].update(red=["human"]), "controllers"),
    ],
)
def test_header_fields_a_terminal_or_replay_cannot_take_are_refused(
    log: Path, tmp_path: Path, edit: Callable[[dict[str, Any]], object], key: str
) -> None:
    bad = _edited(log, tmp_path, edit)
    code, out, err = run("replay", str(bad))
    assert code == 2 and not out and f"{bad}:1: {key}: " in err, out + err
    assert len(err.strip().splitlines()) == 1 and "\x1b" not in err and "\r" not in err


def test_another_valid_version_replays_with_a_note(log: Path, tmp_path: Path) -> None:
    code, out, err = run("replay", str(_edited(log, tmp_path, lambda h: h.update(version="9.9.9"))))
    assert code == 0 and "recorded with version 9.9.9" in err, out + err


def test_replay_policy_must_name_a_side(log: Path) -> None:
    code, _, err = run("replay", str(log), "--policy", "green=random")
    assert code == 2 and "--policy: no side 'green'" in err
    code, _, err = run("replay", str(log), "--policy", "red=nope")
    assert code == 2 and "unknown AI policy 'nope'" in err


@pytest.mark.parametrize(
    "edit",
    [
        lambda h: h.update(options={"\n": None}),  # found by the long fuzz: a key printed raw
        lambda h: h["controllers"].update({"\x1b[2J": "random"}),
        lambda h: h.update(ruleset="aff\u202e"),
    ],
)
def test_messages_about_edited_keys_stay_one_visible_line(
    log: Path, tmp_path: Path, edit: Callable[[dict[str, Any]], object]
) -> None:
    code, out, err = run("replay", str(_edited(log, tmp_path, edit)))
    assert code in (1, 2) and "Traceback" not in err, out + err
    text = out + err
    assert len(err.strip().splitlines()) <= 1 and "\x1b" not in text and "\u202e" not in text, text
