"""``from game import batch_run``: the cross product as a tidy pandas DataFrame, as battles.csv has it."""

from __future__ import annotations

import sys

import pytest

from game.core.errors import SkirmishError
from game.tools import results
from tests.batch.conftest import DUEL

pd = pytest.importorskip("pandas")


def test_one_row_per_battle_and_side_with_the_columns_of_battles_csv():
    from game import batch_run

    df = batch_run(
        str(DUEL), rulesets=["aff", "cortex"], policies=["aggressive", ("cautious", "aggressive")], seeds=2
    )
    assert list(df.columns) == results.columns(["aff", "cortex"])
    assert len(df) == 2 * 2 * 2 * 2  # rulesets x policy arms x seeds x sides
    assert set(df["side"]) == {"red", "blue"}
    assert df["seed"].dtype.kind == "i" and df["won"].dtype.kind == "i"
    per_battle = df.groupby(["ruleset", "variant", "seed"])["won"].sum()
    assert (per_battle <= 1).all()  # at most one side wins a battle
    mixed = df[(df["ruleset"] == "aff") & (df["side"] == "red") & (df["opponent"] == "aggressive")]
    assert set(mixed["policy"]) == {"cautious", "aggressive"}


def test_option_grid_multiplies_and_keeps_the_values_as_played():
    from game import batch_run

    df = batch_run(
        str(DUEL), rulesets="gurps", options={"gurps": {"ground_retreat_roll": [True, False]}}, seeds=[5]
    )
    assert list(df["option.ground_retreat_roll"]) == [True, True, False, False]
    assert df["options"].str.contains("ground_retreat_roll=true").sum() == 2
    # the same call on two workers: the same frame, in the same order
    again = batch_run(
        str(DUEL),
        rulesets="gurps",
        options={"gurps": {"ground_retreat_roll": [True, False]}},
        seeds=[5],
        workers=2,
    )
    pd.testing.assert_frame_equal(df, again)


def test_bad_input_is_refused_before_any_battle():
    from game import batch_run

    with pytest.raises(SkirmishError, match="none of the rulesets"):
        batch_run(str(DUEL), options={"no_such_option": [1, 2]})
    with pytest.raises(SkirmishError, match="unknown ruleset"):
        batch_run(str(DUEL), rulesets=["chess"])
    with pytest.raises(SkirmishError, match="policy"):
        batch_run(str(DUEL), policies="nobody")


def test_without_pandas_the_call_says_what_to_install(monkeypatch):
    from game import batch_run

    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    with pytest.raises(ImportError, match=r"skirmish-tabletop-sim\[analysis\]"):
        batch_run(str(DUEL), seeds=1)
