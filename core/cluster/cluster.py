"""A GPU cluster: a network topology whose servers host G GPUs each, joined inside a server by
NVLink-class links (docs/cluster.md, "The cluster").

Servers are the topology's servers in id order (server index s = position in
``topology.servers``); GPU ``s * G + i`` is the i-th GPU of server s. An allocation is an int
array with one entry per server: how many of a job's GPUs sit there.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..topology import Topology, TopologyError, make_topology

DEFAULT_GPUS_PER_SERVER = 4
GPUS_PER_SERVER = (1, 64)
"""Smallest and largest GPUs per server a cluster takes (the CLI's --gpus-per-server and the dashboard's field)."""
NVLINK_GBPS = 2400.0
"""Gbit/s per direction between two GPUs of one server: NVLink 3 through NVSwitch, 300 GB/s per
direction per A100 (NVIDIA A100 datasheet: 600 GB/s total NVLink bandwidth per GPU)."""
NVLINK_LATENCY_US = 1.0
"""µs per intra-server step (a GPU-to-GPU NVLink transfer's start-up, order of a microsecond)."""


@dataclass(frozen=True, eq=False)
class Cluster:
    """A topology with `gpus_per_server` GPUs on every server."""

    topology: Topology
    gpus_per_server: int = DEFAULT_GPUS_PER_SERVER
    nvlink_gbps: float = NVLINK_GBPS
    nvlink_latency_us: float = NVLINK_LATENCY_US

    def __post_init__(self) -> None:
        g = self.gpus_per_server
        low, high = GPUS_PER_SERVER
        if isinstance(g, bool) or not isinstance(g, (int, np.integer)) or not low <= g <= high:
            raise TopologyError(f"gpus per server must be an integer in {low}..{high}, got {g!r}")
        if not (np.isfinite(self.nvlink_gbps) and self.nvlink_gbps > 0):
            raise TopologyError(f"intra-server bandwidth must be > 0 Gbit/s, got {self.nvlink_gbps!r}")

    @property
    def spec(self) -> str:
        """``"<topology spec> x<G> GPUs"``."""
        return f"{self.topology.spec} x{self.gpus_per_server} GPUs"

    @property
    def n_servers(self) -> int:
        """Servers of the topology."""
        return self.topology.n_servers

    @property
    def n_gpus(self) -> int:
        """GPUs in the cluster."""
        return self.n_servers * self.gpus_per_server

    @cached_property
    def nodes(self) -> np.ndarray:
        """Topology node id of each server index."""
        return self.topology.servers

    @cached_property
    def _dist(self) -> np.ndarray:
        """(S, nodes) hops from each server to every node over the whole topology (`Topology.hops`)."""
        return self.topology.hops(self.nodes)

    @cached_property
    def hops(self) -> np.ndarray:
        """(S, S) hop distance between servers over the whole topology."""
        return self._dist[:, self.nodes]

    @cached_property
    def ports(self) -> np.ndarray:
        """(S, S) how many of server a's links start a shortest route toward server b (BCube: the
        digits in which their addresses differ; 0 on the diagonal)."""
        ptr, nbr, _ = self.topology.adjacency
        dist = self._dist
        hops = self.hops
        out = np.zeros_like(hops)
        for a, node in enumerate(self.nodes.tolist()):
            near = nbr[ptr[node]:ptr[node + 1]]
            out[a] = (dist[:, near] == (hops[a] - 1)[:, None]).sum(axis=1)
        np.fill_diagonal(out, 0)
        return out

    @cached_property
    def first_link(self) -> np.ndarray:
        """(S, S) directed link by which server a's shortest route toward server b leaves a (-1 on the diagonal)."""
        from ..routing import compute_routes
        t = self.topology
        nxt = compute_routes(t).next_hop[:, self.nodes].T  # [a, b]: a's next node toward b
        out = np.full(nxt.shape, -1, dtype=np.int64)
        ok = nxt >= 0
        out[ok] = t.link_ids_of(np.broadcast_to(self.nodes[:, None], nxt.shape)[ok], nxt[ok])
        return out

    def server_label(self, s: int) -> str:
        """The topology's label of server index s."""
        return self.topology.labels[int(self.nodes[s])]


def make_cluster(topology: str | Topology, gpus_per_server: int = DEFAULT_GPUS_PER_SERVER,
                 nvlink_gbps: float = NVLINK_GBPS) -> Cluster:
    """A cluster from a topology spec (or topology) and the GPUs on each server."""
    t = make_topology(topology) if isinstance(topology, str) else topology
    return Cluster(t, int(gpus_per_server) if isinstance(gpus_per_server, (int, np.integer)) else gpus_per_server,
                   float(nvlink_gbps))
