"""Heuristic schedulers as ordering × placement (× AllReduce method), behind one interface.

- Orderings: ``fifo`` (arrival), ``sjf`` (shortest ideal duration first: iterations × compute),
  ``las`` (least attained service, Tiresias-like: discretized two-dimensional LAS — priority queues
  by attained GPU-seconds with thresholds `LAS_THRESHOLDS`, FIFO within a queue, preemptive: a
  running job whose queue falls below a waiting job's is preempted and later resumes where it
  stopped, possibly elsewhere).
- Placements: `core.cluster.placement` (first-fit, random, load-balance, closest).
- Method: the network AllReduce each job runs: ``ring`` (the sources' assumption), a tree
  (``critical-path``, ``critical-path-x2``, ``critical-path-x4``: `comm.VARIANTS`), ``best``
  (the shortest of `comm.BEST_CANDIDATES` on the job's servers) or ``adaptive`` (the ring or
  `comm.ADAPTIVE_CANDIDATES` where faster alone, whichever costs the cluster least under the
  current link sharing, re-chosen at every event: `sim._adapt`).

Every scheduler walks its waiting jobs in order and starts each one its placement can fit now
(jobs that do not fit are skipped, so small jobs backfill around a large one).
"""

from __future__ import annotations

import numpy as np

from .comm import BEST_CANDIDATES
from .placement import PLACEMENTS, closest_candidates, spread_candidates
from .sim import Decisions, Start, State

ORDERINGS = ("fifo", "sjf", "las")
LAS_THRESHOLDS = (3600.0, 36000.0)
"""GPU-seconds at which a job drops to the next LAS queue (1 and 10 GPU-hours)."""


_LAS_SLACK = 1e-3  # GPU-seconds: a job this close to a threshold has crossed it (float residue)


def las_level(attained: np.ndarray) -> np.ndarray:
    """LAS queue of each attained service (0 = highest priority)."""
    return np.searchsorted(LAS_THRESHOLDS, np.asarray(attained) + _LAS_SLACK, side="right")


class Heuristic:
    """Ordering × placement × method; `name` is ``"order+placement"`` (``+method`` unless ring)."""

    def __init__(self, order: str, placement: str, method: str = "ring", seed: int = 0):
        if order not in ORDERINGS:
            raise ValueError(f"unknown ordering {order!r}; known: {', '.join(ORDERINGS)}")
        if placement not in PLACEMENTS and placement != "timed":
            raise ValueError(f"unknown placement {placement!r}; known: {', '.join(list(PLACEMENTS) + ['timed'])}")
        self.order, self.placement, self.method, self.seed = order, placement, method, seed
        self.name = f"{order}+{placement}" + ("" if method == "ring" else f"+{method}")
        self.rng = np.random.default_rng(seed)

    def reset(self, state: State) -> None:
        """Fresh random stream for a new run."""
        self.rng = np.random.default_rng(self.seed)

    def priority(self, state: State, jobs: np.ndarray) -> np.ndarray:
        """Sort keys of `jobs` (lower runs first; ties by arrival)."""
        if self.order == "fifo":
            return jobs.astype(np.float64)
        if self.order == "sjf":
            return state.trace.ideal_duration[jobs]
        level = las_level(state.attained[jobs])
        waiting = np.array([state.alloc[j] is None for j in jobs.tolist()], dtype=np.int64)
        return (2 * level + waiting).astype(np.float64)  # within a queue, running jobs are not preempted

    def ordered(self, state: State, jobs: list[int]) -> list[int]:
        """`jobs` in priority order (ties by arrival index)."""
        arr = np.array(jobs, dtype=np.int64)
        return arr[np.lexsort((arr, self.priority(state, arr)))].tolist() if len(arr) else []

    def place(self, state: State, job: int, free: np.ndarray, extra: np.ndarray) -> tuple[np.ndarray, str] | None:
        """(allocation, AllReduce method) for `job` within `free`, or None if it does not fit now."""
        g = int(state.trace.gpus[job])
        if self.placement != "timed":
            alloc = PLACEMENTS[self.placement](free, g, state.cluster, self.rng)
            return None if alloc is None else (alloc, self.method)
        return timed_placement(state, job, free, extra, self.method)

    def decide(self, state: State) -> Decisions:
        """Preempt (LAS only) then start every waiting job that fits, in priority order."""
        dec = Decisions()
        free = state.free.copy()
        candidates = state.waiting
        if self.order == "las":
            keep, dec.preempt = self._las_cut(state)
            free += sum((state.alloc[j] for j in dec.preempt), np.zeros_like(free))
            candidates = [j for j in state.waiting if j in keep]
        extra = np.zeros(state.cluster.topology.n_links)  # load (duty cycles) of this decision's starts
        for j in self.ordered(state, candidates):
            if state.trace.gpus[j] > free.sum():
                continue
            placed = self.place(state, j, free, extra)
            if placed is None:
                continue
            alloc, method = placed
            free -= alloc
            dec.starts.append(Start(j, alloc, method, adapt=self.method == "adaptive"))
            if self.placement == "timed":
                duty, plan = state.duty_of(j, alloc, method, extra)
                if plan is not None:
                    extra[plan.links] += duty
        return dec

    def _las_cut(self, state: State) -> tuple[set[int], list[int]]:
        """Jobs LAS wants running (by priority, while their GPU counts fit) and running jobs to preempt."""
        active = self.ordered(state, state.running + state.waiting)
        room = state.cluster.n_gpus
        keep: set[int] = set()
        for j in active:
            g = int(state.trace.gpus[j])
            if g <= room:
                keep.add(j)
                room -= g
        preempt = [j for j in state.running if j not in keep]
        return keep, preempt

    def wakeup(self, state: State) -> float:
        """LAS: the next time a running job crosses a queue threshold; others never ask."""
        if self.order != "las" or not state.running:
            return np.inf
        run = np.array(state.running)
        att = state.attained[run]
        nxt = np.array(LAS_THRESHOLDS + (np.inf,))[las_level(att)]
        rate = state.trace.gpus[run]
        dt = (nxt - att) / rate
        dt = dt[np.isfinite(dt) & (dt > 0)]
        return state.now + float(dt.min()) if len(dt) else np.inf


def timed_placement(state: State, job: int, free: np.ndarray, extra: np.ndarray, method: str,
                    k: int = 4) -> tuple[np.ndarray, str] | None:
    """Of the `k` closest candidate allocations and the port-spread ones (`spread_candidates`),
    with `method` (for "best" each of `BEST_CANDIDATES`, for "adaptive" each of
    `CommModel.useful_methods` on the allocation's servers), the pair that costs the cluster
    least now: the job's own GPUs × its slowdown (iteration time over compute time, under the
    current link sharing) plus, for every running job whose links it would share, that job's
    GPUs × a bound on its added slowdown (`State.placement_cost`)."""
    g = int(state.trace.gpus[job])
    cands = closest_candidates(free, g, state.cluster, k)
    seen = {a.tobytes() for a in cands}
    cands += [a for a in spread_candidates(free, g, state.cluster) if a.tobytes() not in seen]
    if not cands:
        return None
    size = float(state.size[job])
    pairs = []
    for a in cands:
        servers = tuple(np.flatnonzero(a).tolist())
        if len(servers) == 1:
            pairs.append((a, "ring"))
        elif method == "adaptive":
            pairs += [(a, m) for m in state.comm.useful_methods(servers, size)]
        else:
            pairs += [(a, m) for m in (BEST_CANDIDATES if method == "best" else (method,))]
    if len(pairs) == 1:
        return pairs[0]
    return pairs[state.cheapest(job, pairs, extra)]
