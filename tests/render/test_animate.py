"""Watching a battle: ``skirmish render --animate`` (GIF/MP4 frames and captions) and
``skirmish replay --narrate`` (the battle as sentences)."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from game.cli import main
from game.render import animate as animate_mod
from game.render.animate import END_HOLD, AnimationError, VideoWriterMissing, animate, moment
from game.render.narrate import beats, caption, ending, narrate
from game.scenario import load_scenario
from game.tools.session import Session, Setup
from tests.render.conftest import REPO
from tests.render.test_words import REPR

DUEL = REPO / "tests" / "fixtures" / "scenarios" / "duel-classic.yaml"  # the knives duel
SIZE = (800, 500)


def run_cli(args, capsys):
    with pytest.raises(SystemExit) as e:
        main(args)
        raise SystemExit(0)
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


@pytest.fixture(scope="module")
def battle():
    """A finished GURPS duel (reactions: dodges, retreats, follows): its spec and events."""
    spec = load_scenario(DUEL, "gurps")
    with Session.start(spec, Setup(ruleset="gurps", seed=5)) as s:
        s.play()
        return spec, list(s.match.log.events)


@pytest.fixture(scope="module")
def log_file(tmp_path_factory):
    """The same duel's log file, as ``skirmish battle --log`` writes it."""
    path = tmp_path_factory.mktemp("logs") / "duel.jsonl"
    with Session.start(DUEL, Setup(ruleset="gurps", seed=5)) as s:
        s.play()
        s.match.log.write(path)
    return path


# ---------------------------------------------------------------------- beats, captions, narration
def test_beats_cut_the_log_at_its_commands(battle):
    _, events = battle
    cut = beats(events)
    commands = [e for e in events if e["type"] == "command"]
    assert len(cut) == len(commands) + 1 and cut[0].opening
    assert sum(len(b.events) for b in cut) == len(events) - len(commands)
    assert [b.unit for b in cut[1:]] == [c["unit"] for c in commands]
    assert any(b.decision == "defence" for b in cut)


def test_captions_tell_odds_and_rolls_in_words(battle):
    _, events = battle
    caps = [caption(b) for b in beats(events)]
    assert caps[0][0] == "Before the first round"
    assert any("Round 1 begins" in line for line in caps[0][1])
    text = [line for head, lines in caps for line in [head, *lines]]
    assert any(h.endswith("defends") for h, _ in caps)
    assert any(" attacks " in t and "% chance" in t and "rolled" in t for t in text)
    assert any(" tries to dodge" in t and "% chance" in t and "rolled" in t for t in text)
    bad = [t for t in text if REPR.search(t) or "kind=" in t]
    assert not bad, bad[:3]
    head, lines = ending(events)
    assert head == "The end" and "wins" in lines[0] and lines[1].startswith("Still standing: ")


def test_a_defence_reads_with_its_flags_odds_and_roll():
    from game.render.sentences import sentence

    e = {"seq": 9, "round": 2, "type": "defence", "unit": "hendrik", "attacker": "vasco", "kind": "dodge"}
    drop = {**e, "drop": True, "retreat": False, "eff": 12, "roll": 9, "p_success": 0.7407, "success": True}
    assert (
        sentence(drop)
        == "hendrik tries to dodge and drop prone (74.1% chance, rolled 9 against 12): succeeds."
    )
    none = {**e, "kind": "none", "roll": 10, "p_success": 0.2, "success": False}
    assert sentence(none) == "hendrik does not defend: fails."
    aims = {
        **e,
        "kind": "defence dice",
        "outcome": [{"aim": 2, "result": "hit"}, {"aim": 8, "result": "dodged"}],
    }
    assert sentence(aims) == "hendrik defends with defence dice (aims 2 hit, 8 dodged)."


