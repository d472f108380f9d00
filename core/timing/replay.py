"""Time replay of a schedule: when every workload starts and finishes, in seconds (docs/time.md).

Two modes over the same rounds and the same per-workload transfer times (`transfer_times`):

- ``sync``: a barrier after every round, as in the round model. A round lasts as long as its
  slowest workload (an empty round lasts 0 s); every workload of round r starts when round
  r-1 ends.
- ``async``: no barrier. A workload starts once every prefix has arrived and, on each of its
  links, the transfer ``c`` places ahead of it in the schedule's order (round, then id) has
  finished (a link of capacity c has c lanes, used round-robin in that order). This is how a
  runtime would execute the schedule, and it is never slower than ``sync``: all the waits
  point at earlier rounds, so by induction a workload of round r finishes by the sync end of r.

Both are one pass over the rounds with vectorized numpy work inside each round: the async
replay is a longest path over (prefix + per-link order) edges, whose topological order is
the round order. SimPy is not used here: nothing in the replay is an event that could change
what happens next (the order is fixed by the schedule), and an event library would process
0.5 M workloads one by one where this pass handles a round at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Sequence

import numpy as np

from ..units import parse_size, DEFAULT_SIZE
from ..workloads import WorkloadDAG
from .model import algbw, busbw, n_ranks, piece_bytes, transfer_times

MODES = ("sync", "async")
DEFAULT_SIZE_BYTES = parse_size(DEFAULT_SIZE)
"""The default message size M in bytes (100 MB)."""


@dataclass(frozen=True, eq=False)
class Timing:
    """The replay of one schedule in one mode. Times are seconds from the start of the AllReduce.

    Attributes
    ----------
    mode : ``"sync"`` or ``"async"``.
    size : message size M in bytes.
    ranks : servers taking part (nccl-tests' n).
    duration, start, finish : per workload (seconds).
    round_end : per round, the time by which every workload of that round and the earlier ones
        has finished (sync: the barrier).
    link_busy : per directed link, seconds it is held: Σ durations of its workloads / capacity.
    link_bytes : per directed link, bytes it carries.
    """

    mode: str
    size: float
    ranks: int
    duration: np.ndarray
    start: np.ndarray
    finish: np.ndarray
    round_end: np.ndarray
    link_busy: np.ndarray
    link_bytes: np.ndarray

    @property
    def time(self) -> float:
        """Completion time of the AllReduce in seconds."""
        return float(self.finish.max()) if len(self.finish) else 0.0

    @property
    def algbw(self) -> float:
        """Algorithm bandwidth, bytes/s: M / time."""
        return algbw(self.size, self.time)

    @property
    def busbw(self) -> float:
        """Bus bandwidth, bytes/s: algbw · 2(n-1)/n."""
        return busbw(self.size, self.time, self.ranks)

    def utilization(self) -> np.ndarray:
        """Share of the completion time each directed link is held."""
        return self.link_busy / self.time if self.time > 0 else np.zeros_like(self.link_busy)

    def summary(self) -> dict[str, Any]:
        """Plain numbers: mode, size, time (s), algbw and busbw (bytes/s), busiest link's share."""
        util = self.utilization()
        return {"mode": self.mode, "size_bytes": float(self.size), "ranks": self.ranks, "time_s": self.time,
                "algbw_Bps": self.algbw, "busbw_Bps": self.busbw,
                "max_link_utilization": float(util.max()) if len(util) else 0.0}


class ReplayPlan:
    """The order structure of one (DAG, rounds) pair, built once; `run` times it for any size and links.

    The cluster simulator keeps one plan per placed job and calls `run` (or `time`) whenever
    the job's share of the links changes.
    """

    def __init__(self, dag: WorkloadDAG, rounds: Sequence[Sequence[int] | np.ndarray]):
        self.dag = dag
        n = dag.n
        lens = np.array([len(r) for r in rounds], dtype=np.int64)
        ids = np.concatenate([np.asarray(r, dtype=np.int64) for r in rounds]) if len(rounds) else np.zeros(0, np.int64)
        if len(ids) != n or (n and (ids.min() < 0 or ids.max() >= n or len(np.unique(ids)) != n)):
            raise ValueError(f"the rounds must send each of the DAG's {n} workloads exactly once "
                             f"(got {len(ids)} entries, {len(np.unique(ids))} distinct)")
        self.n_rounds = len(rounds)
        self.round_ptr = np.r_[0, np.cumsum(lens)]
        self.order = ids  # workloads, round by round
        self.round_of = np.empty(n, dtype=np.int64)
        self.round_of[ids] = np.repeat(np.arange(self.n_rounds), lens)

    @cached_property
    def _edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Async waits as (source, group start, group target, per-round group range), by round."""
        dag, rnd = self.dag, self.round_of
        # prefix waits
        pre_t = dag.prefix.rows_of_values()
        pre_s = dag.prefix.values
        # per-link order waits: the workload `capacity` places ahead on the same link
        w = dag.links.rows_of_values()
        lk = dag.links.values
        o = np.lexsort((w, rnd[w], lk))
        w, lk = w[o], lk[o]
        cap = dag.topology.link_capacity[lk]
        first = np.searchsorted(lk, lk, side="left")
        pos = np.arange(len(lk)) - cap
        ok = pos >= first
        link_s, link_t = w[pos[ok]], w[ok]
        src = np.r_[pre_s, link_s]
        tgt = np.r_[pre_t, link_t]
        same = rnd[src] >= rnd[tgt]
        if same.any():
            i = int(np.flatnonzero(same)[0])
            raise ValueError(f"not a valid schedule: workload {dag.describe(int(tgt[i]))} (round {rnd[tgt[i]]}) must "
                             f"wait for workload {int(src[i])} of round {rnd[src[i]]} (a prefix, or a link over its "
                             f"capacity); check it with the engine or `allreduce-lab validate`")
        place = np.empty(dag.n, dtype=np.int64)
        place[self.order] = np.arange(dag.n)
        o = np.argsort(place[tgt], kind="stable")
        src, tgt = src[o], tgt[o]
        gstart = np.flatnonzero(np.r_[True, tgt[1:] != tgt[:-1]]) if len(tgt) else np.zeros(0, np.int64)
        gtarget = tgt[gstart]
        # groups of each round: targets are sorted by place, so rounds are contiguous
        gbound = np.searchsorted(place[gtarget], self.round_ptr)
        return src, gstart, gtarget, gbound

    def durations(self, size: float, link_bandwidth: np.ndarray | None = None,
                  link_latency: np.ndarray | None = None) -> np.ndarray:
        """Seconds each workload takes (see `transfer_times`)."""
        return transfer_times(self.dag, size, link_bandwidth, link_latency)

    def run(self, size: float = DEFAULT_SIZE_BYTES, mode: str = "async", link_bandwidth: np.ndarray | None = None,
            link_latency: np.ndarray | None = None, durations: np.ndarray | None = None) -> Timing:
        """The full replay in `mode` for a message of `size` bytes (durations may be given precomputed)."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        dur = self.durations(size, link_bandwidth, link_latency) if durations is None else np.asarray(durations, float)
        start = self._sync(dur) if mode == "sync" else self._async(dur)
        finish = start + dur
        dag = self.dag
        ends = np.zeros(self.n_rounds)
        nonempty = self.round_ptr[:-1] < self.round_ptr[1:]
        if nonempty.any():
            ends[nonempty] = np.maximum.reduceat(finish[self.order], self.round_ptr[:-1][nonempty])
        rows = dag.links.rows_of_values()
        n_links = dag.topology.n_links
        busy = np.bincount(dag.links.values, weights=dur[rows], minlength=n_links) / dag.topology.link_capacity
        return Timing(mode=mode, size=float(size), ranks=n_ranks(dag), duration=dur, start=start, finish=finish,
                      round_end=np.maximum.accumulate(ends) if len(ends) else ends, link_busy=busy,
                      link_bytes=dag.link_load * piece_bytes(dag, size))

    def time(self, size: float = DEFAULT_SIZE_BYTES, mode: str = "async", link_bandwidth: np.ndarray | None = None,
             link_latency: np.ndarray | None = None) -> float:
        """Only the completion time in seconds (the cluster simulator's call)."""
        return self.run(size, mode, link_bandwidth, link_latency).time

    def _sync(self, dur: np.ndarray) -> np.ndarray:
        """Start times with a barrier after every round."""
        ptr = self.round_ptr
        length = np.zeros(self.n_rounds)
        nonempty = ptr[:-1] < ptr[1:]
        if nonempty.any():
            length[nonempty] = np.maximum.reduceat(dur[self.order], ptr[:-1][nonempty])
        begin = np.r_[0.0, np.cumsum(length)[:-1]]
        return begin[self.round_of]

    def _async(self, dur: np.ndarray) -> np.ndarray:
        """Start times without barriers: the longest path over prefix and link-order waits."""
        src, gstart, gtarget, gbound = self._edges
        start = np.zeros(self.dag.n)
        finish = dur.copy()  # right for workloads that wait for nothing; others are set round by round
        order, ptr = self.order, self.round_ptr
        bounds = gbound.tolist()
        edge_end = np.r_[gstart, len(src)]
        for r in range(self.n_rounds):
            g0, g1 = bounds[r], bounds[r + 1]
            if g1 > g0:
                e0, e1 = int(edge_end[g0]), int(edge_end[g1])
                tg = gtarget[g0:g1]
                start[tg] = np.maximum.reduceat(finish[src[e0:e1]], gstart[g0:g1] - e0)
                ws = order[ptr[r]:ptr[r + 1]]
                finish[ws] = start[ws] + dur[ws]
        return start


def _dag_and_rounds(schedule: Any, rounds: Sequence | None) -> tuple[WorkloadDAG, Sequence]:
    if isinstance(schedule, WorkloadDAG):
        if rounds is None:
            raise ValueError("replay of a bare DAG needs its rounds")
        return schedule, rounds
    return schedule.dag, schedule.rounds if rounds is None else rounds


def replay(schedule: Any, rounds: Sequence | None = None, *, size: float = DEFAULT_SIZE_BYTES, mode: str = "async",
           link_bandwidth: np.ndarray | None = None, link_latency: np.ndarray | None = None) -> Timing:
    """Replay a schedule (anything with ``.dag`` and ``.rounds``, or a DAG and its rounds) in seconds."""
    dag, rounds = _dag_and_rounds(schedule, rounds)
    return ReplayPlan(dag, rounds).run(size, mode, link_bandwidth, link_latency)


def replay_modes(schedule: Any, rounds: Sequence | None = None, *, size: float = DEFAULT_SIZE_BYTES,
                 link_bandwidth: np.ndarray | None = None, link_latency: np.ndarray | None = None
                 ) -> dict[str, Timing]:
    """Both modes, ``{"sync": Timing, "async": Timing}``, sharing one plan and one set of transfer times."""
    dag, rounds = _dag_and_rounds(schedule, rounds)
    plan = ReplayPlan(dag, rounds)
    dur = plan.durations(size, link_bandwidth, link_latency)
    return {m: plan.run(size, m, durations=dur) for m in MODES}
