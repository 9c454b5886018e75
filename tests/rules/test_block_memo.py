"""BlockMemo: answers memoised per frozen stat block (by identity) and key, bounded."""

from __future__ import annotations

from game.rules.base import BlockMemo
from tests.rules.test_gurps_common import mk


def test_memo_is_per_block_identity_and_key() -> None:
    memo = BlockMemo()
    s = mk()
    twin = s.model_copy()  # equal, but another block: its own entries
    assert memo.get(s, "x", lambda: 1) == 1
    assert memo.get(s, "x", lambda: 2) == 1
    assert memo.get(s, "y", lambda: 3) == 3
    assert twin == s and memo.get(twin, "x", lambda: 4) == 4


def test_memo_keeps_its_blocks_so_ids_are_not_reused() -> None:
    # An entry holds its block: a block made after another is dropped cannot take a live entry's id.
    memo = BlockMemo()
    ids = set()
    for k in range(50):
        s = mk(dx=10 + k % 5)
        ids.add(id(s))
        assert memo.get(s, None, lambda k=k: k) == k  # type: ignore[misc]
    assert len(ids) == 50


def test_full_memo_is_emptied_not_grown() -> None:
    memo = BlockMemo(maxsize=8)
    s = mk()
    for k in range(20):
        memo.get(s, k, lambda: 0)
        assert len(memo) <= 8
    assert memo.get(s, 19, lambda: 1) == 0  # the newest entry survives the clear before it
