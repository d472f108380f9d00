"""The event simulation of a shared cluster: jobs arrive, wait for GPUs, run, release them.

A small event loop rather than SimPy (docs/cluster.md, "Why an event loop"): a running job's
progress is a rate (iterations per second) that changes whenever a job sharing one of its links
starts or ends; between two events every rate is constant, so the next event is the earliest of
the next arrival, the earliest completion (remaining iterations × iteration time), and the time
the scheduler asked to be woken (LAS demotions). At every event the loop

1. advances every running job to the event time (iterations, attained GPU-seconds, comm time);
2. ends the jobs that are done and admits the arrivals;
3. asks the scheduler for decisions (preemptions, then starts with allocations and methods);
4. keeps, per directed link, the running jobs whose AllReduce uses it and their load (the sum of
   their duty cycles: the share of each iteration a job spends in its network AllReduce); lets
   every job started with ``adapt`` switch to the candidate method (`CommModel.useful_methods`)
   that costs the cluster least under the other jobs' current sharing; and re-times every job
   whose sharing changed, to the fixed point of duty cycles and times (`_retime`).

Sharing (docs/cluster.md §3): a job's transfer on a link runs at the link's bandwidth divided by
1 + the duty cycles of the other jobs using the link (the expected number of them communicating
at the same moment when their iterations' phases are independent), rounded to 1/`SHARE_STEPS`
of a job so that sharing patterns recur and their replays are cached.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Protocol

import numpy as np

from .cluster import Cluster
from .comm import METHOD_CHOICES, CommModel, NetPlan
from .jobs import Trace, check_fits

_DONE = 1e-9  # relative slack on remaining iterations (floating-point residue of rate changes)
SHARE_STEPS = 8
"""The other jobs' load on a link is rounded to 1/SHARE_STEPS of a job (docs/cluster.md §3)."""
FIXED_POINT_PASSES = 6
"""At most this many passes of re-timing per event until no job's rounded sharing changes."""


@dataclass(frozen=True)
class Start:
    """A decision: start `job` with `alloc[s]` GPUs on server s, AllReduce by `method`; with
    `adapt`, the job switches method whenever another is faster under the current link sharing."""

    job: int
    alloc: np.ndarray
    method: str = "ring"
    adapt: bool = False


@dataclass
class Decisions:
    """What a scheduler decides at one event: jobs to preempt, then jobs to start."""

    starts: list[Start] = field(default_factory=list)
    preempt: list[int] = field(default_factory=list)


class Scheduler(Protocol):
    """A cluster scheduler: `decide(state)` at every event; `wakeup(state)` = next time it must run."""

    name: str

    def reset(self, state: "State") -> None: ...

    def decide(self, state: "State") -> Decisions: ...

    def wakeup(self, state: "State") -> float: ...


@dataclass
class Segment:
    """One uninterrupted run of a job on one allocation."""

    job: int
    start: float
    end: float
    alloc: np.ndarray
    method: str
    links: np.ndarray


