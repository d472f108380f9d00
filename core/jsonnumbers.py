"""The numbers of the CLI's machine output, one rule for every command: floats to 6 significant digits (0.012806,
not 0.012806000000000001) and whole numbers whole (the message size 100000000, not 100000000.0); in JSON as numbers
(`json_numbers`), in compare's CSV as plain decimals (`csv_number`: 0.0000833333, not 8.333e-05)."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import numpy as np

WHOLE_KEYS = frozenset({"size_bytes"})
"""Keys of compare's JSON whose values are whole numbers held as floats (the message size: the CSV's ``M bytes``)."""


def _whole_past(x: float, digits: int) -> int | None:
    """The rule of both forms for a number of more than `digits` integer digits: digits left of the decimal point are
    never rounded away, so it is `x` to the nearest whole (half to even: 50625125.25 is 50625125, 1234567.5 is
    1234568); None for any other number (and for inf and nan), which keeps `digits` significant digits."""
    return round(x) if abs(x) >= 10 ** digits and math.isfinite(x) else None


def json_numbers(x: Any, digits: int = 6) -> Any:
    """A JSON-ready copy of `x` with every float to `digits` significant digits (one of more integer digits to the
    nearest whole, as `csv_number`), as the CSV writes seconds, gaps and re-plan figures, and a whole number under
    `WHOLE_KEYS` an integer (counts are integers already)."""
    if isinstance(x, dict):
        return {k: int(v) if k in WHOLE_KEYS and isinstance(v, (int, float)) and float(v).is_integer()
                else json_numbers(v, digits) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_numbers(v, digits) for v in x]
    if isinstance(x, (float, np.floating)):
        x = float(x)
        whole = _whole_past(x, digits)
        return float(f"{x:.{digits}g}") if whole is None else float(whole)
    if isinstance(x, np.integer):
        return int(x)
    return x


def csv_number(x: float, digits: int = 6) -> str:
    """`x` as compare's CSV writes every number: a whole number whole (``16``, ``100000000``), any other to `digits`
    significant digits in plain decimal, never in scientific notation (``0.0000833333`` ms and ``88428800`` % at 1 B;
    ``8.333e-05`` and ``5.06251e+07`` before trial 16). Digits left of the decimal point are never rounded away: a
    number of more than `digits` integer digits keeps them all, to the nearest whole (``50625125`` for 50625125.25,
    not trial 17's ``50625100``)."""
    x = float(x)
    if x.is_integer() and abs(x) < 2 ** 53:
        return str(int(x))
    whole = _whole_past(x, digits)
    if whole is not None:
        return str(whole)
    text = f"{x:.{digits}g}"
    return format(Decimal(text), "f") if "e" in text else text
