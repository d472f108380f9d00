"""The server ring of Ring AllReduce.

Two servers are *ring-adjacent* when a path whose interior nodes are all switches joins them.
The ring is a Hamiltonian cycle of that graph when one is found (depth-first search with
Warnsdorff's rule and seeded random restarts, under a step budget), shortened by 2-opt moves that keep every edge
adjacent; otherwise the best tour found by nearest-neighbour + 2-opt on hop distance, whose
sends then cross other servers and are relayed there.
"""

from __future__ import annotations

import numpy as np

from .routing import Routes, bandwidth_tiers
from .topology import Topology


def ring_adjacency(topology: Topology, min_bandwidth: float = 0.0) -> np.ndarray:
    """Boolean (S, S) matrix: server i and j joined by a path through switches only (failed links cut, and
    links slower than `min_bandwidth` Gbit/s)."""
    t = topology
    fast = t.bandwidth >= min_bandwidth
    s = t.n_servers
    adj = np.zeros((s, s), dtype=bool)
    ptr, nbr, link_ids = t.live_adjacency
    # switch components: union-find over switch-switch links
    parent = np.arange(t.n_nodes)

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v in t.edges[~t.failed & fast].tolist():
        if not t.is_server[u] and not t.is_server[v]:
            parent[find(u)] = find(v)
    members: dict[int, list[int]] = {}
    for a in t.servers.tolist():
        ia = int(t.server_index[a])
        for b, lk in zip(nbr[ptr[a]:ptr[a + 1]].tolist(), link_ids[ptr[a]:ptr[a + 1]].tolist()):
            if not fast[lk // 2]:
                continue
            if t.is_server[b]:
                adj[ia, t.server_index[b]] = True
            else:
                members.setdefault(find(b), []).append(ia)
    for group in members.values():
        g = np.array(sorted(set(group)))
        adj[np.ix_(g, g)] = True
    np.fill_diagonal(adj, False)
    return adj


def ring_order(topology: Topology, routes: Routes, budget: int = 3_000_000) -> tuple[list[int], bool]:
    """A ring of all servers (node ids) and whether every step is ring-adjacent (no relays)."""
    s = topology.n_servers
    servers = topology.servers
    dist = routes.dist[:, servers]  # (S, S) hops between servers
    if s == 2:
        return [int(x) for x in servers], True
    adj = ring_adjacency(topology)
    cycle = _hamiltonian(adj, dist, budget)
    if cycle is not None:
        cycle = _two_opt(cycle, dist, adj)
        return [int(servers[i]) for i in cycle], True
    tour = _two_opt(_nearest_neighbour(dist), dist, None)
    adjacent = all(adj[tour[i], tour[(i + 1) % s]] for i in range(s))
    return [int(servers[i]) for i in tour], adjacent


def fast_ring_order(topology: Topology, routes: Routes) -> tuple[list[int], bool]:
    """A ring of all servers (node ids) for links of mixed bandwidth, and whether every step is ring-adjacent:
    a step costs first by the slowest link its fastest switch-only path must cross (`ring_adjacency` per
    bandwidth tier), then by hops; nearest-neighbour + 2-opt on that cost (so the fewest slow steps first)."""
    s = topology.n_servers
    servers = topology.servers
    hops = routes.dist[:, servers].astype(np.float64)
    if s == 2:
        return [int(x) for x in servers], True
    tiers = bandwidth_tiers(topology)
    tier = np.full((s, s), len(tiers), dtype=np.float64)  # len(tiers): no switch-only path at all
    for k in range(len(tiers) - 1, -1, -1):
        tier[ring_adjacency(topology, tiers[k])] = k
    cost = tier * (hops.max() * s + 1) + hops
    tour = _two_opt(_nearest_neighbour(cost), cost, None)
    adj = tier < len(tiers)
    return [int(servers[i]) for i in tour], all(adj[tour[i], tour[(i + 1) % s]] for i in range(s))


def _hamiltonian(adj: np.ndarray, dist: np.ndarray, budget: int, per_try: int = 20_000,
                 seed: int = 0) -> list[int] | None:
    """A Hamiltonian cycle by depth-first search with Warnsdorff's rule, restarted from other
    start nodes with random tie-breaks every `per_try` steps (deep backtracking from one start
    is slow where restarts are quick); deterministic for a seed; None after `budget` steps."""
    s = len(adj)
    rng = np.random.default_rng(seed)
    spent = 0
    attempt = 0
    while spent < budget:
        jitter = rng.random(s) if attempt else np.zeros(s)
        start = int(rng.integers(s)) if attempt else 0
        nbrs = [sorted(np.flatnonzero(adj[i]).tolist(), key=lambda j, i=i: (dist[i, j], jitter[j], j))
                for i in range(s)]
        if any(len(x) < 2 for x in nbrs):
            return None
        cycle, steps = _dfs_cycle(adj, nbrs, jitter, start, min(per_try, budget - spent))
        if cycle is not None:
            return cycle
        spent += steps
        attempt += 1
    return None


def _dfs_cycle(adj: np.ndarray, nbrs: list[list[int]], jitter: np.ndarray, start: int,
               budget: int) -> tuple[list[int] | None, int]:
    s = len(adj)
    visited = np.zeros(s, dtype=bool)
    visited[start] = True
    path = [start]

    def order(v: int) -> list[int]:  # Warnsdorff: fewest onward choices first
        cand = [u for u in nbrs[v] if not visited[u]]
        return sorted(cand, key=lambda u: (sum(1 for x in nbrs[u] if not visited[x]), jitter[u]))

    stack = [iter(order(start))]
    steps = 0
    while stack and steps < budget:
        steps += 1
        nxt = next(stack[-1], None)
        if nxt is None:
            stack.pop()
            visited[path.pop()] = False
            continue
        path.append(nxt)
        visited[nxt] = True
        if len(path) == s:
            if adj[nxt, start]:
                return path, steps
            visited[path.pop()] = False
            continue
        stack.append(iter(order(nxt)))
    return None, steps


def _nearest_neighbour(dist: np.ndarray) -> list[int]:
    s = len(dist)
    tour, seen = [0], {0}
    for _ in range(s - 1):
        row = dist[tour[-1]]
        nxt = min((j for j in range(s) if j not in seen), key=lambda j: (row[j], j))
        tour.append(nxt)
        seen.add(nxt)
    return tour


def _two_opt(tour: list[int], dist: np.ndarray, adj: np.ndarray | None) -> list[int]:
    """Reverse segments while that shortens the tour (keeping ring-adjacency if `adj` is given)."""
    s = len(tour)
    if s < 4:
        return tour
    improved = True
    rounds = 0
    while improved and rounds < 50:
        improved = False
        rounds += 1
        for i in range(s - 1):
            for j in range(i + 2, s if i > 0 else s - 1):
                a, b, c, d = tour[i], tour[i + 1], tour[j], tour[(j + 1) % s]
                if dist[a, c] + dist[b, d] < dist[a, b] + dist[c, d]:
                    if adj is not None and not (adj[a, c] and adj[b, d]):
                        continue
                    tour[i + 1: j + 1] = tour[i + 1: j + 1][::-1]
                    improved = True
    return tour
