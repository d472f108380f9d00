"""The time-aware scheduler: list scheduling in continuous time on the real transfer times.

Every workload takes its α-β transfer time on its own links (`core.timing.transfer_times`: a
workload crossing a 25 Gbit/s link takes four times as long as one on 100 Gbit/s). Its priority
is HEFT's upward rank (Topcuoglu, Hariri and Wu, IEEE TPDS 13(3), 2002): its own time plus the
longest chain of successors after it, in seconds. Then an event loop: at time 0 and whenever
a transfer ends, the ready workloads are walked by priority and each one whose links all have
a free lane starts now (`Engine.fill`, the round model's greedy fill, with the lanes still
busy as the load). Lanes follow the replay's rule: a link of capacity c has c lanes used
round-robin in grant order, so a grant waits for the transfer c places ahead of it.

The rounds returned to the registry keep that order: round(w) = 1 + max(round of its prefixes,
round of the previous grant on each of its links), grants at one instant taken by id. So each
round puts at most one workload on a link, every prefix and every link predecessor sits in an
earlier round, and the asynchronous replay of the rounds (`core.timing`, which keeps the
schedule's order on every link) starts every workload exactly when this loop did: it
reproduces the continuous-time finish, which `Plan.info["planned_time_s"]` records. The
synchronous replay of these rounds is much slower (many thin rounds): the method is meant to be
executed without barriers.

The loop runs on several candidate DAGs (`candidate_dags`: the merged trees under every routing mode
and, on a full AllReduce, ring DAGs one way and both ways, on Ring's ring and on one chosen for the
link bandwidths) and the fastest schedule is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, partial
from typing import Callable

import numpy as np

from ..engine import Rounds
from ..greedy import fill_mask
from ..jit import kernel
from ..ring import fast_ring_order, ring_order
from ..routing import ROUTING_MODES, compute_routes
from ..schedule import Plan, ScheduleConfig
from ..timing import longest_chain, transfer_times
from ..workloads import WorkloadDAG, build_dag, ring_dag


@dataclass(frozen=True)
class ContinuousSchedule:
    """A schedule in continuous time: per workload its start and finish (seconds), and the rounds that
    keep its order (see the module docstring)."""

    start: np.ndarray
    finish: np.ndarray
    rounds: Rounds

    @property
    def time(self) -> float:
        """Completion time in seconds."""
        return float(self.finish.max()) if len(self.finish) else 0.0


def upward_rank(dag: WorkloadDAG, durations: np.ndarray) -> np.ndarray:
    """Seconds from each workload's start to the end of the longest successor chain after it (HEFT)."""
    return longest_chain(dag, durations, forward=True)


def continuous_schedule(dag: WorkloadDAG, size: float, link_bandwidth: np.ndarray | None = None,
                        link_latency: np.ndarray | None = None, rank: np.ndarray | None = None) -> ContinuousSchedule:
    """List-schedule `dag` in continuous time for a message of `size` bytes (per-link overrides as in
    `transfer_times`); `rank`: lower first (default: longest upward rank, then more successors, then id)."""
    dur = transfer_times(dag, size, link_bandwidth, link_latency)
    if rank is None:
        rank = upward_priority(dag, dur)
    return list_in_time(dag, dur, rank)


def upward_priority(dag: WorkloadDAG, durations: np.ndarray) -> np.ndarray:
    """Rank (lower first): longest upward rank in seconds, then more successors, then lower id."""
    n = dag.n
    return np.lexsort((np.arange(n), -dag.successor_count, -upward_rank(dag, durations))).argsort()


def list_in_time(dag: WorkloadDAG, durations: np.ndarray, rank: np.ndarray, *, window: float = 0.0,
                 backward: bool = False) -> ContinuousSchedule:
    """The event loop: start ready workloads by ascending `rank` (ties by id) whenever their links have a
    free lane. A decision at time t also sees the transfers that end by t + `window` (seconds), so a
    workload ready a moment later can win a link over a lower-priority one; every workload still
    starts at the earliest time its prefixes and lane allow. With `backward`, schedule the reversed
    DAG (successors first)."""
    dag = dag.explicit()  # prefix groups expanded: the event loop walks explicit prefix lists
    n = dag.n
    dur = np.asarray(durations, dtype=np.float64)
    order = np.lexsort((np.arange(n), np.asarray(rank))).astype(np.int64)
    before, after = (dag.successors, dag.prefix) if backward else (dag.prefix, dag.successors)
    links = dag.links
    cap = dag.topology.link_capacity.astype(np.int64)
    start, finish, rnd, stalled = _event_loop(order, before.ptr, before.values, after.ptr, after.values,
                                              links.ptr, links.values, cap, dur, float(window))
    if stalled:
        raise RuntimeError("time-aware scheduler stalled: nothing running and nothing could start")
    n_rounds = int(rnd.max()) + 1 if n else 0
    by_round = np.argsort(rnd, kind="stable")
    bounds = np.searchsorted(rnd[by_round], np.arange(n_rounds + 1))
    rounds = [by_round[bounds[r]:bounds[r + 1]] for r in range(n_rounds)]
    return ContinuousSchedule(start=start, finish=finish, rounds=rounds)


