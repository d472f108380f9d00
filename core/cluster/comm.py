"""A job's AllReduce on its placement: hierarchical, timed with core.timing under link shares.

Iteration time = compute + intra-server reduce-scatter + AllReduce among the job's servers over
the network + intra-server all-gather (docs/cluster.md, "A job's iteration"):

- within a server of g GPUs (NVSwitch: every GPU has its own full-rate port, so jobs on one
  server never contend), a ring reduce-scatter and all-gather of M bytes take
  (g-1)/g · M / B_nvlink + (g-1) · α each (Thakur, Rabenseifner and Gropp, IJHPCA 2005);
  the slowest of the job's servers sets the pace;
- among the job's servers, a registered method (`core.methods.run_method`) schedules the
  AllReduce of M on ``topology.with_servers(job servers)``: servers outside the job forward like
  switches; `core.timing.ReplayPlan` times it (async replay) with every directed link's
  bandwidth divided by 1 + the duty cycles of the other running jobs whose AllReduce uses that
  link (their expected number communicating at once; `sim.State.share`).

Plans are cached per (servers, method): placements of the same servers recur. Times are cached
per (plan, size, share of each of the plan's links, rounded to 1/8 of a job): re-timing after a
job starts or ends is a dictionary look-up unless that exact sharing pattern is new.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..methods import run_method
from ..schedule import Schedule, ScheduleConfig
from ..timing import ReplayPlan
from .cluster import Cluster

VARIANTS: dict[str, tuple[str, dict]] = {
    "ring": ("ring", {}),
    "critical-path": ("critical-path", {}),
    "critical-path-x2": ("critical-path", {"chunks": 2, "routing": "balanced"}),
    "critical-path-x4": ("critical-path", {"chunks": 4, "routing": "balanced"}),
}
"""A job's network AllReduce by name: a registered method and its `ScheduleConfig` options. The
-xK ones split every shard into K pieces, each its own tree, routed over balanced shortest
routes: between servers that reach each other through several ports (BCube's NICs) the pieces
take different ports, which one tree or a ring cannot."""
BEST_CANDIDATES = tuple(VARIANTS)
"""Methods "best" and "adaptive" choose from: by replayed time on the job's servers with the
links to itself (`CommModel.best_method`), in the timed placement by the cost under current
sharing, and ("adaptive") again whenever the sharing of the job's links changes."""
ADAPTIVE_CANDIDATES = ("ring", "critical-path-x4")
"""Methods "adaptive" weighs (`CommModel.useful_methods`): the tree variants cross the same links
on a placement, and the 4-piece one is the fastest alone wherever a tree beats the ring (within
1%: benchmarks/bench_cluster.py, part 4), so the other two would only cost plan builds."""
METHOD_CHOICES = (*VARIANTS, "best", "adaptive")


@dataclass(eq=False)
class NetPlan:
    """One placement's network AllReduce: its schedule, replay plan and the directed links it uses."""

    servers: tuple[int, ...]
    method: str
    schedule: Schedule
    plan: ReplayPlan
    links: np.ndarray
    key: int


class CommModel:
    """Caches and times the AllReduces of jobs placed on a cluster."""

    def __init__(self, cluster: Cluster):
        self.cluster = cluster
        self._plans: dict[tuple[tuple[int, ...], str], NetPlan] = {}
        self._best: dict[tuple[tuple[int, ...], float], str] = {}
        self._useful: dict[tuple[tuple[int, ...], float], tuple[str, ...]] = {}
        self._times: dict[tuple[int, float, bytes], float] = {}
        self.replays = 0
        self.plan_builds = 0

    def net_plan(self, servers: tuple[int, ...], method: str, size: float | None = None) -> NetPlan:
        """The network AllReduce of a job on these server indices (2 or more) with `method`."""
        if method in ("best", "adaptive"):
            if size is None:
                raise ValueError("method 'best' needs the message size to choose")
            method = self.best_method(servers, size)
        key = (servers, method)
        hit = self._plans.get(key)
        if hit is None:
            c = self.cluster
            job_topology = c.topology.with_servers(c.nodes[list(servers)])
            name, options = VARIANTS[method]
            sched = run_method(name, job_topology, ScheduleConfig(**options))
            hit = NetPlan(servers, method, sched, ReplayPlan(sched.dag, sched.rounds),
                          np.unique(sched.dag.links.values), len(self._plans))
            self._plans[key] = hit
            self.plan_builds += 1
        return hit

    def best_method(self, servers: tuple[int, ...], size: float) -> str:
        """The candidate method with the shortest AllReduce of `size` bytes on these servers, alone."""
        key = (servers, float(size))
        if key not in self._best:
            times = [self.net_time(self.net_plan(servers, m), size) for m in BEST_CANDIDATES]
            self._best[key] = BEST_CANDIDATES[int(np.argmin(times))]
        return self._best[key]

    def useful_methods(self, servers: tuple[int, ...], size: float) -> tuple[str, ...]:
        """The ring and the candidate methods faster than it on these servers alone for `size`
        bytes: the ones "adaptive" and the timed placement weigh (a tree no faster than the
        ring on an idle network only adds links). Where every two of the servers reach each
        other through one port only (`Cluster.ports`; on BCube: servers under one switch), no
        tree is built: it could not use more ports than the ring."""
        key = (servers, float(size))
        if key not in self._useful and self.cluster.ports[np.ix_(servers, servers)].max() <= 1:
            self._useful[key] = ("ring",)
        if key not in self._useful:
            ring = self.net_time(self.net_plan(servers, "ring"), size)
            self._useful[key] = ("ring",) + tuple(
                m for m in ADAPTIVE_CANDIDATES if m != "ring" and self.net_time(self.net_plan(servers, m), size) < ring * (1 - 1e-6))
        return self._useful[key]

    def net_time(self, plan: NetPlan, size: float, share: np.ndarray | None = None) -> float:
        """Seconds of the network AllReduce when the bandwidth of link `plan.links[i]` is divided by
        `share[i]` (default 1: alone; the simulator passes 1 + the other jobs' rounded load)."""
        share = np.ones(len(plan.links)) if share is None else np.asarray(share, np.float64)
        key = (plan.key, float(size), share.tobytes())
        hit = self._times.get(key)
        if hit is None:
            bw = self.cluster.topology.link_bandwidth.copy()
            bw[plan.links] = bw[plan.links] / np.maximum(share, 1.0)
            hit = plan.plan.time(size, "async", link_bandwidth=bw)
            self._times[key] = hit
            self.replays += 1
        return hit

    def intra_time(self, alloc: np.ndarray, size: float) -> float:
        """Seconds of the intra-server reduce-scatter plus all-gather (slowest server of the job)."""
        g = int(alloc.max()) if len(alloc) else 0
        if g <= 1:
            return 0.0
        c = self.cluster
        step = (size / g) / (c.nvlink_gbps * 1e9 / 8) + c.nvlink_latency_us * 1e-6
        return 2.0 * (g - 1) * step
