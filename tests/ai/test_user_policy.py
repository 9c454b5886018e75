"""User policies named ``FILE.py:FUNCTION`` or ``MODULE:FUNCTION`` (game/ai/loader.py) on the CLI.

Every test runs in its own working folder (relative specs resolve against it) and plays the
duel, one or two battles.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from game.ai import PolicyOptionError, check_policy, get_policy, takes_options
from game.ai.errors import PolicyFailed, PolicyLoadError
from game.ai.loader import UserPolicy, load_target
from tests.cli_capture import run

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "policies" / "closest_first.py"
QUIET = ["--no-plots", "--no-progress", "--out", "out"]

#: A policy that ends its turn and takes the first defence, and raises at its sixth call (line 10).
RAISES = """\
from game.core.commands import EndTurn

calls = 0


def policy(view, decision, rng):
    global calls
    calls += 1
    if calls > 5:
        return {}["missing"]
    return next(o.command for o in decision.options if o.point_field is None)
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SKIRMISH_DEBUG", raising=False)
    shutil.copy(EXAMPLE, tmp_path / "mine.py")
    return tmp_path


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def run_package(
    here: Path,
    package: str,
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[int, str, str]:
    """``run(argv)`` with ``here`` on the import path, forgetting ``package``'s modules afterwards
    (the next test writes another package of its own)."""
    monkeypatch.syspath_prepend(str(here))
    try:
        return run(argv, capsys)
    finally:
        for name in [m for m in sys.modules if m.startswith(package)]:
            del sys.modules[name]


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


# --------------------------------------------------------------------------- playing
def test_a_file_policy_plays_logs_its_spec_and_replays_without_the_file(here, capsys):
    spec = "mine.py:closest_first"
    code, out, err = run(
        ["battle", "duel", "-n", "2", "--red", spec, "--blue", "random", "--log", "logs", *QUIET], capsys
    )
    assert code == 0, err
    got = [r for r in rows(here / "out" / "battles.csv") if r["side"] == "red"]  # tidy: a row per side
    assert [r["policy"] for r in got] == [spec, spec]
    assert all(int(r["attacks"]) > 0 for r in got)  # it really fights
    start = json.loads((here / "logs" / "battle-1.jsonl").read_text().splitlines()[0])
    assert start["controllers"] == {"red": spec, "blue": "random"}
    (here / "mine.py").unlink()  # a replay re-applies the commands: it never needs the policy
    code, out, err = run(["replay", "logs/battle-1.jsonl"], capsys)
    assert code == 0 and "OK" in out, err


def test_a_module_policy_plays(here, capsys, monkeypatch):
    write(here, "upkg_mod/__init__.py", "")
    shutil.copy(EXAMPLE, here / "upkg_mod" / "tactics.py")
    blue = "upkg_mod.tactics:closest_first"
    argv = ["battle", "duel", "-n", "1", "--blue", blue, "--red", "random", *QUIET]
    code, _, err = run_package(here, "upkg_mod", argv, capsys, monkeypatch)
    assert code == 0, err
    blue = [r for r in rows(here / "out" / "battles.csv") if r["side"] == "blue"]
    assert blue[0]["policy"] == "upkg_mod.tactics:closest_first"


def test_a_module_policy_that_fails_to_import_names_its_file_and_line(here, capsys, monkeypatch):
    write(here, "upkg_bad/__init__.py", "")
    write(here, "upkg_bad/broken.py", "import json\n\nTABLE = json.loads('{')\n")
    argv = ["battle", "duel", "-n", "1", "--red", "upkg_bad.broken:policy", *QUIET]
    code, _, err = run_package(here, "upkg_bad", argv, capsys, monkeypatch)
    assert code == 2 and "Traceback" not in err
    assert f"upkg_bad{os.sep}broken.py:3: JSONDecodeError" in err  # not json's own frames


def test_an_error_in_a_parent_package_is_located_too(here, capsys, monkeypatch):
    write(here, "upkg_par/__init__.py", "\nraise RuntimeError('half installed')\n")
    write(here, "upkg_par/sub.py", "def policy(view, decision, rng):\n    pass\n")
    argv = ["battle", "duel", "-n", "1", "--red", "upkg_par.sub:policy", *QUIET]
    code, _, err = run_package(here, "upkg_par", argv, capsys, monkeypatch)
    assert code == 2 and "Traceback" not in err
    assert f"upkg_par{os.sep}__init__.py:2: RuntimeError: half installed" in err


def test_two_workers_give_the_rows_of_one(here, capsys):
    args = ["battle", "duel", "-n", "4", "--red", "mine.py:closest_first", "--blue", "aggressive"]
    assert run([*args, "--workers", "1", "--no-plots", "--no-progress", "--out", "one"], capsys)[0] == 0
    assert run([*args, "--workers", "2", "--no-plots", "--no-progress", "--out", "two"], capsys)[0] == 0
    one, two = rows(here / "one" / "battles.csv"), rows(here / "two" / "battles.csv")
    assert one == two and len({r["final_hash"] for r in one}) > 1


def test_worker_processes_load_the_policy_themselves(here):
    """A job carries only the spec: a worker that never saw the file loads it."""
    from game.ai import loader
    from game.tools import batch

    write(here, "fresh.py", "from mine import closest_first as policy\n")
    jobs = [
        batch.BattleJob(
            seed=s, scenario=str(REPO / "scenarios" / "duel.yaml"), policies=(("red", "fresh.py:policy"),)
        )
        for s in (1, 2)
    ]
    got = batch.run_batch(jobs, workers=2, progress=False)
    assert [r["policy_red"] for r in got] == ["fresh.py:policy"] * 2
    assert not any("fresh.py" in key[0] for key in loader._FILES)  # loaded in the workers only
    assert str(here) not in sys.path  # the file's folder was on the path only while it ran


def test_play_headless_script_with_a_user_policy(here, capsys):
    write(here, "script.txt", "wait\nshot end\n")
    code, _, err = run(
        [
            "play",
            "duel",
            "--headless",
            "--script",
            "script.txt",
            "--shots",
            "shots",
            "--red",
            "mine.py:closest_first",
            "--blue",
            "random",
        ],
        capsys,
    )
    assert code == 0, err
    assert (here / "shots" / "end.png").is_file()


def test_render_tournament_and_fairness_take_a_user_policy(here, capsys):
    code, _, err = run(
        ["render", "duel", "--out", "x.png", "--steps", "6", "--red", "mine.py:closest_first"], capsys
    )
    assert code == 0 and (here / "x.png").is_file(), err
    code, out, err = run(
        [
            "tournament",
            "duel",
            "--policies",
            "random,mine.py:closest_first",
            "--ruleset",
            "aff",
            "-n",
            "1",
            "--round-limit",
            "3",
            "--workers",
            "1",
            *QUIET,
        ],
        capsys,
    )
    assert code == 0, err
    assert "mine.py:closest_first" in out
    duel = str(REPO / "scenarios" / "duel.yaml")
    args = ["fairness", duel, "--policy", "mine.py:closest_first", "-n", "1", "--max-battles", "1"]
    code, out, err = run([*args, "--min-decisive", "0", "--no-progress"], capsys)
    assert code == 0 and "| duel | aff | mine.py:closest_first | 1 |" in out, err


def test_the_policy_draws_from_the_matchs_ai_generator(here):
    from game.tools.session import Session, Setup

    write(
        here,
        "dice.py",
        """
        seen = []


        def policy(view, decision, rng):
            seen.append(rng)
            options = [o for o in decision.options if o.point_field is None]
            return options[int(rng.integers(len(options)))].command
        """,
    )

    def play(seed: int) -> list[dict]:
        with Session.start(REPO / "scenarios" / "duel.yaml", Setup(seed=seed), players="dice.py:policy") as s:
            s.play(steps=30)
            return list(s.match.commands)

    assert play(3) == play(3) and play(3) != play(4)  # a pure function of the seed
    module = sys.modules[load_target("dice.py:policy").obj.__module__]
    with Session.start(REPO / "scenarios" / "duel.yaml", Setup(seed=5), players="dice.py:policy") as s:
        module.seen.clear()
        s.play(steps=3)
        assert len(module.seen) == 3 and all(r is s.match.ai_rng for r in module.seen)


# --------------------------------------------------------------------------- options
CLASS_POLICY = """\
class Careful:
    def __init__(self, margin=1):
        self.margin = margin
        self.turns = 0

    def __call__(self, view, decision, rng):
        self.turns += 1
        return next(o.command for o in decision.options if o.point_field is None)
"""


def test_a_class_is_made_with_the_policy_options(here, capsys):
    write(here, "careful.py", CLASS_POLICY)
    made = get_policy("careful.py:Careful", margin=3)
    assert isinstance(made, UserPolicy) and made.fn.margin == 3
    assert takes_options("careful.py:Careful") and not takes_options("mine.py:closest_first")
    base = ["battle", "duel", "-n", "1", "--red", "careful.py:Careful", *QUIET]
    assert run([*base, "--policy-option", "careful.py:Careful.margin=2"], capsys)[0] == 0
    code, _, err = run([*base, "--policy-option", "careful.py:Careful.nerve=2"], capsys)
    assert code == 2 and "--policy-option: policy careful.py:Careful:" in err and "nerve" in err


def test_a_function_takes_its_keyword_options_on_every_call(here):
    write(
        here,
        "kw.py",
        """
        def policy(view, decision, rng, *, pick=0):
            return [o for o in decision.options if o.point_field is None][pick].command
        """,
    )
    assert takes_options("kw.py:policy")
    assert get_policy("kw.py:policy", pick=1).fn.keywords == {"pick": 1}
    with pytest.raises(PolicyOptionError, match=r"kw\.py:policy: got an unexpected keyword argument 'nerve'"):
        get_policy("kw.py:policy", nerve=1)


# --------------------------------------------------------------------------- load errors
LOAD_ERRORS = [
    ("missing", None, "missing.py:policy", "missing.py: no such file"),
    (
        "syntax",
        "def policy(view, decision, rng):\n    return (\n",
        "bad.py:policy",
        ("bad.py:2:", ": SyntaxError: "),  # the column varies with the Python version,
    ),
    (
        "import",
        "import math\n\nx = 1\ny = 1 / 0\n",
        "bad.py:policy",
        "bad.py:4: ZeroDivisionError: division by zero",
    ),
    (
        "no function",
        "def other(view, decision, rng):\n    pass\n",
        "bad.py:policy",
        "bad.py: no function 'policy'",
    ),
    ("not callable", "policy = 42\n", "bad.py:policy", "bad.py:1: 'policy' is int 42, not a function"),
    (
        "signature",
        "\n\ndef policy(view, decision):\n    pass\n",
        "bad.py:policy",
        "bad.py:3: policy(view, decision) cannot be called as policy(view, decision, rng)",
    ),
    ("no __call__", "class Policy:\n    pass\n", "bad.py:Policy", "bad.py:1: class Policy has no __call__"),
    ("spec", None, "bad.py:", "expected FILE.py:FUNCTION or MODULE:FUNCTION"),
    ("module", None, "no_such_pkg_xyz.sub:policy", "no module named 'no_such_pkg_xyz.sub'"),
]


@pytest.mark.parametrize(("case", "text", "spec", "message"), LOAD_ERRORS, ids=[c[0] for c in LOAD_ERRORS])
def test_a_policy_that_does_not_load_is_one_located_line_exit_2(here, capsys, case, text, spec, message):
    if text is not None:
        write(here, "bad.py", text)
    code, _, err = run(["battle", "duel", "-n", "1", "--red", spec, *QUIET], capsys)
    assert code == 2 and "Traceback" not in err
    (line,) = [s for s in err.splitlines() if s.strip()]
    wanted = message if isinstance(message, tuple) else (message,)
    assert line.startswith("Error: Invalid value for '--red': ") and all(w in line for w in wanted), line
    assert not (here / "out" / "battles.csv").exists()


def test_an_error_in_a_module_the_policy_imports_points_at_that_module(here, capsys):
    write(here, "helper.py", 'VALUE = int("no number")\n')
    write(here, "uses_helper.py", "import helper\n\n\ndef policy(view, decision, rng):\n    pass\n")
    write(here, "script.txt", "wait\n")
    args = ["play", "duel", "--headless", "--script", "script.txt", "--blue", "uses_helper.py:policy"]
    code, _, err = run(args, capsys)
    assert code == 2 and "helper.py:1: ValueError" in err and "Traceback" not in err


def test_the_other_options_naming_policies_check_them_too(here, capsys):
    write(here, "bad.py", "policy = 1\n")
    code, _, err = run(["battle", "duel", "-n", "1", "--policy", "blue=bad.py:policy", *QUIET], capsys)
    assert code == 2 and "--policy: bad.py:1: 'policy' is int" in err
    code, _, err = run(["tournament", "duel", "--policies", "random,bad.py:policy", *QUIET], capsys)
    assert code == 2 and "--policies: bad.py:1:" in err
    code, _, err = run(["render", "duel", "--out", "x.png", "--blue", "bad.py:policy"], capsys)
    assert code == 2 and "bad.py:1:" in err
    with pytest.raises(PolicyLoadError, match=r"bad\.py:1:"):
        check_policy("bad.py:policy")


# --------------------------------------------------------------------------- errors in play
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_policy_raising_mid_battle_is_an_error_row_naming_its_line(here, capsys, workers):
    write(here, "raises.py", RAISES)
    code, _, err = run(
        ["battle", "duel", "-n", "2", "--red", "raises.py:policy", "--workers", workers, *QUIET], capsys
    )
    assert code == 1 and "Traceback" not in err
    assert err.startswith("error: 2 of 2 battles ended in an error")
    lines = [s.strip() for s in err.splitlines()[1:] if s.strip()]
    assert len(lines) == 2
    for line in lines:
        assert line.startswith("battle seed ") and "raises.py:10: KeyError: 'missing'" in line
        assert "(policy 'raises.py:policy', " in line and "decision, round " in line  # unit, decision
    got = rows(here / "out" / "battles.csv")
    assert [r["result"] for r in got] == ["error"] * 4 and all("raises.py:10" in r["reason"] for r in got)


def test_skirmish_debug_adds_the_users_traceback(here, capsys, monkeypatch):
    write(here, "raises.py", RAISES)
    monkeypatch.setenv("SKIRMISH_DEBUG", "1")
    code, _, err = run(
        ["battle", "duel", "-n", "1", "--red", "raises.py:policy", "--workers", "1", *QUIET], capsys
    )
    assert code == 1 and "Traceback" in err and 'raises.py", line 10, in policy' in err


def test_a_policy_raising_in_the_window_exits_2_with_its_line(here, capsys):
    write(here, "raises.py", RAISES)
    write(here, "script.txt", "wait\n")
    code, _, err = run(
        [
            "play",
            "duel",
            "--headless",
            "--script",
            "script.txt",
            "--red",
            "raises.py:policy",
            "--blue",
            "random",
        ],
        capsys,
    )
    assert code == 2 and "raises.py:10: KeyError" in err and "Traceback" not in err


def test_an_error_raised_in_our_code_points_at_the_users_call(here):
    from game.tools.session import Session, Setup

    write(here, "asks.py", "def policy(view, decision, rng):\n    return view.unit('nobody')\n")
    with (
        Session.start(REPO / "scenarios" / "duel.yaml", Setup(seed=1), players="asks.py:policy") as s,
        pytest.raises(PolicyFailed, match=r"^asks\.py:2: UnknownName: no unit 'nobody'"),
    ):
        s.step()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("    pass\n", "bad.py:1: returned None, not a command"),
        (
            "    return decision.options[0].command.__class__('nobody')\n",
            "bad.py:1: returned an illegal command",
        ),
    ],
)
def test_a_policy_returning_no_legal_command_is_located(here, body, message):
    from game.tools.session import Session, Setup

    write(here, "bad.py", "def policy(view, decision, rng):\n" + body)
    with Session.start(REPO / "scenarios" / "duel.yaml", Setup(seed=1), players="bad.py:policy") as s:
        with pytest.raises(PolicyFailed, match=message) as e:
            s.step()
        assert "vasco's turn decision, round 1" in str(e.value)
        assert not s.match.commands  # nothing was applied


