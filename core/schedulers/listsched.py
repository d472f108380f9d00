"""List-scheduling baselines: Parameter Server, Ring, greedy (merged) and critical-path.

Each builds its workload DAG and a static priority, and lets the engine's greedy fill walk
the ready workloads in that order every round.
"""

from __future__ import annotations

import numpy as np

from ..routing import compute_routes
from ..topology import Topology
from ..workloads import WorkloadDAG, ring_dag, tree_dag
from .base import Schedule, ScheduleConfig, list_schedule


def critical_path_rank(dag: WorkloadDAG) -> np.ndarray:
    """Priority of critical-path: longest remaining chain first; then more successors; then id."""
    succ = dag.successors.lengths
    return np.lexsort((np.arange(dag.n), -succ, -dag.tail)).argsort()


def random_rank(dag: WorkloadDAG, seed: int) -> np.ndarray:
    """A seeded random priority (a fixed random order of all workloads)."""
    return np.random.default_rng(seed).permutation(dag.n)


def parameter_server(topology: Topology, config: ScheduleConfig, progress=None) -> Schedule:
    """Plain PS (merge off): each round sends ready workloads in a fixed random order."""
    dag = tree_dag(topology, merge=False, chunks=config.chunks, routes=compute_routes(topology, config.routing))
    return Schedule("ps", dag, list_schedule(dag, random_rank(dag, config.seed)), config)


def ring(topology: Topology, config: ScheduleConfig, progress=None) -> Schedule:
    """Ring AllReduce: reduce-scatter then all-gather along a server ring, step by step."""
    dag = ring_dag(topology, chunks=config.chunks, routes=compute_routes(topology, config.routing))
    rank = np.lexsort((np.arange(dag.n), dag.head)).argsort()  # earliest step first
    return Schedule("ring", dag, list_schedule(dag, rank), config,
                    info={"ring": dag.meta["ring"], "ring_adjacent": dag.meta["ring_adjacent"]})


def merged_dag(topology: Topology, config: ScheduleConfig) -> WorkloadDAG:
    """The tree DAG the merged methods schedule (merge per config)."""
    return tree_dag(topology, merge=config.merge, chunks=config.chunks,
                    routes=compute_routes(topology, config.routing))


def greedy(topology: Topology, config: ScheduleConfig, progress=None) -> Schedule:
    """Merged trees, seeded random order, maximal rounds."""
    dag = merged_dag(topology, config)
    return Schedule("greedy", dag, list_schedule(dag, random_rank(dag, config.seed)), config)


def critical_path(topology: Topology, config: ScheduleConfig, progress=None) -> Schedule:
    """Merged trees; each round fills links in order of longest remaining chain."""
    dag = merged_dag(topology, config)
    return Schedule("critical-path", dag, list_schedule(dag, critical_path_rank(dag)), config)
