"""A row of labelled numbers as one HTML block, drawn like `st.metric` (label, large value, help on hover).

One Markdown element instead of a row of `st.columns` with an `st.metric` in each: the browser builds one element
instead of 2 + 2n, and loads no metric chunk (docs/dashboard.md, "Fewer kinds and elements"). No Streamlit here.
"""

from __future__ import annotations

from html import escape
from typing import Sequence

Stat = tuple[str, object, "str | None"]
"""(label, value, help text or None)."""

STYLE = ("display:flex;flex-wrap:wrap;column-gap:1rem;row-gap:0.5rem;margin-bottom:1rem",
         "flex:1 1 0;min-width:4.5rem",
         "font-size:0.875rem;line-height:1.6;color:inherit",
         "font-size:2.25rem;line-height:1.3;padding-bottom:0.25rem")
HELP = ("display:inline-block;width:0.95rem;height:0.95rem;margin-left:0.3rem;border:1px solid currentColor;"
        "border-radius:50%;font-size:0.65rem;line-height:0.9rem;text-align:center;opacity:0.6;cursor:help;"
        "vertical-align:middle")


def stats_html(stats: Sequence[Stat]) -> str:
    """The stats as one HTML row: each a `data-stat` block with its label (a `?` whose tooltip is the help) and
    its value; every text escaped."""
    row, item, label, value = STYLE
    cells = []
    for name, val, help_text in stats:
        tip = (f'<span role="img" aria-label="help" title="{escape(help_text)}" style="{HELP}">?</span>'
               if help_text else "")
        cells.append(f'<div data-stat="{escape(name)}" style="{item}">'
                     f'<div style="{label}">{escape(name)}{tip}</div>'
                     f'<div data-stat-value style="{value}">{escape(str(val))}</div></div>')
    return f'<div data-stats style="{row}">{"".join(cells)}</div>'
