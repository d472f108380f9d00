"""BCube(n, k): Guo et al., "BCube: A High Performance, Server-centric Network Architecture
for Modular Data Centers", SIGCOMM 2009.

Servers have (k+1)-digit base-n addresses; server id = the address read as a base-n number.
For each level l there are n^k switches; the level-l switch of a server is its address with
digit l removed, so it joins the n servers that differ only in digit l.

>>> t = bcube(3, 1)
>>> (t.n_servers, t.n_nodes - t.n_servers, t.n_edges)
(9, 6, 18)
"""

from __future__ import annotations

import numpy as np

from ..guard import capped_pow
from .graph import MAX_SERVERS, Topology, TopologyError


def bcube(n: int, k: int) -> Topology:
    """Return BCube(n, k): n^(k+1) servers, (k+1)·n^k switches, (k+1)·n^(k+1) links."""
    if n < 2:
        raise TopologyError(f"BCube needs n >= 2 ports per switch, got n={n}")
    if k < 0:
        raise TopologyError(f"BCube needs k >= 0 levels, got k={k}")
    if capped_pow(n, k + 1, MAX_SERVERS) > MAX_SERVERS:  # never n ** (k + 1) in full
        raise TopologyError(f"BCube({n},{k}) has more than {MAX_SERVERS} servers; the limit is {MAX_SERVERS}")
    n_srv = n ** (k + 1)
    per_level = n ** k
    servers = np.arange(n_srv)
    digits = (servers[:, None] // n ** np.arange(k + 1)[None, :]) % n  # digit l of each server
    edges, labels_sw = [], []
    for level in range(k + 1):
        # address without digit `level`, read as a base-n number
        low = servers % n ** level
        high = servers // n ** (level + 1)
        sw_index = high * n ** level + low
        edges.append(np.stack([servers, n_srv + level * per_level + sw_index], axis=1))
    for level in range(k + 1):
        for j in range(per_level):
            labels_sw.append(f"sw{level}.{j}")
    sep = "" if n <= 10 else "."  # s111 was both (1, 11) and (11, 1) on BCube(12,1): labels are unique (trial 19)
    labels = [f"s{sep.join(str(d) for d in reversed(row))}" for row in digits.tolist()]
    n_sw = (k + 1) * per_level
    is_server = np.r_[np.ones(n_srv, bool), np.zeros(n_sw, bool)]
    layer = np.r_[np.zeros(n_srv, np.int64), 1 + np.repeat(np.arange(k + 1), per_level)]
    group = np.r_[servers, np.tile(np.arange(per_level), k + 1)]
    e = np.concatenate(edges)
    return Topology(spec=f"bcube:n={n},k={k}", is_server=is_server, edges=e,
                    capacity=np.ones(len(e), np.int64), labels=tuple(labels + labels_sw),
                    layer=layer, group=group, edge_level=np.repeat(np.arange(k + 1), n_srv))
