"""Wide tables made to fit a 1280-px window: columns split over several tables (each repeating its key
columns) by an estimate of how wide Streamlit draws them, and a table turned on its side. No Streamlit here.
"""

from __future__ import annotations

from typing import Sequence

FIT_PX = 740
"""Width a table may take: a 1280-px window leaves ~784 px inside an expander beside the sidebar (the debugger's
tables measured in chromium), less a margin for the estimate below."""
CHAR_PX = 6.5
"""Estimate of one character's width in a table's header or cell. Two tables measured in chromium at 1280 px (the
debugger's, before they were split: 13 columns headed by 176 characters drew ~1270 px, 17 columns by 290 characters
~2170 px) give ~5.3 px a character and ~26 px a column; the estimate is set above both, so a table it passes fits."""
HEADER_PAD_PX, CELL_PAD_PX = 28.0, 20.0
"""Room of a header (its padding and sort mark) and of a cell besides their text."""


def cell_text(value: object) -> str:
    """A value as the table shows it (roughly: a bool is a check box, a float with 4 decimals, trailing zeros kept)."""
    if isinstance(value, bool):
        return "xx"
    if isinstance(value, float):
        return f"{value:.4f}" if value == value else ""
    return "" if value is None else str(value)


def column_px(header: str, values: Sequence[object]) -> float:
    """Estimated drawn width of a column: the wider of its header and its widest cell."""
    widest = max((len(cell_text(v)) for v in values), default=0)
    return max(CHAR_PX * len(header) + HEADER_PAD_PX, CHAR_PX * widest + CELL_PAD_PX)


def split_columns(rows: Sequence[dict], keep: Sequence[str], headers: dict[str, str] | None = None,
                  fit_px: float = FIT_PX) -> list[list[str]]:
    """The columns of `rows` in groups that each fit `fit_px` (estimated), in their order; every group starts with
    the `keep` columns (the row's name), so each table reads on its own. `headers`: a column's shown heading."""
    headers = headers or {}
    columns = list(rows[0]) if rows else []
    width = {c: column_px(headers.get(c, c), [r.get(c) for r in rows]) for c in columns}
    base = sum(width[c] for c in keep)
    groups: list[list[str]] = []
    current: list[str] = []
    used = base
    for c in columns:
        if c in keep:
            continue
        if current and used + width[c] > fit_px:
            groups.append(list(keep) + current)
            current, used = [], base
        current.append(c)
        used += width[c]
    if current or not groups:
        groups.append(list(keep) + current)
    return groups


ROW_PX = 35
"""Height of a table row (and of its header) as Streamlit draws it."""


def rows_height(n_rows: int) -> int:
    """The height that shows a table's header and `n_rows` rows without scrolling (Streamlit shows ~10 rows by
    default and scrolls the rest inside the table)."""
    return ROW_PX * (n_rows + 1) + 3


def transpose(rows: Sequence[dict], names: Sequence[str], columns: Sequence[str], first: str) -> list[dict]:
    """`rows` turned on their side: one row per column of `columns` (named in a first column headed `first`), one
    column per row of `rows`, headed by `names` (in order)."""
    return [{first: c, **{n: r.get(c) for n, r in zip(names, rows)}} for c in columns]
