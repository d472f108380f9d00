"""Wide tables made to fit a 1280-px window: columns split over several tables (each repeating its key
columns) by an estimate of how wide Streamlit draws them, and a table turned on its side. No Streamlit here.
"""

from __future__ import annotations

import math
from typing import Sequence

FIT_PX = 740
"""Width a table may take: a 1280-px window leaves ~784 px inside an expander beside the sidebar (the debugger's
tables measured in chromium), less a margin."""

PAGE_PX = 820
"""Width of a stretched table in the main column of a 1280-px window beside the sidebar (the Compare page's seconds
table, measured in chromium)."""


GRID_GLYPHS_PX = (
    (" ", 2.8), ("ij,.:;'·lI", 3.7), ("f()[]-", 4.4), ("tr/", 4.9), ("szxc", 6.4),
    ("vyYJ–LFke0123456789+−=#_ag", 7.1), ("XVESTZoAhunbdpq", 7.8), ("µPRCKB", 8.3), ("DG↑↓UNH", 9.2), ("OQ", 9.3),
    ("wM", 10.2), ("W%", 11.6), ("m", 11.7))
"""(characters, px): each character's width in Streamlit's grid (st.dataframe, Streamlit 1.67: "400 14px Source Sans",
headers and cells alike), measured with the canvas's measureText in chromium, each group at its widest rounded up
(a word's width is the sum of its characters' within 0.5 px: "critical-path" 70.9 px, "45,000,100.0" 73.1 px)."""
_GLYPH_PX = {c: px for chars, px in GRID_GLYPHS_PX for c in chars}
GLYPH_DEFAULT_PX = 11.7
"""Width assumed for a character not in the table (as wide as the widest that is)."""
GRID_PAD_PX = 8.0
"""The grid's padding left and right of a cell's or a header's text."""
SORTED_HEADER_PX = GRID_PAD_PX + 12.0 + 35.0
"""Room a header takes besides its title once its column is sorted and the mouse is on it: the padding, Streamlit's
sort mark ("↑ " before the title, 11.5 px) and glide's column menu, which fades the title out over the header's last
35 px (to transparent 24.5 px before its end) while the header is hovered, as it is right after the click that
sorts it. A sorted header without this room read "↑ gap BW bou⋮" at 1280 px (issue 12)."""


def text_px(text: str) -> float:
    """Width of `text` as the grid draws it (`GRID_GLYPHS_PX`)."""
    return sum(_GLYPH_PX.get(c, GLYPH_DEFAULT_PX) for c in text)


def cell_text(value: object) -> str:
    """A value as the table shows it (roughly: a bool is a check box, a float with 4 decimals, trailing zeros kept);
    a string as it is."""
    if isinstance(value, bool):
        return "xx"
    if isinstance(value, float):
        return f"{value:.4f}" if value == value else ""
    return "" if value is None else str(value)


def column_px(header: str, values: Sequence[object], sortable: bool = False) -> float:
    """Width (px) of a grid column: the wider of its `header` and its widest cell (`values` as the table shows them,
    `cell_text`), each from its characters' widths in the grid's font (`text_px`) with the grid's padding. `sortable`:
    the header with room to stay readable once the column is sorted and hovered (`SORTED_HEADER_PX`), for a column
    whose width is set from this; a column the grid sizes itself (the debugger's tables) is as wide as its text.

    Checked against chromium: the debugger's flow-tree table before it was split (13 columns, headers of 176
    characters) drew ~1270 px, and this gives ~1285 px for it (never less, 1% more)."""
    widest = max((text_px(cell_text(v)) for v in values), default=0.0)
    head = text_px(header) + (SORTED_HEADER_PX if sortable else 2 * GRID_PAD_PX)
    return max(head, widest + 2 * GRID_PAD_PX)


def sortable_px(header: str, cells: Sequence[str]) -> int:
    """Width (px) to set a grid column to whose `header` stays readable when the column is sorted and hovered
    (`SORTED_HEADER_PX`) and whose widest cell (as shown, text) fits, rounded up: `column_px`'s, sortable."""
    return math.ceil(column_px(header, cells, sortable=True))


ELLIPSIS = "…"


SEPARATORS = "_-. "
"""Where a name's words meet: `shortened` prefers to cut there."""

SEPARATOR_KEEP = 0.75
"""The share of its room a cut at separators must fill to be taken over the character cut."""


def shortened(text: str, px: float) -> str:
    """`text` whole if the grid draws it within `px` (`text_px`), else as much of its start and its end as fit around
    an ellipsis: cut at separators (`SEPARATORS`: the start up to and with one, the end from one on,
    ``datacenter_…_final.json``, start and end as even as they fit, then as wide) where that fills at least
    `SEPARATOR_KEEP` of `px`, else at characters, the end kept as long as the start or one character shorter (a
    file's extension stays): a long uploaded file name in a table's cell. A cut at characters alone cut words
    (``datacente…inal.json``)."""
    if text_px(text) <= px:
        return text
    best, best_key = None, None
    ends = [i for i, c in enumerate(text) if c in SEPARATORS]
    for h in (i + 1 for i in ends):
        for t in (i for i in ends if i >= h):
            short = text[:h] + ELLIPSIS + text[t:]
            width = text_px(short)
            key = (min(text_px(text[:h]), text_px(text[t:])), width)
            if width <= px and (best_key is None or key > best_key):
                best, best_key = short, key
    if best is not None and best_key[1] >= SEPARATOR_KEEP * px:
        return best
    return _character_cut(text, px)


def _character_cut(text: str, px: float) -> str:
    """`text`'s start and end around an ellipsis within `px`, cut at characters, the end as long as the start or one
    character shorter."""
    for keep in range(len(text) - 1, 0, -1):
        tail = keep // 2
        short = text[:keep - tail] + ELLIPSIS + (text[-tail:] if tail else "")
        if text_px(short) <= px:
            return short
    return ELLIPSIS


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
