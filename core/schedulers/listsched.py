"""List-scheduling methods: a static priority, and the engine's greedy fill each round.

`random_order` is both Parameter Server (on the plain DAG) and greedy (on the merged DAG):
the registry gives each its DAG. `ring` walks the ring DAG step by step.
"""

from __future__ import annotations

from ..engine import Rounds, list_schedule
from ..priorities import critical_path_rank, random_rank, step_rank
from ..schedule import Plan, ScheduleConfig
from ..workloads import WorkloadDAG


def random_order(dag: WorkloadDAG, config: ScheduleConfig, progress=None) -> Rounds:
    """Each round sends ready workloads in one fixed seeded random order, skipping conflicts."""
    # drawn on a second core (beside the route classes, or the engine's rows when the DAG came with its classes);
    # the seeded draw is a permutation by construction (its check skipped)
    return list_schedule(dag, lambda: random_rank(dag, config.seed), permutation=True)


def critical_path(dag: WorkloadDAG, config: ScheduleConfig, progress=None) -> Rounds:
    """Each round fills links in order of longest remaining chain."""
    return list_schedule(dag, critical_path_rank(dag))


def ring(dag: WorkloadDAG, config: ScheduleConfig, progress=None) -> Plan:
    """Reduce-scatter then all-gather along the server ring, earliest step first."""
    return Plan(list_schedule(dag, step_rank(dag)),
                info={"ring": dag.meta["ring"], "ring_adjacent": dag.meta["ring_adjacent"]})
