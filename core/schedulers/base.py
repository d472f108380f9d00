"""The scheduler interface shared by every method, learned or not."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

import numpy as np

from ..engine import Engine
from ..routing import ROUTING_MODES
from ..workloads import WorkloadDAG


@dataclass(frozen=True)
class ScheduleConfig:
    """Options every method reads (each ignores what does not apply to it)."""

    merge: bool = True
    """Merge reduce workloads at servers (greedy, critical-path, optimal, rl; PS never merges)."""
    chunks: int = 1
    """Pieces per shard (k); every piece is its own flow-tree."""
    routing: str = "shortest"
    """Tie-break among shortest routes: "shortest" (lowest node id) or "balanced"."""
    seed: int = 0
    """Seed of the random orders (PS, greedy) and of sampled RL rollouts."""
    time_limit: float = 60.0
    """Seconds CP-SAT may search (optimal)."""
    samples: int = 16
    """Sampled rollouts of rl-sample; the best is kept."""
    checkpoint: str | None = None
    """RL checkpoint path; None picks the shipped one for the topology family."""
    workers: int = 2
    """CP-SAT search workers (optimal)."""

    def __post_init__(self) -> None:
        if not isinstance(self.chunks, (int, np.integer)) or self.chunks < 1:
            raise ValueError(f"chunks must be an integer >= 1, got {self.chunks!r}")
        if self.routing not in ROUTING_MODES:
            raise ValueError(f"routing must be one of {', '.join(ROUTING_MODES)}, got {self.routing!r}")
        if self.time_limit <= 0:
            raise ValueError(f"time_limit must be > 0 seconds, got {self.time_limit}")
        if self.samples < 1:
            raise ValueError(f"samples must be >= 1, got {self.samples}")


@dataclass
class Schedule:
    """A method's schedule: the DAG it scheduled and its rounds (arrays of workload ids)."""

    method: str
    dag: WorkloadDAG
    rounds: list[np.ndarray]
    config: ScheduleConfig
    info: dict = field(default_factory=dict)

    @property
    def n_rounds(self) -> int:
        """Number of rounds (the paper's metric)."""
        return len(self.rounds)

    def utilization(self) -> np.ndarray:
        """Share of capacity used on each directed link in each round (links x rounds)."""
        from ..engine import utilization
        return utilization(self.dag, self.rounds)

    def stats(self) -> dict:
        """Rounds, workloads, lower bounds of this DAG, gap and mean link utilization."""
        from ..bounds import lower_bounds
        lb = lower_bounds(self.dag)
        util = self.utilization()
        bound = max(lb.best, int(self.info.get("proven_bound", 0) or 0))
        return {
            "method": self.method,
            "rounds": self.n_rounds,
            "rounds_per_chunk": self.n_rounds / self.dag.chunks,
            "workloads": self.dag.n,
            "lower_bound": bound,
            "gap": self.n_rounds / bound - 1 if bound else 0.0,
            "mean_utilization": float(util.mean()) if util.size else 0.0,
            "bounds": lb.as_dict(),
        }


class Scheduler(Protocol):
    """A method: topology + config -> Schedule."""

    def __call__(self, topology, config: ScheduleConfig, progress: Callable[[float], None] | None = None
                 ) -> Schedule: ...


def list_schedule(dag: WorkloadDAG, rank: np.ndarray) -> list[np.ndarray]:
    """Rounds of the list scheduler: each round walks the ready workloads by ascending `rank`.

    `rank` is a permutation-like priority (lower first); ties are broken by workload id.
    """
    order = np.lexsort((np.arange(dag.n), rank))  # workloads in priority order
    place = np.empty(dag.n, dtype=np.int64)
    place[order] = np.arange(dag.n)
    engine = Engine(dag)
    ready_by_place = engine.ready_mask()[order].copy()  # the ready set, kept in priority order

    def select(eng: Engine) -> np.ndarray:
        if eng.n_rounds:
            ready_by_place[place[eng.last_round]] = False
            ready_by_place[place[eng.last_freed]] = True
        return eng.fill(order[np.flatnonzero(ready_by_place)])

    return engine.run(select).rounds
