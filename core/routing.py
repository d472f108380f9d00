"""Routing and node trees: the only place in the project that computes routes.

For root r every node is routed along a shortest path to r. Its next hop is the neighbour one
step closer to r with the lowest node id (``mode="shortest"``, the default and the model's
rule), or, with ``mode="balanced"``, the ((r + v) mod m)-th of the m closer neighbours of v, so
that different roots spread over equal-length routes. The next hops of one root form a tree
over all nodes; the **node tree** keeps only the servers: the parent of server s is the first
server on s's route, and the tree edge is that route segment, which crosses switches only.

Failed links (`Topology.failed`) are never routed over: routes are shortest paths of the live
graph, and a failure that separates servers raises `DisconnectedError` naming the servers cut
off and the failed links around them (docs/time.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .jit import SMALL, kernel
from .topology import Topology
from .topology.degrade import DisconnectedError, check_connected  # noqa: F401 - re-exported

ROUTING_MODES = ("shortest", "balanced", "bandwidth")
ROUTING_HELP = ("shortest routes with the lowest-id tie-break (default), balanced over equal routes, "
                "or bandwidth: trees avoiding slow and loaded links")
"""What each routing mode does, in one line: the CLI's --routing help and the dashboard's Routing option."""


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
        return _depths(self.parent)

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
    check_connected(t)
    servers = t.servers
    dist = t.hops(servers, live=True)  # (S, n); failed links are never routed over; n + 1: a switch failures cut off

    if mode == "bandwidth":
        next_hop = _bandwidth_next_hops(t)
    else:
        # compiled (docs/scale.md: the (S, links) temporaries of a vectorized form need GBs at S = 4096)
        ptr, nbr, link = t.adjacency  # every node keeps an entry; failed ones never lead toward a root
        next_hop = _next_hops(dist, ptr, nbr, ~t.link_failed[link], servers, mode == "balanced")
    seg_nodes, seg_len, parent = _segments(t, next_hop, np.arange(len(servers)))
    return Routes(topology=t, mode=mode, dist=dist, next_hop=next_hop, parent=parent,
                  seg_nodes=seg_nodes, seg_len=seg_len)


def _segments(t: Topology, next_hop: np.ndarray, roots: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Walk from every server toward each root (row of `next_hop`) until the first server: the node-tree
    segments (R, S, L+1) padded with -1, their lengths (R, S) and the parent server indices (R, S)."""
    servers = t.servers
    roots = np.asarray(roots, dtype=np.int64)
    seg_len = _segment_lengths(next_hop, roots, servers, t.is_server)
    seg_nodes = _segment_nodes(next_hop, roots, servers, seg_len, int(seg_len.max()) if seg_len.size else 0)
    end = np.take_along_axis(seg_nodes, seg_len[..., None].astype(np.int64), axis=2)[..., 0]
    parent = np.where(seg_len > 0, t.server_index[np.maximum(end, 0)], -1)
    return seg_nodes, seg_len, parent