@kernel
def _event_loop(order, bptr, bval, aptr, aval, lptr, lval, cap, dur, window):  # pragma: no cover - compiled
    """`list_in_time`'s loop, compiled: (start, finish, round of every workload, stalled?)."""
    n = len(order)
    n_links = len(cap)
    width = 1
    for lk in range(n_links):
        width = max(width, cap[lk])
    place = np.empty(n, np.int64)
    for k in range(n):
        place[order[k]] = k
    lane_free = np.full((n_links, width), -np.inf)  # finish of the last grant on each lane
    granted = np.zeros(n_links, np.int64)  # grants so far per link (the next lane is granted % cap)
    last_round = np.full(n_links, -1, np.int64)
    waiting = np.empty(n, np.int64)
    ready = np.zeros(n, np.bool_)  # by place
    for w in range(n):
        waiting[w] = bptr[w + 1] - bptr[w]
        if waiting[w] == 0:
            ready[place[w]] = True
    start = np.full(n, np.nan)
    finish = np.full(n, np.nan)
    rnd = np.full(n, -1, np.int64)
    heap_f = np.empty(n, np.float64)  # running transfers: a min-heap on finish time
    heap_w = np.empty(n, np.int64)
    n_run = 0
    used = np.empty(n_links, np.int64)
    cand = np.empty(n, np.int64)
    t = 0.0
    done = 0
    while done < n:
        # lanes free by t: on each link, the run of free lanes from the next one in round-robin order
        for lk in range(n_links):
            room = 0
            for j in range(cap[lk]):
                if lane_free[lk, (granted[lk] + j) % cap[lk]] <= t:
                    room += 1
                else:
                    break
            used[lk] = cap[lk] - room
        n_cand = 0
        for k in range(n):
            if ready[k]:
                cand[n_cand] = order[k]
                n_cand += 1
        go = np.sort(cand[:n_cand][fill_mask(cand[:n_cand], lptr, lval, cap, used)])
        for w in go:  # by id: grants of one decision are ordered by id, as the replay orders a round
            s0 = 0.0
            r = -1
            for e in range(bptr[w], bptr[w + 1]):
                s0 = max(s0, finish[bval[e]])
                r = max(r, rnd[bval[e]])
            for e in range(lptr[w], lptr[w + 1]):
                lk = lval[e]
                s0 = max(s0, lane_free[lk, granted[lk] % cap[lk]])
                r = max(r, last_round[lk])
            f = s0 + dur[w]
            start[w] = s0
            finish[w] = f
            for e in range(lptr[w], lptr[w + 1]):
                lk = lval[e]
                lane_free[lk, granted[lk] % cap[lk]] = f
                granted[lk] += 1
                last_round[lk] = r + 1
            rnd[w] = r + 1
            ready[place[w]] = False
            i = n_run  # push (f, w)
            n_run += 1
            while i > 0 and heap_f[(i - 1) >> 1] > f:
                heap_f[i] = heap_f[(i - 1) >> 1]
                heap_w[i] = heap_w[(i - 1) >> 1]
                i = (i - 1) >> 1
            heap_f[i] = f
            heap_w[i] = w
        if n_run == 0:
            return start, finish, rnd, True
        t = heap_f[0] + window
        while n_run > 0 and heap_f[0] <= t:
            x = heap_w[0]
            n_run -= 1  # pop the earliest
            lf, lw = heap_f[n_run], heap_w[n_run]
            i = 0
            while True:
                c = 2 * i + 1
                if c >= n_run:
                    break
                if c + 1 < n_run and heap_f[c + 1] < heap_f[c]:
                    c += 1
                if heap_f[c] >= lf:
                    break
                heap_f[i] = heap_f[c]
                heap_w[i] = heap_w[c]
                i = c
            if n_run > 0:
                heap_f[i] = lf
                heap_w[i] = lw
            done += 1
            for e in range(aptr[x], aptr[x + 1]):
                y = aval[e]
                waiting[y] -= 1
                if waiting[y] == 0:
                    ready[place[y]] = True
    return start, finish, rnd, False


