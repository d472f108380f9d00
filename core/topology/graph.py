"""The `Topology` type: an undirected graph of servers and switches with full-duplex links.

Node ids are ``0 .. n-1``. Every undirected edge ``e = (u, v)`` is two directed links:
``2e`` is ``u -> v`` and ``2e + 1`` is ``v -> u``; each carries ``capacity[e]`` workloads a
round. Everything downstream (routing, workloads, the engine, heatmaps) indexes links this way.

Beside the round model's ``capacity``, every edge has the time model's properties (docs/time.md):
``bandwidth`` in Gbit/s per direction (full duplex), ``latency`` in µs, and ``failed`` (a cut
link: both directions down). A slowed link is one with a lower ``bandwidth``. The topology is
immutable: `Topology.with_links` returns a changed copy with the same nodes, edges and link ids.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..jit import SMALL, both, kernel

if TYPE_CHECKING:
    import networkx as nx

SERVER = "server"
SWITCH = "switch"
MAX_SERVERS = 100_000
"""The generators' own limit on servers (the size guard usually refuses much earlier)."""

DEFAULT_BANDWIDTH = 100.0
"""Gbit/s per direction of a link whose family or file gives none (100 GbE, docs/time.md)."""
DEFAULT_LATENCY = 1.0
"""µs per link (one cut-through switch hop plus a few metres of cable, docs/time.md)."""


class TopologyError(ValueError):
    """A topology that breaks a rule of the model (the message names the rule and the value)."""


