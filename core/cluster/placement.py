"""GPU placement rules: given the free GPUs per server and a job's GPU count, an allocation.

Every rule returns an int array (one entry per server: the job's GPUs there) or None when the
job does not fit now. Baselines (Proximity-DRL's GPU pickers, CLUSTER.md): first-fit, random,
load-balance; topology-aware: closest (the TopDRL heuristic: the free GPUs closest to each other).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .cluster import Cluster

Placement = Callable[[np.ndarray, int, Cluster, np.random.Generator], "np.ndarray | None"]


def first_fit(free: np.ndarray, g: int, cluster: Cluster, rng: np.random.Generator) -> np.ndarray | None:
    """Free GPUs in server order until the job has `g`."""
    if free.sum() < g:
        return None
    before = np.cumsum(free) - free
    return np.clip(g - before, 0, free).astype(np.int64)


def random_gpus(free: np.ndarray, g: int, cluster: Cluster, rng: np.random.Generator) -> np.ndarray | None:
    """`g` free GPUs drawn uniformly at random (seeded)."""
    if free.sum() < g:
        return None
    slots = np.repeat(np.arange(len(free)), free)
    pick = rng.choice(len(slots), size=g, replace=False)
    return np.bincount(slots[pick], minlength=len(free)).astype(np.int64)


def load_balance(free: np.ndarray, g: int, cluster: Cluster, rng: np.random.Generator) -> np.ndarray | None:
    """One GPU at a time from the server with the most free GPUs (lowest index on ties)."""
    if free.sum() < g:
        return None
    left = free.copy()
    alloc = np.zeros_like(free)
    for _ in range(g):
        s = int(np.argmax(left))
        alloc[s] += 1
        left[s] -= 1
    return alloc


def closest_candidates(free: np.ndarray, g: int, cluster: Cluster, k: int = 1) -> list[np.ndarray]:
    """Up to `k` distinct allocations of `g` free GPUs close together, best first.

    A job that fits on one server takes the fullest server that holds it (best fit: keeps
    large holes for large jobs). Otherwise, from every server c with free GPUs, servers are
    taken by hop distance from c (then most free GPUs, then index) until `g` GPUs are found;
    allocations rank by (servers used, largest hop distance between them, GPU-weighted hops).
    """
    if free.sum() < g:
        return []
    G = cluster.gpus_per_server
    out: list[np.ndarray] = []
    if g <= G:
        fits = np.flatnonzero(free >= g)
        if len(fits):
            order = fits[np.lexsort((fits, free[fits]))]
            for s in order[:k]:
                a = np.zeros_like(free)
                a[s] = g
                out.append(a)
            if len(out) >= k:
                return out
    hops = cluster.hops
    centers = np.flatnonzero(free > 0)
    S = len(free)
    # order servers around each center: hops, then most free, then index
    key = hops[centers] * (G + 1) * S + (G - free)[None, :] * S + np.arange(S)[None, :]
    order = np.argsort(key, axis=1)
    take = free[order]
    before = np.cumsum(take, axis=1) - take
    got = np.clip(g - before, 0, take)  # (centers, S) GPUs taken, in each center's order
    allocs = np.zeros((len(centers), S), dtype=np.int64)
    np.put_along_axis(allocs, order, got, axis=1)
    used = allocs > 0
    n_srv = used.sum(axis=1)
    far = np.where(used[:, :, None] & used[:, None, :], hops[None], 0).max(axis=(1, 2))
    spread = np.einsum("cs,cs->c", allocs, hops[centers])
    rank = np.lexsort((centers, spread, far, n_srv))
    seen = {a.tobytes() for a in out}
    for r in rank:
        a = allocs[r]
        b = a.tobytes()
        if b not in seen:
            seen.add(b)
            out.append(a)
            if len(out) >= k:
                break
    return out


def spread_candidates(free: np.ndarray, g: int, cluster: Cluster, centers: int = 4) -> list[np.ndarray]:
    """Allocations of whole free servers around up to `centers` centers, grown so that each server
    reaches the others through as many different ports as it can (BCube and DCell servers have
    several NICs; a tree AllReduce uses them all where a ring uses one).

    Each step adds the free server that keeps the largest "port load" (how many chosen servers a
    chosen server reaches first through one of its links) lowest, then fewest hops to the chosen
    servers, then most free GPUs. A job of two servers takes the free server that the center
    reaches through the most ports (`Cluster.ports`; none where that is one port: a ring and a
    tree then cross the same route).
    """
    G = cluster.gpus_per_server
    need = -(-g // G)
    full = np.flatnonzero(free == G)
    if need < 2 or len(full) < need:
        return []
    hops, first = cluster.hops, cluster.first_link
    out = []
    for c in full[:centers]:
        chosen = [int(c)]
        if need == 2:
            others = full[full != c]
            ports = cluster.ports[c, others]
            pick = np.lexsort((others, hops[c, others], -ports))[0]
            if ports[pick] > 1:
                alloc = np.zeros_like(free)
                alloc[[c, others[pick]]] = [G, g - G]
                out.append(alloc)
            continue
        while len(chosen) < need:
            cand = np.array([s for s in full if s not in chosen])
            sub = first[np.ix_(chosen + cand.tolist(), chosen + cand.tolist())]
            k = len(chosen)
            loads = []
            for i in range(len(cand)):
                rows = list(range(k)) + [k + i]
                members = sub[np.ix_(rows, rows)]
                loads.append(max(int(np.unique(r[r >= 0], return_counts=True)[1].max()) for r in members))
            far = hops[np.ix_(cand, chosen)].max(axis=1)
            pick = np.lexsort((cand, far, np.array(loads)))[0]
            chosen.append(int(cand[pick]))
        alloc = np.zeros_like(free)
        alloc[chosen] = G
        alloc[chosen[-1]] = g - G * (need - 1)
        out.append(alloc)
    return out


def closest(free: np.ndarray, g: int, cluster: Cluster, rng: np.random.Generator) -> np.ndarray | None:
    """The free GPUs closest to each other in the topology (see `closest_candidates`)."""
    cands = closest_candidates(free, g, cluster, 1)
    return cands[0] if cands else None


PLACEMENTS: dict[str, Placement] = {"first-fit": first_fit, "random": random_gpus, "load-balance": load_balance,
                                    "closest": closest}
"""Placement rules by name."""
