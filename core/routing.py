"""Routing and node trees: the only place in the project that computes routes.

For root r every node is routed along a shortest path to r. Its next hop is the neighbour one
step closer to r with the lowest node id (``mode="shortest"``, the default and the model's
rule), or, with ``mode="balanced"``, the ((r + v) mod m)-th of the m closer neighbours of v, so
that different roots spread over equal-length routes. The next hops of one root form a tree
over all nodes; the **node tree** keeps only the servers: the parent of server s is the first
server on s's route, and the tree edge is that route segment, which crosses switches only.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numba import njit
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path

from .topology import Topology

ROUTING_MODES = ("shortest", "balanced")


@dataclass(frozen=True, eq=False)
class Routes:
    """Next hops toward every server and the node trees they induce.

    Attributes
    ----------
    topology : the graph routed over.
    mode : ``"shortest"`` (lowest-id tie-break) or ``"balanced"``.
    dist : int array (S, n), hop distance from each node to root server i (row i = servers[i]).
    next_hop : int array (S, n), next node toward root i (-1 at the root itself).
    parent : int array (S, S), parent server *index* of server j in tree i (-1 at the root).
    seg_nodes : int array (S, S, L+1), the node path from server j to its parent in tree i,
        padded with -1; seg_len : int array (S, S), its number of links (0 at the root).
    """

    topology: Topology
    mode: str
    dist: np.ndarray
    next_hop: np.ndarray
    parent: np.ndarray
    seg_nodes: np.ndarray
    seg_len: np.ndarray

    @cached_property
    def seg_links(self) -> np.ndarray:
        """Directed link ids of every segment, int array (S, S, L) padded with -1."""
        ptr, nbr, link = self.topology.adjacency
        return _segment_links(self.seg_nodes, ptr, nbr, link)

    @cached_property
    def depth(self) -> np.ndarray:
        """Depth (tree edges to the root) of server j in tree i, int array (S, S)."""
        s = self.parent.shape[0]
        depth = np.zeros((s, s), dtype=np.int64)
        cur = self.parent.copy()
        rows = np.arange(s)[:, None]
        alive = cur >= 0
        while alive.any():
            depth += alive
            cur = np.where(alive, self.parent[rows, np.maximum(cur, 0)], -1)
            alive = cur >= 0
        return depth

    def route(self, src: int, dst_server: int) -> list[int]:
        """Node path from node `src` to server `dst_server` along the routing of that root."""
        i = int(self.topology.server_index[dst_server])
        if i < 0:
            raise ValueError(f"route destination {dst_server} is not a server")
        path = [int(src)]
        while path[-1] != dst_server:
            path.append(int(self.next_hop[i, path[-1]]))
        return path

    def node_tree(self, root: int) -> "NodeTree":
        """The node tree of one root server (node id)."""
        i = int(self.topology.server_index[root])
        if i < 0:
            raise ValueError(f"root {root} is not a server")
        servers = self.topology.servers
        parent = {int(servers[j]): int(servers[p]) for j, p in enumerate(self.parent[i]) if p >= 0}
        segments = {int(servers[j]): [int(x) for x in self.seg_nodes[i, j, : self.seg_len[i, j] + 1]]
                    for j in range(len(servers)) if self.parent[i, j] >= 0}
        used = np.zeros(self.topology.n_edges, dtype=bool)
        links = self.seg_links[i]
        used[links[links >= 0] // 2] = True
        return NodeTree(root=int(root), parent=parent, segments=segments,
                        used_edges=np.flatnonzero(used), pruned_edges=np.flatnonzero(~used))


@dataclass(frozen=True)
class NodeTree:
    """One root's node tree: parent server and route segment of each other server."""

    root: int
    parent: dict[int, int]
    segments: dict[int, list[int]]
    used_edges: np.ndarray
    pruned_edges: np.ndarray

    def children(self, server: int) -> list[int]:
        """Servers whose parent is `server`, ascending."""
        return sorted(s for s, p in self.parent.items() if p == server)


