"""Files that are not what they claim: devices, pipes, loops, directories, huge files (issue 18).

Every reader (scenario, profiles, save, log) refuses them by type or size before parsing,
as one line naming the file, and the CLI exits 2 without a traceback and without blocking.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from game.core.errors import ScenarioError
from game.core.files import LIMITS, FileRefused, read_capped
from game.scenario.yaml_source import MAX_NODES, parse_yaml
from tests.robustness.cli_run import run

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "skirmish-5v5.yaml"


def cli(*args: str) -> tuple[int, str]:
    """Run ``skirmish ARGS`` in process: exit status and stderr."""
    code, _, err = run(*args)
    return code, err


@pytest.fixture
def hostile(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    loop_a, loop_b = tmp_path / "loop-a.yaml", tmp_path / "loop-b.yaml"
    loop_a.symlink_to(loop_b)
    loop_b.symlink_to(loop_a)
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    return {
        "pipe": fifo,
        "device": Path("/dev/zero"),
        "loop": loop_a,
        "directory": folder,
    }


@pytest.mark.parametrize("what", ["pipe", "device", "loop", "directory"])
@pytest.mark.parametrize("kind", sorted(LIMITS))
def test_read_capped_refuses_by_type(hostile: dict[str, Path], what: str, kind: str) -> None:
    with pytest.raises(FileRefused) as info:
        read_capped(hostile[what], kind)
    assert "\n" not in str(info.value) and str(info.value).startswith(str(hostile[what]))


def test_read_capped_refuses_large_files_and_reads_small_ones(tmp_path: Path) -> None:
    f = tmp_path / "f.yaml"
    f.write_bytes(b"x" * 101)
    assert read_capped(f, "scenario", 101) == b"x" * 101
    with pytest.raises(FileRefused, match=r"too large \(101 bytes; the limit for a scenario is 100\)"):
        read_capped(f, "scenario", 100)
    with pytest.raises(FileRefused, match="no such file"):
        read_capped(tmp_path / "none.yaml", "save")


@pytest.mark.parametrize("what", ["pipe", "device", "loop", "directory"])
@pytest.mark.parametrize(
    "command",
    [
        ("check", "{f}"),
        ("check", "--profiles", "{f}", str(SCENARIO)),
        ("battle", "{f}"),
        ("render", "{f}"),
        ("replay", "{f}"),
    ],
)
def test_cli_refuses_at_once(hostile: dict[str, Path], what: str, command: tuple[str, ...]) -> None:
    if what == "directory" and command == ("check", "{f}"):
        pytest.skip("check expands a directory to its *.yaml files")
    args = [a.format(f=hostile[what]) for a in command]
    start = time.perf_counter()
    code, err = cli(*args)
    assert code == 2, err
    assert "Traceback" not in err and "internal error" not in err
    assert time.perf_counter() - start < 20


def test_save_and_log_refused_by_type(hostile: dict[str, Path]) -> None:
    from game.scenario.locate import ScenarioNotFound, find_scenario
    from game.tools.replay import ReplayError, read_events
    from game.tools.saves import load_match

    for what in ("pipe", "device", "loop"):
        with pytest.raises(ScenarioError) as info:
            load_match(hostile[what])
        assert len(str(info.value).splitlines()) == 1
        with pytest.raises(ReplayError):
            read_events(hostile[what])
        with pytest.raises(ScenarioNotFound, match="cannot read scenario"):
            find_scenario(None, sha256="0" * 64, relative_to=SCENARIO, given=hostile[what])


def test_ten_megabyte_scenario_is_refused_quickly(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("units:\n" + "  - {id: u, at: [1, 2]}\n" * 450_000)
    start = time.perf_counter()
    code, err = cli("check", str(big))
    assert code == 2 and "too large" in err and "the limit for a scenario is" in err
    assert time.perf_counter() - start < 5


def test_node_cap_acts_during_the_parse_and_names_no_aliases() -> None:
    text = "units:\n" + "".join(f"  - {{id: u{i}, at: [1, 2]}}\n" for i in range(MAX_NODES // 3))
    start = time.perf_counter()
    doc = parse_yaml(text, "x.yaml")
    assert doc.data is None
    assert [p.message for p in doc.problems] == [f"document too large (more than {MAX_NODES} values)"]
    assert time.perf_counter() - start < 15
    bomb = "a: &a [1,2,3,4,5,6,7,8,9,10]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    bomb += "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    bomb += "e: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    assert "expanding aliases" in parse_yaml(bomb, "x.yaml").problems[0].message


def test_check_on_a_symlink_loop_is_one_line(hostile: dict[str, Path]) -> None:
    code, err = cli("check", str(hostile["loop"]))
    assert code == 2 and err.strip() == f"{hostile['loop']}: is a symlink loop"