class State:
    """What a scheduler sees at an event (read it; decide through `Decisions`)."""

    def __init__(self, cluster: Cluster, trace: Trace, comm: CommModel):
        n = trace.n
        self.cluster, self.trace, self.comm = cluster, trace, comm
        self.now = 0.0
        self.free = np.full(cluster.n_servers, cluster.gpus_per_server, dtype=np.int64)
        self.waiting: list[int] = []
        self.running: list[int] = []
        self.remaining = trace.iterations.astype(np.float64).copy()
        self.attained = np.zeros(n)  # GPU-seconds run so far
        self.iter_time = np.full(n, np.nan)
        self.comm_time = np.zeros(n)  # seconds of each iteration spent communicating, current placement
        self.alloc: list[np.ndarray | None] = [None] * n
        self.plan: list[NetPlan | None] = [None] * n
        self.adapt = np.zeros(n, bool)
        self.users = np.zeros(cluster.topology.n_links, dtype=np.int64)  # running jobs per directed link
        self.duty = np.zeros(n)  # share of each running job's iteration spent in its network AllReduce
        self.load = np.zeros(cluster.topology.n_links)  # sum of the duty of the running jobs per link
        self.size = trace.grad_bytes
        self.compute = trace.compute_s

    def share(self, links: np.ndarray, others: np.ndarray | None = None) -> np.ndarray:
        """Per link, 1 + the other jobs' load on it (`others`; default the running jobs' `load`),
        rounded to 1/SHARE_STEPS: what a job's bandwidth there is divided by."""
        load = self.load[links] if others is None else others
        return 1.0 + np.rint(np.maximum(load, 0.0) * SHARE_STEPS) / SHARE_STEPS

    def iteration_time(self, job: int, alloc: np.ndarray, method: str, extra: np.ndarray | None = None
                       ) -> tuple[float, float, NetPlan | None]:
        """(iteration s, communication s, network plan) of `job` on `alloc` under the running jobs'
        load on its links (and `extra` load per link, e.g. of jobs started in the same decision)."""
        t, comm, _, plan = self._timed(job, alloc, method, extra)
        return t, comm, plan

    def duty_of(self, job: int, alloc: np.ndarray, method: str, extra: np.ndarray | None = None
                ) -> tuple[float, NetPlan | None]:
        """(duty cycle: network AllReduce over iteration time, network plan) of `job` on `alloc` now."""
        t, _, net, plan = self._timed(job, alloc, method, extra)
        return net / t, plan

    def _timed(self, job: int, alloc: np.ndarray, method: str, extra: np.ndarray | None
               ) -> tuple[float, float, float, NetPlan | None]:
        """(iteration s, communication s, network s, plan) of a job that is not counted in `load`."""
        size = float(self.size[job])
        comm = self.comm.intra_time(alloc, size)
        servers = tuple(int(s) for s in np.flatnonzero(alloc))
        plan, net = None, 0.0
        if len(servers) > 1:
            plan = self.comm.net_plan(servers, method, size)
            others = self.load[plan.links] + (extra[plan.links] if extra is not None else 0.0)
            net = self.comm.net_time(plan, size, self.share(plan.links, others))
            comm += net
        return float(self.compute[job]) + comm, comm, net, plan

    def placement_cost(self, job: int, alloc: np.ndarray, method: str, extra: np.ndarray | None = None,
                       own_only: bool = False) -> float:
        """GPU-weighted slowdown `job` on `alloc` by `method` brings the cluster now: its GPUs × its
        iteration over compute time, plus (unless `own_only`), for every running job whose links it
        would share, that job's GPUs × a bound on its added slowdown (`extra`: more load per link,
        e.g. this decision's starts). The bound needs no replay: this job's duty cycle raises the
        share of the shared links by at most a factor f, so the other job's network time grows
        by at most (f − 1) × itself (every transfer's bandwidth part scales by at most f)."""
        t, _, net, plan = self._timed(job, alloc, method, extra)
        cost = float(self.trace.gpus[job]) * t / float(self.compute[job])
        if plan is None or own_only:
            return cost
        mine = np.zeros(self.cluster.topology.n_links)
        mine[plan.links] = net / t
        for o in self.running:
            p = self.plan[o]
            if o == job or p is None or not mine[p.links].any():
                continue
            others = self.load[p.links] - self.duty[o] + (extra[p.links] if extra is not None else 0.0)
            before = self.share(p.links, others)
            f = float((self.share(p.links, others + mine[p.links]) / before).max())
            if f > 1.0:
                size = float(self.size[o])
                cost += float(self.trace.gpus[o]) * (f - 1.0) * self.comm.net_time(p, size, before) / float(self.compute[o])
        return cost

    def cheapest(self, job: int, pairs: list[tuple[np.ndarray, str]], extra: np.ndarray | None = None) -> int:
        """Index of the (allocation, method) pair of least `placement_cost` (the first of equals).
        The job's own part bounds the whole from below, so pairs are costed in full in order of
        their own part until that alone exceeds the best whole cost found."""
        own = [self.placement_cost(job, a, m, extra, own_only=True) for a, m in pairs]
        best, best_cost = -1, np.inf
        for i in sorted(range(len(pairs)), key=lambda i: (own[i], i)):
            if own[i] > best_cost:
                break
            c = self.placement_cost(job, *pairs[i], extra)
            if c < best_cost or (c == best_cost and i < best):
                best, best_cost = i, c
        return best


@dataclass
class Result:
    """A finished simulation: per-job times, run segments and timelines."""

    scheduler: str
    cluster: Cluster
    trace: Trace
    arrival: np.ndarray
    first_start: np.ndarray
    end: np.ndarray
    comm_seconds: np.ndarray
    """Per job, seconds of its run spent communicating."""
    segments: list[Segment]
    times: np.ndarray
    """Event times (the timelines change only there)."""
    busy_gpus: np.ndarray
    """GPUs in use from each event time to the next."""
    link_users: np.ndarray
    """(events, directed links) running jobs whose AllReduce uses the link, from each event on (int16)."""
    preemptions: int
    events: int
    wall_s: float
    cpu_s: float
    plan_builds: int
    replays: int
    info: dict = field(default_factory=dict)

    @property
    def jct(self) -> np.ndarray:
        """Job completion times: end − arrival."""
        return self.end - self.arrival

    @property
    def queueing(self) -> np.ndarray:
        """Queueing delays: first start − arrival."""
        return self.first_start - self.arrival