def test_narration_goes_round_by_round_in_plain_words(battle):
    _, events = battle
    lines = narrate(events)
    rounds = events[-1]["rounds"]
    assert [ln for ln in lines if ln.startswith("Round ")] == [
        ln for ln in lines if ln.startswith("Round ") and "(order: " in ln
    ]
    assert sum(ln.startswith("Round ") for ln in lines) == rounds
    summary = lines.index("") + 1  # the battle's summary after a blank line
    assert lines[0].startswith("Match starts: ") and "wins" in lines[summary - 2]
    assert lines[summary].startswith("Summary: ") and "wins" in lines[summary]
    assert any("turning point: " in ln for ln in lines[summary:])
    assert any(ln.startswith("    ") and ("takes" in ln or "loses" in ln) for ln in lines)
    assert not any(" rolls 3d6" in ln for ln in lines)  # dice are told by what they decided
    bad = [ln for ln in lines if REPR.search(ln) or "kind=" in ln or "'" in ln.replace("'s ", "")]
    assert not bad, bad[:3]


def test_a_moment_shows_the_overlays_of_its_command(battle):
    _, events = battle
    allowed = {"grid", "sight", "arcs", "move", "path", "retreat", "dodge", "silhouette", "cover-units"}
    cut = beats(events)
    attack = next(b for b in cut if b.command and b.command["type"] == "Attack")
    shown, viewer, target, _ = moment(attack, allowed)
    assert "sight" in shown and "move" not in shown and target == attack.command["target"]
    move = next(b for b in cut if b.command and b.command["type"] == "Move")
    shown, viewer, target, preview = moment(move, allowed)
    assert "path" in shown and "sight" not in shown and preview is not None
    assert preview.points[-1] == pytest.approx(tuple(move.command["to"]), abs=1e-6)
    defend = next(b for b in cut if b.decision == "defence")
    shown, viewer, target, _ = moment(defend, allowed)
    assert "retreat" in shown and viewer == defend.unit and target is not None
    assert moment(attack, {"grid"})[0] == {"grid"}  # never more than allowed


# ---------------------------------------------------------------------- animation files
def test_the_gif_has_a_frame_per_command_and_the_end_held_longer(battle, tmp_path):
    spec, events = battle
    out = tmp_path / "duel.gif"
    done = animate(spec, events, out, fps=2.0, size=SIZE, progress=False)
    commands = sum(e["type"] == "command" for e in events)
    assert done.frames == commands + 2 and done.drawn_commands == commands == done.commands
    assert done.captions[0][0] == "Before the first round"
    assert done.captions[-1][0] == "The end"
    with Image.open(out) as im:
        assert im.n_frames == done.frames and im.size == SIZE
        first = im.info["duration"]
        im.seek(im.n_frames - 1)
        assert im.info["duration"] == END_HOLD * first == END_HOLD * 500
    assert done.bytes == out.stat().st_size
    assert [p.name for p in tmp_path.iterdir()] == ["duel.gif"]  # no temp file left


def test_max_frames_plays_on_and_still_shows_the_end(battle, tmp_path):
    spec, events = battle
    done = animate(spec, events, tmp_path / "short.gif", max_frames=4, size=SIZE, progress=False)
    assert done.frames == 4 and done.drawn_commands == 2
    assert done.captions[-1] == ("The end", tuple(ending(events)[1]))