@dataclass(frozen=True, eq=False)
class Topology:
    """An immutable data-center graph.

    Attributes
    ----------
    spec : the spec string that builds it (``"bcube:n=3,k=1"``) or a description.
    is_server : bool array (n,), True for servers.
    edges : int array (E, 2), undirected edges ``(u, v)``.
    capacity : int array (E,), workloads per round per direction.
    labels : one readable label per node (``"s01"``, ``"sw1.2"``).
    layer : int array (n,), a drawing layer (0 = servers, switches above by level).
    group : int array (n,), a drawing group (BCube position, DCell cell, fat-tree pod).
    bandwidth : float array (E,), Gbit/s per direction (default `DEFAULT_BANDWIDTH`).
    latency : float array (E,), µs (default `DEFAULT_LATENCY`).
    failed : bool array (E,), True for a failed (cut) link (default none).
    edge_level : int array (E,), the family's link level, which spec options such as
        ``bw=100/25`` address (BCube: switch level; DCell: 0 = switch, l = DCell_l link;
        fat-tree: 0 host-edge, 1 edge-aggregation, 2 aggregation-core; Jellyfish: 0 server,
        1 switch-switch; files and examples: 0).
    carried_spec : the family spec a JSON topology file carries (``"spec"``, as ``topology --format json``
        writes it), or None; only a claim: `core.topology.carried.carried_difference` checks it against the graph.
    """

    spec: str
    is_server: np.ndarray
    edges: np.ndarray
    capacity: np.ndarray
    labels: tuple[str, ...]
    layer: np.ndarray = field(default=None)  # type: ignore[assignment]
    group: np.ndarray = field(default=None)  # type: ignore[assignment]
    bandwidth: np.ndarray = field(default=None)  # type: ignore[assignment]
    latency: np.ndarray = field(default=None)  # type: ignore[assignment]
    failed: np.ndarray = field(default=None)  # type: ignore[assignment]
    edge_level: np.ndarray = field(default=None)  # type: ignore[assignment]
    carried_spec: str | None = None

    def __post_init__(self) -> None:
        n = len(self.is_server)
        edges = np.asarray(self.edges, dtype=np.int64).reshape(-1, 2)
        object.__setattr__(self, "edges", edges)
        object.__setattr__(self, "is_server", np.asarray(self.is_server, dtype=bool))
        object.__setattr__(self, "capacity", np.asarray(self.capacity, dtype=np.int64))
        if self.layer is None:
            object.__setattr__(self, "layer", np.where(self.is_server, 0, 1))
        if self.group is None:
            object.__setattr__(self, "group", np.zeros(n, dtype=np.int64))
        n_e = len(edges)
        for name, default, dtype in (("bandwidth", DEFAULT_BANDWIDTH, np.float64), ("latency", DEFAULT_LATENCY, np.float64),
                                     ("failed", False, bool), ("edge_level", 0, np.int64)):
            value = getattr(self, name)
            value = np.full(n_e, default, dtype=dtype) if value is None else np.array(value, dtype=dtype).reshape(-1)
            object.__setattr__(self, name, value)
        for name in ("is_server", "edges", "capacity", "layer", "group", "bandwidth", "latency", "failed",
                     "edge_level"):
            getattr(self, name).setflags(write=False)
        _check(self)

    # ---- sizes -------------------------------------------------------------------------
    @property
    def n_nodes(self) -> int:
        """Number of nodes (servers and switches)."""
        return len(self.is_server)

    @property
    def n_edges(self) -> int:
        """Number of undirected links."""
        return len(self.edges)

    @property
    def n_links(self) -> int:
        """Number of directed links (2 per edge)."""
        return 2 * len(self.edges)

    @cached_property
    def servers(self) -> np.ndarray:
        """Node ids of the servers, ascending."""
        return np.flatnonzero(self.is_server)

    @cached_property
    def switches(self) -> np.ndarray:
        """Node ids of the switches, ascending."""
        return np.flatnonzero(~self.is_server)

    @property
    def n_servers(self) -> int:
        """Number of servers."""
        return int(self.is_server.sum())

    @cached_property
    def server_index(self) -> np.ndarray:
        """Map node id -> position in `servers` (-1 for switches)."""
        idx = np.full(self.n_nodes, -1, dtype=np.int64)
        idx[self.servers] = np.arange(len(self.servers))
        return idx

    # ---- directed links ----------------------------------------------------------------
    @cached_property
    def link_src(self) -> np.ndarray:
        """Tail node of each directed link."""
        return np.stack([self.edges[:, 0], self.edges[:, 1]], axis=1).reshape(-1)

    @cached_property
    def link_dst(self) -> np.ndarray:
        """Head node of each directed link."""
        return np.stack([self.edges[:, 1], self.edges[:, 0]], axis=1).reshape(-1)

    @cached_property
    def link_capacity(self) -> np.ndarray:
        """Capacity of each directed link."""
        return np.repeat(self.capacity, 2)

    @cached_property
    def link_bandwidth(self) -> np.ndarray:
        """Bandwidth of each directed link in Gbit/s (a failed link keeps its nominal value)."""
        return np.repeat(self.bandwidth, 2)

    @cached_property
    def link_latency(self) -> np.ndarray:
        """Latency of each directed link in µs."""
        return np.repeat(self.latency, 2)

    @cached_property
    def link_failed(self) -> np.ndarray:
        """True for each directed link of a failed edge."""
        return np.repeat(self.failed, 2)

    def with_links(self, *, bandwidth: np.ndarray | float | None = None, latency: np.ndarray | float | None = None,
                   failed: np.ndarray | None = None, spec: str | None = None) -> "Topology":
        """A copy with new per-edge bandwidth (Gbit/s), latency (µs) and/or failed flags; same link ids."""
        n_e = self.n_edges
        return replace(
            self, spec=self.spec if spec is None else spec,
            bandwidth=self.bandwidth if bandwidth is None else np.broadcast_to(np.asarray(bandwidth, np.float64), (n_e,)),
            latency=self.latency if latency is None else np.broadcast_to(np.asarray(latency, np.float64), (n_e,)),
            failed=self.failed if failed is None else np.asarray(failed, bool))

    def with_servers(self, servers: np.ndarray | list[int], spec: str | None = None) -> "Topology":
        """A copy where only `servers` compute; every other server only forwards, like a switch.

        Nodes, edges and link ids are unchanged, so a DAG built on the copy (a job placed on
        `servers`) uses the link ids of the whole cluster and per-link arrays line up.
        """
        servers = np.asarray(servers, dtype=np.int64).reshape(-1)
        bad = servers[(servers < 0) | (servers >= self.n_nodes)]
        if len(bad) or not self.is_server[servers].all():
            which = int(bad[0]) if len(bad) else int(servers[~self.is_server[servers]][0])
            raise TopologyError(f"with_servers: node {which} is not a server of {self.spec}")
        keep = np.zeros(self.n_nodes, dtype=bool)
        keep[servers] = True
        return replace(self, spec=spec or f"{self.spec} on {len(np.unique(servers))} servers", is_server=keep)

    @cached_property
    def _link_keys(self) -> tuple[np.ndarray, np.ndarray]:
        key = self.link_src * self.n_nodes + self.link_dst
        order = np.argsort(key)
        return key[order], order

    def link_ids_of(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Vectorized directed link ids of ``u[i] -> v[i]``; raises KeyError where they are not adjacent."""
        u = np.asarray(u, dtype=np.int64)
        v = np.asarray(v, dtype=np.int64)
        keys, order = self._link_keys
        want = u * self.n_nodes + v
        pos = np.searchsorted(keys, want)
        pos_c = np.minimum(pos, len(keys) - 1)
        bad = keys[pos_c] != want
        if np.any(bad):
            i = int(np.flatnonzero(bad.reshape(-1))[0])
            raise KeyError(f"no link {int(u.reshape(-1)[i])}->{int(v.reshape(-1)[i])}")
        return order[pos_c]

    def link_id(self, u: int, v: int) -> int:
        """Directed link id of ``u -> v``; raises KeyError if they are not adjacent."""
        return int(self.link_ids_of(np.array([u]), np.array([v]))[0])

    def link_ids(self, path: np.ndarray | list[int]) -> np.ndarray:
        """Directed link ids along a node path."""
        path = np.asarray(path, dtype=np.int64)
        return self.link_ids_of(path[:-1], path[1:])

    def link_label(self, link: int) -> str:
        """Readable name of a directed link, ``"s0->sw1.0"``."""
        return f"{self.labels[self.link_src[link]]}->{self.labels[self.link_dst[link]]}"

    # ---- adjacency (CSR, neighbours ascending) ------------------------------------------
    @cached_property
    def adjacency(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(ptr, nbr, link)``: neighbours of v are ``nbr[ptr[v]:ptr[v+1]]`` ascending, with the link v->nbr."""
        src, dst = self.link_src, self.link_dst
        order = np.lexsort((dst, src))
        ptr = np.zeros(self.n_nodes + 1, dtype=np.int64)
        np.cumsum(np.bincount(src, minlength=self.n_nodes), out=ptr[1:])
        return ptr, dst[order], order

    @cached_property
    def live_adjacency(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`adjacency` without the failed links: what routing may use."""
        return self.adjacency_without(self.failed)

    def adjacency_without(self, failed: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`adjacency` without both links of every edge marked in `failed` (a bool per edge)."""
        ptr, nbr, link = self.adjacency
        if not failed.any():
            return ptr, nbr, link
        keep = ~np.repeat(failed, 2)[link]
        src = np.repeat(np.arange(self.n_nodes), np.diff(ptr))[keep]
        live_ptr = np.zeros(self.n_nodes + 1, dtype=np.int64)
        np.cumsum(np.bincount(src, minlength=self.n_nodes), out=live_ptr[1:])
        return live_ptr, nbr[keep], link[keep]

    def cut_off_servers(self) -> np.ndarray:
        """Servers that failed links separate from the others: every server outside the live component
        holding the most servers (ties: the one with the lowest server id); empty when all are connected."""
        if not self.failed.any():
            return np.zeros(0, dtype=np.int64)
        srv_comp = self.components(self.failed)[self.servers]
        counts = np.bincount(srv_comp)
        main = int(srv_comp[np.argmax(counts[srv_comp])])  # first server of a largest component
        return self.servers[srv_comp != main]

    @cached_property
    def degree(self) -> np.ndarray:
        """Number of links at each node."""
        return np.diff(self.adjacency[0])

    def out_capacity(self) -> np.ndarray:
        """Total outgoing capacity of each node (workloads it can send a round)."""
        return np.bincount(self.link_src, weights=self.link_capacity, minlength=self.n_nodes).astype(np.int64)

    # ---- conversions -------------------------------------------------------------------
    def to_networkx(self) -> "nx.Graph":
        """An undirected networkx graph: node attributes kind/label/layer/group; edge capacity, bandwidth,
        latency, failed and level."""
        import networkx as nx  # not at the top: ~0.1 s of import that building and routing never need
        g = nx.Graph()
        for v in range(self.n_nodes):
            g.add_node(v, kind=SERVER if self.is_server[v] else SWITCH, label=self.labels[v],
                       layer=int(self.layer[v]), group=int(self.group[v]))
        for (u, v), c, bw, lat, bad, lev in zip(self.edges.tolist(), self.capacity.tolist(), self.bandwidth.tolist(),
                                                self.latency.tolist(), self.failed.tolist(), self.edge_level.tolist()):
            g.add_edge(u, v, capacity=c, bandwidth=bw, latency=lat, failed=bad, level=lev)
        return g

    def hops(self, sources: np.ndarray, live: bool = False, through: np.ndarray | None = None) -> np.ndarray:
        """Hops from each source node to every node, int array (len(sources), n); ``n + 1`` where no path
        leads (`live`: over the working links only, else over every link; `through`: the nodes a path may
        pass through, default all — a source always may)."""
        ptr, nbr, _ = self.live_adjacency if live else self.adjacency
        sources = np.asarray(sources, np.int64)
        out = np.empty((len(sources), self.n_nodes), np.int64)
        through = np.ones(self.n_nodes, np.bool_) if through is None else np.asarray(through, np.bool_)
        h = len(sources) // 2  # the sources' rows are independent: two halves at once on two cores
        both(lambda: _bfs(ptr, nbr, sources[:h], through, out[:h]), lambda: _bfs(ptr, nbr, sources[h:], through, out[h:]),
             size=out.size)
        return out

    def components(self, failed: np.ndarray | None = None) -> np.ndarray:
        """Connected component of every node, numbered from 0 in the order of each one's lowest node, over
        every link, or without the edges marked in `failed` (a bool per edge: `self.failed` for the working links)."""
        ptr, nbr, _ = self.adjacency if failed is None else self.adjacency_without(np.asarray(failed, np.bool_))
        return _components(ptr, nbr)

    def diameter(self) -> int:
        """Hops on the longest shortest path, failed links included (sources in blocks of <= 2^22 distances)."""
        n, block = self.n_nodes, max(1, (1 << 22) // self.n_nodes)
        return max(int(self.hops(np.arange(a, min(a + block, n))).max()) for a in range(0, n, block))

    def summary(self) -> dict:
        """Counts and degree statistics, as plain Python values."""
        deg = self.degree
        srv, sw = self.servers, self.switches
        return {
            "spec": self.spec,
            "nodes": self.n_nodes,
            "servers": len(srv),
            "switches": len(sw),
            "edges": self.n_edges,
            "directed_links": self.n_links,
            "server_degree": _hist(deg[srv]),
            "switch_degree": _hist(deg[sw]),
            "diameter": self.diameter(),
            "bandwidth_gbps": _hist(self.bandwidth),
            "latency_us": _hist(self.latency),
            "failed_links": int(self.failed.sum()),
        }


def _hist(values: np.ndarray) -> dict:
    """Value -> count (integers stay int; bandwidths and latencies are floats)."""
    uniq, counts = np.unique(values, return_counts=True)
    return {(int(u) if float(u).is_integer() else float(u)): int(c) for u, c in zip(uniq.tolist(), counts)}


def _check(t: Topology) -> None:
    n = t.n_nodes
    if len(t.labels) != n:
        raise TopologyError(f"labels: need one per node ({n}), got {len(t.labels)}")
    if t.edges.size and (t.edges.min() < 0 or t.edges.max() >= n):
        raise TopologyError(f"edges: node ids must lie in 0..{n - 1}")
    if np.any(t.edges[:, 0] == t.edges[:, 1]):
        u = int(t.edges[t.edges[:, 0] == t.edges[:, 1]][0, 0])
        raise TopologyError(f"self-loops are not allowed (node {t.labels[u]!r})")
    key = np.sort(t.edges, axis=1)
    if len(np.unique(key, axis=0)) != len(key):
        raise TopologyError(_parallel(t, key))
    if len(t.capacity) != len(t.edges):
        raise TopologyError("capacity: need one value per edge")
    if len(t.capacity) and t.capacity.min() < 1:
        raise TopologyError(f"capacity must be a positive integer, got {int(t.capacity.min())}")
    for name in ("bandwidth", "latency", "failed", "edge_level"):
        if len(getattr(t, name)) != len(t.edges):
            raise TopologyError(f"{name}: need one value per edge ({len(t.edges)}), got {len(getattr(t, name))}")
    bad_bw = ~(np.isfinite(t.bandwidth) & (t.bandwidth > 0))
    if bad_bw.any():
        e = int(np.flatnonzero(bad_bw)[0])
        raise TopologyError(f"bandwidth must be a finite number > 0 Gbit/s, got {t.bandwidth[e]} on edge "
                            f"{tuple(t.edges[e].tolist())}")
    bad_lat = ~(np.isfinite(t.latency) & (t.latency >= 0))
    if bad_lat.any():
        e = int(np.flatnonzero(bad_lat)[0])
        raise TopologyError(f"latency must be a finite number >= 0 µs, got {t.latency[e]} on edge "
                            f"{tuple(t.edges[e].tolist())}")
    s = int(t.is_server.sum())
    if s < 2:
        raise TopologyError(f"a topology needs at least 2 servers for AllReduce, got {s}")
    comp = t.components() if n else np.zeros(0, np.int64)
    if n and int(comp.max()) > 0:
        raise TopologyError(_disconnected(t, comp))


SHOWN_NODES = 6
"""How many nodes a message names before "and N more"."""


def _names(labels: list[str], limit: int = SHOWN_NODES) -> str:
    """The first `limit` labels, then "and N more"."""
    more = f" and {len(labels) - limit} more" if len(labels) > limit else ""
    return ", ".join(labels[:limit]) + more


def _parallel(t: Topology, key: np.ndarray) -> str:
    """The message for parallel edges, naming the first pair of nodes joined twice (in link order) and how often."""
    order = np.lexsort((key[:, 1], key[:, 0]))  # stable: equal pairs keep link order
    k = key[order]
    same = np.flatnonzero((k[1:] == k[:-1]).all(axis=1))
    first = min(int(order[i + 1]) for i in same)  # the earliest link that repeats an earlier one
    u, v = (int(x) for x in t.edges[first])
    at = np.flatnonzero((key[:, 0] == key[first, 0]) & (key[:, 1] == key[first, 1])).tolist()  # link positions
    where = _names([str(i) for i in at]) if len(at) > SHOWN_NODES else ", ".join(map(str, at[:-1])) + f" and {at[-1]}"
    return (f"parallel edges are not allowed: links {where} (positions in the file's list) join {t.labels[u]!r} and "
            f"{t.labels[v]!r}; give one edge with a larger capacity instead")


def _disconnected(t: Topology, comp: np.ndarray) -> str:
    """The message for a network in several pieces: the nodes outside the largest piece (the one with the most
    servers, then the most nodes), servers first, since those are the ones AllReduce cannot reach."""
    count = int(comp.max()) + 1
    if not t.n_edges:
        return f"the graph must be connected, got {count} components: there are no links"
    servers = np.bincount(comp[t.is_server], minlength=count)
    nodes = np.bincount(comp, minlength=count)
    main = int(np.lexsort((-np.arange(count), nodes, servers))[-1])
    out = np.flatnonzero(comp != main)
    out = np.concatenate([out[t.is_server[out]], out[~t.is_server[out]]])
    n_srv = int(t.is_server[out].sum())
    what = f"{len(out)} node{'s' if len(out) > 1 else ''}" + (f" ({n_srv} server{'s' if n_srv > 1 else ''})"
                                                                 if n_srv else " (no server)")
    return (f"the graph must be connected, got {count} components: {what} not linked to the largest "
            f"({int(nodes[main])} nodes): {_names([t.labels[x] for x in out.tolist()])}")


@kernel(interpret_below=SMALL)
def _spread(ptr, nbr, source, through, row, unreached, step, queue):  # pragma: no cover - compiled
    """Breadth-first search from `source` over a CSR adjacency (``row[source]`` already set): each node u
    whose entry is still `unreached`, first reached from v, gets ``row[v] + step``; a node outside
    `through` (other than the source) is reached but not passed through. `queue` is scratch of n entries."""
    queue[0] = source
    head, tail = 0, 1
    while head < tail:
        v = queue[head]
        head += 1
        if v != source and not through[v]:
            continue
        for e in range(ptr[v], ptr[v + 1]):
            u = nbr[e]
            if row[u] == unreached:
                row[u] = row[v] + step
                queue[tail] = u
                tail += 1


@kernel(interpret_below=SMALL, nogil=True)
def _bfs(ptr, nbr, sources, through, out):  # pragma: no cover - compiled
    """Hops: fills row i of `out` with the hops from sources[i] (n + 1: unreachable), and returns it."""
    queue = np.empty(len(ptr) - 1, np.int64)
    for i in range(len(sources)):
        out[i, :] = len(ptr)  # n + 1
        out[i, sources[i]] = 0
        _spread(ptr, nbr, sources[i], through, out[i], len(ptr), 1, queue)
    return out


@kernel(interpret_below=SMALL)
def _components(ptr, nbr):  # pragma: no cover - compiled
    """Component label of every node: one search (`_spread`, step 0) from each node not yet labelled."""
    n = len(ptr) - 1
    comp = np.full(n, -1, np.int64)
    queue = np.empty(n, np.int64)
    through = np.ones(n, np.bool_)
    c = 0
    for s in range(n):
        if comp[s] < 0:
            comp[s] = c
            _spread(ptr, nbr, s, through, comp, -1, 0, queue)
            c += 1
    return comp