def simulate(cluster: Cluster, trace: Trace, scheduler: Scheduler, comm: CommModel | None = None,
             progress: Callable[[float], None] | None = None, record_links: bool = True) -> Result:
    """Run `trace` on `cluster` under `scheduler` until every job has finished."""
    check_fits(trace, cluster.n_gpus)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    comm = comm or CommModel(cluster)
    builds0, replays0 = comm.plan_builds, comm.replays
    st = State(cluster, trace, comm)
    scheduler.reset(st)
    n = trace.n
    first_start = np.full(n, np.nan)
    end = np.full(n, np.nan)
    comm_seconds = np.zeros(n)
    seg_start = np.zeros(n)
    segments: list[Segment] = []
    times: list[float] = []
    busy: list[int] = []
    link_rows: list[np.ndarray] = []
    arrival = trace.arrival
    next_arrival = 0
    done = 0
    events = 0
    preemptions = 0
    switches = 0
    last_key: dict[int, tuple | None] = {}
    adapt_seen: dict[int, tuple[np.ndarray, np.ndarray, bytes]] = {}

    def cut(j: int) -> None:
        p = st.plan[j]
        segments.append(Segment(j, float(seg_start[j]), st.now, st.alloc[j], p.method if p else "-",
                                p.links if p else np.zeros(0, np.int64)))
        seg_start[j] = st.now

    def close(j: int) -> None:
        p = st.plan[j]
        cut(j)
        st.free += st.alloc[j]
        if p is not None:
            st.users[p.links] -= 1
            st.load[p.links] -= st.duty[j]
        st.duty[j] = 0.0
        st.running.remove(j)
        st.alloc[j] = None
        st.plan[j] = None
        last_key.pop(j, None)
        adapt_seen.pop(j, None)

    while done < n:
        if events > 100 * n + 10_000:
            raise RuntimeError(f"scheduler {scheduler.name}: {events} events for {n} jobs without finishing; "
                               f"it keeps waking at the same time")
        # 1. next event
        t_next = arrival[next_arrival] if next_arrival < n else np.inf
        run = np.array(st.running, dtype=np.int64)
        finish_at = st.now + st.remaining[run] * st.iter_time[run] if len(run) else np.zeros(0)
        if len(run):
            t_next = min(t_next, float(finish_at.min()))
        t_next = min(t_next, scheduler.wakeup(st))
        if not np.isfinite(t_next):
            raise RuntimeError(f"scheduler {scheduler.name} left {len(st.waiting)} job(s) waiting on an idle cluster "
                               f"(first: job {trace.job_id[st.waiting[0]]}, {int(trace.gpus[st.waiting[0]])} GPUs)")
        dt = max(0.0, t_next - st.now)
        if len(run) and dt > 0:
            st.remaining[run] -= dt / st.iter_time[run]
            st.attained[run] += dt * trace.gpus[run]
            comm_seconds[run] += dt * st.comm_time[run] / st.iter_time[run]
        st.now = max(st.now, t_next)
        # 2. completions and arrivals
        if len(run):
            fin = run[(finish_at <= st.now) | (st.remaining[run] <= _DONE * trace.iterations[run])]
            for j in fin.tolist():
                st.remaining[j] = 0.0
                end[j] = st.now
                close(j)
                done += 1
        while next_arrival < n and arrival[next_arrival] <= st.now:
            st.waiting.append(next_arrival)
            next_arrival += 1
        # 3. decisions
        dec = scheduler.decide(st)
        for j in dec.preempt:
            if j not in st.running:
                raise RuntimeError(f"scheduler {scheduler.name} preempted job {j}, which is not running")
            close(j)
            st.waiting.append(j)
            preemptions += 1
        if dec.preempt:
            st.waiting.sort()
        for s in dec.starts:
            _start(st, scheduler.name, s, first_start, seg_start)
        # 4. adaptive jobs take the cheapest method under the others' sharing; re-time what changed
        switches += _adapt(st, cut, adapt_seen)
        _retime(st, last_key)
        times.append(st.now)
        busy.append(cluster.n_gpus - int(st.free.sum()))
        if record_links:
            link_rows.append(st.users.astype(np.int16))
        events += 1
        if progress is not None:
            progress(done / n)
    if not record_links:
        link_rows = [np.zeros(cluster.topology.n_links, np.int16)]
    return Result(scheduler.name, cluster, trace, arrival.copy(), first_start, end, comm_seconds, segments,
                  np.array(times), np.array(busy), np.stack(link_rows) if link_rows else np.zeros((0, 0), np.int16),
                  preemptions, events, time.perf_counter() - wall0, time.process_time() - cpu0,
                  comm.plan_builds - builds0, comm.replays - replays0, {"method_switches": switches})


