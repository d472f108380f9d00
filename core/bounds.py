"""Lower bounds on the number of rounds (MODEL.md §6), and one stronger bound of our own.

- link load: max over directed links of ceil(load / capacity);
- critical path: the longest prefix chain;
- ports (routing-free): a non-root server sends at least k(S-1) reduce pieces, so
  rounds >= ceil(k(S-1) / its outgoing capacity);
- link schedule (ours, valid for the DAG): for each link, the optimal one-link schedule of its
  workloads with release rounds = head and delivery tails = tail - 1 (Jackson's rule,
  largest tail first, is exact for unit-time jobs on parallel identical machines).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from .workloads import WorkloadDAG


@dataclass(frozen=True)
class Bounds:
    """The lower bounds of one DAG; `best` is their maximum."""

    link_load: int
    critical_path: int
    ports: int
    link_schedule: int

    @property
    def best(self) -> int:
        """The largest (tightest) bound."""
        return max(self.link_load, self.critical_path, self.ports, self.link_schedule)

    @property
    def dag(self) -> int:
        """The bound MODEL.md §6 defines for a DAG: max(link load, critical path)."""
        return max(self.link_load, self.critical_path)

    def as_dict(self) -> dict:
        """All bounds and the best, as plain ints."""
        return {"link_load": self.link_load, "critical_path": self.critical_path, "ports": self.ports,
                "link_schedule": self.link_schedule, "best": self.best}


def ports_bound(dag: WorkloadDAG) -> int:
    """ceil(k(S-1) / outgoing capacity) over servers: independent of routing."""
    t = dag.topology
    out = t.out_capacity()[t.servers]
    need = dag.chunks * (t.n_servers - 1)
    return int(np.max(-(-need // out)))


def link_schedule_bound(dag: WorkloadDAG) -> int:
    """max over links of the exact one-link relaxation (release = head, tail = tail - 1)."""
    cap = dag.topology.link_capacity
    rows = dag.links.rows_of_values()
    order = np.argsort(dag.links.values, kind="stable")
    lk = dag.links.values[order]
    w = rows[order]
    starts = np.r_[0, np.flatnonzero(np.diff(lk)) + 1]
    ends = np.r_[starts[1:], len(lk)]
    head, tail = dag.head, dag.tail - 1
    # only links whose simple bound (min head + load + min tail) could matter are worth the heap
    loads = ends - starts
    best = 0
    for g in np.argsort(-loads).tolist():
        ws = w[starts[g]:ends[g]]
        c = int(cap[lk[starts[g]]])
        simple = int(head[ws].min() + -(-len(ws) // c) + tail[ws].min())
        upper = int(head[ws].max() + -(-len(ws) // c) + tail[ws].max())
        if upper <= best:
            continue
        best = max(best, simple, _jackson(head[ws], tail[ws], c))
    return best


def _jackson(release: np.ndarray, tails: np.ndarray, cap: int) -> int:
    """min over schedules of max(round_end + tail) for unit jobs on `cap` machines (largest tail first)."""
    order = np.argsort(release, kind="stable")
    rel, tl = release[order].tolist(), tails[order].tolist()
    heap: list[int] = []
    i, t, n, best = 0, 0, len(rel), 0
    while i < n or heap:
        if not heap and rel[i] > t:
            t = rel[i]
        while i < n and rel[i] <= t:
            heapq.heappush(heap, -tl[i])
            i += 1
        for _ in range(min(cap, len(heap))):
            best = max(best, t + 1 - heapq.heappop(heap))
        t += 1
    return best


def lower_bounds(dag: WorkloadDAG) -> Bounds:
    """All lower bounds of a DAG."""
    cap = dag.topology.link_capacity
    load = int(np.max(-(-dag.link_load // cap))) if dag.n else 0
    return Bounds(link_load=load, critical_path=int(dag.tail.max()) if dag.n else 0,
                  ports=ports_bound(dag), link_schedule=link_schedule_bound(dag))


def gap(value: float, bound: float) -> float:
    """How far `value` is above its lower `bound`: value / bound - 1 (0 when the bound is 0)."""
    return float(value) / float(bound) - 1.0 if bound else 0.0
