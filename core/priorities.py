"""Priority rules of the list schedulers: a rank per workload, lower goes first.

A rank is read by `core.engine.list_schedule`, which walks the ready workloads in rank order
each round. Ties are broken by workload id there, so every rule here is deterministic for a
given DAG (and seed, for the random one).
"""

from __future__ import annotations

import numpy as np

from . import csr
from .shuffle import seeded_permutation
from .workloads import WorkloadDAG


def critical_path_rank(dag: WorkloadDAG) -> np.ndarray:
    """Longest remaining chain first; then more successors; then lower id."""
    return _rank_of(order_by_key(critical_path_key(dag)))


def critical_path_key(dag: WorkloadDAG) -> np.ndarray:
    """Critical-path's sort key, before its ties are broken: non-negative, lower for a longer remaining chain
    and then for more successors."""
    succ = dag.successor_count
    tail = dag.tail.astype(np.int64)
    smax = int(succ.max()) if dag.n else 0
    tmax = int(tail.max()) if dag.n else 0
    return (tmax - tail) * (smax + 1) + (smax - succ)


def random_rank(dag: WorkloadDAG, seed: int) -> np.ndarray:
    """A seeded random priority (a fixed random order of all workloads): the values of
    ``np.random.default_rng(seed).permutation(dag.n)`` (int32 at scale, `core.shuffle`)."""
    return seeded_permutation(dag.n, seed)


def step_rank(dag: WorkloadDAG) -> np.ndarray:
    """Earliest possible round (head) first, then lower id: Ring AllReduce's step order."""
    return _rank_of(order_by_key(dag.head.astype(np.int64)))


def order_by_key(key: np.ndarray) -> np.ndarray:
    """Ids sorted by ascending non-negative integer `key`, ties by id (a counting sort when the keys are few)."""
    n = len(key)
    top = int(key.max()) + 1 if n else 0
    if top <= 4 * n + 1024:
        return csr.from_pairs(key, np.arange(n), top).values.astype(np.int64)
    return np.argsort(key, kind="stable")


def _rank_of(order: np.ndarray) -> np.ndarray:
    """The rank of every id given the ids in rank order (the inverse permutation)."""
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    return rank
