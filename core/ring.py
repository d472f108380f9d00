"""The server ring of Ring AllReduce.

Two servers are *ring-adjacent* when a path whose interior nodes are all switches joins them.
The ring is a Hamiltonian cycle of that graph when one is found (depth-first search with
Warnsdorff's rule, under a step budget), shortened by 2-opt moves that keep every edge
adjacent; otherwise the best tour found by nearest-neighbour + 2-opt on hop distance, whose
sends then cross other servers and are relayed there.
"""

from __future__ import annotations

import numpy as np

from .routing import Routes
from .topology import Topology


def ring_adjacency(topology: Topology) -> np.ndarray:
    """Boolean (S, S) matrix: server i and j joined by a path through switches only."""
    t = topology
    s = t.n_servers
    adj = np.zeros((s, s), dtype=bool)
    ptr, nbr, _ = t.adjacency
    # switch components: union-find over switch-switch links
    parent = np.arange(t.n_nodes)

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v in t.edges.tolist():
        if not t.is_server[u] and not t.is_server[v]:
            parent[find(u)] = find(v)
    members: dict[int, list[int]] = {}
    for a in t.servers.tolist():
        ia = int(t.server_index[a])
        for b in nbr[ptr[a]:ptr[a + 1]].tolist():
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


def _hamiltonian(adj: np.ndarray, dist: np.ndarray, budget: int) -> list[int] | None:
    s = len(adj)
    nbrs = [sorted(np.flatnonzero(adj[i]).tolist(), key=lambda j, i=i: (dist[i, j], j)) for i in range(s)]
    if any(len(x) < 2 for x in nbrs):
        return None
    visited = np.zeros(s, dtype=bool)
    path = [0]
    visited[0] = True
    steps = 0
    stack = [iter(_warnsdorff(0, nbrs, visited))]
    while stack:
        steps += 1
        if steps > budget:
            return None
        nxt = next(stack[-1], None)
        if nxt is None:
            stack.pop()
            visited[path.pop()] = False
            continue
        path.append(nxt)
        visited[nxt] = True
        if len(path) == s:
            if adj[nxt, 0]:
                return path
            visited[path.pop()] = False
            continue
        stack.append(iter(_warnsdorff(nxt, nbrs, visited)))
    return None


def _warnsdorff(v: int, nbrs: list[list[int]], visited: np.ndarray) -> list[int]:
    cand = [u for u in nbrs[v] if not visited[u]]
    return sorted(cand, key=lambda u: sum(1 for x in nbrs[u] if not visited[x]))


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
