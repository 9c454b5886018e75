"""A battle's summary from its log (game.tools.summary): what it counts agrees with the log, the
turning point is told, and ``skirmish battle -n 1`` prints it."""

from __future__ import annotations

from pathlib import Path

import pytest

from game.core.events import read_log
from game.rules import RULESET_NAMES
from game.scenario import load_scenario
from game.tools.session import Session, Setup
from game.tools.summary import summarize, summary_lines, track_words
from tests.cli_capture import run as run_cli

REPO = Path(__file__).resolve().parents[2]


def _battle(ruleset: str, seed: int = 1) -> list[dict]:
    spec = load_scenario(REPO / "scenarios" / "duel.yaml", ruleset)
    players = {"red": "aggressive", "blue": "cautious"}
    s = Session(Setup(ruleset=ruleset, seed=seed, controllers=players).build(spec), players)
    s.play()
    events = list(s.match.log.events)
    s.close()
    return events


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
def test_the_summary_counts_what_the_log_holds(ruleset: str) -> None:
    events = _battle(ruleset)
    s = summarize(events)
    end = events[-1]
    assert s.finished and s.winner == end.get("winner") and s.rounds == end["rounds"]
    red, blue = s.side("red"), s.side("blue")
    # harm dealt by one side is harm taken by the other, track by track
    assert red.dealt == blue.taken and blue.dealt == red.taken
    damage = [e for e in events if e["type"] == "damage"]
    total = sum(abs(v) for e in damage for v in e["deltas"].values())
    assert sum(red.taken.values()) + sum(blue.taken.values()) == pytest.approx(total)
    attacks = [e for e in events if e["type"] == "attack"]
    assert red.attacks + blue.attacks == len(attacks)
    for side in (red, blue):
        assert 0 <= side.hurt <= side.hits <= side.attacks and 0 <= side.made <= side.defences
        assert all(n > 0 for n in side.mechanics.values())
    standing = {e["unit"] for e in events if e["type"] == "casualty"}
    assert set(red.standing) | set(blue.standing) == {"vasco", "hendrik"} - standing
    if s.winner is not None:
        assert s.turning_point is not None and s.turning_point.endswith(f"{s.winner} led from then on")
    lines = summary_lines(s)
    assert lines[0].startswith("Summary: ") and any("harm dealt" in ln for ln in lines)


def test_a_log_cut_short_is_a_summary_so_far() -> None:
    events = _battle("ap-pool", seed=2)
    cut = events[: len(events) // 2]
    s = summarize(cut)
    assert not s.finished and s.turning_point is None
    assert summary_lines(s)[0].startswith("Summary so far (round ")
    with pytest.raises(ValueError):
        summarize(events[1:])


def test_track_words() -> None:
    assert track_words("hp", 12) == "12 HP"
    assert track_words("memories", 1) == "1 memory"
    assert track_words("wounds", 1) == "1 wound" and track_words("wounds", 2.5) == "2.5 wounds"
    assert track_words("fight_or_flight", 3) == "3 fight or flight"


def test_battle_n_1_prints_the_battles_summary(tmp_path, capsys) -> None:
    out_dir = tmp_path / "out"
    code, out, err = run_cli(
        [
            "battle",
            str(REPO / "scenarios" / "duel.yaml"),
            "-n",
            "1",
            "--seed",
            "3",
            "--out",
            str(out_dir),
            "--no-plots",
            "--no-progress",
        ],
        capsys,
    )
    assert code == 0, err
    assert "Summary: " in out and "harm dealt" in out and "turning point: " in out
    assert "log: " not in out  # the log was a temporary file
    log = tmp_path / "b.jsonl"
    code, out, err = run_cli(
        [
            "battle",
            str(REPO / "scenarios" / "duel.yaml"),
            "-n",
            "1",
            "--seed",
            "3",
            "--out",
            str(out_dir),
            "--log",
            str(log),
            "--no-plots",
            "--no-progress",
        ],
        capsys,
    )
    assert code == 0, err
    assert f"log: {log}" in out
    assert "\n".join(summary_lines(summarize(read_log(log)))) in out
    code, out, err = run_cli(
        [
            "battle",
            str(REPO / "scenarios" / "duel.yaml"),
            "-n",
            "2",
            "--out",
            str(out_dir),
            "--no-plots",
            "--no-progress",
        ],
        capsys,
    )
    assert code == 0 and "Summary: " not in out  # several battles: the table, not one story
