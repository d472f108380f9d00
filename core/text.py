"""Text for one-line messages: a value cut to fit (`clip`), a suggestion for a mistyped name (`did_you_mean`), and a
list in words (`and_list`). Every refusal of the CLI and the dashboard is one line; these keep it so."""

from __future__ import annotations

import difflib
from collections.abc import Sequence


def clip(text: str, limit: int = 60) -> str:
    """`text` cut to `limit` characters, unprintable characters escaped: safe in a one-line message."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text)[:limit + 1])
    return text if len(text) <= limit else text[:limit] + "..."


def did_you_mean(name: str, known: Sequence[str]) -> str:
    """`` (did you mean x?)`` when `name` is a known name in other case, close to one, or one with more or less at its
    end; else empty (for a one-line refusal that lists the known names after it)."""
    text = str(name).strip()
    low = text.lower()
    same = [k for k in known if k.lower() == low]
    # a longer or shorter form of a name: ring-allreduce, critical (trial 33)
    part = [k for k in known if len(low) >= 3 and (low.startswith(k.lower()) or k.lower().startswith(low))]
    close = same or difflib.get_close_matches(low, list(known), n=1, cutoff=0.75) or part[:1]
    return f" (did you mean {close[0]}?)" if close and close[0] != text else ""


def and_list(items: Sequence[str], word: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c`` (or another `word`)."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1]
