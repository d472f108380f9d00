"""Where two schedules of the same workload DAG differ, round by round."""

from __future__ import annotations

import numpy as np

from .engine import Rounds


def round_differences(a: Rounds, b: Rounds) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per round (up to the longer schedule): the sorted workload ids only `a` sends, and those only `b` sends.

    Both schedules must be of the same DAG (ids are compared as they are); past its last round
    a schedule sends nothing.
    """
    empty = np.zeros(0, dtype=np.int64)
    only_a, only_b = [], []
    for r in range(max(len(a), len(b))):
        x = np.asarray(a[r], dtype=np.int64) if r < len(a) else empty
        y = np.asarray(b[r], dtype=np.int64) if r < len(b) else empty
        only_a.append(np.setdiff1d(x, y))
        only_b.append(np.setdiff1d(y, x))
    return only_a, only_b
