"""The numbers of the CLI's JSON output, one rule for every command: floats to 6 significant digits (as compare's
CSV writes seconds, gaps and re-plan figures: 0.012806, not 0.012806000000000001) and the message size a whole
number (100000000, not 100000000.0)."""

from __future__ import annotations

from typing import Any

import numpy as np

WHOLE_KEYS = frozenset({"size_bytes"})
"""Keys of compare's JSON whose values are whole numbers held as floats (the message size: the CSV's ``M bytes``)."""


def json_numbers(x: Any, digits: int = 6) -> Any:
    """A JSON-ready copy of `x` with every float to `digits` significant digits, as the CSV writes seconds, gaps and
    re-plan figures, and a whole number under `WHOLE_KEYS` an integer (counts are integers already)."""
    if isinstance(x, dict):
        return {k: int(v) if k in WHOLE_KEYS and isinstance(v, (int, float)) and float(v).is_integer()
                else json_numbers(v, digits) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_numbers(v, digits) for v in x]
    if isinstance(x, (float, np.floating)):
        return float(f"{float(x):.{digits}g}")
    if isinstance(x, np.integer):
        return int(x)
    return x