def compute_routes(topology: Topology, mode: str = "shortest") -> Routes:
    """Route every node toward every server and build all node trees (vectorized over roots)."""
    if mode not in ROUTING_MODES:
        raise ValueError(f"routing must be one of {', '.join(ROUTING_MODES)}, got {mode!r}")
    t = topology
    n = t.n_nodes
    servers = t.servers
    ptr, nbr, _ = t.adjacency
    graph = csr_matrix((np.ones(len(nbr)), nbr, ptr), shape=(n, n))
    dist = shortest_path(graph, unweighted=True, indices=servers).astype(np.int64)  # (S, n)

    # next hops and the walk from every server to the first server toward each root, compiled
    # (docs/scale.md: the (S, links) and (S*S) temporaries of a vectorized form need GBs at S = 4096)
    next_hop = _next_hops(dist, ptr, nbr, servers, mode == "balanced")
    seg_len = _segment_lengths(next_hop, servers, t.is_server)
    seg_nodes = _segment_nodes(next_hop, servers, seg_len, int(seg_len.max()) if len(servers) else 0)
    end = np.take_along_axis(seg_nodes, seg_len[..., None].astype(np.int64), axis=2)[..., 0]
    parent = np.where(seg_len > 0, t.server_index[np.maximum(end, 0)], -1)
    return Routes(topology=t, mode=mode, dist=dist, next_hop=next_hop, parent=parent,
                  seg_nodes=seg_nodes, seg_len=seg_len)


def switch_only_route(topology: Topology, src: int, dst: int) -> list[int] | None:
    """Shortest path from server `src` to server `dst` whose interior nodes are all switches
    (lowest-id next hop among equals), or None if no such path exists."""
    t = topology
    ptr, nbr, _ = t.adjacency
    dist = {dst: 0}
    frontier = [dst]
    while frontier and src not in dist:
        nxt = []
        for v in frontier:
            if v != dst and t.is_server[v]:
                continue  # a server other than the end is never crossed
            for u in nbr[ptr[v]:ptr[v + 1]].tolist():
                if u not in dist:
                    dist[u] = dist[v] + 1
                    nxt.append(u)
        frontier = nxt
    if src not in dist:
        return None
    path = [src]
    while path[-1] != dst:
        v = path[-1]
        d = dist[v]
        path.append(min(u for u in nbr[ptr[v]:ptr[v + 1]].tolist()
                        if dist.get(u) == d - 1 and (u == dst or not t.is_server[u])))
    return path


@njit(cache=True)
def _next_hops(dist, ptr, nbr, servers, balanced):  # pragma: no cover - compiled
    """Next hop of every node toward every root (-1 at the root and where none is closer)."""
    s, n = dist.shape
    out = np.full((s, n), -1, np.int32)
    for i in range(s):
        for v in range(n):
            if v == servers[i]:
                continue
            want = dist[i, v] - 1
            if balanced:
                m = 0
                for e in range(ptr[v], ptr[v + 1]):
                    if dist[i, nbr[e]] == want:
                        m += 1
                if m == 0:
                    continue
                pick = (servers[i] + v) % m
                for e in range(ptr[v], ptr[v + 1]):
                    if dist[i, nbr[e]] == want:
                        if pick == 0:
                            out[i, v] = nbr[e]
                            break
                        pick -= 1
            else:
                for e in range(ptr[v], ptr[v + 1]):  # neighbours ascending: the first is the lowest id
                    if dist[i, nbr[e]] == want:
                        out[i, v] = nbr[e]
                        break
    return out


@njit(cache=True)
def _segment_lengths(next_hop, servers, is_server):  # pragma: no cover - compiled
    """Links from server j to the first server on its route to root i (0 at the root), (S, S)."""
    s = len(servers)
    out = np.zeros((s, s), np.int64)
    for i in range(s):
        for j in range(s):
            if i == j:
                continue
            v = servers[j]
            k = 0
            while True:
                v = next_hop[i, v]
                k += 1
                if v < 0 or is_server[v]:
                    break
            out[i, j] = k
    return out


@njit(cache=True)
def _segment_nodes(next_hop, servers, seg_len, width):  # pragma: no cover - compiled
    """Node paths of the segments, (S, S, width + 1) padded with -1."""
    s = len(servers)
    out = np.full((s, s, width + 1), -1, np.int32)
    for i in range(s):
        for j in range(s):
            if i == j:
                continue
            v = servers[j]
            out[i, j, 0] = v
            for k in range(seg_len[i, j]):
                v = next_hop[i, v]
                out[i, j, k + 1] = v
    return out


@njit(cache=True)
def _segment_links(nodes, ptr, nbr, link):  # pragma: no cover - compiled
    """Directed link ids along every segment, (S, S, L) padded with -1."""
    s1, s2, w = nodes.shape
    out = np.full((s1, s2, max(w - 1, 0)), -1, np.int32)
    for i in range(s1):
        for j in range(s2):
            for k in range(w - 1):
                a = nodes[i, j, k]
                b = nodes[i, j, k + 1]
                if a < 0 or b < 0:
                    break
                for e in range(ptr[a], ptr[a + 1]):
                    if nbr[e] == b:
                        out[i, j, k] = link[e]
                        break
    return out
