"""CSV text of result rows: columns in order of first appearance, formula-like text cells made
safe for spreadsheets. Pure; shared by batch results (game.tools.batch) and profiles.csv
(game.tools.profiles), which import it rather than each other."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any


def columns(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """CSV columns: the union of the rows' keys in order of first appearance."""
    seen: dict[str, None] = {}
    for row in rows:
        for k in row:
            seen.setdefault(k, None)
    return list(seen)


def rows_to_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """The rows as CSV text (missing cells empty; text cells that start like a spreadsheet
    formula are :func:`neutralised`)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns(rows), restval="", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: neutralised(v) for k, v in row.items()})
    return buf.getvalue()


#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralised(value: Any) -> Any:
    """A text cell starting like a formula (``=HYPERLINK(...)``, ``+1``, ``-x``, ``@x``) prefixed
    with ``'`` so spreadsheets show it as text; numbers (negative ones too) are left alone."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
