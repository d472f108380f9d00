"""The `Topology` type: an undirected graph of servers and switches with full-duplex links.

Node ids are ``0 .. n-1``. Every undirected edge ``e = (u, v)`` is two directed links:
``2e`` is ``u -> v`` and ``2e + 1`` is ``v -> u``; each carries ``capacity[e]`` workloads a
round. Everything downstream (routing, workloads, the engine, heatmaps) indexes links this way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import networkx as nx
import numpy as np

SERVER = "server"
SWITCH = "switch"
MAX_SERVERS = 100_000
"""The generators' own limit on servers (the size guard usually refuses much earlier)."""


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
    """

    spec: str
    is_server: np.ndarray
    edges: np.ndarray
    capacity: np.ndarray
    labels: tuple[str, ...]
    layer: np.ndarray = field(default=None)  # type: ignore[assignment]
    group: np.ndarray = field(default=None)  # type: ignore[assignment]

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
        for name in ("is_server", "edges", "capacity", "layer", "group"):
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
    def degree(self) -> np.ndarray:
        """Number of links at each node."""
        return np.diff(self.adjacency[0])

    def out_capacity(self) -> np.ndarray:
        """Total outgoing capacity of each node (workloads it can send a round)."""
        return np.bincount(self.link_src, weights=self.link_capacity, minlength=self.n_nodes).astype(np.int64)

    @cached_property
    def size(self):
        """Its `core.guard.Size`: counts and route shape, as the size guard reads them."""
        from .sizes import size_of
        return size_of(self)

    # ---- conversions -------------------------------------------------------------------
    def to_networkx(self) -> nx.Graph:
        """An undirected networkx graph with node attributes kind/label/layer/group and edge capacity."""
        g = nx.Graph()
        for v in range(self.n_nodes):
            g.add_node(v, kind=SERVER if self.is_server[v] else SWITCH, label=self.labels[v],
                       layer=int(self.layer[v]), group=int(self.group[v]))
        for (u, v), c in zip(self.edges.tolist(), self.capacity.tolist()):
            g.add_edge(u, v, capacity=c)
        return g

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
            "diameter": int(nx.diameter(self.to_networkx())),
        }


def _hist(values: np.ndarray) -> dict[int, int]:
    uniq, counts = np.unique(values, return_counts=True)
    return {int(u): int(c) for u, c in zip(uniq, counts)}


def _check(t: Topology) -> None:
    n = t.n_nodes
    if len(t.labels) != n:
        raise TopologyError(f"labels: need one per node ({n}), got {len(t.labels)}")
    if t.edges.size and (t.edges.min() < 0 or t.edges.max() >= n):
        raise TopologyError(f"edges: node ids must lie in 0..{n - 1}")
    if np.any(t.edges[:, 0] == t.edges[:, 1]):
        u = int(t.edges[t.edges[:, 0] == t.edges[:, 1]][0, 0])
        raise TopologyError(f"self-loops are not allowed (node {u})")
    key = np.sort(t.edges, axis=1)
    if len(np.unique(key, axis=0)) != len(key):
        raise TopologyError("parallel edges are not allowed: give one edge with a larger capacity instead")
    if len(t.capacity) != len(t.edges):
        raise TopologyError("capacity: need one value per edge")
    if len(t.capacity) and t.capacity.min() < 1:
        raise TopologyError(f"capacity must be a positive integer, got {int(t.capacity.min())}")
    s = int(t.is_server.sum())
    if s < 2:
        raise TopologyError(f"a topology needs at least 2 servers for AllReduce, got {s}")
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(t.edges.tolist())
    if not nx.is_connected(g):
        comps = nx.number_connected_components(g)
        raise TopologyError(f"the graph must be connected, got {comps} components")