WINDOWS = (0.0, 0.05, 0.25, 0.5, 1.0)
"""Decision windows tried, as shares of the median transfer time (0: start whatever fits at once)."""

RINGS = {"ring": dict(both_ways=False, fastest=False), "ring both ways": dict(both_ways=True, fastest=False),
         "fast ring": dict(both_ways=False, fastest=True), "fast ring both ways": dict(both_ways=True, fastest=True)}
"""Ring DAGs tried beside the merged trees on a full AllReduce: Ring's own ring, the same ring with every
other piece sent the other way round (a bidirectional ring, twice the chunks), and both again on a ring
chosen for the link bandwidths (`core.ring.fast_ring_order`, hops over `widest_switch_route`)."""

RING_WINDOWS = WINDOWS[:3]
"""Decision windows tried on the ring DAGs (chains of sends): dropping the two widest changed no chosen time
on the Table 2 configurations and the heterogeneous variants, and saves their cost (docs/time.md section 10)."""


def candidate_dags(dag: WorkloadDAG) -> dict[str, Callable[[], WorkloadDAG]]:
    """The DAGs the time-aware method schedules, by name, each built on demand: `dag` itself, the same
    merged trees (or the re-planned rest of them) under every routing mode, and on a full merged-tree
    AllReduce also the `RINGS`."""
    if dag.meta.get("residual") and "rebuild" in dag.meta:  # re-planning: the rest under each routing mode
        other = dag.meta["rebuild"]
    elif dag.kind == "tree":
        other = partial(build_dag, dag.topology, "tree", merge=dag.merge, chunks=dag.chunks)
    else:
        other = None
    own = dag.meta.get("routing", "given")
    out: dict[str, Callable[[], WorkloadDAG]] = {own: lambda: dag}
    if other is not None:
        out.update({mode: partial(other, routing=mode) for mode in ROUTING_MODES if mode != own})
    if dag.kind == "tree" and not dag.meta.get("residual"):
        t = dag.topology
        routes = cache(partial(compute_routes, t, "shortest"))  # Ring's routes (relays, if any)
        orders = {fastest: cache(lambda fastest=fastest: (fast_ring_order if fastest else ring_order)(t, routes()))
                  for fastest in (False, True)}

        def ring(both_ways: bool, fastest: bool) -> WorkloadDAG:
            order, adjacent = orders[fastest]()
            d = ring_dag(t, chunks=dag.chunks * (2 if both_ways else 1), routes=routes(), order=order,
                         both_ways=both_ways, fastest=fastest)
            d.meta["ring_adjacent"] = adjacent
            return d

        out.update({name: partial(ring, **opts) for name, opts in RINGS.items()})
    return out


def time_aware(dag: WorkloadDAG, config: ScheduleConfig, progress=None) -> Plan:
    """The time-aware method: continuous-time list scheduling by upward rank in seconds of every candidate DAG
    (`candidate_dags`) under every decision window; the fastest schedule, as rounds."""
    dags = candidate_dags(dag)
    best: tuple[float, str, float, ContinuousSchedule, WorkloadDAG] | None = None
    tried: dict[str, float] = {}
    total, k = sum(len(RING_WINDOWS if name in RINGS else WINDOWS) for name in dags), 0
    for name, make in dags.items():
        d = make()
        dur = transfer_times(d, config.size)
        rank = upward_priority(d, dur)
        typical = float(np.median(dur)) if len(dur) else 0.0
        for share in RING_WINDOWS if d.kind == "ring" else WINDOWS:
            cs = list_in_time(d, dur, rank, window=share * typical)
            tried[f"{name}/{share:g}"] = cs.time
            if best is None or cs.time < best[0]:
                best = (cs.time, name, share, cs, d)
            k += 1
            if progress:
                progress(k / total)
    assert best is not None
    time_s, name, share, cs, chosen = best
    info = {"planned_time_s": time_s, "planned_size_bytes": int(config.size), "dag": name,
            "routing": chosen.meta.get("routing", "given"), "window": share,
            "priority": "upward rank in seconds (HEFT)", "tried_s": tried}
    if chosen.kind == "ring":
        info.update(ring=chosen.meta["ring"], ring_adjacent=chosen.meta["ring_adjacent"])
    return Plan(cs.rounds, info=info, dag=None if chosen is dag else chosen)
