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

The sync replay is vectorized over rounds; the async replay is a longest path over (prefix +
per-link order) edges, whose topological order is the schedule's order, computed in one
compiled pass over the workloads (docs/scale.md: 33.5 M workloads in seconds, no edge list).
SimPy is not used here: nothing in the replay is an event that could change what happens
next (the order is fixed by the schedule).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .. import csr
from ..jit import SMALL, kernel, prefetch
from ..units import parse_size, DEFAULT_SIZE
from ..workloads import FIRST_BROADCAST, NEXT, WorkloadDAG
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
        # ids as int32 (the DAG's id dtype) where they fit, filled round by round: no int64 copy of every round
        ids = np.empty(int(lens.sum()), dtype=csr.ID if n < 2 ** 31 else np.int64)
        ok, at = len(ids) == n, 0
        for r in rounds:
            r = np.asarray(r)
            if r.dtype.kind not in "iu":
                r = r.astype(np.int64)
            if len(r) and (r.min() < 0 or r.max() >= n):
                ok = False
            # the engine's rounds come ascending: checked, not sorted again (3 s of sorts at BCube(16,2))
            ids[at:at + len(r)] = (r if len(r) < 2 or bool((r[1:] > r[:-1]).all()) else np.sort(r)) if ok else 0
            at += len(r)
        round_ptr = np.r_[0, np.cumsum(lens)]
        round_of = np.empty(n, dtype=ids.dtype)
        if ok and n:  # n ids, all in range: each once unless one comes twice (no count of every id, docs/scale.md)
            ok = bool(_rounds_of(ids, round_ptr, round_of))
        if not ok:
            every = np.concatenate([np.asarray(r, dtype=np.int64) for r in rounds]) if len(rounds) \
                else np.zeros(0, np.int64)
            inside = every[(every >= 0) & (every < n)]
            raise ValueError(f"the rounds must send each of the DAG's {n} workloads exactly once "
                             f"(got {len(every)} entries, {len(np.unique(inside))} distinct)")
        self.n_rounds = len(rounds)
        self.round_ptr = round_ptr
        self.order = ids  # workloads, round by round, by id within a round
        self.round_of = round_of

    def durations(self, size: float, link_bandwidth: np.ndarray | None = None,
                  link_latency: np.ndarray | None = None) -> np.ndarray:
        """Seconds each workload takes (see `transfer_times`)."""
        return transfer_times(self.dag, size, link_bandwidth, link_latency)

    def run(self, size: float = DEFAULT_SIZE_BYTES, mode: str = "async", link_bandwidth: np.ndarray | None = None,
            link_latency: np.ndarray | None = None, durations: np.ndarray | None = None,
            busy: np.ndarray | None = None) -> Timing:
        """The full replay in `mode` for a message of `size` bytes (durations, and `link_busy` of them, may be given
        precomputed)."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        dur = self.durations(size, link_bandwidth, link_latency) if durations is None else np.asarray(durations, float)
        start, finish = self._sync(dur) if mode == "sync" else self._async(dur)
        dag = self.dag
        ends = _round_max(self.order, self.round_ptr, finish)
        busy = self.link_busy(dur) if busy is None else busy
        return Timing(mode=mode, size=float(size), ranks=n_ranks(dag), duration=dur, start=start, finish=finish,
                      round_end=np.maximum.accumulate(ends) if len(ends) else ends, link_busy=busy,
                      link_bytes=dag.link_load * piece_bytes(dag, size))

    def summary(self, size: float = DEFAULT_SIZE_BYTES, mode: str = "async", durations: np.ndarray | None = None,
                busy: np.ndarray | None = None, latest: float | None = None) -> dict[str, Any]:
        """``run(size, mode, durations=durations, busy=busy).summary()``, the same numbers, without any per-workload
        array but the async pass's finishes (`latest`; given, it is the mode's `latest` already computed)."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        dag = self.dag
        dur = self.durations(size) if durations is None else np.asarray(durations, float)
        latest = self.latest(mode, dur) if latest is None else latest
        busy = self.link_busy(dur) if busy is None else busy
        util = busy / latest if latest > 0 else np.zeros_like(busy)
        ranks = n_ranks(dag)
        return {"mode": mode, "size_bytes": float(size), "ranks": ranks, "time_s": latest,
                "algbw_Bps": algbw(size, latest), "busbw_Bps": busbw(size, latest, ranks),
                "max_link_utilization": float(util.max()) if len(util) else 0.0}

    def latest(self, mode: str, dur: np.ndarray) -> float:
        """The completion time in `mode` with durations `dur` (``run(...).time``, bit for bit): sync's is the last
        round's end, its start plus its slowest workload (rounding is monotonic, so that sum is the largest of the
        round's sums; an empty round adds 0 s), async's the pass's latest finish, with no start kept (docs/scale.md,
        fourteenth step)."""
        if mode == "sync":
            # the barriers' running sum, as `_sync` adds it: its last value is the last round's end
            return float(np.cumsum(_round_max(self.order, self.round_ptr, dur))[-1]) if self.n_rounds else 0.0
        return float(self._async_latest(dur, np.empty(0))) if self.dag.n else 0.0

    def link_busy(self, dur: np.ndarray) -> np.ndarray:
        """Seconds each directed link is held: the durations of the workloads crossing it over its capacity."""
        dag = self.dag
        return _link_seconds(dag.links.ptr, dag.links.values, dur, dag.topology.n_links) / dag.topology.link_capacity

    def time(self, size: float = DEFAULT_SIZE_BYTES, mode: str = "async", link_bandwidth: np.ndarray | None = None,
             link_latency: np.ndarray | None = None) -> float:
        """Only the completion time in seconds (the cluster simulator's call)."""
        return self.run(size, mode, link_bandwidth, link_latency).time

    def _sync(self, dur: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Start and finish times with a barrier after every round."""
        length = _round_max(self.order, self.round_ptr, dur)
        begin = np.r_[0.0, np.cumsum(length)[:-1]]
        start = begin[self.round_of]
        return start, start + dur

    def _async(self, dur: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Start and finish times without barriers: the longest path over prefix and link-order waits."""
        start, finish = np.empty(self.dag.n), np.empty(self.dag.n)  # numpy's: huge pages for 94 M rows
        self._async_latest(dur, start, finish)
        return start, finish

    def _async_latest(self, dur: np.ndarray, start: np.ndarray, finish: np.ndarray | None = None) -> float:
        """The async pass: writes the starts into `start` (unless it is empty) and the finishes into `finish` (a
        scratch array when None); returns the latest finish. Raises ValueError where the schedule's order breaks
        a wait."""
        dag = self.dag
        finish = np.empty(dag.n) if finish is None else finish
        lk = dag.links  # no successors: a group's finish is read from its members (docs/scale.md)
        cap = dag.topology.link_capacity.astype(np.int64)
        lane0 = np.r_[0, np.cumsum(cap)].astype(np.int64)
        g = dag.groups
        g_round = np.full(g.n_rows, -1, np.int64)  # the last round of each prefix group's members
        full = g.lengths > 0
        if full.any():
            g_round[full] = np.maximum.reduceat(self.round_of[g.values], g.ptr[:-1][full])
        c = dag.chains
        if c is not None:  # the plain PS DAG of one chunk: prefixes from its marks
            latest, bad, other = _async_chains(self.order, self.round_ptr, dur, c.marks, dag.tree, g.ptr, g.values,
                                               lk.ptr, lk.values, lane0, g_round, start, finish)
        else:
            d = dag.deps
            latest, bad, other = _async_pass(self.order, self.round_of, dur, d.ptr, d.values, lk.ptr, lk.values,
                                             lane0, g_round, dag.n, start, finish)
        if bad >= 0:
            what = f"workload {int(other)}" if other >= 0 else "a workload on its link"
            raise ValueError(f"not a valid schedule: workload {dag.describe(int(bad))} (round {self.round_of[bad] + 1}) "
                             f"must wait for {what} of the same or a later round (a prefix, or a link over its "
                             f"capacity); check it with the engine or `allreduce-lab validate`")
        return latest


@kernel(nogil=True)
def _async_pass(order, round_of, dur, dptr, dval, lptr, lval, lane0, g_round, n, start, finish):  # pragma: no cover
    """One pass over the workloads in schedule order (round, then id).

    A workload starts when its prefixes (a group: all its members) have finished and, on each
    link of capacity c, the workload c places ahead of it on that link has finished (lanes used
    round-robin). Every wait of a valid schedule points at an earlier round, so one pass in
    order sees each finish before it is needed: a group's finish, the latest of its members',
    is taken from its row of `dptr`/`dval` when its first waiter comes (every member was sent in
    an earlier round, so has its finish), without the successors. Writes each workload's finish
    into `finish` and its start into `start` unless `start` is empty (the report wants only the
    latest finish); both (n,) arrays are the caller's (numpy's allocations get huge pages). Returns
    (latest finish, offending workload or -1, what it waited for or -1).
    """
    n_groups = len(dptr) - 1 - n
    keep = len(start) > 0
    latest = 0.0
    g_finish = np.full(n_groups, -1.0)  # -1: not taken yet (a finish is >= 0)
    lane_finish = np.zeros(lane0[-1], np.float64)
    lane_round = np.full(lane0[-1], -1, np.int64)
    used = np.zeros(len(lane0) - 1, np.int64)
    m = len(order)
    for i in range(m):
        # a round's workloads lie far apart (ids ascending over the whole DAG): ask for the rows of the workload
        # 16 ahead, then for its first prefix and link 8 ahead (docs/scale.md, thirteenth step)
        if i + 16 < m:
            x = order[i + 16]
            prefetch(round_of, x)
            prefetch(dptr, x)
            prefetch(lptr, x)
            prefetch(dur, x)
            prefetch(finish, x)
            if keep:
                prefetch(start, x)
        if i + 8 < m:
            x = order[i + 8]
            if dptr[x] < len(dval):
                prefetch(dval, dptr[x])
            if lptr[x] < len(lval):
                prefetch(lval, lptr[x])
        w = order[i]
        r = round_of[w]
        t = 0.0
        for e in range(dptr[w], dptr[w + 1]):
            p = dval[e]
            if p < n:
                if round_of[p] >= r:
                    return latest, w, p
                if finish[p] > t:
                    t = finish[p]
            else:
                g = p - n
                if g_round[g] >= r:
                    return latest, w, -1
                if g_finish[g] < 0.0:
                    g_latest = 0.0
                    for k in range(dptr[p], dptr[p + 1]):  # not `m`, the prefetch's bound (len(order))
                        x = dval[k]
                        if x < n and finish[x] > g_latest:
                            g_latest = finish[x]
                    g_finish[g] = g_latest
                if g_finish[g] > t:
                    t = g_finish[g]
        t = _lanes_free(lptr, lval, lane0, used, lane_round, lane_finish, w, r, t)
        if t < 0.0:
            return latest, w, -1
        if keep:
            start[w] = t
        f = t + dur[w]
        finish[w] = f
        if f > latest:
            latest = f
        _lanes_take(lptr, lval, lane0, used, lane_round, lane_finish, w, r, f)
    return latest, -1, -1


@kernel(inner=True)
def _lanes_free(lptr, lval, lane0, used, lane_round, lane_finish, w, r, t):  # pragma: no cover - compiled
    """When workload w (round r) may start on its links, at least `t`: on each link of capacity c, once the transfer c
    places ahead of it there has finished (lanes used round-robin); -1.0 where that transfer is of round r or later
    (the link over its capacity in a round)."""
    for e in range(lptr[w], lptr[w + 1]):
        link = lval[e]
        c = lane0[link + 1] - lane0[link]
        slot = lane0[link] + used[link] % c
        if lane_round[slot] >= r and used[link] >= c:
            return -1.0
        if lane_finish[slot] > t:
            t = lane_finish[slot]
    return t


@kernel(inner=True)
def _lanes_take(lptr, lval, lane0, used, lane_round, lane_finish, w, r, f):  # pragma: no cover - compiled
    """Workload w (round r, finishing at f) takes the next lane of each of its links."""
    for e in range(lptr[w], lptr[w + 1]):
        link = lval[e]
        c = lane0[link + 1] - lane0[link]
        slot = lane0[link] + used[link] % c
        lane_finish[slot] = f
        lane_round[slot] = r
        used[link] += 1


@kernel(nogil=True)
def _async_chains(order, round_ptr, dur, marks, tree, gptr, gval, lptr, lval, lane0, g_round, start,
                  finish):  # pragma: no cover - compiled
    """`_async_pass` on a plain PS DAG of one chunk, its prefixes read from its chains' `marks` (w waits for w - 1
    where w - 1 is marked `NEXT`; a first broadcast hop, marked `FIRST_BROADCAST`, for the group of its tree, whose
    members are its row of `gptr`/`gval`): one byte a workload where deps' rows cost a row pointer and an entry, each
    a cache miss in the schedule's order (docs/scale.md, fourteenth step). The same waits in the same order, so the
    same starts, finishes, latest finish and offending workload.

    Whether w - 1 was sent in an earlier round is told without the rounds of the workloads, one read a workload
    fewer (docs/scale.md, fifteenth step): `finish` is first set to -1 (a finish is >= 0), so w - 1 is of a later
    round while its finish is unset, and of w's own round exactly when it comes just before w in the round (each
    round's ids ascending, as the plan keeps them)."""
    n_groups = len(gptr) - 1
    keep = len(start) > 0
    latest = 0.0
    finish[:] = -1.0
    g_finish = np.full(n_groups, -1.0)
    lane_finish = np.zeros(lane0[-1], np.float64)
    lane_round = np.full(lane0[-1], -1, np.int64)
    used = np.zeros(len(lane0) - 1, np.int64)
    m = len(order)
    for r in range(len(round_ptr) - 1):
        for i in range(round_ptr[r], round_ptr[r + 1]):
            if i + 16 < m:
                x = order[i + 16]
                prefetch(marks, x)
                prefetch(lptr, x)
                prefetch(dur, x)
                prefetch(finish, x)
                if keep:
                    prefetch(start, x)
            if i + 8 < m:
                x = order[i + 8]
                if lptr[x] < len(lval):
                    prefetch(lval, lptr[x])
            w = order[i]
            t = 0.0
            if marks[w] & FIRST_BROADCAST:
                g = tree[w]
                if g_round[g] >= r:
                    return latest, w, -1
                if g_finish[g] < 0.0:
                    g_latest = 0.0
                    for k in range(gptr[g], gptr[g + 1]):
                        x = gval[k]
                        if finish[x] > g_latest:
                            g_latest = finish[x]
                    g_finish[g] = g_latest
                t = g_finish[g]
            elif w > 0 and marks[w - 1] & NEXT:
                if finish[w - 1] < 0.0 or (i > round_ptr[r] and order[i - 1] == w - 1):
                    return latest, w, w - 1
                t = finish[w - 1]
            t = _lanes_free(lptr, lval, lane0, used, lane_round, lane_finish, w, r, t)
            if t < 0.0:
                return latest, w, -1
            if keep:
                start[w] = t
            f = t + dur[w]
            finish[w] = f
            if f > latest:
                latest = f
            _lanes_take(lptr, lval, lane0, used, lane_round, lane_finish, w, r, f)
    return latest, -1, -1


@kernel(interpret_below=SMALL, nogil=True)
def _rounds_of(ids, round_ptr, round_of):  # pragma: no cover - compiled
    """Write each workload's round into `round_of` (rounds: `ids` between `round_ptr`'s entries, every id in
    range); False as soon as an id comes a second time."""
    round_of[:] = -1
    m = len(ids)
    for r in range(len(round_ptr) - 1):
        for i in range(round_ptr[r], round_ptr[r + 1]):
            if i + 16 < m:
                prefetch(round_of, ids[i + 16])
            w = ids[i]
            if round_of[w] >= 0:
                return False
            round_of[w] = r
    return True


@kernel(interpret_below=SMALL)
def _round_max(order, round_ptr, values):  # pragma: no cover - compiled
    """The largest of `values` over each round's workloads (0 for an empty round): what
    ``np.maximum.reduceat(values[order], ...)`` over the non-empty rounds gives (a NaN wins, as in
    `np.maximum`), without the gathered copy of every value (0.7 GiB at BCube(16,2))."""
    m = len(round_ptr) - 1
    out = np.zeros(m, np.float64)
    for r in range(m):
        lo, hi = round_ptr[r], round_ptr[r + 1]
        if lo < hi:
            best = values[order[lo]]
            for i in range(lo + 1, hi):
                v = values[order[i]]
                if v > best or v != v:
                    best = v
            out[r] = best
    return out


@kernel(interpret_below=SMALL)
def _link_seconds(lptr, lval, dur, n_links):  # pragma: no cover - compiled
    """Σ dur over the workloads crossing each link, added entry by entry in the links' order (what
    ``np.bincount(lval, weights=np.repeat(dur, lengths))`` adds, in the same order, without the repeated copy)."""
    out = np.zeros(n_links, np.float64)
    for w in range(len(lptr) - 1):
        for e in range(lptr[w], lptr[w + 1]):
            out[lval[e]] += dur[w]
    return out


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