def _retime(st: State, last_key: dict[int, tuple | None]) -> None:
    """Re-time every running job whose rounded sharing (`State.share` of the others' load on its
    links) changed since it was last timed, updating its duty cycle and so the load the others
    see; passes repeat in start order until no job's sharing changes (the fixed point of duty
    cycles and times) or FIXED_POINT_PASSES have run."""
    st.load[:] = 0.0  # rebuilt, so that no floating-point residue of += and -= accumulates
    for j in st.running:
        if st.plan[j] is not None:
            st.load[st.plan[j].links] += st.duty[j]
    for _ in range(FIXED_POINT_PASSES):
        changed = False
        for j in st.running:
            p = st.plan[j]
            share = st.share(p.links, st.load[p.links] - st.duty[j]) if p is not None else None
            key = (p.key, share.tobytes()) if p is not None else None
            if j in last_key and last_key[j] == key:
                continue
            size = float(st.size[j])
            net = st.comm.net_time(p, size, share) if p is not None else 0.0
            c = st.comm.intra_time(st.alloc[j], size) + net
            st.comm_time[j] = c
            st.iter_time[j] = float(st.compute[j]) + c
            if p is not None:
                duty = net / st.iter_time[j]
                st.load[p.links] += duty - st.duty[j]
                st.duty[j] = duty
            last_key[j] = key
            changed = True
        if not changed:
            return


def _adapt(st: State, cut: Callable[[int], None], seen: dict[int, tuple[np.ndarray, np.ndarray, bytes]]) -> int:
    """Switch every adaptive running job to the candidate method that costs the cluster least
    under the other jobs' current sharing (`State.placement_cost`: its own slowdown plus what it
    adds to the jobs sharing its links; ties keep the current one); returns how many switched.
    A job is looked at again only when the other jobs on some link one of its candidates crosses
    have changed — one started, ended or switched there (`seen`: per job, those links, which of
    them it uses now, and their other users when last looked at); not when only their duty
    cycles drift, which would re-cost every tree at almost every event. One pass in start
    order: a switch changes the sharing the later jobs see."""
    n = 0
    for j in st.running:
        p = st.plan[j]
        if p is None or not st.adapt[j]:
            continue
        methods = st.comm.useful_methods(p.servers, float(st.size[j]))
        if len(methods) < 2:
            continue
        if j not in seen:
            links = np.unique(np.concatenate([st.comm.net_plan(p.servers, m).links for m in methods]))
            seen[j] = (links, np.isin(links, p.links), b"")
        links, mine, key = seen[j]
        now = (st.users[links] - mine).tobytes()
        if now == key:
            continue
        st.users[p.links] -= 1
        st.load[p.links] -= st.duty[j]
        order = [p.method] + [m for m in methods if m != p.method]  # ties keep the current method
        pick = order[st.cheapest(j, [(st.alloc[j], m) for m in order])]
        st.duty[j], best = st.duty_of(j, st.alloc[j], pick)
        st.users[best.links] += 1
        st.load[best.links] += st.duty[j]
        if best is not p:
            cut(j)
            st.plan[j] = best
            n += 1
            mine = np.isin(links, best.links)
        seen[j] = (links, mine, now)
    return n


def _start(st: State, who: str, s: Start, first_start: np.ndarray, seg_start: np.ndarray) -> None:
    """Apply one start decision after checking it (a scheduler bug raises RuntimeError)."""
    j, alloc = s.job, np.asarray(s.alloc, dtype=np.int64)
    if j not in st.waiting:
        raise RuntimeError(f"scheduler {who} started job {j}, which is not waiting")
    if alloc.shape != st.free.shape or alloc.min() < 0 or int(alloc.sum()) != int(st.trace.gpus[j]):
        raise RuntimeError(f"scheduler {who} gave job {j} an allocation of {int(alloc.sum())} GPUs; it needs "
                           f"{int(st.trace.gpus[j])}")
    if np.any(alloc > st.free):
        raise RuntimeError(f"scheduler {who} gave job {j} GPUs that are not free")
    if s.method not in METHOD_CHOICES:
        raise RuntimeError(f"scheduler {who}: unknown AllReduce method {s.method!r}")
    st.waiting.remove(j)
    st.running.append(j)
    st.free -= alloc
    st.alloc[j] = alloc
    servers = tuple(int(x) for x in np.flatnonzero(alloc))
    plan = st.comm.net_plan(servers, s.method, float(st.size[j])) if len(servers) > 1 else None
    st.plan[j] = plan
    st.adapt[j] = s.adapt or s.method == "adaptive"
    if plan is not None:
        st.duty[j] = st.duty_of(j, alloc, plan.method)[0]  # before this job counts in `load`
        st.users[plan.links] += 1
        st.load[plan.links] += st.duty[j]
    if np.isnan(first_start[j]):
        first_start[j] = st.now
    seg_start[j] = st.now