# --------------------------------------------------------------------------- code is never loaded from files
def test_a_scenario_cannot_name_a_user_policy(here, capsys):
    text = (
        (REPO / "scenarios" / "duel.yaml")
        .read_text()
        .replace("red: aggressive", "red: mine.py:closest_first")
    )
    write(here, "evil.yaml", text)
    code, _, err = run(["battle", "evil.yaml", "-n", "1", *QUIET], capsys)
    assert code == 2 and "built-in AI policies only" in err


def test_a_save_loads_its_user_policy_only_when_named_again(here, capsys):
    from game.scenario import load_scenario
    from game.tools.saves import save_match
    from game.tools.session import Setup

    # The policy leaves a mark when its file runs: a save alone must never run it.
    (here / "mine.py").write_text((here / "mine.py").read_text() + "\nopen('RAN', 'w').close()\n")
    spec = load_scenario(REPO / "scenarios" / "duel.yaml")
    match = Setup(seed=1, controllers={"red": "human", "blue": "mine.py:closest_first"}).build(spec)
    save_match(match, here / "save.json")
    match.close()
    write(here, "script.txt", "shot start\n")
    base = ["play", str(REPO / "scenarios" / "duel.yaml"), "--load", "save.json", "--headless"]
    base += ["--script", "script.txt", "--shots", "shots"]
    code, _, err = run(base, capsys)
    assert code == 0, err
    assert "note: save.json: side 'blue' was played by the user policy 'mine.py:closest_first'" in err
    assert "a person plays it now" in err and not (here / "RAN").exists()
    code, _, err = run([*base, "--blue", "mine.py:closest_first"], capsys)
    assert code == 0 and "note:" not in err, err
    assert (here / "RAN").exists()  # named on the command line: it runs
