"""``skirmish balance``: the search against a brute-force grid; the CLI line, plot, --write, bad input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from game.cli import cli
from game.scenario import load_scenario
from game.tools import balance as bal
from game.tools.batch import plan, run_batch
from tests.batch.conftest import DUEL

pytest.importorskip("statsmodels")

KEY = "profiles.swashbuckler.aff.stamina"  # Vasco's STAMINA under AFF (17 in the duel)
LO, HI, N = 8, 20, 10


def _play(value, seeds):
    text = DUEL.read_text(encoding="utf-8")
    spec = bal.variant(text, str(DUEL), bal.parse_knob(KEY), "aff", value)
    jobs = plan(seeds=seeds, spec=spec, policies=dict.fromkeys(spec.sides, "aggressive"))
    return [{**r, "first": spec.sides[0]} for r in run_batch(jobs, progress=False)]


def test_the_search_finds_the_value_a_brute_force_grid_finds():
    seeds = list(range(1, N + 1))
    grid = {v: _play(v, seeds) for v in range(LO, HI + 1)}  # every value, the same seeds

    def share(rows):
        decisive = [r for r in rows if r["winner"] != "draw"]
        return sum(r["winner"] == r["first"] for r in decisive) / max(1, len(decisive))

    shares = {v: share(rows) for v, rows in grid.items()}
    assert shares[LO] < 0.5 < shares[HI], shares  # the target is inside the range
    calls = []

    def lookup(value, s):
        calls.append(value)
        assert list(s) == seeds  # common random numbers: every value on the same seeds
        return grid[value]

    got = bal.search(lookup, LO, HI, integer=True, knob=KEY, n=N, points=4)
    assert got.reached and LO <= got.value <= HI
    # where the observed shares cross one half (between the last value below it and the first at or above)
    crossing = [v for v in range(LO, HI) if shares[v] < 0.5 <= shares[v + 1]]
    assert any(abs(got.value - (c + 0.5)) <= 1.5 for c in crossing), (got.value, shares)
    assert got.share.p == pytest.approx(shares[int(got.value)])  # the share reported is the one played there
    assert len(set(calls)) < HI - LO + 1  # fewer values than the brute force played


def test_the_cli_prints_the_balanced_line_draws_and_writes_a_valid_scenario(tmp_path: Path):
    out = tmp_path / "duel-balanced.yaml"
    png = tmp_path / "search.png"
    res = CliRunner().invoke(
        cli,
        [
            "balance",
            str(DUEL),
            "--vary",
            f"{KEY}={LO}..{HI}",
            "--policy",
            "aggressive",
            "-n",
            "6",
            "--points",
            "3",
            "--no-progress",
            "--plot",
            str(png),
            "--write",
            str(out),
        ],
    )
    assert res.exit_code in (0, 1), res.output
    m = re.search(
        r"balanced: .*?"
        + re.escape(KEY)
        + r" = (\d+) \(win share (\d\.\d\d) \[(\d\.\d\d), (\d\.\d\d)\], (\d+) battles\)$",
        res.stdout,
        re.M,
    )
    assert m, res.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if res.exit_code == 0:
        assert m.group(0).startswith("balanced:")
        value = int(m.group(1))
        spec = load_scenario(out)
        assert spec.profiles["swashbuckler"]["aff"]["stamina"] == value
        assert "# An open duel" in out.read_text(encoding="utf-8")  # comments kept
    else:
        assert not out.exists()


@pytest.mark.parametrize(
    ("vary", "needle"),
    [
        ("profiles.nobody.aff.skill=1..5", "no profile 'nobody'"),
        ("profiles.swashbuckler.aff.nothing=1..5", "not a number"),
        ("profiles.swashbuckler.gurps.dx=8..12", "does nothing under --ruleset aff"),
        ("profiles.heavy.aff.skill=5..9", "no unit"),
        ("option.nothing=1..3", "has no option 'nothing'"),
        ("option.riposte=0..1", "not a number"),
        (f"{KEY}=9..7", "LO must be below HI"),
        (f"{KEY}=a..b", "not LO..HI"),
        (f"{KEY}=5.5..9", "whole numbers"),
        (f"{KEY}=0..9", "expected a number >= 1"),
        ("skill=5..9", "profiles.PROFILE.RULESET.FIELD"),
    ],
)
def test_bad_keys_and_ranges_exit_2_with_one_line(vary, needle):
    res = CliRunner().invoke(cli, ["balance", str(DUEL), "--vary", vary, "--no-progress"])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and needle in lines[0], res.output
