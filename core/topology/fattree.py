"""Fat-tree(k): Al-Fares, Loukissas, Vahdat, "A Scalable, Commodity Data Center Network
Architecture", SIGCOMM 2008.

k pods, each with k/2 edge and k/2 aggregation switches; (k/2)^2 core switches; each edge
switch serves k/2 hosts. Aggregation switch a of every pod links to core switches
a·k/2 .. a·k/2 + k/2 - 1.

>>> t = fattree(4)
>>> (t.n_servers, t.n_nodes - t.n_servers, t.n_edges)
(16, 20, 48)
"""

from __future__ import annotations

import numpy as np

from .graph import MAX_SERVERS, Topology, TopologyError


def fattree(k: int) -> Topology:
    """Return Fat-tree(k): k^3/4 servers, 5k^2/4 switches, 3k^3/4 links."""
    if k < 2 or k % 2:
        raise TopologyError(f"fat-tree needs an even k >= 2, got k={k}")
    if k ** 3 // 4 > MAX_SERVERS:
        raise TopologyError(f"fat-tree k={k} has {k ** 3 // 4} servers; the limit is {MAX_SERVERS} (k=72)")
    h = k // 2
    n_host, n_edge, n_agg, n_core = k ** 3 // 4, k * h, k * h, h * h
    edge0 = n_host
    agg0 = edge0 + n_edge
    core0 = agg0 + n_agg
    hosts = np.arange(n_host)
    e_host = np.stack([hosts, edge0 + hosts // h], axis=1)
    pod, i, j = np.meshgrid(np.arange(k), np.arange(h), np.arange(h), indexing="ij")
    e_edge_agg = np.stack([edge0 + pod * h + i, agg0 + pod * h + j], axis=-1).reshape(-1, 2)
    e_agg_core = np.stack([agg0 + pod * h + i, core0 + i * h + j], axis=-1).reshape(-1, 2)
    e = np.concatenate([e_host, e_edge_agg, e_agg_core])
    level = np.repeat([0, 1, 2], [len(e_host), len(e_edge_agg), len(e_agg_core)])
    labels = [f"h{p}.{x}" for p, x in zip((hosts // (h * h)).tolist(), (hosts % (h * h)).tolist())]
    labels += [f"e{p}.{x}" for p in range(k) for x in range(h)]
    labels += [f"a{p}.{x}" for p in range(k) for x in range(h)]
    labels += [f"c{x}" for x in range(n_core)]
    n = core0 + n_core
    is_server = np.zeros(n, bool)
    is_server[:n_host] = True
    layer = np.r_[np.zeros(n_host), np.ones(n_edge), np.full(n_agg, 2), np.full(n_core, 3)].astype(np.int64)
    group = np.r_[hosts // (h * h), np.arange(n_edge) // h, np.arange(n_agg) // h, np.arange(n_core)]
    return Topology(spec=f"fattree:k={k}", is_server=is_server, edges=e,
                    capacity=np.ones(len(e), np.int64), labels=tuple(labels), layer=layer, group=group,
                    edge_level=level)
