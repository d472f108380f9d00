"""A replayed run cut into intervals of time: what each directed link carries in each interval.

The dashboard's seconds axis puts every method on the same columns of time, so a column is the
same interval in each method. Given when each workload starts and finishes (a `Timing`, or the
times of a re-planned run), `busy_share` says for every directed link and column the share of
that interval the link spends transferring (divided by its capacity: a link of capacity c with
c transfers at once is fully busy), and `in_flight` which workloads transfer during an interval.

>>> import numpy as np
>>> time_edges(3e-3, 3).tolist()
[0.0, 0.001, 0.002, 0.003]
>>> in_flight(np.array([0.0, 1.0, 2.5]), np.array([1.0, 2.0, 3.0]), 0.5, 1.5).tolist()
[0, 1]
"""

from __future__ import annotations

import numpy as np

from ..workloads import WorkloadDAG

_BLOCK = 1 << 20
"""Pairs x edges evaluated at once by `busy_share` (bounds its temporary memory to ~8 MB)."""


def time_edges(end_s: float, n_columns: int) -> np.ndarray:
    """`n_columns` + 1 equally spaced column edges over [0, end_s] seconds."""
    if n_columns < 1:
        raise ValueError(f"a time axis needs at least one column, got {n_columns}")
    if not (np.isfinite(end_s) and end_s > 0):
        raise ValueError(f"the end of a time axis must be a positive number of seconds, got {end_s!r}")
    return np.linspace(0.0, float(end_s), int(n_columns) + 1)


def in_flight(start: np.ndarray, finish: np.ndarray, t0: float, t1: float) -> np.ndarray:
    """Ids of the workloads transferring at some moment of [t0, t1): start < t1 and finish > t0."""
    return np.flatnonzero((np.asarray(start) < t1) & (np.asarray(finish) > t0))


def busy_share(dag: WorkloadDAG, start: np.ndarray, finish: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Directed links x columns: the share of each column [edges[j], edges[j+1]) each link is busy
    transferring, divided by its capacity (0 for a column of zero length)."""
    edges = np.asarray(edges, dtype=float)
    n_links = dag.topology.n_links
    n_cols = len(edges) - 1
    if n_cols < 1 or np.any(np.diff(edges) < 0):
        raise ValueError("column edges must be at least two non-decreasing times")
    start, finish = np.asarray(start, dtype=float), np.asarray(finish, dtype=float)
    rows = dag.links.rows_of_values()
    order = np.argsort(dag.links.values, kind="stable")
    links, rows = dag.links.values[order], rows[order]
    s = start[rows]
    f = np.maximum(finish[rows], s)
    # busy seconds of each link in each column: the sum over its transfers of their overlap with the
    # column, min(finish, t1) - max(start, t0) when positive. Taken directly, not as a difference of
    # busy time up to t1 and up to t0: that difference cancels to 0 for a transfer ending a hair after
    # t0, which `in_flight` (start < t1 and finish > t0) counts as in the column.
    busy = np.zeros((n_links, n_cols))
    if len(links):
        first = np.r_[0, np.flatnonzero(np.diff(links)) + 1]
        step = max(1, _BLOCK // max(len(links), 1))
        for a in range(0, n_cols, step):
            b = min(a + step, n_cols)
            e0, e1 = edges[a:b], edges[a + 1:b + 1]
            per_pair = np.clip(np.minimum(f[:, None], e1[None, :]) - np.maximum(s[:, None], e0[None, :]), 0.0, None)
            busy[links[first], a:b] = np.add.reduceat(per_pair, first, axis=0)
    width = np.diff(edges)
    cap = dag.topology.link_capacity.astype(float)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(width[None, :] > 0, busy / (width[None, :] * cap), 0.0)
    return np.clip(share, 0.0, 1.0)
