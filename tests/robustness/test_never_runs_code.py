"""Nothing in a file runs (issue 28): saves, logs and scenarios name user policies, never run them.

Every policy file here leaves a mark (a file ``RAN``) when it is executed: a test fails if the
mark appears without the command line naming the policy. Saves are also checked as a whole:
version 5 digests every field, versions 3 and 4 (today's older saves) still load, and a saved
game continues under its own ruleset and seed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from game.core.errors import ScenarioError, SkirmishError
from game.scenario import load_scenario
from game.tools.integrity import digests, trusted_players
from game.tools.saves import DIGESTED, SAVE_VERSION, load_match, save_match
from game.tools.session import Session, Setup
from tests.robustness.cli_run import run
from tests.tools.aged import age_save

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios" / "duel.yaml"
EXAMPLE = ROOT / "examples" / "policies" / "closest_first.py"
SPEC = "mine.py:closest_first"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder with ``mine.py``, a policy that leaves ``RAN`` when its file runs."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text(EXAMPLE.read_text() + "\nopen('RAN', 'w').close()\n")
    return tmp_path


def _save(folder: Path, controllers: dict[str, str], steps: int = 4, seed: int = 2) -> Path:
    spec = load_scenario(DUEL)
    match = Setup(seed=seed, controllers=controllers).build(spec)
    try:
        Session(match, {s: "random" for s in spec.sides}).play(steps=steps)
        return save_match(match, folder / "save.json")
    finally:
        match.close()


# --------------------------------------------------------------------------- no code from a record
def test_a_session_never_runs_a_user_policy_only_the_record_names(here: Path) -> None:
    spec = load_scenario(DUEL)
    match = Setup(seed=1, controllers={"red": "human", "blue": SPEC}).build(spec)
    try:
        with pytest.raises(
            SkirmishError, match=r"recorded as played by the user policy 'mine\.py:closest_first'"
        ):
            Session(match)
        Session(match, {"blue": "human"})  # named by the caller: fine, and nothing ran
    finally:
        match.close()
    assert not (here / "RAN").exists()


def test_trusted_players_give_a_recorded_user_policy_to_a_person() -> None:
    players, notes = trusted_players(
        {"red": "mod:fn", "blue": "cautious", "green": "human"}, {"blue": "x.py:f"}, "s.json"
    )
    assert players == {"red": "human", "blue": "x.py:f", "green": "human"}
    assert len(notes) == 1 and "side 'red' was played by the user policy 'mod:fn'" in notes[0]


@pytest.mark.parametrize("version", [5, 4, 3])
def test_play_load_of_a_save_naming_a_user_policy_runs_nothing(here: Path, version: int) -> None:
    save = _save(here, {"red": "human", "blue": SPEC})
    if version < SAVE_VERSION:
        save.write_text(json.dumps(age_save(json.loads(save.read_text()), version)))
    (here / "script.txt").write_text("shot start\n")
    code, _, err = run(
        "play", str(DUEL), "--load", "save.json", "--headless", "--script", "script.txt", "--shots", "shots"
    )
    assert code == 0, err
    assert "side 'blue' was played by the user policy 'mine.py:closest_first'" in err
    assert (here / "shots" / "start.png").is_file() and not (here / "RAN").exists()


def test_replay_of_a_log_naming_a_user_policy_runs_nothing_unless_asked(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from game.ai import loader

    code, _, err = run(
        "battle",
        str(DUEL),
        "-n",
        "1",
        "--blue",
        SPEC,
        "--log",
        "b.jsonl",
        "--out",
        "o",
        "--no-plots",
        "--no-progress",
    )
    assert code == 0, err
    (here / "RAN").unlink()  # the battle ran it: the command line named it
    monkeypatch.setattr(loader, "_FILES", {})  # forget it: a load would run the file again
    code, out, err = run("replay", "b.jsonl")
    assert code == 0 and "1 claim(s) not verified" in out, out + err
    assert "not verified: side 'blue' was played by the user policy 'mine.py:closest_first'" in out
    assert not (here / "RAN").exists()
    code, out, err = run("replay", "b.jsonl", "--policy", f"blue={SPEC}")
    assert code == 0 and "not verified" not in out, out + err  # re-chosen, so verified
    assert (here / "RAN").exists()
    code, out, _ = run("replay", "b.jsonl", "--policy", "blue=random")
    assert code == 1 and "controllers" in out  # random would not have sent those commands


def test_a_scenario_or_log_header_cannot_smuggle_a_module_policy(here: Path) -> None:
    text = DUEL.read_text().replace("red: aggressive", "red: os:system")
    (here / "evil.yaml").write_text(text)
    code, _, err = run("battle", "evil.yaml", "-n", "1", "--out", "o", "--no-progress")
    assert code == 2 and "built-in AI policies only" in err


# --------------------------------------------------------------------------- every field digested
def _edits() -> dict[str, Any]:
    def nudge_move(d: dict[str, Any]) -> None:
        move = next(c for c in d["commands"] if "to" in c)
        move["to"] = [move["to"][0] + 1e-9, move["to"][1]]

    def profiles(d: dict[str, Any]) -> None:
        from game.scenario.embed import profiles_digest

        block = next(iter(d["profiles"].values()))
        stats = next(iter(block.values()))
        key = next(k for k, v in stats.items() if isinstance(v, int))
        stats[key] += 1
        d["profiles_sha256"] = profiles_digest(d["profiles"])  # a careful forger recomputes it

    def snapshot(d: dict[str, Any]) -> None:
        d["snapshot"] = d["snapshot"].replace('"round_limit":', '"round_limit": ', 1)

    return {
        "format": lambda d: d.update(format="skirmish-save "),
        "version": lambda d: d.update(version=4),
        "game_version": lambda d: d.update(game_version="0.0.1"),
        "scenario": lambda d: d["scenario"].update(path="/elsewhere/duel.yaml"),
        "profiles": profiles,
        "profiles_sha256": lambda d: d.update(profiles_sha256="0" * 64),
        "ruleset": lambda d: d.update(ruleset="gurps"),
        "options": lambda d: d["options"].update(riposte=False),
        "seed": lambda d: d.update(seed=d["seed"] + 1),
        "round_limit": lambda d: d.update(round_limit=d["round_limit"] - 1),
        "controllers": lambda d: d["controllers"].update(red="random"),
        "check": lambda d: d["check"].update(state_hash="0" * 16),
        "ai_rng": lambda d: d["ai_rng"]["state"].update(inc=d["ai_rng"]["state"]["inc"] + 2),
        "ai_memory": lambda d: d["ai_memory"]["quarry"].update(vasco="hendrik"),
        "commands": nudge_move,
        "snapshot": snapshot,
    }


def test_every_field_of_a_save_has_an_edit_here() -> None:
    assert set(_edits()) == set(DIGESTED)


@pytest.mark.parametrize("field", DIGESTED)
def test_an_edit_of_any_field_of_a_save_is_refused_naming_it(here: Path, field: str) -> None:
    save = _save(here, {"red": "aggressive", "blue": "cautious"}, steps=30)
    data = json.loads(save.read_text())
    _edits()[field](data)
    save.write_text(json.dumps(data, indent=2))
    with pytest.raises(ScenarioError) as info:
        load_match(save).close()
    first = info.value.problems[0]
    assert first.source == str(save), str(info.value)
    if field == "format":
        assert first.path == "format" and "not a skirmish save" in first.message
    elif field == "version":
        assert first.path == "check.digests"  # a version 4 save has other digests
    else:
        assert first.path.split(".")[0] == field and "edited since the game was saved" in first.message


@pytest.mark.parametrize("version", [5, 4, 3])
def test_saves_written_before_version_6_still_load_and_continue(here: Path, version: int) -> None:
    save = _save(here, {"red": "aggressive", "blue": "cautious"}, steps=10)
    now = load_match(save)
    save.write_text(json.dumps(age_save(json.loads(save.read_text()), version)))
    old = load_match(save)
    try:
        assert old.state_hash() == now.state_hash() and old.commands == now.commands
        Session(old).play(steps=20)
        Session(now).play(steps=20)
        assert old.log.to_text() == now.log.to_text()
    finally:
        old.close()
        now.close()


def test_the_digests_are_checked_before_anything_is_built(here: Path) -> None:
    """An edit that would also break the rebuild (a profile's block) is named as an edit first."""
    save = _save(here, {"red": "aggressive", "blue": "cautious"})
    data = json.loads(save.read_text())
    data["scenario"]["text"] += "\n# a comment\n"
    save.write_text(json.dumps(data))
    with pytest.raises(ScenarioError, match=r"scenario: edited since the game was saved"):
        load_match(save)


def test_digests_cover_reformatting_as_no_edit(here: Path) -> None:
    save = _save(here, {"red": "aggressive", "blue": "cautious"})
    data = json.loads(save.read_text())
    assert data["check"]["digests"] == digests(data, SAVE_VERSION)
    save.write_text(json.dumps(data, indent=4, sort_keys=True))
    load_match(save).close()


# --------------------------------------------------------------------------- ruleset and seed
@pytest.mark.parametrize(
    ("extra", "code", "says"),
    [
        (["--ruleset", "gurps"], 2, "--ruleset: save.json was played under aff"),
        (["--seed", "99"], 2, "--seed: save.json was played with seed 2"),
        (["--ruleset", "aff", "--seed", "2"], 0, ""),
        (["--ruleset", "chess"], 2, "--ruleset"),
    ],
)
def test_play_load_honours_or_refuses_the_ruleset_and_seed(
    here: Path, extra: list[str], code: int, says: str
) -> None:
    _save(here, {"red": "human", "blue": "cautious"})
    (here / "script.txt").write_text("wait\n")
    got, _, err = run(
        "play", str(DUEL), "--load", "save.json", "--headless", "--script", "script.txt", *extra
    )
    assert got == code and says in err and "Traceback" not in err, err


def test_play_load_without_red_keeps_the_saved_players(here: Path) -> None:
    """The default --red human applies to new games; a loaded one keeps who played each side."""
    _save(here, {"red": "cautious", "blue": "human"})
    (here / "script.txt").write_text("wait\nwait\n")
    code, _, err = run("play", str(DUEL), "--load", "save.json", "--headless", "--script", "script.txt")
    assert code == 0 and "note" not in err, err


def test_a_user_policy_save_in_another_folder_is_named_not_run(here: Path) -> None:
    """The policy's file is found relative to the working folder: moving the save changes nothing."""
    save = _save(here, {"red": SPEC, "blue": "human"})
    elsewhere = here / "sub"
    elsewhere.mkdir()
    shutil.copy(save, elsewhere / "save.json")
    shutil.copy(here / "mine.py", elsewhere / "mine.py")
    (here / "script.txt").write_text("wait\n")
    code, _, err = run(
        "play", str(DUEL), "--load", str(elsewhere / "save.json"), "--headless", "--script", "script.txt"
    )
    assert code == 0 and "side 'red' was played by the user policy" in err, err
    assert not (here / "RAN").exists() and not (elsewhere / "RAN").exists()


def test_a_save_key_with_control_characters_is_named_escaped(here: Path) -> None:
    """Found by the long fuzz: a key holding a newline split the message in two."""
    save = _save(here, {"red": "aggressive", "blue": "cautious"})
    data = json.loads(save.read_text())
    data["controllers"] = {"\n\x1b[2J": None}
    save.write_text(json.dumps(data))
    with pytest.raises(ScenarioError) as info:
        load_match(save)
    text = str(info.value)
    assert len(text.splitlines()) == 1 and "\x1b" not in text and "\\n\\x1b[2J" in text, text


# --------------------------------------------------------------------------- saves are snapshots
def test_a_save_is_restored_from_its_snapshot_without_replaying(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from game.engine.match import Match

    save = _save(here, {"red": "aggressive", "blue": "cautious"}, steps=40)
    want = load_match(save)
    monkeypatch.setattr(Match, "apply", lambda *a, **k: pytest.fail("a version 6 save is not replayed"))
    got = load_match(save)
    monkeypatch.undo()
    try:
        assert got.state_hash() == want.state_hash() and got.log.to_text() == want.log.to_text()
        Session(got).play(steps=20)
        Session(want).play(steps=20)
        assert got.log.to_text() == want.log.to_text()
    finally:
        got.close()
        want.close()


@pytest.mark.parametrize("field", ["seed", "commands", "controllers"])
def test_a_forged_save_whose_fields_disagree_with_its_snapshot_is_refused(here: Path, field: str) -> None:
    """A careful forger recomputes every digest: the fields must still agree with the snapshot."""
    save = _save(here, {"red": "aggressive", "blue": "cautious"}, steps=30)
    data = json.loads(save.read_text())
    _edits()[field](data)
    data["check"]["digests"] = digests(data, SAVE_VERSION)
    save.write_text(json.dumps(data))
    with pytest.raises(ScenarioError, match="differs from the match in the save's snapshot") as info:
        load_match(save).close()
    assert info.value.problems[0].path.split(".")[0] == field