def test_a_refused_command_names_its_round_and_leaves_no_file(battle, tmp_path):
    spec, events = battle
    bad = [dict(e) for e in events]
    i = next(k for k, e in enumerate(bad) if e["type"] == "command" and e["command"]["type"] == "Attack")
    bad[i] = {**bad[i], "command": {**bad[i]["command"], "target": bad[i]["unit"]}}
    out = tmp_path / "bad.gif"
    with pytest.raises(AnimationError, match=r"round \d+: \w+'s command is refused on replay"):
        animate(spec, bad, out, size=SIZE, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_mp4_without_ffmpeg_names_what_to_install(battle, tmp_path, monkeypatch):
    monkeypatch.setattr(animate_mod, "ffmpeg_exe", lambda: None)
    with pytest.raises(VideoWriterMissing, match="pip install imageio-ffmpeg"):
        animate(*battle, tmp_path / "duel.mp4", size=SIZE, progress=False)
    with pytest.raises(AnimationError, match=r"\.gif or an \.mp4"):
        animate(*battle, tmp_path / "duel.avi", size=SIZE, progress=False)


def test_mp4_when_ffmpeg_is_installed(battle, tmp_path):
    if animate_mod.ffmpeg_exe() is None:
        pytest.skip("no ffmpeg binary (pip install imageio-ffmpeg)")
    spec, events = battle
    out = tmp_path / "duel.mp4"
    done = animate(spec, events, out, max_frames=5, size=SIZE, progress=False)
    assert done.frames == 5 and out.read_bytes()[4:8] == b"ftyp"


# ---------------------------------------------------------------------- the CLI
def test_cli_animates_a_scenario_and_its_log_alike(battle, log_file, tmp_path, capsys):
    from_log = tmp_path / "log.gif"
    code, out, err = run_cli(
        ["render", str(log_file), "--animate", str(from_log), "--size", "800x500", "--max-frames", "6"],
        capsys,
    )
    assert code == 0, err
    assert out.strip().startswith(f"wrote {from_log} (6 frames, 800 x 500, ") and out.strip().endswith(" KB)")
    assert "--max-frames 6" in err
    from_scenario = tmp_path / "scenario.gif"
    args = ["render", str(DUEL), "--ruleset", "gurps", "--seed", "5", "--animate", str(from_scenario)]
    code, out, err = run_cli([*args, "--size", "800x500", "--max-frames", "6"], capsys)
    assert code == 0, err
    assert from_scenario.read_bytes() == from_log.read_bytes()  # the same battle, the same frames


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--animate", "x.gif", "--out", "x.png"], "give one of --out"),
        ([], "give one of --out"),
        (["--animate", "x.gif", "--steps", "3"], "--steps"),
        (["--animate", "x.gif", "--from", "vasco"], "--from"),
        (["--animate", "x.webm"], ".gif or an .mp4"),
        (["--animate", "x.gif", "--fps", "0"], "--fps"),
        (["--animate", "x.gif", "--red", "nobody"], "unknown AI policy"),
    ],
)
def test_cli_animate_refusals_exit_2(args, words, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(["render", str(DUEL), *args], capsys)
    assert code == 2 and words in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())


def test_cli_a_log_fixes_its_seed_and_ruleset(log_file, tmp_path, capsys, monkeypatch):
    for extra in (["--seed", "1"], ["--ruleset", "aff"], ["--blue", "random"]):
        code, _, err = run_cli(
            ["render", str(log_file), "--animate", str(tmp_path / "x.gif"), *extra], capsys
        )
        assert code == 2 and "comes from the log" in err
    monkeypatch.setattr(animate_mod, "ffmpeg_exe", lambda: None)
    code, _, err = run_cli(["render", str(log_file), "--animate", str(tmp_path / "x.mp4")], capsys)
    assert code == 2 and "imageio-ffmpeg" in err and len(err.strip().splitlines()) == 1


def test_cli_replay_narrate(battle, log_file, capsys):
    code, out, err = run_cli(["replay", str(log_file), "--narrate"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines == narrate(battle[1])
    assert "Round 1 (order: " in out and any(ln.startswith("Summary: ") and "wins" in ln for ln in lines)
    assert not any(REPR.search(ln) or "kind=" in ln or "{" in ln for ln in lines)
    code, _, err = run_cli(["replay", str(log_file), "--narrate", "--view"], capsys)
    assert code == 2 and "one of --view and --narrate" in err


def test_cli_replay_narrate_refuses_a_file_that_is_no_log(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"seq": 0, "round": 0, "type": "roll"}) + "\n")
    code, _, err = run_cli(["replay", str(bad), "--narrate"], capsys)
    assert code == 2 and "not a battle log" in err