def _bandwidth_next_hops(t: Topology) -> np.ndarray:
    """Next hops of the "bandwidth" mode: root by root (server order), a shortest-path tree under link
    weights (1 + tree segments already routed over the link) x (fastest bandwidth / its bandwidth), so
    trees avoid slow and loaded links; ties as scipy's Dijkstra breaks them (deterministic)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    n = t.n_nodes
    ptr, nbr, link = t.live_adjacency
    edge = link // 2
    slow = t.bandwidth.max() / t.bandwidth  # 1 on the fastest links
    load = np.zeros(t.n_edges)
    servers = t.servers
    next_hop = np.full((len(servers), n), -1, dtype=np.int64)
    for i, r in enumerate(servers.tolist()):
        graph = csr_matrix(((1.0 + load[edge]) * slow[edge], nbr, ptr), shape=(n, n))
        _, pred = dijkstra(graph, directed=True, indices=r, return_predecessors=True)
        next_hop[i] = np.where(pred >= 0, pred, -1)
        seg, seg_len, _ = _segments(t, next_hop, np.array([i]))
        a, b = seg[0, :, :-1], seg[0, :, 1:]
        ok = (a >= 0) & (b >= 0)
        if ok.any():
            np.add.at(load, t.link_ids_of(a[ok], b[ok]) // 2, 1.0)
    return next_hop


def bandwidth_tiers(topology: Topology) -> list[float]:
    """The distinct bandwidths (Gbit/s) of the live links, fastest first."""
    live = topology.bandwidth[~topology.failed]
    return sorted({float(b) for b in live}, reverse=True)


def widest_switch_route(topology: Topology, src: int, dst: int) -> list[int] | None:
    """The fastest switch-only path from server `src` to server `dst`: the largest bottleneck bandwidth,
    then the fewest hops (lowest-id next hop among equals), or None if no switch-only path exists."""
    for tier in bandwidth_tiers(topology):
        path = switch_only_route(topology, src, dst, min_bandwidth=tier)
        if path is not None:
            return path
    return None


def switch_only_route(topology: Topology, src: int, dst: int, min_bandwidth: float = 0.0) -> list[int] | None:
    """Shortest path from server `src` to server `dst` whose interior nodes are all switches
    (lowest-id next hop among equals, failed links and links slower than `min_bandwidth` Gbit/s
    avoided), or None if no such path exists."""
    t = topology
    ptr, nbr, link = t.live_adjacency
    if min_bandwidth > 0:
        ok = t.link_bandwidth[link] >= min_bandwidth
        src_of = np.repeat(np.arange(t.n_nodes), np.diff(ptr))[ok]
        ptr = np.zeros(t.n_nodes + 1, dtype=np.int64)
        np.cumsum(np.bincount(src_of, minlength=t.n_nodes), out=ptr[1:])
        nbr = nbr[ok]
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


def send_segments(topology: Topology, routes: Routes, src: int, dst: int, widest: bool = False) -> list[list[int]]:
    """The hops of a send from server `src` to server `dst`: the switch-only shortest path when one
    exists (one segment; with `widest`, the fastest one: `widest_switch_route`), else the routed path
    cut at every server it crosses (relays there)."""
    direct = widest_switch_route(topology, src, dst) if widest else switch_only_route(topology, src, dst)
    full = direct or routes.route(src, dst)
    cuts = [i for i, v in enumerate(full) if topology.is_server[v]]
    return [full[cuts[m]: cuts[m + 1] + 1] for m in range(len(cuts) - 1)]


@kernel(interpret_below=SMALL)
def _next_hops(dist, ptr, nbr, usable, servers, balanced):  # pragma: no cover - compiled
    """Next hop of every node toward every root over usable adjacency entries (-1 at the root and
    where none is closer)."""
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
                    if usable[e] and dist[i, nbr[e]] == want:
                        m += 1
                if m == 0:
                    continue
                pick = (servers[i] + v) % m
                for e in range(ptr[v], ptr[v + 1]):
                    if usable[e] and dist[i, nbr[e]] == want:
                        if pick == 0:
                            out[i, v] = nbr[e]
                            break
                        pick -= 1
            else:
                for e in range(ptr[v], ptr[v + 1]):  # neighbours ascending: the first is the lowest id
                    if usable[e] and dist[i, nbr[e]] == want:
                        out[i, v] = nbr[e]
                        break
    return out


@kernel(interpret_below=SMALL)
def _segment_lengths(next_hop, roots, servers, is_server):  # pragma: no cover - compiled
    """Links from server j to the first server on its route to root roots[r] (0 at the root), (R, S)."""
    s = len(servers)
    out = np.zeros((len(roots), s), np.int64)
    for r in range(len(roots)):
        i = roots[r]
        for j in range(s):
            if i == j:
                continue
            v = servers[j]
            k = 0
            while True:
                v = next_hop[i, v]
                if v < 0:  # no route (cut off): the segment ends where the walk stops
                    break
                k += 1
                if is_server[v]:
                    break
            out[r, j] = k
    return out


@kernel(interpret_below=SMALL)
def _depths(parent):  # pragma: no cover - compiled
    """Tree edges from server j up to the root of tree i, (S, S): parent[i] followed to -1."""
    s1, s2 = parent.shape
    out = np.zeros((s1, s2), np.int64)
    for i in range(s1):
        for j in range(s2):
            d = 0
            x = parent[i, j]
            while x >= 0:
                d += 1
                x = parent[i, x]
            out[i, j] = d
    return out


@kernel(interpret_below=SMALL)
def _segment_nodes(next_hop, roots, servers, seg_len, width):  # pragma: no cover - compiled
    """Node paths of the segments, (R, S, width + 1) padded with -1."""
    s = len(servers)
    out = np.full((len(roots), s, width + 1), -1, np.int32)
    for r in range(len(roots)):
        i = roots[r]
        for j in range(s):
            if i == j:
                continue
            v = servers[j]
            out[r, j, 0] = v
            for k in range(seg_len[r, j]):
                v = next_hop[i, v]
                out[r, j, k + 1] = v
    return out


@kernel(interpret_below=SMALL)
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


@dataclass(frozen=True)
class TopSpread:
    """How the trees of one routing spread over a topology's top layer of switches (a fat-tree's core)."""

    mode: str
    used: tuple[int, ...]
    """Top-layer switches (node ids, ascending) that some tree's route crosses."""
    total: int
    """Switches in the top layer."""
    busiest: int
    """Route segments over the busiest directed link, counted over every root's tree."""


def top_spread(routes: Routes) -> TopSpread:
    """Which top-layer switches (the highest `Topology.layer` among switches) the node trees of `routes` cross, and
    the busiest directed link's count of tree segments. With the lowest-id tie-break every fat-tree route between pods
    climbs to the first core switch; "balanced" spreads the roots over all of them."""
    t = routes.topology
    switches = np.flatnonzero(~t.is_server)
    top = int(t.layer[switches].max()) if len(switches) else -1
    nodes = routes.seg_nodes[routes.seg_nodes >= 0]
    used = np.unique(nodes[(t.layer[nodes] == top) & ~t.is_server[nodes]]) if len(switches) else np.empty(0, np.int64)
    links = routes.seg_links[routes.seg_links >= 0]
    load = np.bincount(links, minlength=2 * t.n_edges)
    return TopSpread(mode=routes.mode, used=tuple(int(x) for x in used),
                     total=int((t.layer[switches] == top).sum()), busiest=int(load.max(initial=0)))
