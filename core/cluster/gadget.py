"""GADGET, reconstructed: greedy ring-all-reduce embedding with reserved bandwidth.

What is confirmed (CLUSTER.md): GADGET (Yu et al., INFOCOM 2022) schedules ring-all-reduce jobs
online, embedding each job's ring greedily into the cluster graph, and assumes every job's
bandwidth is **reserved**, so jobs do not contend. What is reconstructed here (the paper's
algorithm is not public; docs/cluster.md, "GADGET"):

- jobs are considered online in arrival order; one that cannot be embedded now waits while
  later ones may go ahead (as every heuristic here does);
- a job that fits on one server takes the fullest server that holds it (no network ring);
- otherwise the ring grows greedily: it starts at a server with the most free GPUs and adds,
  one at a time, the free server nearest to the ring's last server (fewest hops, then most free
  GPUs), until the job has its GPUs;
- the embedding is admitted only if every directed link the job's ring AllReduce crosses
  (its routes over the topology, servers outside the job forwarding) has `reserve` of its
  bandwidth not yet reserved by running jobs; the job then reserves that share on those links
  until it ends. Otherwise the next start server is tried; if none works the job waits.

In the simulator every scheduler's jobs share links the same way (bandwidth divided by 1 + the
duty cycles of the other jobs using a link); GADGET's reservations only cap how many of its rings share a link.
"""

from __future__ import annotations

import numpy as np

from .sim import Decisions, Start, State

DEFAULT_RESERVE = 0.5
"""Share of a link's bandwidth one ring reserves (so at most two rings share a link)."""


class Gadget:
    """The reconstructed GADGET scheduler (ring AllReduce, reserved bandwidth)."""

    def __init__(self, reserve: float = DEFAULT_RESERVE, starts: int = 8):
        if not 0 < reserve <= 1:
            raise ValueError(f"gadget: reserve must be in (0, 1], got {reserve}")
        self.reserve, self.starts = reserve, starts
        self.name = "gadget"
        self.reserved: dict[int, np.ndarray] = {}

    def reset(self, state: State) -> None:
        """Forget reservations of a previous run."""
        self.reserved = {}

    def wakeup(self, state: State) -> float:
        """GADGET only acts on arrivals and completions."""
        return np.inf

    def decide(self, state: State) -> Decisions:
        """Embed waiting jobs in arrival order where a ring with reserved bandwidth fits."""
        self.reserved = {j: links for j, links in self.reserved.items() if j in state.running}
        load = np.zeros(state.cluster.topology.n_links)
        for links in self.reserved.values():
            load[links] += self.reserve
        free = state.free.copy()
        dec = Decisions()
        for j in sorted(state.waiting):
            if state.trace.gpus[j] > free.sum():
                continue
            found = self.embed(state, j, free, load)
            if found is None:
                continue
            alloc, links = found
            free -= alloc
            load[links] += self.reserve
            self.reserved[j] = links
            dec.starts.append(Start(j, alloc, "ring"))
        return dec

    def embed(self, state: State, job: int, free: np.ndarray, load: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray] | None:
        """(allocation, directed links reserved) of a greedy ring embedding, or None."""
        g = int(state.trace.gpus[job])
        G = state.cluster.gpus_per_server
        if g <= G:
            fits = np.flatnonzero(free >= g)
            if len(fits):
                s = fits[np.lexsort((fits, free[fits]))][0]
                alloc = np.zeros_like(free)
                alloc[s] = g
                return alloc, np.zeros(0, np.int64)
        hops = state.cluster.hops
        has = np.flatnonzero(free > 0)
        for c in has[np.lexsort((has, -free[has]))][: self.starts]:
            alloc = np.zeros_like(free)
            last, need = int(c), g
            while True:
                take = min(need, int(free[last] - alloc[last]))
                alloc[last] += take
                need -= take
                if need == 0:
                    break
                cand = np.flatnonzero((free > 0) & (alloc == 0))
                last = int(cand[np.lexsort((cand, -free[cand], hops[last, cand]))][0])
            servers = tuple(int(s) for s in np.flatnonzero(alloc))
            plan = state.comm.net_plan(servers, "ring")
            if np.all(load[plan.links] + self.reserve <= 1.0 + 1e-9):
                return alloc, plan.links
        return None
