"""Priority rules of the list schedulers: a rank per workload, lower goes first.

A rank is read by `core.engine.list_schedule`, which walks the ready workloads in rank order
each round. Ties are broken by workload id there, so every rule here is deterministic for a
given DAG (and seed, for the random one).
"""

from __future__ import annotations

import numpy as np

from .workloads import WorkloadDAG


def critical_path_rank(dag: WorkloadDAG) -> np.ndarray:
    """Longest remaining chain first; then more successors; then lower id."""
    succ = dag.successors.lengths
    return np.lexsort((np.arange(dag.n), -succ, -dag.tail)).argsort()


def random_rank(dag: WorkloadDAG, seed: int) -> np.ndarray:
    """A seeded random priority (a fixed random order of all workloads)."""
    return np.random.default_rng(seed).permutation(dag.n)


def step_rank(dag: WorkloadDAG) -> np.ndarray:
    """Earliest possible round (head) first, then lower id: Ring AllReduce's step order."""
    return np.lexsort((np.arange(dag.n), dag.head)).argsort()
